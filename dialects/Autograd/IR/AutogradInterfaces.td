//===- AutogradInterfaces.td - how an op supplies its derivative -*- tablegen -*-===//
#ifndef KILN_AUTOGRAD_INTERFACES
#define KILN_AUTOGRAD_INTERFACES

include "mlir/IR/OpBase.td"

def DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::kiln::autograd";
  let description = [{
    An op that can be differentiated supplies its reverse (vector-Jacobian)
    rule and, optionally, its forward (tangent) rule. Rules build plain ops
    (aten ops, and arith constants) at the builder's insertion point, after
    the op; they read the op's operands and results, which the forward sweep
    has already computed. aten ops get this interface through external models,
    one rules file per op family (dialects/Autograd/Rules).
  }];
  let methods = [
    InterfaceMethod<[{
        Reverse rule. `resultCotangents` has one entry per result (null when
        that result receives no gradient). Fills `operandCotangents` with one
        entry per operand: the cotangent, of the operand's type, for operands
        with `needed` set, null otherwise. Emits an error and fails when the
        op's gradient is not defined for its attributes or types.
      }], "::mlir::LogicalResult", "buildVjp",
      (ins "::mlir::OpBuilder &":$b, "::llvm::ArrayRef<::mlir::Value>":$resultCotangents,
           "::llvm::ArrayRef<bool>":$needed,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents)>,
    InterfaceMethod<[{
        Forward rule. `operandTangents` has one entry per operand (null for a
        zero tangent); fills `resultTangents` with one entry per result (null
        for a result whose tangent is zero or that is not a float tensor).
        Fails (after emitting an error) when there is no forward rule.
      }], "::mlir::LogicalResult", "buildJvp",
      (ins "::mlir::OpBuilder &":$b, "::llvm::ArrayRef<::mlir::Value>":$operandTangents,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$resultTangents),
      /*methodBody=*/"",
      /*defaultImplementation=*/[{
        return $_op->emitError("cannot differentiate '") << $_op->getName()
               << "' in forward mode: it has no tangent rule";
      }]>,
  ];
}

#endif // KILN_AUTOGRAD_INTERFACES
