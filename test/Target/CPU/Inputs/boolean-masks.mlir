// A boolean mask read and written by elementwise loops (boolean-masks.test):
// where(mask, x, y) and mask & (x < y).
func.func @forward(%x: tensor<8x100xf32> {kiln.kind = "input", kiln.name = "x", kiln.dims = [8, 100]},
                   %y: tensor<8x100xf32> {kiln.kind = "input", kiln.name = "y", kiln.dims = [8, 100]},
                   %m: tensor<8x100xi1> {kiln.kind = "input", kiln.name = "mask", kiln.dims = [8, 100]})
    -> (tensor<8x100xf32> {kiln.name = "selected"}, tensor<8x100xi1> {kiln.name = "both"}) {
  %s = aten.where_self %m, %x, %y : (tensor<8x100xi1>, tensor<8x100xf32>, tensor<8x100xf32>) -> tensor<8x100xf32>
  %lt = aten.lt_tensor %x, %y : (tensor<8x100xf32>, tensor<8x100xf32>) -> tensor<8x100xi1>
  %b = aten.bitwise_and_tensor %m, %lt : (tensor<8x100xi1>, tensor<8x100xi1>) -> tensor<8x100xi1>
  return %s, %b : tensor<8x100xf32>, tensor<8x100xi1>
}
