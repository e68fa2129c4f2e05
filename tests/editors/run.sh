#!/usr/bin/env bash
#===- tests/editors/run.sh - Run one editor-client test -------------------===#
#
#   CAKE=build/cake tests/editors/run.sh nvim|emacs|node|vscode|vsix
#
# Each test drives `cake lsp` ($CAKE) from a real client, or checks the VS Code
# extension. Exit 77 (ctest SKIP_RETURN_CODE) only when the client program is
# not installed; a missing npm install is a failure (scripts/setup.sh does it).
#
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
export CAKE=${CAKE:?set CAKE to the cake binary}

need() {
  for p in "$@"; do
    command -v "$p" >/dev/null 2>&1 || { echo "SKIP: $p is not installed"; exit 77; }
  done
}
need_modules() {
  [[ -d $1/node_modules ]] || { echo "FAIL: $1/node_modules is missing: run scripts/setup.sh (npm ci)"; exit 1; }
}

case "${1:-}" in
  nvim)
    need nvim
    exec nvim --headless --clean -u "$here/nvim/test.lua" </dev/null ;;
  emacs)
    need emacs
    exec emacs --batch -Q -l "$here/emacs/cake-eglot-test.el" -f ert-run-tests-batch-and-exit </dev/null ;;
  node)
    need node
    need_modules "$here/node"
    exec node --test "$here/node/lsp.test.js" ;;
  vscode)  # the grammar test (vscode-tmgrammar-test) and the extension's unit tests
    need node npm
    need_modules "$root/editors/vscode"
    cd "$root/editors/vscode" && exec npm test --silent ;;
  vsix)
    need node npm python3
    exec python3 "$here/vscode/vsix_test.py" ;;
  *)
    echo "usage: $0 nvim|emacs|node|vscode|vsix" >&2
    exit 2 ;;
esac
