//===- TinymlDialect.td - the tinyml dialect ---------------*- tablegen -*-===//
//
// The tinyml dialect models an inference graph for a Cortex-M
// microcontroller: NHWC activations, float32 or int8 tensors, value
// semantics.
//
//===----------------------------------------------------------------------===//

#ifndef TINYML_DIALECT
#define TINYML_DIALECT

include "mlir/IR/OpBase.td"

def Tinyml_Dialect : Dialect {
  let name = "tinyml";
  let summary = "Inference graphs for Cortex-M microcontrollers.";
  let description = [{
    Operations of a trained network after import: convolutions, matrix
    products, element-wise arithmetic and activations, pooling, reductions
    and data movement, on ranked tensors in NHWC layout: float32, or of
    upstream's uniform quantized types (`!quant.uniform<i8:f32, ...>`, per
    tensor or per axis) in a quantized model, whose ops then compute as
    TFLite's integer kernels do. Constants stay builtin (`arith.constant`).
    Fusion passes group ops into `tinyml.fused` regions, each of which
    lowers to a single loop nest.
  }];
  let cppNamespace = "::mlir::tinyml";
  // Folded constants (a reshape of a constant) become arith.constant.
  let hasConstantMaterializer = 1;
  // #tinyml.lowering<...> prints and parses from its assemblyFormat.
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  // The discardable `tinyml.*` attributes the passes leave (TinymlDialect.cpp
  // lists each with the kind of value it holds): an unknown name or another
  // kind is an error, as for the ops.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

#endif // TINYML_DIALECT
