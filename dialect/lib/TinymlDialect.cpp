//===- TinymlDialect.cpp - tinyml dialect registration ----------*- C++ -*-===//
#include "tinyml/TinymlDialect.h"
#include "tinyml/TinymlAttrs.h"
#include "tinyml/TinymlOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tinyml;

#include "tinyml/TinymlOpsDialect.cpp.inc"

#include "tinyml/TinymlEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tinyml/TinymlAttrs.cpp.inc"

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
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tinyml/TinymlAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Discardable attributes
//===----------------------------------------------------------------------===//

namespace {
/// The kind of value a discardable attribute holds; None: not one of ours.
enum class AttrKind { None, Integer, Float, String, Unit, Array, Dictionary, I64Array };

/// Attributes on ops: what the passes record on a function (the report is
/// read from them: python/tinyml/report_attributes.py and the passes), and
/// the marks they leave on the ops of a group.
AttrKind operationAttrKind(StringRef name) {
  return llvm::StringSwitch<AttrKind>(name)
      .Cases({"tinyml.batch", "tinyml.arena_bytes", "tinyml.arena_alignment",
              "tinyml.greedy_arena_bytes", "tinyml.naive_arena_bytes",
              "tinyml.lower_bound_bytes", "tinyml.schedule_peak_bytes",
              "tinyml.schedule_original_peak_bytes", "tinyml.in_place_peak_bytes",
              "tinyml.recomputed_macs", "tinyml.line_buffers", "tinyml.script"},
             AttrKind::Integer)
      .Cases({"tinyml.peak_op", "tinyml.schedule_method", "tinyml.signature"},
             AttrKind::String)
      .Cases({"tinyml.in_place", "tinyml.taps_as_channels",
              "tinyml.widened", "tinyml.byte_pairs"}, AttrKind::Unit)
      .Case("tinyml.window_as_channels", AttrKind::I64Array)
      .Case("tinyml.kernels", AttrKind::Array)
      .Case("tinyml.memory_plan", AttrKind::Dictionary)
      .Default(AttrKind::None);
}

/// Attributes of a function's arguments and results: the model's name,
/// layout and quantization of an input or output, a streaming model's
/// state input, and the arena argument's mark.
AttrKind interfaceAttrKind(StringRef name, bool argument) {
  return llvm::StringSwitch<AttrKind>(name)
      .Cases({"tinyml.name", "tinyml.layout"}, AttrKind::String)
      .Case("tinyml.state", argument ? AttrKind::String : AttrKind::None)
      .Case("tinyml.scale", AttrKind::Float)
      .Case("tinyml.zero_point", AttrKind::Integer)
      .Case("tinyml.arena", argument ? AttrKind::Unit : AttrKind::None)
      .Default(AttrKind::None);
}

bool holds(AttrKind kind, Attribute value) {
  switch (kind) {
  case AttrKind::Integer:
    return isa<IntegerAttr>(value);
  case AttrKind::Float:
    return isa<FloatAttr>(value);
  case AttrKind::String:
    return isa<StringAttr>(value);
  case AttrKind::Unit:
    return isa<UnitAttr>(value);
  case AttrKind::Array:
    return isa<ArrayAttr>(value);
  case AttrKind::Dictionary:
    return isa<DictionaryAttr>(value);
  case AttrKind::I64Array:
    return isa<DenseI64ArrayAttr>(value);
  case AttrKind::None:
    return false;
  }
  llvm_unreachable("every kind is handled");
}

StringRef kindName(AttrKind kind) {
  switch (kind) {
  case AttrKind::Integer:
    return "an integer";
  case AttrKind::Float:
    return "a float";
  case AttrKind::String:
    return "a string";
  case AttrKind::Unit:
    return "a unit attribute";
  case AttrKind::Array:
    return "an array";
  case AttrKind::Dictionary:
    return "a dictionary";
  case AttrKind::I64Array:
    return "an array<i64>";
  case AttrKind::None:
    break;
  }
  llvm_unreachable("no name for None");
}

LogicalResult verifyKind(Operation *op, NamedAttribute attr, AttrKind kind,
                         StringRef where) {
  if (kind == AttrKind::None)
    return op->emitError() << "unknown tinyml " << where << " attribute '"
                           << attr.getName().getValue() << "'";
  if (!holds(kind, attr.getValue()))
    return op->emitError() << "'" << attr.getName().getValue() << "' must be "
                           << kindName(kind) << ", got " << attr.getValue();
  return success();
}
} // namespace

LogicalResult TinymlDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  return verifyKind(op, attr, operationAttrKind(attr.getName().getValue()),
                    "operation");
}

LogicalResult TinymlDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                      unsigned,
                                                      NamedAttribute attr) {
  return verifyKind(op, attr,
                    interfaceAttrKind(attr.getName().getValue(), true),
                    "argument");
}

LogicalResult TinymlDialect::verifyRegionResultAttribute(Operation *op,
                                                         unsigned, unsigned,
                                                         NamedAttribute attr) {
  return verifyKind(op, attr,
                    interfaceAttrKind(attr.getName().getValue(), false),
                    "result");
}
