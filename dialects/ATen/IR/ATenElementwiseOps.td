//===- ATenElementwiseOps.td - aten ops: elementwise ---------*- tablegen -*-===//
//
// Every op here maps each element of its broadcast operands to one result
// element. The classes below fix, per op, which dtypes it accepts and how its
// result dtype follows from its operands (PyTorch's type promotion); the shared
// verifier (ATenElementwiseOps.cpp) checks both and the broadcast shape.
// Python scalars are imported as 0-d constants of the computation dtype, so
// ATen's `.Scalar` overloads use the same op as the `.Tensor` one.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_ELEMENTWISE_OPS
#define KILN_ATEN_ELEMENTWISE_OPS

include "ATenBase.td"
include "mlir/IR/OpBase.td"

/// `promotion` names a detail::Promotion:
///   Same       result dtype = torch.result_type(operands)
///   IntToFloat as Same, but integer and bool results become a float dtype
///   Bool       result is bool
///   KeepSelf   result dtype = dtype of the first operand
/// `accepts` names a detail::Accepts (the dtypes the operands may promote to):
///   Any, NoBool, Float, Integral (integers and bool), IntOnly.
class ATen_ElementwiseOp<string mnemonic, string atenName, dag operands,
                         string promotion, string accepts, dag attrs = (ins),
                         list<Trait> traits = []>
    : ATen_Op<mnemonic, traits> {
  let summary = "aten::" # atenName;
  let description = [{
    Elementwise with numpy-style broadcasting (shapes aligned at the right,
    size-1 dims stretch). Operands are converted to the computation dtype
    PyTorch's type promotion gives before the op is applied.
  }];
  let arguments = !con(operands, attrs);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = "::mlir::LogicalResult $cppClass::verify() {\n"
      "  using namespace ::kiln::aten::detail;\n"
      "  return verifyElementwise(getOperation(), getOperation()->getOperands(), Promotion::"
      # promotion # ", Accepts::" # accepts # ");\n}\n";
}

class ATen_UnaryEwOp<string mnemonic, string atenName, string promotion, string accepts,
                     dag attrs = (ins)>
    : ATen_ElementwiseOp<mnemonic, atenName, (ins ATen_Tensor:$self), promotion, accepts,
                         attrs>;

class ATen_BinaryEwOp<string mnemonic, string atenName, string promotion, string accepts,
                      dag attrs = (ins)>
    : ATen_ElementwiseOp<mnemonic, atenName, (ins ATen_Tensor:$self, ATen_Tensor:$other),
                         promotion, accepts, attrs>;

//===----------------------------------------------------------------------===//
// Unary
//===----------------------------------------------------------------------===//

def ATen_ReluOp : ATen_Op<"relu", [SameOperandsAndResultType]> {
  let summary = "aten::relu";
  let arguments = (ins ATen_Tensor:$self);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
}

def ATen_GeluOp : ATen_Op<"gelu", [SameOperandsAndResultType]> {
  let summary = "aten::gelu (approximate = 'none' uses erf, 'tanh' the tanh form)";
  let arguments = (ins ATen_FloatTensor:$self,
                       DefaultValuedStrAttr<StrAttr, "none">:$approximate);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` type($self)";
  let hasVerifier = 1;
}

// Dtype-preserving; integers pass through the rounding ops unchanged.
def ATen_AbsOp : ATen_UnaryEwOp<"abs", "abs", "Same", "NoBool">;
def ATen_NegOp : ATen_UnaryEwOp<"neg", "neg", "Same", "NoBool">;
def ATen_SignOp : ATen_UnaryEwOp<"sign", "sign (and sgn on real dtypes)", "Same", "Any">;
def ATen_CeilOp : ATen_UnaryEwOp<"ceil", "ceil", "Same", "NoBool">;
def ATen_FloorOp : ATen_UnaryEwOp<"floor", "floor", "Same", "NoBool">;
def ATen_RoundOp : ATen_UnaryEwOp<"round", "round (half to even)", "Same", "NoBool">;
def ATen_RoundDecimalsOp : ATen_UnaryEwOp<"round_decimals", "round.decimals", "Same", "NoBool",
    (ins ATen_I64Attr:$decimals)>;
def ATen_TruncOp : ATen_UnaryEwOp<"trunc", "trunc", "Same", "NoBool">;
def ATen_FracOp : ATen_UnaryEwOp<"frac", "frac", "Same", "Float">;
def ATen_BitwiseNotOp : ATen_UnaryEwOp<"bitwise_not", "bitwise_not", "Same", "Integral">;

// Floating-point math: integer and bool inputs compute in the default float.
def ATen_ReciprocalOp : ATen_UnaryEwOp<"reciprocal", "reciprocal", "IntToFloat", "Any">;
def ATen_SqrtOp : ATen_UnaryEwOp<"sqrt", "sqrt", "IntToFloat", "Any">;
def ATen_RsqrtOp : ATen_UnaryEwOp<"rsqrt", "rsqrt", "IntToFloat", "Any">;
def ATen_ExpOp : ATen_UnaryEwOp<"exp", "exp", "IntToFloat", "Any">;
def ATen_Exp2Op : ATen_UnaryEwOp<"exp2", "exp2", "IntToFloat", "Any">;
def ATen_Expm1Op : ATen_UnaryEwOp<"expm1", "expm1", "IntToFloat", "Any">;
def ATen_LogOp : ATen_UnaryEwOp<"log", "log", "IntToFloat", "Any">;
def ATen_Log2Op : ATen_UnaryEwOp<"log2", "log2", "IntToFloat", "Any">;
def ATen_Log10Op : ATen_UnaryEwOp<"log10", "log10", "IntToFloat", "Any">;
def ATen_Log1pOp : ATen_UnaryEwOp<"log1p", "log1p", "IntToFloat", "Any">;
def ATen_SinOp : ATen_UnaryEwOp<"sin", "sin", "IntToFloat", "Any">;
def ATen_CosOp : ATen_UnaryEwOp<"cos", "cos", "IntToFloat", "Any">;
def ATen_TanOp : ATen_UnaryEwOp<"tan", "tan", "IntToFloat", "Any">;
def ATen_AsinOp : ATen_UnaryEwOp<"asin", "asin", "IntToFloat", "Any">;
def ATen_AcosOp : ATen_UnaryEwOp<"acos", "acos", "IntToFloat", "Any">;
def ATen_AtanOp : ATen_UnaryEwOp<"atan", "atan", "IntToFloat", "Any">;
def ATen_SinhOp : ATen_UnaryEwOp<"sinh", "sinh", "IntToFloat", "Any">;
def ATen_CoshOp : ATen_UnaryEwOp<"cosh", "cosh", "IntToFloat", "Any">;
def ATen_TanhOp : ATen_UnaryEwOp<"tanh", "tanh", "IntToFloat", "Any">;
def ATen_AsinhOp : ATen_UnaryEwOp<"asinh", "asinh", "IntToFloat", "Any">;
def ATen_AcoshOp : ATen_UnaryEwOp<"acosh", "acosh", "IntToFloat", "Any">;
def ATen_AtanhOp : ATen_UnaryEwOp<"atanh", "atanh", "IntToFloat", "Any">;
def ATen_ErfOp : ATen_UnaryEwOp<"erf", "erf", "IntToFloat", "Any">;
def ATen_ErfcOp : ATen_UnaryEwOp<"erfc", "erfc", "IntToFloat", "Any">;
def ATen_ErfinvOp : ATen_UnaryEwOp<"erfinv", "erfinv", "IntToFloat", "Any">;
def ATen_SigmoidOp : ATen_UnaryEwOp<"sigmoid", "sigmoid", "IntToFloat", "Any">;
def ATen_LogitOp : ATen_UnaryEwOp<"logit", "logit (inputs clamped to [eps, 1 - eps] if eps is set)",
    "IntToFloat", "Any", (ins OptionalAttr<F64Attr>:$eps)>;

// Activations (float only unless noted).
def ATen_SiluOp : ATen_UnaryEwOp<"silu", "silu", "Same", "Float">;
def ATen_MishOp : ATen_UnaryEwOp<"mish", "mish", "Same", "Float">;
def ATen_HardswishOp : ATen_UnaryEwOp<"hardswish", "hardswish", "Same", "Float">;
def ATen_HardsigmoidOp : ATen_UnaryEwOp<"hardsigmoid", "hardsigmoid", "Same", "Float">;
def ATen_LeakyReluOp : ATen_UnaryEwOp<"leaky_relu", "leaky_relu", "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "0.01">:$negative_slope)>;
def ATen_EluOp : ATen_UnaryEwOp<"elu", "elu (celu and selu import as elu)", "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha, DefaultValuedAttr<F64Attr, "1.0">:$scale,
         DefaultValuedAttr<F64Attr, "1.0">:$input_scale)>;
def ATen_SoftplusOp : ATen_UnaryEwOp<"softplus", "softplus", "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$beta, DefaultValuedAttr<F64Attr, "20.0">:$threshold)>;
def ATen_HardtanhOp : ATen_UnaryEwOp<"hardtanh", "hardtanh (relu6 imports as hardtanh(0, 6))",
    "Same", "NoBool",
    (ins DefaultValuedAttr<F64Attr, "-1.0">:$min_val, DefaultValuedAttr<F64Attr, "1.0">:$max_val)>;
def ATen_HardshrinkOp : ATen_UnaryEwOp<"hardshrink", "hardshrink", "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "0.5">:$lambd)>;
def ATen_SoftshrinkOp : ATen_UnaryEwOp<"softshrink", "softshrink", "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "0.5">:$lambd)>;
def ATen_ThresholdOp : ATen_UnaryEwOp<"threshold", "threshold (x <= threshold ? value : x)",
    "Same", "NoBool", (ins F64Attr:$threshold, F64Attr:$value)>;
def ATen_NanToNumOp : ATen_UnaryEwOp<"nan_to_num",
    "nan_to_num (posinf/neginf default to the dtype's largest/lowest finite value)", "Same",
    "Any", (ins DefaultValuedAttr<F64Attr, "0.0">:$nan, OptionalAttr<F64Attr>:$posinf,
                OptionalAttr<F64Attr>:$neginf)>;

// Predicates.
def ATen_LogicalNotOp : ATen_UnaryEwOp<"logical_not", "logical_not", "Bool", "Any">;
def ATen_IsnanOp : ATen_UnaryEwOp<"isnan", "isnan", "Bool", "Any">;
def ATen_IsinfOp : ATen_UnaryEwOp<"isinf", "isinf", "Bool", "Any">;
def ATen_IsfiniteOp : ATen_UnaryEwOp<"isfinite", "isfinite", "Bool", "Any">;
def ATen_IsposinfOp : ATen_UnaryEwOp<"isposinf", "isposinf", "Bool", "Any">;
def ATen_IsneginfOp : ATen_UnaryEwOp<"isneginf", "isneginf", "Bool", "Any">;
def ATen_SignbitOp : ATen_UnaryEwOp<"signbit", "signbit", "Bool", "Any">;

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

def ATen_AddTensorOp : ATen_BinaryEwOp<"add_tensor", "add.Tensor: self + alpha * other",
    "Same", "Any", (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def ATen_SubTensorOp : ATen_BinaryEwOp<"sub_tensor", "sub.Tensor: self - alpha * other (and rsub)",
    "Same", "NoBool", (ins DefaultValuedAttr<F64Attr, "1.0">:$alpha)>;
def ATen_MulTensorOp : ATen_BinaryEwOp<"mul_tensor", "mul.Tensor", "Same", "Any">;
def ATen_DivTensorOp : ATen_BinaryEwOp<"div_tensor", "div.Tensor (true division)",
    "IntToFloat", "Any">;
def ATen_DivTensorModeOp : ATen_BinaryEwOp<"div_tensor_mode",
    "div.Tensor_mode: rounding_mode 'trunc' or 'floor' (and floor_divide)", "Same", "NoBool",
    (ins StrAttr:$rounding_mode)>;
def ATen_FmodTensorOp : ATen_BinaryEwOp<"fmod_tensor", "fmod.Tensor (sign of the dividend)",
    "Same", "NoBool">;
def ATen_RemainderTensorOp : ATen_BinaryEwOp<"remainder_tensor",
    "remainder.Tensor (sign of the divisor)", "Same", "NoBool">;
def ATen_PowTensorTensorOp : ATen_BinaryEwOp<"pow_tensor_tensor",
    "pow.Tensor_Tensor (and the Tensor_Scalar and Scalar overloads)", "Same", "NoBool">;
def ATen_MaximumOp : ATen_BinaryEwOp<"maximum", "maximum (NaN propagates)", "Same", "Any">;
def ATen_MinimumOp : ATen_BinaryEwOp<"minimum", "minimum (NaN propagates)", "Same", "Any">;
def ATen_FmaxOp : ATen_BinaryEwOp<"fmax", "fmax (NaN is ignored)", "Same", "Any">;
def ATen_FminOp : ATen_BinaryEwOp<"fmin", "fmin (NaN is ignored)", "Same", "Any">;
def ATen_Atan2Op : ATen_BinaryEwOp<"atan2", "atan2", "IntToFloat", "Any">;
def ATen_HypotOp : ATen_BinaryEwOp<"hypot", "hypot", "Same", "Float">;
def ATen_CopysignTensorOp : ATen_BinaryEwOp<"copysign_tensor", "copysign.Tensor", "IntToFloat",
    "Any">;

def ATen_EqTensorOp : ATen_BinaryEwOp<"eq_tensor", "eq.Tensor", "Bool", "Any">;
def ATen_NeTensorOp : ATen_BinaryEwOp<"ne_tensor", "ne.Tensor", "Bool", "Any">;
def ATen_LtTensorOp : ATen_BinaryEwOp<"lt_tensor", "lt.Tensor", "Bool", "Any">;
def ATen_LeTensorOp : ATen_BinaryEwOp<"le_tensor", "le.Tensor", "Bool", "Any">;
def ATen_GtTensorOp : ATen_BinaryEwOp<"gt_tensor", "gt.Tensor", "Bool", "Any">;
def ATen_GeTensorOp : ATen_BinaryEwOp<"ge_tensor", "ge.Tensor", "Bool", "Any">;

def ATen_LogicalAndOp : ATen_BinaryEwOp<"logical_and", "logical_and", "Bool", "Any">;
def ATen_LogicalOrOp : ATen_BinaryEwOp<"logical_or", "logical_or", "Bool", "Any">;
def ATen_LogicalXorOp : ATen_BinaryEwOp<"logical_xor", "logical_xor", "Bool", "Any">;

def ATen_BitwiseAndTensorOp : ATen_BinaryEwOp<"bitwise_and_tensor",
    "bitwise_and.Tensor (and __and__)", "Same", "Integral">;
def ATen_BitwiseOrTensorOp : ATen_BinaryEwOp<"bitwise_or_tensor",
    "bitwise_or.Tensor (and __or__)", "Same", "Integral">;
def ATen_BitwiseXorTensorOp : ATen_BinaryEwOp<"bitwise_xor_tensor",
    "bitwise_xor.Tensor (and __xor__)", "Same", "Integral">;
def ATen_BitwiseLeftShiftTensorOp : ATen_BinaryEwOp<"bitwise_left_shift_tensor",
    "bitwise_left_shift.Tensor (and __lshift__): 0 for shifts outside [0, bits)", "Same",
    "IntOnly">;
def ATen_BitwiseRightShiftTensorOp : ATen_BinaryEwOp<"bitwise_right_shift_tensor",
    "bitwise_right_shift.Tensor (and __rshift__): arithmetic; shifts outside [0, bits) fill with the sign",
    "Same", "IntOnly">;

//===----------------------------------------------------------------------===//
// Ternary and selection
//===----------------------------------------------------------------------===//

def ATen_WhereSelfOp : ATen_Op<"where_self"> {
  let summary = "aten::where.self (and the Scalar overloads)";
  let description = [{
    `condition ? self : other`, all three broadcast; `self` and `other`
    promote to the result dtype. A uint8 condition counts nonzero as true.
  }];
  let arguments = (ins ATen_Tensor:$condition, ATen_Tensor:$self, ATen_Tensor:$other);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_MaskedFillTensorOp : ATen_Op<"masked_fill_tensor"> {
  let summary = "aten::masked_fill.Tensor (and masked_fill.Scalar)";
  let description = [{
    `mask ? value : self` broadcast together; `value` is a 0-d tensor
    converted to the dtype of `self`, which is the result dtype.
  }];
  let arguments = (ins ATen_Tensor:$self, ATen_Tensor:$mask, ATen_Tensor:$value);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def ATen_ClampTensorOp : ATen_Op<"clamp_tensor", [AttrSizedOperandSegments]> {
  let summary = "aten::clamp.Tensor (and clamp, clip, clamp_min, clamp_max)";
  let description = [{
    `min(max(self, min), max)` with either bound optional, all operands
    broadcast and promote together; a NaN element propagates.
  }];
  let arguments = (ins ATen_Tensor:$self, Optional<ATen_Tensor>:$min,
                       Optional<ATen_Tensor>:$max);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self (`min` $min^)? (`max` $max^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_LerpTensorOp : ATen_ElementwiseOp<"lerp_tensor",
    "lerp.Tensor (and lerp.Scalar): self + weight * (end - self)",
    (ins ATen_Tensor:$self, ATen_Tensor:$end, ATen_Tensor:$weight), "Same", "Float">;
def ATen_AddcmulOp : ATen_ElementwiseOp<"addcmul", "addcmul: self + value * tensor1 * tensor2",
    (ins ATen_Tensor:$self, ATen_Tensor:$tensor1, ATen_Tensor:$tensor2), "Same", "NoBool",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$value)>;
def ATen_AddcdivOp : ATen_ElementwiseOp<"addcdiv", "addcdiv: self + value * tensor1 / tensor2",
    (ins ATen_Tensor:$self, ATen_Tensor:$tensor1, ATen_Tensor:$tensor2), "Same", "Float",
    (ins DefaultValuedAttr<F64Attr, "1.0">:$value)>;

//===----------------------------------------------------------------------===//
// Conversion and filling
//===----------------------------------------------------------------------===//

def ATen_ToCopyOp : ATen_Op<"_to_copy"> {
  let summary = "aten::_to_copy to the result dtype (and to.dtype, to.device, type_as)";
  let description = [{
    Converts each element as PyTorch does: float to integer truncates toward
    zero (to uint8 through int64, wrapping), to bool tests for nonzero,
    float64 and integers reach float16/bfloat16 through float32. Layout,
    device and memory format have no meaning on value tensors.
  }];
  let arguments = (ins ATen_Tensor:$self);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def ATen_FillTensorOp : ATen_ElementwiseOp<"fill_tensor",
    "fill.Tensor (and fill.Scalar): value broadcast to the shape and dtype of self",
    (ins ATen_Tensor:$self, ATen_Tensor:$value), "KeepSelf", "Any">;

#endif // KILN_ATEN_ELEMENTWISE_OPS
