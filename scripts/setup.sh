#!/usr/bin/env bash
#===- scripts/setup.sh - Install dependencies, configure and build --------===#
#
# Idempotent: installs only the Debian packages that are missing, the npm
# packages of editors/vscode and tests/editors/node when their lockfiles
# changed, then configures (once) and builds CAKE into build/. Safe to run
# again and again.
#
#   scripts/setup.sh            # install + build
#   BUILD_DIR=out scripts/setup.sh
#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}

PACKAGES=(
  # build
  cmake ninja-build clang-19 llvm-19-dev libclang-19-dev
  nlohmann-json3-dev libcxxopts-dev libgtest-dev libgmock-dev
  # tests: lit + FileCheck, libFuzzer runtime, python for lit
  llvm-19-tools libclang-rt-19-dev python3
  # real LSP clients for the editor tests
  neovim emacs-nox elpa-eglot
  # a single-node Slurm for the sweep test (tests/slurm/sweep.sh starts its own daemons)
  slurmctld slurmd slurm-client munge
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages of the VS Code extension (client library, vsce, grammar test) and
# of the node LSP client test, exactly as their lockfiles pin them. Skipped when
# node_modules was installed from the same lockfile (a stamp holds its hash).
if command -v npm >/dev/null 2>&1; then
  for dir in editors/vscode tests/editors/node; do
    stamp="$dir/node_modules/.cake-setup-lock.sha256"
    sum=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
    if [[ ! -f $stamp || $(<"$stamp") != "$sum" ]]; then
      echo "setup: npm ci in $dir"
      (cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error)
      echo "$sum" >"$stamp"
    fi
  done
else
  echo "setup: npm not found (node 20 is needed); the VS Code and node editor tests will be skipped"
fi

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++-19 \
    -DLLVM_DIR=/usr/lib/llvm-19/lib/cmake/llvm
fi
cmake --build "$BUILD_DIR" -j "$JOBS"
