//===- ATenRandomOps.h - aten.random, the counter-based generator -*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENRANDOMOPS_H
#define KILN_DIALECTS_ATEN_IR_ATENRANDOMOPS_H

#include "ATen/IR/ATenDialect.h"

#define GET_OP_CLASSES
#include "ATen/IR/ATenRandomOps.h.inc"

#endif
