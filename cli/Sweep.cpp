//===- Sweep.cpp - Items of a sweep handed out to the GPUs of a host ------===//
#include "cli/Sweep.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

namespace cake::cli {

using json = nlohmann::ordered_json;

namespace {

/// A GPU with this many faults in a row gets no more items.
constexpr int kFaultsToRetire = 2;

struct Item {
  std::set<std::string> tried;   ///< the GPUs it ran on
  json attempts = json::array(); ///< its failed attempts before the last
  json last;                     ///< its last attempt's result (null before any)
  bool done = false;
};

struct Gpu {
  std::string name;
  int items = 0, faults = 0, faultsInRow = 0;
  std::string retired; ///< why it gets no more items ("" while it does)
};

} // namespace

std::optional<std::vector<std::string>> parseGpus(const std::string &text, std::string &error) {
  std::vector<std::string> out;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    const long n = std::strtol(text.c_str(), nullptr, 10);
    if (n < 1 || n > 1024) {
      error = "--gpus takes a count from 1 to 1024 or a list of GPU ids, not '" + text + "'";
      return std::nullopt;
    }
    for (long i = 0; i < n; ++i)
      out.push_back(std::to_string(i));
    return out;
  }
  std::stringstream in(text);
  for (std::string g; std::getline(in, g, ',');) {
    if (g.empty() || g.find_first_of(" \t=") != std::string::npos ||
        std::find(out.begin(), out.end(), g) != out.end()) {
      error = "--gpus takes a count or a list of distinct GPU ids (0,1,3 or GPU-UUIDs), not '" + text + "'";
      return std::nullopt;
    }
    out.push_back(g);
  }
  if (out.empty())
    error = "--gpus names no GPU";
  return out.empty() ? std::nullopt : std::optional(out);
}

std::vector<std::string> onGpu(std::vector<std::string> argv, const std::string &gpu) {
  if (!gpu.empty())
    argv.insert(argv.begin(), {"env", "CUDA_VISIBLE_DEVICES=" + gpu});
  return argv;
}

bool gpuFault(const runner::ProcessResult &child, const std::string &status, const std::string &gpu) {
  return child.timedOut || child.exitCode == 3 || child.signal != 0 || (!gpu.empty() && status == "no-gpu");
}

bool parseShard(const std::string &text, int64_t &index, int64_t &count, std::string &error) {
  char *end = nullptr;
  index = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '/' || (count = std::strtoll(end + 1, &end, 10)) < 1 || *end != '\0' ||
      index < 0 || index >= count || count > 100000) {
    error = "--shard takes I/N with 0 <= I < N, not '" + text + "'";
    return false;
  }
  return true;
}

SweepOutcome runSweep(size_t count, const std::vector<std::string> &gpus, int retries,
                      const std::function<SweepAttempt(size_t, const std::string &)> &run,
                      const std::function<void(size_t, const json &)> &done) {
  SweepOutcome out;
  out.results.assign(count, json::object());
  std::vector<Item> items(count);
  std::vector<Gpu> state;
  for (const std::string &g : gpus) {
    state.emplace_back();
    state.back().name = g;
  }
  std::deque<size_t> pending;
  for (size_t i = 0; i < count; ++i)
    pending.push_back(i);
  std::mutex m;
  std::condition_variable changed;
  size_t inFlight = 0;

  // under the lock: an item's final result
  auto finish = [&](size_t i, json result) {
    if (items[i].attempts.size())
      result["attempts"] = items[i].attempts;
    items[i].done = true;
    out.results[i] = std::move(result);
    if (done)
      done(i, out.results[i]);
  };
  // under the lock: whether a GPU that has not run item i still takes items
  auto placeable = [&](size_t i) {
    for (const Gpu &g : state)
      if (g.retired.empty() && !items[i].tried.count(g.name))
        return true;
    return false;
  };
  // under the lock: pending items no GPU left can take fail with their last fault
  auto dropUnplaceable = [&] {
    for (auto it = pending.begin(); it != pending.end();) {
      if (placeable(*it)) {
        ++it;
        continue;
      }
      // its last attempt's result (the caller's fields kept), or a bare one for an item no GPU ever ran
      const size_t i = *it;
      json result = items[i].last.is_object() ? items[i].last : json::object();
      result["ok"] = false;
      result["gpu_fault"] = true;
      result["error"] = items[i].last.is_object()
                            ? "every GPU that could run it failed: " + items[i].last.value("error", std::string("failed"))
                            : std::string("no GPU left to run it (every GPU stopped taking items)");
      if (!items[i].attempts.empty() && items[i].last.is_object())
        items[i].attempts.erase(items[i].attempts.end() - 1); // the last attempt is the result itself
      it = pending.erase(it);
      finish(i, std::move(result));
    }
  };

  auto worker = [&](size_t w) {
    std::unique_lock lock(m);
    while (state[w].retired.empty()) {
      auto next = std::find_if(pending.begin(), pending.end(),
                               [&](size_t i) { return !items[i].tried.count(state[w].name); });
      if (next == pending.end()) {
        if (pending.empty() && inFlight == 0)
          break;
        changed.wait(lock); // an item in flight elsewhere may come back to be tried here
        continue;
      }
      const size_t i = *next;
      pending.erase(next);
      items[i].tried.insert(state[w].name);
      ++inFlight;
      ++state[w].items;
      lock.unlock();
      SweepAttempt a = run(i, state[w].name);
      lock.lock();
      --inFlight;
      a.result["gpu"] = state[w].name;
      if (a.gpuFault) {
        ++state[w].faults;
        if (++state[w].faultsInRow >= kFaultsToRetire)
          state[w].retired = std::to_string(kFaultsToRetire) + " faults in a row (hangs or crashes)";
        json attempt = {{"gpu", state[w].name}, {"error", a.result.value("error", std::string("failed"))}};
        items[i].last = a.result;
        if (static_cast<int>(items[i].attempts.size()) < retries && placeable(i)) {
          items[i].attempts.push_back(std::move(attempt));
          pending.push_front(i); // the next free GPU that has not run it takes it first
        } else {
          a.result["gpu_fault"] = true;
          finish(i, std::move(a.result));
        }
      } else {
        state[w].faultsInRow = 0;
        finish(i, std::move(a.result));
      }
      dropUnplaceable();
      changed.notify_all();
    }
    // the last GPU to stop takes what no GPU can run any more with it
    dropUnplaceable();
    changed.notify_all();
  };
  std::vector<std::thread> threads;
  for (size_t w = 0; w < state.size(); ++w)
    threads.emplace_back(worker, w);
  for (std::thread &t : threads)
    t.join();
  for (const Gpu &g : state) {
    json j = {{"gpu", g.name}, {"items", g.items}, {"faults", g.faults}};
    if (!g.retired.empty())
      j["retired"] = g.retired;
    out.gpus.push_back(std::move(j));
  }
  return out;
}

} // namespace cake::cli
