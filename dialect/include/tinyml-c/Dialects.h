//===- Dialects.h - C API of the tinyml dialect -------------------*- C -*-===//
#ifndef TINYML_C_DIALECTS_H
#define TINYML_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tinyml, tinyml);

#ifdef __cplusplus
}
#endif

#endif // TINYML_C_DIALECTS_H
