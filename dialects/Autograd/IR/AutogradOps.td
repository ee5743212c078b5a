//===- AutogradOps.td - the autograd dialect -----------------*- tablegen -*-===//
//
// Function transforms users know from torch.autograd and torch.func, over a
// function symbol. `autograd-differentiate` rewrites them into plain aten code.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_AUTOGRAD_OPS
#define KILN_AUTOGRAD_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "AutogradInterfaces.td"

def Autograd_Dialect : Dialect {
  let name = "autograd";
  let cppNamespace = "::kiln::autograd";
  let summary = "Differentiation of functions on tensors (reverse and forward mode)";
  let description = [{
    `autograd.vjp`, `autograd.grad` and `autograd.jvp` apply a transform to a
    `func.func` named by symbol; `autograd.stop_gradient` marks a value whose
    gradient is zero (`detach`, `no_grad` regions). The differentiation pass
    inlines the function at the op and appends the reverse sweep (or the
    tangent computation), built from each op's `DifferentiableOpInterface`
    rules. `wrt` lists the function arguments differentiated against.
    `autograd.vmap` maps a function over a batch dim (`autograd-batch`).
  }];
  let usePropertiesForAttributes = 1;
}

class Autograd_Op<string mnemonic, list<Trait> traits = []>
    : Op<Autograd_Dialect, mnemonic, traits>;

def Autograd_VjpOp : Autograd_Op<"vjp",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "value and vector-Jacobian product (reverse mode)";
  let description = [{
    Calls `callee` on `primals` and returns its results, then, for each
    argument index in `wrt`, the gradient of sum_i(result_i * cotangent_i)
    with respect to that argument (of the argument's type). One cotangent per
    callee result, of that result's type.

    ```mlir
    %y, %gx, %gw = autograd.vjp @f(%x, %w) cotangents(%c) wrt [0, 1]
        : (tensor<8x64xf32>, tensor<16x64xf32>), (tensor<8x16xf32>)
        -> tensor<8x16xf32>, tensor<8x64xf32>, tensor<16x64xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$primals,
                       Variadic<AnyRankedTensor>:$cotangents, DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $primals `)` `cotangents` `(` $cotangents `)` `wrt` $wrt attr-dict `:`
    `(` type($primals) `)` `,` `(` type($cotangents) `)` `->` type($results)
  }];
}

def Autograd_GradOp : Autograd_Op<"grad",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "value and gradient of a function with one 0-d result";
  let description = [{
    `torch.func.grad_and_value`: returns the callee's (0-d floating-point)
    result, then its gradient with respect to each argument in `wrt`.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$primals,
                       DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $primals `)` `wrt` $wrt attr-dict `:` `(` type($primals) `)` `->` type($results)
  }];
}

def Autograd_JvpOp : Autograd_Op<"jvp",
    [AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "value and Jacobian-vector product (forward mode)";
  let description = [{
    Calls `callee` on `primals` and returns its results, then the tangent of
    each result when the arguments in `wrt` move along `tangents` (one per
    `wrt` entry, of that argument's type). Every callee result must be a
    floating-point tensor.
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$primals,
                       Variadic<AnyRankedTensor>:$tangents, DenseI64ArrayAttr:$wrt);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $primals `)` `tangents` `(` $tangents `)` `wrt` $wrt attr-dict `:`
    `(` type($primals) `)` `,` `(` type($tangents) `)` `->` type($results)
  }];
}

def Autograd_VmapOp : Autograd_Op<"vmap",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "the callee mapped over a batch dim of some arguments (torch.func.vmap)";
  let description = [{
    `torch.func.vmap`: `in_dims` has one entry per operand, the dim of that
    operand that is the batch (counted in the operand's type, which has one
    dim more than the callee's argument), or -1 for an operand passed to every
    sample unchanged. `out_dims` has one entry per callee result: where the
    batch dim goes in that result. Every batched operand has the same batch
    size, which may be dynamic; at least one operand is batched.
    `autograd-batch` rewrites the op into the callee's body over batched
    values, one batching rule per op (or a loop over the batch).

    ```mlir
    %y = autograd.vmap @f(%xs, %w) in_dims [0, -1] out_dims [0]
        : (tensor<?x64xf32>, tensor<16x64xf32>) -> tensor<?x16xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<AnyType>:$args,
                       DenseI64ArrayAttr:$in_dims, DenseI64ArrayAttr:$out_dims);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` `in_dims` $in_dims `out_dims` $out_dims attr-dict `:`
    `(` type($args) `)` `->` type($results)
  }];
}

def Autograd_StopGradientOp : Autograd_Op<"stop_gradient",
    [Pure, SameOperandsAndResultType]> {
  let summary = "the operand, through which no gradient flows";
  let description = [{ `detach()`, and values computed under `no_grad`: the
    differentiation pass treats the result as a constant and then replaces it
    with its operand. }];
  let arguments = (ins AnyType:$operand);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand)";
}

#endif // KILN_AUTOGRAD_OPS
