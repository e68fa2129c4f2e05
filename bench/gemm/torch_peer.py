#!/usr/bin/env python3
"""cuBLAS through torch.matmul for C = A B^T (bf16 in, fp32 accumulate, bf16 out): the GEMM peer.

Usage: torch_peer.py M,N,K [M,N,K ...] > peer.json
Each shape: fresh random inputs, 10 warm-up launches, 50 timed launches (CUDA events, one pair per
launch), median and spread, the same protocol as `cake run`.
"""
import json
import statistics
import sys

import torch


def time_shape(m, n, k, warmup=10, reps=50):
    g = torch.Generator(device="cuda").manual_seed(m * 31 + n * 7 + k)
    a = torch.rand((m, k), device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    b = torch.rand((n, k), device="cuda", dtype=torch.bfloat16, generator=g) * 2 - 1
    for _ in range(warmup):
        torch.matmul(a, b.t())
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b.t())
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end))
    samples.sort()
    med = statistics.median(samples)
    return {"M": m, "N": n, "K": k, "median_ms": med, "p10_ms": samples[len(samples) // 10],
            "p90_ms": samples[len(samples) * 9 // 10], "tflops": 2 * m * n * k / med / 1e9}


def main():
    out = {"peer": "torch.matmul (cuBLAS)", "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "shapes": [time_shape(*map(int, s.split(","))) for s in sys.argv[1:]]}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
