//===- Events.h - What a CUDA kernel does, as the CUDA checker sees it -*- C++ -*-===//
//
// Part of CAKE (issue #20). `cake check FILE.cu` reads a CUDA translation unit
// with Clang (Frontend.h) and reduces each __global__ function to the
// hardware operations it issues, in source order: inline PTX of `asm
// volatile` statements, wherever they are written (in the kernel or in a
// device function it calls, inlined at the call: CUTLASS's, CuTe's and CAKE's
// own runtime helpers are such functions), and the CUDA builtins that act as
// barriers, with the loops around them (LoopBegin/LoopEnd, and whether a
// loop may run zero times). The rules (Rules.h) read only this model, so they
// run and are tested without Clang: source order, each loop's body taken
// twice (its back edge) and joined with its zero-trip path; branches are read
// in source order (role predicates are not decided yet).
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cake::cuda {

enum class EventKind {
  MbarInit,        ///< mbarrier.init
  FenceMbarInit,   ///< fence.mbarrier_init (the init made visible to the async proxy and the cluster)
  MbarArrive,      ///< mbarrier.arrive (without expect_tx: a release of what the thread read or wrote)
  MbarExpectTx,    ///< mbarrier.arrive.expect_tx / expect_tx (a producer's, before its TMA copies complete; n: the
                   ///< bytes, -1 when not a constant)
  MbarWait,        ///< mbarrier.try_wait / test_wait
  TmaLoad,         ///< cp.async.bulk.tensor global -> shared (completes on an mbarrier; its bytes are the host's
                   ///< tensor map's box)
  BulkLoad,        ///< cp.async.bulk global -> shared, not tensor (completes on an mbarrier; n: its size operand)
  TmaStore,        ///< cp.async.bulk.tensor shared -> global (a bulk group)
  BulkCommit,      ///< cp.async.bulk.commit_group
  BulkWait,        ///< cp.async.bulk.wait_group(.read)
  FenceProxyAsync, ///< fence.proxy.async
  CtaBarrier,      ///< __syncthreads, bar.sync 0, barrier.sync 0 (no count)
  NamedBarrier,    ///< bar.sync / bar.arrive / barrier.sync / barrier.arrive with an id (n) and maybe a thread
                   ///< count (threads), -1 where not a constant
  WarpBarrier,     ///< __syncwarp, bar.warp.sync: the lanes of one warp
  SharedRead,      ///< a generic-proxy read of shared memory in PTX: ld.shared, ldmatrix
  SharedWrite,     ///< a generic-proxy write of shared memory: st.shared, stmatrix, a C++ store to a __shared__ object
  WgmmaMma,        ///< wgmma.mma_async (object: the accumulator it writes)
  WgmmaCommit,     ///< wgmma.commit_group
  WgmmaWait,       ///< wgmma.wait_group N (n: N, -1 when not a constant)
  TmemLoad,        ///< tcgen05.ld (object: the register array it writes)
  TmemWait,        ///< tcgen05.wait::ld (every earlier tcgen05.ld of the thread has landed)
  AccRead,         ///< a read of an element of a float array, or of a 32-bit array a tcgen05.ld wrote (object:
                   ///< which array, or which buffer of it)
  LoopBegin,       ///< a loop's body starts (mayBeEmpty unless its trip count is known positive)
  LoopEnd,         ///< the loop's body ends
  BranchBegin,     ///< an if: its then-arm follows (text: the condition)
  BranchElse,      ///< its else-arm follows (present also when the if has none)
  BranchEnd,       ///< the arms meet
  Other,           ///< any other inline PTX
};

/// Where an event is: the line and column (1-based) of the statement in the file the user wrote (the call of a
/// helper, not the helper's asm), and that file when it is a header the checked file includes (a kernel defined
/// in a header beside it).
struct Where {
  uint32_t line = 0, column = 0;
  std::string file = {}; ///< "": the file checked
};

struct Event {
  EventKind kind = EventKind::Other;
  Where at;
  std::string text;   ///< the PTX instruction (its first line), or the builtin's name
  std::string via;    ///< the helper function it came through, "" when written in the kernel
  bool mayBeEmpty = true; ///< LoopBegin: whether the loop may run zero times
  /// BranchBegin: the condition's identity when the thread's answer never changes (it reads only the thread's
  /// index, constants and values fixed for the kernel): every branch on it takes the same arm, "" otherwise.
  /// WgmmaMma, AccRead: the register array (a variable of the kernel, followed through the helpers' reference
  /// parameters), with its buffer when it is an array of arrays indexed by a constant (`acc[1]`: "acc#1"; not a
  /// constant: "acc#?")
  std::string object = {};
  /// WgmmaWait: the groups it leaves in flight; NamedBarrier: its id; MbarExpectTx, BulkLoad: bytes; BranchBegin:
  /// the block size up to which every thread agrees on the condition, when the kernel does not say its size
  int64_t n = -1;
  int64_t threads = -1; ///< NamedBarrier: the thread count (-1: none given, all the CTA's; -2: not a constant)
  /// MbarInit, MbarArrive, MbarWait: the mbarrier, as the variable its address comes from (through
  /// helpers' parameters and the fields of argument structs; the index of an array of barriers dropped), ""
  /// when not followed
  std::string barrier = {};
  /// BranchBegin, LoopBegin: whether the threads of a CTA may take it differently (its condition reads the
  /// thread's index, lane, warp or an elect, directly or through a variable or a device function)
  bool divergent = false;
  /// BranchBegin: whether the threads agree depends on the block's shape (threadIdx.x in a block of more than one
  /// dimension): a CTA barrier under it is not decided
  bool shapeDependent = false;
  /// Under a branch one lane of a warp takes (`if (lane_id() == 0)`, `threadIdx.x % 32 == 0`, `threadIdx.x == 0`,
  /// an elect): what it does is that lane's alone.
  bool oneLane = false;
  /// NamedBarrier: the id each thread of the block (threadIdx.x, up to the kernel's __launch_bounds__) uses here,
  /// -1 where the thread does not get here; empty when not decided (no launch bounds, a block of more dimensions,
  /// a condition on data, a divergent loop or early exit around it)
  std::vector<int16_t> reach = {};
};

struct KernelEvents {
  std::string name;
  Where at;
  std::vector<Event> events; ///< in source order
  Where end = {};            ///< the closing brace of its body
};

/// The kind of one PTX instruction (its text, with any `{`, predicates and operands).
EventKind classifyPtx(const std::string &instruction);

/// The operands of one PTX instruction, split at the commas outside brackets and braces
/// (`mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1`: "_", "[%0]", "%1").
std::vector<std::string> ptxOperands(const std::string &instruction);

} // namespace cake::cuda
