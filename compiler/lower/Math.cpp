//===- Math.cpp - Elementwise math functions: math.exp, log, sqrt, tanh, ... -===//
//
// Part of CAKE. The CUDA spelling of the elementwise math operations
// (language.md 10.9), in one place for the scalar lowering (a call of
// opLowerings) and the elementwise one over register tensors
// (Lowerer::elementwise, Fragments.cpp). Unless `precise = true` a function is
// its hardware approximation, one MUFU instruction: math.exp is __expf
// (ex2.approx.ftz of x log2(e)), math.exp2 ex2.approx.ftz, math.log __logf
// (lg2.approx.ftz times ln 2), math.log2 __log2f, math.rsqrt rsqrtf
// (rsqrt.approx), math.sqrt sqrt.approx.ftz, math.tanh tanh.approx (sm_75 and
// later), math.sigmoid (1 + tanh(x / 2)) / 2 on one tanh.approx (absolute
// error about 2^-12). With `precise = true` they are the CUDA math library's
// functions, division and square root IEEE-rounded (expf, exp2f, logf, log2f,
// 1 / sqrtf, sqrtf, tanhf, 1 / (1 + expf(-x))). math.abs and math.fma are
// exact, and integer where every operand is an integer (cake::rt::math_abs
// and math_fma: C++ overloads decide, as the lowering does not type scalars);
// any other function of an integer takes it as fp32.
//
//===----------------------------------------------------------------------===//
#include "compiler/lower/Lowerer.h"

namespace cake::lower {

using namespace cake::syntax;
using namespace cake::sema;

bool isElementwiseMath(OpId op) {
  switch (op) {
  case OpId::MathSelect:
  case OpId::MathMin:
  case OpId::MathMax:
  case OpId::MathAbs:
  case OpId::MathExp:
  case OpId::MathExp2:
  case OpId::MathFma:
  case OpId::MathLog:
  case OpId::MathLog2:
  case OpId::MathRsqrt:
  case OpId::MathSigmoid:
  case OpId::MathSqrt:
  case OpId::MathTanh:
    return true;
  default:
    return false;
  }
}

std::optional<std::string> mathExpression(Lowerer &L, const Expr &call, const std::vector<std::string> &args) {
  const OpId op = calleeOp(call);
  const auto operands = positionalArgs(call);
  if (operands.size() != args.size() || args.empty()) {
    L.unsupported(call.range, "this call of '" + L.printed(call) + "'");
    return std::nullopt;
  }
  bool precise = false;
  if (const Expr *p = keywordArg(call, "precise")) {
    auto v = p->kind == ExprKind::Bool ? std::optional<int64_t>(p->text == "true") : L.constant(*p);
    if (!v) {
      L.unsupported(p->range, "a precise = that is not a constant");
      return std::nullopt;
    }
    precise = *v != 0;
  }
  auto fn = [&](std::string_view approx, std::string_view ieee) {
    return std::string(precise ? ieee : approx) + "(" + args[0] + ")";
  };
  switch (op) {
  case OpId::MathSelect:
    return "(" + args[0] + " ? " + args[1] + " : " + args[2] + ")";
  case OpId::MathMin:
    return "min(" + args[0] + ", " + args[1] + ")";
  case OpId::MathMax:
    return "max(" + args[0] + ", " + args[1] + ")";
  case OpId::MathAbs:
    return "cake::rt::math_abs(" + args[0] + ")";
  case OpId::MathFma:
    return "cake::rt::math_fma(" + args[0] + ", " + args[1] + ", " + args[2] + ")";
  case OpId::MathExp:
    return fn("__expf", "expf");
  case OpId::MathExp2:
    return fn("cake::rt::ex2_approx", "exp2f");
  case OpId::MathLog:
    return fn("__logf", "logf");
  case OpId::MathLog2:
    return fn("__log2f", "log2f");
  case OpId::MathRsqrt:
    return precise ? "(1.0f / sqrtf(" + args[0] + "))" : "rsqrtf(" + args[0] + ")";
  case OpId::MathSqrt:
    return fn("cake::rt::sqrt_approx", "sqrtf");
  case OpId::MathTanh:
    return fn("cake::rt::tanh_approx", "tanhf");
  case OpId::MathSigmoid:
    return precise ? "(1.0f / (1.0f + expf(-(" + args[0] + "))))" : "cake::rt::sigmoid_approx(" + args[0] + ")";
  default:
    L.unsupported(call.range, "'" + L.printed(call) + "' as elementwise math");
    return std::nullopt;
  }
}

namespace {

/// A math function of scalars.
std::optional<Val> lowerMath(Lowerer &L, const Expr &call) {
  std::vector<std::string> args;
  for (const Expr *a : positionalArgs(call)) {
    auto s = L.scalar(*a);
    if (!s)
      return std::nullopt;
    args.push_back(*s);
  }
  auto e = mathExpression(L, call, args);
  if (!e)
    return std::nullopt;
  return scalarVal(*e);
}

} // namespace

void addMathLowerings(OpLowerings &t) {
  for (OpId op : {OpId::MathAbs, OpId::MathExp, OpId::MathExp2, OpId::MathFma, OpId::MathLog, OpId::MathLog2,
                  OpId::MathRsqrt, OpId::MathSigmoid, OpId::MathSqrt, OpId::MathTanh})
    t[op] = lowerMath;
}

} // namespace cake::lower
