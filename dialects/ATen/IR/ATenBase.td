//===- ATenBase.td - the aten dialect ------------------------*- tablegen -*-===//
#ifndef KILN_ATEN_BASE
#define KILN_ATEN_BASE

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def ATen_Dialect : Dialect {
  let name = "aten";
  let cppNamespace = "::kiln::aten";
  let summary = "PyTorch ATen operators on immutable tensors";
  let description = [{
    One op per ATen overload that kiln knows, on builtin value tensors
    (`tensor<?x64xf32>`). Names follow ATen: `aten.add.Tensor` becomes
    `aten.add_tensor`, `aten.linear.default` becomes `aten.linear`.
    In-place and view ops are functionalised at import, so every op here is
    pure. Symbolic sizes (`sym_size`, view sizes) are `index` values.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
  let usePropertiesForAttributes = 1;
  let hasConstantMaterializer = 1;
}

class ATen_Op<string mnemonic, list<Trait> traits = []>
    : Op<ATen_Dialect, mnemonic, !listconcat(traits, [Pure])>;

/// A signed 64-bit integer attribute (ATen ints are signed; I64Attr returns uint64_t).
def ATen_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t", "64-bit signed integer attribute">;

def ATen_Tensor : RankedTensorOf<[AnyType]>;
def ATen_FloatTensor : RankedTensorOf<[AnyFloat]>;

#endif // KILN_ATEN_BASE
