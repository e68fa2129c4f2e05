//===- Lowered.cpp - cake/viewLowered -------------------------------------===//
//
// cake/viewLowered will show the CUDA C++ the compiler generates for a kernel
// (docs/lsp-extensions.md). CAKE has no lowering yet (compiler/lower/ is
// planned), so after validating its params the request fails with
// RequestFailed and says so; it never returns made-up code.
//
//===----------------------------------------------------------------------===//
#include "lsp/Features.h"

namespace cake::lsp {

json viewLowered(State &state, const json &params) {
  std::string uri = documentUri(params);
  if (params.contains("kernel"))
    field<std::string>(params, "kernel", "params");
  if (!state.docs.find(uri))
    throw LspError(ErrorCode::InvalidParams, "document is not open: " + uri);
  throw LspError(ErrorCode::RequestFailed,
                 "cake/viewLowered: CUDA lowering is not implemented yet in this build (compiler/lower/ is "
                 "planned); there is no generated code to show");
}

} // namespace cake::lsp
