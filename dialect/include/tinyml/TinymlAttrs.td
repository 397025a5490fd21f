//===- TinymlAttrs.td - tinyml attributes ------------------*- tablegen -*-===//
//
// The kind of a fusion group, and the lowering configuration a group carries
// from tile selection to the transform script that tiles and vectorizes it.
//
//===----------------------------------------------------------------------===//

#ifndef TINYML_ATTRS
#define TINYML_ATTRS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tinyml/TinymlDialect.td"

// The fusions that form `tinyml.fused` groups, one per pattern set of
// python/tinyml/transforms/fusion (each module's `KIND`).
def Tinyml_FusionKind : I32EnumAttr<"FusionKind", "the kind of a fusion group", [
    I32EnumAttrCase<"conv_epilogue", 0>,
    I32EnumAttrCase<"reduction", 1>,
    I32EnumAttrCase<"elementwise", 2>]> {
  let cppNamespace = "::mlir::tinyml";
  // The attribute is the dialect's Tinyml_FusionKindAttr below.
  let genSpecializedAttr = 0;
}

// `#tinyml<fusion_kind elementwise>`; a bare keyword in the custom form of
// `tinyml.fused` (`tinyml.fused elementwise (...)`).
def Tinyml_FusionKindAttr : EnumAttr<Tinyml_Dialect, Tinyml_FusionKind, "fusion_kind">;

def Tinyml_LoweringConfigAttr : AttrDef<Tinyml_Dialect, "LoweringConfig"> {
  let mnemonic = "lowering";
  let summary = "register tile and reduction tile of a group's loop nest";
  let description = [{
    How the linalg ops of one fusion group are tiled on their way to loops.
    `tile` has one size per dimension of the group's output: the part of
    the output computed per iteration of the innermost tile loop, held in
    registers (0 leaves a dimension untiled). `reduction` has one size per
    reduction dimension of the group's contraction or reduction (for a conv
    kh, kw, c; for a matmul k; for a pool the window): the step of the
    reduction loops around the vectorized body (0 = the whole dimension at
    once). Chosen by `tinyml-choose-tiles` from the target's registers and
    read by `tinyml-attach-transform-script`.

    ```mlir
    #tinyml.lowering<tile = [1, 1, 5, 4], reduction = [1, 1, 4]>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$tile,
                        ArrayRefParameter<"int64_t">:$reduction);
  let assemblyFormat = "`<` `tile` `=` `[` $tile `]` `,` `reduction` `=` `[` $reduction `]` `>`";
  let genVerifyDecl = 1;
}

#endif // TINYML_ATTRS
