// RUN: kiln-opt %s -pass-pipeline='builtin.module(func.func(convert-aten-to-linalg))' | FileCheck %s

// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>

// relu on floats is maximumf (NaN stays NaN); dynamic dims size the init.
// CHECK-LABEL: func.func @relu
// CHECK-SAME: (%[[X:.*]]: tensor<?x64xf32>)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x64xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x64xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<?x64xf32>) outs(%[[E]] : tensor<?x64xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[IN]], %[[Z]] : f32
// CHECK: linalg.yield %[[M]] : f32
// CHECK: return %[[R]]
func.func @relu(%x: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %0 = aten.relu %x : tensor<?x64xf32>
  return %0 : tensor<?x64xf32>
}

// relu on integers is a signed max.
// CHECK-LABEL: func.func @relu_int
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: arith.maxsi %[[IN]], %[[Z]] : i32
func.func @relu_int(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.relu %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// gelu (approximate = none): 0.5 x (1 + erf(x / sqrt(2))).
// CHECK-LABEL: func.func @gelu
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]]], iterator_types = ["parallel"]}
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[RS2:.*]] = arith.constant 0.707106769 : f32
// CHECK: %[[S:.*]] = arith.mulf %[[IN]], %[[RS2]] : f32
// CHECK: %[[ERF:.*]] = math.erf %[[S]] : f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[P:.*]] = arith.addf %[[ONE]], %[[ERF]] : f32
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[H:.*]] = arith.mulf %[[IN]], %[[HALF]] : f32
// CHECK: %[[Y:.*]] = arith.mulf %[[H]], %[[P]] : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK-NOT: math.tanh
func.func @gelu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.gelu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// gelu (approximate = tanh): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[X2:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK: %[[X3:.*]] = arith.mulf %[[IN]], %[[X2]] : f32
// CHECK: %[[K:.*]] = arith.constant 4.471500e-02 : f32
// CHECK: %[[KX3:.*]] = arith.mulf %[[K]], %[[X3]] : f32
// CHECK: %[[POLY:.*]] = arith.addf %[[IN]], %[[KX3]] : f32
// CHECK: %[[C:.*]] = arith.constant 0.797884583 : f32
// CHECK: %[[A:.*]] = arith.mulf %[[C]], %[[POLY]] : f32
// CHECK: %[[T:.*]] = math.tanh %[[A]] : f32
// CHECK: arith.addf %{{.*}}, %[[T]] : f32
// CHECK-NOT: math.erf
func.func @gelu_tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.gelu %x {approximate = "tanh"} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Broadcasting binary ops: a [64] operand is read along the last dim, a 0-d
// operand everywhere; an integer operand is converted to the float result.
// CHECK-LABEL: func.func @binary_broadcast
// CHECK: %[[D:.*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x64xf32>
// CHECK: tensor.empty(%[[D]]) : tensor<?x64xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.sitofp
// CHECK: arith.divf
func.func @binary_broadcast(%x: tensor<?x64xf32>, %b: tensor<64xf32>, %i: tensor<i64>) -> tensor<?x64xf32> {
  %0 = aten.add_tensor %x, %b {alpha = 2.0 : f64} : (tensor<?x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
  %1 = aten.div_tensor %0, %i : (tensor<?x64xf32>, tensor<i64>) -> tensor<?x64xf32>
  return %1 : tensor<?x64xf32>
}

// float16 computes in float32 and rounds once.
// CHECK-LABEL: func.func @half_upcast
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[E:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[R:.*]] = math.exp %[[E]] : f32
// CHECK: %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK: linalg.yield %[[T]] : f16
func.func @half_upcast(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.exp %x : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// Integer input of a float op converts to the float result first.
// CHECK-LABEL: func.func @int_to_float
// CHECK: %[[F:.*]] = arith.sitofp %{{.*}} : i32 to f32
// CHECK: math.sqrt %[[F]] : f32
func.func @int_to_float(%x: tensor<4xi32>) -> tensor<4xf32> {
  %0 = aten.sqrt %x : (tensor<4xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// uint8 vs int8 compares in int16: uint8 extends with zeros (through its
// signless storage), int8 with its sign.
// CHECK-LABEL: func.func @compare_promoted
// CHECK: ^bb0(%[[A:.*]]: ui8, %[[B:.*]]: i8, %{{.*}}: i1):
// CHECK: %[[S:.*]] = builtin.unrealized_conversion_cast %[[A]] : ui8 to i8
// CHECK: %[[AE:.*]] = arith.extui %[[S]] : i8 to i16
// CHECK: %[[BE:.*]] = arith.extsi %[[B]] : i8 to i16
// CHECK: %[[C:.*]] = arith.cmpi slt, %[[AE]], %[[BE]] : i16
// CHECK: linalg.yield %[[C]] : i1
func.func @compare_promoted(%a: tensor<4xui8>, %b: tensor<4xi8>) -> tensor<4xi1> {
  %0 = aten.lt_tensor %a, %b : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// uint8 floor division is an unsigned division by a divisor made safe, and
// the result goes back to ui8.
// CHECK-LABEL: func.func @uint8_floor_divide
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : ui8 to i8
// CHECK: %[[Y:.*]] = builtin.unrealized_conversion_cast %{{.*}} : ui8 to i8
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i8
// CHECK: %[[SAFE:.*]] = arith.select %[[Z]], %{{.*}}, %[[Y]] : i8
// CHECK: %[[Q:.*]] = arith.divui %{{.*}}, %[[SAFE]] : i8
// CHECK: %[[R:.*]] = arith.select %[[Z]], %{{.*}}, %[[Q]] : i8
// CHECK: %[[U:.*]] = builtin.unrealized_conversion_cast %[[R]] : i8 to ui8
// CHECK: linalg.yield %[[U]] : ui8
func.func @uint8_floor_divide(%a: tensor<4xui8>, %b: tensor<4xui8>) -> tensor<4xui8> {
  %0 = aten.div_tensor_mode %a, %b {rounding_mode = "floor"} : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// Signed floor division: divsi rounds toward zero, then one less where the
// remainder's sign differs from the divisor's.
// CHECK-LABEL: func.func @int_floor_divide
// CHECK: %[[Q:.*]] = arith.divsi
// CHECK: %[[R:.*]] = arith.remsi
// CHECK: %[[D:.*]] = arith.xori
// CHECK: %[[ADJ:.*]] = arith.andi %{{.*}}, %[[D]] : i1
// CHECK: %[[QM1:.*]] = arith.subi
// CHECK: arith.select %[[ADJ]], %[[QM1]], %{{.*}} : i32
func.func @int_floor_divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = aten.div_tensor_mode %a, %b {rounding_mode = "floor"} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// remainder takes the sign of the divisor: fmod, plus the divisor where the
// signs differ.
// CHECK-LABEL: func.func @float_remainder
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[M:.*]] = arith.remf %[[X]], %[[Y]] : f32
// CHECK: %[[ADJ:.*]] = arith.andi
// CHECK: %[[S:.*]] = arith.addf %[[M]], %[[Y]] : f32
// CHECK: arith.select %[[ADJ]], %[[S]], %[[M]] : f32
func.func @float_remainder(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.remainder_tensor %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// float -> uint8 goes through int64 (x86's value for NaN and out-of-range
// inputs), then wraps to 8 bits.
// CHECK-LABEL: func.func @to_uint8
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : f32 to i64
// CHECK: %[[L:.*]] = arith.select %[[OK]], %[[I]], %{{.*}} : i64
// CHECK: %[[T:.*]] = arith.trunci %[[L]] : i64 to i8
// CHECK: builtin.unrealized_conversion_cast %[[T]] : i8 to ui8
func.func @to_uint8(%x: tensor<4xf32>) -> tensor<4xui8> {
  %0 = aten._to_copy %x : (tensor<4xf32>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// where: a uint8 condition counts nonzero as true; the 0-d operand is read
// at every index.
// CHECK-LABEL: func.func @where
// CHECK: linalg.generic {indexing_maps = [#[[ID1]], #[[ID1]], #[[SCALAR]], #[[ID1]]]
// CHECK: ^bb0(%[[C:.*]]: ui8, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[CS:.*]] = builtin.unrealized_conversion_cast %[[C]] : ui8 to i8
// CHECK: %[[T:.*]] = arith.cmpi ne, %[[CS]], %{{.*}} : i8
// CHECK: arith.select %[[T]], %[[A]], %[[B]] : f32
func.func @where(%c: tensor<4xui8>, %a: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
  %0 = aten.where_self %c, %a, %s : (tensor<4xui8>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// clamp with only a lower bound on integers.
// CHECK-LABEL: func.func @clamp_min
// CHECK: ^bb0(%[[X:.*]]: i64, %[[LO:.*]]: i64, %{{.*}}: i64):
// CHECK: %[[R:.*]] = arith.maxsi %[[X]], %[[LO]] : i64
// CHECK-NEXT: linalg.yield %[[R]] : i64
func.func @clamp_min(%x: tensor<4xi64>, %lo: tensor<i64>) -> tensor<4xi64> {
  %0 = aten.clamp_tensor %x min %lo : (tensor<4xi64>, tensor<i64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// A constant exponent of 2 is a multiplication, as in ATen's kernel.
// CHECK-LABEL: func.func @pow_square
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[R:.*]] = arith.mulf %[[X]], %[[X]] : f32
// CHECK-NEXT: linalg.yield %[[R]] : f32
func.func @pow_square(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<2.0> : tensor<f32>
  %0 = aten.pow_tensor_tensor %x, %c : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A general float exponent is powf; an integer one squares and multiplies.
// CHECK-LABEL: func.func @pow_general
// CHECK: math.powf %{{.*}}, %{{.*}} : f32
// CHECK: linalg.generic
// CHECK-NOT: math.powf
// CHECK: arith.muli
func.func @pow_general(%x: tensor<4xf32>, %y: tensor<4xf32>, %i: tensor<4xi16>) -> (tensor<4xf32>, tensor<4xi16>) {
  %0 = aten.pow_tensor_tensor %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = aten.pow_tensor_tensor %i, %i : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi16>
  return %0, %1 : tensor<4xf32>, tensor<4xi16>
}

// An arithmetic right shift by a count outside [0, 8) shifts by 7.
// CHECK-LABEL: func.func @shift
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[C8:.*]] = arith.constant 8 : i8
// CHECK: arith.cmpi slt, %[[Y]], %[[C8]] : i8
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[C7:.*]] = arith.constant 7 : i8
// CHECK: %[[S:.*]] = arith.select %[[OK]], %[[Y]], %[[C7]] : i8
// CHECK: arith.shrsi %[[X]], %[[S]] : i8
func.func @shift(%x: tensor<4xi8>, %y: tensor<4xi8>) -> tensor<4xi8> {
  %0 = aten.bitwise_right_shift_tensor %x, %y : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// logical ops test each promoted operand for nonzero (NaN counts as true).
// CHECK-LABEL: func.func @logical_and
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: i64, %{{.*}}: i1):
// CHECK: %[[YF:.*]] = arith.sitofp %[[Y]] : i64 to f32
// CHECK-DAG: %[[TX:.*]] = arith.cmpf une, %[[X]], %{{.*}} : f32
// CHECK-DAG: %[[TY:.*]] = arith.cmpf une, %[[YF]], %{{.*}} : f32
// CHECK: arith.andi %[[TX]], %[[TY]] : i1
func.func @logical_and(%x: tensor<4xf32>, %y: tensor<4xi64>) -> tensor<4xi1> {
  %0 = aten.logical_and %x, %y : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// bool + bool is "or".
// CHECK-LABEL: func.func @bool_add
// CHECK: ^bb0(%[[X:.*]]: i1, %[[Y:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: arith.ori %[[X]], %[[Y]] : i1
func.func @bool_add(%x: tensor<4xi1>, %y: tensor<4xi1>) -> tensor<4xi1> {
  %0 = aten.add_tensor %x, %y : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// nan_to_num's default bounds are the dtype's largest finite values.
// CHECK-LABEL: func.func @nan_to_num_half
// CHECK: arith.cmpf uno
// CHECK: arith.constant 6.550400e+04 : f32
// CHECK: arith.constant -6.550400e+04 : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @nan_to_num_half(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = aten.nan_to_num %x : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// erfinv refines in float64 with erf near 0 and erfc near +-1.
// CHECK-LABEL: func.func @erfinv
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: math.erfc %{{.*}} : f64
// CHECK: math.erf %{{.*}} : f64
// CHECK: math.copysign %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @erfinv(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.erfinv %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Three operands broadcast into one generic (addcmul: self + value * t1 * t2).
// CHECK-LABEL: func.func @addcmul
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #{{.*}}, #{{.*}}, #[[ID2]]]
// CHECK: ^bb0(%[[S:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[VA:.*]] = arith.mulf %[[V]], %[[A]] : f32
// CHECK: %[[VAB:.*]] = arith.mulf %[[VA]], %[[B]] : f32
// CHECK: arith.addf %[[S]], %[[VAB]] : f32
func.func @addcmul(%s: tensor<?x4xf32>, %a: tensor<4xf32>, %b: tensor<?x1xf32>) -> tensor<?x4xf32> {
  %0 = aten.addcmul %s, %a, %b {value = 0.5 : f64} : (tensor<?x4xf32>, tensor<4xf32>, tensor<?x1xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// fill: the 0-d value, converted to the dtype of self, at every index.
// CHECK-LABEL: func.func @fill
// CHECK: ^bb0(%{{.*}}: f16, %[[V:.*]]: f64, %{{.*}}: f16):
// CHECK: %[[F:.*]] = arith.truncf %[[V]] : f64 to f32
// CHECK: %[[H:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK: %[[E:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[R:.*]] = arith.truncf %[[E]] : f32 to f16
// CHECK: linalg.yield %[[R]] : f16
func.func @fill(%x: tensor<2x3xf16>, %v: tensor<f64>) -> tensor<2x3xf16> {
  %0 = aten.fill_tensor %x, %v : (tensor<2x3xf16>, tensor<f64>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// Integer abs is x < 0 ? 0 - x : x in arith (T5's relative position
// buckets): math.absi has no lowering in the GPU kernel pipelines.
// CHECK-LABEL: func.func @abs_int
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: i64, %{{.*}}: i64):
// CHECK:   %[[Z:.*]] = arith.constant 0 : i64
// CHECK:   %[[NEG:.*]] = arith.cmpi slt, %[[X]], %[[Z]] : i64
// CHECK:   %[[M:.*]] = arith.subi %[[Z]], %[[X]] : i64
// CHECK:   %[[R:.*]] = arith.select %[[NEG]], %[[M]], %[[X]] : i64
// CHECK:   linalg.yield %[[R]]
// CHECK-NOT: math.absi
func.func @abs_int(%x: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %0 = aten.abs %x : (tensor<?x?xi64>) -> tensor<?x?xi64>
  return %0 : tensor<?x?xi64>
}
