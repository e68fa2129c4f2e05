//===- Kernel.cpp - The kernel frame: signature, layout, prologue, roles ---===//
//
// Part of CAKE. Takes the shared-memory layout from sema (sema/Facts.h:
// barriers first, then ring stages and buffers at their swizzle repeat),
// writes the kernel's signature (tensor
// maps, pointers, size symbols, the hang record in watched builds), the
// prologue (barrier initialization by thread 0, fence.mbarrier_init, one CTA
// barrier) and the dispatch of warps to roles with their setmaxnreg.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

#include <cstdio>

#include "compiler/syntax/Walk.h"

#include <algorithm>

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

//===-- CudaWriter ---------------------------------------------------------------===//

std::string cStringBody(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void CudaWriter::at(SourceRange range) {
  if (!range.file.valid())
    return;
  uint32_t line = sm_.lineColumn(range.file, range.begin).line;
  if (line == irLine_)
    return;
  // The file name is the user's: escaped, so a quote or a newline in it
  // cannot end the string and inject a directive (issue #16).
  out_ << "#line " << line << " \"" << cStringBody(file_) << "\"\n";
  irLine_ = line;
}

void CudaWriter::line(const std::string &text) {
  out_ << std::string(size_t(2 * std::max(depth_, 0)), ' ') << text << "\n";
  if (irLine_)
    ++irLine_; // each emitted line advances the line the compiler attributes
}

//===-- Helpers --------------------------------------------------------------------===//

std::string_view cxxElem(Elem e) {
  switch (e) {
  case Elem::BF16:
  case Elem::FP16:
    return "u16";
  case Elem::FP32:
  case Elem::TF32:
    return "float";
  case Elem::I32:
    return "int";
  case Elem::U32:
    return "u32";
  case Elem::I64:
    return "long long";
  case Elem::I8:
  case Elem::E4M3:
  case Elem::E5M2:
    return "signed char";
  case Elem::U8:
    return "unsigned char";
  case Elem::Bool:
    return "bool";
  case Elem::Mbarrier:
    return "u64";
  }
  return "u32";
}

std::vector<int64_t> Val::viewShape() const {
  std::vector<int64_t> s;
  for (size_t i = 0; i < extent.size(); ++i)
    if (kept[i])
      s.push_back(extent[i]);
  return s;
}

void Lowerer::unsupported(SourceRange range, const std::string &what) {
  failed = true;
  // once per range and reason: an unrolled body, or a call evaluated ahead and then again per element,
  // meets the same form more than once
  if (reportedUnsupported.emplace(range.begin, range.end, what).second)
    sink.report("lower.unsupported", range, what + " has no lowering yet");
}

const Val *Lowerer::lookup(std::string_view name) const {
  for (auto it = scopes.rbegin(); it != scopes.rend(); ++it)
    if (auto f = it->find(name); f != it->end())
      return &f->second;
  return nullptr;
}

std::string Lowerer::barrierAddress(const RingLayout &r, bool full, const std::string &stage) const {
  return "(cake_smem + " + std::to_string(full ? r.full : r.empty) + "u + 8u * (" + stage + "))";
}

std::string Lowerer::waitSite(SourceRange range, const std::string &what) {
  out.waits.push_back(WaitSite{range, role ? role->role->name : "", what});
  return std::to_string(out.waits.size() - 1);
}

void Lowerer::waitParity(const std::string &bar, const std::string &parity, SourceRange range,
                         const std::string &what) {
  if (opts.boundedWaits)
    w.line("cake::rt::watched_wait(" + bar + ", " + parity + ", cake_hang, " + waitSite(range, what) + "u, " +
           std::to_string(uint64_t(opts.hangTimeoutMs) * 1000000ull) + "ull);");
  else
    w.line("cake::rt::mbarrier_wait_parity(" + bar + ", " + parity + ");");
}

int Lowerer::tensorMap(const Val &global, const Val &shared, SourceRange at) {
  TensorMapPlan plan;
  plan.param = global.param->name;
  plan.swizzle = shared.type->swizzle;
  // The box: in corner form the shared view's shape aligned to the trailing
  // dimensions of the parameter; in slice form the global view's extent on
  // each kept dimension and 1 on each indexed one. A swizzled tile is copied
  // one panel (swizzle bytes of the innermost dimension) at a time.
  std::vector<int64_t> box = shared.viewShape();
  size_t rank = global.param->type.dims.size();
  plan.box.assign(rank, 1);
  if (global.corner) {
    for (size_t i = 0; i < box.size() && i < rank; ++i)
      plan.box[rank - 1 - i] = uint32_t(box[box.size() - 1 - i]);
  } else {
    if (!global.kept[rank - 1]) {
      unsupported(at, "a TMA copy whose global view indexes the innermost dimension (the box's rows would not be "
                      "contiguous)");
      return 0;
    }
    for (size_t d = 0; d < rank; ++d)
      plan.box[d] = global.kept[d] ? uint32_t(global.extent[d]) : 1u;
  }
  if (plan.swizzle)
    plan.box[rank - 1] = std::min<uint32_t>(plan.box[rank - 1], plan.swizzle / elemBytes(*shared.type->elem));
  for (size_t i = 0; i < out.maps.size(); ++i)
    if (out.maps[i].param == plan.param && out.maps[i].box == plan.box && out.maps[i].swizzle == plan.swizzle)
      return int(i);
  out.maps.push_back(plan);
  return int(out.maps.size() - 1);
}

//===-- The kernel -----------------------------------------------------------------===//

void Lowerer::signature(CudaWriter &outer) {
  const KernelDecl &d = *k.decl;
  outer.at(d.range);
  outer.line("extern \"C\" __global__ void __launch_bounds__(" + std::to_string(out.block) + ", " +
             std::to_string(k.residentCtas()) + ") " + cxxName(out.name) + "(");
  std::vector<std::string> params;
  for (size_t i = 0; i < out.maps.size(); ++i) {
    params.push_back("    const __grid_constant__ CUtensorMap cake_tmap" + std::to_string(i));
    out.args.push_back(KernelArg{KernelArg::TensorMap, out.maps[i].param, i});
  }
  for (const Param &p : k.params) {
    std::string elem(cxxElem(p.type.elem.value_or(Elem::U8)));
    if (p.type.space == Space::Global) {
      params.push_back("    " + elem + " *__restrict__ " + cxxName(p.name));
      out.args.push_back(KernelArg{KernelArg::Pointer, p.name, 0});
    } else {
      params.push_back("    " + elem + " " + cxxName(p.name));
      out.args.push_back(KernelArg{KernelArg::Scalar, p.name, 0});
    }
  }
  for (const std::string &s : k.sizeSymbols) {
    params.push_back("    int " + cxxName(s));
    out.args.push_back(KernelArg{KernelArg::Size, s, 0});
  }
  if (opts.boundedWaits) {
    params.push_back("    cake::rt::HangRecord *cake_hang");
    out.args.push_back(KernelArg{KernelArg::HangRecord, "", 0});
  }
  if (params.empty())
    outer.line(") {");
  for (size_t i = 0; i < params.size(); ++i)
    outer.line(params[i] + (i + 1 < params.size() ? "," : ") {"));
}

void Lowerer::run() {
  out.name = k.decl->name.name;
  for (const Param &p : k.params)
    if (const Clause *c = p.type.clause("strides"))
      unsupported(c->range, "a global parameter with explicit strides (addresses and tensor maps assume packed rows)");
  out.kernel = &k;
  out.block = uint32_t(k.block.value_or(0));
  smem = layoutSmem(k);
  if (smem.tmemColumns && !smem.tmemOwner) { // the prologue and epilogue name the owner's first warp
    unsupported(k.decl->name.range, "tensor memory whose owning role (a TMEM ring's producer) is not known");
    return;
  }
  out.dynamicShared = smem.dynamicBytes(); // with the slack to align the base to the swizzle repeat
  // the facts sema derives once: each commit's expect-tx bytes, the derived
  // named-barrier ids (after the ids the kernel uses itself)
  commits = commitFacts(k);
  barriers = allocateBarriers(k);
  push();
  prologue();
  // kernel-scope statements (lets, assumes), then the roles
  for (const StmtPtr &s : k.decl->body.stmts)
    if (s->kind == StmtKind::Let || s->kind == StmtKind::Assume)
      stmt(*s);
  w.line("const int cake_warp = int(cake::rt::warp_id());");
  bool first = true;
  for (const StmtPtr &s : k.decl->body.stmts)
    if (s->kind == StmtKind::Role) {
      roleBody(static_cast<const RoleStmt &>(*s), first);
      first = false;
    }
  if (smem.tmemColumns) {
    // every role is done with tensor memory once the whole CTA gets here
    w.line("cake::rt::tcgen05_fence_before_thread_sync();");
    w.line("__syncthreads();");
    w.open("if (cake::rt::warp_id() == " + std::to_string(smem.tmemOwner->warpBegin.value_or(0)) + "u)");
    w.line("cake::rt::tcgen05_fence_after_thread_sync();");
    w.line("cake::rt::tcgen05_dealloc(cake_tmem, " + std::to_string(smem.tmemColumns) + "u);");
    w.close();
  }
  pop();
}

void Lowerer::prologue() {
  w.line("extern __shared__ __align__(1024) unsigned char cake_dynamic_smem[];");
  w.line("// shared memory: barriers at 0, data from 1024-aligned offsets (" + std::to_string(smem.bytes) +
         " bytes)");
  w.line("const u32 cake_smem = (cake::rt::smem_addr(cake_dynamic_smem) + 1023u) & ~1023u;");
  bool barriers = false;
  for (const RingLayout &r : smem.rings)
    barriers |= r.usesBarriers;
  for (const Buffer &b : k.buffers)
    barriers |= b.type.elem == Elem::Mbarrier;
  if (!barriers && !smem.tmemColumns) {
    w.line("__syncthreads();");
    return;
  }
  w.open("if (threadIdx.x == 0)");
  for (const RingLayout &r : smem.rings) {
    if (!r.usesBarriers)
      continue;
    std::string stages = std::to_string(r.ring->stages.value_or(1));
    w.open("for (int s = 0; s < " + stages + "; ++s)");
    w.line("cake::rt::mbarrier_init(" + barrierAddress(r, true, "s") + ", " + std::to_string(r.fullCount) +
           "); // " + r.ring->name + ".full");
    w.line("cake::rt::mbarrier_init(" + barrierAddress(r, false, "s") + ", " + std::to_string(r.emptyCount) +
           "); // " + r.ring->name + ".empty");
    w.close();
  }
  for (const Buffer &b : k.buffers)
    if (b.type.elem == Elem::Mbarrier) {
      std::string n = std::to_string(b.type.elements().value_or(1));
      w.open("for (int s = 0; s < " + n + "; ++s)");
      w.line("cake::rt::mbarrier_init(cake_smem + " + std::to_string(smem.buffers.at(b.name)) + "u + 8u * s, " +
             std::to_string(b.type.count.value_or(1)) + "); // " + b.name);
      w.close();
    }
  if (k.target != Target::SM80)
    w.line("cake::rt::fence_mbarrier_init();");
  w.close();
  if (smem.tmemColumns) {
    // the owner's first warp allocates tensor memory for every TMEM ring
    w.open("if (cake::rt::warp_id() == " + std::to_string(smem.tmemOwner->warpBegin.value_or(0)) + "u)");
    w.line("cake::rt::tcgen05_alloc(cake_smem + " + std::to_string(smem.tmemSlot) + "u, " +
           std::to_string(smem.tmemColumns) + "u);");
    w.line("cake::rt::tcgen05_relinquish_alloc_permit();");
    w.close();
    w.line("cake::rt::tcgen05_fence_before_thread_sync();");
    w.line("__syncthreads();");
    w.line("cake::rt::tcgen05_fence_after_thread_sync();");
    w.line("const u32 cake_tmem = cake::rt::ld_shared_u32(cake_smem + " + std::to_string(smem.tmemSlot) + "u);");
    return;
  }
  w.line("__syncthreads();");
}

void Lowerer::roleBody(const RoleStmt &decl, bool first) {
  const Role *r = k.role(decl.name.name);
  RoleState state;
  state.role = r;
  role = &state;
  int64_t begin = r->warpBegin.value_or(0), end = r->warpEnd.value_or(0);
  w.at(decl.range);
  w.open(std::string(first ? "" : "else ") + "if (cake_warp >= " + std::to_string(begin) + " && cake_warp < " +
         std::to_string(end) + ")");
  w.line("// role " + r->name + ": warps " + std::to_string(begin) + " .. " + std::to_string(end));
  if (r->regs && k.target != Target::SM80) {
    int64_t share = *k.launchRegisterShare();
    // ptxas reports a budget it cannot meet by its count only (C7600): the
    // setmaxnreg maps to the role's regs clause.
    if (*r->regs != share && r->regsClause)
      w.at(r->regsClause->range);
    if (*r->regs < share)
      w.line("cake::rt::setmaxnreg_dec<" + std::to_string(*r->regs) + ">();");
    else if (*r->regs > share)
      w.line("cake::rt::setmaxnreg_inc<" + std::to_string(*r->regs) + ">();");
  }
  w.line("const int cake_role_warp = cake_warp - " + std::to_string(begin) + ";");
  w.line("(void)cake_role_warp;");
  if (r->issue == IssueMode::Elect)
    w.open("if (cake_role_warp == 0 && cake::rt::lane_id() == 0)");
  else
    w.open("");
  push();
  ringCursors(decl);
  block(decl.body);
  pop();
  w.close();
  w.close();
  role = nullptr;
}

LoweredModule lowerModule(const SourceManager &sm, FileId file, const sema::Module &model,
                          std::vector<Diagnostic> &diagnostics, const LowerOptions &options) {
  LoweredModule result;
  LowerOptions opts = options;
  if (opts.lineFile.empty())
    opts.lineFile = std::string(sm.name(file));
  CudaWriter module(sm, opts.lineFile);
  // A control character in the name (a newline) would end the comment.
  std::string shown = opts.lineFile + (opts.instantiation.empty() ? "" : " (" + opts.instantiation + ")");
  for (char &c : shown)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  module.line("// Generated by cake from " + shown + ". Do not edit: change the IR.");
  module.line("#include \"cake_device.cuh\"");
  module.line("using cake::rt::u16;");
  module.line("using cake::rt::u32;");
  module.line("using cake::rt::u64;");
  module.line("");
  DiagnosticSink sink(diagnostics);
  for (const Kernel &k : model.kernels) {
    LoweredKernel lk;
    CudaWriter body(sm, opts.lineFile);
    Lowerer lowerer(sm, k, model, body, sink, opts, lk);
    lowerer.run();
    lowerer.signature(module);
    module.raw(body.str());
    module.resync();
    module.line("}");
    module.line("");
    result.kernels.push_back(std::move(lk));
  }
  result.source = module.str();
  return result;
}

const LoweredKernel *LoweredModule::kernel(std::string_view name) const {
  for (const LoweredKernel &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

} // namespace cake::lower
