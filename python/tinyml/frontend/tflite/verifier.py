"""A structural check of a `.tflite` flatbuffer before anything reads it.

TFLM runs the flatbuffers verifier on a model before it loads it; the
Python `flatbuffers` runtime has none and reads whatever an offset points
at, so a damaged file either fails deep in a read (a Python exception) or,
when the damage is in a table tinyml never reads, compiles a model TFLM
refuses. `verify` walks every table of the schema a model's reader can
reach from the root -- the model, its operator codes, buffers, metadata and
signatures, every subgraph, tensor (with its quantization, sparsity and
variant types) and operator (with its options tables) -- and checks what
the C++ verifier checks: each table's vtable and object inside the file,
4-byte aligned offsets, every field, vector (its length times its element
size) and string (with its terminating zero) inside the file. It checks
the structure only; what the values mean is the importer's business.

    verify(data, filename)   raises FrontendError naming the table and field
"""
from __future__ import annotations

import functools
import struct

from .. import FrontendError

# A field is (slot, name, kind). A kind is a scalar's size in bytes; STRING;
# (VECTOR, element size); (TABLES, table name), a vector of tables; (TABLE,
# table name); or (UNION, the slot of its type field, the name of the union's
# enum in the `tflite` package). A union member not in SCHEMA (an options
# table tinyml never reads) has its table checked, not its fields.
STRING, VECTOR, TABLES, TABLE, UNION = "string", "vector", "tables", "table", "union"

SCHEMA: dict[str, list[tuple]] = {
    "Model": [(0, "version", 4), (1, "operator_codes", (TABLES, "OperatorCode")),
              (2, "subgraphs", (TABLES, "SubGraph")), (3, "description", STRING),
              (4, "buffers", (TABLES, "Buffer")), (5, "metadata_buffer", (VECTOR, 4)),
              (6, "metadata", (TABLES, "Metadata")),
              (7, "signature_defs", (TABLES, "SignatureDef"))],
    "OperatorCode": [(0, "deprecated_builtin_code", 1), (1, "custom_code", STRING),
                     (2, "version", 4), (3, "builtin_code", 4)],
    "SubGraph": [(0, "tensors", (TABLES, "Tensor")), (1, "inputs", (VECTOR, 4)),
                 (2, "outputs", (VECTOR, 4)), (3, "operators", (TABLES, "Operator")),
                 (4, "name", STRING), (5, "debug_metadata_index", 4)],
    "Tensor": [(0, "shape", (VECTOR, 4)), (1, "type", 1), (2, "buffer", 4), (3, "name", STRING),
               (4, "quantization", (TABLE, "QuantizationParameters")), (5, "is_variable", 1),
               (6, "sparsity", (TABLE, "SparsityParameters")),
               (7, "shape_signature", (VECTOR, 4)), (8, "has_rank", 1),
               (9, "variant_tensors", (TABLES, "VariantSubType"))],
    "QuantizationParameters": [(0, "min", (VECTOR, 4)), (1, "max", (VECTOR, 4)),
                               (2, "scale", (VECTOR, 4)), (3, "zero_point", (VECTOR, 8)),
                               (4, "details_type", 1),
                               (5, "details", (UNION, 4, "QuantizationDetails")),
                               (6, "quantized_dimension", 4)],
    "CustomQuantization": [(0, "custom", (VECTOR, 1))],
    "SparsityParameters": [(0, "traversal_order", (VECTOR, 4)), (1, "block_map", (VECTOR, 4)),
                           (2, "dim_metadata", (TABLES, "DimensionMetadata"))],
    "DimensionMetadata": [(0, "format", 1), (1, "dense_size", 4), (2, "array_segments_type", 1),
                          (3, "array_segments", (UNION, 2, "SparseIndexVector")),
                          (4, "array_indices_type", 1),
                          (5, "array_indices", (UNION, 4, "SparseIndexVector"))],
    "Int32Vector": [(0, "values", (VECTOR, 4))],
    "Uint16Vector": [(0, "values", (VECTOR, 2))],
    "Uint8Vector": [(0, "values", (VECTOR, 1))],
    "VariantSubType": [(0, "shape", (VECTOR, 4)), (1, "type", 1), (2, "has_rank", 1)],
    "Operator": [(0, "opcode_index", 4), (1, "inputs", (VECTOR, 4)), (2, "outputs", (VECTOR, 4)),
                 (3, "builtin_options_type", 1),
                 (4, "builtin_options", (UNION, 3, "BuiltinOptions")),
                 (5, "custom_options", (VECTOR, 1)), (6, "custom_options_format", 1),
                 (7, "mutating_variable_inputs", (VECTOR, 1)), (8, "intermediates", (VECTOR, 4)),
                 (9, "large_custom_options_offset", 8), (10, "large_custom_options_size", 8),
                 (11, "builtin_options_2_type", 1),
                 (12, "builtin_options_2", (UNION, 11, "BuiltinOptions2")),
                 (13, "debug_metadata_index", 4)],
    "Buffer": [(0, "data", (VECTOR, 1)), (1, "offset", 8), (2, "size", 8)],
    "Metadata": [(0, "name", STRING), (1, "buffer", 4)],
    "SignatureDef": [(0, "inputs", (TABLES, "TensorMap")), (1, "outputs", (TABLES, "TensorMap")),
                     (2, "signature_key", STRING), (4, "subgraph_index", 4)],
    "TensorMap": [(0, "name", STRING), (1, "tensor_index", 4)],
    # The options tables tinyml reads.
    "Conv2DOptions": [(0, "padding", 1), (1, "stride_w", 4), (2, "stride_h", 4),
                      (3, "fused_activation_function", 1), (4, "dilation_w_factor", 4),
                      (5, "dilation_h_factor", 4), (6, "quantized_bias_type", 1)],
    "DepthwiseConv2DOptions": [(0, "padding", 1), (1, "stride_w", 4), (2, "stride_h", 4),
                               (3, "depth_multiplier", 4), (4, "fused_activation_function", 1),
                               (5, "dilation_w_factor", 4), (6, "dilation_h_factor", 4)],
    "FullyConnectedOptions": [(0, "fused_activation_function", 1), (1, "weights_format", 1),
                              (2, "keep_num_dims", 1), (3, "asymmetric_quantize_inputs", 1),
                              (4, "quantized_bias_type", 1)],
    "Pool2DOptions": [(0, "padding", 1), (1, "stride_w", 4), (2, "stride_h", 4),
                      (3, "filter_width", 4), (4, "filter_height", 4),
                      (5, "fused_activation_function", 1)],
    "AddOptions": [(0, "fused_activation_function", 1), (1, "pot_scale_int16", 1)],
    "SubOptions": [(0, "fused_activation_function", 1), (1, "pot_scale_int16", 1)],
    "MulOptions": [(0, "fused_activation_function", 1)],
    "ConcatenationOptions": [(0, "axis", 4), (1, "fused_activation_function", 1)],
    "SoftmaxOptions": [(0, "beta", 4)],
    "ReducerOptions": [(0, "keep_dims", 1)],
    "SqueezeOptions": [(0, "squeeze_dims", (VECTOR, 4))],
    "StridedSliceOptions": [(0, "begin_mask", 4), (1, "end_mask", 4), (2, "ellipsis_mask", 4),
                            (3, "new_axis_mask", 4), (4, "shrink_axis_mask", 4),
                            (5, "offset", 1)],
    "PackOptions": [(0, "values_count", 4), (1, "axis", 4)],
    "GatherOptions": [(0, "axis", 4), (1, "batch_dims", 4)],
    "LeakyReluOptions": [(0, "alpha", 4)],
}


@functools.cache
def _members(enum: str) -> dict[int, str]:
    """A union's members tinyml knows the fields of, by type."""
    import tflite

    return {value: name for name, value in vars(getattr(tflite, enum)).items()
            if name in SCHEMA}


class _Verifier:
    def __init__(self, data: bytes, filename: str):
        self.data = data
        self.filename = filename

    def fail(self, where: list[str], problem: str) -> FrontendError:
        place = ", ".join(where) or "the model"
        return FrontendError(f"{self.filename}: corrupt or truncated flatbuffer: {place}: "
                             f"{problem}")

    def inside(self, where, position: int, size: int, what: str) -> None:
        if position < 0 or position + size > len(self.data):
            raise self.fail(where, f"{what} at byte {position} ({size} bytes) is outside the "
                                   f"file ({len(self.data)} bytes)")

    def u32(self, where, position: int, what: str) -> int:
        self.inside(where, position, 4, what)
        if position % 4:
            raise self.fail(where, f"{what} at byte {position} is not 4-byte aligned")
        return struct.unpack_from("<I", self.data, position)[0]

    def offset(self, where, position: int, what: str) -> int:
        """The position a uoffset at `position` points at."""
        target = position + self.u32(where, position, what)
        self.inside(where, target, 1, f"the target of {what}")
        return target

    def table(self, where, position: int, name: str | None) -> None:
        self.u32(where, position, "the table")
        vtable = position - struct.unpack_from("<i", self.data, position)[0]
        self.inside(where, vtable, 4, "the vtable")
        if vtable % 2:
            raise self.fail(where, f"the vtable at byte {vtable} is not 2-byte aligned")
        vtable_size, object_size = struct.unpack_from("<HH", self.data, vtable)
        if vtable_size < 4 or vtable_size % 2:
            raise self.fail(where, f"a vtable of {vtable_size} bytes")
        self.inside(where, vtable, vtable_size, "the vtable")
        self.inside(where, position, max(object_size, 4), "the table")
        slots = struct.unpack_from(f"<{(vtable_size - 4) // 2}H", self.data, vtable + 4)
        schema = SCHEMA.get(name, []) if name is not None else []  # None: an unknown member
        fields = {slot: (field_name, kind) for slot, field_name, kind in schema}
        for slot, field_offset in enumerate(slots):
            if not field_offset:
                continue
            field_name, kind = fields.get(slot, (f"field {slot}", 1))
            if field_offset >= object_size:
                raise self.fail(where, f"field '{field_name}' at offset {field_offset} is past "
                                       f"the end of its {object_size}-byte table")
            self.field(where, position, slots, field_name, kind, position + field_offset)

    def field(self, where, table: int, slots, name: str, kind, position: int) -> None:
        here = [*where, name]
        if isinstance(kind, int):
            self.inside(here, position, kind, "the value")
            return
        if kind == STRING:
            start = self.offset(here, position, "the string offset")
            length = self.u32(here, start, "the string length")
            self.inside(here, start + 4, length + 1, "the string")
            if self.data[start + 4 + length]:
                raise self.fail(here, "the string has no terminating zero")
            return
        tag, detail = kind[0], kind[1:]
        target = self.offset(here, position, f"the {tag} offset")
        if tag == TABLE:
            self.table(here, target, detail[0])
        elif tag == UNION:
            type_slot, enum = detail
            member = None
            if type_slot < len(slots) and slots[type_slot]:
                self.inside(here, table + slots[type_slot], 1, "the union type")
                member = _members(enum).get(self.data[table + slots[type_slot]])
            self.table(here, target, member)
        else:
            length = self.u32(here, target, "the vector length")
            size = detail[0] if tag == VECTOR else 4
            self.inside(here, target + 4, length * size, f"a vector of {length}")
            if tag == TABLES:
                for index in range(length):
                    element = target + 4 + 4 * index
                    label = f"{name[:-1] if name.endswith('s') else name} {index}"
                    self.table([*where, label], self.offset([*where, label], element,
                                                            "the table offset"), detail[0])


def verify(data: bytes, filename: str) -> None:
    """Raises FrontendError, naming the table and field, when the
    flatbuffer's structure reaches outside the file."""
    verifier = _Verifier(data, filename)
    verifier.table([], verifier.offset([], 0, "the root offset"), "Model")
