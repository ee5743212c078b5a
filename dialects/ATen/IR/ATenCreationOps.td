//===- ATenCreationOps.td - aten ops: tensor creation --------*- tablegen -*-===//
//
// Ops that make a tensor from sizes and values alone. The result type carries
// the dtype; sizes that may be symbolic are `index` operands.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_CREATION_OPS
#define KILN_ATEN_CREATION_OPS

include "ATenBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

def ATen_FullOp : ATen_Op<"full"> {
  let summary = "aten::full (and zeros, ones, empty, scalar_tensor, *_like, new_*, fill)";
  let description = [{
    A tensor of the result type with every element `value` (an attribute of
    the result's element type). Sizes mix static entries (`static_sizes`) and
    symbolic ones (`index` operands, marked dynamic in `static_sizes`). The
    `empty` family is imported as zeros, so its contents are defined.
  }];
  let arguments = (ins Variadic<Index>:$sizes, DenseI64ArrayAttr:$static_sizes,
                       TypedAttrInterface:$value);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    custom<DynamicIndexList>($sizes, $static_sizes) `,` $value attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def ATen_ArangeOp : ATen_Op<"arange"> {
  let summary = "aten::arange.start_step (and arange, arange.start)";
  let description = [{
    `start + i * step` for i in [0, ceil((end - start) / step)). Each bound is
    an attribute (i64 for a Python int, f64 for a float) or, when absent, the
    next `index` operand (a symbolic size). Values are computed in ATen's
    accumulation type of the result dtype (float64 for float32/float64,
    float32 for float16/bfloat16, int64 for integers) and rounded once.
  }];
  let arguments = (ins Variadic<Index>:$dynamic_bounds, OptionalAttr<TypedAttrInterface>:$start,
                       OptionalAttr<TypedAttrInterface>:$end,
                       OptionalAttr<TypedAttrInterface>:$step);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "($dynamic_bounds^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def ATen_LinspaceOp : ATen_Op<"linspace"> {
  let summary = "aten::linspace";
  let description = [{
    `steps` evenly spaced values from `start` to `end`: the first half counts
    up from `start`, the second half down from `end`, as ATen's kernel does.
  }];
  let arguments = (ins F64Attr:$start, F64Attr:$end, ATen_I64Attr:$steps);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def ATen_EyeOp : ATen_Op<"eye"> {
  let summary = "aten::eye (and eye.m): ones on the main diagonal of an n x m tensor";
  let arguments = (ins ATen_I64Attr:$n, ATen_I64Attr:$m);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // KILN_ATEN_CREATION_OPS
