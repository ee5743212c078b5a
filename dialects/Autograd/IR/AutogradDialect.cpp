//===- AutogradDialect.cpp - autograd dialect registration ----------------===//
#include "Autograd/IR/AutogradDialect.h"

using namespace mlir;
using namespace kiln::autograd;

#include "Autograd/IR/AutogradDialect.cpp.inc"
#include "Autograd/IR/AutogradInterfaces.cpp.inc"

void AutogradDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "Autograd/IR/AutogradOps.cpp.inc"
      >();
}
