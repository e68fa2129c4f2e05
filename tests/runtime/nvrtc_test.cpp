// Compiles a CUDA source that includes cake_device.cuh with NVRTC, in process,
// for each target named on the command line, the way the CAKE driver will
// compile lowered kernels. Fails on a compile error, on any NVRTC log output,
// or when no cubin comes back.
//
// usage: cake_rt_nvrtc_test <source.cu> <sm_80,sm_90a,...> [nvrtc options...]
#include <nvrtc.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool compileFor(const std::string& source, const std::string& name, const std::string& arch,
                const std::vector<std::string>& extra) {
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    std::cerr << arch << ": nvrtcCreateProgram failed\n";
    return false;
  }
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-std=c++17"};
  options.insert(options.end(), extra.begin(), extra.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  const nvrtcResult result = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t logSize = 0;
  nvrtcGetProgramLogSize(prog, &logSize);
  std::string log(logSize, '\0');
  if (logSize > 0) nvrtcGetProgramLog(prog, log.data());
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();

  bool ok = true;
  if (result != NVRTC_SUCCESS) {
    std::cerr << arch << ": " << nvrtcGetErrorString(result) << "\n";
    ok = false;
  }
  if (!log.empty()) {
    std::cerr << arch << ": NVRTC log:\n" << log << "\n";
    ok = false;
  }
  size_t cubinSize = 0;
  if (ok && (nvrtcGetCUBINSize(prog, &cubinSize) != NVRTC_SUCCESS || cubinSize == 0)) {
    std::cerr << arch << ": no cubin\n";
    ok = false;
  }
  nvrtcDestroyProgram(&prog);
  if (ok) std::cout << arch << ": ok, cubin " << cubinSize << " bytes\n";
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " <source.cu> <arch,arch,...> [nvrtc options...]\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const std::string source = text.str();

  std::vector<std::string> extra(argv + 3, argv + argc);
  bool ok = true;
  std::stringstream archs(argv[2]);
  for (std::string arch; std::getline(archs, arch, ',');) ok = compileFor(source, "compile_test.cu", arch, extra) && ok;
  return ok ? 0 : 1;
}
