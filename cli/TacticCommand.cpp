//===- TacticCommand.cpp - `cake tactic` ----------------------------------===//
//
// `cake tactic list`: the table of tactics (compiler/driver/Tactics.h).
// `cake tactic apply FILE --tactic NAME --arg KEY=VALUE ... [--size N=V ...]
// [-o OUT]`: the rewrite checked again (refused, with the located reason,
// when it does not apply or leaves errors), and with sizes the cost model's
// prediction of each kernel before and after ("stages 4 -> 5: -6%
// predicted"). Prints the rewritten file, or writes it with -o.
//
//===----------------------------------------------------------------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "compiler/cost/Cost.h"
#include "compiler/driver/Check.h"
#include "compiler/driver/Tactics.h"
#include "formats/CostSupport.h"
#include "formats/Input.h"

#include <cxxopts.hpp>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <unistd.h>

namespace cake::cli {

namespace {

/// Each kernel's predicted seconds at \p sizes (nullopt outside the model).
std::map<std::string, std::optional<double>> predict(const std::string &path, const std::string &text,
                                                     const cost::Sizes &sizes) {
  std::map<std::string, std::optional<double>> out;
  SourceManager sm;
  FileId file = sm.addBuffer(path, text);
  CheckResult r = checkSource(sm, file);
  if (!r.model)
    return out;
  for (const sema::Kernel &k : r.model->kernels) {
    std::string note;
    cost::Calibration cal = formats::calibrationFor(k.target, std::nullopt, note);
    out[k.decl->name.name] = cost::estimate(k, sizes, cal).seconds;
  }
  return out;
}

} // namespace

int runTactic(int argc, char **argv) {
  cxxopts::Options o("cake tactic", "Named, parameterized schedule rewrites, checked again when applied.\nUsage:\n"
                                    "  cake tactic list\n  cake tactic apply FILE --tactic NAME --arg KEY=VALUE... "
                                    "[--size NAME=VALUE...] [-o OUT]");
  o.add_options()("tactic", "The tactic (cake tactic list)", cxxopts::value<std::string>())(
      "arg", "A tactic argument KEY=VALUE (repeat)", cxxopts::value<std::vector<std::string>>())(
      "size", "A size NAME=VALUE for the cost model's before and after (repeat)",
      cxxopts::value<std::vector<std::string>>())("o,output", "Write the rewritten file here",
                                                  cxxopts::value<std::string>())("h,help", "Show this help")(
      "what", "list or apply", cxxopts::value<std::string>())("file", "The file", cxxopts::value<std::string>());
  o.parse_positional({"what", "file"});
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  const std::string what = args.count("what") ? args["what"].as<std::string>() : "";
  if (what == "list") {
    for (const TacticInfo &t : tactics())
      std::cout << t.name << "\t" << t.args << "\t" << t.summary << "\n";
    return Success;
  }
  if (what != "apply" || !args.count("file") || !args.count("tactic"))
    return reportFailure("cake tactic", "expected 'list' or 'apply FILE --tactic NAME --arg KEY=VALUE...'",
                         UsageError);
  auto pairs = [&](const char *option, std::map<std::string, std::string> &out) -> bool {
    if (args.count(option))
      for (const std::string &kv : args[option].as<std::vector<std::string>>()) {
        size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
          return false;
        out[kv.substr(0, eq)] = kv.substr(eq + 1);
      }
    return true;
  };
  std::map<std::string, std::string> targs;
  if (!pairs("arg", targs))
    return reportFailure("cake tactic", "--arg takes KEY=VALUE", UsageError);
  std::string sizeError;
  auto given = sizeArgs(args, "size", sizeError);
  if (!given)
    return reportFailure("cake tactic", sizeError, UsageError);
  cost::Sizes sizes(given->begin(), given->end());
  const std::string path = args["file"].as<std::string>();
  std::string text;
  if (auto error = formats::readInput(path, text); !error)
    return reportFailure("cake tactic", error.error().message, UsageError);
  auto applied = applyTactic(path, text, args["tactic"].as<std::string>(), targs);
  if (!applied) {
    const Error &e = applied.error();
    // a refusal says where the rewritten file fails (its first error, located in the rewrite)
    return reportFailure("cake tactic", e.message, e.kind == Error::InvalidArgument ? UsageError : InputErrors);
  }
  std::cerr << "cake tactic: " << applied->description;
  if (!sizes.empty()) {
    auto before = predict(path, text, sizes), after = predict(path, applied->text, sizes);
    for (const auto &[kernel, b] : before) {
      auto a = after.count(kernel) ? after[kernel] : std::nullopt;
      std::ostringstream s;
      if (b && a && *b > 0)
        s << std::fixed << std::setprecision(1) << (*a / *b - 1) * 100 << "% predicted for " << kernel << " ("
          << std::setprecision(4) << *b * 1e3 << " -> " << *a * 1e3 << " ms)";
      else
        s << "no prediction for " << kernel << " at these sizes";
      std::cerr << "; " << s.str();
    }
  }
  std::cerr << "\n";
  if (args.count("output")) {
    if (auto error = formats::writeFileAtomically(args["output"].as<std::string>(), applied->text); !error)
      return reportFailure("cake tactic", error.error().message, UsageError);
  } else {
    std::cout << applied->text;
  }
  return Success;
}

} // namespace cake::cli
