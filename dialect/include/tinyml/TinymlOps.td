//===- TinymlOps.td - tinyml operations ---------------------*- tablegen -*-===//
//
// Layout conventions, fixed for the whole dialect:
//   activations  NHWC            [N, H, W, C]
//   conv filter  HWCF            [KH, KW, C_in, C_out]
//   dw filter    HWCM            [KH, KW, C, M], output channel c*M + m
//   padding      [top, left, bottom, right] (the ONNX `pads` order)
//
//===----------------------------------------------------------------------===//

#ifndef TINYML_OPS
#define TINYML_OPS

include "tinyml/TinymlDialect.td"
include "tinyml/TinymlAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Tinyml_Tensor : RankedTensorOf<[F32]>;
def Tinyml_Tensor4D : 4DTensorOf<[F32]>;
def Tinyml_Tensor2D : 2DTensorOf<[F32]>;
def Tinyml_Tensor1D : 1DTensorOf<[F32]>;

// What a quantized model moves around: its int8 (or, with 16x8
// quantization, int16) inputs, outputs and constants, and tensors of
// upstream's uniform quantized types (`!quant.uniform<i8:f32,
// scale:zero_point>`, per tensor or per axis).
def Tinyml_UniformQuantized : Type<
    CPred<"::llvm::isa<::mlir::quant::UniformQuantizedType, "
          "::mlir::quant::UniformQuantizedPerAxisType>($_self)">,
    "uniform quantized type">;
def Tinyml_AnyTensor : RankedTensorOf<[F32, I8, I16, I32, Tinyml_UniformQuantized]>;

// The operands of an op with a float32 and a quantized form.
def Tinyml_NumericTensor : RankedTensorOf<[F32, Tinyml_UniformQuantized]>;
def Tinyml_NumericTensor4D : 4DTensorOf<[F32, Tinyml_UniformQuantized]>;
def Tinyml_NumericTensor2D : 2DTensorOf<[F32, Tinyml_UniformQuantized]>;
def Tinyml_NumericTensor1D : 1DTensorOf<[F32, Tinyml_UniformQuantized]>;

class Tinyml_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tinyml_Dialect, mnemonic, traits>;

def Tinyml_Pair : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<2>]>;
def Tinyml_Quad : ConfinedAttr<DenseI64ArrayAttr, [DenseArrayCount<4>]>;

//===----------------------------------------------------------------------===//
// Convolution and matrix product
//===----------------------------------------------------------------------===//

def Tinyml_Conv2DOp : Tinyml_Op<"conv2d", [Pure]> {
  let summary = "2-D convolution, NHWC input, HWCF filter, optional bias";
  let description = [{
    `result[n, y, x, f] = bias[f] + sum_{ky, kx, c}
       input[n, y*sh + ky*dh - top, x*sw + kx*dw - left, c] * filter[ky, kx, c, f]`
    with zero padding. The result shape must equal the one implied by the
    input, filter, strides, dilations and padding.

    Quantized form (every operand and the result of a uniform quantized
    type: input and result int8 per tensor, filter int8 per tensor or per
    output channel, bias int32 with zero point 0): TFLite's integer
    kernel. `acc = bias[f] + sum (input - input_zero_point) * filter`
    (padding holds the input zero point), then
    `result = clamp(result_zero_point + MultiplyByQuantizedMultiplier(acc,
    m[f], shift[f]))` with `m, shift` from
    `double(input_scale) * double(filter_scale[f]) / double(result_scale)`.
    The bias's own scale is not used.

    ```mlir
    %y = tinyml.conv2d %x, %w, %b {strides = array<i64: 2, 2>,
           padding = array<i64: 0, 0, 1, 1>}
         : (tensor<1x32x32x3xf32>, tensor<3x3x3x16xf32>, tensor<16xf32>)
           -> tensor<1x16x16x16xf32>
    ```
  }];
  let arguments = (ins Tinyml_NumericTensor4D:$input, Tinyml_NumericTensor4D:$filter,
                   Optional<Tinyml_NumericTensor1D>:$bias,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$strides,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$dilations,
                   DefaultValuedAttr<Tinyml_Quad, "{0, 0, 0, 0}">:$padding);
  let results = (outs Tinyml_NumericTensor4D:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tinyml_DepthwiseConv2DOp : Tinyml_Op<"depthwise_conv2d", [Pure]> {
  let summary = "depthwise 2-D convolution with channel multiplier";
  let description = [{
    Each input channel `c` is convolved with its own `M` filters
    (`filter[:, :, c, m]`, HWCM layout) into output channel `c*M + m`.
    Padding, strides and dilations as in `tinyml.conv2d`, and the same
    quantized form, the filter per tensor or per output channel (its last
    axis, channel multiplier 1).

    ```mlir
    %y = tinyml.depthwise_conv2d %x, %w, %b {padding = array<i64: 1, 1, 1, 1>}
         : (tensor<1x25x5x64xf32>, tensor<3x3x64x1xf32>, tensor<64xf32>)
           -> tensor<1x25x5x64xf32>
    ```
  }];
  let arguments = (ins Tinyml_NumericTensor4D:$input, Tinyml_NumericTensor4D:$filter,
                   Optional<Tinyml_NumericTensor1D>:$bias,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$strides,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$dilations,
                   DefaultValuedAttr<Tinyml_Quad, "{0, 0, 0, 0}">:$padding);
  let results = (outs Tinyml_NumericTensor4D:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tinyml_MatmulOp : Tinyml_Op<"matmul", [Pure]> {
  let summary = "matrix product (fully-connected layer), optional bias";
  let description = [{
    `result = op(lhs) x op(rhs) + bias`, where `op` transposes its operand
    when `transpose_lhs` / `transpose_rhs` is set. `bias` has one value per
    output column.

    Quantized form as `tinyml.conv2d`'s, the weights (`rhs`, [K, N]) per
    tensor or per column; with per-tensor weights the multiplier comes from
    `double(float(lhs_scale * rhs_scale)) / double(result_scale)`, as
    TFLite's fully-connected kernel computes it.

    ```mlir
    %y = tinyml.matmul %x, %w, %b : (tensor<1x640xf32>, tensor<640x128xf32>,
                                      tensor<128xf32>) -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins Tinyml_NumericTensor2D:$lhs, Tinyml_NumericTensor2D:$rhs,
                   Optional<Tinyml_NumericTensor1D>:$bias,
                   UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs);
  let results = (outs Tinyml_NumericTensor2D:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

class Tinyml_BinaryOp<string mnemonic, string math, Type tensor = Tinyml_Tensor,
                      string quantized = "">
    : Tinyml_Op<mnemonic, [Pure]> {
  let summary = "element-wise " # math # " with numpy broadcasting";
  let description = [{
    Computes `}] # math # [{` element by element. The operand shapes
    broadcast as in numpy: aligned from the right, each pair of dimensions
    equal or one of them 1. The result has the broadcast shape.
  }] # quantized;
  let arguments = (ins tensor:$lhs, tensor:$rhs);
  let results = (outs tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tinyml_AddOp : Tinyml_BinaryOp<"add", "lhs + rhs", Tinyml_NumericTensor, [{

    Quantized form (operands and result int8 per tensor, or all int16 per
    tensor, each its own scale and zero point): TFLite's integer add. Each
    operand, offset by its zero point and shifted left by 20 (int16: 15),
    is scaled by `MultiplyByQuantizedMultiplier` to `scale / (2 *
    max_scale)`; the sum is scaled to `2 * max_scale / (2^20 *
    result_scale)` (int16: 2^15), the result zero point added and the value
    saturated to the result's storage.
  }]>;
def Tinyml_SubOp : Tinyml_BinaryOp<"sub", "lhs - rhs", Tinyml_NumericTensor, [{

    Quantized form (operands and result int8, or all int16, per tensor):
    TFLite's integer sub, the quantized add's arithmetic with the scaled
    rhs subtracted.
  }]>;
def Tinyml_MulOp : Tinyml_BinaryOp<"mul", "lhs * rhs", Tinyml_NumericTensor, [{

    Quantized form (operands and result int8, or all int16, per tensor,
    each its own scale and zero point): TFLite's integer mul. The product
    of the operands offset by their zero points is scaled by
    `MultiplyByQuantizedMultiplier` to `lhs_scale * rhs_scale /
    result_scale`, the result zero point added and the value saturated to
    the result's storage.
  }]>;
def Tinyml_DivOp : Tinyml_BinaryOp<"div", "lhs / rhs">;
def Tinyml_MaximumOp : Tinyml_BinaryOp<"maximum", "max(lhs, rhs)">;
def Tinyml_MinimumOp : Tinyml_BinaryOp<"minimum", "min(lhs, rhs)">;

class Tinyml_UnaryOp<string mnemonic, string math>
    : Tinyml_Op<mnemonic, [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise " # math;
  let description = [{
    Computes `}] # math # [{` for every element; the result has the type
    of the input.
  }];
  let arguments = (ins Tinyml_Tensor:$input);
  let results = (outs Tinyml_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Tinyml_NegOp : Tinyml_UnaryOp<"neg", "-x">;
def Tinyml_ExpOp : Tinyml_UnaryOp<"exp", "e^x">;
def Tinyml_ReluOp : Tinyml_UnaryOp<"relu", "max(x, 0)">;
def Tinyml_SigmoidOp : Tinyml_UnaryOp<"sigmoid", "1 / (1 + e^-x)">;
def Tinyml_TanhOp : Tinyml_UnaryOp<"tanh", "tanh(x)">;

def Tinyml_ClampOp : Tinyml_Op<"clamp", [Pure, SameOperandsAndResultType]> {
  let summary = "element-wise clamp into [min, max] (ReLU6 is min=0, max=6)";
  let description = [{
    `result = min(max(x, min), max)`. `min` must not exceed `max`.

    On a quantized tensor (int8, per tensor) the bounds stay real numbers
    and clamp the stored values to TFLite's activation range:
    `[max(-128, zp + roundf(min / scale)), min(127, zp + roundf(max / scale))]`
    (`roundf`: halves away from zero, in float32).

    ```mlir
    %y = tinyml.clamp %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x8xf32>
    ```
  }];
  let arguments = (ins Tinyml_NumericTensor:$input, F32Attr:$min, F32Attr:$max);
  let results = (outs Tinyml_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Tinyml_BatchNormOp : Tinyml_Op<"batch_norm", [Pure]> {
  let summary = "inference batch normalisation over the last (channel) axis";
  let description = [{
    `result = (x - mean) / sqrt(variance + epsilon) * scale + bias`, where
    the four parameters are 1-D with one value per channel (the last
    dimension of `input`).
  }];
  let arguments = (ins Tinyml_Tensor:$input, Tinyml_Tensor1D:$scale,
                   Tinyml_Tensor1D:$bias, Tinyml_Tensor1D:$mean,
                   Tinyml_Tensor1D:$variance,
                   DefaultValuedAttr<F32Attr, "1.0e-5">:$epsilon);
  let results = (outs Tinyml_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and reductions
//===----------------------------------------------------------------------===//

def Tinyml_AvgPool2DOp : Tinyml_Op<"avg_pool2d", [Pure]> {
  let summary = "2-D average pooling over an NHWC tensor";
  let description = [{
    Averages each `kernel` window. With `count_include_pad` the divisor is
    always `kernel[0] * kernel[1]`; without it, only the window elements
    inside the input are counted.

    Quantized form (input and result of one int8 or int16 per-tensor type,
    padding not counted): TFLite's integer average pool, `sum / n` of the
    stored values rounded half away from zero.
  }];
  let arguments = (ins Tinyml_NumericTensor4D:$input, Tinyml_Pair:$kernel,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$strides,
                   DefaultValuedAttr<Tinyml_Quad, "{0, 0, 0, 0}">:$padding,
                   UnitAttr:$count_include_pad);
  let results = (outs Tinyml_NumericTensor4D:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_MaxPool2DOp : Tinyml_Op<"max_pool2d", [Pure]> {
  let summary = "2-D max pooling over an NHWC tensor";
  let description = [{
    Takes the maximum of each `kernel` window; padded positions never win.
    Quantized form: input and result of one int8 or int16 per-tensor type,
    the maximum of the stored values.
  }];
  let arguments = (ins Tinyml_NumericTensor4D:$input, Tinyml_Pair:$kernel,
                   DefaultValuedAttr<Tinyml_Pair, "{1, 1}">:$strides,
                   DefaultValuedAttr<Tinyml_Quad, "{0, 0, 0, 0}">:$padding);
  let results = (outs Tinyml_NumericTensor4D:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_GlobalAvgPoolOp : Tinyml_Op<"global_avg_pool", [Pure]> {
  let summary = "mean over the spatial dimensions of an NHWC tensor";
  let description = [{
    `[N, H, W, C] -> [N, 1, 1, C]`: the mean of every channel.
  }];
  let arguments = (ins Tinyml_Tensor4D:$input);
  let results = (outs Tinyml_Tensor4D:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class Tinyml_ReduceOp<string mnemonic, string math, Type tensor = Tinyml_Tensor,
                      string quantized = "">
    : Tinyml_Op<mnemonic, [Pure]> {
  let summary = "reduction (" # math # ") over the listed axes";
  let description = [{
    Reduces `input` with }] # math # [{ over `axes` (distinct, in range,
    non-negative). With `keep_dims` the reduced dimensions stay as size 1;
    without, they are dropped.
  }] # quantized;
  let arguments = (ins tensor:$input, DenseI64ArrayAttr:$axes,
                   UnitAttr:$keep_dims);
  let results = (outs tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_ReduceSumOp : Tinyml_ReduceOp<"reduce_sum", "sum">;
def Tinyml_ReduceMeanOp : Tinyml_ReduceOp<"reduce_mean", "mean", Tinyml_NumericTensor, [{

    Quantized form (int8, or int16, per tensor in and out): TFLite's integer mean
    (reference/reduce.h QuantizedMeanOrSum): the sum of the stored values
    minus n times the input zero point, requantized by input_scale /
    output_scale with the multiplier pre-divided by the n reduced elements.
  }]>;
def Tinyml_ReduceMaxOp : Tinyml_ReduceOp<"reduce_max", "maximum">;

def Tinyml_SoftmaxOp : Tinyml_Op<"softmax", [Pure, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "softmax along one axis";
  let description = [{
    `result = exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`
    (non-negative, less than the rank). The result has the input's type.

    Quantized form (int8 per tensor, along the last axis): TFLite's integer
    softmax in gemmlowp fixed point (reference/softmax.h); the result's
    type is TFLite's for it, int8 of scale 1/256 and zero point -128, or
    int16 of scale 1/65536 (within 0.1%, as TFLM checks) and zero point
    -32768, written `: type -> result type`.
  }];
  let arguments = (ins Tinyml_NumericTensor:$input, I64Attr:$axis);
  let results = (outs Tinyml_NumericTensor:$result);
  // The result's type is printed only where it is not the inferred one
  // (an int16 result of an int8 softmax).
  let assemblyFormat = [{
    $input attr-dict `:` custom<SoftmaxTypes>(type($input), type($result))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    static bool isCompatibleReturnTypes(::mlir::TypeRange inferred,
                                        ::mlir::TypeRange actual);
  }];
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tinyml_ReshapeOp : Tinyml_Op<"reshape",
    [Pure, SameOperandsAndResultElementType]> {
  let summary = "reinterpret a tensor with another static shape";
  let description = [{
    Row-major reshape; the element count must not change. A reshape of a
    reshape folds into one, a reshape to the same type folds away. Any
    element type: data movement is the same for float and quantized data.
  }];
  let arguments = (ins Tinyml_AnyTensor:$input);
  let results = (outs Tinyml_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tinyml_TransposeOp : Tinyml_Op<"transpose",
    [Pure, SameOperandsAndResultElementType]> {
  let summary = "permute the dimensions of a tensor";
  let description = [{
    `result.shape[i] = input.shape[permutation[i]]`. A transpose of a
    transpose folds into one, an identity permutation folds away. Any
    element type, as for `tinyml.reshape`.
  }];
  let arguments = (ins Tinyml_AnyTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Tinyml_AnyTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tinyml_PadOp : Tinyml_Op<"pad", [Pure, SameOperandsAndResultElementType]> {
  let summary = "pad every dimension with a constant";
  let description = [{
    `padding` holds `rank` low amounts followed by `rank` high amounts (the
    ONNX `pads` order), all non-negative; new elements take `value`. On a
    quantized tensor they take `value` quantized to its type, which for 0
    is the zero point: TFLite's int8 PAD. The verifier checks that the
    quantized value is stored exactly.
  }];
  let arguments = (ins Tinyml_NumericTensor:$input, DenseI64ArrayAttr:$padding,
                   DefaultValuedAttr<F32Attr, "0.0">:$value);
  let results = (outs Tinyml_NumericTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_SliceOp : Tinyml_Op<"slice", [Pure]> {
  let summary = "take every `stride`-th element from `offset`, per dimension";
  let description = [{
    `result[i0, i1, ...] = input[offsets[0] + i0 * strides[0], ...]`, the
    sizes being the result's. A negative stride walks backwards from the
    offset (a reversed slice); every index read lies inside the input.

    ```mlir
    %y = tinyml.slice %x {offsets = array<i64: 0, 3>, strides = array<i64: 1, -2>}
         : (tensor<2x8xf32>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Tinyml_Tensor:$input, DenseI64ArrayAttr:$offsets,
                   DenseI64ArrayAttr:$strides);
  let results = (outs Tinyml_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_ConcatOp : Tinyml_Op<"concat",
    [Pure, SameOperandsAndResultElementType]> {
  let summary = "concatenate tensors along one axis";
  let description = [{
    All inputs have the rank and shape of the result except along `axis`,
    where the result size is the sum of the input sizes. Any element type,
    the same for all (quantized inputs share one scale and zero point).
  }];
  let arguments = (ins Variadic<Tinyml_AnyTensor>:$inputs, I64Attr:$axis);
  let results = (outs Tinyml_AnyTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

def Tinyml_QuantizedTensor : RankedTensorOf<[Tinyml_UniformQuantized]>;

def Tinyml_QuantizeOp : Tinyml_Op<"quantize", [Pure, SameOperandsAndResultShape]> {
  let summary = "round float32 values to a uniform quantized type";
  let description = [{
    `q = clamp(round_half_to_even(x / scale) + zero_point, storage range)`,
    with a float32 division: ONNX's `QuantizeLinear`, per tensor. With
    `ties_away_from_zero`, halves round away from zero instead (TFLite's
    QUANTIZE, whose `TfLiteRound` is `std::round`). Unlike upstream's
    `quant.qcast`, a quantize followed by a dequantize does not fold away:
    the rounding is part of the model.

    ```mlir
    %q = tinyml.quantize %x : tensor<1x10xf32> to tensor<1x10x!quant.uniform<i8:f32, 0.1:-3>>
    %t = tinyml.quantize %x {ties_away_from_zero} : tensor<1x10xf32> to tensor<1x10x!quant.uniform<i8:f32, 0.1:-3>>
    ```
  }];
  let arguments = (ins Tinyml_Tensor:$input, UnitAttr:$ties_away_from_zero);
  let results = (outs Tinyml_QuantizedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

def Tinyml_LookupOp : Tinyml_Op<"lookup", [Pure, SameOperandsAndResultShape]> {
  let summary = "an int8 element-wise function as a table of its 256 values";
  let description = [{
    `result = table[input + 128]` on the stored int8 values (the semantics
    of TOSA's `tosa.table` for int8). A function of one int8 value has
    only 256 results, so the table computed at compile time by the
    reference kernel's integer arithmetic is the kernel, bit for bit:
    TFLite's int8 LOGISTIC, TANH, LEAKY_RELU and HARD_SWISH
    (`tinyml.ir.fixed_point`). Input and result are int8 per tensor, each
    with its own scale and zero point.

    ```mlir
    %y = tinyml.lookup %x {table = array<i8: -128, ..., 127>}
         : (tensor<1x8x!quant.uniform<i8:f32, 0.1:3>>) -> tensor<1x8x!quant.uniform<i8:f32, 3.906250e-03:-128>>
    ```
  }];
  let arguments = (ins Tinyml_QuantizedTensor:$input, DenseI8ArrayAttr:$table);
  let results = (outs Tinyml_QuantizedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tinyml_DequantizeOp : Tinyml_Op<"dequantize", [Pure, SameOperandsAndResultShape]> {
  let summary = "the float32 values of a uniform quantized tensor";
  let description = [{
    `x = scale * (q - zero_point)`, per tensor or along the type's axis:
    ONNX's `DequantizeLinear`.

    ```mlir
    %x = tinyml.dequantize %q : tensor<1x10x!quant.uniform<i8:f32, 0.1:-3>> to tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Tinyml_QuantizedTensor:$input);
  let results = (outs Tinyml_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

// RecursiveMemoryEffects: a group has the effects of its body, none, so
// canonicalize erases a group whose results are unused.
def Tinyml_FusedOp : Tinyml_Op<"fused", [IsolatedFromAbove, RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "a fusion group: ops that lower to one loop nest";
  let description = [{
    The body computes the group's results from its block arguments, which
    are bound to `inputs`. Lowering turns each group into a single loop nest
    with no intermediate buffer, so every op in the body except the group's
    root must be element-wise.

    `kind` names the fusion that formed the group, one of three (a bare
    keyword after the op name; any other is an error):

    - `conv_epilogue`: a `conv2d`, `depthwise_conv2d` or `matmul` root and
      any element-wise ops after it (bias, activation, residual add);
    - `reduction`: a reduction root (`reduce_sum`, `reduce_mean`,
      `reduce_max`, `global_avg_pool`, `softmax`) and any element-wise ops
      around it;
    - `elementwise`: element-wise ops only, over one iteration space.

    ```mlir
    %y = tinyml.fused elementwise (%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%x: tensor<4xf32>, %z: tensor<4xf32>):
      %s = tinyml.add %x, %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %r = tinyml.relu %s : tensor<4xf32>
      tinyml.yield %r : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Tinyml_FusionKindAttr:$kind, Variadic<Tinyml_AnyTensor>:$inputs);
  let results = (outs Variadic<Tinyml_AnyTensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  // `tinyml.fused elementwise (...)`: custom<FusionKind> (TinymlOps.cpp)
  // parses the bare keyword with one error naming the kinds.
  let assemblyFormat = [{
    custom<FusionKind>($kind) ` ` `(` $inputs `)` attr-dict `:`
    functional-type($inputs, $results) $body
  }];
  let hasVerifier = 1;
}

def Tinyml_YieldOp : Tinyml_Op<"yield", [Pure, Terminator,
    HasParent<"FusedOp">, ReturnLike]> {
  let summary = "the results of a fusion group";
  let description = [{
    Terminates a `tinyml.fused` body; its operands become the group's
    results, in order and type.
  }];
  let arguments = (ins Variadic<Tinyml_AnyTensor>:$values);
  // The implicit terminator SingleBlockImplicitTerminator builds: no values.
  let builders = [OpBuilder<(ins), [{ /* no values */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // TINYML_OPS
