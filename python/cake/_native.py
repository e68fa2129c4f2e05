"""Where the CAKE libraries are (shared by cake.kmeans and cake.knn).

A library is the project's CMake build output (lib/<name>.so), found through the environment variable
CAKE_LIB (the .so itself, a folder holding it, or a build folder with lib/ inside), else in the installed
package (cake/lib/, where a `pip install` of the repository puts it), else in build/lib/ or build-dev/lib/
of the repository this file belongs to.
"""
import os
import pathlib

import torch


def find_library(filename):
    """The path of `filename` ("libcake_knn.so"); OSError naming where it looked."""
    here = pathlib.Path(__file__).resolve().parent
    env = os.environ.get("CAKE_LIB")
    if env:
        p = pathlib.Path(env)
        if p.is_dir():
            candidates = [p / filename, p / "lib" / filename]
        else:
            candidates = [p if p.name == filename else p.parent / filename]
        where = f"CAKE_LIB={env}"
    else:
        root = here.parents[1]
        candidates = [here / "lib" / filename] + [root / d / "lib" / filename for d in ("build", "build-dev")]
        where = f"{here / 'lib'}, {root}/build/lib and {root}/build-dev/lib (set CAKE_LIB to look elsewhere)"
    for c in candidates:
        if c.is_file():
            return c
    raise OSError(f"{filename} not found in {where}; build it with the project's CMake build "
                  f"(target {filename[3:-3]}) or `pip install` the repository")


class CakeError(RuntimeError):
    """A call into a CAKE library failed. `status` is its status code (the same numbers in every library:
    1 invalid argument, 2 unsupported, 3 not available, 4 no GPU, 5 CUDA error, 6 timeout, 7 internal),
    `status_name` its name in the library's C API; the message is the library's sentence."""

    def __init__(self, status, status_name, message):
        super().__init__(f"{message} [{status_name}]")
        self.status = status
        self.status_name = status_name


_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def stream_of(t):
    """The raw handle of the current stream of t's device, in one C call (what Triton's launcher uses); the
    public API builds a torch.cuda.Stream object first."""
    if _raw_stream is not None:
        return _raw_stream(t.get_device())
    return torch.cuda.current_stream(t.device).cuda_stream
