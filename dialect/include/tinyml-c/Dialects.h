//===- Dialects.h - C API of the tinyml dialect -------------------*- C -*-===//
#ifndef TINYML_C_DIALECTS_H
#define TINYML_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Tinyml, tinyml);

//===----------------------------------------------------------------------===//
// #tinyml<fusion_kind ...>
//===----------------------------------------------------------------------===//

/// Whether `attr` is a `#tinyml<fusion_kind ...>` attribute (a `tinyml.fused`
/// op's `kind`).
MLIR_CAPI_EXPORTED bool tinymlAttributeIsAFusionKind(MlirAttribute attr);

/// The value of its `FusionKind` enum (the Python `FusionKind` of
/// `tinyml.dialects.tinyml`).
MLIR_CAPI_EXPORTED uint32_t tinymlFusionKindGetValue(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// #tinyml.lowering
//===----------------------------------------------------------------------===//

/// Whether `attr` is a `#tinyml.lowering` attribute.
MLIR_CAPI_EXPORTED bool tinymlAttributeIsALoweringConfig(MlirAttribute attr);

/// The number of tile sizes and the `pos`-th of them.
MLIR_CAPI_EXPORTED intptr_t tinymlLoweringConfigGetNumTile(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t tinymlLoweringConfigGetTile(MlirAttribute attr, intptr_t pos);

/// The number of reduction steps and the `pos`-th of them.
MLIR_CAPI_EXPORTED intptr_t tinymlLoweringConfigGetNumReduction(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t tinymlLoweringConfigGetReduction(MlirAttribute attr,
                                                            intptr_t pos);

#ifdef __cplusplus
}
#endif

#endif // TINYML_C_DIALECTS_H
