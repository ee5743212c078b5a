//===- RuntimeCallsToLLVM.cpp - aten.call_runtime to kiln_rt_call_op ------===//
#include "ATen/IR/ATenDialect.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

#include "kiln/abi/rt_call.h"

namespace kiln {
#define GEN_PASS_DEF_LOWERRUNTIMECALLS
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using kiln::aten::CallRuntimeOp;

namespace {
/// kiln_dtype_t code of an element type (kiln/abi/dtypes.h).
FailureOr<int64_t> dtypeCode(Type t) {
  if (t.isF32()) return KILN_DTYPE_F32;
  if (t.isF64()) return KILN_DTYPE_F64;
  if (t.isF16()) return KILN_DTYPE_F16;
  if (t.isBF16()) return KILN_DTYPE_BF16;
  if (t.isInteger(1)) return KILN_DTYPE_BOOL;
  if (auto it = dyn_cast<IntegerType>(t)) {
    if (it.isUnsigned() && it.getWidth() == 8) return KILN_DTYPE_U8;
    switch (it.getWidth()) {
    case 64: return KILN_DTYPE_I64;
    case 32: return KILN_DTYPE_I32;
    case 16: return KILN_DTYPE_I16;
    case 8: return KILN_DTYPE_I8;
    }
  }
  return failure();
}

struct CallRuntimeLowering : ConvertOpToLLVMPattern<CallRuntimeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(CallRuntimeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rw) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rw.getContext();
    auto func = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!func)
      return rw.notifyMatchFailure(op, "not inside an llvm.func yet");
    auto module = op->getParentOfType<ModuleOp>();
    Type i64 = rw.getI64Type(), f64 = rw.getF64Type(), i32 = rw.getI32Type();
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    // struct kiln_rt_value { i64 tag, dtype, rank; ptr desc; i64 i; f64 f; }
    auto recTy = LLVM::LLVMStructType::getLiteral(ctx, {i64, i64, i64, ptr, i64, f64});

    auto i64c = [&](int64_t v) -> Value {
      return LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(v));
    };
    // Stack slots live in the entry block so calls inside loops do not grow the stack.
    auto entrySlot = [&](Type elem, int64_t n) -> Value {
      OpBuilder::InsertionGuard g(rw);
      rw.setInsertionPointToStart(&func.getBody().front());
      Value count = LLVM::ConstantOp::create(rw, loc, i64, rw.getI64IntegerAttr(n));
      return LLVM::AllocaOp::create(rw, loc, ptr, elem, count, /*alignment=*/16);
    };
    auto store = [&](Value array, int64_t index, int32_t field, Value v) {
      Value p = LLVM::GEPOp::create(rw, loc, ptr, recTy, array,
                                    ArrayRef<LLVM::GEPArg>{index, field});
      LLVM::StoreOp::create(rw, loc, v, p);
    };
    auto record = [&](Value array, int64_t index, int64_t tag, int64_t dtype, int64_t rank,
                      Value desc, int64_t i, double f) {
      store(array, index, 0, i64c(tag));
      store(array, index, 1, i64c(dtype));
      store(array, index, 2, i64c(rank));
      store(array, index, 3, desc ? desc : LLVM::ZeroOp::create(rw, loc, ptr).getResult());
      store(array, index, 4, i64c(i));
      store(array, index, 5, LLVM::ConstantOp::create(rw, loc, f64, rw.getF64FloatAttr(f)));
    };
    // String globals are named after the callee, numbered past every name the
    // module already has (several calls of one op each add their own).
    unsigned uniq = 0;
    auto globalString = [&](StringRef s) -> Value {
      std::string name;
      do {
        name = ("__kiln_rt_str_" + op.getCallee() + "_" + std::to_string(uniq++)).str();
        for (char &c : name)
          if (!isalnum(c) && c != '_')
            c = '_';
      } while (module && SymbolTable::lookupSymbolIn(module, name));
      std::string nulTerminated = s.str();
      nulTerminated.push_back('\0');
      return LLVM::createGlobalString(loc, rw, name, nulTerminated, LLVM::Linkage::Internal);
    };

    ArrayAttr spec = op.getArgs();
    int64_t nargs = spec.size(), nres = op.getNumResults();
    Value args = entrySlot(recTy, std::max<int64_t>(nargs, 1));
    Value results = entrySlot(recTy, std::max<int64_t>(nres, 1));
    unsigned nextOperand = 0;
    // The next operand's descriptor as a tensor record at `array`[`index`].
    auto tensorRecord = [&](Value array, int64_t index, TypeAttr t) -> LogicalResult {
      auto mt = cast<MemRefType>(t.getValue());
      auto code = dtypeCode(mt.getElementType());
      if (failed(code))
        return rw.notifyMatchFailure(op, "unsupported element type");
      Value desc = adaptor.getOperands()[nextOperand++];
      Value slot = entrySlot(desc.getType(), 1);
      LLVM::StoreOp::create(rw, loc, desc, slot);
      record(array, index, KILN_RT_TENSOR, *code, mt.getRank(), slot, 0, 0);
      return success();
    };
    for (auto [idx, a] : llvm::enumerate(spec)) {
      if (auto t = dyn_cast<TypeAttr>(a)) {
        if (failed(tensorRecord(args, idx, t)))
          return failure();
      } else if (auto list = dyn_cast<ArrayAttr>(a)) { // Tensor[]: an array of tensor records
        Value elems = entrySlot(recTy, std::max<int64_t>(list.size(), 1));
        for (auto [k, e] : llvm::enumerate(list))
          if (failed(tensorRecord(elems, k, cast<TypeAttr>(e))))
            return failure();
        record(args, idx, KILN_RT_TENSOR_LIST, 0, list.size(), elems, 0, 0);
      } else if (auto ia = dyn_cast<IntegerAttr>(a)) {
        bool isBool = ia.getType().isInteger(1);
        record(args, idx, isBool ? KILN_RT_BOOL : KILN_RT_INT, 0, 0, {},
               isBool ? (int64_t)ia.getValue().getZExtValue() : ia.getInt(), 0);
      } else if (auto fa = dyn_cast<FloatAttr>(a)) {
        record(args, idx, KILN_RT_FLOAT, 0, 0, {}, 0, fa.getValueAsDouble());
      } else if (isa<UnitAttr>(a)) {
        record(args, idx, KILN_RT_NONE, 0, 0, {}, 0, 0);
      } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(a)) {
        Value arr = entrySlot(i64, std::max<int64_t>(ints.size(), 1));
        for (auto [k, v] : llvm::enumerate(ints.asArrayRef()))
          LLVM::StoreOp::create(
              rw, loc, i64c(v),
              LLVM::GEPOp::create(rw, loc, ptr, i64, arr, ArrayRef<LLVM::GEPArg>{(int32_t)k}));
        record(args, idx, KILN_RT_INT_LIST, 0, ints.size(), arr, 0, 0);
      } else if (auto fl = dyn_cast<DenseF64ArrayAttr>(a)) {
        Value arr = entrySlot(f64, std::max<int64_t>(fl.size(), 1));
        for (auto [k, v] : llvm::enumerate(fl.asArrayRef()))
          LLVM::StoreOp::create(
              rw, loc, LLVM::ConstantOp::create(rw, loc, f64, rw.getF64FloatAttr(v)),
              LLVM::GEPOp::create(rw, loc, ptr, f64, arr, ArrayRef<LLVM::GEPArg>{(int32_t)k}));
        record(args, idx, KILN_RT_FLOAT_LIST, 0, fl.size(), arr, 0, 0);
      } else if (auto s = dyn_cast<StringAttr>(a)) {
        record(args, idx, KILN_RT_STRING, 0, 0, globalString(s.getValue()), 0, 0);
      } else {
        return rw.notifyMatchFailure(op, "unsupported literal argument");
      }
    }
    SmallVector<Value> resultSlots;
    SmallVector<Type> resultDescTypes;
    for (auto [idx, r] : llvm::enumerate(op.getResults())) {
      auto mt = cast<MemRefType>(r.getType());
      auto code = dtypeCode(mt.getElementType());
      if (failed(code))
        return rw.notifyMatchFailure(op, "unsupported result element type");
      Type descTy = getTypeConverter()->convertType(mt);
      Value slot = entrySlot(descTy, 1);
      LLVM::StoreOp::create(rw, loc, LLVM::ZeroOp::create(rw, loc, descTy), slot);
      record(results, idx, KILN_RT_TENSOR, *code, mt.getRank(), slot, 0, 0);
      resultSlots.push_back(slot);
      resultDescTypes.push_back(descTy);
    }

    // On the GPU path the operands and results are device buffers: the
    // runtime's device variant copies them across around the call.
    StringRef entry = op->hasAttr(kiln::attrs::kDeviceCall) ? KILN_RT_CALL_OP_DEVICE_SYMBOL : KILN_RT_CALL_OP_SYMBOL;
    auto callee = LLVM::lookupOrCreateFn(rw, module, entry, {ptr, i64, ptr, i64, ptr}, i32);
    if (failed(callee))
      return failure();
    Value name = globalString(op.getCallee());
    Value rc = LLVM::CallOp::create(rw, loc, *callee,
                                    ValueRange{name, i64c(nargs), args, i64c(nres), results})
                   .getResult();
    SmallVector<Value> loaded;
    for (auto [slot, ty] : llvm::zip(resultSlots, resultDescTypes))
      loaded.push_back(LLVM::LoadOp::create(rw, loc, ty, slot));

    // On failure, return from the function with null result buffers.
    Block *before = rw.getInsertionBlock();
    Block *after = rw.splitBlock(before, rw.getInsertionPoint());
    Block *failBlock = rw.createBlock(after);
    Type fnResult = func.getFunctionType().getReturnType();
    if (isa<LLVM::LLVMVoidType>(fnResult))
      LLVM::ReturnOp::create(rw, loc, ValueRange{});
    else
      LLVM::ReturnOp::create(rw, loc, ValueRange{LLVM::ZeroOp::create(rw, loc, fnResult)});
    rw.setInsertionPointToEnd(before);
    Value zero = LLVM::ConstantOp::create(rw, loc, i32, rw.getI32IntegerAttr(0));
    Value ok = LLVM::ICmpOp::create(rw, loc, LLVM::ICmpPredicate::eq, rc, zero);
    LLVM::CondBrOp::create(rw, loc, ok, after, failBlock);
    rw.setInsertionPointToStart(after);
    rw.replaceOp(op, loaded);
    return success();
  }
};

struct LowerRuntimeCallsPass : kiln::impl::LowerRuntimeCallsBase<LowerRuntimeCallsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<CallRuntimeLowering>(converter);
    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect>();
    target.addIllegalOp<CallRuntimeOp>();
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
