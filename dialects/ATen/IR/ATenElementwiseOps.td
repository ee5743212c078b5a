//===- ATenElementwiseOps.td - aten ops: elementwise ---------*- tablegen -*-===//
#ifndef KILN_ATEN_ELEMENTWISE_OPS
#define KILN_ATEN_ELEMENTWISE_OPS

include "ATenBase.td"

class ATen_UnaryOp<string mnemonic, string atenName, list<Trait> traits = []>
    : ATen_Op<mnemonic, !listconcat(traits, [SameOperandsAndResultType])> {
  let summary = "aten::" # atenName;
  let arguments = (ins ATen_Tensor:$self);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

def ATen_ReluOp : ATen_UnaryOp<"relu", "relu">;

def ATen_GeluOp : ATen_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "aten::gelu (approximate = 'none' uses erf, 'tanh' the tanh form)";
  let arguments = (ins ATen_FloatTensor:$self,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
}

class ATen_BinaryOp<string mnemonic, string atenName, dag extra = (ins)>
    : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName # " with numpy-style broadcasting";
  let description = [{
    Operands broadcast against each other (aligned at the right, size-1 dims
    stretch); a Python scalar operand is imported as a 0-d tensor. The result
    element type is the promoted one; operands are converted to it.
  }];
  let arguments = !con((ins ATen_Tensor:$self, ATen_Tensor:$other), extra);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `,` $other attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AddTensorOp : ATen_BinaryOp<"add_tensor", "add.Tensor",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def ATen_SubTensorOp : ATen_BinaryOp<"sub_tensor", "sub.Tensor",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def ATen_MulTensorOp : ATen_BinaryOp<"mul_tensor", "mul.Tensor">;
def ATen_DivTensorOp : ATen_BinaryOp<"div_tensor", "div.Tensor (true division)">;

#endif // KILN_ATEN_ELEMENTWISE_OPS
