//===- ATenSequenceOps.h - diff, adaptive_avg_pool1d, lstm/gru ---*- C++ -*-===//
#ifndef KILN_DIALECTS_ATEN_IR_ATENSEQUENCEOPS_H
#define KILN_DIALECTS_ATEN_IR_ATENSEQUENCEOPS_H

#include "ATen/IR/ATenDialect.h"

#define GET_OP_CLASSES
#include "ATen/IR/ATenSequenceOps.h.inc"

#endif
