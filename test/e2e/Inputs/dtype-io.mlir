// A model with one input and one output of every dtype kiln compiles (see
// e2e/dtype-io.test): each output is its input flattened.
module {
  func.func @forward(
      %f32: tensor<2x3xf32> {kiln.kind = "input", kiln.name = "f32", kiln.dims = [2, 3]},
      %f64: tensor<2x3xf64> {kiln.kind = "input", kiln.name = "f64", kiln.dims = [2, 3]},
      %f16: tensor<2x3xf16> {kiln.kind = "input", kiln.name = "f16", kiln.dims = [2, 3]},
      %bf16: tensor<2x3xbf16> {kiln.kind = "input", kiln.name = "bf16", kiln.dims = [2, 3]},
      %i64: tensor<2x3xi64> {kiln.kind = "input", kiln.name = "i64", kiln.dims = [2, 3]},
      %i32: tensor<2x3xi32> {kiln.kind = "input", kiln.name = "i32", kiln.dims = [2, 3]},
      %i16: tensor<2x3xi16> {kiln.kind = "input", kiln.name = "i16", kiln.dims = [2, 3]},
      %i8: tensor<2x3xi8> {kiln.kind = "input", kiln.name = "i8", kiln.dims = [2, 3]},
      %u8: tensor<2x3xui8> {kiln.kind = "input", kiln.name = "u8", kiln.dims = [2, 3]},
      %bool: tensor<2x3xi1> {kiln.kind = "input", kiln.name = "bool", kiln.dims = [2, 3]}) -> (tensor<6xf32> {kiln.name = "flat_f32"}, tensor<6xf64> {kiln.name = "flat_f64"}, tensor<6xf16> {kiln.name = "flat_f16"}, tensor<6xbf16> {kiln.name = "flat_bf16"}, tensor<6xi64> {kiln.name = "flat_i64"}, tensor<6xi32> {kiln.name = "flat_i32"}, tensor<6xi16> {kiln.name = "flat_i16"}, tensor<6xi8> {kiln.name = "flat_i8"}, tensor<6xui8> {kiln.name = "flat_u8"}, tensor<6xi1> {kiln.name = "flat_bool"}) {
    %r_f32 = aten.flatten_using_ints %f32 {start_dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<6xf32>
    %r_f64 = aten.flatten_using_ints %f64 {start_dim = 0 : i64} : (tensor<2x3xf64>) -> tensor<6xf64>
    %r_f16 = aten.flatten_using_ints %f16 {start_dim = 0 : i64} : (tensor<2x3xf16>) -> tensor<6xf16>
    %r_bf16 = aten.flatten_using_ints %bf16 {start_dim = 0 : i64} : (tensor<2x3xbf16>) -> tensor<6xbf16>
    %r_i64 = aten.flatten_using_ints %i64 {start_dim = 0 : i64} : (tensor<2x3xi64>) -> tensor<6xi64>
    %r_i32 = aten.flatten_using_ints %i32 {start_dim = 0 : i64} : (tensor<2x3xi32>) -> tensor<6xi32>
    %r_i16 = aten.flatten_using_ints %i16 {start_dim = 0 : i64} : (tensor<2x3xi16>) -> tensor<6xi16>
    %r_i8 = aten.flatten_using_ints %i8 {start_dim = 0 : i64} : (tensor<2x3xi8>) -> tensor<6xi8>
    %r_u8 = aten.flatten_using_ints %u8 {start_dim = 0 : i64} : (tensor<2x3xui8>) -> tensor<6xui8>
    %r_bool = aten.flatten_using_ints %bool {start_dim = 0 : i64} : (tensor<2x3xi1>) -> tensor<6xi1>
    return %r_f32, %r_f64, %r_f16, %r_bf16, %r_i64, %r_i32, %r_i16, %r_i8, %r_u8, %r_bool : tensor<6xf32>, tensor<6xf64>, tensor<6xf16>, tensor<6xbf16>, tensor<6xi64>, tensor<6xi32>, tensor<6xi16>, tensor<6xi8>, tensor<6xui8>, tensor<6xi1>
  }
}
