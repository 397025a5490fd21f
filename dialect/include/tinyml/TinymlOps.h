//===- TinymlOps.h - tinyml operation declarations --------------*- C++ -*-===//
#ifndef TINYML_TINYMLOPS_H
#define TINYML_TINYMLOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tinyml/TinymlAttrs.h"
#include "tinyml/TinymlDialect.h"

#define GET_OP_CLASSES
#include "tinyml/TinymlOps.h.inc"

#endif // TINYML_TINYMLOPS_H
