//===- Options.cpp - Command-line parsing shared by the subcommands -------===//
#include "cli/Options.h"

#include "cli/Commands.h"
#include "diagnostics/TextRenderer.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>

namespace cake::cli {

std::optional<int> parseCommandLine(cxxopts::Options &options, int argc, char **argv, cxxopts::ParseResult &args) {
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception &e) {
    std::cerr << options.program() << ": " << shown(e.what()) << " (see '" << options.program() << " --help')\n";
    return UsageError;
  }
  if (args.count("help")) {
    std::cout << options.help();
    return Success;
  }
  return std::nullopt;
}

int reportFailure(std::string_view tool, std::string_view message, int code) {
  std::cerr << tool << ": " << shown(message) << "\n";
  return code;
}

std::string shown(std::string_view text) { return visibleText(text); }

std::vector<std::string> argumentsAgain(int argc, char **argv, const std::string &file,
                                        std::initializer_list<std::string_view> dropped) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == file)
      continue;
    bool drop = false;
    for (std::string_view d : dropped) {
      if (a == d) { // its value follows
        drop = true;
        ++i;
        break;
      }
      // --long=VALUE, or a short option with its value attached (-oVALUE)
      drop = (a.starts_with(d) && a.size() > d.size() && (a[d.size()] == '=' || !d.starts_with("--")));
      if (drop)
        break;
    }
    if (!drop)
      out.emplace_back(a);
  }
  return out;
}

std::optional<std::vector<std::pair<std::string, int64_t>>> sizeArgs(const cxxopts::ParseResult &args,
                                                                     const std::string &option, std::string &error) {
  std::vector<std::pair<std::string, int64_t>> out;
  if (args.count(option))
    for (const std::string &s : args[option].as<std::vector<std::string>>()) {
      size_t eq = s.find('=');
      char *end = nullptr;
      errno = 0;
      long long v = eq == std::string::npos ? 0 : std::strtoll(s.c_str() + eq + 1, &end, 10);
      if (eq == std::string::npos || eq == 0 || !end || *end || v < 1 || errno == ERANGE) {
        error = "--" + option + " takes NAME=VALUE with a positive integer, not '" + s + "'";
        return std::nullopt;
      }
      out.emplace_back(s.substr(0, eq), v);
    }
  return out;
}

} // namespace cake::cli
