//===- TinymlAttrs.cpp - verifiers of tinyml attributes ----------*- C++ -*-===//
#include "tinyml/TinymlAttrs.h"

#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::tinyml;

LogicalResult
LoweringConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           ArrayRef<int64_t> tile, ArrayRef<int64_t> reduction) {
  auto negative = [](int64_t size) { return size < 0; };
  if (llvm::any_of(tile, negative) || llvm::any_of(reduction, negative))
    return emitError() << "tile sizes must be non-negative";
  if (llvm::all_of(tile, [](int64_t size) { return size == 0; }))
    return emitError() << "a tile must tile at least one dimension";
  return success();
}
