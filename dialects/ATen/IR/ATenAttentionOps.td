//===- ATenAttentionOps.td - aten ops: attention -------------*- tablegen -*-===//
#ifndef KILN_ATEN_ATTENTION_OPS
#define KILN_ATEN_ATTENTION_OPS

include "ATenBase.td"

def ATen_ScaledDotProductAttentionOp : ATen_Op<"scaled_dot_product_attention"> {
  let summary = "aten::scaled_dot_product_attention";
  let description = [{
    softmax(query @ key^T * scale + mask) @ value over query [..., L, E],
    key [..., S, E], value [..., S, Ev] (batch dims broadcast). `scale`
    defaults to 1/sqrt(E). A bool `attn_mask` keeps the positions where it
    is true, a float one is added to the scores; `is_causal` keeps key j for
    query i when j <= i (top-left aligned). A row with every key masked
    gives zeros. With `enable_gqa`, query head h reads key/value head
    h / (Hq / Hkv). Only `dropout_p` = 0 is compiled (inference).
  }];
  let arguments = (ins ATen_FloatTensor:$query, ATen_FloatTensor:$key, ATen_FloatTensor:$value,
                       Optional<ATen_Tensor>:$attn_mask,
                       DefaultValuedAttr<F64Attr, "0.0">:$dropout_p,
                       DefaultValuedAttr<BoolAttr, "false">:$is_causal,
                       OptionalAttr<F64Attr>:$scale,
                       DefaultValuedAttr<BoolAttr, "false">:$enable_gqa);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value (`mask` $attn_mask^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_ATTENTION_OPS
