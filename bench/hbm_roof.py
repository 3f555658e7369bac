"""What a GPU's HBM delivers to a plain streaming kernel (the H200's in bench/results/h200_hbm_roof.log): the
practical roof for decode GEMMs, which read their weights once (bench_anchors.py compares them with the device's
datasheet peak, bench_anchors.HBM_TBPS: 4.8 TB/s on an H200; this says how much of it is reachable).

Each case reads (and for copy, writes) a buffer far larger than L2, timed like every contender of the bench
(cutlassgen.timing.median_ms: device events after warm-up, median of many runs).

Run: python bench/hbm_roof.py [--mib 128,1024]   (needs a CUDA GPU)
"""
import argparse

import torch

from bench_anchors import hbm_tbps  # one roof for both reports
from cutlassgen.timing import median_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", default="128,1024",
                    help="buffer sizes in MiB (128: a decode GEMM's 8192x8192 bf16 weights)")
    ap.add_argument("--reps", type=int, default=50)
    args = ap.parse_args()
    device = torch.cuda.get_device_name()
    roof = hbm_tbps(device)
    print(f"{device}, torch {torch.__version__}; TB/s = bytes moved / median device time")
    for mib in (int(m) for m in args.mib.split(",")):
        n = mib * 2**20 // 4
        x, y = torch.rand(n, device="cuda"), torch.empty(n, device="cuda")
        cases = {  # name -> (fn, bytes moved)
            "read (sum)": (lambda: x.sum(), 4 * n),
            "read (amax)": (lambda: x.amax(), 4 * n),
            "copy (read + write)": (lambda: y.copy_(x), 8 * n),
            "write (fill)": (lambda: y.fill_(1.0), 4 * n),
        }
        for name, (fn, moved) in cases.items():
            ms = median_ms(fn, reps=args.reps)
            tbps = moved / ms / 1e9
            share = f"  ({tbps / roof:.0%} of {roof})" if roof else ""
            print(f"{mib:5d} MiB {name:20s} {ms * 1e3:8.1f} us  {tbps:5.2f} TB/s{share}", flush=True)


if __name__ == "__main__":
    main()
