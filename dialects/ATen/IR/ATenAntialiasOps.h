//===- ATenAntialiasOps.h - the antialiased upsample ops ---------*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENANTIALIASOPS_H
#define KILN_DIALECTS_ATEN_IR_ATENANTIALIASOPS_H

#include "ATen/IR/ATenDialect.h"

#define GET_OP_CLASSES
#include "ATen/IR/ATenAntialiasOps.h.inc"

#endif
