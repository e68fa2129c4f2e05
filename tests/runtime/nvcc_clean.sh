#!/bin/sh
# Runs a compiler command and fails if it fails or prints anything: ptxas
# reports lost optimizations (setmaxnreg ignored, wgmma serialized) as "info"
# lines that do not change the exit status.
out=$("$@" 2>&1)
rc=$?
[ -n "$out" ] && printf '%s\n' "$out"
if [ $rc -ne 0 ]; then exit $rc; fi
if [ -n "$out" ]; then echo "nvcc_clean.sh: the compiler printed diagnostics" >&2; exit 1; fi
exit 0
