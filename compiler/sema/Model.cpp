//===- Model.cpp - The semantic model of a CAKE IR module -----------------===//
#include "compiler/sema/Model.h"

#include <array>
#include <charconv>
#include <limits>

namespace cake::sema {
namespace {

struct ElemInfo {
  std::string_view name;
  Elem elem;
  uint32_t bytes;
  bool isFloat;
};

constexpr std::array kElems = {
    ElemInfo{"bf16", Elem::BF16, 2, true},  ElemInfo{"fp16", Elem::FP16, 2, true},
    ElemInfo{"fp32", Elem::FP32, 4, true},  ElemInfo{"tf32", Elem::TF32, 4, true},
    ElemInfo{"e4m3", Elem::E4M3, 1, true},  ElemInfo{"e5m2", Elem::E5M2, 1, true},
    ElemInfo{"i8", Elem::I8, 1, false},     ElemInfo{"u8", Elem::U8, 1, false},
    ElemInfo{"i32", Elem::I32, 4, false},   ElemInfo{"u32", Elem::U32, 4, false},
    ElemInfo{"i64", Elem::I64, 8, false},   ElemInfo{"bool", Elem::Bool, 1, false},
    ElemInfo{"mbarrier", Elem::Mbarrier, 8, false},
};

constexpr std::array<std::string_view, kElems.size()> kElemNames = [] {
  std::array<std::string_view, kElems.size()> names{};
  for (size_t i = 0; i < kElems.size(); ++i)
    names[i] = kElems[i].name;
  return names;
}();

const ElemInfo &info(Elem e) { return kElems[static_cast<size_t>(e)]; }

template <typename T> const T *byName(const std::vector<T> &items, std::string_view name) {
  for (const T &item : items)
    if (item.name == name)
      return &item;
  return nullptr;
}

/// Checked arithmetic: nullopt on overflow.
std::optional<int64_t> mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> parseNumber(std::string_view text) {
  std::string digits;
  size_t i = 0;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X' || text[1] == 'b' || text[1] == 'B') &&
      text.size() > 2) {
    base = (text[1] == 'x' || text[1] == 'X') ? 16 : 2;
    i = 2;
  }
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '_')
      continue;
    bool digit = base == 16 ? std::isxdigit(static_cast<unsigned char>(c)) : (c >= '0' && c <= '9');
    if (!digit)
      break;
    digits += c;
  }
  std::string_view suffix = text.substr(i);
  if (suffix.starts_with(".") || suffix.starts_with("e") || suffix.starts_with("E"))
    return std::nullopt; // a float
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    return std::nullopt;
  if (suffix.empty() || suffix == "B")
    return value;
  if (suffix == "KiB")
    return mul(value, 1024);
  if (suffix == "MiB")
    return mul(value, 1024 * 1024);
  return std::nullopt;
}

} // namespace

std::optional<Elem> parseElem(std::string_view name) {
  for (const ElemInfo &e : kElems)
    if (e.name == name)
      return e.elem;
  return std::nullopt;
}
std::string_view elemName(Elem e) { return info(e).name; }
uint32_t elemBytes(Elem e) { return info(e).bytes; }
bool isFloat(Elem e) { return info(e).isFloat; }
std::span<const std::string_view> elemNames() { return kElemNames; }

std::string_view spaceName(Space s) {
  switch (s) {
  case Space::None:
    return "none";
  case Space::Global:
    return "global";
  case Space::Shared:
    return "shared";
  case Space::Reg:
    return "reg";
  case Space::Tmem:
    return "tmem";
  case Space::Param:
    return "param";
  }
  return "none";
}

const syntax::Clause *Type::clause(std::string_view name) const {
  if (syntax)
    for (const syntax::Clause &c : syntax->clauses)
      if (c.name.name == name)
        return &c;
  return nullptr;
}

std::optional<int64_t> Type::elements() const {
  int64_t n = 1;
  for (const Dim &d : dims) {
    if (!d.value)
      return std::nullopt;
    auto r = mul(n, *d.value);
    if (!r)
      return std::nullopt;
    n = *r;
  }
  return n;
}

std::optional<int64_t> Type::bytes() const {
  auto n = elements();
  if (!n || !elem)
    return std::nullopt;
  return mul(*n, elemBytes(*elem));
}

std::optional<int64_t> Type::rowBytes() const {
  if (dims.empty() || !dims.back().value || !elem)
    return std::nullopt;
  return mul(*dims.back().value, elemBytes(*elem));
}

const Slot *Ring::slot(std::string_view name) const { return byName(slots, name); }

std::optional<int64_t> Ring::stageBytes() const {
  int64_t total = 0;
  for (const Slot &s : slots) {
    if (s.type.space != Space::Shared)
      continue;
    auto b = s.type.bytes();
    if (!b)
      return std::nullopt;
    total += *b;
  }
  return total;
}

std::optional<int64_t> Role::warps() const {
  if (!warpBegin || !warpEnd)
    return std::nullopt;
  return *warpEnd - *warpBegin;
}

const Param *Kernel::param(std::string_view name) const { return byName(params, name); }
const Ring *Kernel::ring(std::string_view name) const { return byName(rings, name); }
const Buffer *Kernel::buffer(std::string_view name) const { return byName(buffers, name); }
const Role *Kernel::role(std::string_view name) const { return byName(roles, name); }

int64_t Kernel::residentCtas() const { return std::max<int64_t>(occupancy, 1); }

std::optional<int64_t> Kernel::launchRegisterShare() const {
  if (!block || *block <= 0 || !desc)
    return std::nullopt;
  int64_t share = int64_t(desc->registersPerSm) / (*block * residentCtas());
  int64_t cap = desc->setmaxnregMax ? desc->setmaxnregMax : desc->maxRegsPerThread;
  return std::min(share / 8 * 8, cap);
}

std::optional<int64_t> Kernel::clusterSize() const {
  int64_t n = 1;
  for (const auto &d : cluster) {
    if (!d)
      return std::nullopt;
    n *= *d;
  }
  return n;
}

std::string_view symbolKindName(SymbolKind k) {
  switch (k) {
  case SymbolKind::Kernel:
    return "kernel";
  case SymbolKind::Const:
    return "constant";
  case SymbolKind::Param:
    return "parameter";
  case SymbolKind::SizeSymbol:
    return "size symbol";
  case SymbolKind::Let:
    return "let";
  case SymbolKind::Var:
    return "var";
  case SymbolKind::Ring:
    return "ring";
  case SymbolKind::Role:
    return "role";
  case SymbolKind::LoopVar:
    return "loop variable";
  }
  return "symbol";
}

const Symbol *SymbolIndex::at(uint32_t offset) const {
  for (const Symbol &s : symbols)
    if (s.range.begin <= offset && offset < s.range.end)
      return &s;
  for (const Reference &r : references)
    if (r.range.begin <= offset && offset < r.range.end)
      return &symbols[r.symbol];
  return nullptr;
}

std::vector<SourceRange> SymbolIndex::uses(size_t index) const {
  std::vector<SourceRange> out;
  for (const Reference &r : references)
    if (r.symbol == index)
      out.push_back(r.range);
  return out;
}

//===-- Expression helpers --------------------------------------------------===//

std::string dottedName(const syntax::Expr &e) {
  using syntax::ExprKind;
  if (e.kind == ExprKind::Name)
    return e.text;
  if (e.kind == ExprKind::Member) {
    std::string base = dottedName(*e.operands[0]);
    return base.empty() ? "" : base + "." + e.text;
  }
  return "";
}

std::string calleeName(const syntax::Expr &e) {
  return e.kind == syntax::ExprKind::Call ? dottedName(*e.operands[0]) : "";
}

const OpInfo *opOf(const syntax::Expr &call, const Kernel &kernel) {
  if (call.kind != syntax::ExprKind::Call)
    return nullptr;
  if (auto it = kernel.ops.find(&call); it != kernel.ops.end())
    return it->second;
  const syntax::Expr &callee = *call.operands[0];
  if (callee.kind == syntax::ExprKind::Member && callee.operands[0]->kind == syntax::ExprKind::Name &&
      kernel.ring(callee.operands[0]->text))
    return findRingOp(callee.text);
  return findOp(dottedName(callee));
}

OpId opIdOf(const syntax::Expr &call, const Kernel &kernel) {
  const OpInfo *op = opOf(call, kernel);
  return op ? op->id : OpId::None;
}

OpId calleeOp(const syntax::Expr &call) {
  if (call.kind != syntax::ExprKind::Call)
    return OpId::None;
  const OpInfo *op = findOp(dottedName(*call.operands[0]));
  return op && op->cls != OpClass::Ring ? op->id : OpId::None;
}

const Ring *ringOf(const syntax::Expr &call, const Kernel &kernel) {
  if (call.kind != syntax::ExprKind::Call || call.operands[0]->kind != syntax::ExprKind::Member)
    return nullptr;
  const syntax::Expr &base = *call.operands[0]->operands[0];
  return base.kind == syntax::ExprKind::Name ? kernel.ring(base.text) : nullptr;
}

std::vector<const syntax::Expr *> positionalArgs(const syntax::Expr &call) {
  std::vector<const syntax::Expr *> out;
  for (size_t i = 1; i < call.operands.size(); ++i)
    if (call.operands[i]->kind != syntax::ExprKind::Keyword)
      out.push_back(call.operands[i].get());
  return out;
}

const syntax::Expr *keywordArg(const syntax::Expr &call, std::string_view name) {
  for (size_t i = 1; i < call.operands.size(); ++i)
    if (call.operands[i]->kind == syntax::ExprKind::Keyword && call.operands[i]->text == name)
      return call.operands[i]->operands[0].get();
  return nullptr;
}

std::string rootName(const syntax::Expr &e) {
  using syntax::ExprKind;
  switch (e.kind) {
  case ExprKind::Name:
    return e.text;
  case ExprKind::Member:
  case ExprKind::Index:
  case ExprKind::Paren:
    return rootName(*e.operands[0]);
  default:
    return "";
  }
}

std::optional<int64_t> binaryValue(syntax::Tok op, int64_t a, int64_t b) {
  using syntax::Tok;
  int64_t r;
  switch (op) {
  case Tok::Plus:
    return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  case Tok::Minus:
    return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
  case Tok::Star:
    return mul(a, b);
  case Tok::Slash: // INT64_MIN / -1 overflows (SIGFPE on x86), as does its remainder
    return b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()) ? std::nullopt
                                                                          : std::optional<int64_t>(a / b);
  case Tok::Percent:
    return b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()) ? std::nullopt
                                                                          : std::optional<int64_t>(a % b);
  case Tok::Shl:
    return (b < 0 || b > 62) ? std::nullopt : mul(a, int64_t(1) << b);
  case Tok::Shr:
    return (b < 0 || b > 63) ? std::nullopt : std::optional<int64_t>(a >> b);
  case Tok::Amp:
    return a & b;
  case Tok::Pipe:
    return a | b;
  case Tok::Caret:
    return a ^ b;
  case Tok::EqEq:
    return a == b;
  case Tok::NotEq:
    return a != b;
  case Tok::Less:
    return a < b;
  case Tok::LessEq:
    return a <= b;
  case Tok::Greater:
    return a > b;
  case Tok::GreaterEq:
    return a >= b;
  case Tok::AmpAmp:
    return a && b;
  case Tok::PipePipe:
    return a || b;
  default:
    return std::nullopt;
  }
}


std::optional<int64_t> evalWith(const syntax::Expr &e, const NameLookup &lookup) {
  using syntax::ExprKind;
  using syntax::Tok;
  switch (e.kind) {
  case ExprKind::Number:
    return parseNumber(e.text);
  case ExprKind::Bool:
    return e.text == "true" ? 1 : 0;
  case ExprKind::Name:
    return lookup(e.text);
  case ExprKind::Paren:
    return evalWith(*e.operands[0], lookup);
  case ExprKind::Unary: {
    auto v = evalWith(*e.operands[0], lookup);
    if (!v)
      return std::nullopt;
    switch (e.op) {
    case Tok::Minus:
      return binaryValue(Tok::Minus, 0, *v);
    case Tok::Tilde:
      return ~*v;
    case Tok::Bang:
      return *v == 0 ? 1 : 0;
    default:
      return std::nullopt;
    }
  }
  case ExprKind::Binary: {
    auto a = evalWith(*e.operands[0], lookup), b = evalWith(*e.operands[1], lookup);
    return a && b ? binaryValue(e.op, *a, *b) : std::nullopt;
  }
  case ExprKind::Call: {
    OpId callee = calleeOp(e);
    auto args = positionalArgs(e);
    if (callee == OpId::MathSelect && args.size() == 3) { // p ? a : b, folded when all three are constants
      auto p = evalWith(*args[0], lookup), a = evalWith(*args[1], lookup), b = evalWith(*args[2], lookup);
      return p && a && b ? std::optional<int64_t>(*p ? *a : *b) : std::nullopt;
    }
    if (args.size() != 2 || (callee != OpId::MathCdiv && callee != OpId::MathMin && callee != OpId::MathMax))
      return std::nullopt;
    auto a = evalWith(*args[0], lookup), b = evalWith(*args[1], lookup);
    if (!a || !b)
      return std::nullopt;
    if (callee == OpId::MathMin)
      return std::min(*a, *b);
    if (callee == OpId::MathMax)
      return std::max(*a, *b);
    if (*b <= 0 || *a > std::numeric_limits<int64_t>::max() - *b)
      return std::nullopt;
    return *a <= 0 ? 0 : (*a + *b - 1) / *b;
  }
  default:
    return std::nullopt;
  }
}

int64_t tripCount(int64_t lo, int64_t hi, int64_t step) {
  if (hi <= lo || step <= 0)
    return 0;
  uint64_t span = uint64_t(hi) - uint64_t(lo), n = (span - 1) / uint64_t(step) + 1;
  return n > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max() : int64_t(n);
}

int64_t tripValue(int64_t lo, int64_t i, int64_t step) { return int64_t(uint64_t(lo) + uint64_t(i) * uint64_t(step)); }

std::optional<int64_t> loopStep(const syntax::ForStmt &f,
                                const std::function<std::optional<int64_t>(const syntax::Expr &)> &eval) {
  std::optional<int64_t> step = 1;
  for (const syntax::Clause &c : f.clauses)
    if (c.name.name == "step") {
      step = c.args.size() == 1 ? eval(*c.args[0]) : std::nullopt;
      if (step && *step <= 0)
        step.reset();
    }
  return step;
}

std::optional<int64_t> loopStep(const syntax::ForStmt &f, const ConstEnv &consts) {
  return loopStep(f, [&](const syntax::Expr &e) { return evalInt(e, consts); });
}

std::optional<int64_t> evalInKernel(const Kernel &k, const syntax::Expr &e, const NameLookup &sizes) {
  std::map<std::string, const syntax::Expr *, std::less<>> lets;
  for (const syntax::StmtPtr &s : k.decl->body.stmts)
    if (s->kind == syntax::StmtKind::Let)
      if (const auto &l = static_cast<const syntax::LetStmt &>(*s); l.names.size() == 1)
        lets[l.names[0].name] = l.value.get();
  int depth = 0; // lets only refer to earlier names; the bound guards against a malformed cycle
  NameLookup lookup = [&](const std::string &n) -> std::optional<int64_t> {
    if (auto v = sizes(n))
      return v;
    if (auto it = k.consts.find(n); it != k.consts.end())
      return it->second;
    if (auto it = lets.find(n); it != lets.end() && depth < 16) {
      ++depth;
      auto v = evalWith(*it->second, lookup);
      --depth;
      return v;
    }
    return std::nullopt;
  };
  return evalWith(e, lookup);
}

std::optional<int64_t> evalInt(const syntax::Expr &e, const ConstEnv &env) {
  return evalWith(e, [&](const std::string &name) -> std::optional<int64_t> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<int64_t>(it->second);
  });
}

} // namespace cake::sema
