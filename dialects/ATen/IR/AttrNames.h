//===- AttrNames.h - the names of kiln's discardable IR attributes -*- C++ -*-===//
//
// Every `kiln.*` attribute that one part of the compiler writes and another
// reads, named once. The dialects are the lowest layer of the compiler, so
// the importer, the passes, the targets and the driver all see this header.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_IR_ATTRNAMES_H
#define KILN_ATEN_IR_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace kiln::attrs {

// ---- on the entry's arguments and results (the importer writes them, the
// manifest reads them; docs/architecture.md)
/// param|buffer|constant|input: what an argument is.
inline constexpr llvm::StringLiteral kKind = "kiln.kind";
/// The state-dict, input or output name.
inline constexpr llvm::StringLiteral kName = "kiln.name";
/// On a `derived` argument (kiln-fold-batch-norm): {recipe, from, eps},
/// the manifest's `derive` line for the runtime to compute it at load.
inline constexpr llvm::StringLiteral kDerive = "kiln.derive";
/// Per dim: the static size or the symbol of a dynamic dim.
inline constexpr llvm::StringLiteral kDims = "kiln.dims";
/// On a result: the new value of a weight or input the program mutates.
inline constexpr llvm::StringLiteral kUpdate = "kiln.update";

// ---- on the module
/// The symbols of dynamic dims and their ranges: {s0 = [min, max]}.
inline constexpr llvm::StringLiteral kSymbols = "kiln.symbols";
/// autograd-batch: on the module, one line per batched op (rule or loop) for --explain.
inline constexpr llvm::StringLiteral kVmapExplain = "kiln.vmap_explain";
/// On the entry: weight name -> the permutation the loader applies (NHWC filters).
inline constexpr llvm::StringLiteral kWeightLayouts = "kiln.weight_layouts";
/// What kiln-early-dealloc measured: the most bytes alive at once.
inline constexpr llvm::StringLiteral kPeakBufferBytes = "kiln.peak_buffer_bytes";
/// What autograd-differentiate keeps for the backward, after and before remat.
inline constexpr llvm::StringLiteral kSavedActivationBytes = "kiln.saved_activation_bytes";
inline constexpr llvm::StringLiteral kSavedActivationBytesBeforeRemat =
    "kiln.saved_activation_bytes_before_remat";
/// Bytes of the residuals a split forward returns (autograd-split-grad).
inline constexpr llvm::StringLiteral kResidualBytes = "kiln.residual_bytes";
/// How many inputs the model of a split value and gradient has
/// (autograd-split-grad), so --vmap's dims can be checked against it.
inline constexpr llvm::StringLiteral kSplitModelInputs = "kiln.split_model_inputs";

// ---- on ops and declarations
/// On a function declaration: a runtime GPU library entry point (its
/// operands are device memory).
inline constexpr llvm::StringLiteral kDeviceCall = "kiln.device_call";
/// On a fused attention call's operand views (kiln-gpu-fused-attention).
inline constexpr llvm::StringLiteral kFusedAttentionOperand = "kiln.fused_attention_operand";
/// On an aten.call_runtime: the runtime call that computes its gradients
/// ("ns::op#backward"), recorded by the importer when the runtime's
/// dispatcher has an autograd formula for the op; the autograd rules read it.
inline constexpr llvm::StringLiteral kRuntimeBackward = "kiln.runtime_backward";
/// On an aten.call_runtime: the runtime call that runs it over a batch
/// ("ns::op#vmap"), recorded by the importer when the runtime's dispatcher
/// has a batching rule for the op (register_vmap); autograd-batch reads it.
inline constexpr llvm::StringLiteral kRuntimeVmap = "kiln.runtime_vmap";

/// On the linalg ops that compute a convolution's gradients
/// (convert-aten-to-linalg with conv-backward-calls): {part = "input" |
/// "spread" | "weight", stride, padding, dilation, groups}. "weight" reads
/// (grad_output, the zero-padded input), "input" reads (grad_output spread
/// by the stride, written by the "spread" op, the weight); the library-call
/// passes turn them into backward-data / backward-filter calls.
inline constexpr llvm::StringLiteral kConvBackward = "kiln.conv_backward";

} // namespace kiln::attrs

#endif // KILN_ATEN_IR_ATTRNAMES_H
