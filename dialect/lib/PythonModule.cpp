//===- PythonModule.cpp - the tinyml._tinyml Python extension ---------------===//
//
// Registers the tinyml dialect in a context created by the upstream `mlir`
// Python package. The context crosses as its C API capsule, so this module
// needs no type casters from the upstream bindings' nanobind domain.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/IR.h"
#include "tinyml-c/Dialects.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

static MlirContext contextFromPython(nb::handle context) {
  nb::object capsule = context.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  MlirContext ctx = mlirPythonCapsuleToContext(capsule.ptr());
  if (mlirContextIsNull(ctx))
    throw nb::type_error("expected an mlir.ir.Context");
  return ctx;
}

NB_MODULE(_tinyml, m) {
  m.doc() = "Native part of tinyml: the tinyml dialect.";
  m.def(
      "register_dialect",
      [](nb::handle context, bool load) {
        MlirContext ctx = contextFromPython(context);
        MlirDialectHandle handle = mlirGetDialectHandle__tinyml__();
        mlirDialectHandleRegisterDialect(handle, ctx);
        if (load)
          mlirDialectHandleLoadDialect(handle, ctx);
      },
      nb::arg("context"), nb::arg("load") = true,
      "Registers (and by default loads) the tinyml dialect in `context`.");
}
