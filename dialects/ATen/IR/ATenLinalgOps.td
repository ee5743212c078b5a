//===- ATenLinalgOps.td - aten ops: linear algebra -----------*- tablegen -*-===//
#ifndef KILN_ATEN_LINALG_OPS
#define KILN_ATEN_LINALG_OPS

include "ATenBase.td"

/// Float or integer (not bool) tensors: ATen's CPU products take both.
def ATen_NumericTensor : RankedTensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger]>;

def ATen_LinearOp : ATen_Op<"linear"> {
  let summary = "aten::linear: input @ weight^T + bias";
  let description = [{
    A 1-d weight contracts the last dim away (the result has the input's
    rank minus one); a bias broadcasts against the product.
  }];
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AddmmOp : ATen_Op<"addmm"> {
  let summary = "aten::addmm: beta * self + alpha * (mat1 @ mat2)";
  let arguments = (ins ATen_NumericTensor:$self, ATen_NumericTensor:$mat1,
                       ATen_NumericTensor:$mat2,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs ATen_NumericTensor:$result);
  let assemblyFormat = [{
    $self `,` $mat1 `,` $mat2 attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

class ATen_ProductOp<string mnemonic, string atenName>
    : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let arguments = (ins ATen_NumericTensor:$self, ATen_NumericTensor:$other);
  let results = (outs ATen_NumericTensor:$result);
  let assemblyFormat = [{
    $self `,` $other attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_MmOp : ATen_ProductOp<"mm", "mm: [n, k] @ [k, m]">;
def ATen_BmmOp : ATen_ProductOp<"bmm", "bmm: [b, n, k] @ [b, k, m]">;
def ATen_MvOp : ATen_ProductOp<"mv", "mv: [n, k] @ [k]">;
def ATen_DotOp : ATen_ProductOp<"dot", "dot: [k] . [k] -> 0-d">;
def ATen_OuterOp : ATen_ProductOp<"outer", "outer: [n] x [m] -> [n, m]">;
def ATen_MatmulOp : ATen_ProductOp<"matmul", "matmul"> {
  let description = [{
    Every rank combination of torch.matmul: 1-d x 1-d is a dot product,
    a 1-d left operand is a row vector and a 1-d right operand a column
    vector (their unit dim removed from the result), and batch dims
    broadcast numpy-style.
  }];
}

class ATen_AddProductOp<string mnemonic, string atenName>
    : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName # ": beta * self + alpha * product";
  let description = [{
    `self` broadcasts to the product's shape; beta = 0 ignores it (NaN and
    inf in it do not propagate), as ATen does.
  }];
  let arguments = (ins ATen_NumericTensor:$self, ATen_NumericTensor:$lhs,
                       ATen_NumericTensor:$rhs,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs ATen_NumericTensor:$result);
  let assemblyFormat = [{
    $self `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_BaddbmmOp : ATen_AddProductOp<"baddbmm", "baddbmm (batch1 @ batch2)">;
def ATen_AddmvOp : ATen_AddProductOp<"addmv", "addmv (mat @ vec)">;

def ATen_EinsumOp : ATen_Op<"einsum"> {
  let summary = "aten::einsum";
  let description = [{
    `equation` as torch.einsum takes it ("bij,bjk->bik", with "..." for
    broadcast dims and an implicit output when "->" is absent). Repeated
    letters in one operand take its diagonal; letters absent from the
    output are summed.
  }];
  let arguments = (ins Variadic<ATen_NumericTensor>:$tensors, StrAttr:$equation);
  let results = (outs ATen_NumericTensor:$result);
  let assemblyFormat = [{
    $equation `(` $tensors `)` attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The equation parsed: per operand and for the output, one loop index per
    /// dim, loops numbered over the whole contraction; `numLoops` is their count.
    ::mlir::LogicalResult parseEquation(::llvm::SmallVectorImpl<::llvm::SmallVector<int64_t>> &operandLoops,
                                        ::llvm::SmallVector<int64_t> &resultLoops, int64_t &numLoops,
                                std::string &error);
  }];
}

#endif // KILN_ATEN_LINALG_OPS
