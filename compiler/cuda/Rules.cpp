//===- Rules.cpp - Hazard rules over CUDA kernels' events -----------------===//
#include "compiler/cuda/Rules.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>

namespace cake::cuda {

EventKind classifyPtx(const std::string &instruction) {
  // the opcode: the first word that is not a predicate guard or a brace
  std::string s = instruction;
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
  size_t end = i;
  while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end])) && s[end] != ';')
    ++end;
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
  if (starts("cp.async.bulk.tensor"))
    return op.find(".global.shared") != std::string::npos ? EventKind::TmaStore : EventKind::TmaLoad;
  if (starts("cp.async.bulk.commit_group"))
    return EventKind::BulkCommit;
  if (starts("cp.async.bulk.wait_group"))
    return EventKind::BulkWait;
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
  if (op == "bar.sync" || op == "barrier.sync" || op == "bar.sync.aligned" || op == "barrier.sync.aligned") {
    // barrier 0 with all threads is the CTA barrier; a named one with a count is not
    std::string rest = s.substr(end);
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               rest.end());
    return rest == "0;" || rest == "0" ? EventKind::CtaBarrier : EventKind::NamedBarrier;
  }
  if (starts("bar.arrive") || starts("barrier.arrive") || starts("bar.warp.sync"))
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
  Interpreter(const KernelEvents &k, std::vector<Finding> &out) : k_(k), out_(out), close_(k.events.size()) {
    // each LoopBegin's LoopEnd, found once (a loop's body is run twice, nested ones four times, ...)
    std::vector<size_t> open;
    for (size_t i = 0; i < k.events.size(); ++i)
      if (k.events[i].kind == EventKind::LoopBegin) {
        open.push_back(i);
      } else if (k.events[i].kind == EventKind::LoopEnd && !open.empty()) {
        close_[open.back()] = i;
        open.pop_back();
      }
  }

  void run() {
    State s;
    run(0, k_.events.size(), s);
    if (s.store) // tma.store-wait: a store pending at the kernel's end
      report("tma.store-wait", s.store->at,
             "this TMA store is never waited before the kernel ends (no cp.async.bulk.wait_group after it on every "
             "path): the shared memory it reads is released at exit while the store may still read it",
             {k_.at, "kernel '" + k_.name + "' ends without cp.async.bulk.wait_group.read 0 after it"});
  }

private:
  void run(size_t begin, size_t end, State &s) {
    for (size_t i = begin; i < end; ++i) {
      const Event &e = k_.events[i];
      if (e.kind == EventKind::LoopBegin) {
        size_t close = close_[i];
        State entry = s;
        run(i + 1, close, s); // the first iteration
        run(i + 1, close, s); // the next: what the back edge carries in
        if (e.mayBeEmpty)
          s = join(s, entry);
        i = close;
        continue;
      }
      step(e, s);
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
    case EventKind::NamedBarrier:
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
      if (s.read) // hazard 12
        report("proxy.fence", e.at,
               "this arrive releases shared memory that a generic read (" + where(*s.read) +
                   ") read with no fence.proxy.async between: a TMA write the release allows may overtake the read "
                   "(write-after-read across proxies); fence after the reads and before the release",
               {s.read->at, "the last generic read of shared memory before the release"});
      s.read = nullptr;
      s.waited = false;
      [[fallthrough]];
    case EventKind::MbarExpectTx:
    case EventKind::MbarWait:
      if (e.kind == EventKind::MbarWait)
        s.waited = true;
      [[fallthrough]];
    case EventKind::TmaLoad:
      if (s.init) {
        report("mbar.init-fence", s.init->at,
               "the mbarrier initialized here is used (" + where(e) +
                   ") with no fence.mbarrier_init between: the TMA unit and the other threads may see it "
                   "uninitialized; fence it (fence.mbarrier_init.release.cluster) and synchronize before the first use",
               {e.at, "first use of an initialized mbarrier, before any fence.mbarrier_init"});
        s.init = nullptr;
      }
      return;
    default:
      return;
    }
  }

  /// One finding per (code, place): a loop's second pass does not repeat the first's.
  void report(const std::string &code, Where at, std::string message, Finding::Note note) {
    for (const Finding &f : out_)
      if (f.code == code && f.at.line == at.line && f.at.column == at.column)
        return;
    out_.push_back({code, at, std::move(message), {std::move(note)}});
  }

  const KernelEvents &k_;
  std::vector<Finding> &out_;
  std::vector<size_t> close_; ///< LoopBegin -> its LoopEnd (the end of the events when unclosed)
};

} // namespace

std::vector<Finding> checkKernel(const KernelEvents &kernel) {
  std::vector<Finding> out;
  Interpreter(kernel, out).run();
  std::sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
    return std::tie(a.at.line, a.at.column, a.code) < std::tie(b.at.line, b.at.column, b.code);
  });
  return out;
}

} // namespace cake::cuda
