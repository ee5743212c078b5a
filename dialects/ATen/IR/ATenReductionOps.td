//===- ATenReductionOps.td - aten ops: reductions ------------*- tablegen -*-===//
#ifndef KILN_ATEN_REDUCTION_OPS
#define KILN_ATEN_REDUCTION_OPS

include "ATenBase.td"

/// A reduction over a list of dims. An absent or empty `dim` reduces every
/// dimension (the `.default` overloads, and ATen's `dim=None` / `dim=[]`).
class ATen_ReduceOp<string mnemonic, string atenName, dag extra = (ins),
                    dag outs = (outs ATen_Tensor:$result)>
    : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let arguments = !con((ins ATen_Tensor:$self, OptionalAttr<DenseI64ArrayAttr>:$dim,
                            DefaultValuedAttr<BoolAttr, "false">:$keepdim), extra);
  let results = outs;
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The reduced dimensions, normalised to [0, rank) and sorted.
    ::llvm::SmallVector<int64_t> getReducedDims();
  }];
}

def ATen_SumDimIntListOp : ATen_ReduceOp<"sum_dim_intlist", "sum.dim_IntList (and sum.default)",
    (ins OptionalAttr<TypeAttr>:$dtype)> {
  let description = [{
    Integer and bool inputs sum to int64 unless `dtype` is given; the input
    is converted to the result type first. Float16/bfloat16 accumulate in
    float32.
  }];
}
def ATen_MeanDimOp : ATen_ReduceOp<"mean_dim", "mean.dim (and mean.default)",
    (ins OptionalAttr<TypeAttr>:$dtype)>;
def ATen_ProdDimIntOp : ATen_ReduceOp<"prod_dim_int", "prod.dim_int (and prod.default)",
    (ins OptionalAttr<TypeAttr>:$dtype)> {
  let description = [{ At most one dim; integer and bool inputs multiply in int64. }];
}
def ATen_AmaxOp : ATen_ReduceOp<"amax", "amax (and max.default)">;
def ATen_AminOp : ATen_ReduceOp<"amin", "amin (and min.default)">;
def ATen_AnyDimsOp : ATen_ReduceOp<"any_dims", "any.dims (and any.default, any.dim)"> {
  let description = [{ Bool result (uint8 for a uint8 input, as ATen). }];
}
def ATen_AllDimsOp : ATen_ReduceOp<"all_dims", "all.dims (and all.default, all.dim)">;
def ATen_CountNonzeroOp : ATen_ReduceOp<"count_nonzero", "count_nonzero.dim_IntList (and .default)">;
def ATen_LogsumexpOp : ATen_ReduceOp<"logsumexp", "logsumexp">;
def ATen_LinalgVectorNormOp : ATen_ReduceOp<"linalg_vector_norm",
    "linalg_vector_norm (and norm.Scalar, norm.ScalarOpt_dim)",
    (ins DefaultValuedAttr<F64Attr, "2.0">:$ord, OptionalAttr<TypeAttr>:$dtype)> {
  let description = [{
    sum(|x|^ord)^(1/ord); ord = inf is max |x|, -inf min |x|, 0 the number
    of non-zeros.
  }];
}
def ATen_VarCorrectionOp : ATen_ReduceOp<"var_correction", "var.correction (and var.dim, var.default)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$correction)> {
  let description = [{ sum((x - mean)^2) / max(0, N - correction), two passes. }];
}
def ATen_StdCorrectionOp : ATen_ReduceOp<"std_correction", "std.correction (and std.dim, std.default)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$correction)>;
def ATen_VarMeanCorrectionOp : ATen_ReduceOp<"var_mean_correction", "var_mean.correction (and .dim)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$correction),
    (outs ATen_Tensor:$result, ATen_Tensor:$mean)>;
def ATen_StdMeanCorrectionOp : ATen_ReduceOp<"std_mean_correction", "std_mean.correction (and .dim)",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$correction),
    (outs ATen_Tensor:$result, ATen_Tensor:$mean)>;

/// max.dim / min.dim: values and int64 indices of the first extremum
/// (NaN counts as the extremum, as in ATen).
class ATen_ExtremumDimOp<string mnemonic, string atenName> : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs ATen_Tensor:$values, TensorOf<[I64]>:$indices);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def ATen_MaxDimOp : ATen_ExtremumDimOp<"max_dim", "max.dim">;
def ATen_MinDimOp : ATen_ExtremumDimOp<"min_dim", "min.dim">;

/// argmax / argmin: the int64 index of the first extremum along `dim`, or in
/// the flattened tensor when `dim` is absent.
class ATen_ArgExtremumOp<string mnemonic, string atenName> : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let arguments = (ins ATen_Tensor:$self, OptionalAttr<ATen_I64Attr>:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$keepdim);
  let results = (outs TensorOf<[I64]>:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def ATen_ArgmaxOp : ATen_ArgExtremumOp<"argmax", "argmax">;
def ATen_ArgminOp : ATen_ArgExtremumOp<"argmin", "argmin">;

/// cumsum / cumprod along `dim`; integer and bool inputs accumulate in int64
/// unless `dtype` is given.
class ATen_ScanOp<string mnemonic, string atenName> : ATen_Op<mnemonic> {
  let summary = "aten::" # atenName;
  let arguments = (ins ATen_Tensor:$self, ATen_I64Attr:$dim, OptionalAttr<TypeAttr>:$dtype);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}
def ATen_CumsumOp : ATen_ScanOp<"cumsum", "cumsum">;
def ATen_CumprodOp : ATen_ScanOp<"cumprod", "cumprod">;

#endif // KILN_ATEN_REDUCTION_OPS
