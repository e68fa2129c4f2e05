//===- Expr.cpp - Integer expressions over a task's sizes -----------------===//
#include "compiler/task/Expr.h"

#include <cctype>
#include <climits>
#include <vector>

namespace cake::task {
namespace {

/// Recursive descent over sum := term (('+'|'-') term)*, term := unary (('*'|'/'|'%') unary)*,
/// unary := '-' unary | primary, primary := number | name | name '(' sum ',' sum ')' | '(' sum ')'.
/// With sizes == nullptr it only parses and collects names.
class Parser {
public:
  Parser(std::string_view text, const std::map<std::string, int64_t> *sizes, std::vector<std::string> *names)
      : t_(text), sizes_(sizes), names_(names) {}

  Expected<int64_t> parse() {
    auto v = sum(0);
    if (!v)
      return v;
    skip();
    if (i_ != t_.size())
      return error("unexpected '" + std::string(1, t_[i_]) + "'");
    return v;
  }

private:
  std::string_view t_;
  const std::map<std::string, int64_t> *sizes_;
  std::vector<std::string> *names_;
  size_t i_ = 0;

  Error error(const std::string &what) const {
    return Error(Error::InvalidArgument,
                 "'" + std::string(t_) + "', column " + std::to_string(i_ + 1) + ": " + what);
  }
  void skip() {
    while (i_ < t_.size() && std::isspace(uint8_t(t_[i_])))
      ++i_;
  }
  bool eat(char c) {
    skip();
    if (i_ < t_.size() && t_[i_] == c)
      return ++i_, true;
    return false;
  }
  Expected<int64_t> combine(char op, int64_t a, int64_t b) {
    if (!sizes_)
      return int64_t(1);
    int64_t r = 0;
    switch (op) {
    case '+':
      if (__builtin_add_overflow(a, b, &r))
        return error("overflow");
      return r;
    case '-':
      if (__builtin_sub_overflow(a, b, &r))
        return error("overflow");
      return r;
    case '*':
      if (__builtin_mul_overflow(a, b, &r))
        return error("overflow");
      return r;
    default:
      if (b == 0)
        return error("division by zero");
      if (a == INT64_MIN && b == -1)
        return error("overflow");
      if (op == '%')
        return a % b;
      r = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? r - 1 : r; // rounds down
    }
  }
  /// operand ((op) operand)* for the operators in \p ops, left to right.
  Expected<int64_t> chain(int depth, std::string_view ops, Expected<int64_t> (Parser::*operand)(int)) {
    auto a = (this->*operand)(depth);
    if (!a)
      return a;
    int64_t v = *a;
    while (true) {
      char op = 0;
      for (char c : ops)
        if (!op && eat(c))
          op = c;
      if (!op)
        return v;
      auto b = (this->*operand)(depth);
      if (!b)
        return b;
      auto r = combine(op, v, *b);
      if (!r)
        return r;
      v = *r;
    }
  }
  Expected<int64_t> sum(int depth) { return chain(depth, "+-", &Parser::term); }
  Expected<int64_t> term(int depth) { return chain(depth, "*/%", &Parser::unary); }
  Expected<int64_t> unary(int depth) {
    if (depth > 64)
      return error("nested too deeply");
    if (eat('-')) {
      auto v = unary(depth + 1);
      if (!v)
        return v;
      return combine('-', 0, *v);
    }
    return primary(depth);
  }
  Expected<int64_t> primary(int depth) {
    skip();
    if (i_ >= t_.size())
      return error("an operand is missing");
    if (eat('(')) {
      auto v = sum(depth + 1);
      if (!v)
        return v;
      if (!eat(')'))
        return error("')' expected");
      return v;
    }
    size_t start = i_;
    if (std::isdigit(uint8_t(t_[i_]))) {
      int64_t v = 0;
      while (i_ < t_.size() && std::isdigit(uint8_t(t_[i_])))
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, t_[i_++] - '0', &v))
          return error("number too large");
      if (i_ < t_.size() && (std::isalpha(uint8_t(t_[i_])) || t_[i_] == '.'))
        return error("an integer expected");
      return v;
    }
    if (!std::isalpha(uint8_t(t_[i_])) && t_[i_] != '_')
      return error("unexpected '" + std::string(1, t_[i_]) + "'");
    while (i_ < t_.size() && (std::isalnum(uint8_t(t_[i_])) || t_[i_] == '_'))
      ++i_;
    std::string name(t_.substr(start, i_ - start));
    if (eat('(')) {
      if (name != "cdiv" && name != "min" && name != "max")
        return error("unknown function '" + name + "' (cdiv, min and max are known)");
      auto a = sum(depth + 1);
      if (!a)
        return a;
      if (!eat(','))
        return error("',' expected: " + name + " takes two arguments");
      auto b = sum(depth + 1);
      if (!b)
        return b;
      if (!eat(')'))
        return error("')' expected");
      if (!sizes_)
        return int64_t(1);
      if (name == "min")
        return std::min(*a, *b);
      if (name == "max")
        return std::max(*a, *b);
      if (*b <= 0)
        return error("cdiv by a non-positive value");
      auto up = combine('+', *a, *b - 1);
      if (!up)
        return up;
      return combine('/', *up, *b);
    }
    if (names_)
      names_->push_back(name);
    if (!sizes_)
      return int64_t(1);
    auto it = sizes_->find(name);
    if (it == sizes_->end())
      return error("'" + name + "' is not a size of the task");
    return it->second;
  }
};

} // namespace

Expected<int64_t> evalExpr(std::string_view text, const std::map<std::string, int64_t> &sizes) {
  return Parser(text, &sizes, nullptr).parse();
}

Expected<std::vector<std::string>> exprNames(std::string_view text) {
  std::vector<std::string> names;
  if (auto v = Parser(text, nullptr, &names).parse(); !v)
    return v.takeError();
  return names;
}

} // namespace cake::task
