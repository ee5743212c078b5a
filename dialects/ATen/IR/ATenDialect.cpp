//===- ATenDialect.cpp - aten dialect registration ------------------------===//
#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/ATenSequenceOps.h"
#include "ATen/IR/ATenRandomOps.h"
#include "ATen/IR/ATenAntialiasOps.h"

using namespace mlir;
using namespace kiln::aten;

#include "ATen/IR/ATenDialect.cpp.inc"

void ATenDialect::initialize() {
  // One list of every op class the four ODS files define.
  addOperations<
#define GET_OP_LIST
#include "ATen/IR/ATenOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "ATen/IR/ATenSequenceOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "ATen/IR/ATenRandomOps.cpp.inc"
      ,
#define GET_OP_LIST
#include "ATen/IR/ATenAntialiasOps.cpp.inc"
      >();
}
