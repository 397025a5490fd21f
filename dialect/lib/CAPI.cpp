//===- CAPI.cpp - C API registration hook for the tinyml dialect -----------===//
#include "tinyml-c/Dialects.h"

#include "mlir/CAPI/Registration.h"
#include "tinyml/TinymlDialect.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Tinyml, tinyml,
                                      mlir::tinyml::TinymlDialect)
