// RUN: tinyml-opt %s --tinyml-attach-transform-script | FileCheck %s

// Not firing: no op carries a configuration, so the script has no group
// sequence, only the module-wide vector lowering.
// CHECK-LABEL: func.func @unconfigured
// CHECK:       module @tinyml_transform_script
// CHECK-NOT:     @tile_group_0
// CHECK:         transform.named_sequence @__transform_main
// CHECK:         transform.named_sequence @tinyml_lower_contractions
func.func @unconfigured(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
