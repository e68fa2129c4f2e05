//===- CodeLens.cpp - textDocument/codeLens -------------------------------===//
//
// Above each kernel (at its name): "▶ run" (cake.run with the kernel named,
// arguments [uri, {"kernel": name}]) and "compile" (cake.compile,
// arguments [uri]), the server's own commands (Commands.cpp); and, when the
// cost model prices the kernel (lsp/features/Cost.h, as the kernel's hover
// does), its estimate ("cost ≈ 2.31 ms, dram bound"), whose command
// cake.cost shows the estimate with its floor and sizes (a lens without a
// command is not valid LSP: Command.command is required, and VS Code ran
// the empty command on a click). Kernels are read from the parse, so
// the lenses stay while the file is being typed; the estimate needs the
// model.
//
//===----------------------------------------------------------------------===//
#include "lsp/features/Cost.h"
#include "lsp/features/Query.h"

namespace cake::lsp {

using namespace syntax;

std::vector<CodeLens> codeLenses(State &state, const std::string &uri) {
  auto analysis = state.docs.analyze(uri, state.check);
  const Analysis &a = *analysis;
  LineMap lines(a.text(), state.caps.encoding);
  std::vector<CodeLens> out;
  for (const StmtPtr &s : a.result.module.items.stmts) {
    auto *k = dyn_cast<KernelDecl>(s.get());
    if (!k || k->name.name.empty())
      continue;
    Range at = lines.range(k->name.range);
    out.push_back({at, {"\u25B6 run", "cake.run", uri, k->name.name}});
    out.push_back({at, {"compile", "cake.compile", uri, ""}});
    const sema::Kernel *model = a.model() ? modelKernel(*a.model(), k) : nullptr;
    if (!model)
      continue;
    KernelCost c = kernelCost(a, *model);
    if (!c.estimate.seconds)
      continue;
    out.push_back({at,
                   {"cost \u2248 " + formatSeconds(*c.estimate.seconds) + ", " +
                        std::string(cost::bottleneckName(c.estimate.bottleneck)) + " bound (" + c.sizesNote + ")",
                    "cake.cost", uri, k->name.name}});
  }
  return out;
}

} // namespace cake::lsp
