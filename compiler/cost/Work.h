//===- Work.h - What a kernel does per tile, for the cost model -*- C++ -*-===//
//
// Part of CAKE. Walks the roles of a kernel at one binding of its sizes and
// lists, per role, every operation that costs something with its count,
// bytes and flops per tile, the phase it runs in (top-level statements of
// the tile body run one after the other; the operations of one phase
// overlap) and, for loads, which tile coordinates index its source (for the
// L2 reuse model). Internal to compiler/cost/.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cost/Cost.h"

#include <set>

namespace cake::cost {

enum class MmaKind { None, Sync, Wgmma, Tcgen05 };

struct OpWork {
  const syntax::Expr *call = nullptr;
  sema::OpId id = sema::OpId::None; ///< None for a chain of elementwise math
  std::string op;                   ///< its name, or "elementwise", for OpCost and messages
  Bottleneck resource = Bottleneck::Issue;
  MmaKind mma = MmaKind::None;
  bool load = false, store = false; ///< global traffic
  double count = 0, bytes = 0, flops = 0; ///< per tile, all issue units
  /// CUDA-core instructions per tile: per warp (each warp of the role runs
  /// the same stream) and over all the role's warps (the SM's issue slots).
  double warpInstructions = 0, instructions = 0;
  int phase = 0;
  std::set<std::string> axes; ///< tile coordinates its source depends on ("m", "cta.0")
};

struct RoleWork {
  const sema::Role *role = nullptr;
  std::vector<OpWork> ops;
  std::map<std::string, double> produced, consumed; ///< ring trips per tile
};

struct KernelWork {
  bool scheduled = false;              ///< a sched.tiles loop
  double tiles = 1;
  std::vector<std::pair<std::string, int64_t>> tileDims; ///< sched.tiles extents in order
  int64_t group = 0;                   ///< sched.tiles group (0: none)
  int64_t grid[3] = {1, 1, 1};         ///< for a kernel without a schedule
  std::vector<RoleWork> roles;
  std::vector<std::string> problems;   ///< why no estimate (unknown ops, sizes)
};

KernelWork collectWork(const sema::Kernel &k, const Sizes &sizes);

/// Bytes of global parameter \p p at \p sizes, or nullopt.
std::optional<double> paramBytes(const sema::Kernel &k, const sema::Param &p, const Sizes &sizes);

} // namespace cake::cost
