//===- Options.h - Command-line parsing shared by the subcommands -*- C++ -*-===//
#pragma once

#include <cxxopts.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cake::cli {

/// Parses \p argv with \p options into \p args. Returns the exit code to stop
/// with after printing: 2 for a usage error (on stderr, pointing at --help),
/// 0 for --help (the options' help on stdout). nullopt: go on with \p args.
/// \p options must declare "h,help".
std::optional<int> parseCommandLine(cxxopts::Options &options, int argc, char **argv, cxxopts::ParseResult &args);

/// Prints "TOOL: MESSAGE" on stderr and returns \p code. The message often
/// holds user text (a file name, an option's value), so control characters
/// and bidirectional overrides in it are shown as '?' (visibleText; issue
/// #16: a file name's escape sequence reached the terminal raw).
int reportFailure(std::string_view tool, std::string_view message, int code);

/// The NAME=VALUE pairs given to the repeated option \p option (`--size`),
/// each VALUE a positive integer that fits int64; nullopt with \p error
/// saying which one is not.
std::optional<std::vector<std::pair<std::string, int64_t>>> sizeArgs(const cxxopts::ParseResult &args,
                                                                     const std::string &option, std::string &error);

/// The arguments after the command name (argv[1..]) that run it on \p file again, for the failure log:
/// without \p file itself and without the options of \p dropped, each with its value ("--report R",
/// "--report=R", "-o R", "-oR"): where the result went or how it was printed.
std::vector<std::string> argumentsAgain(int argc, char **argv, const std::string &file,
                                        std::initializer_list<std::string_view> dropped);

/// \p text made safe for a terminal (cake::visibleText), for the messages
/// that are not a plain failure.
std::string shown(std::string_view text);

} // namespace cake::cli
