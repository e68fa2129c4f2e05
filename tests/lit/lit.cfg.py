# lit configuration for CAKE's diagnostic tests (tests/lit/**/*.cake).
import ctypes
import os
import shutil
import lit.formats

config.name = "cake"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cake", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.join(config.cake_source_dir, "tests", "lit")
config.test_exec_root = os.path.join(config.cake_binary_dir, "tests", "lit-out")

config.substitutions.append(("%cake", os.path.join(config.cake_binary_dir, "cake")))
config.substitutions.append(("%repo", config.cake_source_dir))
config.substitutions.append(("%python", config.python))
config.substitutions.append(("FileCheck", config.filecheck))
# Keep colour and locale out of golden output.
config.environment["NO_COLOR"] = "1"
config.environment["LC_ALL"] = "C"
# The failure log (formats/FailureLog.h) is off: the tests' commands on the repository's kernels would append
# to the developer's .cake/log.jsonl. The tests of the log name one with CAKE_LOG=%t/...
config.environment["CAKE_LOG"] = "0"

# Features for tests/lit/runner: "cuda" when CAKE was built with the CUDA
# toolkit (NVRTC), "nvcc" when the ahead-of-time path can run, and
# "fake-cuda" when tests/fakecuda was built (%fakecuda), "cuda-stub" when the toolkit's stub libcuda is at /usr/local/cuda/lib/stubs,
# "no-cuda-driver" when libcuda.so.1 cannot be loaded (no GPU for certain).
if getattr(config, "cake_has_cuda", False):
    config.available_features.add("cuda")
# "clang" when cake links Clang's libTooling (the CUDA checker: cake check FILE.cu)
if getattr(config, "cake_has_clang", False):
    config.available_features.add("clang")
if shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc"):
    config.available_features.add("nvcc")
fake_cuda = os.path.join(config.cake_binary_dir, "tests", "libcake_fake_cuda.so")
config.substitutions.append(("%fakecuda", fake_cuda))
if os.path.exists(fake_cuda):
    config.available_features.add("fake-cuda")
if os.path.exists("/usr/local/cuda/lib/stubs/libcuda.so"):
    config.available_features.add("cuda-stub")
try:
    ctypes.CDLL("libcuda.so.1")
except OSError:
    config.available_features.add("no-cuda-driver")
