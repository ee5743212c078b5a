func.func @forward(%x: tensor<4xf32> {kiln.kind = "input", kiln.name = "x"}) -> (tensor<4xf32>, tensor<4xf32> {kiln.name = "y", kiln.update = "input"}) {
  %0 = aten.relu %x : tensor<4xf32>
  return %0, %0 : tensor<4xf32>, tensor<4xf32>
}
