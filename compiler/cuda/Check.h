//===- Check.h - The CUDA checker's one diagnostics path --------*- C++ -*-===//
//
// Part of CAKE (issue #20). `cake check FILE.cu` and the language server (on
// .cu/.cuh files, when the client opts in) both come here: the file parsed by
// Clang in device mode (Frontend.h), each kernel's events checked by the rules
// (Rules.h), the findings turned into diagnostics with the IR verifier's codes
// (one catalog, docs/rules/CODE.md), sorted as checkSource sorts them. Clang's
// own errors are cuda.error. Clang is linked into this library only (and the
// executables that use it), never into the kernel libraries.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Diagnostic.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cake::cuda {

struct CheckOptions {
  std::string arch = "sm_90a";         ///< sm_80, sm_90a or sm_100a
  std::vector<std::string> clangFlags; ///< the user's build flags (-I, -D, -std), after the checker's own
  std::string cacheDir;                ///< where preambles are precompiled (cacheDir()); "" for none
  /// Read the project's compile_commands.json for the file's flags (before clangFlags): from this folder, or
  /// "" for the file's folder and those above it; nullopt: none read.
  std::optional<std::string> compilationDatabase = std::string();
};

/// Checks buffer \p file of \p sm. A finding in a header the file includes is located in that header, whose
/// text joins \p sm. nullopt when this cake was built without Clang.
std::optional<std::vector<Diagnostic>> checkFile(SourceManager &sm, FileId file, const CheckOptions &options);

/// What the rules see of each kernel of \p file: its events, one a line, nested as the branches and loops are
/// (`cake check --cuda-events`, for tests of what the front end recognizes and for users asking why).
/// nullopt when this cake was built without Clang.
std::optional<std::string> describeEvents(SourceManager &sm, FileId file, const CheckOptions &options);

/// $CAKE_CACHE_DIR ("off": no cache, ""), else $XDG_CACHE_HOME/cake, else $HOME/.cache/cake.
std::string cacheDir();

/// Whether \p path names a CUDA source the checker reads (.cu, .cuh).
bool isCudaSource(std::string_view path);

} // namespace cake::cuda
