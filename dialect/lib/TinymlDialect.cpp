//===- TinymlDialect.cpp - tinyml dialect registration ----------*- C++ -*-===//
#include "tinyml/TinymlDialect.h"
#include "tinyml/TinymlAttrs.h"
#include "tinyml/TinymlOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tinyml;

#include "tinyml/TinymlOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tinyml/TinymlAttrs.cpp.inc"

Operation *TinymlDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

void TinymlDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tinyml/TinymlOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tinyml/TinymlAttrs.cpp.inc"
      >();
}
