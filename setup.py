"""`pip install .` of the repository: the cake package (python/cake) with the libraries it calls,
libcake_kmeans.so and libcake_knn.so, copied into cake/lib/. They are the project's CMake build output:
taken from CAKE_BUILD_DIR (default build/) when it has them, else built there first (cmake and the
toolchain of README.md; no GPU needed). An editable install (`pip install -e .`) finds them in the
build folder instead (cake/_native.py)."""
import os
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
LIBRARIES = ("libcake_kmeans.so", "libcake_knn.so")


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        build = pathlib.Path(os.environ.get("CAKE_BUILD_DIR", ROOT / "build"))
        missing = [name for name in LIBRARIES if not (build / "lib" / name).is_file()]
        if missing:
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release"])
            subprocess.check_call(["cmake", "--build", str(build), "--target", "cake_kmeans", "cake_knn"])
        target = pathlib.Path(self.build_lib) / "cake" / "lib"
        target.mkdir(parents=True, exist_ok=True)
        for name in LIBRARIES:
            shutil.copy2(build / "lib" / name, target / name)


setup(cmdclass={"build_py": BuildWithLibraries})
