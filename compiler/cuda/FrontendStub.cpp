//===- FrontendStub.cpp - The CUDA front end of a cake built without Clang ===//
#include "compiler/cuda/Frontend.h"

namespace cake::cuda {

ParseResult parseCuda(const std::string &, const std::string &, const std::string &, const std::vector<std::string> &,
                      const std::string &) {
  ParseResult out;
  out.available = false;
  return out;
}

std::vector<std::string> compileFlagsFor(const std::string &, const std::string &, std::string &from) {
  from.clear();
  return {};
}

} // namespace cake::cuda
