//===- Rules.cpp - Hazard rules over CUDA kernels' events -----------------===//
#include "compiler/cuda/Rules.h"

#include <algorithm>
#include <cctype>
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
  if (starts("fence.proxy.async"))
    return EventKind::FenceProxyAsync;
  if (starts("st.shared") || starts("stmatrix"))
    return EventKind::SharedWrite;
  if (op == "bar.sync" || op == "barrier.sync" || op == "bar.sync.aligned" || op == "barrier.sync.aligned") {
    // barrier 0 with all threads is the CTA barrier; a named one with a count is not
    std::string rest = s.substr(end);
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               rest.end());
    return rest == "0;" || rest == "0" ? EventKind::CtaBarrier : EventKind::Other;
  }
  return EventKind::Other;
}

namespace {

bool isUse(EventKind k) {
  return k == EventKind::MbarArrive || k == EventKind::MbarExpectTx || k == EventKind::MbarWait ||
         k == EventKind::TmaLoad;
}

std::string where(const Event &e) {
  return "'" + e.text + "'" + (e.via.empty() ? "" : " (in " + e.via + ")");
}

/// mbar.init-fence: the first use after an init with no fence.mbarrier_init between them.
void initFence(const KernelEvents &k, std::vector<Finding> &out) {
  const Event *init = nullptr;
  for (const Event &e : k.events) {
    if (e.kind == EventKind::MbarInit && !init)
      init = &e;
    else if (e.kind == EventKind::FenceMbarInit)
      init = nullptr;
    else if (init && isUse(e.kind)) {
      Finding f{"mbar.init-fence", init->at,
                "the mbarrier initialized here is used (" + where(e) +
                    ") with no fence.mbarrier_init between: the TMA unit and the other threads may see it "
                    "uninitialized; fence it (fence.mbarrier_init.release.cluster) and synchronize before the first use",
                {}};
      f.notes.push_back({e.at, "first use of an initialized mbarrier, before any fence.mbarrier_init"});
      out.push_back(std::move(f));
      return;
    }
  }
}

/// tma.store-wait: a committed TMA store group with no wait_group after it before the kernel's end.
void storeWait(const KernelEvents &k, std::vector<Finding> &out) {
  const Event *store = nullptr;
  for (const Event &e : k.events) {
    if (e.kind == EventKind::TmaStore && !store)
      store = &e;
    else if (e.kind == EventKind::BulkWait)
      store = nullptr;
  }
  if (!store)
    return;
  Finding f{"tma.store-wait", store->at,
            "this TMA store is never waited before the kernel ends (no cp.async.bulk.wait_group after it): the "
            "shared memory it reads is released at exit while the store may still read it",
            {}};
  f.notes.push_back({k.at, "kernel '" + k.name + "' ends without cp.async.bulk.wait_group.read 0"});
  out.push_back(std::move(f));
}

/// proxy.fence: a TMA store after a generic write of shared memory with no fence.proxy.async between them in
/// source order (which shared memory each touches is not followed: a fence after the last write is what the
/// store needs).
void proxyFence(const KernelEvents &k, std::vector<Finding> &out) {
  const Event *write = nullptr;
  for (const Event &e : k.events) {
    if (e.kind == EventKind::SharedWrite)
      write = &e;
    else if (e.kind == EventKind::FenceProxyAsync)
      write = nullptr;
    else if (e.kind == EventKind::TmaStore && write) {
      Finding f{"proxy.fence", e.at,
                "this TMA store reads shared memory that a generic write (" + where(*write) +
                    ") filled with no fence.proxy.async between: the async proxy may read it before the write; "
                    "fence it (fence.proxy.async.shared::cta) after the writes and before the store",
                {}};
      f.notes.push_back({write->at, "the last generic write of shared memory before the store"});
      out.push_back(std::move(f));
      write = nullptr; // once per unfenced write
    }
  }
  // the reverse direction (hazard 12): generic reads of shared memory, then an mbarrier arrive that releases it
  // to a producer whose TMA overwrites it, with no fence.proxy.async between
  const Event *read = nullptr;
  for (const Event &e : k.events) {
    if (e.kind == EventKind::SharedRead)
      read = &e;
    else if (e.kind == EventKind::FenceProxyAsync)
      read = nullptr;
    else if (e.kind == EventKind::MbarArrive && read) {
      Finding f{"proxy.fence", e.at,
                "this arrive releases shared memory that a generic read (" + where(*read) +
                    ") read with no fence.proxy.async between: a TMA write the release allows may overtake the "
                    "read (write-after-read across proxies); fence after the reads and before the release",
                {}};
      f.notes.push_back({read->at, "the last generic read of shared memory before the release"});
      out.push_back(std::move(f));
      read = nullptr;
    }
  }
}

} // namespace

std::vector<Finding> checkKernel(const KernelEvents &kernel) {
  std::vector<Finding> out;
  initFence(kernel, out);
  proxyFence(kernel, out);
  storeWait(kernel, out);
  std::sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
    return std::tie(a.at.line, a.at.column, a.code) < std::tie(b.at.line, b.at.column, b.code);
  });
  return out;
}

} // namespace cake::cuda
