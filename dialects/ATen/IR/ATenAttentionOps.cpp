//===- ATenAttentionOps.cpp - verifier of scaled_dot_product_attention ----===//
#include "ATenVerifyUtils.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace kiln::aten;
using namespace kiln::aten::detail;

LogicalResult ScaledDotProductAttentionOp::verify() {
  auto q = rankedType(getQuery()), k = rankedType(getKey()), v = rankedType(getValue());
  int64_t rank = q.getRank();
  if (rank < 2 || k.getRank() != rank || v.getRank() != rank)
    return emitOpError("expects query, key and value of one rank >= 2, got ")
           << q.getRank() << ", " << k.getRank() << " and " << v.getRank();
  if (k.getElementType() != q.getElementType() || v.getElementType() != q.getElementType())
    return emitOpError("expects query, key and value of one element type");
  auto mismatch = [&](StringRef what, int64_t a, int64_t b) {
    return a != kDyn && b != kDyn && a != b
               ? (emitOpError() << what << " (" << a << " vs " << b << ")", true)
               : false;
  };
  if (mismatch("query and key embedding sizes differ", q.getShape().back(),
               k.getShape().back()) ||
      mismatch("key and value sequence lengths differ", k.getDimSize(rank - 2),
               v.getDimSize(rank - 2)))
    return failure();
  // Batch dims broadcast; with grouped-query attention the head dim (-3) of
  // the query is a multiple of the key/value one.
  ArrayRef<int64_t> qb = q.getShape().drop_back(2), kb = k.getShape().drop_back(2),
                    vb = v.getShape().drop_back(2);
  SmallVector<int64_t> qBatch(qb), kBatch(kb), vBatch(vb);
  if (getEnableGqa()) {
    if (rank < 3)
      return emitOpError("with enable_gqa expects a head dim (rank >= 3)");
    int64_t hq = q.getDimSize(rank - 3), hk = k.getDimSize(rank - 3),
            hv = v.getDimSize(rank - 3);
    if (mismatch("key and value head counts differ", hk, hv))
      return failure();
    if (hq != kDyn && hk != kDyn && (hk == 0 || hq % hk != 0))
      return emitOpError("query heads (")
             << hq << ") are not a multiple of the key/value heads (" << hk << ")";
    kBatch.back() = vBatch.back() = qBatch.back();
  }
  auto kvBatch = broadcastShape(kBatch, vBatch);
  auto batch = succeeded(kvBatch) ? broadcastShape(qBatch, *kvBatch) : kvBatch;
  if (failed(batch))
    return emitOpError("batch dims of query, key and value do not broadcast");
  if (getAttnMask()) {
    auto m = rankedType(getAttnMask());
    Type me = m.getElementType();
    if (!me.isInteger(1) && me != q.getElementType())
      return emitOpError("expects a bool mask or one of the query's element type, got ") << me;
    SmallVector<int64_t> scores(*batch);
    scores.append({q.getDimSize(rank - 2), k.getDimSize(rank - 2)});
    if (!broadcastsTo(m.getShape(), scores))
      return emitOpError("mask of shape ")
             << shapeStr(m.getShape()) << " does not broadcast to the scores' shape "
             << shapeStr(scores);
  }
  double p = getDropoutP().convertToDouble();
  if (p < 0.0 || p > 1.0)
    return emitOpError("dropout_p must be in [0, 1], got ") << p;
  SmallVector<int64_t> shape(*batch);
  shape.append({q.getDimSize(rank - 2), v.getShape().back()});
  return verifyResult(*this, getResult(), shape, q.getElementType());
}
