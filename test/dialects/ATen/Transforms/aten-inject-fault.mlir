// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=wrong op=aten.relu nth=1}))' | FileCheck %s
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=wrong op=aten.gelu}))' | FileCheck %s --check-prefix=NONE
// RUN: not kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=error op=aten.relu}))' 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: not --crash kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=crash op=aten.relu}))' 2>&1 | FileCheck %s --check-prefix=CRASH
// RUN: not kiln-opt %s -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=bogus op=aten.relu}))' 2>&1 | FileCheck %s --check-prefix=MODE

// wrong: the second relu (nth=1) is negated for every user; the first is untouched.
// CHECK-LABEL: func.func @two_relus
// CHECK: %[[A:.*]] = aten.relu %arg0
// CHECK: %[[B:.*]] = aten.relu %[[A]]
// CHECK-NEXT: %[[N:.*]] = aten.neg %[[B]]
// CHECK-NEXT: return %[[N]], %[[A]]
// No op of that name: nothing changes.
// NONE-LABEL: func.func @two_relus
// NONE-NOT: aten.neg
// ERR: error: injected fault at aten.relu #0
// CRASH: kiln: injected compiler crash at aten.relu #0
// MODE: mode must be wrong, error or crash, got 'bogus'
func.func @two_relus(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = aten.relu %x : tensor<4xf32>
  %1 = aten.relu %0 : tensor<4xf32>
  return %1, %0 : tensor<4xf32>, tensor<4xf32>
}

// -----

// @NAME picks the op imported from node NAME (its location), whatever its rank
// among ops of its kind.
// RUN: kiln-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(aten-inject-fault{mode=wrong op=@second}))' | FileCheck %s --check-prefix=NODE
// NODE-LABEL: func.func @named
// NODE: %[[A:.*]] = aten.relu %arg0
// NODE-NEXT: %[[B:.*]] = aten.relu %[[A]]
// NODE-NEXT: %[[N:.*]] = aten.neg %[[B]]
// NODE-NEXT: return %[[N]]
func.func @named(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = aten.relu %x : tensor<4xf32> loc("first")
  %1 = aten.relu %0 : tensor<4xf32> loc("second")
  return %1 : tensor<4xf32>
}
