#!/usr/bin/env python3
"""cuBLAS rows for the GPU studies (bench/h100_study.sh, bench/h200_reference.sh): fp32 through
PyTorch with TF32 off, per N: calls back to back between two CUDA events (median of 5, the
issues' measure) and one call per event pair (median of 9, which includes the launch gap).

    python3 bench/cublas_rows.py 1024,2048,4096
"""
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def seconds(reps, a, b, c):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        torch.matmul(a, b, out=c)
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / 1000 / reps


for n in map(int, sys.argv[1].split(",")):
    a = torch.rand(n, n, device="cuda") * 2 - 1
    b = torch.rand(n, n, device="cuda") * 2 - 1
    c = torch.empty(n, n, device="cuda")
    seconds(3, a, b, c)  # warm-up
    reps = max(3, min(50, int(2e11 // (2 * n**3))))
    loops = sorted(seconds(reps, a, b, c) for _ in range(5))
    single = sorted(seconds(1, a, b, c) for _ in range(9))
    flops = 2 * n**3
    print(f"N={n} back-to-back x{reps}: {flops / loops[2] / 1e9:.1f} GFLOPS (median of 5; fastest "
          f"{flops / loops[0] / 1e9:.1f}), one call per event pair: {flops / single[4] / 1e9:.1f}", flush=True)
