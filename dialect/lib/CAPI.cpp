//===- CAPI.cpp - C API of the tinyml dialect ------------------------------===//
#include "tinyml-c/Dialects.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "tinyml/TinymlAttrs.h"
#include "tinyml/TinymlDialect.h"

using namespace mlir;
using namespace mlir::tinyml;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tinyml, tinyml,
                                      mlir::tinyml::TinymlDialect)

bool tinymlAttributeIsAFusionKind(MlirAttribute attr) {
  return isa<FusionKindAttr>(unwrap(attr));
}

uint32_t tinymlFusionKindGetValue(MlirAttribute attr) {
  return static_cast<uint32_t>(cast<FusionKindAttr>(unwrap(attr)).getValue());
}

bool tinymlAttributeIsALoweringConfig(MlirAttribute attr) {
  return isa<LoweringConfigAttr>(unwrap(attr));
}

intptr_t tinymlLoweringConfigGetNumTile(MlirAttribute attr) {
  return cast<LoweringConfigAttr>(unwrap(attr)).getTile().size();
}

int64_t tinymlLoweringConfigGetTile(MlirAttribute attr, intptr_t pos) {
  return cast<LoweringConfigAttr>(unwrap(attr)).getTile()[pos];
}

intptr_t tinymlLoweringConfigGetNumReduction(MlirAttribute attr) {
  return cast<LoweringConfigAttr>(unwrap(attr)).getReduction().size();
}

int64_t tinymlLoweringConfigGetReduction(MlirAttribute attr, intptr_t pos) {
  return cast<LoweringConfigAttr>(unwrap(attr)).getReduction()[pos];
}
