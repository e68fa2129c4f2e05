//===- Facts.cpp - Derived facts shown by hover and inlay hints -----------===//
#include "lsp/features/Facts.h"

#include "lsp/features/Query.h"

#include "compiler/sema/Facts.h"
#include "compiler/sema/Ops.h"
#include "compiler/syntax/Printer.h"

#include <cstdio>

namespace cake::lsp {

using namespace syntax;

std::string formatBytes(int64_t bytes) {
  constexpr int64_t KiB = 1024, MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % MiB == 0)
    return std::to_string(bytes / MiB) + " MiB";
  if (bytes >= KiB && bytes % KiB == 0)
    return std::to_string(bytes / KiB) + " KiB";
  if (bytes < KiB)
    return std::to_string(bytes) + " B";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f KiB", static_cast<double>(bytes) / KiB);
  return buffer;
}

std::string withCommas(int64_t value) {
  std::string digits = std::to_string(value < 0 ? -value : value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0)
      out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::optional<int64_t> ringBytes(const sema::Ring &ring) {
  auto stage = ring.stageBytes();
  if (!stage || !ring.stages)
    return std::nullopt;
  return *stage * *ring.stages;
}

std::string ringSummary(const sema::Ring &ring) {
  auto stage = ring.stageBytes();
  auto total = ringBytes(ring);
  if (!stage || !total)
    return "";
  return std::to_string(*ring.stages) + " x " + formatBytes(*stage) + " = " + formatBytes(*total);
}

//===-- The kernel ledger ---------------------------------------------------===//

namespace {

/// Rings keep full and empty mbarriers per stage, except same-role rings
/// filled by cp.async, which use cp.async groups (language reference 8.3).
int64_t ringBarriers(const sema::Ring &ring, const sema::Kernel &k) {
  return ring.stages && sema::ringUsesBarriers(ring, k) ? 2 * *ring.stages : 0;
}

void sharedMemory(const sema::Kernel &k, Ledger &out) {
  int64_t total = 0, barriers = 0;
  bool known = true;
  for (const sema::Ring &r : k.rings) {
    auto bytes = ringBytes(r);
    std::string how = bytes ? std::to_string(*r.stages) + " x " + formatBytes(*r.stageBytes()) : "size unknown";
    out.smem.push_back({"ring " + r.name, how, bytes});
    known &= bytes.has_value();
    total += bytes.value_or(0);
    barriers += ringBarriers(r, k);
  }
  for (const sema::Buffer &b : k.buffers) {
    if (b.type.space != sema::Space::Shared)
      continue;
    auto bytes = b.type.bytes();
    out.smem.push_back({"var " + b.name, b.type.syntax ? print(*b.type.syntax) : "", bytes});
    known &= bytes.has_value();
    total += bytes.value_or(0);
  }
  if (barriers) {
    int64_t each = k.desc->mbarrierBytes;
    out.smem.push_back(
        {"ring barriers", std::to_string(barriers) + " x " + std::to_string(each) + " B", barriers * each});
    total += barriers * each;
  }
  // The total is the lowering's layout (sema/Facts.h), what the launch asks
  // for: the lines above plus the alignment padding and the base slack.
  sema::SmemLayout layout = sema::layoutSmem(k);
  if (known && layout.known) {
    int64_t dynamic = layout.dynamicBytes();
    out.smem.push_back({"alignment", "padding, 1 KiB to align the base", dynamic - total});
    out.smemTotal = dynamic;
  }
  out.smemCapacity = k.desc->smemPerBlock / out.occupancy;
}

void registers(const sema::Kernel &k, Ledger &out) {
  int64_t total = 0;
  bool known = true;
  for (const sema::Role &r : k.roles) {
    RegLine line{r.name, std::nullopt, r.regs, !r.regs};
    if (auto warps = r.warps())
      line.threads = *warps * k.desc->warpSize;
    if (!line.regs)
      line.regs = k.launchRegisterShare();
    known &= line.threads && line.regs;
    if (line.threads && line.regs)
      total += *line.threads * *line.regs;
    out.regs.push_back(line);
  }
  if (known)
    out.regTotal = total;
  out.regCapacity = k.desc->registersPerSm / out.occupancy;
}

} // namespace

Ledger ledger(const sema::Kernel &k) {
  Ledger out;
  out.desc = k.desc;
  out.occupancy = k.residentCtas();
  out.threads = k.block;
  sharedMemory(k, out);
  registers(k, out);
  return out;
}

//===-- Expect-tx of a commit -----------------------------------------------===//

std::optional<int64_t> commitBytes(const Expr &commit, const sema::Kernel &kernel) {
  return sema::commitTxBytes(commit, kernel);
}

std::string describeType(const TypeExpr &t, const sema::ConstEnv &env) {
  sema::Type type;
  type.elem = sema::parseElem(t.elem.name);
  for (const ExprPtr &d : t.dims)
    type.dims.push_back({sema::evalInt(*d, env), "", d.get()});
  std::vector<std::string> parts;
  parts.push_back(t.space ? "memory space `" + t.space->name + "`" : "a scalar of each thread");
  if (type.elem)
    parts.push_back("element `" + t.elem.name + "` (" + std::to_string(sema::elemBytes(*type.elem)) + " B)");
  if (t.hasShape) {
    std::string shape;
    for (size_t i = 0; i < t.dims.size(); ++i)
      shape += (i ? ", " : "") + print(*t.dims[i]);
    parts.push_back("shape `[" + shape + "]`");
  }
  bool sized = !t.space || (t.space->name != "global" && t.space->name != "param");
  if (auto bytes = type.bytes(); bytes && sized && t.hasShape)
    parts.push_back(formatBytes(*bytes) + (*bytes >= 1024 ? " (" + withCommas(*bytes) + " B)" : ""));
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? " · " : "") + parts[i];
  return out;
}

} // namespace cake::lsp
