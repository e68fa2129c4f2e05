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
  // (cp.reduce.async.bulk: a store that reduces into global, in a bulk group too)
  if ((starts("cp.async.bulk.") || starts("cp.reduce.async.bulk.")) && !starts("cp.async.bulk.prefetch")) {
    const bool tensor = starts("cp.async.bulk.tensor");
    if (op.find(".global.shared") != std::string::npos)
      return EventKind::TmaStore;
    if (op.find(".shared::cluster.global") != std::string::npos || op.find(".shared::cta.global") != std::string::npos)
      return tensor ? EventKind::TmaLoad : EventKind::BulkLoad;
  }
  if (starts("wgmma.mma_async"))
    return EventKind::WgmmaMma;
  if (starts("tcgen05.ld."))
    return EventKind::TmemLoad;
  if (starts("tcgen05.wait::ld"))
    return EventKind::TmemWait;
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

/// An event as a message names it: its text, a long register list (`{%0, ..., %31}`) shortened to `{...}`.
std::string where(const Event &e) {
  std::string text = e.text;
  if (size_t open = text.find('{'), close = text.find('}'); open != std::string::npos && close != std::string::npos &&
                                                             close > open + 24)
    text.replace(open + 1, close - open - 1, "...");
  return "'" + text + "'" + (e.via.empty() ? "" : " (in " + e.via + ")");
}

/// What the rules carry along the events: the pending hazards, each the event that opened it.
struct State {
  const Event *init = nullptr;  ///< an mbarrier init not yet fenced
  const Event *write = nullptr; ///< a generic shared write not yet fenced for the async proxy
  const Event *read = nullptr;  ///< a generic shared read not yet fenced before a release
  /// The TMA stores not yet waited, each with the bulk groups committed after its own (-1: its group is still
  /// open, and no wait covers it until a commit closes it)
  std::map<const Event *, int64_t> stores;
  const Event *lastWait = nullptr; ///< the last cp.async.bulk.wait_group
  bool waited = false;          ///< an mbarrier wait since the last arrive: reads now are of a delivered stage
  int64_t committed = 0, retired = 0; ///< wgmma groups committed, and retired by waits (1-based)
  std::map<std::string, std::pair<int64_t, const Event *>> inFlight; ///< accumulator -> (its group, the MMA)
  std::map<std::string, const Event *> tmemLoads; ///< registers a tcgen05.ld fills, not yet waited (tcgen05.wait::ld)
  const Event *laneWrite = nullptr; ///< a shared write by every lane not yet ordered by a barrier among them
};

/// The zero-trip path and the loop's exit meet: a hazard pending on either is pending after.
State join(const State &a, const State &b) {
  State j{a.init ? a.init : b.init, a.write ? a.write : b.write, a.read ? a.read : b.read,
          a.stores, a.lastWait ? a.lastWait : b.lastWait, a.waited || b.waited, std::max(a.committed, b.committed),
          std::min(a.retired, b.retired), a.inFlight, a.tmemLoads, a.laneWrite ? a.laneWrite : b.laneWrite};
  j.tmemLoads.insert(b.tmemLoads.begin(), b.tmemLoads.end());
  for (const auto &[store, after] : b.stores) // the younger group of the two: the later a wait retires it
    if (auto [it, added] = j.stores.try_emplace(store, after); !added)
      it->second = std::min(it->second, after);
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
    for (const Path &p : paths)
      for (const auto &[store, after] : p.state.stores) { // tma.store-wait: a store pending at the kernel's end
        const std::string why =
            after < 0 ? ": its bulk group is never committed (cp.async.bulk.commit_group), so no "
                        "cp.async.bulk.wait_group covers it"
            : p.state.lastWait && p.state.lastWait->n > after
                ? ": the wait after it (" + where(*p.state.lastWait) + ") lets " +
                      (p.state.lastWait->n == 1 ? std::string("the most recent bulk group")
                                                : "the " + std::to_string(p.state.lastWait->n) +
                                                      " most recent bulk groups") +
                      " run on, its own among them"
                : " (no cp.async.bulk.wait_group after it on every path)";
        bool added = report("tma.store-wait", store->at,
                            "this TMA store is never waited before the kernel ends" + why +
                                ": the shared memory it reads is released at exit while the store may still read it",
                            {k_.at, "kernel '" + k_.name + "' ends without cp.async.bulk.wait_group.read 0 after it"});
        // one commit and wait before the closing brace, for every store: every thread runs it, and it waits for
        // the bulk groups of the thread that stored (the others have none; an empty group completes at once)
        if (added && k_.end.line && !fixed) {
          out_.back().fix = Finding::Insert{
              "wait for the TMA stores before the kernel ends", k_.end,
              after < 0 ? "asm volatile(\"cp.async.bulk.commit_group;\\n\\tcp.async.bulk.wait_group.read 0;\" ::: \"memory\");"
                        : "asm volatile(\"cp.async.bulk.wait_group.read 0;\" ::: \"memory\");"};
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

  /// A named barrier's thread count: the one it gives, else (none given) the block's.
  static int64_t countOf(const Event &e) { return e.threads >= 0 ? e.threads : static_cast<int64_t>(e.reach.size()); }

  /// bar.ids: a named barrier's id is 1 to 15 and its thread count a positive multiple of 32, and the uses of
  /// one id agree on the count; an id or count that is not a constant is said once in a note. An id that
  /// differs between threads (`bar.sync 1 + warp / 4, 128`) is checked per id the threads use (Event::reach).
  /// bar.count: the threads that arrive at each use of an id, with those that arrive at its other uses and are
  /// none of them, are as many as its count (each thread's reach decided over the block; a use not decided leaves
  /// the kernel's counts unchecked, said once in a note);
  /// bar.uniform: a use that only some lanes of a warp reach.
  void namedBarriers() {
    std::map<int64_t, const Event *> first; // id -> its first use with a constant count
    bool cta = false, noted = false, undecided = false;
    for (const Event &e : k_.events)
      cta |= e.kind == EventKind::CtaBarrier;
    // the uses: (event, id), one per id an event's threads use
    std::vector<std::pair<const Event *, int64_t>> uses;
    for (const Event &e : k_.events) {
      if (e.kind != EventKind::NamedBarrier)
        continue;
      undecided |= e.reach.empty();
      if (e.n >= 0 && e.threads != -2) {
        uses.push_back({&e, e.n});
        continue;
      }
      std::set<int64_t> ids(e.reach.begin(), e.reach.end());
      ids.erase(-1);
      if (e.threads == -2 || e.reach.empty()) {
        if (!noted)
          report("bar.ids", e.at,
                 "the " + std::string(e.n < 0 ? "id" : "thread count") + " of this named barrier (" + where(e) +
                     ") is not a constant here: its id and count are not checked (bar.ids)",
                 {k_.at, "in kernel '" + k_.name + "'"}, /*decided=*/false);
        noted = true;
        continue;
      }
      for (int64_t id : ids)
        uses.push_back({&e, id});
    }
    std::set<int64_t> inconsistent; // ids with a finding of their own: their counts are not compared again
    for (const auto &[use, id] : uses) {
      const Event &e = *use;
      const std::string name = "named barrier " + std::to_string(id);
      if (id > 15) {
        report("bar.ids", e.at,
               name + " does not exist (" + where(e) + (e.n < 0 ? ", with the id its threads compute" : "") +
                   "): a CTA has 16 hardware barriers, 0 to 15",
               {k_.at, "in kernel '" + k_.name + "'"});
        inconsistent.insert(id);
        continue;
      }
      if (e.threads >= 0 && (e.threads == 0 || e.threads % 32 != 0)) {
        report("bar.ids", e.at,
               "the thread count " + std::to_string(e.threads) + " of this named barrier (" + where(e) +
                   ") is not a positive multiple of 32: barriers count whole warps",
               {k_.at, "in kernel '" + k_.name + "'"});
        inconsistent.insert(id);
        continue;
      }
      if (id == 0 && e.threads >= 0 && cta) {
        report("bar.ids", e.at,
               "this uses barrier 0 with a thread count (" + where(e) +
                   ") in a kernel whose __syncthreads() is barrier 0 with every thread: the two collide; use an id "
                   "from 1 to 15",
               {k_.at, "in kernel '" + k_.name + "'"});
        inconsistent.insert(id);
        continue;
      }
      const int64_t threads = countOf(e);
      auto [it, added] = first.try_emplace(id, &e);
      const int64_t before = countOf(*it->second);
      if (!added && before != threads && threads > 0 && before > 0) {
        report("bar.ids", e.at,
               name + " is used here with " + std::to_string(threads) + " threads and elsewhere with " +
                   std::to_string(before) +
                   ": the barrier completes when the first count arrives, so one side runs ahead or hangs",
               {it->second->at, "barrier " + std::to_string(id) + " with " + std::to_string(before) + " threads (" +
                                    where(*it->second) + ")"});
        inconsistent.insert(id);
      }
    }
    // bar.uniform: a warp some of whose lanes reach a use and some do not
    for (const Event &e : k_.events) {
      if (e.kind != EventKind::NamedBarrier || e.reach.empty())
        continue;
      for (size_t w = 0; w * 32 < e.reach.size(); ++w) {
        size_t lanes = 0, n = std::min<size_t>(32, e.reach.size() - w * 32);
        for (size_t l = 0; l < n; ++l)
          lanes += e.reach[w * 32 + l] >= 0;
        if (lanes > 0 && lanes < n) {
          report("bar.uniform", e.at,
                 where(e) + " is reached by " + std::to_string(lanes) + " of the 32 lanes of warp " +
                     std::to_string(w) + " (threads " + std::to_string(w * 32) + "-" + std::to_string(w * 32 + n - 1) +
                     "): a named barrier counts whole warps, and the lanes that branch around it run on "
                     "unsynchronized; hoist it out of the lane's branch",
                 {k_.at, "in kernel '" + k_.name + "'"});
          for (int16_t id : e.reach)
            if (id >= 0)
              inconsistent.insert(id);
          break;
        }
      }
    }
    if (undecided) { // some use's threads are not known: no id's count is compared with its threads
      for (const Event &e : k_.events)
        if (e.kind == EventKind::NamedBarrier && e.reach.empty()) {
          report("bar.count", e.at,
                 "which threads of the block reach this named barrier (" + where(e) +
                     ") is not decided (no __launch_bounds__, a block of more dimensions, a condition or id on data, "
                     "or a loop or early exit on the thread around it): the threads of this kernel's named "
                     "barriers are not compared with their counts (bar.count)",
                 {k_.at, "in kernel '" + k_.name + "'"}, /*decided=*/false);
          break;
        }
      return;
    }
    // bar.count, per use and id: the threads that arrive there, with those that arrive at its other uses and are
    // none of them (an arrive of one group, a sync of another), are as many as the count. A group that syncs at
    // two places counts whole at each; a place fewer reach than its count is flagged even where the id's other
    // uses add up (the missing threads arrive elsewhere: the phases mix).
    auto setOf = [](const Event &e, int64_t id) {
      std::vector<bool> t(e.reach.size());
      for (size_t i = 0; i < e.reach.size(); ++i)
        t[i] = e.reach[i] == id;
      return t;
    };
    auto ranges = [](const std::vector<bool> &t) { // at most three runs of threads
      std::string who;
      size_t shown = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        if (!t[i] || (i > 0 && t[i - 1]))
          continue;
        size_t last = i;
        while (last + 1 < t.size() && t[last + 1])
          ++last;
        if (shown++ < 3)
          who += (who.empty() ? "" : ", ") + std::to_string(i) + "-" + std::to_string(last);
      }
      return who + (shown > 3 ? ", ..." : "");
    };
    for (const auto &[use, id] : uses) {
      if (inconsistent.count(id))
        continue;
      const Event &e = *use;
      const int64_t count = countOf(e);
      const std::vector<bool> here = setOf(e, id);
      const int64_t n = std::count(here.begin(), here.end(), true);
      std::vector<bool> others(here.size()), skipped(here.size());
      for (const auto &[other, otherId] : uses) {
        if (other == use || otherId != id)
          continue;
        std::vector<bool> t = setOf(*other, id);
        bool disjoint = true;
        for (size_t i = 0; i < t.size() && i < here.size() && disjoint; ++i)
          disjoint = !(t[i] && here[i]);
        for (size_t i = 0; i < t.size() && i < others.size(); ++i) {
          if (disjoint)
            others[i] = others[i] || t[i];
          else // a use that shares threads with this one: its other threads are the group's too
            skipped[i] = skipped[i] || (t[i] && !here[i]);
        }
      }
      const int64_t m = std::count(others.begin(), others.end(), true);
      if (n + m == count)
        continue;
      // threads that use the id with these elsewhere but skip this use: the branch around it splits the group
      // the barrier counts (bar.uniform, as the IR verifier names a barrier under a role's branch)
      if (const int64_t k = std::count(skipped.begin(), skipped.end(), true); k > 0 && n < count) {
        report("bar.uniform", e.at,
               where(e) + " (named barrier " + std::to_string(id) + ", " + std::to_string(count) +
                   " threads) is reached here by threads " + ranges(here) + " only; threads " + ranges(skipped) +
                   ", which use it with them elsewhere, branch around it: the barrier waits for threads that do "
                   "not come (a hang, or it completes with another phase's arrivals); hoist it out of the branch",
               {k_.at, "the block of kernel '" + k_.name + "' as its __launch_bounds__ gives it (" +
                           std::to_string(here.size()) + " threads)"});
        continue;
      }
      report("bar.count", e.at,
             "named barrier " + std::to_string(id) + " counts " + std::to_string(count) + " threads (" + where(e) +
                 "), but " + std::to_string(n) + " threads arrive at it here (threads " + ranges(here) + ")" +
                 (m ? " and " + std::to_string(m) + " others at its other uses (threads " + ranges(others) + ")"
                    : std::string(n < count ? " and no others at its other uses" : "")) +
                 ": " +
                 (n + m < count ? "it never completes, and the threads that wait on it hang (or it completes with "
                                  "threads of another phase)"
                                : "it completes with whichever " + std::to_string(count) +
                                      " arrive first, so the groups it should keep apart run into each other"),
             {k_.at, "the block of kernel '" + k_.name + "' as its __launch_bounds__ gives it (" +
                         std::to_string(here.size()) + " threads)"});
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
    case EventKind::BulkCommit:
      for (auto &[store, after] : s.stores)
        ++after;
      return;
    case EventKind::BulkWait:
      // wait_group(.read) N: every committed group but the N most recent is done; a depth that is not a
      // constant is taken to retire every committed group (no finding rests on a guess of it)
      std::erase_if(s.stores, [&](const auto &pending) { return pending.second >= std::max<int64_t>(e.n, 0); });
      s.lastWait = &e;
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
    case EventKind::TmemLoad:
      if (!e.object.empty())
        s.tmemLoads[e.object] = &e;
      return;
    case EventKind::TmemWait:
      s.tmemLoads.clear();
      return;
    case EventKind::AccRead: {
      if (auto load = s.tmemLoads.find(e.object); load != s.tmemLoads.end()) { // hazard 17
        report("tcgen05.wait", e.at,
               "this reads the registers '" + e.object.substr(e.object.find(':') + 1) + "' that a tcgen05.ld (" +
                   where(*load->second) + ") fills asynchronously, with no tcgen05.wait::ld between on some path: "
                   "they may not hold the loaded values yet; wait (tcgen05.wait::ld.sync.aligned) after the load and "
                   "before the first read",
               {load->second->at, "the tcgen05.ld that writes them"});
        s.tmemLoads.erase(load);
        return;
      }
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
      s.stores[&e] = -1;
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
