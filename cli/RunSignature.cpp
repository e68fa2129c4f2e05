//===- RunSignature.cpp - A failure found by running the program ----------===//
#include "cli/RunSignature.h"

#include "compiler/driver/Check.h"
#include "compiler/runner/Process.h"
#include "compiler/syntax/Lexer.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace cake::cli {

bool isRunCode(const std::string &code) { return code.starts_with("run.") || code.starts_with("cuda."); }

bool isBuildCode(const std::string &code) { return code.starts_with("ptxas.") || code.starts_with("cuda."); }

namespace {

/// The findings of \p code a run's report holds, each as the names its message quotes (quotedNames: a
/// hang's role and ring); "run.timeout": one, unnamed, when the watchdog ended the run.
std::set<std::vector<std::string>> findingsIn(const nlohmann::json &doc, const std::string &code) {
  std::set<std::vector<std::string>> out;
  if (!doc.is_object())
    return out;
  if (code == "run.timeout" && doc.value("status", "") == "timeout")
    out.insert({});
  if (doc.contains("diagnostics") && doc["diagnostics"].is_array())
    for (const auto &d : doc["diagnostics"])
      if (d.is_object() && d.value("code", "") == code)
        out.insert(findingIdentity(d.value("message", "")));
  return out;
}

/// keepsRun and keepsBuild: \p command is "run" or "build", each writing its result to --report.
Signature keepsCommand(const std::string &command, const std::string &code, const std::string &input,
                       std::vector<std::string> runArgs, double timeout, std::shared_ptr<RunCount> count) {
  namespace fs = std::filesystem;
  fs::path in(input);
  std::string self = fs::read_symlink("/proc/self/exe").string();
  ::setenv("CAKE_LOG", "0", 1); // the candidates' runs (children inherit it)
  // a folder of the candidate's own, with the input's name and the JSON files beside it (the manifest that
  // names its instantiation, the workloads the manifest names), removed with the last copy of the signature
  char tmpl[] = "/tmp/cake-reduce-XXXXXX";
  auto dir = std::shared_ptr<std::string>(new std::string(::mkdtemp(tmpl) ? tmpl : ""), [](std::string *d) {
    std::error_code ec;
    if (!d->empty())
      fs::remove_all(*d, ec);
    delete d;
  });
  std::error_code ec;
  if (!dir->empty())
    for (const auto &entry : fs::directory_iterator(in.parent_path().empty() ? fs::path(".") : in.parent_path(), ec))
      if (entry.path().extension() == ".json")
        fs::copy_file(entry.path(), fs::path(*dir) / entry.path().filename(), fs::copy_options::overwrite_existing, ec);
  const std::string file = (fs::path(*dir) / in.filename()).string(), report = (fs::path(*dir) / ".report.json").string();
  // a run that forces the schedule past the rules (--no-verify, e.g. to watch a hang the rules also see)
  // has its candidates checked the same way: the front end's errors only
  CheckOptions options;
  options.verify = std::find(runArgs.begin(), runArgs.end(), "--no-verify") == runArgs.end();
  // a candidate with the tokens of one run before (a comment or a blank line deleted) is that program:
  // its answer is remembered, not run again
  auto seen = std::make_shared<std::map<std::string, bool>>();
  // the finding kept is one of the first run's (the original's): the same names quoted, as keepsDiagnostic
  // asks of the rules' findings (a hung producer of ring 'cs' in role 'load' does not become a consumer of
  // ring 'xs' waiting for a producer the reduction deleted)
  auto original = std::make_shared<std::optional<std::set<std::vector<std::string>>>>();
  return [=](const std::string &text) {
    if (dir->empty())
      return false;
    std::string tokens;
    {
      SourceManager sm;
      FileId f = sm.addBuffer("reduce.cake", text);
      for (const Diagnostic &d : checkSource(sm, f, options).diagnostics)
        if (d.severity == Severity::Error)
          return false;
      std::vector<Diagnostic> ignored;
      bool lineStart = true; // newlines separate statements; blank lines do not count
      for (const syntax::Token &t : syntax::lex(sm, f, ignored).tokens) {
        if (t.kind == syntax::Tok::Newline && lineStart)
          continue;
        lineStart = t.kind == syntax::Tok::Newline;
        tokens.append(t.text(text)).push_back(' ');
      }
    }
    if (auto it = seen->find(tokens); it != seen->end()) {
      if (count)
        ++count->remembered;
      return it->second;
    }
    if (count)
      ++count->runs;
    std::ofstream(file, std::ios::trunc) << text;
    std::vector<std::string> argv = {self, command, file, "--report", report};
    argv.insert(argv.end(), runArgs.begin(), runArgs.end());
    runner::runProcess(argv, timeout);
    std::ifstream r(report);
    std::stringstream buf;
    buf << r.rdbuf();
    std::error_code ec;
    fs::remove(report, ec);
    auto found = findingsIn(nlohmann::json::parse(buf.str(), nullptr, false), code);
    if (!*original) {
      *original = found;
      return (*seen)[tokens] = !found.empty();
    }
    return (*seen)[tokens] = std::any_of(found.begin(), found.end(), [&](const auto &f) { return (*original)->count(f); });
  };
}

} // namespace

Signature keepsRun(const std::string &code, const std::string &input, std::vector<std::string> args, double timeout,
                   std::shared_ptr<RunCount> count) {
  return keepsCommand("run", code, input, std::move(args), timeout, std::move(count));
}

Signature keepsBuild(const std::string &code, const std::string &input, std::vector<std::string> args,
                     double timeout, std::shared_ptr<RunCount> count) {
  return keepsCommand("build", code, input, std::move(args), timeout, std::move(count));
}

std::vector<std::string> splitArgs(const std::string &s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string a; in >> a;)
    out.push_back(a);
  return out;
}

} // namespace cake::cli
