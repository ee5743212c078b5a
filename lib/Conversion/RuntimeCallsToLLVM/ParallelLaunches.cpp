//===- ParallelLaunches.cpp - parallel loop launches to kiln_cpu_parallel_for ===//
#include "kiln/Conversion/Passes.h"
#include "kiln/Transforms/ParallelLaunch.h"

#include "llvm/ADT/StringSet.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/SymbolTable.h"

#include "kiln/abi/cpu_parallel.h"

namespace kiln {
#define GEN_PASS_DEF_LOWERPARALLELLAUNCHES
#include "kiln/Conversion/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace {

struct LowerParallelLaunchesPass : kiln::impl::LowerParallelLaunchesBase<LowerParallelLaunchesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    Type ptr = LLVM::LLVMPointerType::get(ctx);
    Type i64 = IntegerType::get(ctx, 64);
    Type voidTy = LLVM::LLVMVoidType::get(ctx);

    SmallVector<LLVM::LLVMFuncOp> launches;
    llvm::StringSet<> bodies;
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>())
      if (fn->hasAttr(kiln::kParallelBodyAttr)) {
        launches.push_back(fn);
        if (auto ref = dyn_cast<FlatSymbolRefAttr>(fn->getAttr(kiln::kParallelBodyAttr)))
          bodies.insert(ref.getValue());
      }
    // A serial loop's function (kiln-outline-parallel-loops): its noalias
    // arguments, by the same positions, without chunk bounds after them.
    for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
      if (!fn->hasAttr(kiln::kSerialLoopAttr))
        continue;
      fn.setLinkageAttr(LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
      fn->removeAttr(kiln::kSerialLoopAttr);
      fn->removeAttr(SymbolTable::getVisibilityAttrName());
      auto noAlias = fn->getAttrOfType<DenseI64ArrayAttr>(kiln::kParallelNoAliasAttr);
      if (!noAlias || bodies.contains(fn.getSymName()))
        continue;
      LLVM::LLVMFunctionType ty = fn.getFunctionType();
      for (int64_t i : noAlias.asArrayRef()) {
        if (i < 0 || i >= (int64_t)ty.getNumParams() || !isa<LLVM::LLVMPointerType>(ty.getParams()[i])) {
          fn.emitOpError() << "marks argument " << i << " noalias, which is not a captured pointer";
          return signalPassFailure();
        }
        fn.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
      }
      fn->removeAttr(kiln::kParallelNoAliasAttr);
    }
    if (launches.empty())
      return;

    OpBuilder mb(ctx);
    auto runtimeFn = symbols.lookup<LLVM::LLVMFuncOp>(KILN_SYM_PARALLEL_FOR);
    if (!runtimeFn) {
      mb.setInsertionPointToEnd(module.getBody());
      runtimeFn = LLVM::LLVMFuncOp::create(mb, module.getLoc(), KILN_SYM_PARALLEL_FOR,
                                           LLVM::LLVMFunctionType::get(voidTy, {ptr, ptr, i64, i64}));
      symbols.insert(runtimeFn);
    }

    // The calls of every launch, found in one walk.
    llvm::StringMap<SmallVector<LLVM::CallOp>> callsOf;
    for (LLVM::LLVMFuncOp launch : launches)
      callsOf[launch.getSymName()];
    module.walk([&](LLVM::CallOp call) {
      if (std::optional<StringRef> callee = call.getCallee())
        if (auto it = callsOf.find(*callee); it != callsOf.end())
          it->second.push_back(call);
    });

    for (LLVM::LLVMFuncOp launch : launches) {
      auto bodyRef = dyn_cast<FlatSymbolRefAttr>(launch->getAttr(kiln::kParallelBodyAttr));
      auto body = bodyRef ? symbols.lookup<LLVM::LLVMFuncOp>(bodyRef.getValue()) : nullptr;
      if (!body || body.isExternal()) {
        launch.emitOpError() << "names a parallel body that is not a defined llvm.func";
        return signalPassFailure();
      }
      LLVM::LLVMFunctionType launchTy = launch.getFunctionType(), bodyTy = body.getFunctionType();
      // body(captures..., lo, hi), launch(n, grain, captures...).
      if (launchTy.getNumParams() < 2 || bodyTy.getNumParams() != launchTy.getNumParams() ||
          bodyTy.getParams().drop_back(2) != launchTy.getParams().drop_front(2) ||
          !isa<LLVM::LLVMVoidType>(bodyTy.getReturnType())) {
        launch.emitOpError() << "does not match its parallel body @" << body.getSymName();
        return signalPassFailure();
      }
      body.setLinkageAttr(LLVM::LinkageAttr::get(ctx, LLVM::Linkage::Internal));
      if (auto noAlias = body->getAttrOfType<DenseI64ArrayAttr>(kiln::kParallelNoAliasAttr)) {
        for (int64_t i : noAlias.asArrayRef()) {
          if (i < 0 || i >= (int64_t)bodyTy.getNumParams() - 2 ||
              !isa<LLVM::LLVMPointerType>(bodyTy.getParams()[i])) {
            body.emitOpError() << "marks argument " << i << " noalias, which is not a captured pointer";
            return signalPassFailure();
          }
          body.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
        }
        body->removeAttr(kiln::kParallelNoAliasAttr);
      }
      body->removeAttr(SymbolTable::getVisibilityAttrName());
      ArrayRef<Type> captureTypes = launchTy.getParams().drop_front(2);
      Location loc = body.getLoc();
      auto ctxTy = LLVM::LLVMStructType::getLiteral(ctx, captureTypes);

      // chunk(ctx, lo, hi): load the captures back and call the body.
      mb.setInsertionPointAfter(body);
      auto chunk = LLVM::LLVMFuncOp::create(mb, loc, (body.getSymName() + "_chunk").str(),
                                            LLVM::LLVMFunctionType::get(voidTy, {ptr, i64, i64}),
                                            LLVM::Linkage::Internal);
      symbols.insert(chunk);
      {
        Block *entry = chunk.addEntryBlock(mb);
        OpBuilder b = OpBuilder::atBlockBegin(entry);
        SmallVector<Value> args;
        for (auto [i, t] : llvm::enumerate(captureTypes)) {
          Value field = LLVM::GEPOp::create(b, loc, ptr, ctxTy, entry->getArgument(0),
                                            ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
          args.push_back(LLVM::LoadOp::create(b, loc, t, field));
        }
        args.push_back(entry->getArgument(1));
        args.push_back(entry->getArgument(2));
        LLVM::CallOp::create(b, loc, body, args);
        LLVM::ReturnOp::create(b, loc, ValueRange{});
      }

      // Each launch: captures into a stack struct, then the runtime call.
      SmallVector<LLVM::CallOp> &calls = callsOf[launch.getSymName()];
      for (LLVM::CallOp call : calls) {
        auto caller = call->getParentOfType<LLVM::LLVMFuncOp>();
        Location cl = call.getLoc();
        Value slot;
        {
          // In the entry block, so a launch inside a loop does not grow the stack.
          OpBuilder eb = OpBuilder::atBlockBegin(&caller.getBody().front());
          Value one = LLVM::ConstantOp::create(eb, cl, i64, eb.getI64IntegerAttr(1));
          slot = LLVM::AllocaOp::create(eb, cl, ptr, ctxTy, one, /*alignment=*/16);
        }
        OpBuilder b(call);
        ValueRange operands = call.getArgOperands();
        for (auto [i, v] : llvm::enumerate(operands.drop_front(2))) {
          Value field = LLVM::GEPOp::create(b, cl, ptr, ctxTy, slot, ArrayRef<LLVM::GEPArg>{0, (int32_t)i});
          LLVM::StoreOp::create(b, cl, v, field);
        }
        Value fnPtr = LLVM::AddressOfOp::create(b, cl, ptr, chunk.getSymName());
        LLVM::CallOp::create(b, cl, runtimeFn, ValueRange{fnPtr, slot, operands[0], operands[1]});
        call.erase();
      }
      symbols.erase(launch);
    }
  }
};
} // namespace
