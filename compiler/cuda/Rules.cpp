//===- Rules.cpp - Hazard rules over CUDA kernels' events -----------------===//
#include "compiler/cuda/Rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace cake::cuda {

namespace {

/// Where the opcode of \p s starts and ends: past a label (`W:`), a predicate guard (`@p`, `@!p`) and braces.
size_t opcodeOf(const std::string &s, size_t &end) {
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < s.size() && (std::isspace(static_cast<unsigned char>(s[i])) || s[i] == '{' || s[i] == '}'))
      ++i;
  };
  skipSpace();
  // a label (`W: mbarrier.try_wait...`)
  if (size_t colon = s.find(':', i); colon != std::string::npos) {
    size_t j = i;
    while (j < colon && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '$'))
      ++j;
    if (j == colon && j > i && (colon + 1 >= s.size() || s[colon + 1] != ':')) {
      i = colon + 1;
      skipSpace();
    }
  }
  if (i < s.size() && s[i] == '@') { // @p / @!p
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i])))
      ++i;
    skipSpace();
  }
  end = i;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != ';')
    ++end;
  return i;
}

} // namespace

std::vector<std::string> ptxOperands(const std::string &instruction) {
  size_t end = 0;
  opcodeOf(instruction, end);
  std::vector<std::string> out;
  std::string current;
  int depth = 0;
  auto flush = [&] {
    size_t b = current.find_first_not_of(" \t"), e = current.find_last_not_of(" \t");
    if (b != std::string::npos)
      out.push_back(current.substr(b, e - b + 1));
    current.clear();
  };
  for (size_t i = end; i < instruction.size() && instruction[i] != ';'; ++i) {
    char c = instruction[i];
    depth += (c == '[' || c == '{') - (c == ']' || c == '}');
    if (c == ',' && depth == 0)
      flush();
    else
      current += c;
  }
  flush();
  return out;
}

EventKind classifyPtx(const std::string &instruction) {
  const std::string &s = instruction;
  size_t end = 0;
  const size_t i = opcodeOf(s, end);
  const std::string op = s.substr(i, end - i);
  auto starts = [&](const char *p) { return op.rfind(p, 0) == 0; };
  if (starts("mbarrier.init"))
    return EventKind::MbarInit;
  if (starts("fence.mbarrier_init"))
    return EventKind::FenceMbarInit;
  if (starts("mbarrier.arrive.expect_tx") || starts("mbarrier.expect_tx"))
    return EventKind::MbarExpectTx;
  if (starts("mbarrier.arrive"))
    return EventKind::MbarArrive;
  if (starts("ld.shared") || starts("ldmatrix"))
    return EventKind::SharedRead;
  if (starts("mbarrier.try_wait") || starts("mbarrier.test_wait"))
    return EventKind::MbarWait;
  if (starts("cp.async.bulk.commit_group"))
    return EventKind::BulkCommit;
  if (starts("cp.async.bulk.wait_group"))
    return EventKind::BulkWait;
  // a bulk copy, tensor or not: shared -> global is a store in a bulk group; global -> shared completes on an
  // mbarrier (prefetches and reductions into global are neither)
  if (starts("cp.async.bulk.") && !starts("cp.async.bulk.prefetch")) {
    const bool tensor = starts("cp.async.bulk.tensor");
    if (op.find(".global.shared") != std::string::npos)
      return EventKind::TmaStore;
    if (op.find(".shared::cluster.global") != std::string::npos || op.find(".shared::cta.global") != std::string::npos)
      return tensor ? EventKind::TmaLoad : EventKind::BulkLoad;
  }
  if (starts("wgmma.mma_async"))
    return EventKind::WgmmaMma;
  if (starts("wgmma.commit_group"))
    return EventKind::WgmmaCommit;
  if (starts("wgmma.wait_group"))
    return EventKind::WgmmaWait;
  if (starts("fence.proxy.async"))
    return EventKind::FenceProxyAsync;
  if (starts("st.shared") || starts("stmatrix"))
    return EventKind::SharedWrite;
  if (starts("bar.warp.sync"))
    return EventKind::WarpBarrier;
  if (op == "bar.sync" || op == "barrier.sync" || op == "bar.sync.aligned" || op == "barrier.sync.aligned" ||
      op == "barrier.cta.sync" || op == "barrier.cta.sync.aligned") {
    // barrier 0 with all threads is the CTA barrier; a named one with a count is not
    std::vector<std::string> operands = ptxOperands(s);
    return operands.size() == 1 && operands[0] == "0" ? EventKind::CtaBarrier : EventKind::NamedBarrier;
  }
  if (starts("bar.arrive") || starts("barrier.arrive") || starts("barrier.cta.arrive"))
    return EventKind::NamedBarrier;
  return EventKind::Other;
}

namespace {

std::string where(const Event &e) {
  return "'" + e.text + "'" + (e.via.empty() ? "" : " (in " + e.via + ")");
}

/// What the rules carry along the events: the pending hazards, each the event that opened it.
struct State {
  const Event *init = nullptr;  ///< an mbarrier init not yet fenced
  const Event *write = nullptr; ///< a generic shared write not yet fenced for the async proxy
  const Event *read = nullptr;  ///< a generic shared read not yet fenced before a release
  const Event *store = nullptr; ///< a TMA store not yet waited
  bool waited = false;          ///< an mbarrier wait since the last arrive: reads now are of a delivered stage
  int64_t committed = 0, retired = 0; ///< wgmma groups committed, and retired by waits (1-based)
  std::map<std::string, std::pair<int64_t, const Event *>> inFlight; ///< accumulator -> (its group, the MMA)
  const Event *laneWrite = nullptr; ///< a shared write by every lane not yet ordered by a barrier among them
};

/// The zero-trip path and the loop's exit meet: a hazard pending on either is pending after.
State join(const State &a, const State &b) {
  State j{a.init ? a.init : b.init, a.write ? a.write : b.write, a.read ? a.read : b.read,
          a.store ? a.store : b.store, a.waited || b.waited, std::max(a.committed, b.committed),
          std::min(a.retired, b.retired), a.inFlight, a.laneWrite ? a.laneWrite : b.laneWrite};
  for (const auto &[object, pending] : b.inFlight)
    if (!j.inFlight.count(object) || j.inFlight[object].first < pending.first)
      j.inFlight[object] = pending;
  return j;
}

class Interpreter {
public:
  Interpreter(const KernelEvents &k, std::vector<Finding> &out)
      : k_(k), out_(out), close_(k.events.size(), k.events.size()), else_(k.events.size(), k.events.size()) {
    // the barriers waited on before TMA loads: their releases let TMA overwrite a stage (hazard 12)
    std::set<std::string> waited;
    for (const Event &e : k.events) {
      if (e.kind == EventKind::MbarWait && !e.barrier.empty())
        waited.insert(e.barrier);
      if (e.kind == EventKind::TmaLoad || e.kind == EventKind::BulkLoad) {
        tmaRefilled_.insert(waited.begin(), waited.end());
        waited.clear();
      }
    }
    // each LoopBegin's LoopEnd and each BranchBegin's BranchElse and BranchEnd, found once (a loop's body is run
    // twice, nested ones four times, ...); an unclosed one runs to the end of the events
    std::vector<size_t> open;
    for (size_t i = 0; i < k.events.size(); ++i) {
      EventKind kind = k.events[i].kind;
      if (kind == EventKind::LoopBegin || kind == EventKind::BranchBegin) {
        open.push_back(i);
      } else if (kind == EventKind::BranchElse && !open.empty()) {
        else_[open.back()] = i;
      } else if ((kind == EventKind::LoopEnd || kind == EventKind::BranchEnd) && !open.empty()) {
        close_[open.back()] = i;
        open.pop_back();
      }
    }
  }

  void run() {
    Paths paths{Path{}};
    run(0, k_.events.size(), paths);
    bool fixed = false;
    for (const Path &p : paths) {
      if (!p.state.store) // tma.store-wait: a store pending at the kernel's end
        continue;
      bool added = report("tma.store-wait", p.state.store->at,
                          "this TMA store is never waited before the kernel ends (no cp.async.bulk.wait_group after "
                          "it on every path): the shared memory it reads is released at exit while the store may "
                          "still read it",
                          {k_.at, "kernel '" + k_.name + "' ends without cp.async.bulk.wait_group.read 0 after it"});
      // one wait before the closing brace, for every store: every thread runs it, and it waits for the bulk
      // groups of the thread that stored (the others have none)
      if (added && k_.end.line && !fixed) {
        out_.back().fix = Finding::Insert{"wait for the TMA stores before the kernel ends", k_.end,
                                          "asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");"};
        fixed = true;
      }
    }
    namedBarriers();
    expectTx();
  }

private:
  /// One path's state, with the arms it took of branches whose condition is fixed per thread (Event::object):
  /// a later branch on the same condition takes the same arm (`if (tid % 128 == 0) store ... if (tid % 128 ==
  /// 0) wait`).
  struct Path {
    State state;
    std::map<std::string, bool> arms;
  };
  using Paths = std::vector<Path>;
  /// Paths with the same arms meet (their states joined); past this many the arms are forgotten.
  static constexpr size_t kMaxPaths = 32;

  static void merge(Paths &into, const Paths &from) {
    for (const Path &p : from) {
      auto same = std::find_if(into.begin(), into.end(), [&](const Path &q) { return q.arms == p.arms; });
      if (same == into.end())
        into.push_back(p);
      else
        same->state = join(same->state, p.state);
    }
    if (into.size() > kMaxPaths) {
      Path all{into.front().state, {}};
      for (size_t i = 1; i < into.size(); ++i)
        all.state = join(all.state, into[i].state);
      into = {all};
    }
  }

  void run(size_t begin, size_t end, Paths &paths) {
    for (size_t i = begin; i < end && !paths.empty(); ++i) {
      const Event &e = k_.events[i];
      if (e.kind == EventKind::LoopBegin) {
        size_t close = close_[i];
        Paths entry = paths;
        divergent_.push_back(e.divergent ? &e : nullptr);
        run(i + 1, close, paths); // the first iteration
        run(i + 1, close, paths); // the next: what the back edge carries in
        divergent_.pop_back();
        if (e.mayBeEmpty)
          merge(paths, entry);
        i = close;
        continue;
      }
      if (e.kind == EventKind::BranchBegin) {
        // the arms are two paths from the same state; what is pending on either is pending after, except that
        // a path that decided a fixed condition takes the same arm again
        size_t otherwise = std::min(else_[i], close_[i]), close = close_[i];
        Paths taken, skipped;
        for (Path &p : paths) {
          auto known = e.object.empty() ? p.arms.end() : p.arms.find(e.object);
          if (known == p.arms.end() || known->second)
            taken.push_back(p);
          if (known == p.arms.end() || !known->second)
            skipped.push_back(p);
        }
        if (!e.object.empty()) {
          for (Path &p : taken)
            p.arms[e.object] = true;
          for (Path &p : skipped)
            p.arms[e.object] = false;
        }
        divergent_.push_back(e.divergent ? &e : nullptr);
        run(i + 1, otherwise, taken);
        run(otherwise + 1, close, skipped);
        divergent_.pop_back();
        paths.clear();
        merge(paths, taken);
        merge(paths, skipped);
        i = close;
        continue;
      }
      for (Path &p : paths)
        step(e, p.state);
    }
  }

  /// The innermost branch or loop around the current event whose threads may disagree, or null.
  const Event *divergentContext() const {
    for (auto it = divergent_.rbegin(); it != divergent_.rend(); ++it)
      if (*it)
        return *it;
    return nullptr;
  }

  /// bar.ids: a named barrier's id is 1 to 15 and its thread count a positive multiple of 32, and the uses of
  /// one id agree on the count; an id or count that is not a constant is said once in a note.
  void namedBarriers() {
    std::map<int64_t, const Event *> first; // id -> its first use with a constant count
    bool cta = false, noted = false;
    for (const Event &e : k_.events)
      cta |= e.kind == EventKind::CtaBarrier;
    for (const Event &e : k_.events) {
      if (e.kind != EventKind::NamedBarrier)
        continue;
      if (e.n < 0 || e.threads == -2) {
        if (!noted)
          report("bar.ids", e.at,
                 "the " + std::string(e.n < 0 ? "id" : "thread count") + " of this named barrier (" + where(e) +
                     ") is not a constant here: its id and count are not checked (bar.ids)",
                 {k_.at, "in kernel '" + k_.name + "'"}, /*decided=*/false);
        noted = true;
        continue;
      }
      if (e.n > 15) {
        report("bar.ids", e.at,
               "named barrier " + std::to_string(e.n) + " does not exist (" + where(e) +
                   "): a CTA has 16 hardware barriers, 0 to 15",
               {k_.at, "in kernel '" + k_.name + "'"});
        continue;
      }
      if (e.threads >= 0 && (e.threads == 0 || e.threads % 32 != 0)) {
        report("bar.ids", e.at,
               "the thread count " + std::to_string(e.threads) + " of this named barrier (" + where(e) +
                   ") is not a positive multiple of 32: barriers count whole warps",
               {k_.at, "in kernel '" + k_.name + "'"});
        continue;
      }
      if (e.n == 0 && e.threads >= 0 && cta) {
        report("bar.ids", e.at,
               "this uses barrier 0 with a thread count (" + where(e) +
                   ") in a kernel whose __syncthreads() is barrier 0 with every thread: the two collide; use an id "
                   "from 1 to 15",
               {k_.at, "in kernel '" + k_.name + "'"});
        continue;
      }
      if (e.threads < 0)
        continue;
      auto [it, added] = first.try_emplace(e.n, &e);
      if (!added && it->second->threads != e.threads)
        report("bar.ids", e.at,
               "named barrier " + std::to_string(e.n) + " is used here with " + std::to_string(e.threads) +
                   " threads and elsewhere with " + std::to_string(it->second->threads) +
                   ": the barrier completes when the first count arrives, so one side runs ahead or hangs",
               {it->second->at, "barrier " + std::to_string(e.n) + " with " + std::to_string(it->second->threads) +
                                    " threads (" + where(*it->second) + ")"});
    }
  }

  /// mbar.expect-tx: the constant bytes of an expect-tx against the bulk copies after it, up to the next wait or
  /// expect-tx in the same block; a window with a tensor copy (its bytes are the host tensor map's), a copy of
  /// unknown size or a copy under a branch or loop is not decided, and said once in a note.
  void expectTx() {
    bool noted = false;
    for (size_t i = 0; i < k_.events.size(); ++i) {
      const Event &x = k_.events[i];
      if (x.kind != EventKind::MbarExpectTx || x.n < 0)
        continue;
      int64_t bytes = 0;
      std::vector<const Event *> copies;
      const Event *undecided = nullptr;
      int depth = 0;
      for (size_t j = i + 1; j < k_.events.size() && !undecided; ++j) {
        const Event &e = k_.events[j];
        if (e.kind == EventKind::LoopBegin || e.kind == EventKind::BranchBegin) {
          ++depth;
        } else if (e.kind == EventKind::LoopEnd || e.kind == EventKind::BranchEnd ||
                   (e.kind == EventKind::BranchElse && depth == 0)) {
          if (depth-- == 0)
            break; // the block of the expect-tx ends
        } else if (depth == 0 && (e.kind == EventKind::MbarWait || e.kind == EventKind::MbarExpectTx)) {
          break;
        } else if (e.kind == EventKind::TmaLoad || (e.kind == EventKind::BulkLoad && (e.n < 0 || depth > 0))) {
          undecided = &e;
        } else if (e.kind == EventKind::BulkLoad) {
          bytes += e.n;
          copies.push_back(&e);
        }
      }
      if (undecided) {
        if (!noted)
          report("mbar.expect-tx", x.at,
                 "the " + std::to_string(x.n) + " bytes this expect-tx announces are not checked against the copies (" +
                     (undecided->kind == EventKind::TmaLoad
                          ? "a TMA tensor copy's bytes are its tensor map's box, set by the host"
                          : "a copy's size is not a constant here, or it is under a branch or loop") +
                     ")",
                 {undecided->at, "the copy that decides it: " + where(*undecided)}, /*decided=*/false);
        noted = true;
        continue;
      }
      if (copies.empty() || bytes == x.n)
        continue;
      report("mbar.expect-tx", x.at,
             "this expect-tx announces " + std::to_string(x.n) + " bytes, but the copies after it deliver " +
                 std::to_string(bytes) + ": " +
                 (bytes < x.n ? "the phase never completes and the waiter hangs"
                              : "the phase completes while data is still landing and the waiter reads stale shared "
                                "memory"),
             {copies.front()->at, "the first of the " + std::to_string(copies.size()) + " copies it counts: " +
                                      where(*copies.front())});
    }
  }

  void step(const Event &e, State &s) {
    switch (e.kind) {
    case EventKind::MbarInit:
      if (!s.init)
        s.init = &e;
      return;
    case EventKind::FenceMbarInit:
      s.init = nullptr;
      return;
    case EventKind::SharedWrite:
      s.write = &e;
      if (!e.oneLane)
        s.laneWrite = &e;
      return;
    case EventKind::CtaBarrier:
      if (const Event *branch = divergentContext(); branch && branch->shapeDependent)
        report("bar.uniform", e.at,
               where(e) + " is under a condition on threadIdx.x ('" + branch->text + "') in a kernel whose block has "
               "more than one dimension: whether every thread takes it depends on blockDim.x, not decided",
               {branch->at, "the branch whose condition depends on the thread"}, /*decided=*/false);
      else if (branch && branch->n > 0)
        report("bar.uniform", e.at,
               where(e) + " is under a condition ('" + branch->text + "') that every thread agrees on only when the "
               "block has at most " + std::to_string(branch->n) + " threads, and the kernel does not say its size: "
               "not decided (__launch_bounds__ decides it)",
               {branch->at, "the branch whose condition depends on the thread"}, /*decided=*/false);
      else if (branch)
        report("bar.uniform", e.at,
               where(e) + " is under a condition the threads of the block may take differently ('" + branch->text +
                   "'): barrier 0 completes only when every thread arrives, so the threads that skip it hang the "
                   "others (or the block runs past it unsynchronized); hoist it out of the " +
                   (branch->kind == EventKind::LoopBegin ? "loop" : "branch") +
                   ", or use a named barrier (bar.sync id, count) for the threads that take it",
               {branch->at, "the " + std::string(branch->kind == EventKind::LoopBegin ? "loop" : "branch") +
                                " whose condition depends on the thread"});
      [[fallthrough]];
    case EventKind::NamedBarrier:
    case EventKind::WarpBarrier:
      s.laneWrite = nullptr; // the lanes' writes are ordered before what any of them does next
      return;
    case EventKind::SharedRead:
      // a read of what a barrier delivered (after a wait) is what a later arrive releases; a read of a word no
      // barrier guards (a TMEM address, a flag) is not followed
      if (s.waited)
        s.read = &e;
      return;
    case EventKind::FenceProxyAsync:
      s.write = s.read = nullptr;
      return;
    case EventKind::BulkWait:
      s.store = nullptr;
      return;
    case EventKind::WgmmaMma:
      if (!e.object.empty())
        s.inFlight[e.object] = {s.committed + 1, &e}; // the group the next commit closes
      return;
    case EventKind::WgmmaCommit:
      ++s.committed;
      return;
    case EventKind::WgmmaWait:
      if (e.n >= 0) // a wait of an unknown depth retires nothing the rule can count on
        s.retired = std::max(s.retired, s.committed - e.n);
      for (auto it = s.inFlight.begin(); it != s.inFlight.end();)
        it = it->second.first <= s.retired ? s.inFlight.erase(it) : std::next(it);
      return;
    case EventKind::AccRead: {
      auto it = s.inFlight.find(e.object);
      if (it == s.inFlight.end() || e.object.ends_with("#?"))
        return;
      const Event &mma = *it->second.second;
      report("wgmma.inflight", e.at,
             "this reads the accumulator '" + e.object.substr(e.object.find(':') + 1) +
                 "' while the wgmma that writes it (" + where(mma) + ") may be in flight: " +
                 (it->second.first > s.committed ? "its group is not committed yet"
                                                 : "no wgmma.wait_group retires its group before the read") +
                 "; wait (wgmma.wait_group) first",
             {mma.at, "the wgmma.mma_async that writes it"});
      s.inFlight.erase(it);
      return;
    }
    case EventKind::TmaStore:
      if (s.write) // hazard 11
        report("proxy.fence", e.at,
               "this TMA store reads shared memory that a generic write (" + where(*s.write) +
                   ") filled with no fence.proxy.async between on some path: the async proxy may read it before the "
                   "write; fence it (fence.proxy.async.shared::cta) after the writes and before the store",
               {s.write->at, "the last generic write of shared memory before the store"});
      s.write = nullptr;
      if (!s.store)
        s.store = &e;
      return;
    case EventKind::MbarArrive:
      if (e.oneLane && s.laneWrite) // an arrive releases its own lane's writes only
        report("bar.race", e.at,
               "one lane arrives on this mbarrier after every lane wrote shared memory (" + where(*s.laneWrite) +
                   ") with no barrier among the lanes between: an arrive releases only the arriving thread's own "
                   "writes, so the waiting side may read the other lanes' data before it lands; __syncwarp() (or a "
                   "named barrier) before the elected arrive",
               {s.laneWrite->at, "the lanes' shared writes the arrive is meant to release"});
      if (e.oneLane)
        s.laneWrite = nullptr;
      // hazard 12, for a barrier that guards a TMA refill (one waited on before TMA loads), or one not followed
      if (s.read && (e.barrier.empty() || tmaRefilled_.count(e.barrier)))
        report("proxy.fence", e.at,
               "this arrive releases shared memory that a generic read (" + where(*s.read) +
                   ") read with no fence.proxy.async between: a TMA write the release allows may overtake the read "
                   "(write-after-read across proxies); fence after the reads and before the release",
               {s.read->at, "the last generic read of shared memory before the release"});
      s.read = nullptr;
      s.waited = false;
      [[fallthrough]];
    case EventKind::MbarWait:
      if (e.kind == EventKind::MbarWait)
        s.waited = true;
      return;
    case EventKind::MbarExpectTx:
    case EventKind::TmaLoad:
    case EventKind::BulkLoad:
      // the async proxy completes transactions on the barrier: it sees the init only after the fence (threads
      // of the CTA that arrive and wait see it after any barrier among them; cuda::barrier relies on that)
      if (s.init) {
        report("mbar.init-fence", s.init->at,
               "the mbarrier initialized here is completed by the async proxy (" + where(e) +
                   ") with no fence.mbarrier_init between: the TMA unit may see it uninitialized; fence it "
                   "(fence.mbarrier_init.release.cluster) after the init and before the barrier that publishes it",
               {e.at, "the first async-proxy use of the barrier, before any fence.mbarrier_init"});
        s.init = nullptr;
      }
      return;
    default:
      return;
    }
  }

  /// One finding per (code, place): a loop's second pass does not repeat the first's.
  /// Whether it is new (the finding is then out_.back()).
  bool report(const std::string &code, Where at, std::string message, Finding::Note note, bool decided = true) {
    for (const Finding &f : out_)
      if (f.code == code && f.at.line == at.line && f.at.column == at.column && f.at.file == at.file &&
          f.decided == decided)
        return false;
    out_.push_back({code, at, std::move(message), decided, {std::move(note)}});
    return true;
  }

  const KernelEvents &k_;
  std::vector<Finding> &out_;
  std::vector<size_t> close_; ///< LoopBegin -> its LoopEnd, BranchBegin -> its BranchEnd (else the events' end)
  std::vector<size_t> else_;  ///< BranchBegin -> its BranchElse
  std::vector<const Event *> divergent_; ///< the branches and loops around the event run, null where uniform
  std::set<std::string> tmaRefilled_;    ///< barriers waited on before a TMA load (Event::barrier)
};

} // namespace

std::vector<Finding> checkKernel(const KernelEvents &kernel) {
  std::vector<Finding> out;
  Interpreter(kernel, out).run();
  std::sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
    return std::tie(a.at.file, a.at.line, a.at.column, a.code) < std::tie(b.at.file, b.at.line, b.at.column, b.code);
  });
  return out;
}

} // namespace cake::cuda
