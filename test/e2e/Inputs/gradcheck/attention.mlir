func.func @f(%q: tensor<2x5x4xf64>, %k: tensor<2x6x4xf64>, %v: tensor<2x6x3xf64>, %fm: tensor<5x6xf64>,
             %gq: tensor<1x4x3x4xf64>, %gk: tensor<1x2x5x4xf64>, %gv: tensor<1x2x5x2xf64>)
    -> (tensor<2x5x3xf64>, tensor<2x5x3xf64>, tensor<2x5x3xf64>, tensor<1x4x3x2xf64>) {
  %m = arith.constant dense<[[true, false, true, false, false, true],
                             [false, false, false, false, false, false],
                             [true, true, true, true, true, true],
                             [false, true, false, true, false, true],
                             [true, false, false, false, false, false]]> : tensor<5x6xi1>
  %0 = aten.scaled_dot_product_attention %q, %k, %v {is_causal = true} : (tensor<2x5x4xf64>, tensor<2x6x4xf64>, tensor<2x6x3xf64>) -> tensor<2x5x3xf64>
  %1 = aten.scaled_dot_product_attention %q, %k, %v mask %m {scale = 0.7 : f64} : (tensor<2x5x4xf64>, tensor<2x6x4xf64>, tensor<2x6x3xf64>, tensor<5x6xi1>) -> tensor<2x5x3xf64>
  %2 = aten.scaled_dot_product_attention %q, %k, %v mask %fm : (tensor<2x5x4xf64>, tensor<2x6x4xf64>, tensor<2x6x3xf64>, tensor<5x6xf64>) -> tensor<2x5x3xf64>
  %3 = aten.scaled_dot_product_attention %gq, %gk, %gv {enable_gqa = true, is_causal = true} : (tensor<1x4x3x4xf64>, tensor<1x2x5x4xf64>, tensor<1x2x5x2xf64>) -> tensor<1x4x3x2xf64>
  return %0, %1, %2, %3 : tensor<2x5x3xf64>, tensor<2x5x3xf64>, tensor<2x5x3xf64>, tensor<1x4x3x2xf64>
}
