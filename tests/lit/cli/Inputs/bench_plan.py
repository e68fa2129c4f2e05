"""A bench plan of five GEMM shapes for the stand-in driver (unchecked: its launches compute nothing), with a
launch limit of 0.5 s so that a hung GPU is found quickly. Usage: bench_plan.py REPO > plan.json"""
import json
import sys

repo = sys.argv[1]
shapes = [{"M": 128, "N": 256, "K": 64}, {"M": 256, "N": 256, "K": 64}, {"M": 128, "N": 512, "K": 64},
          {"M": 384, "N": 256, "K": 128}, {"M": 128, "N": 256, "K": 192}]
print(json.dumps({"runs": [{"file": repo + "/kernels/gemm/gemm_sm90_ws.cake", "workload": repo + "/kernels/gemm/gemm.workload.json",
                            "family": "gemm_sm90", "shapes": shapes, "reps": 2, "warmup": 1, "check": False,
                            "timeout": 0.5}]}))
