//===- Score.cpp - Scoring a candidate of a task on a GPU ------------------===//
#include "compiler/task/Score.h"

#include "compiler/oracle/Generate.h"
#include "compiler/oracle/Poison.h"
#include "compiler/target/Target.h"
#include "compiler/task/Expr.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace cake::task {

bool isConstant(const oracle::HostTensor &t) {
  size_t e = oracle::dtypeSize(t.dtype), n = t.bytes.size() / std::max<size_t>(e, 1);
  if (n < 2)
    return false;
  for (size_t i = 1; i < n; ++i)
    if (std::memcmp(&t.bytes[i * e], &t.bytes[0], e) != 0)
      return false;
  return true;
}

bool sameBytes(const oracle::HostTensor &a, const oracle::HostTensor &b) {
  return a.elements() > 1 && a.bytes == b.bytes;
}

namespace {

using runner::DevicePtr;

/// Bytes of the guard band on each side of a tensor: a multiple of 256, so
/// that every tensor keeps the alignment of an allocation.
constexpr size_t kGuard = 4096;
constexpr uint8_t kGuardByte = 0xA5;
/// How much faster than a launch on new inputs a repeated launch may be before the scorer calls it a cache:
/// warm L2 and caches make repeats faster by tens of percent; a copy of a kept result instead of a GEMM's
/// work is an order of magnitude.
constexpr double kRepeatFaster = 3;

/// One set of tensors on the GPU: the task's (inputs filled from a seed,
/// outputs poisoned) and a contender's scratch, each inside guard bands.
struct Batch {
  oracle::Workload workload; ///< the task's, at these sizes and this seed
  oracle::TensorMap tensors; ///< the task's tensors, on the host
  std::vector<std::pair<std::string, size_t>> scratch; ///< name, bytes
  runner::Buffers buffers;   ///< every tensor and scratch: the address the kernel gets
  std::vector<DevicePtr> bases;
  runner::Runner *gpu = nullptr;

  Batch() = default;
  Batch(Batch &&) = default;
  Batch &operator=(Batch &&) = delete;
  ~Batch() {
    for (DevicePtr p : bases)
      (void)gpu->free(p);
  }
};

/// A defence that tripped: the rejection's reason and message; nullopt when none did.
using Fault = std::optional<std::pair<std::string, std::string>>;

class Scorer {
public:
  Scorer(runner::Runner &gpu, const Task &task, const ScoreOptions &options)
      : gpu_(gpu), task_(task), options_(options), oracle_(oracle::findOracle(task.workload.oracle)) {}

  Expected<Score> run(const std::vector<ShapeToScore> &shapes, Contender &candidate, Contender *baseline) {
    Score score;
    score.device = gpu_.device().name;
    score.target = gpu_.device().cakeTarget();
    score.seed = options_.seed;
    gpu_.setDefaultTimeout(task_.launchTimeoutSeconds);
    phase(120, "loading the candidate's module");
    auto image = candidate.image(gpu_.device());
    if (!image)
      return reject(score, {}, "launch-failed", "the candidate has no image for this GPU: " + image.error().message);
    auto module = gpu_.loadModule(*image);
    if (!module)
      return reject(score, {}, "launch-failed", "the candidate's module does not load: " + module.error().message);
    candidateModule_ = *module;
    if (baseline) {
      auto bimage = baseline->image(gpu_.device());
      if (!bimage)
        return bimage.takeError();
      auto bmodule = gpu_.loadModule(*bimage);
      if (!bmodule)
        return Error(bmodule.error().kind, "the baseline's module does not load: " + bmodule.error().message);
      baselineModule_ = *bmodule;
    }
    const TargetDesc *desc = nullptr;
    if (auto t = parseTarget(score.target))
      desc = &targetDesc(*t);
    std::vector<double> speedups, fractions;
    for (const ShapeToScore &shape : shapes) {
      ShapeResult r;
      r.sizes = shape.sizes;
      r.set = shape.set;
      size_t before = score.rejections.size();
      auto checked = checkShape(score, shape, candidate, r);
      if (!checked)
        return checked.takeError();
      if (score.rejections.size() == before && options_.time) {
        auto timed = timeShape(score, shape, candidate, baseline, r);
        if (!timed)
          return timed.takeError();
      }
      r.correct = score.rejections.size() == before;
      if (r.candidateMs > 0 && desc) {
        double flops = 0;
        if (!task_.flops.empty())
          if (auto f = evalExpr(task_.flops, shape.sizes))
            flops = double(*f);
        double seconds = std::max(flops / desc->bf16DenseFlopsPerSecond,
                                  tensorBytes(task_, shape.sizes) / desc->dramBytesPerSecond);
        r.floorMs = seconds * 1e3;
        r.fractionOfFloor = r.floorMs / r.candidateMs;
        fractions.push_back(r.fractionOfFloor);
      }
      if (r.correct && r.baselineMs > 0 && r.candidateMs > 0) {
        r.speedup = r.baselineMs / r.candidateMs;
        speedups.push_back(r.speedup);
      }
      score.shapes.push_back(std::move(r));
      if (wedged_)
        break;
    }
    auto geomean = [](const std::vector<double> &v) {
      double s = 0;
      for (double x : v)
        s += std::log(x);
      return v.empty() ? 0.0 : std::exp(s / double(v.size()));
    };
    score.geomeanSpeedup = geomean(speedups);
    score.geomeanFraction = geomean(fractions);
    // a baseline that failed is not the candidate's: accepted on its own checks, the speedups left out
    score.accepted = score.rejections.empty() && score.shapes.size() == shapes.size();
    if (!score.baselineError.empty())
      speedups.clear();
    return score;
  }

private:
  runner::Runner &gpu_;
  const Task &task_;
  const ScoreOptions &options_;
  const oracle::Oracle *oracle_;
  runner::ModuleId candidateModule_, baselineModule_;
  bool wedged_ = false;
  uint64_t draws_ = 0;

  void phase(double budget, const std::string &what) {
    if (options_.phase)
      options_.phase(budget, what);
  }
  double launchBudget() const { return task_.launchTimeoutSeconds + pipeline::kGrace; }
  /// A fresh seed for every batch: drawn from the score's seed, never repeated.
  uint64_t nextSeed() { return oracle::mix64(options_.seed * 0x100000001b3ull + ++draws_); }

  Score &reject(Score &score, const ShapeToScore &shape, std::string reason, std::string message) {
    score.rejections.push_back({std::move(reason), std::move(message), shape.sizes, shape.set});
    return score;
  }

  /// The task's tensors at \p sizes from \p seed (inputs from \p inits where
  /// given), plus \p scratch, on the GPU inside guard bands.
  Expected<Batch> makeBatch(const Sizes &sizes, uint64_t seed, const std::vector<oracle::TensorSpec> &scratch,
                            const std::map<std::string, std::string> &inits = {}) {
    Batch b;
    b.gpu = &gpu_;
    b.workload = task_.workload;
    b.workload.sizes = sizes;
    b.workload.seed = seed;
    b.workload.check.seed = seed;
    for (oracle::TensorSpec &t : b.workload.tensors)
      if (auto it = inits.find(t.name); it != inits.end())
        t.init = it->second;
    auto made = oracle::makeTensors(b.workload);
    if (!made)
      return made.takeError();
    b.tensors = std::move(*made);
    auto place = [&](const std::string &name, const void *data, size_t bytes, bool poisonIt) -> Status {
      auto base = gpu_.alloc(bytes + 2 * kGuard);
      if (!base)
        return base.takeError();
      b.bases.push_back(*base);
      if (auto s = gpu_.fill(*base, kGuardByte, bytes + 2 * kGuard); !s)
        return s;
      DevicePtr p = *base + kGuard;
      if (auto s = poisonIt ? gpu_.fill(p, 0xFF, bytes) : gpu_.copyToDevice(p, data, bytes); !s)
        return s;
      b.buffers[name] = p;
      return Ok{};
    };
    for (auto &[name, t] : b.tensors)
      if (auto s = place(name, t.bytes.data(), t.byteSize(), false); !s)
        return s.error();
    for (const oracle::TensorSpec &s : scratch) {
      auto shape = oracle::resolveShape(s, sizes);
      if (!shape)
        return shape.takeError();
      size_t bytes = oracle::dtypeSize(s.dtype);
      for (int64_t d : *shape)
        bytes *= size_t(d);
      if (auto st = place(s.name, nullptr, bytes, true); !st)
        return st.error();
      b.scratch.push_back({s.name, bytes});
    }
    return b;
  }

  bool isOutput(const std::string &name) const {
    return std::any_of(task_.workload.tensors.begin(), task_.workload.tensors.end(),
                       [&](const oracle::TensorSpec &t) { return t.name == name && t.role == oracle::Role::Output; });
  }

  /// Launches \p launches once and waits. A failure wedges the runner (a
  /// trap, an illegal address, a timeout): the scoring ends after it.
  Status launchOnce(runner::ModuleId module, std::vector<pipeline::GpuLaunch> &launches, const std::string &who) {
    phase(launchBudget(), "a launch of the " + who);
    for (pipeline::GpuLaunch &l : launches)
      if (auto s = gpu_.launch(module, l.kernel, l.config, l.params); !s) {
        wedged_ = s.error().kind != Error::InvalidArgument;
        return s;
      }
    if (auto s = gpu_.synchronize(task_.launchTimeoutSeconds); !s) {
      wedged_ = true;
      return s;
    }
    return Ok{};
  }

  Status readOutputs(Batch &b) {
    for (auto &[name, t] : b.tensors)
      if (isOutput(name))
        if (auto s = gpu_.copyToHost(t.bytes.data(), b.buffers.at(name), t.byteSize()); !s)
          return s;
    return Ok{};
  }

  /// The oracle on \p b's outputs, read back first unless \p read is false (read already).
  Expected<oracle::CheckReport> check(Batch &b, bool read = true) {
    if (read)
      if (auto s = readOutputs(b); !s)
        return s.error();
    phase(600, "checking the outputs with the oracle");
    return oracle_->check(b.tensors, b.workload.check);
  }

  static std::string failure(const oracle::CheckReport &r) {
    return r.firstMismatch.empty() ? r.summary : r.firstMismatch + " (" + r.summary + ")";
  }

  /// The inputs unchanged and every guard band intact, else the reason.
  Expected<Fault> integrity(Batch &b) {
    for (auto &[name, t] : b.tensors) {
      if (isOutput(name))
        continue;
      std::vector<std::byte> now(t.byteSize());
      if (auto s = gpu_.copyToHost(now.data(), b.buffers.at(name), now.size()); !s)
        return s.error();
      if (now != t.bytes) {
        size_t at = 0;
        while (at < now.size() && now[at] == t.bytes[at])
          ++at;
        return Fault(
            {"inputs-modified", "the candidate wrote into its input '" + name + "' (first changed byte " +
                                    std::to_string(at) + " of " + std::to_string(now.size()) +
                                    "): a later launch would read other inputs than the check did"});
      }
    }
    std::vector<std::pair<std::string, size_t>> all;
    for (auto &[name, t] : b.tensors)
      all.push_back({name, t.byteSize()});
    all.insert(all.end(), b.scratch.begin(), b.scratch.end());
    std::vector<uint8_t> guard(kGuard);
    for (auto &[name, bytes] : all)
      for (DevicePtr at : {b.buffers.at(name) - kGuard, b.buffers.at(name) + bytes}) {
        if (auto s = gpu_.copyToHost(guard.data(), at, kGuard); !s)
          return s.error();
        if (auto bad = std::find_if(guard.begin(), guard.end(), [](uint8_t v) { return v != kGuardByte; });
            bad != guard.end())
          return Fault(
              {"out-of-bounds", "the candidate wrote " + std::string(at < b.buffers.at(name) ? "before" : "after") +
                                    " tensor '" + name + "' (guard band byte " +
                                    std::to_string(bad - guard.begin()) + " changed)"});
      }
    return Fault();
  }

  /// Whether a launch error ends the candidate's scoring with a rejection.
  Score &launchRejection(Score &score, const ShapeToScore &shape, const Error &e) {
    return reject(score, shape, e.kind == Error::Timeout ? "timeout" : "launch-failed", e.message);
  }

  /// The defences before any timing; a rejection is added to \p score.
  Status checkShape(Score &score, const ShapeToScore &shape, Contender &candidate, ShapeResult &r) {
    auto scratch = candidate.scratch(shape.sizes);
    if (!scratch) {
      reject(score, shape, "unsupported-shape", scratch.error().message);
      return Ok{};
    }
    // 1. fresh inputs (seed A): the oracle, the inputs left alone, the guard bands
    auto a = makeBatch(shape.sizes, nextSeed(), *scratch);
    if (!a)
      return a.takeError();
    auto launches = candidate.launches(gpu_, a->buffers, shape.sizes);
    if (!launches) {
      reject(score, shape, "unsupported-shape", launches.error().message);
      return Ok{};
    }
    if (auto s = launchOnce(candidateModule_, *launches, "candidate"); !s) {
      launchRejection(score, shape, s.error());
      return Ok{};
    }
    // 2. other inputs (seed B) at other addresses, launched before any verdict on A: the outputs must differ
    // from A's and not be one value repeated, whatever the oracle would say of them
    auto b = makeBatch(shape.sizes, nextSeed(), *scratch);
    if (!b)
      return b.takeError();
    auto lb = candidate.launches(gpu_, b->buffers, shape.sizes);
    if (!lb)
      return lb.takeError();
    if (auto s = launchOnce(candidateModule_, *lb, "candidate"); !s) {
      launchRejection(score, shape, s.error());
      return Ok{};
    }
    if (auto s = readOutputs(*a); !s)
      return s;
    if (auto s = readOutputs(*b); !s)
      return s;
    for (auto &[name, t] : b->tensors) {
      if (!isOutput(name) || oracle::countUnwritten(t).count || oracle::countUnwritten(a->tensors.at(name)).count)
        continue; // unwritten elements: the oracle names them below
      if (isConstant(t)) {
        reject(score, shape, "constant-output",
               "every element of output '" + name + "' is the same value: the outputs do not depend on the inputs");
        return Ok{};
      }
      if (sameBytes(t, a->tensors.at(name))) {
        reject(score, shape, "seed-independent",
               "output '" + name + "' is the same for two different seeded inputs: it does not depend on them");
        return Ok{};
      }
    }
    auto ra = check(*a, /*read=*/false);
    if (!ra)
      return ra.takeError();
    r.check = ra->summary;
    if (!ra->ok) {
      reject(score, shape, ra->unwritten ? "unwritten" : "mismatch",
             ra->unwritten ? std::to_string(ra->unwritten) +
                                 " output elements still hold the poison written before the launch: " + ra->summary
                           : failure(*ra));
      return Ok{};
    }
    // after every launch below too: the inputs unchanged, the guard bands intact
    auto intact = [&](Batch &x) -> Expected<bool> {
      auto bad = integrity(x);
      if (!bad)
        return bad.takeError();
      if (*bad)
        reject(score, shape, (*bad)->first, (*bad)->second);
      return !*bad;
    };
    for (Batch *x : {&*a, &*b}) {
      auto ok = intact(*x);
      if (!ok)
        return ok.takeError();
      if (!*ok)
        return Ok{};
    }
    auto rb = check(*b, /*read=*/false);
    if (!rb)
      return rb.takeError();
    if (!rb->ok) {
      reject(score, shape, rb->unwritten ? "unwritten" : "mismatch", "with a second seed: " + failure(*rb));
      return Ok{};
    }
    // 3. new inputs at B's addresses, its outputs poisoned again: a cache keyed by address gives B's outputs
    Batch &c = *b;
    c.workload.seed = c.workload.check.seed = nextSeed();
    auto refill = oracle::makeTensors(c.workload);
    if (!refill)
      return refill.takeError();
    c.tensors = std::move(*refill);
    for (auto &[name, t] : c.tensors)
      if (auto s = gpu_.copyToDevice(c.buffers.at(name), t.bytes.data(), t.byteSize()); !s)
        return s;
    for (auto &[name, bytes] : c.scratch) // a pipeline's intermediates too: no stage may hand B's to the next
      if (auto s = gpu_.fill(c.buffers.at(name), 0xFF, bytes); !s)
        return s;
    if (auto s = launchOnce(candidateModule_, *lb, "candidate"); !s) {
      launchRejection(score, shape, s.error());
      return Ok{};
    }
    auto rc = check(c);
    if (!rc)
      return rc.takeError();
    if (!rc->ok) {
      reject(score, shape, "cached-by-address",
             "new inputs written to the same addresses, the outputs poisoned again, did not give their own outputs (a "
             "result cached by the inputs' addresses?): " +
                 failure(*rc));
      return Ok{};
    }
    if (auto ok = intact(c); !ok || !*ok)
      return ok ? Status(Ok{}) : Status(ok.takeError());
    // 4. the task's adversarial inputs
    for (const AdversarialSet &set : task_.adversarial) {
      auto d = makeBatch(shape.sizes, nextSeed(), *scratch, set.inits);
      if (!d)
        return d.takeError();
      auto ld = candidate.launches(gpu_, d->buffers, shape.sizes);
      if (!ld)
        return ld.takeError();
      if (auto s = launchOnce(candidateModule_, *ld, "candidate"); !s) {
        launchRejection(score, shape, s.error());
        return Ok{};
      }
      auto rd = check(*d);
      if (!rd)
        return rd.takeError();
      if (!rd->ok) {
        reject(score, shape, "adversarial",
               "adversarial inputs '" + set.name + "' (a precision cut or a near tie?): " + failure(*rd));
        return Ok{};
      }      if (auto ok = intact(*d); !ok || !*ok)
        return ok ? Status(Ok{}) : Status(ok.takeError());
    }
    return Ok{};
  }

  /// What one timed batch measured.
  struct BatchTime {
    double ms = 0;      ///< the pipeline's median per launch
    double freshMs = 0; ///< one launch on the batch's new inputs, the GPU warmed on the batch before; 0: none
    double wallPerLaunch = 0;
  };

  /// One timed batch of \p who on fresh inputs at fresh addresses (\p previous, the batch before, stays
  /// allocated until this one is, and warms the GPU before the first launch on the new inputs); its outputs
  /// poisoned before every launch and checked again after the timing, its inputs and guard bands too. The
  /// number of launches is drawn from the seed, so that no kernel can know which launch is the last. nullopt
  /// with \p why when the check after the timing failed. The baseline (\p candidate false) is trusted: no
  /// launch on new inputs, no integrity check, only its outputs after the timing.
  Expected<std::optional<BatchTime>> timeBatch(Contender &who, bool candidate, runner::ModuleId module,
                                               const Sizes &sizes, const std::vector<oracle::TensorSpec> &scratch,
                                               std::string &reason, std::string &why, std::optional<Batch> &previous) {
    auto made = makeBatch(sizes, nextSeed(), scratch);
    if (!made)
      return made.takeError();
    Batch b = std::move(*made);
    auto launches = who.launches(gpu_, b.buffers, sizes);
    if (!launches)
      return launches.takeError();
    BatchTime out;
    auto timeAll = [&](std::vector<pipeline::GpuLaunch> &ls, const runner::TimingOptions &base, bool poison,
                       double *wall) -> Expected<double> {
      double total = 0;
      for (size_t i = 0; i < ls.size(); ++i) {
        runner::TimingOptions t = base;
        if (poison && i + 1 == ls.size())
          for (auto &[name, tensor] : b.tensors)
            if (isOutput(name))
              t.poison.push_back({b.buffers.at(name), tensor.byteSize()});
        phase(launchBudget() * double(t.warmup + t.repetitions), "timing " + ls[i].kernel);
        auto timed = gpu_.time(module, ls[i].kernel, ls[i].config, ls[i].params, t);
        if (!timed) {
          wedged_ = true;
          return timed.takeError();
        }
        total += timed->medianMs;
        if (wall && i + 1 == ls.size())
          *wall = timed->wallMs / double(timed->samplesMs.size());
      }
      return total;
    };
    runner::TimingOptions timing;
    timing.coldL2 = task_.timing.coldL2;
    timing.timeoutSeconds = task_.launchTimeoutSeconds;
    timing.syncDevice = true;
    if (candidate && previous) {
      // the GPU busy on other inputs first (clocks up), then one launch on inputs this kernel has never seen
      auto warm = who.launches(gpu_, previous->buffers, sizes);
      if (!warm)
        return warm.takeError();
      runner::TimingOptions w = timing;
      w.warmup = 1, w.repetitions = 2;
      if (auto t = timeAll(*warm, w, false, nullptr); !t)
        return t.takeError();
      runner::TimingOptions f = timing;
      f.warmup = 0, f.repetitions = 1;
      auto fresh = timeAll(*launches, f, true, nullptr);
      if (!fresh)
        return fresh.takeError();
      out.freshMs = *fresh;
    }
    previous.reset(); // the batch before is freed only now: this one's addresses differ from it
    timing.warmup = task_.timing.warmup;
    timing.repetitions = task_.timing.reps + int(nextSeed() % uint64_t(task_.timing.reps)); // reps .. 2 reps - 1
    auto ms = timeAll(*launches, timing, true, &out.wallPerLaunch);
    if (!ms)
      return ms.takeError();
    out.ms = *ms;
    auto r = check(b);
    if (!r)
      return r.takeError();
    if (!r->ok) {
      reason = "stale-after-timing";
      why = (r->unwritten ? "outputs unwritten after the timed launches (poisoned before each one): "
                          : "outputs wrong after the timed launches: ") +
            failure(*r);
      return std::optional<BatchTime>();
    }
    Expected<Fault> bad = candidate ? integrity(b) : Expected<Fault>(Fault());
    if (!bad)
      return bad.takeError();
    if (*bad) {
      reason = (*bad)->first;
      why = (*bad)->second + " (in a timed batch)";
      return std::optional<BatchTime>();
    }
    previous.emplace(std::move(b));
    return std::optional<BatchTime>(out);
  }

  Status timeShape(Score &score, const ShapeToScore &shape, Contender &candidate, Contender *baseline,
                   ShapeResult &r) {
    auto scratch = candidate.scratch(shape.sizes);
    if (!scratch)
      return scratch.takeError();
    std::vector<oracle::TensorSpec> baselineScratch;
    if (baseline && score.baselineError.empty()) {
      auto bs = baseline->scratch(shape.sizes);
      if (!bs)
        score.baselineError = "the baseline does not take " + sizesText(shape.sizes) + ": " + bs.error().message;
      else
        baselineScratch = std::move(*bs);
    }
    bool timeBaseline = baseline && score.baselineError.empty();
    std::vector<double> cand, base, fresh;
    double wall = 0;
    std::optional<Batch> previousCandidate, previousBaseline;
    for (int round = 0; round < task_.timing.rounds; ++round) {
      // ABBA: the candidate first in even rounds, the baseline first in odd ones
      for (int turn = 0; turn < 2; ++turn) {
        bool candidateTurn = (turn == 0) == (round % 2 == 0);
        if (!candidateTurn && !timeBaseline)
          continue;
        std::string reason, why;
        auto t = candidateTurn
                     ? timeBatch(candidate, true, candidateModule_, shape.sizes, *scratch, reason, why,
                                 previousCandidate)
                     : timeBatch(*baseline, false, baselineModule_, shape.sizes, baselineScratch, reason, why,
                                 previousBaseline);
        if (!t) {
          if (t.error().kind == Error::Timeout || wedged_) {
            if (candidateTurn)
              launchRejection(score, shape, t.error());
            else
              score.baselineError = "the baseline failed at " + sizesText(shape.sizes) + ": " + t.error().message;
            return Ok{};
          }
          return t.takeError();
        }
        if (!*t) {
          if (candidateTurn) {
            reject(score, shape, reason, why);
            return Ok{};
          }
          score.baselineError = "the baseline at " + sizesText(shape.sizes) + ": " + why;
          timeBaseline = false;
          continue;
        }
        (candidateTurn ? cand : base).push_back((*t)->ms);
        if (candidateTurn) {
          wall += (*t)->wallPerLaunch;
          if ((*t)->freshMs > 0)
            fresh.push_back((*t)->freshMs);
        }
      }
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      size_t n = v.size();
      return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    };
    r.batchMs = cand;
    r.candidateMs = median(cand);
    r.baselineMs = timeBaseline ? median(base) : 0;
    r.freshMs = median(fresh);
    r.wallPerLaunchMs = cand.empty() ? 0 : wall / double(cand.size());
    // a kernel much faster on inputs it has seen than on new ones keeps results by their content: the time of
    // a repeated launch is then the time of a copy, not of the work
    if (r.freshMs > 0 && r.candidateMs < r.freshMs / kRepeatFaster) {
      std::ostringstream m;
      m << "the kernel took " << r.candidateMs << " ms a launch on inputs it had seen and " << r.freshMs
        << " ms on new ones (more than " << kRepeatFaster
        << "x faster on repeats): results kept by the inputs' content? The time would not be the work's";
      reject(score, shape, "repeat-faster", m.str());
    }
    return Ok{};
  }
};

} // namespace

Expected<Score> scoreOnGpu(runner::Runner &gpu, const Task &task, const std::vector<ShapeToScore> &shapes,
                           Contender &candidate, Contender *baseline, const ScoreOptions &options) {
  if (auto s = validate(task); !s)
    return s.error();
  return Scorer(gpu, task, options).run(shapes, candidate, baseline);
}

} // namespace cake::task
