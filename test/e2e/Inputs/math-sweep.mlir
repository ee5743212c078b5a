// The float32 functions kiln-math-approximations replaces, and the activations
// built on them, over one input (see e2e/math-approximations.test).
module {
  func.func @forward(%x: tensor<196108xf32> {kiln.kind = "input", kiln.name = "x", kiln.dims = [196108]}) -> (tensor<196108xf32> {kiln.name = "exp"}, tensor<196108xf32> {kiln.name = "expm1"}, tensor<196108xf32> {kiln.name = "erf"}, tensor<196108xf32> {kiln.name = "tanh"}, tensor<196108xf32> {kiln.name = "log"}, tensor<196108xf32> {kiln.name = "log1p"}, tensor<196108xf32> {kiln.name = "sigmoid"}, tensor<196108xf32> {kiln.name = "gelu"}, tensor<196108xf32> {kiln.name = "silu"}) {
    %exp = aten.exp %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %expm1 = aten.expm1 %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %erf = aten.erf %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %tanh = aten.tanh %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %log = aten.log %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %log1p = aten.log1p %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %sigmoid = aten.sigmoid %x : (tensor<196108xf32>) -> tensor<196108xf32>
    %gelu = aten.gelu %x : tensor<196108xf32>
    %silu = aten.silu %x : (tensor<196108xf32>) -> tensor<196108xf32>
    return %exp, %expm1, %erf, %tanh, %log, %log1p, %sigmoid, %gelu, %silu : tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>, tensor<196108xf32>
  }
}
