"""Small `.tflite` flatbuffers written from Python (the `tflite` package's
generated builders), for the TFLite frontend's tests: float models of a
few operators, and the malformed ones a converter never writes (several
subgraphs, a dynamic shape, an unsupported operator or type).

    model = TfliteModel()
    x = model.tensor("x", [1, 4, 4, 3])
    w = model.tensor("w", [8, 1, 1, 3], data=weights)
    y = model.tensor("y", [1, 4, 4, 8])
    model.operator("CONV_2D", [x, w], [y], conv_options(padding="VALID"))
    data = model.build(inputs=[x], outputs=[y])
"""
from __future__ import annotations

from dataclasses import dataclass, field

import flatbuffers
import numpy as np
import tflite

TYPES = {np.dtype(np.float32): tflite.TensorType.FLOAT32,
         np.dtype(np.int8): tflite.TensorType.INT8,
         np.dtype(np.int16): tflite.TensorType.INT16,
         np.dtype(np.int32): tflite.TensorType.INT32,
         np.dtype(np.int64): tflite.TensorType.INT64,
         np.dtype(np.float16): tflite.TensorType.FLOAT16}


@dataclass
class _Tensor:
    name: str
    shape: list[int]
    type: int
    data: np.ndarray | None
    signature: list[int] | None
    quantization: tuple | None  # (scales, zero points, axis)
    variable: bool = False  # is_variable: state TFLM keeps between invocations


@dataclass
class _Operator:
    kind: str
    inputs: list[int]
    outputs: list[int]
    options: tuple | None  # (BuiltinOptions type, a function building the table)
    custom_options: bytes | None


@dataclass
class TfliteModel:
    tensors: list[_Tensor] = field(default_factory=list)
    operators: list[_Operator] = field(default_factory=list)
    #: an operator kind -> the deprecated_builtin_code to write instead of
    #: min(code, 127), which is what converters write
    deprecated_codes: dict[str, int] = field(default_factory=dict)

    def tensor(self, name: str, shape, dtype=np.float32, data=None, signature=None,
               quantization=None, variable=False) -> int:
        self.tensors.append(_Tensor(name, list(shape), TYPES[np.dtype(dtype)],
                                    None if data is None else np.asarray(data, dtype),
                                    signature, quantization, variable))
        return len(self.tensors) - 1

    def operator(self, kind: str, inputs, outputs, options=None, custom_options=None) -> None:
        self.operators.append(_Operator(kind, list(inputs), list(outputs), options,
                                        custom_options))

    def build(self, inputs, outputs, subgraphs: int = 1) -> bytes:
        b = flatbuffers.Builder(1024)
        kinds = sorted({op.kind for op in self.operators})
        codes = []
        for kind in kinds:
            code = getattr(tflite.BuiltinOperator, kind)
            tflite.OperatorCodeStart(b)
            tflite.OperatorCodeAddDeprecatedBuiltinCode(
                b, self.deprecated_codes.get(kind, min(code, 127)))
            tflite.OperatorCodeAddBuiltinCode(b, code)
            tflite.OperatorCodeAddVersion(b, 1)
            codes.append(tflite.OperatorCodeEnd(b))
        buffers = [self._buffer(b, None)] + [self._buffer(b, t.data) for t in self.tensors]
        graphs = [self._subgraph(b, kinds, inputs, outputs) for _ in range(subgraphs)]
        code_vector = _vector(b, tflite.ModelStartOperatorCodesVector, codes)
        graph_vector = _vector(b, tflite.ModelStartSubgraphsVector, graphs)
        buffer_vector = _vector(b, tflite.ModelStartBuffersVector, buffers)
        tflite.ModelStart(b)
        tflite.ModelAddVersion(b, 3)
        tflite.ModelAddOperatorCodes(b, code_vector)
        tflite.ModelAddSubgraphs(b, graph_vector)
        tflite.ModelAddBuffers(b, buffer_vector)
        b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
        return bytes(b.Output())

    @staticmethod
    def _buffer(b, data) -> int:
        raw = None
        if data is not None:
            raw = b.CreateNumpyVector(np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8))
        tflite.BufferStart(b)
        if raw is not None:
            tflite.BufferAddData(b, raw)
        return tflite.BufferEnd(b)

    def _subgraph(self, b, kinds, inputs, outputs) -> int:
        tensors = []
        for index, t in enumerate(self.tensors):
            name = b.CreateString(t.name)
            shape = b.CreateNumpyVector(np.asarray(t.shape, np.int32))
            signature = None if t.signature is None else b.CreateNumpyVector(
                np.asarray(t.signature, np.int32))
            quantization = None
            if t.quantization is not None:
                # zero points None: a table without them, as no converter writes
                scales, zero_points, axis = t.quantization
                scale_vector = b.CreateNumpyVector(np.asarray(scales, np.float32))
                zero_vector = None if zero_points is None else \
                    b.CreateNumpyVector(np.asarray(zero_points, np.int64))
                tflite.QuantizationParametersStart(b)
                tflite.QuantizationParametersAddScale(b, scale_vector)
                if zero_vector is not None:
                    tflite.QuantizationParametersAddZeroPoint(b, zero_vector)
                tflite.QuantizationParametersAddQuantizedDimension(b, axis)
                quantization = tflite.QuantizationParametersEnd(b)
            tflite.TensorStart(b)
            tflite.TensorAddShape(b, shape)
            if signature is not None:
                tflite.TensorAddShapeSignature(b, signature)
            tflite.TensorAddType(b, t.type)
            tflite.TensorAddBuffer(b, index + 1 if t.data is not None else 0)
            tflite.TensorAddName(b, name)
            if quantization is not None:
                tflite.TensorAddQuantization(b, quantization)
            tflite.TensorAddIsVariable(b, t.variable)
            tensors.append(tflite.TensorEnd(b))
        operators = []
        for op in self.operators:
            options = op.options[1](b) if op.options else None
            ins = b.CreateNumpyVector(np.asarray(op.inputs, np.int32))
            outs = b.CreateNumpyVector(np.asarray(op.outputs, np.int32))
            custom = None if op.custom_options is None else \
                b.CreateNumpyVector(np.frombuffer(op.custom_options, np.uint8))
            tflite.OperatorStart(b)
            tflite.OperatorAddOpcodeIndex(b, kinds.index(op.kind))
            tflite.OperatorAddInputs(b, ins)
            tflite.OperatorAddOutputs(b, outs)
            if options is not None:
                tflite.OperatorAddBuiltinOptionsType(b, op.options[0])
                tflite.OperatorAddBuiltinOptions(b, options)
            if custom is not None:
                tflite.OperatorAddCustomOptions(b, custom)
            operators.append(tflite.OperatorEnd(b))
        tensor_vector = _vector(b, tflite.SubGraphStartTensorsVector, tensors)
        operator_vector = _vector(b, tflite.SubGraphStartOperatorsVector, operators)
        input_vector = b.CreateNumpyVector(np.asarray(inputs, np.int32))
        output_vector = b.CreateNumpyVector(np.asarray(outputs, np.int32))
        name = b.CreateString("main")
        tflite.SubGraphStart(b)
        tflite.SubGraphAddTensors(b, tensor_vector)
        tflite.SubGraphAddOperators(b, operator_vector)
        tflite.SubGraphAddInputs(b, input_vector)
        tflite.SubGraphAddOutputs(b, output_vector)
        tflite.SubGraphAddName(b, name)
        return tflite.SubGraphEnd(b)


def _vector(b, start, offsets) -> int:
    start(b, len(offsets))
    for offset in reversed(offsets):
        b.PrependUOffsetTRelative(offset)
    return b.EndVector()


def conv_options(padding: str = "SAME", stride: int = 1, activation: str = "NONE",
                 dilation: int = 1, stride_h: int | None = None):
    """CONV_2D's builtin options (`stride_h`: a vertical stride other than
    `stride`)."""
    def table(b):
        tflite.Conv2DOptionsStart(b)
        tflite.Conv2DOptionsAddPadding(b, getattr(tflite.Padding, padding))
        tflite.Conv2DOptionsAddStrideH(b, stride if stride_h is None else stride_h)
        tflite.Conv2DOptionsAddStrideW(b, stride)
        tflite.Conv2DOptionsAddDilationHFactor(b, dilation)
        tflite.Conv2DOptionsAddDilationWFactor(b, dilation)
        tflite.Conv2DOptionsAddFusedActivationFunction(
            b, getattr(tflite.ActivationFunctionType, activation))
        return tflite.Conv2DOptionsEnd(b)
    return tflite.BuiltinOptions.Conv2DOptions, table


def add_options(activation: str = "NONE", kind: str = "Add"):
    """The builtin options of ADD (or of `kind` "Sub" or "Mul", whose tables
    hold the same one field)."""
    def table(b):
        getattr(tflite, f"{kind}OptionsStart")(b)
        getattr(tflite, f"{kind}OptionsAddFusedActivationFunction")(
            b, getattr(tflite.ActivationFunctionType, activation))
        return getattr(tflite, f"{kind}OptionsEnd")(b)
    return getattr(tflite.BuiltinOptions, f"{kind}Options"), table


def _activation(name: str) -> int:
    return getattr(tflite.ActivationFunctionType, name)


def depthwise_options(padding: str = "SAME", stride: int = 1, activation: str = "NONE",
                      multiplier: int = 1):
    """DEPTHWISE_CONV_2D's builtin options."""
    def table(b):
        tflite.DepthwiseConv2DOptionsStart(b)
        tflite.DepthwiseConv2DOptionsAddPadding(b, getattr(tflite.Padding, padding))
        tflite.DepthwiseConv2DOptionsAddStrideH(b, stride)
        tflite.DepthwiseConv2DOptionsAddStrideW(b, stride)
        tflite.DepthwiseConv2DOptionsAddDepthMultiplier(b, multiplier)
        tflite.DepthwiseConv2DOptionsAddDilationHFactor(b, 1)
        tflite.DepthwiseConv2DOptionsAddDilationWFactor(b, 1)
        tflite.DepthwiseConv2DOptionsAddFusedActivationFunction(b, _activation(activation))
        return tflite.DepthwiseConv2DOptionsEnd(b)
    return tflite.BuiltinOptions.DepthwiseConv2DOptions, table


def fully_connected_options(activation: str = "NONE", keep_num_dims: bool = False):
    def table(b):
        tflite.FullyConnectedOptionsStart(b)
        tflite.FullyConnectedOptionsAddFusedActivationFunction(b, _activation(activation))
        tflite.FullyConnectedOptionsAddKeepNumDims(b, keep_num_dims)
        return tflite.FullyConnectedOptionsEnd(b)
    return tflite.BuiltinOptions.FullyConnectedOptions, table


def pool_options(size: int, stride: int, padding: str = "VALID", activation: str = "NONE"):
    def table(b):
        tflite.Pool2DOptionsStart(b)
        tflite.Pool2DOptionsAddPadding(b, getattr(tflite.Padding, padding))
        tflite.Pool2DOptionsAddStrideH(b, stride)
        tflite.Pool2DOptionsAddStrideW(b, stride)
        tflite.Pool2DOptionsAddFilterHeight(b, size)
        tflite.Pool2DOptionsAddFilterWidth(b, size)
        tflite.Pool2DOptionsAddFusedActivationFunction(b, _activation(activation))
        return tflite.Pool2DOptionsEnd(b)
    return tflite.BuiltinOptions.Pool2DOptions, table


def softmax_options(beta: float = 1.0):
    def table(b):
        tflite.SoftmaxOptionsStart(b)
        tflite.SoftmaxOptionsAddBeta(b, beta)
        return tflite.SoftmaxOptionsEnd(b)
    return tflite.BuiltinOptions.SoftmaxOptions, table


def concatenation_options(axis: int, activation: str = "NONE"):
    def table(b):
        tflite.ConcatenationOptionsStart(b)
        tflite.ConcatenationOptionsAddAxis(b, axis)
        tflite.ConcatenationOptionsAddFusedActivationFunction(b, _activation(activation))
        return tflite.ConcatenationOptionsEnd(b)
    return tflite.BuiltinOptions.ConcatenationOptions, table


def reducer_options(keep_dims: bool):
    def table(b):
        tflite.ReducerOptionsStart(b)
        tflite.ReducerOptionsAddKeepDims(b, keep_dims)
        return tflite.ReducerOptionsEnd(b)
    return tflite.BuiltinOptions.ReducerOptions, table


def strided_slice_options(shrink_axis_mask: int = 0, begin_mask: int = 0, end_mask: int = 0):
    def table(b):
        tflite.StridedSliceOptionsStart(b)
        tflite.StridedSliceOptionsAddBeginMask(b, begin_mask)
        tflite.StridedSliceOptionsAddEndMask(b, end_mask)
        tflite.StridedSliceOptionsAddShrinkAxisMask(b, shrink_axis_mask)
        return tflite.StridedSliceOptionsEnd(b)
    return tflite.BuiltinOptions.StridedSliceOptions, table


def pack_options(values_count: int, axis: int = 0):
    def table(b):
        tflite.PackOptionsStart(b)
        tflite.PackOptionsAddValuesCount(b, values_count)
        tflite.PackOptionsAddAxis(b, axis)
        return tflite.PackOptionsEnd(b)
    return tflite.BuiltinOptions.PackOptions, table


def split_options(num_splits: int):
    def table(b):
        tflite.SplitOptionsStart(b)
        tflite.SplitOptionsAddNumSplits(b, num_splits)
        return tflite.SplitOptionsEnd(b)
    return tflite.BuiltinOptions.SplitOptions, table


def leaky_relu_options(alpha: float):
    def table(b):
        tflite.LeakyReluOptionsStart(b)
        tflite.LeakyReluOptionsAddAlpha(b, alpha)
        return tflite.LeakyReluOptionsEnd(b)
    return tflite.BuiltinOptions.LeakyReluOptions, table


def lstm_options(cell_clip: float = 0.0, time_major: bool = False, activation: str = "TANH"):
    def table(b):
        tflite.UnidirectionalSequenceLSTMOptionsStart(b)
        tflite.UnidirectionalSequenceLSTMOptionsAddFusedActivationFunction(
            b, _activation(activation))
        tflite.UnidirectionalSequenceLSTMOptionsAddCellClip(b, cell_clip)
        tflite.UnidirectionalSequenceLSTMOptionsAddTimeMajor(b, time_major)
        return tflite.UnidirectionalSequenceLSTMOptionsEnd(b)
    return tflite.BuiltinOptions.UnidirectionalSequenceLSTMOptions, table


def svdf_options(rank: int, activation: str = "NONE"):
    def table(b):
        tflite.SVDFOptionsStart(b)
        tflite.SVDFOptionsAddRank(b, rank)
        tflite.SVDFOptionsAddFusedActivationFunction(b, _activation(activation))
        return tflite.SVDFOptionsEnd(b)
    return tflite.BuiltinOptions.SVDFOptions, table
