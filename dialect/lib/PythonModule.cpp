//===- PythonModule.cpp - the tinyml._tinyml Python extension ---------------===//
//
// Registers the tinyml dialect in a context created by the upstream `mlir`
// Python package, and reads its attributes. Contexts and attributes cross as
// their C API capsules, so this module needs no type casters from the
// upstream bindings' nanobind domain.
//
//===----------------------------------------------------------------------===//

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/IR.h"
#include "tinyml-c/Dialects.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/vector.h>

#include <optional>
#include <utility>
#include <vector>

namespace nb = nanobind;

static MlirContext contextFromPython(nb::handle context) {
  nb::object capsule = context.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  MlirContext ctx = mlirPythonCapsuleToContext(capsule.ptr());
  if (mlirContextIsNull(ctx))
    throw nb::type_error("expected an mlir.ir.Context");
  return ctx;
}

static MlirAttribute attributeFromPython(nb::handle attribute) {
  nb::object capsule = attribute.attr(MLIR_PYTHON_CAPI_PTR_ATTR);
  MlirAttribute attr = mlirPythonCapsuleToAttribute(capsule.ptr());
  if (mlirAttributeIsNull(attr))
    throw nb::type_error("expected an mlir.ir.Attribute");
  return attr;
}

using Sizes = std::vector<int64_t>;

static Sizes sizes(MlirAttribute attr, intptr_t (*count)(MlirAttribute),
                   int64_t (*at)(MlirAttribute, intptr_t)) {
  Sizes result;
  for (intptr_t i = 0, e = count(attr); i < e; ++i)
    result.push_back(at(attr, i));
  return result;
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
  m.def(
      "lowering_config_sizes",
      [](nb::handle attribute) -> std::optional<std::pair<Sizes, Sizes>> {
        MlirAttribute attr = attributeFromPython(attribute);
        if (!tinymlAttributeIsALoweringConfig(attr))
          return std::nullopt;
        return std::make_pair(
            sizes(attr, tinymlLoweringConfigGetNumTile, tinymlLoweringConfigGetTile),
            sizes(attr, tinymlLoweringConfigGetNumReduction,
                  tinymlLoweringConfigGetReduction));
      },
      nb::arg("attribute"),
      "The (tile, reduction) sizes of a `#tinyml.lowering` attribute, or None "
      "for any other attribute.");
  m.def(
      "fusion_kind_value",
      [](nb::handle attribute) -> std::optional<uint32_t> {
        MlirAttribute attr = attributeFromPython(attribute);
        if (!tinymlAttributeIsAFusionKind(attr))
          return std::nullopt;
        return tinymlFusionKindGetValue(attr);
      },
      nb::arg("attribute"),
      "The value of a `#tinyml<fusion_kind ...>` attribute (a "
      "`tinyml.dialects.tinyml.FusionKind`), or None for any other attribute.");
}
