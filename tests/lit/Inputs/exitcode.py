"""Runs a command, forwards its output and prints its exit status last.

lit's internal shell cannot inspect $?, so tests that care about the exact
exit code (0, 1 or 2) run the command through this script and FileCheck the
final `exit: N` line.
"""
import subprocess
import sys

result = subprocess.run(sys.argv[1:], stdin=sys.stdin)
sys.stdout.flush()
print(f"exit: {result.returncode}")
