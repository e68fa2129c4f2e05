//===- Preamble.h - The includes of a .cu file, precompiled once -*- C++ -*-===//
//
// Part of CAKE (issue #20, "at most 1 s per translation unit"). Parsing a CUDA
// file is mostly parsing what it includes: ThunderKittens' kittens.cuh alone
// takes Clang 0.9 s on the 2-core machine, the CUDA wrappers 0.3 s. As clangd
// does, the file's preamble (its leading #include, #define and #if lines,
// Clang's Lexer::ComputePreamble) is precompiled once into a PCH, kept in a
// cache folder under a key of everything that shapes it (Clang's version, the
// flags, the folder, the preamble's text) and checked against the size and
// time of every file it read; the file is then parsed with that preamble's
// bytes blanked (lines and columns kept) on top of the PCH. A preamble whose
// build hit a fatal error (a missing header) is not kept: a header created
// later must be seen.
//
// Clang 19 loses some host declarations when it reads a CUDA PCH (Frontend.cpp says which and what is done):
// when the parse on top of a preamble shows what that loss looks like (a host call finding only __device__
// candidates), the file is parsed whole too. Where the two agree (the same errors: genuine ones, ThunderKittens'
// host harness calling isnan), the errors are remembered and a later parse on the PCH with no others is taken
// as it is; where they differ, the preamble is marked so that its files are parsed whole from then on (until it
// is rebuilt), never paying for both parses twice.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "compiler/cuda/Frontend.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cake::cuda::detail {

struct Preamble {
  std::string pch;    ///< the precompiled preamble
  std::string header; ///< the name it was built under: a file beside the checked one that does not exist
  std::string text;   ///< the preamble's text (the first `bytes` of the file)
  std::vector<ParseResult::Error> errors; ///< Clang's errors while building it, given again whenever it is used
  bool reused = false;                    ///< found in the cache rather than built now
};

/// The preamble of \p text (the file \p path), parsed with \p args and the virtual files \p shim, from \p cacheDir
/// or built into it; nullopt when the file has no preamble, the folder cannot be written or the build failed
/// (the caller parses the whole file then), as when the build hit a fatal error (a header not found): Clang
/// parses on past it with its diagnostics suppressed, and a header made later must be seen.
std::optional<Preamble> preamble(const std::string &path, const std::string &text, const std::vector<std::string> &args,
                                 const std::vector<std::pair<std::string, std::string>> &shim,
                                 const std::string &cacheDir);

/// Remembers that the file parsed on top of \p p had to be parsed whole (Clang 19's CUDA-PCH loss of host
/// overloads showed): until the preamble is rebuilt, preamble() gives nullopt for it and the cost is a whole
/// parse, not a parse on the PCH and then a whole one.
void parseWholeFromNowOn(const Preamble &p);

/// Whether a parse on top of \p p that gave \p errors, among them what Clang 19's CUDA-PCH loss of host
/// overloads looks like (Frontend.cpp), is known to give what the whole parse gives: a parse on it gave these
/// errors, or more, once, and the whole parse the same (markFaithful). Then the whole parse is not needed.
bool knownFaithful(const Preamble &p, const std::vector<ParseResult::Error> &errors);

/// Remembers that a parse on top of \p p gave \p errors and the whole parse the same ones (`<key>.faithful`).
void markFaithful(const Preamble &p, const std::vector<ParseResult::Error> &errors);

/// The text to parse on top of \p p: \p text with the preamble's bytes blanked, new lines kept.
std::string withoutPreamble(const std::string &text, const Preamble &p);

} // namespace cake::cuda::detail
