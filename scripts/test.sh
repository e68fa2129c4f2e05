#!/usr/bin/env bash
#===- scripts/test.sh - Build and run the whole test suite ----------------===#
#
# Runs scripts/setup.sh (installs what is missing, builds), then every test
# through ctest: GoogleTest unit tests, lit + FileCheck diagnostic tests, the
# round-trip property and a short fuzz run. Tests that need a GPU skip
# themselves cleanly when none is present.
#
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD_DIR=${BUILD_DIR:-build}
scripts/setup.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-$(nproc)}" "$@"
