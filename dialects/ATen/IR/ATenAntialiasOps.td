//===- ATenAntialiasOps.td - aten ops: antialiased resampling -*- tablegen -*-===//
//
// The antialiased 2-d interpolations (F.interpolate(..., antialias=True): the
// position-embedding resize of vision transformers, image preprocessing).
// Generated apart from ATenOps.td (ATenAntialiasOps.h, registered by
// ATenDialect.cpp), as the sequence and random ops are, so that only their
// importer, verifiers and lowering include them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_ANTIALIAS_OPS
#define KILN_ATEN_ANTIALIAS_OPS

include "ATenResamplingBase.td"

class ATen_UpsampleAntialias<string mnemonic, string filter>
    : ATen_UpsampleInterp<mnemonic> {
  let description = !strconcat([{
    Separable, width first then height, as ATen's CPU kernel: per dim, with
    s = (in - 1) / (out - 1) under `align_corners` (0 for one output), else
    1 / scale when a scale is given, else in / out, output index o centres at
    c = s * (o + 0.5) and reads the inputs k in
    [max(int(c - support + 0.5), 0), min(int(c + support + 0.5), in)), where
    support = (size / 2) * max(s, 1) for a filter of `size` taps; tap k weighs
    filter((k - c + 0.5) / max(s, 1)) and the weights of o are divided by their
    sum (when it is not 0). A dim whose size does not change is copied.
    Float inputs only; float64 computes in float64, others in float32.
    The filter: }], filter);
}

def ATen_UpsampleBilinear2dAAOp
    : ATen_UpsampleAntialias<"_upsample_bilinear2d_aa", "triangle, 1 - |x| (2 taps).">  {
  let summary = "aten::_upsample_bilinear2d_aa (NCHW), antialiased bilinear";
}
def ATen_UpsampleBicubic2dAAOp
    : ATen_UpsampleAntialias<"_upsample_bicubic2d_aa",
                             "cubic convolution with A = -0.5 (Keys; 4 taps).">  {
  let summary = "aten::_upsample_bicubic2d_aa (NCHW), antialiased bicubic";
}

#endif // KILN_ATEN_ANTIALIAS_OPS
