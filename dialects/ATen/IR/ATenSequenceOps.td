//===- ATenSequenceOps.td - sequence-model composites --------*- tablegen -*-===//
//
// Composite ops that language and sequence models reach in the default IR
// (differences along a dim, recurrent layers, 1-d adaptive pooling). Each is
// rewritten into other aten ops by aten-decompose-composites. They are
// generated apart from ATenOps.td (ATenSequenceOps.h, registered by
// ATenDialect.cpp) so that only their importer, verifiers and decompositions
// include them, not every file that includes ATenDialect.h.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ATEN_SEQUENCE_OPS
#define KILN_ATEN_SEQUENCE_OPS

include "ATenBase.td"
include "mlir/IR/CommonAttrConstraints.td"

def ATen_DiffOp : ATen_Op<"diff", [AttrSizedOperandSegments]> {
  let summary = "aten::diff: the n-th forward difference along dim";
  let description = [{
    `prepend` and `append` (optional) are joined to `self` along `dim` first;
    each of the `n` passes then takes out[i] = x[i + 1] - x[i] (for bool,
    x[i + 1] != x[i]), so the dim shrinks by n.
  }];
  let arguments = (ins ATen_Tensor:$self, Optional<ATen_Tensor>:$prepend,
                       Optional<ATen_Tensor>:$append,
                       DefaultValuedAttr<ATen_I64Attr, "1">:$n,
                       DefaultValuedAttr<ATen_I64Attr, "-1">:$dim);
  let results = (outs ATen_Tensor:$result);
  let assemblyFormat = [{
    $self (`prepend` $prepend^)? (`append` $append^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_AdaptiveAvgPool1dOp : ATen_Op<"adaptive_avg_pool1d"> {
  let summary = "aten::adaptive_avg_pool1d (NCL or CL)";
  let description = [{ Window i of O outputs over a dim of size L spans
    [floor(i*L/O), ceil((i+1)*L/O)). }];
  let arguments = (ins ATen_FloatTensor:$self, DenseI64ArrayAttr:$output_size);
  let results = (outs ATen_FloatTensor:$result);
  let assemblyFormat = "$self attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

class ATen_RecurrentOp<string mnemonic, int numResults>
    : ATen_Op<mnemonic, [AttrSizedOperandSegments]> {
  let description = [{
    ATen's multi-layer recurrent network over a whole sequence. `params`
    holds, per layer and direction, w_ih, w_hh and (with `has_biases`) b_ih,
    b_hh. The input is [T, B, I] ([B, T, I] with `batch_first`, [T, I]
    unbatched); initial states are [layers * directions, B, H]. Dropout
    between layers only acts in training, which kiln does not compile.
  }];
  let results = !if(!eq(numResults, 3),
      (outs ATen_FloatTensor:$output, ATen_FloatTensor:$h_n, ATen_FloatTensor:$c_n),
      (outs ATen_FloatTensor:$output, ATen_FloatTensor:$h_n));
  let assemblyFormat = [{
    $input `hx` `(` $hx `)` `params` `(` $params `)` attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def ATen_LstmInputOp : ATen_RecurrentOp<"lstm_input", 3> {
  let summary = "aten::lstm.input: gates i, f, g, o; returns (output, h_n, c_n)";
  let arguments = (ins ATen_FloatTensor:$input, Variadic<ATen_FloatTensor>:$hx,
                       Variadic<ATen_FloatTensor>:$params, BoolAttr:$has_biases,
                       ATen_I64Attr:$num_layers, F64Attr:$dropout, BoolAttr:$train,
                       BoolAttr:$bidirectional, BoolAttr:$batch_first);
  let extraClassDeclaration = [{ static constexpr int kGates = 4; }];
}

def ATen_GruInputOp : ATen_RecurrentOp<"gru_input", 2> {
  let summary = "aten::gru.input: gates r, z, n; returns (output, h_n)";
  let arguments = (ins ATen_FloatTensor:$input, Variadic<ATen_FloatTensor>:$hx,
                       Variadic<ATen_FloatTensor>:$params, BoolAttr:$has_biases,
                       ATen_I64Attr:$num_layers, F64Attr:$dropout, BoolAttr:$train,
                       BoolAttr:$bidirectional, BoolAttr:$batch_first);
  let extraClassDeclaration = [{ static constexpr int kGates = 3; }];
}

class ATen_SimpleRnnInputOp<string mnemonic, string act>
    : ATen_RecurrentOp<mnemonic, 2> {
  let summary = "aten::" # mnemonic # ": h' = " # act # "(x W_ih^T + b_ih + h W_hh^T + b_hh); returns (output, h_n)";
  let arguments = (ins ATen_FloatTensor:$input, Variadic<ATen_FloatTensor>:$hx,
                       Variadic<ATen_FloatTensor>:$params, BoolAttr:$has_biases,
                       ATen_I64Attr:$num_layers, F64Attr:$dropout, BoolAttr:$train,
                       BoolAttr:$bidirectional, BoolAttr:$batch_first);
  let extraClassDeclaration = [{ static constexpr int kGates = 1; }];
}

def ATen_RnnTanhInputOp : ATen_SimpleRnnInputOp<"rnn_tanh_input", "tanh">;
def ATen_RnnReluInputOp : ATen_SimpleRnnInputOp<"rnn_relu_input", "relu">;

/// One step of a recurrent cell (nn.LSTMCell, nn.GRUCell, nn.RNNCell): the
/// gates of the input and of the state, then the cell's update. The input is
/// [B, I] (or [I] unbatched), the states [B, H] (or [H]); `biases` is empty
/// or (b_ih, b_hh).
class ATen_RecurrentCellOp<string mnemonic, int numStates, int gates, string what>
    : ATen_Op<mnemonic, [AttrSizedOperandSegments]> {
  let summary = "aten::" # mnemonic # ": " # what;
  let arguments = (ins ATen_FloatTensor:$input, Variadic<ATen_FloatTensor>:$hx,
                       ATen_FloatTensor:$w_ih, ATen_FloatTensor:$w_hh,
                       Variadic<ATen_FloatTensor>:$biases);
  let results = !if(!eq(numStates, 2),
      (outs ATen_FloatTensor:$h, ATen_FloatTensor:$c),
      (outs ATen_FloatTensor:$h));
  let assemblyFormat = [{
    $input `hx` `(` $hx `)` `weights` `(` $w_ih `,` $w_hh `)` `biases` `(` $biases `)`
    attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = "static constexpr int kGates = " # gates #
                              "; static constexpr int kStates = " # numStates # ";";
  let hasVerifier = 1;
}

def ATen_LstmCellOp : ATen_RecurrentCellOp<"lstm_cell", 2, 4, "gates i, f, g, o; returns (h', c')">;
def ATen_GruCellOp : ATen_RecurrentCellOp<"gru_cell", 1, 3, "gates r, z, n; returns h'">;
def ATen_RnnTanhCellOp : ATen_RecurrentCellOp<"rnn_tanh_cell", 1, 1, "h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)">;
def ATen_RnnReluCellOp : ATen_RecurrentCellOp<"rnn_relu_cell", 1, 1, "h' = relu(x W_ih^T + b_ih + h W_hh^T + b_hh)">;

#endif // KILN_ATEN_SEQUENCE_OPS
