//===- GraphPicture.cpp - DOT pictures of a program and its kernels -------===//
#include "kiln/Compiler/GraphPicture.h"

#include "ATen/IR/AttrNames.h"
#include "ATen/IR/NodeNames.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace kiln {
namespace {

/// The program node names a location carries: NameLocs, through the FusedLocs
/// and call sites that rewriting builds.
void namesOf(Location loc, std::set<std::string> &out) {
  if (auto n = dyn_cast<NameLoc>(loc)) {
    out.insert(aten::programNodeName(n.getName().strref()).str());
    return;
  }
  if (auto f = dyn_cast<FusedLoc>(loc)) {
    for (Location l : f.getLocations())
      namesOf(l, out);
    return;
  }
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    namesOf(c.getCallee(), out);
}

std::string userLine(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    loc = n.getChildLoc();
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return llvm::sys::path::filename(f.getFilename().strref()).str() + ":" + std::to_string(f.getLine());
  return "";
}

std::string shapeOf(Type t) {
  auto ty = dyn_cast<RankedTensorType>(t);
  if (!ty)
    return "";
  std::string s;
  llvm::raw_string_ostream os(s);
  for (auto [i, d] : llvm::enumerate(ty.getShape()))
    os << (i ? "x" : "") << (ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d));
  if (ty.getRank() == 0)
    os << "scalar";
  os << " ";
  ty.getElementType().print(os);
  return s;
}

std::string escape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

/// Ops that only describe a value (constants, size queries) are drawn as
/// nothing: their users read them as attributes would.
bool isPlumbing(Operation *op) {
  StringRef d = op->getDialect() ? op->getDialect()->getNamespace() : "";
  return d == "arith" || d == "tensor" || op->getName().getStringRef() == "aten.sym_size_int";
}

class KernelRecorder : public PassInstrumentation {
public:
  KernelRecorder(ProgramPicture &p, std::string entry) : picture(p), entry(std::move(entry)) {}

  void runAfterPass(Pass *pass, Operation *op) override {
    StringRef arg = pass->getArgument();
    if (arg == "kiln-fuse-elementwise") {
      auto fn = dyn_cast<func::FuncOp>(op);
      if (!fn || fn.getName() != entry)
        return;
      picture.kernels.clear();
      for (Operation &o : fn.getBody().front()) {
        if (!o.getDialect() || o.getDialect()->getNamespace() != "linalg")
          continue;
        std::set<std::string> names;
        namesOf(o.getLoc(), names);
        if (!names.empty())
          picture.kernels.push_back(std::move(names));
      }
    } else if (arg == "kiln-cpu-library-calls" || arg == "kiln-gpu-library-calls") {
      op->walk([&](func::CallOp call) {
        StringRef callee = call.getCallee();
        if (callee.starts_with("kiln_cpu_") || callee.starts_with("kiln_gpu_"))
          namesOf(call.getLoc(), picture.libraryCalls);
      });
    }
  }

private:
  ProgramPicture &picture;
  std::string entry;
};

} // namespace

ProgramPicture readProgram(func::FuncOp fn) {
  ProgramPicture p;
  llvm::DenseMap<Value, int> source; // value -> node index or -1 - input
  for (BlockArgument arg : fn.getArguments()) {
    auto kind = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attrs::kKind);
    if (kind && kind.getValue() != "input")
      continue; // weights: too many to draw, and never where a bug starts
    auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attrs::kName);
    source[arg] = -1 - static_cast<int>(p.inputs.size());
    p.inputs.push_back((name ? name.getValue().str() : "input" + std::to_string(arg.getArgNumber())) +
                       "\n" + shapeOf(arg.getType()));
  }
  fn.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == fn.getOperation())
      return WalkResult::advance();
    if (isa<func::ReturnOp>(op)) {
      for (auto [i, v] : llvm::enumerate(op->getOperands())) {
        auto it = source.find(v);
        auto name = fn.getResultAttrOfType<StringAttr>(i, attrs::kName);
        if (it != source.end() && it->second >= 0)
          p.outputs.push_back({it->second, name ? name.getValue().str() : "output" + std::to_string(i)});
      }
      return WalkResult::advance();
    }
    if (isPlumbing(op)) {
      // Values computed from one node's results stay that node's.
      for (Value r : op->getResults())
        for (Value in : op->getOperands())
          if (auto it = source.find(in); it != source.end()) {
            source[r] = it->second;
            break;
          }
      return WalkResult::skip();
    }
    int id = static_cast<int>(p.nodes.size());
    ProgramPicture::Node node;
    node.op = op->getName().getStringRef().str();
    std::set<std::string> names;
    namesOf(op->getLoc(), names);
    node.name = names.empty() ? "" : *names.begin();
    node.line = userLine(op->getLoc());
    node.runtime = node.op == "aten.call_runtime";
    p.nodes.push_back(node);
    std::set<std::pair<int, std::string>> seen;
    for (Value in : op->getOperands()) {
      auto it = source.find(in);
      if (it == source.end())
        continue;
      std::string label = shapeOf(in.getType());
      if (seen.insert({it->second, label}).second)
        p.edges.push_back({it->second, id, label});
    }
    for (Value r : op->getResults())
      source[r] = id;
    // Loop bodies (an RNN's scf.for) belong to their op.
    return WalkResult::skip();
  });
  return p;
}

std::unique_ptr<PassInstrumentation> recordKernels(ProgramPicture &picture, std::string entry) {
  return std::make_unique<KernelRecorder>(picture, std::move(entry));
}

void writeDot(const ProgramPicture &p, llvm::raw_ostream &os, size_t maxNodes) {
  // Each node's kernel: the first kernel that names it. Views and other ops
  // no kernel names are drawn apart.
  // A node lowered to several kernels (a convolution's padding, then the
  // convolution) is drawn in the one that computes the most nodes, the later
  // one on ties: where its main work ended up.
  std::map<std::string, int> kernelOf;
  for (auto [k, names] : llvm::enumerate(p.kernels))
    for (const std::string &n : names) {
      auto [it, added] = kernelOf.emplace(n, static_cast<int>(k));
      if (!added && p.kernels[it->second].size() <= names.size())
        it->second = static_cast<int>(k);
    }
  // Kernels are numbered as drawn, in program order of their first node.
  std::map<int, int> number;
  for (auto &n : p.nodes)
    if (auto it = kernelOf.find(n.name); it != kernelOf.end())
      number.emplace(it->second, static_cast<int>(number.size()));
  auto kernelOfNode = [&](int i) {
    auto it = kernelOf.find(p.nodes[i].name);
    return it == kernelOf.end() ? -1 : number[it->second];
  };
  auto fill = [&](const ProgramPicture::Node &n) -> StringRef {
    if (n.runtime)
      return "#f6c28b"; // the runtime's dispatcher: eager kernels, plugins
    if (p.libraryCalls.count(n.name))
      return "#9ecae1"; // a library call
    return "white";
  };
  const bool collapse = p.nodes.size() > maxNodes;

  os << "digraph kiln {\n"
     << "  rankdir=TB; newrank=true;\n"
     << "  node [shape=box, style=\"rounded,filled\", fillcolor=white, fontname=Helvetica, fontsize=10];\n"
     << "  edge [fontname=Helvetica, fontsize=8, color=\"#555555\"];\n"
     << "  legend [shape=note, fillcolor=\"#ffffe0\", label=\"kiln: " << p.nodes.size() << " nodes, "
     << number.size() << " kernels\\lgrey box: one kernel (fused ops)\\lblue: library call\\l"
     << "orange: runtime dispatcher (eager)\\l" << (collapse ? "one box per kernel (large program)\\l" : "")
     << "\"];\n";
  for (auto [i, in] : llvm::enumerate(p.inputs))
    os << "  in" << i << " [shape=ellipse, fillcolor=\"#e5f5e0\", label=\"" << escape(in) << "\"];\n";

  // Node id as drawn: in collapsed mode, a kernel's nodes share one box.
  auto drawnId = [&](int i) -> std::string {
    if (i < 0)
      return "in" + std::to_string(-1 - i);
    int k = kernelOfNode(i);
    if (collapse && k >= 0)
      return "k" + std::to_string(k);
    return "n" + std::to_string(i);
  };

  if (collapse) {
    std::map<int, std::vector<int>> members;
    for (size_t i = 0; i < p.nodes.size(); ++i)
      members[kernelOfNode(i)].push_back(i);
    for (auto &[k, nodes] : members) {
      if (k < 0)
        continue;
      // The ops in program order, each with its count.
      std::vector<std::pair<std::string, int>> ops;
      bool library = false;
      for (int i : nodes) {
        auto it = llvm::find_if(ops, [&](auto &o) { return o.first == p.nodes[i].op; });
        if (it == ops.end())
          ops.push_back({p.nodes[i].op, 1});
        else
          ++it->second;
        library |= p.libraryCalls.count(p.nodes[i].name) > 0;
      }
      std::string label = "kernel " + std::to_string(k);
      for (auto &[op, n] : ops)
        label += "\n" + op + (n > 1 ? " x" + std::to_string(n) : "");
      label += "\n" + p.nodes[nodes.front()].line;
      os << "  k" << k << " [label=\"" << escape(label) << "\", fillcolor=\""
         << (library ? "#9ecae1" : "#eeeeee") << "\"];\n";
    }
  }
  std::map<int, std::vector<int>> clusters;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    int k = kernelOfNode(i);
    if (collapse && k >= 0)
      continue;
    const auto &n = p.nodes[i];
    if (k >= 0) {
      clusters[k].push_back(i);
      continue;
    }
    os << "  n" << i << " [label=\"" << escape(n.op) << "\\n" << escape(n.name)
       << (n.line.empty() ? "" : "\\n" + escape(n.line)) << "\", fillcolor=\"" << fill(n) << "\"];\n";
  }
  for (auto &[k, nodes] : clusters) {
    os << "  subgraph cluster_k" << k << " {\n    label=\"kernel " << k
       << "\"; fontsize=9; style=\"rounded,filled\"; fillcolor=\"#eeeeee\"; color=\"#999999\";\n";
    for (int i : nodes) {
      const auto &n = p.nodes[i];
      os << "    n" << i << " [label=\"" << escape(n.op) << "\\n" << escape(n.name)
         << (n.line.empty() ? "" : "\\n" + escape(n.line)) << "\", fillcolor=\"" << fill(n) << "\"];\n";
    }
    os << "  }\n";
  }
  std::set<std::tuple<std::string, std::string, std::string>> drawn;
  for (const auto &e : p.edges) {
    std::string from = drawnId(e.from), to = drawnId(e.to);
    if (from == to || !drawn.insert({from, to, e.label}).second)
      continue;
    os << "  " << from << " -> " << to << " [label=\"" << escape(e.label) << "\"];\n";
  }
  for (auto [i, out] : llvm::enumerate(p.outputs)) {
    os << "  out" << i << " [shape=ellipse, fillcolor=\"#fee0d2\", label=\"" << escape(out.second) << "\"];\n";
    os << "  " << drawnId(out.first) << " -> out" << i << ";\n";
  }
  os << "}\n";
}

} // namespace kiln
