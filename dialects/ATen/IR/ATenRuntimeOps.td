//===- ATenRuntimeOps.td - aten ops: calls into the runtime's dispatcher ---*- tablegen -*-===//
#ifndef KILN_ATEN_RUNTIME_OPS
#define KILN_ATEN_RUNTIME_OPS

include "ATenBase.td"

def ATen_CallRuntimeOp : Op<ATen_Dialect, "call_runtime",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "call an operator through the runtime's dispatcher";
  let description = [{
    An operator kiln does not compile itself (a custom op from a plugin, or an
    ATen op with no lowering yet) runs through the runtime's dispatcher, as
    PyTorch's eager mode would run it. `callee` is the qualified name
    (`kilntest::scaled_gelu`). `args` lists the schema arguments in order:
    a TypeAttr stands for the next operand, other attributes are literals
    (i64 integer, i1 bool, f64 float, unit for None, dense arrays for int
    and float lists, strings).

    The op works on tensors before bufferization and on memrefs after it;
    in the memref form each result is a fresh buffer the caller owns.

    ```mlir
    %y = aten.call_runtime "kilntest::scaled_gelu"(%x) {args = [tensor<4x8xf32>, 2.0 : f64]}
           : (tensor<4x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands, StrAttr:$callee, ArrayAttr:$args);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, $results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_RUNTIME_OPS
