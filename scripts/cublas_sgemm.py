#!/usr/bin/env python3
"""cuBLAS SGEMM through PyTorch, for the ladder bench's vendor row on NVIDIA GPUs.

usage: cublas_sgemm.py N REPEATS
Prints one line: "median_s min_s max_s max_error allowed". Float32 with TF32 switched off (plain
FP32 FMA units, as OpenCL kernels use), timed by CUDA events after two warm-ups, on fresh
random inputs; the result is checked against a float64 product with the same error bound as the
bench's own check: (N + 1) * 2^-24 relative to sum |a||b|, doubled.
"""
import sys

import torch


def main() -> int:
    n, repeats = int(sys.argv[1]), int(sys.argv[2])
    if not torch.cuda.is_available():
        print("no CUDA device for PyTorch", file=sys.stderr)
        return 2
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    gen = torch.Generator(device="cuda").manual_seed(20261122)
    a = torch.rand(n, n, device="cuda", generator=gen) * 2 - 1
    b = torch.rand(n, n, device="cuda", generator=gen) * 2 - 1
    c = torch.empty(n, n, device="cuda")
    for _ in range(2):
        torch.matmul(a, b, out=c)
    times = []
    for _ in range(repeats):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=c)
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop) / 1000.0)
    times.sort()
    exact = a.double() @ b.double()
    scale = a.double().abs() @ b.double().abs()
    error = (c.double() - exact).abs()
    allowed = 2 * (n + 1) * 2.0**-24 * scale
    worst = float((error - allowed).max())
    print(f"{times[len(times) // 2]:.9g} {times[0]:.9g} {times[-1]:.9g} {float(error.max()):.3g} {'ok' if worst <= 0 else 'WRONG'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
