//===- TinymlDialect.h - tinyml dialect declaration -------------*- C++ -*-===//
#ifndef TINYML_TINYMLDIALECT_H
#define TINYML_TINYMLDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "tinyml/TinymlOpsDialect.h.inc"

#endif // TINYML_TINYMLDIALECT_H
