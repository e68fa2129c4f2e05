//===- Manifest.cpp - Reading a kernel library's manifest (JSON) ----------===//
#include "formats/Manifest.h"

#include "formats/Input.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>

namespace cake::formats {

namespace {

using json = nlohmann::json;

/// Where each value of a (valid) JSON text is, by JSON pointer: nlohmann
/// keeps no positions, so a second, small scan finds them.
class Locator {
public:
  explicit Locator(std::string_view text) : s_(text) {
    value("");
  }
  std::optional<std::pair<uint32_t, uint32_t>> find(const std::string &pointer) const {
    for (std::string p = pointer;; p = p.substr(0, p.rfind('/'))) {
      if (auto it = at_.find(p); it != at_.end())
        return it->second;
      if (p.empty())
        return std::nullopt;
    }
  }

private:
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t'))
      ++i_;
  }
  std::string string() {
    std::string out;
    ++i_; // "
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\' && i_ + 1 < s_.size())
        ++i_;
      out += s_[i_++];
    }
    ++i_;
    return out;
  }
  void value(const std::string &pointer) {
    ws();
    size_t begin = i_;
    if (i_ >= s_.size())
      return;
    if (s_[i_] == '{') {
      ++i_;
      for (ws(); i_ < s_.size() && s_[i_] != '}';) {
        std::string key = string();
        ws();
        ++i_; // :
        value(pointer + "/" + key);
        ws();
        if (i_ < s_.size() && s_[i_] == ',')
          ++i_, ws();
      }
      ++i_;
    } else if (s_[i_] == '[') {
      ++i_;
      size_t n = 0;
      for (ws(); i_ < s_.size() && s_[i_] != ']';) {
        value(pointer + "/" + std::to_string(n++));
        ws();
        if (i_ < s_.size() && s_[i_] == ',')
          ++i_, ws();
      }
      ++i_;
    } else if (s_[i_] == '"') {
      string();
    } else {
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && s_[i_] != ' ' && s_[i_] != '\n' &&
             s_[i_] != '\r' && s_[i_] != '\t')
        ++i_;
    }
    at_[pointer] = {uint32_t(begin), uint32_t(i_)};
  }

  std::string_view s_;
  size_t i_ = 0;
  std::map<std::string, std::pair<uint32_t, uint32_t>> at_;
};

class Reader {
public:
  Reader(SourceManager &sm, FileId file, const Locator &at) : sm_(sm), file_(file), at_(at) {}

  SourceRange range(const std::string &pointer) const {
    auto r = at_.find(pointer);
    return r ? SourceRange{file_, r->first, r->second} : SourceRange{file_, 0, 0};
  }
  Error error(const std::string &pointer, const std::string &message) const {
    LineColumn lc = sm_.lineColumn(file_, range(pointer).begin);
    return Error(Error::InvalidArgument, std::string(sm_.name(file_)) + ":" + std::to_string(lc.line) + ":" +
                                             std::to_string(lc.column) + ": " + message);
  }

  /// A string member (required unless \p fallback is given).
  Expected<std::string> text(const json &object, const std::string &pointer, const char *key,
                             std::optional<std::string> fallback = std::nullopt) const {
    if (!object.contains(key)) {
      if (fallback)
        return *fallback;
      return error(pointer, std::string("missing \"") + key + "\"");
    }
    if (!object[key].is_string())
      return error(pointer + "/" + key, std::string("\"") + key + "\" must be a string");
    return object[key].get<std::string>();
  }
  Expected<std::vector<std::string>> texts(const json &object, const std::string &pointer, const char *key) const {
    std::vector<std::string> out;
    if (!object.contains(key))
      return out;
    const json &a = object[key];
    if (!a.is_array())
      return error(pointer + "/" + key, std::string("\"") + key + "\" must be an array of strings");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!a[i].is_string())
        return error(pointer + "/" + key + "/" + std::to_string(i), "expected a string");
      out.push_back(a[i].get<std::string>());
    }
    return out;
  }
  /// A scalar as text: numbers in decimal, booleans as true/false.
  Expected<std::string> scalar(const json &v, const std::string &pointer) const {
    if (v.is_string())
      return v.get<std::string>();
    if (v.is_number_integer())
      return std::to_string(v.get<int64_t>());
    if (v.is_boolean())
      return std::string(v.get<bool>() ? "true" : "false");
    return error(pointer, "expected an integer, a boolean or a string");
  }

private:
  SourceManager &sm_;
  FileId file_;
  const Locator &at_;
};

Expected<library::Manifest> parseManifest(SourceManager &sm, const std::string &path, FileId file) {
  std::string_view text = sm.text(file);
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    // the byte the parser stopped at, from a second, throwing parse
    size_t byte = 0;
    std::string why = "not valid JSON";
    try {
      (void)json::parse(text);
    } catch (const json::parse_error &e) {
      byte = e.byte ? e.byte - 1 : 0;
      why = e.what();
    }
    LineColumn lc = sm.lineColumn(file, uint32_t(std::min(byte, text.size())));
    return Error(Error::InvalidArgument,
                 path + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column) + ": " + why);
  }
  Locator at(text);
  Reader r(sm, file, at);
  if (!j.is_object())
    return r.error("", "a manifest is a JSON object");
  library::Manifest m;
  m.path = path;
  m.dir = std::filesystem::path(path).parent_path().string();
  if (!j.contains("manifest") || !j["manifest"].is_number_integer() || j["manifest"].get<int64_t>() != 1)
    return r.error("/manifest", "\"manifest\": 1 (the format's version) is required");
  auto library = r.text(j, "", "library");
  if (!library)
    return library.takeError();
  m.library = *library;

  if (j.contains("entries")) {
    if (!j["entries"].is_object())
      return r.error("/entries", "\"entries\" must be an object of entries by name");
    for (const auto &[name, e] : j["entries"].items()) {
      std::string p = "/entries/" + name;
      if (!e.is_object())
        return r.error(p, "an entry is an object");
      library::Entry entry;
      entry.name = name;
      auto op = r.text(e, p, "op");
      auto kernels = r.texts(e, p, "kernels");
      auto scratch = r.texts(e, p, "scratch");
      auto distance = r.text(e, p, "distance", "");
      auto zero = r.text(e, p, "zero", "");
      if (!op)
        return op.takeError();
      if (!kernels)
        return kernels.takeError();
      if (!scratch)
        return scratch.takeError();
      if (!distance)
        return distance.takeError();
      if (!zero)
        return zero.takeError();
      entry.op = *op;
      entry.kernels = *kernels;
      entry.scratch = *scratch;
      entry.distance = *distance;
      entry.zero = *zero;
      if (e.contains("kPad")) {
        auto k = r.scalar(e["kPad"], p + "/kPad");
        if (!k)
          return k.takeError();
        entry.kPad = *k;
      }
      if (e.contains("repeat")) {
        auto a = r.text(e, p, "repeat");
        if (!a)
          return a.takeError();
        entry.repeat = *a;
      }
      if (e.contains("applies")) {
        auto a = r.text(e, p, "applies");
        if (!a)
          return a.takeError();
        entry.applies = *a;
      }
      if (e.contains("sizes")) {
        if (!e["sizes"].is_object())
          return r.error(p + "/sizes", "\"sizes\" is an object of integer expressions by size name (one may use another)");
        for (const auto &[size, expr] : e["sizes"].items()) {
          if (!expr.is_string())
            return r.error(p + "/sizes/" + size, "a size is an integer expression (a string)");
          entry.sizes.emplace_back(size, expr.get<std::string>());
        }
      }
      if (entry.kernels.empty())
        return r.error(p, "entry '" + name + "' lists no kernels");
      m.entries.push_back(std::move(entry));
    }
  }

  if (!j.contains("instantiations") || !j["instantiations"].is_array())
    return r.error("/instantiations", "\"instantiations\" (an array) is required");
  const json &insts = j["instantiations"];
  for (size_t n = 0; n < insts.size(); ++n) {
    std::string p = "/instantiations/" + std::to_string(n);
    const json &e = insts[n];
    if (!e.is_object())
      return r.error(p, "an instantiation is an object");
    library::Instance inst;
    inst.at = r.range(p);
    for (auto [field, key] : {std::pair{&inst.name, "name"}, {&inst.source, "source"}, {&inst.entry, "entry"}}) {
      auto v = r.text(e, p, key);
      if (!v)
        return v.takeError();
      *field = *v;
    }
    auto target = r.text(e, p, "target", "sm_90a");
    auto covers = r.text(e, p, "covers", "");
    auto workload = r.text(e, p, "workload", "");
    if (!target)
      return target.takeError();
    if (!covers)
      return covers.takeError();
    if (!workload)
      return workload.takeError();
    inst.target = *target;
    inst.covers = *covers;
    inst.workload = *workload;
    if (e.contains("optional")) {
      if (!e["optional"].is_boolean())
        return r.error(p + "/optional", "\"optional\" must be true or false");
      inst.optional = e["optional"].get<bool>();
    }
    for (const char *key : {"params", "domain"}) {
      if (!e.contains(key))
        continue;
      if (!e[key].is_object())
        return r.error(p + "/" + key, std::string("\"") + key + "\" must be an object");
      for (const auto &[name, v] : e[key].items()) {
        std::string vp = p + "/" + key + "/" + name;
        auto value = r.scalar(v, vp);
        if (!value)
          return value.takeError();
        if (std::string_view(key) == "params")
          inst.params.push_back({name, *value, r.range(vp)});
        else
          inst.domain.emplace_back(name, *value);
      }
    }
    m.instances.push_back(std::move(inst));
  }

  if (j.contains("predicates")) {
    if (!j["predicates"].is_object())
      return r.error("/predicates", "\"predicates\" must be an object of predicates by name");
    for (const auto &[name, e] : j["predicates"].items()) {
      std::string p = "/predicates/" + name;
      auto expr = e.is_object() ? r.text(e, p, "expr") : Expected<std::string>(r.error(p, "a predicate is an object"));
      if (!expr)
        return expr.takeError();
      auto evidence = r.text(e, p, "evidence", "");
      if (!evidence)
        return evidence.takeError();
      m.predicates.push_back({name, *expr, *evidence});
    }
  }
  if (j.contains("rules")) {
    if (!j["rules"].is_array())
      return r.error("/rules", "\"rules\" must be an array");
    for (size_t n = 0; n < j["rules"].size(); ++n) {
      std::string p = "/rules/" + std::to_string(n);
      const json &e = j["rules"][n];
      if (!e.is_object())
        return r.error(p, "a rule is an object");
      auto use = r.text(e, p, "use");
      auto when = r.text(e, p, "when", "");
      if (!use)
        return use.takeError();
      if (!when)
        return when.takeError();
      m.rules.push_back({*use, *when, r.range(p)});
    }
  }
  if (auto problems = library::validate(m); !problems.empty())
    return r.error(problems.front().pointer, problems.front().message);
  return m;
}

} // namespace

Expected<library::Manifest> readManifest(SourceManager &sm, const std::string &path) {
  std::string text;
  if (auto read = readJsonInput(path, text); !read)
    return read.takeError();
  FileId file = sm.addBuffer(path, std::move(text));
  return parseManifest(sm, path, file);
}

std::vector<const library::Instance *> instancesOf(const library::Manifest &m, const std::string &sourcePath) {
  std::vector<const library::Instance *> out;
  std::error_code ec;
  auto want = std::filesystem::weakly_canonical(sourcePath, ec);
  for (const library::Instance &i : m.instances) {
    auto have = std::filesystem::weakly_canonical(m.sourcePath(i), ec);
    if (!ec && have == want)
      out.push_back(&i);
  }
  return out;
}

std::vector<library::Manifest> manifestsFor(SourceManager &sm, const std::string &sourcePath,
                                            std::vector<std::string> &errors) {
  std::vector<library::Manifest> out;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(sourcePath).parent_path();
  std::vector<std::string> candidates;
  for (const auto &e : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec))
    if (e.path().filename().string().ends_with(".manifest.json") && e.is_regular_file(ec))
      candidates.push_back((dir.empty() ? e.path().filename() : dir / e.path().filename()).string());
  std::sort(candidates.begin(), candidates.end());
  for (const std::string &c : candidates) {
    auto m = readManifest(sm, c);
    if (!m) {
      errors.push_back(m.error().message);
      continue;
    }
    if (!instancesOf(*m, sourcePath).empty())
      out.push_back(std::move(*m));
  }
  return out;
}

} // namespace cake::formats
