//===- Facts.h - Derived facts shown by hover and inlay hints --*- C++ -*-===//
//
// Part of CAKE. Numbers the language server derives from the semantic model
// and the target description without a cost model: bytes of types, ring
// stages and kernels' shared memory, register budgets, the expect-tx bytes
// of a ring commit. Every target number comes from compiler/target.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/sema/Model.h"

#include <optional>
#include <string>
#include <vector>

namespace cake::lsp {

/// "512 B", "48 KiB", "1 MiB", "224.06 KiB".
std::string formatBytes(int64_t bytes);
/// "229,440".
std::string withCommas(int64_t value);

/// Bytes of every stage of \p ring together (stages x bytes per stage).
std::optional<int64_t> ringBytes(const sema::Ring &ring);
/// "4 x 48 KiB = 192 KiB", or "" when the sizes are not known.
std::string ringSummary(const sema::Ring &ring);

/// One line of a kernel's shared-memory ledger.
struct SmemLine {
  std::string what; ///< "ring ab", "var epi", "ring barriers", "alignment"
  std::string how;  ///< "4 x 48 KiB", "bf16[2, 2, 64, 64]", "8 x 8 B"
  std::optional<int64_t> bytes;
};

/// One role of a kernel's register ledger.
struct RegLine {
  std::string role;
  std::optional<int64_t> threads;
  std::optional<int64_t> regs; ///< per thread
  bool launchShare = false;    ///< no regs(...): the launch share applies
};

/// The resource ledger of a kernel (language reference, sections 5 to 8).
struct Ledger {
  const TargetDesc *desc = nullptr;
  int64_t occupancy = 1;
  std::optional<int64_t> threads;
  std::vector<SmemLine> smem;
  /// The dynamic shared memory the launch asks for (the lowering's layout,
  /// with alignment padding and base slack, the last line of smem); nullopt
  /// when some size is unknown.
  std::optional<int64_t> smemTotal;
  int64_t smemCapacity = 0;         ///< the target's per-CTA capacity / occupancy
  std::vector<RegLine> regs;
  std::optional<int64_t> regTotal;
  int64_t regCapacity = 0; ///< registers per SM / occupancy
};

Ledger ledger(const sema::Kernel &kernel);


/// The expect-tx bytes of the ring commit \p commit (`R.commit(p)`) in
/// \p kernel, for hover: sema's fact (sema::commitTxBytes), the number the
/// lowering arms the full barrier with; nullopt when the commit arms none.
std::optional<int64_t> commitBytes(const syntax::Expr &commit, const sema::Kernel &kernel);

/// Space, element (its bytes), shape and size of a type written in a kernel
/// whose constants are \p env, on one line (Markdown inline code).
std::string describeType(const syntax::TypeExpr &type, const sema::ConstEnv &env);

} // namespace cake::lsp
