//===- TinymlDialect.cpp - tinyml dialect registration ----------*- C++ -*-===//
#include "tinyml/TinymlDialect.h"
#include "tinyml/TinymlOps.h"

using namespace mlir;
using namespace mlir::tinyml;

#include "tinyml/TinymlOpsDialect.cpp.inc"

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
}
