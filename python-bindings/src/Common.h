//===- Common.h - what the _kiln extension's files share --------*- C++ -*-===//
//
// Internal to python-bindings/src: the kiln.KilnError exception, the dtype
// table (kiln, DLPack and Python names), host arrays borrowed as runtime
// tensors and runtime tensors wrapped as host arrays (KilnModule.cpp), and
// the dispatcher's bindings (Dispatcher.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PYTHON_BINDINGS_COMMON_H
#define KILN_PYTHON_BINDINGS_COMMON_H

#include "kiln/tensor.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <string>

namespace kiln_py {
namespace nb = nanobind;

/// Raised for every kiln runtime error; kiln/__init__.py re-exports it as kiln.KilnError.
extern nb::object gKilnError;
/// Raises KilnError with `msg`.
[[noreturn]] void raise(const std::string &msg);

/// One dtype as kiln, DLPack and Python name it.
struct DTypeMap {
  kiln::DType kiln;
  nb::dlpack::dtype dl;
  const char *name;
};
const DTypeMap &entryOf(kiln::DType t);
/// The dtype named `name` (float32, int64, ...); raises for another name.
kiln::DType byName(const std::string &name);

/// A host array from Python (numpy, torch, anything with DLPack), CPU and C-contiguous.
using HostArray = nb::ndarray<nb::device::cpu, nb::c_contig>;
/// A C-contiguous array on the host or a GPU (its DLPack device says which).
using AnyArray = nb::ndarray<nb::c_contig>;

/// Wraps a runtime tensor as a host array that keeps it alive (no copy).
nb::object toArray(kiln::Tensor t);
/// Borrows a Python array as a runtime tensor (no copy; valid while `a` lives).
kiln::Tensor fromArray(const HostArray &a);

/// Binds the op dispatcher: OpInfo, load_plugin, ops, op_info, call_op,
/// fake_op, backward_op, vmap_op, register_vmap, opcheck (Dispatcher.cpp).
void bindDispatcher(nb::module_ &m);

} // namespace kiln_py

#endif
