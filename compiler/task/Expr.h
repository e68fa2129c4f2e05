//===- Expr.h - Integer expressions over a task's sizes ---------*- C++ -*-===//
//
// Part of CAKE. What a task's "flops" and a `.cu` candidate's launch line
// (`// cake-task: grid=cdiv(N,128),cdiv(M,128)`) compute from the sizes:
// integers, size names, + - * / (integer division, rounding down), % and
// parentheses, cdiv(a, b), min(a, b), max(a, b). Overflow, division by zero
// and unknown names are errors that say where in the text.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "diagnostics/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace cake::task {

/// The value of \p text over \p sizes; the Error names the column and what is wrong.
Expected<int64_t> evalExpr(std::string_view text, const std::map<std::string, int64_t> &sizes);

/// The names \p text reads (for a reader that checks them before any size is known); an Error for a text that does not parse.
Expected<std::vector<std::string>> exprNames(std::string_view text);

} // namespace cake::task
