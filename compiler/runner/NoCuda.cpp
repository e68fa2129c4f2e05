//===- NoCuda.cpp - The runner in a build without the CUDA toolkit --------===//
#include "compiler/runner/Runner.h"

namespace cake::runner {

Expected<std::unique_ptr<Runner>> makeRunner(int) {
  return Error{Error::NoDriver, "CAKE was built without the CUDA toolkit, so it cannot drive a GPU"};
}

} // namespace cake::runner
