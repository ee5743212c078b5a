// A model whose output is a view of its input (see e2e/view-results.test).
module attributes {kiln.symbols = {n = array<i64: 1, 64>}} {
  func.func @forward(%x: tensor<?x3x4xf32> {kiln.kind = "input", kiln.name = "x", kiln.dims = ["n", 3, 4]}) -> (tensor<?x12xf32> {kiln.name = "flat"}) {
    %0 = aten.flatten_using_ints %x {start_dim = 1 : i64} : (tensor<?x3x4xf32>) -> tensor<?x12xf32>
    return %0 : tensor<?x12xf32>
  }
}
