//===- GPUDeviceBuffers.cpp - buffers that kernels touch live on the device -===//
#include "kiln/Transforms/Passes.h"
#include "BufferRoots.h"
#include "ATen/IR/AttrNames.h"
#include "kiln/abi/gpu_calls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <algorithm>
#include <functional>

namespace kiln {
#define GEN_PASS_DEF_KILNGPUDEVICEBUFFERS
#include "kiln/Transforms/Passes.h.inc"
} // namespace kiln

using namespace mlir;
using kiln::rootBuffer;

namespace {

/// A constant the kernel can rematerialize: memref.get_global, or a view of
/// one whose other operands are constants.
bool isConstantBufferChain(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<memref::GetGlobalOp>(def))
    return true;
  auto view = dyn_cast<ViewLikeOpInterface>(def);
  if (!view || def->getNumResults() != 1)
    return false;
  for (Value operand : def->getOperands())
    if (operand != view.getViewSource() && !matchPattern(operand, m_Constant()))
      return false;
  return isConstantBufferChain(view.getViewSource());
}

/// The ops of `v`'s constant chain (isConstantBufferChain), from `v`'s
/// definition to the `memref.get_global` it views.
SmallVector<Operation *> constantChain(Value v) {
  SmallVector<Operation *> chain;
  for (Value cur = v; Operation *def = cur.getDefiningOp();) {
    chain.push_back(def);
    if (isa<memref::GetGlobalOp>(def))
      break;
    cur = cast<ViewLikeOpInterface>(def).getViewSource();
  }
  return chain;
}

/// Clones `v`'s constant chain at the start of `launch` and uses the clone
/// inside it.
void sinkConstantChain(gpu::LaunchOp launch, Value v) {
  SmallVector<Operation *> chain = constantChain(v);
  OpBuilder b = OpBuilder::atBlockBegin(&launch.getBody().front());
  IRMapping map;
  for (Operation *op : llvm::reverse(chain)) {
    for (Value operand : op->getOperands())
      if (!map.contains(operand) && operand.getDefiningOp() &&
          matchPattern(operand, m_Constant()))
        map.map(operand, b.clone(*operand.getDefiningOp())->getResult(0));
    b.clone(*op, map);
  }
  Value inside = map.lookup(v);
  v.replaceUsesWithIf(inside, [&](OpOperand &use) {
    return launch->isProperAncestor(use.getOwner());
  });
}

/// Kernels read a constant through a copy of its global that host code never
/// names (`<name>_kernel`, made once per global): a `memref.get_global` sunk
/// into a launch is otherwise identical to one the host keeps (a constant
/// that host control flow yields or passes to a runtime call), and CSE would
/// merge the two, handing the kernel the host global's address.
void useKernelGlobals(func::FuncOp func, llvm::DenseMap<StringAttr, StringAttr> &kernelCopies) {
  // Host constant chains left without uses (their kernels rematerialized them) go first.
  for (bool erased = true; erased;) {
    erased = false;
    SmallVector<Operation *> dead;
    func.walk([&](Operation *op) {
      if (op->use_empty() && !op->getParentOfType<gpu::LaunchOp>() && op->getNumResults() == 1 &&
          isConstantBufferChain(op->getResult(0)))
        dead.push_back(op);
    });
    for (Operation *op : dead)
      op->erase();
    erased = !dead.empty();
  }
  llvm::DenseSet<StringAttr> onHost;
  SmallVector<memref::GetGlobalOp> inKernels;
  func.walk([&](memref::GetGlobalOp g) {
    if (g->getParentOfType<gpu::LaunchOp>())
      inKernels.push_back(g);
    else
      onHost.insert(g.getNameAttr().getAttr());
  });
  auto module = func->getParentOfType<ModuleOp>();
  SymbolTable symbols(module);
  for (memref::GetGlobalOp g : inKernels) {
    StringAttr name = g.getNameAttr().getAttr();
    if (!onHost.contains(name))
      continue;
    StringAttr &copy = kernelCopies[name];
    if (!copy) {
      auto global = symbols.lookup<memref::GlobalOp>(name);
      if (!global)
        continue;
      OpBuilder b(global);
      b.setInsertionPointAfter(global);
      auto clone = cast<memref::GlobalOp>(b.clone(*global));
      clone.setSymName((name.getValue() + "_kernel").str());
      clone.setPrivate();
      copy = symbols.insert(clone); // renamed if the name is taken
    }
    g.setNameAttr(FlatSymbolRefAttr::get(copy));
  }
}

/// A constant (a host `memref.get_global`, or a view of one) that a runtime
/// call on device buffers takes is copied into a device buffer just before
/// the call, by a kernel that reads the global from inside (so from the GPU
/// module's copy), and freed after it: the call reads its operands as device
/// memory.
void copyConstantOperands(Operation *call) {
  for (OpOperand &operand : call->getOpOperands()) {
    Value v = operand.get();
    if (!isa<MemRefType>(v.getType()) || !isConstantBufferChain(v))
      continue;
    SmallVector<Operation *> chain = constantChain(v);
    auto global = cast<memref::GetGlobalOp>(chain.back());
    auto type = cast<MemRefType>(global.getType());
    if (!type.hasStaticShape())
      continue;
    OpBuilder b(call);
    Location loc = call->getLoc();
    auto cst = [&](int64_t n) { return arith::ConstantIndexOp::create(b, loc, n).getResult(); };
    Value copy = memref::AllocOp::create(b, loc, type); // a device buffer: the call takes it
    constexpr int64_t kThreads = 256;
    int64_t n = type.getNumElements();
    Value c1 = cst(1);
    auto launch = gpu::LaunchOp::create(b, loc, cst(std::max<int64_t>(1, (n + kThreads - 1) / kThreads)), c1, c1,
                                        cst(kThreads), c1, c1);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&launch.getBody().front());
      Value i = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, cst(kThreads)),
                                      launch.getThreadIds().x);
      auto inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, cst(n));
      scf::IfOp::create(b, loc, inRange, [&](OpBuilder &tb, Location tl) {
        // Row-major indices of element i.
        SmallVector<Value> idx(type.getRank());
        Value rest = i;
        for (int64_t d = type.getRank() - 1; d >= 0; --d) {
          Value size = arith::ConstantIndexOp::create(tb, tl, type.getDimSize(d));
          idx[d] = arith::RemUIOp::create(tb, tl, rest, size);
          rest = arith::DivUIOp::create(tb, tl, rest, size);
        }
        Value src = tb.clone(*global)->getResult(0);
        Value x = memref::LoadOp::create(tb, tl, src, idx);
        memref::StoreOp::create(tb, tl, x, copy, idx);
        scf::YieldOp::create(tb, tl);
      });
      gpu::TerminatorOp::create(b, loc);
    }
    IRMapping map;
    map.map(global.getResult(), copy);
    for (Operation *op : llvm::reverse(ArrayRef(chain).drop_back()))
      b.clone(*op, map);
    operand.set(map.lookup(v));
    b.setInsertionPointAfter(call);
    memref::DeallocOp::create(b, loc, copy);
  }
}

/// A call of a runtime function that works on device buffers in stream
/// order (declared with `kiln.device_call`).
bool isDeviceCall(func::CallOp call) {
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, call.getCalleeAttr());
  return callee && callee->hasAttr(kiln::attrs::kDeviceCall);
}

/// An op the runtime's dispatcher runs on the host (`aten.call_runtime` on
/// buffers). On the GPU path its operands and results are device buffers:
/// the runtime's kiln_rt_call_op_device copies them across around the call.
/// Matched by name: this pass stays free of kiln's ATen dialect.
bool isHostRuntimeCall(Operation *op) { return op->getName().getStringRef() == "aten.call_runtime"; }

/// The runtime entry that copies device memory to the host in stream order
/// (kiln/abi/gpu_calls.h): (host address, device address, bytes).
func::FuncOp readToHostCallee(ModuleOp module) {
  if (auto f = module.lookupSymbol<func::FuncOp>(KILN_GPU_READ_TO_HOST))
    return f;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  Type idx = mb.getIndexType();
  auto callee = func::FuncOp::create(mb, module.getLoc(), KILN_GPU_READ_TO_HOST,
                                     mb.getFunctionType({idx, idx, idx}, {}));
  callee.setPrivate();
  callee->setAttr("llvm.emit_c_interface", mb.getUnitAttr());
  return callee;
}

/// A host read of one element of a device buffer (a value the kernels
/// computed that host control flow needs: `.item()`, `.tolist()` split
/// sizes, a data-dependent loop bound) becomes a copy of that element into a
/// host scalar through the runtime, then a load of the scalar. The copy
/// waits for the kernels queued before it.
void readThroughHost(memref::LoadOp load, func::FuncOp callee, Value hostSlot, const DataLayout &layout) {
  OpBuilder b(load);
  Location loc = load.getLoc();
  Value src = load.getMemref();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, src);
  Value linear = meta.getOffset();
  for (auto [i, index] : llvm::enumerate(load.getIndices()))
    linear = arith::AddIOp::create(b, loc, linear,
                                   arith::MulIOp::create(b, loc, index, meta.getStrides()[i]));
  Type elem = load.getMemRefType().getElementType();
  int64_t bytes = layout.getTypeSize(elem).getFixedValue();
  Value size = arith::ConstantIndexOp::create(b, loc, bytes);
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, src);
  Value address = arith::AddIOp::create(b, loc, base, arith::MulIOp::create(b, loc, linear, size));
  Value host = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, hostSlot);
  func::CallOp::create(b, loc, callee, ValueRange{host, address, size});
  Value value = memref::LoadOp::create(b, loc, hostSlot, ValueRange{});
  load.replaceAllUsesWith(value);
  load.erase();
}

struct KilnGPUDeviceBuffersPass
    : kiln::impl::KilnGPUDeviceBuffersBase<KilnGPUDeviceBuffersPass> {
  LogicalResult runOnFunction(func::FuncOp func) {
    // 1. Constants used by kernels are rematerialized inside them.
    func.walk([&](gpu::LaunchOp launch) {
      llvm::SetVector<Value> captured;
      launch.getBody().walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (isa<MemRefType>(operand.getType()) &&
              !launch.getBody().isAncestor(operand.getParentRegion()))
            captured.insert(operand);
      });
      for (Value v : captured)
        if (isConstantBufferChain(v))
          sinkConstantChain(launch, v);
    });
    // Constants that runtime calls on device buffers take get device copies.
    SmallVector<Operation *> calls;
    func.walk([&](Operation *op) {
      auto call = dyn_cast<func::CallOp>(op);
      if ((call && isDeviceCall(call)) || isHostRuntimeCall(op))
        calls.push_back(op);
    });
    for (Operation *call : calls)
      copyConstantOperands(call);
    useKernelGlobals(func, kernelCopies);

    // 2. Buffers a kernel or the caller sees live in device memory.
    llvm::DenseSet<Value> device;
    for (BlockArgument arg : func.getArguments())
      if (isa<MemRefType>(arg.getType()))
        device.insert(arg);
    // A buffer chosen by host control flow (an scf.if / scf.for result, as
    // dynamic-shape broadcasts of index tensors lower) is each buffer its
    // regions may yield, and a loop's initial value. A loop-carried buffer
    // (the state of a recurrence over time: an RNN's hidden state) is one
    // buffer in four places: the initial value, the iteration argument, the
    // value the body yields and the loop's result.
    std::function<void(Value)> markCaptured = [&](Value v) {
      if (!isa<MemRefType>(v.getType()))
        return;
      Value root = rootBuffer(v);
      if (!device.insert(root).second)
        return;
      if (auto arg = dyn_cast<BlockArgument>(root)) {
        auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        if (loop && arg.getArgNumber() >= loop.getNumInductionVars())
          markCaptured(loop->getResult(arg.getArgNumber() - loop.getNumInductionVars()));
        return;
      }
      auto res = dyn_cast<OpResult>(root);
      if (!res || !isa<scf::IfOp, scf::ForOp>(res.getOwner()))
        return;
      for (Region &r : res.getOwner()->getRegions())
        for (Block &blk : r)
          if (auto yield = dyn_cast<scf::YieldOp>(blk.getTerminator()))
            markCaptured(yield.getOperand(res.getResultNumber()));
      if (auto loop = dyn_cast<scf::ForOp>(res.getOwner())) {
        markCaptured(loop.getInitArgs()[res.getResultNumber()]);
        markCaptured(loop.getRegionIterArgs()[res.getResultNumber()]);
      }
    };
    func.walk([&](gpu::LaunchOp launch) {
      launch.getBody().walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (!launch.getBody().isAncestor(operand.getParentRegion()))
            markCaptured(operand);
      });
    });
    func.walk([&](func::ReturnOp ret) {
      for (Value v : ret.getOperands())
        markCaptured(v);
    });
    func.walk([&](func::CallOp call) {
      if (isDeviceCall(call))
        for (Value v : call.getOperands())
          markCaptured(v);
    });
    func.walk([&](Operation *op) {
      if (!isHostRuntimeCall(op))
        return;
      op->setAttr(kiln::attrs::kDeviceCall, UnitAttr::get(op->getContext()));
      for (Value v : op->getOperands())
        markCaptured(v);
      for (Value v : op->getResults())
        markCaptured(v);
    });

    // A device buffer that starts a loop-carried value makes the whole
    // carried chain device memory (to a fixed point: loops nest).
    for (bool changed = true; changed;) {
      changed = false;
      func.walk([&](scf::ForOp loop) {
        for (auto [init, iter] : llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
          if (isa<MemRefType>(init.getType()) && device.contains(rootBuffer(init)) && !device.contains(iter)) {
            markCaptured(iter);
            changed = true;
          }
      });
    }

    // 3. Host reads of device memory go through the runtime, one element at
    // a time into a host scalar of the element type (one per type, at the
    // function's entry).
    SmallVector<memref::LoadOp> hostReads;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto load = dyn_cast<memref::LoadOp>(op); load && device.contains(rootBuffer(load.getMemref())))
        hostReads.push_back(load);
      return WalkResult::advance();
    });
    if (!hostReads.empty()) {
      auto module = func->getParentOfType<ModuleOp>();
      func::FuncOp callee = readToHostCallee(module);
      DataLayout layout = DataLayout::closest(func);
      llvm::DenseMap<Type, Value> slots;
      OpBuilder entry = OpBuilder::atBlockBegin(&func.getBody().front());
      for (memref::LoadOp load : hostReads) {
        Type elem = load.getMemRefType().getElementType();
        Value &slot = slots[elem];
        if (!slot)
          slot = memref::AllocaOp::create(entry, load.getLoc(), MemRefType::get({}, elem));
        readThroughHost(load, callee, slot, layout);
      }
    }

    // 4. Otherwise the host never reads or writes device memory: besides kernels, host
    // code may only take views, sizes and metadata of device buffers, free
    // them, return them and carry them through loops (scf.for iteration
    // arguments: a recurrence whose steps are kernels).
    WalkResult bad = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (isa<ViewLikeOpInterface, memref::DimOp, memref::ExtractStridedMetadataOp,
              memref::ExtractAlignedPointerAsIndexOp, memref::DeallocOp, memref::AllocOp,
              func::ReturnOp, scf::YieldOp, scf::ForOp>(op))
        return WalkResult::advance();
      if (auto call = dyn_cast<func::CallOp>(op); call && isDeviceCall(call))
        return WalkResult::advance();
      if (isHostRuntimeCall(op))
        return WalkResult::advance();
      for (Value operand : op->getOperands())
        if (isa<MemRefType>(operand.getType()) && device.contains(rootBuffer(operand))) {
          op->emitOpError("reads or writes a device buffer on the host: the GPU path runs "
                          "every computation in a kernel or a runtime call and cannot "
                          "compile this op for the GPU");
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (bad.wasInterrupted())
      return failure();

    // 5. Device allocations and deallocations (both found before rewriting).
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp a) {
      if (device.contains(a.getResult()))
        allocs.push_back(a);
    });
    SmallVector<memref::DeallocOp> deallocs;
    func.walk([&](memref::DeallocOp d) {
      if (device.contains(rootBuffer(d.getMemref())))
        deallocs.push_back(d);
    });
    IRRewriter rewriter(func.getContext());
    for (memref::AllocOp a : allocs) {
      rewriter.setInsertionPoint(a);
      rewriter.replaceOpWithNewOp<gpu::AllocOp>(a, a.getType(), /*asyncToken=*/Type(),
                                                /*asyncDependencies=*/ValueRange(),
                                                a.getDynamicSizes(), a.getSymbolOperands(),
                                                /*hostShared=*/false);
    }
    for (memref::DeallocOp d : deallocs) {
      rewriter.setInsertionPoint(d);
      rewriter.replaceOpWithNewOp<gpu::DeallocOp>(d, /*asyncToken=*/Type(), ValueRange(),
                                                  d.getMemref());
    }
    return success();
  }

  /// Each global's copy for kernels (useKernelGlobals), per module.
  llvm::DenseMap<StringAttr, StringAttr> kernelCopies;

  void runOnOperation() override {
    kernelCopies.clear();
    // Entry points and functions that launch kernels; private helpers with
    // no kernel (such as the deallocation helper) work on host memory.
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      bool launches = func.walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
                          .wasInterrupted();
      if (!func.isExternal() && (func.isPublic() || launches) && failed(runOnFunction(func)))
        return signalPassFailure();
    }
  }
};

} // namespace
