//===- Ops/ShapeUtils.h - size and view helpers shared by the import handlers -*- C++ -*-===//
//
// Internal to lib/Import/Ops: size lists mixing literals and `index` values,
// dim sizes, a tensor's sizes, the layouts export recorded, and binding node
// outputs as views of a base (see ImporterImpl.h). Defined in ShapeUtils.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_OPS_SHAPEUTILS_H
#define KILN_LIB_IMPORT_OPS_SHAPEUTILS_H

#include "../ImporterImpl.h"

#include "mlir/IR/Matchers.h"

#include <limits>

namespace kiln::importer::shape {
using namespace kiln::aten;
constexpr int64_t kDyn = ShapedType::kDynamic;
constexpr int64_t kMaxEnd = std::numeric_limits<int64_t>::max();

/// A size list mixing literals and `index` values, as the aten ops take it.
struct Mixed {
  SmallVector<int64_t> statics;
  SmallVector<Value> dynamic;
  void add(int64_t v) { statics.push_back(v); }
  void add(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      statics.push_back(c.getSExtValue());
      return;
    }
    statics.push_back(kDyn);
    dynamic.push_back(v);
  }
};

inline int64_t normDim(int64_t d, int64_t rank) { return d < 0 ? d + std::max<int64_t>(rank, 1) : d; }

inline RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// The size of dim `d` of `v`: a constant or an aten.sym_size_int.
Value dimSize(OpBuilder &b, Location loc, Value v, int64_t d);

/// The sizes of tensor `x`: its static dims (kDyn for dynamic ones) and an
/// aten.sym_size_int for each dynamic dim.
void sizesOf(GraphImporter &g, Value x, Location loc, SmallVector<int64_t> &statics,
             SmallVector<Value> &dynamic);

/// `v` viewed with the shape of `like` (the inverse of a reshape-like view).
Value viewLike(OpBuilder &b, Location loc, Value v, Value like);

/// Strides and storage offset of a value as export recorded them; nullopt if
/// they are symbolic without a hint.
std::optional<std::pair<SmallVector<int64_t>, SmallVector<int64_t>>>
recordedLayout(const Object *meta);

/// True if export recorded `name` as row-major contiguous at storage offset 0
/// (size-1 dims may have any stride).
bool recordedContiguous(GraphImporter &g, StringRef name);

/// The tensor name of argument `arg` of a node ("" if it is not a tensor).
std::string argName(GraphImporter &g, const Object &n, StringRef arg);

/// Builds a view of its base; also rebuilds it on a mutated base.
using MakeView = std::function<Value(Value base, RankedTensorType resultType)>;

/// Binds every tensor output of `n` as a view of argument `arg`: output i is
/// make(i) of the base, written back through scatter(i) (null: cannot be written).
LogicalResult importViews(GraphImporter &g, const Object &n, Location loc, StringRef arg,
                          function_ref<MakeView(unsigned)> make,
                          function_ref<GraphImporter::ScatterFn(unsigned)> scatter);

/// importViews with one maker and one scatter for every output.
LogicalResult importView(GraphImporter &g, const Object &n, Location loc, StringRef arg,
                         MakeView make, GraphImporter::ScatterFn scatter);

/// One slice view along `dim` from `start` to `end` (values or literals).
Value makeSlice(OpBuilder &b, Location loc, Value x, RankedTensorType ty, int64_t dim,
                Value start, Value end, int64_t step);

/// Writes `src` into the slice of `base` along `dim` from `start` to `end`.
Value makeSliceScatter(OpBuilder &b, Location loc, Value base, Value src, int64_t dim,
                       Value start, Value end, int64_t step);

} // namespace kiln::importer::shape

#endif
