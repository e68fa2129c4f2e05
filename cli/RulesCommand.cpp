//===- RulesCommand.cpp - `cake rules` and `cake explain` -----------------===//
#include "cli/Commands.h"
#include "cli/Options.h"
#include "cli/RuleDocs.h"
#include "diagnostics/Catalog.h"

#include <cxxopts.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

namespace cake::cli {
namespace {

void printText(std::ostream &os) {
  size_t fixable = 0;
  for (const RuleInfo &r : ruleCatalog()) {
    fixable += r.hasFix;
    os << r.code << std::string(r.code.size() < 28 ? 28 - r.code.size() : 1, ' ') << severityName(r.severity)
       << (r.severity == Severity::Error ? "    " : "  ") << (r.hasFix ? "fix  " : "     ") << r.title << "\n";
  }
  os << "\n" << ruleCatalog().size() << " rules, " << fixable << " with fix-its.\n\n"
     << "Hazards ruled out by construction (no rule needed):\n";
  for (const Guarantee &g : constructionGuarantees())
    os << "  hazard " << g.hazard << " (" << g.title << "): " << g.how << "\n";
  os << "\n'cake explain CODE' shows a rule's page.\n";
}

void printJson(std::ostream &os) {
  nlohmann::ordered_json out;
  out["version"] = 1;
  out["rules"] = nlohmann::ordered_json::array();
  for (const RuleInfo &r : ruleCatalog())
    out["rules"].push_back({{"code", r.code},
                            {"family", r.family},
                            {"severity", severityName(r.severity)},
                            {"fix", r.hasFix},
                            {"title", r.title},
                            {"rationale", r.rationale},
                            {"page", "docs/rules/" + std::string(r.code) + ".md"}});
  out["guarantees"] = nlohmann::ordered_json::array();
  for (const Guarantee &g : constructionGuarantees())
    out["guarantees"].push_back({{"hazard", g.hazard}, {"title", g.title}, {"how", g.how}});
  os << out.dump(2) << "\n";
}

} // namespace

int runRules(int argc, char **argv) {
  cxxopts::Options o("cake rules", "List the rule catalog: code, severity, whether it has fix-its, title.");
  o.add_options()("format", "text or json", cxxopts::value<std::string>()->default_value("text"))(
      "h,help", "Show this help");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  std::string format = args["format"].as<std::string>();
  if (format != "text" && format != "json") {
    std::cerr << "cake rules: unknown format '" << shown(format) << "' (expected text or json)\n";
    return UsageError;
  }
  format == "json" ? printJson(std::cout) : printText(std::cout);
  return Success;
}

int runExplain(int argc, char **argv) {
  cxxopts::Options o("cake explain", "Print the page of a rule: what it catches, why, examples and the fix.");
  o.add_options()("h,help", "Show this help")("code", "Rule code", cxxopts::value<std::string>());
  o.parse_positional({"code"});
  o.positional_help("CODE");
  cxxopts::ParseResult args;
  if (auto done = parseCommandLine(o, argc, argv, args))
    return *done;
  if (!args.count("code")) {
    std::cerr << "cake explain: which rule? (see 'cake rules')\n";
    return UsageError;
  }
  std::string code = args["code"].as<std::string>();
  const RuleInfo *rule = findRule(code);
  if (!rule) {
    std::cerr << "cake explain: unknown rule '" << shown(code) << "' (see 'cake rules')\n";
    return UsageError;
  }
  std::string_view page = ruleDoc(code);
  if (page.empty())
    std::cout << "# " << rule->code << ": " << rule->title << "\n\n" << rule->rationale << "\n";
  else
    std::cout << page;
  return Success;
}

} // namespace cake::cli
