//===- ATenRandomOps.td - aten ops: counter-based random numbers -*- tablegen -*-===//
//
// The one primitive every random ATen op (rand, randn, randint, bernoulli,
// dropout) is imported as: numbers drawn from the program's generator state.
// Generated apart from ATenOps.td (ATenRandomOps.h, registered by
// ATenDialect.cpp), as the sequence ops are, so that only the files that use
// it include it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_RANDOM_OPS
#define KILN_ATEN_RANDOM_OPS

include "ATenBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def ATen_RandomOp : ATen_Op<"random"> {
  let summary = "numbers of a counter-based generator (rand, randn, and what is built on them)";
  let description = [{
    One number per element of the result, from Philox4x32-10: the key is the
    generator's 64-bit seed and the counter is (element index, `stream`,
    offset), where `state` is the program's generator state, a `tensor<2xi64>`
    [seed, offset] that the runtime fills per run (the seed from the load
    options, the offset advanced by one per run). `stream` tells the random
    ops of one program apart (0 to 65535), so each draws independent numbers
    and one op gives the same numbers wherever it is recomputed (the backward
    of dropout reads the forward's mask).

    `distribution` is `uniform` ([0, 1), the result's float type) or
    `normal` (mean 0, standard deviation 1, by Box-Muller). Sizes mix static
    entries and `index` operands, as `aten.full`.
  }];
  let arguments = (ins RankedTensorOf<[I64]>:$state, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$static_sizes, StrAttr:$distribution,
                       ATen_I64Attr:$stream);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = [{
    $state `,` custom<DynamicIndexList>($sizes, $static_sizes) attr-dict `:` type($state) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // KILN_ATEN_RANDOM_OPS
