//===- NoCuda.cpp - The runner in a build without the CUDA toolkit --------===//
#include "compiler/runner/Runner.h"

namespace cake::runner {

namespace {
Error noToolkit() { return {Error::NoDriver, "CAKE was built without the CUDA toolkit, so it cannot drive a GPU"}; }
} // namespace

Expected<std::unique_ptr<Runner>> makeRunner(int) { return noToolkit(); }
Expected<std::unique_ptr<Runner>> makeGuestRunner(int) { return noToolkit(); }
Expected<int> deviceOfAddress(DevicePtr) { return noToolkit(); }

} // namespace cake::runner
