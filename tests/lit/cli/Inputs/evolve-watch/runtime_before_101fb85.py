"""The device runtime with the hang watchdog's wait as it was before commit 101fb85 (evolve-watch.test):
copies RUNTIME_DIR to OUT_DIR and puts watched_wait_before_101fb85.cuh in place of today's watched wait (from
the out-of-line hang_trap through the end of watched_wait). Fails loudly when the markers moved.
Usage: runtime_before_101fb85.py RUNTIME_DIR OUT_DIR"""
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
shutil.copytree(src, out, dirs_exist_ok=True)
path = os.path.join(out, "cake_device.cuh")
text = open(path).read()
begin = text.index("/// Records the first timed-out wait")
body = text.index("__device__ __forceinline__ void watched_wait(", begin)
end = text.index("\n}\n", text.index("hang_trap(record", body)) + 3
old = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "watched_wait_before_101fb85.cuh")).read()
open(path, "w").write(text[:begin] + old + text[end:])
