//===- TinymlOps.cpp - verifiers and folders of tinyml ops -------*- C++ -*-===//
#include "tinyml/TinymlOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tinyml;

//===----------------------------------------------------------------------===//
// Shape helpers
//===----------------------------------------------------------------------===//

static ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

static std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os);
  os << "]";
  return s;
}

static LogicalResult expectShape(Operation *op, ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = shapeOf(op->getResult(0));
  if (actual == expected)
    return success();
  return op->emitOpError("result shape ")
         << shapeString(actual) << " does not match the expected "
         << shapeString(expected);
}

/// Output extent of a sliding window, or a negative value when the window
/// does not fit the padded input.
static int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride,
                                int64_t dilation, int64_t padBegin,
                                int64_t padEnd) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = in + padBegin + padEnd;
  if (padded < span)
    return -1;
  return (padded - span) / stride + 1;
}

/// Checks strides, dilations and padding of an NHWC window op and returns
/// the spatial output size [OH, OW].
static FailureOr<std::array<int64_t, 2>>
verifyWindow(Operation *op, ArrayRef<int64_t> input, int64_t kh, int64_t kw,
             ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations,
             ArrayRef<int64_t> padding) {
  if (kh <= 0 || kw <= 0)
    return op->emitOpError("kernel sizes must be positive, got ")
           << shapeString({kh, kw});
  if (llvm::any_of(strides, [](int64_t s) { return s <= 0; }))
    return op->emitOpError("strides must be positive, got ")
           << shapeString(strides);
  if (llvm::any_of(dilations, [](int64_t d) { return d <= 0; }))
    return op->emitOpError("dilations must be positive, got ")
           << shapeString(dilations);
  if (llvm::any_of(padding, [](int64_t p) { return p < 0; }))
    return op->emitOpError("padding must be non-negative, got ")
           << shapeString(padding);
  int64_t oh = windowOutputSize(input[1], kh, strides[0], dilations[0],
                                padding[0], padding[2]);
  int64_t ow = windowOutputSize(input[2], kw, strides[1], dilations[1],
                                padding[1], padding[3]);
  if (oh <= 0 || ow <= 0)
    return op->emitOpError("window ")
           << shapeString({kh, kw}) << " does not fit the padded input "
           << shapeString({input[1] + padding[0] + padding[2],
                           input[2] + padding[1] + padding[3]});
  return std::array<int64_t, 2>{oh, ow};
}

static LogicalResult verifyBias(Operation *op, Value bias, int64_t channels) {
  if (!bias || shapeOf(bias)[0] == channels)
    return success();
  return op->emitOpError("bias has ")
         << shapeOf(bias)[0] << " elements but the result has " << channels
         << " channels";
}

//===----------------------------------------------------------------------===//
// Quantized forms
//===----------------------------------------------------------------------===//

static Type elementOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

static bool isQuantized(Type element) {
  return isa<quant::UniformQuantizedType, quant::UniformQuantizedPerAxisType>(
      element);
}

static bool isInt8PerTensor(Type element) {
  auto type = dyn_cast<quant::UniformQuantizedType>(element);
  return type && type.getStorageTypeIntegralWidth() == 8;
}

/// int8, or int16 (TFLite's 16x8 quantization), per tensor.
static bool isIntegerPerTensor(Type element) {
  auto type = dyn_cast<quant::UniformQuantizedType>(element);
  return type && (type.getStorageTypeIntegralWidth() == 8 ||
                  type.getStorageTypeIntegralWidth() == 16);
}

/// All int8 per tensor, or all int16 per tensor.
static bool isOneIntegerWidthPerTensor(ArrayRef<Type> elements) {
  return llvm::all_of(elements, isIntegerPerTensor) &&
         llvm::all_of(elements, [&](Type element) {
           return cast<quant::UniformQuantizedType>(element).getStorageTypeIntegralWidth() ==
                  cast<quant::UniformQuantizedType>(elements.front())
                      .getStorageTypeIntegralWidth();
         });
}

/// A contraction is all float32 or all quantized: int8 input and result per
/// tensor, int8 filter per tensor or per `filterAxis`, int32 bias with zero
/// points 0 (TFLite's quantization of conv, depthwise and fully connected).
static LogicalResult verifyQuantized(Operation *op, Value input, Value filter,
                                     Value bias, int64_t filterAxis) {
  Value result = op->getResult(0);
  SmallVector<Value> operands = {input, filter, result};
  if (bias)
    operands.push_back(bias);
  int quantized = llvm::count_if(
      operands, [](Value v) { return isQuantized(elementOf(v)); });
  if (quantized == 0)
    return success();
  if (quantized != static_cast<int>(operands.size()))
    return op->emitOpError("mixes float32 and quantized operands");
  if (!isInt8PerTensor(elementOf(input)) || !isInt8PerTensor(elementOf(result)))
    return op->emitOpError("a quantized input and result must be int8, per tensor");
  auto filterType = cast<quant::QuantizedType>(elementOf(filter));
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(filterType);
  if (filterType.getStorageTypeIntegralWidth() != 8 ||
      (perAxis && perAxis.getQuantizedDimension() != filterAxis))
    return op->emitOpError("a quantized filter must be int8, per tensor or per axis ")
           << filterAxis;
  if (!bias)
    return success();
  auto biasType = cast<quant::QuantizedType>(elementOf(bias));
  SmallVector<int64_t> zeroPoints;
  if (auto b = dyn_cast<quant::UniformQuantizedType>(biasType))
    zeroPoints.push_back(b.getZeroPoint());
  else
    llvm::append_range(zeroPoints,
                       cast<quant::UniformQuantizedPerAxisType>(biasType).getZeroPoints());
  if (biasType.getStorageTypeIntegralWidth() != 32 ||
      llvm::any_of(zeroPoints, [](int64_t z) { return z != 0; }))
    return op->emitOpError("a quantized bias must be int32 with zero point 0");
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and matrix product
//===----------------------------------------------------------------------===//

LogicalResult Conv2DOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), w = shapeOf(getFilter());
  if (w[2] != in[3])
    return emitOpError("filter expects ")
           << w[2] << " input channels (HWCF layout) but the input has "
           << in[3];
  auto spatial = verifyWindow(*this, in, w[0], w[1], getStrides(),
                              getDilations(), getPadding());
  if (failed(spatial))
    return failure();
  if (failed(verifyBias(*this, getBias(), w[3])) ||
      failed(verifyQuantized(*this, getInput(), getFilter(), getBias(), 3)))
    return failure();
  return expectShape(*this, {in[0], (*spatial)[0], (*spatial)[1], w[3]});
}

LogicalResult DepthwiseConv2DOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput()), w = shapeOf(getFilter());
  if (w[2] != in[3])
    return emitOpError("filter has ")
           << w[2] << " channels (HWCM layout) but the input has " << in[3];
  auto spatial = verifyWindow(*this, in, w[0], w[1], getStrides(),
                              getDilations(), getPadding());
  if (failed(spatial))
    return failure();
  int64_t channels = w[2] * w[3];
  if (failed(verifyBias(*this, getBias(), channels)) ||
      failed(verifyQuantized(*this, getInput(), getFilter(), getBias(), 2)))
    return failure();
  if (isQuantized(elementOf(getInput())) && w[3] != 1)
    return emitOpError("a quantized depthwise convolution needs channel multiplier 1");
  return expectShape(*this, {in[0], (*spatial)[0], (*spatial)[1], channels});
}

LogicalResult MatmulOp::verify() {
  ArrayRef<int64_t> a = shapeOf(getLhs()), b = shapeOf(getRhs());
  int64_t m = getTransposeLhs() ? a[1] : a[0];
  int64_t ka = getTransposeLhs() ? a[0] : a[1];
  int64_t kb = getTransposeRhs() ? b[1] : b[0];
  int64_t n = getTransposeRhs() ? b[0] : b[1];
  if (ka != kb)
    return emitOpError("contraction sizes differ: lhs has ")
           << ka << ", rhs has " << kb;
  if (failed(verifyBias(*this, getBias(), n)) ||
      failed(verifyQuantized(*this, getLhs(), getRhs(), getBias(),
                             getTransposeRhs() ? 0 : 1)))
    return failure();
  return expectShape(*this, {m, n});
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

static LogicalResult verifyBroadcast(Operation *op) {
  ArrayRef<int64_t> a = shapeOf(op->getOperand(0));
  ArrayRef<int64_t> b = shapeOf(op->getOperand(1));
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return op->emitOpError("operand shapes ")
             << shapeString(a) << " and " << shapeString(b)
             << " do not broadcast";
    shape[i] = da == 1 ? db : da;
  }
  return expectShape(op, shape);
}

/// A binary op is all float32, all int8 per tensor or all int16 per tensor
/// (TFLite's add, sub and mul, and their 16x8 forms).
template <typename BinaryOp>
static LogicalResult verifyNumericBinary(BinaryOp op, StringRef name) {
  SmallVector<Type> elements = {elementOf(op.getLhs()), elementOf(op.getRhs()),
                                elementOf(op.getResult())};
  int quantized = llvm::count_if(elements, isQuantized);
  if (quantized != 0 && (quantized != 3 || !isOneIntegerWidthPerTensor(elements)))
    return op.emitOpError("a quantized ")
           << name << " needs int8 (or all int16) per-tensor operands and result";
  return verifyBroadcast(op);
}

LogicalResult AddOp::verify() { return verifyNumericBinary(*this, "add"); }
LogicalResult SubOp::verify() { return verifyNumericBinary(*this, "sub"); }
LogicalResult MulOp::verify() { return verifyNumericBinary(*this, "mul"); }
LogicalResult DivOp::verify() { return verifyBroadcast(*this); }
LogicalResult MaximumOp::verify() { return verifyBroadcast(*this); }
LogicalResult MinimumOp::verify() { return verifyBroadcast(*this); }

LogicalResult ClampOp::verify() {
  Type element = elementOf(getInput());
  if (isQuantized(element) && !isInt8PerTensor(element))
    return emitOpError("a quantized clamp needs int8 per tensor");
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError("min ") << getMin().convertToFloat()
                               << " is greater than max "
                               << getMax().convertToFloat();
  return success();
}

LogicalResult BatchNormOp::verify() {
  int64_t channels = shapeOf(getInput()).back();
  for (Value param : {getScale(), getBias(), getMean(), getVariance()})
    if (shapeOf(param)[0] != channels)
      return emitOpError("parameters must have one value per channel (")
             << channels << "), got " << shapeOf(param)[0];
  if (getInput().getType() != getResult().getType())
    return emitOpError("result type must equal the input type");
  if (getEpsilon().convertToFloat() < 0)
    return emitOpError("epsilon must be non-negative");
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling and reductions
//===----------------------------------------------------------------------===//

/// The `lowering` attribute tinyml-choose-tiles sets on a group or a pool,
/// which the passes after it read, must be a #tinyml.lowering.
static LogicalResult verifyLowering(Operation *op) {
  Attribute lowering = op->getAttr("lowering");
  if (lowering && !isa<LoweringConfigAttr>(lowering))
    return op->emitOpError("'lowering' must be a #tinyml.lowering attribute, got ")
           << lowering;
  return success();
}

template <typename PoolOp>
static LogicalResult verifyPool(PoolOp op) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> kernel = op.getKernel();
  auto spatial = verifyWindow(op, in, kernel[0], kernel[1], op.getStrides(),
                              {1, 1}, op.getPadding());
  if (failed(spatial))
    return failure();
  if (op.getPadding()[0] >= kernel[0] || op.getPadding()[2] >= kernel[0] ||
      op.getPadding()[1] >= kernel[1] || op.getPadding()[3] >= kernel[1])
    return op.emitOpError("padding must be smaller than the kernel");
  Type from = elementOf(op.getInput()), to = elementOf(op.getResult());
  if ((isQuantized(from) || isQuantized(to)) && (from != to || !isIntegerPerTensor(from)))
    return op.emitOpError("a quantized pool needs one int8 or int16 per-tensor type in and "
                          "out");
  return expectShape(op, {in[0], (*spatial)[0], (*spatial)[1], in[3]});
}

LogicalResult AvgPool2DOp::verify() {
  if (failed(verifyLowering(getOperation())))
    return failure();
  return verifyPool(*this);
}
LogicalResult MaxPool2DOp::verify() { return verifyPool(*this); }

LogicalResult GlobalAvgPoolOp::verify() {
  if (failed(verifyLowering(getOperation())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput());
  return expectShape(*this, {in[0], 1, 1, in[3]});
}

static LogicalResult verifyReduce(Operation *op, ArrayRef<int64_t> axes,
                                  bool keepDims) {
  ArrayRef<int64_t> in = shapeOf(op->getOperand(0));
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= static_cast<int64_t>(in.size()))
      return op->emitOpError("axis ")
             << axis << " is out of range for rank " << in.size();
    if (!seen.insert(axis).second)
      return op->emitOpError("axis ") << axis << " is listed twice";
  }
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(in)) {
    if (!seen.contains(i))
      shape.push_back(dim);
    else if (keepDims)
      shape.push_back(1);
  }
  return expectShape(op, shape);
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduce(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMeanOp::verify() {
  Type from = elementOf(getInput()), to = elementOf(getResult());
  if ((isQuantized(from) || isQuantized(to)) && !isOneIntegerWidthPerTensor({from, to}))
    return emitOpError("a quantized mean needs an int8 (or int16) per-tensor input and "
                       "result of one width");
  return verifyReduce(*this, getAxes(), getKeepDims());
}
LogicalResult ReduceMaxOp::verify() {
  return verifyReduce(*this, getAxes(), getKeepDims());
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = shapeOf(getInput()).size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << rank;
  Type element = elementOf(getInput());
  if (isQuantized(element) && (!isInt8PerTensor(element) || axis != rank - 1))
    return emitOpError("a quantized softmax needs int8 per tensor, along the last axis");
  return success();
}

/// The input's type; for a quantized input TFLite's int8 softmax output:
/// probabilities in steps of 1/256 from -128.
static Type softmaxResultType(Type inputType) {
  auto input = cast<RankedTensorType>(inputType);
  Type element = input.getElementType();
  if (auto q = dyn_cast<quant::UniformQuantizedType>(element))
    element = quant::UniformQuantizedType::get(
        q.getFlags(), q.getStorageType(), q.getExpressedType(), 1.0 / 256, -128,
        q.getStorageTypeMin(), q.getStorageTypeMax());
  return input.clone(element);
}

/// `input-type` or `input-type -> result-type`: the result's type only
/// where it is not the inferred one.
static ParseResult parseSoftmaxTypes(OpAsmParser &parser, Type &input,
                                     Type &result) {
  RankedTensorType inputType;
  if (parser.parseType(inputType))
    return failure();
  input = inputType;
  if (succeeded(parser.parseOptionalArrow()))
    return parser.parseType(result);
  result = softmaxResultType(input);
  return success();
}

static void printSoftmaxTypes(OpAsmPrinter &printer, Operation *, Type input,
                              Type result) {
  printer << input;
  if (result != softmaxResultType(input))
    printer << " -> " << result;
}

LogicalResult SoftmaxOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  inferred.push_back(softmaxResultType(operands[0].getType()));
  return success();
}

bool SoftmaxOp::isCompatibleReturnTypes(TypeRange inferred, TypeRange actual) {
  if (inferred == actual)
    return true;
  if (inferred.size() != 1 || actual.size() != 1)
    return false;
  auto expected = dyn_cast<RankedTensorType>(inferred[0]);
  auto result = dyn_cast<RankedTensorType>(actual[0]);
  if (!expected || !result || expected.getShape() != result.getShape() ||
      !isa<quant::UniformQuantizedType>(expected.getElementType()))
    return false;
  // TFLite's int8 softmax to int16: probabilities in steps of 1/65536 from
  // -32768.
  auto q = dyn_cast<quant::UniformQuantizedType>(result.getElementType());
  return q && q.getStorageTypeIntegralWidth() == 16 && q.isSigned() &&
         q.getZeroPoint() == -32768 &&
         std::abs(q.getScale() - 1.0 / 65536) <= 0.001 / 65536;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getInput().getType());
  auto out = cast<RankedTensorType>(getResult().getType());
  if (!in.hasStaticShape() || !out.hasStaticShape())
    return emitOpError("needs static shapes");
  if (in.getNumElements() != out.getNumElements())
    return emitOpError("changes the element count from ")
           << in.getNumElements() << " to " << out.getNumElements();
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(cast<ShapedType>(getResult().getType()));
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> perm = getPermutation();
  if (perm.size() != in.size())
    return emitOpError("permutation has ")
           << perm.size() << " entries for rank " << in.size();
  SmallVector<bool> used(in.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(in.size()) || used[p])
      return emitOpError("permutation ")
             << shapeString(perm) << " is not a permutation of 0.."
             << in.size() - 1;
    used[p] = true;
    shape.push_back(in[p]);
  }
  return expectShape(*this, shape);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto it) {
    return static_cast<int64_t>(it.index()) == it.value();
  });
  if (identity)
    return getInput();
  auto producer = getInput().getDefiningOp<TransposeOp>();
  if (!producer)
    return {};
  // result[i] = mid[perm[i]] = input[inner[perm[i]]].
  SmallVector<int64_t> composed;
  for (int64_t p : perm)
    composed.push_back(producer.getPermutation()[p]);
  getInputMutable().assign(producer.getInput());
  setPermutation(composed);
  return getResult();
}

LogicalResult PadOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> pads = getPadding();
  if (pads.size() != 2 * in.size())
    return emitOpError("padding needs ")
           << 2 * in.size() << " entries (low then high), got " << pads.size();
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitOpError("padding must be non-negative, got ")
           << shapeString(pads);
  if (isa<quant::QuantizedType>(elementOf(getInput()))) {
    auto type = dyn_cast<quant::UniformQuantizedType>(elementOf(getInput()));
    if (!type)
      return emitOpError("a quantized pad needs a per-tensor quantized type");
    double steps = getValue().convertToDouble() / type.getScale();
    double stored = steps + type.getZeroPoint();
    if (steps != std::nearbyint(steps) || stored < type.getStorageTypeMin() ||
        stored > type.getStorageTypeMax())
      return emitOpError("value ") << getValue().convertToDouble()
                                   << " is not stored exactly by " << type;
  }
  SmallVector<int64_t> shape;
  for (auto [i, dim] : llvm::enumerate(in))
    shape.push_back(dim + pads[i] + pads[i + in.size()]);
  return expectShape(*this, shape);
}

LogicalResult LookupOp::verify() {
  if (getTable().size() != 256)
    return emitOpError("table needs 256 entries, one per int8 value, got ")
           << getTable().size();
  if (!isInt8PerTensor(elementOf(getInput())) || !isInt8PerTensor(elementOf(getResult())))
    return emitOpError("input and result must be int8, per tensor");
  return success();
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> in = shapeOf(getInput());
  ArrayRef<int64_t> out = shapeOf(getResult());
  ArrayRef<int64_t> offsets = getOffsets();
  ArrayRef<int64_t> strides = getStrides();
  if (out.size() != in.size() || offsets.size() != in.size() ||
      strides.size() != in.size())
    return emitOpError("offsets, strides and the result need the input's rank ")
           << in.size();
  for (auto [d, dim] : llvm::enumerate(in)) {
    if (strides[d] == 0)
      return emitOpError("strides must be non-zero, got ")
             << shapeString(strides);
    int64_t last = offsets[d] + (out[d] - 1) * strides[d];
    if (out[d] > 0 && (offsets[d] < 0 || offsets[d] >= dim || last < 0 ||
                       last >= dim))
      return emitOpError("dimension ")
             << d << " reads indices " << offsets[d] << " to " << last
             << " of an extent of " << dim;
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  // SameOperandsAndResultElementType has already refused zero inputs.
  ArrayRef<int64_t> first = shapeOf(getInputs().front());
  int64_t rank = first.size();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError("axis ") << axis << " is out of range for rank "
                                << rank;
  SmallVector<int64_t> shape(first);
  shape[axis] = 0;
  for (Value input : getInputs()) {
    ArrayRef<int64_t> s = shapeOf(input);
    if (static_cast<int64_t>(s.size()) != rank)
      return emitOpError("inputs must all have rank ") << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis && s[d] != first[d])
        return emitOpError("input shapes ")
               << shapeString(first) << " and " << shapeString(s)
               << " differ outside axis " << axis;
    shape[axis] += s[axis];
  }
  return expectShape(*this, shape);
}

//===----------------------------------------------------------------------===//
// Fusion groups
//===----------------------------------------------------------------------===//

/// The kind of a `tinyml.fused`, a bare keyword (a string, as the kind was
/// before it became an enum, parses too).
static ParseResult parseFusionKind(OpAsmParser &parser, FusionKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  std::string keyword;
  if (parser.parseKeywordOrString(&keyword))
    return failure();
  if (std::optional<FusionKind> value = symbolizeFusionKind(keyword)) {
    kind = FusionKindAttr::get(parser.getContext(), *value);
    return success();
  }
  InFlightDiagnostic diag = parser.emitError(loc)
                            << "unknown fusion kind '" << keyword
                            << "', expected one of ";
  StringRef separator = "";
  for (uint32_t i = 0; i <= getMaxEnumValForFusionKind(); ++i)
    if (std::optional<FusionKind> value = symbolizeFusionKind(i)) {
      diag << separator << stringifyFusionKind(*value);
      separator = ", ";
    }
  return failure();
}

static void printFusionKind(OpAsmPrinter &printer, FusedOp, FusionKindAttr kind) {
  printer << stringifyFusionKind(kind.getValue());
}

LogicalResult FusedOp::verify() {
  if (failed(verifyLowering(getOperation())))
    return failure();
  Block &body = getBody().front();
  if (body.getNumArguments() != getInputs().size())
    return emitOpError("body has ")
           << body.getNumArguments() << " arguments for "
           << getInputs().size() << " inputs";
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (arg.getType() != input.getType())
      return emitOpError("body argument type ")
             << arg.getType() << " differs from input type "
             << input.getType();
  // SingleBlockImplicitTerminator has checked that the body ends with one.
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError("yielded types do not match the result types");
  return success();
}

#define GET_OP_CLASSES
#include "tinyml/TinymlOps.cpp.inc"
