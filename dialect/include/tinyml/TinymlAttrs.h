//===- TinymlAttrs.h - tinyml attribute declarations ------------*- C++ -*-===//
#ifndef TINYML_TINYMLATTRS_H
#define TINYML_TINYMLATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "tinyml/TinymlDialect.h"

// FusionKind, the enum of #tinyml<fusion_kind ...>.
#include "tinyml/TinymlEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tinyml/TinymlAttrs.h.inc"

#endif // TINYML_TINYMLATTRS_H
