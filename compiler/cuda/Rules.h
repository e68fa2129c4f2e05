//===- Rules.h - Hazard rules over CUDA kernels' events ---------*- C++ -*-===//
//
// Part of CAKE (issue #20). The IR verifier's codes where they apply to CUDA:
//   mbar.init-fence  an mbarrier initialized and then used by the async proxy (a TMA or bulk copy completing
//                    on it, an expect-tx announcing one) with no fence.mbarrier_init between: the async proxy may
//                    see the barrier uninitialized (threads' own arrives and waits see it after a CTA barrier)
//   bar.uniform      __syncthreads() under a branch or loop whose condition the block's threads may answer
//                    differently (decided over the block's threads where the condition reads only their index)
//   bar.ids          a named barrier's id past 15, a thread count not a positive multiple of 32, one id with two
//                    counts, barrier 0 with a count beside __syncthreads()
//   mbar.expect-tx   an expect-tx's constant bytes against the constant sizes of the bulk copies after it
//   proxy.fence      a generic-proxy write of shared memory, then a TMA store with no fence.proxy.async
//                    between: the store (async proxy) may read the shared memory before the write; and generic
//                    reads (ld.shared, ldmatrix) then a plain mbarrier arrive (a release for a TMA overwrite)
//   wgmma.inflight   a read of an accumulator (a float array, or one buffer of an array of them) that a
//                    wgmma.mma_async writes, before a wgmma.wait_group retires its group
//   bar.race         an mbarrier arrive by one lane (under a lane or elect branch) after every lane wrote shared
//                    memory, with no barrier among the lanes between: the arrive releases the arriving lane's
//                    writes only
//   tma.store-wait   a TMA store (bulk group) not waited with cp.async.bulk.wait_group before the kernel ends:
//                    the shared memory it reads may be released while it still reads it
// Each finding is located at an event; what the source order cannot decide is not reported.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cuda/Events.h"

#include <optional>

namespace cake::cuda {

struct Finding {
  std::string code;
  Where at;
  std::string message;
  /// false: what the checker could not decide (a count it cannot evaluate), said as a note, never an error
  bool decided = true;
  struct Note {
    Where at;
    std::string message;
  };
  std::vector<Note> notes;
  /// An insertion that restores the intended program, where one is exact (tma.store-wait at the kernel's end:
  /// the wait before its closing brace); the text goes on its own line before the brace.
  struct Insert {
    std::string title;
    Where before;
    std::string statement;
  };
  std::optional<Insert> fix = std::nullopt;
};

/// The findings of one kernel, in source order.
std::vector<Finding> checkKernel(const KernelEvents &kernel);

} // namespace cake::cuda
