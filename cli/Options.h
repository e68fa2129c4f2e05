//===- Options.h - Command-line parsing shared by the subcommands -*- C++ -*-===//
#pragma once

#include <cxxopts.hpp>
#include <optional>

namespace cake::cli {

/// Parses \p argv with \p options into \p args. Returns the exit code to stop
/// with after printing: 2 for a usage error (on stderr, pointing at --help),
/// 0 for --help (the options' help on stdout). nullopt: go on with \p args.
/// \p options must declare "h,help".
std::optional<int> parseCommandLine(cxxopts::Options &options, int argc, char **argv, cxxopts::ParseResult &args);

} // namespace cake::cli
