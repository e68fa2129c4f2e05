#!/usr/bin/env bash
# Builds cake on the device machine (no Debian packages there: nlohmann/json and cxxopts come from
# the carried .device/include) into build-dev/. Usage: scripts/device_build.sh LOG_DIR [TARGET...]
# Writes LOG_DIR/cmake.log and LOG_DIR/build.log; on a failed build prints the log's tail, exits 1.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=$1
shift
export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build-dev -G Ninja -DCMAKE_BUILD_TYPE=Release -DCAKE_DEVICE_BUILD=ON \
  -DCAKE_DEPS_INCLUDE="$PWD/.device/include" -DCAKE_WERROR=OFF > "$logs/cmake.log" 2>&1
ninja -C build-dev "$@" > "$logs/build.log" 2>&1 || { tail -20 "$logs/build.log"; exit 1; }
