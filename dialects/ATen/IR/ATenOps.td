//===- ATenOps.td - aten dialect operations ------------------*- tablegen -*-===//
//
// One op per ATen overload kiln knows. Scalar arguments of the ATen schema that
// export records as literals become attributes; SymInt arguments that may be
// symbolic become `index` operands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_OPS
#define KILN_ATEN_OPS

include "ATenBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def ATen_LinearOp : ATen_Op<"linear"> {
  let summary = "aten::linear: input @ weight^T + bias";
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
  let arguments = (ins ATen_FloatTensor:$self, ATen_FloatTensor:$mat1,
                       ATen_FloatTensor:$mat2,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $self `,` $mat1 `,` $mat2 attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

def ATen_Conv2dOp : ATen_Op<"conv2d"> {
  let summary = "aten::conv2d (NCHW input, FCHW weight)";
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_ConvolutionOp : ATen_Op<"convolution"> {
  let summary = "aten::convolution (2-d forms)";
  let arguments = (ins ATen_FloatTensor:$input, ATen_FloatTensor:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$transposed,
                       DenseI64ArrayAttr:$output_padding,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$groups);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def ATen_BatchNormOp : ATen_Op<"batch_norm", [AttrSizedOperandSegments]> {
  let summary = "aten::batch_norm";
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       Optional<ATen_FloatTensor>:$running_mean,
                       Optional<ATen_FloatTensor>:$running_var,
                       BoolAttr:$training, F64Attr:$momentum, F64Attr:$eps,
                       DefaultValuedAttr<BoolAttr, "true">:$cudnn_enabled);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? (`mean` $running_mean^)?
    (`var` $running_var^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_NativeBatchNormLegitNoTrainingOp
    : ATen_Op<"_native_batch_norm_legit_no_training", [AttrSizedOperandSegments]> {
  let summary = "aten::_native_batch_norm_legit_no_training (inference batch norm)";
  let description = [{
    Results: the normalised tensor, then the saved mean and saved inverse
    standard deviation (empty, shape [0], as ATen returns them in inference).
  }];
  let arguments = (ins ATen_FloatTensor:$input,
                       Optional<ATen_FloatTensor>:$weight,
                       Optional<ATen_FloatTensor>:$bias,
                       ATen_FloatTensor:$running_mean, ATen_FloatTensor:$running_var,
                       F64Attr:$momentum, F64Attr:$eps);
  let results = (outs ATen_FloatTensor:$result, ATen_FloatTensor:$save_mean,
                      ATen_FloatTensor:$save_invstd);
  let assemblyFormat = [{
    $input (`weight` $weight^)? (`bias` $bias^)? `mean` $running_mean `var` $running_var
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

class ATen_MaxPool2dBase<string mnemonic, dag outs> : ATen_Op<mnemonic> {
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$kernel_size,
                       DenseI64ArrayAttr:$stride, DenseI64ArrayAttr:$padding,
                       DenseI64ArrayAttr:$dilation,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = outs;
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_MaxPool2dOp : ATen_MaxPool2dBase<"max_pool2d", (outs ATen_Tensor:$result)> {
  let summary = "aten::max_pool2d (NCHW or CHW)";
}

def ATen_MaxPool2dWithIndicesOp
    : ATen_MaxPool2dBase<"max_pool2d_with_indices",
                         (outs ATen_Tensor:$result, TensorOf<[I64]>:$indices)> {
  let summary = "aten::max_pool2d_with_indices";
  let hasCanonicalizer = 1;
}

def ATen_AdaptiveAvgPool2dOp : ATen_Op<"adaptive_avg_pool2d"> {
  let summary = "aten::adaptive_avg_pool2d (NCHW or CHW)";
  let arguments = (ins ATen_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def ATen_MeanDimOp : ATen_Op<"mean_dim"> {
  let summary = "aten::mean.dim";
  let description = [{ An absent `dim` (ATen's `None`) reduces over every dimension. }];
  let arguments = (ins ATen_FloatTensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduced dimensions, normalised to [0, rank) and sorted.
    ::llvm::SmallVector<int64_t> getReducedDims();
  }];
}

//===----------------------------------------------------------------------===//
// Shapes and views (functional: each makes a new value)
//===----------------------------------------------------------------------===//

def ATen_PermuteOp : ATen_Op<"permute"> {
  let summary = "aten::permute";
  let arguments = (ins ATen_Tensor:$self, DenseI64ArrayAttr:$dims);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_ViewOp : ATen_Op<"view"> {
  let summary = "aten::view / aten::reshape on a value tensor";
  let description = [{
    Sizes mix static entries (`static_sizes`, where -1 means "infer") and
    symbolic ones (`index` operands, marked dynamic in `static_sizes`).
  }];
  let arguments = (ins ATen_Tensor:$self, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self `` custom<DynamicIndexList>($sizes, $static_sizes) attr-dict
    `:` type($self) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_FlattenUsingIntsOp : ATen_Op<"flatten_using_ints"> {
  let summary = "aten::flatten.using_ints";
  let arguments = (ins ATen_Tensor:$self, DefaultValuedAttr<ATen_I64Attr, "0">:$start_dim,
                       DefaultValuedAttr<ATen_I64Attr, "-1">:$end_dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_SymSizeIntOp : ATen_Op<"sym_size_int"> {
  let summary = "aten::sym_size.int: a (possibly symbolic) dimension size";
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "$self `,` $dim attr-dict `:` type($self)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Calls into the runtime's dispatcher
//===----------------------------------------------------------------------===//

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

#endif // KILN_ATEN_OPS
