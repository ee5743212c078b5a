//===- ATenResamplingOps.td - aten ops: upsampling -----------*- tablegen -*-===//
//
// The upsample_* overloads (N, C and one to three spatial dims). The output
// size is `output_size` when given, else floor(input size * scale) per
// spatial dim. `scales` are the scale factors the source-index rules use: an
// entry <= 0 (or no `scales`) means "output size / input size", as ATen's
// optional scales do. The `.vec` overloads import with exactly one of the two.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_RESAMPLING_OPS
#define KILN_ATEN_RESAMPLING_OPS

include "ATenResamplingBase.td"

def ATen_UpsampleNearest1dOp : ATen_UpsampleNearest<"upsample_nearest1d"> {
  let summary = "aten::upsample_nearest1d (NCW)";
}
def ATen_UpsampleNearest2dOp : ATen_UpsampleNearest<"upsample_nearest2d"> {
  let summary = "aten::upsample_nearest2d (NCHW)";
}
def ATen_UpsampleNearest3dOp : ATen_UpsampleNearest<"upsample_nearest3d"> {
  let summary = "aten::upsample_nearest3d (NCDHW)";
}
def ATen_UpsampleNearestExact1dOp : ATen_UpsampleNearestExact<"_upsample_nearest_exact1d"> {
  let summary = "aten::_upsample_nearest_exact1d (NCW)";
}
def ATen_UpsampleNearestExact2dOp : ATen_UpsampleNearestExact<"_upsample_nearest_exact2d"> {
  let summary = "aten::_upsample_nearest_exact2d (NCHW)";
}
def ATen_UpsampleNearestExact3dOp : ATen_UpsampleNearestExact<"_upsample_nearest_exact3d"> {
  let summary = "aten::_upsample_nearest_exact3d (NCDHW)";
}
def ATen_UpsampleLinear1dOp : ATen_UpsampleInterp<"upsample_linear1d"> {
  let summary = "aten::upsample_linear1d (NCW)";
}
def ATen_UpsampleBilinear2dOp : ATen_UpsampleInterp<"upsample_bilinear2d"> {
  let summary = "aten::upsample_bilinear2d (NCHW)";
}
def ATen_UpsampleTrilinear3dOp : ATen_UpsampleInterp<"upsample_trilinear3d"> {
  let summary = "aten::upsample_trilinear3d (NCDHW)";
}
def ATen_UpsampleBicubic2dOp : ATen_UpsampleInterp<"upsample_bicubic2d"> {
  let summary = "aten::upsample_bicubic2d (NCHW), cubic convolution with A = -0.75";
}

#endif // KILN_ATEN_RESAMPLING_OPS
