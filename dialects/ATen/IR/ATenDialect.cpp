//===- ATenDialect.cpp - aten dialect registration ------------------------===//
#include "ATen/IR/ATenDialect.h"

using namespace mlir;
using namespace kiln::aten;

#include "ATen/IR/ATenDialect.cpp.inc"

void ATenDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ATen/IR/ATenOps.cpp.inc"
      >();
}
