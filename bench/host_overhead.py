"""Host overhead per call of a generated kernel vs torch.mm on the same tiny tensors (GPU not the bottleneck).

Run: python bench/host_overhead.py [--rounds N]   (needs a GPU; builds the sm90 or sm80 bias+gelu kernel first)
"""
import argparse
import dataclasses
import itertools
import statistics

import torch

import cutlassgen as cg
from cutlassgen.timing import host_us_per_call, interleaved_rounds


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5, help="rounds of 20000 calls of each contender, shuffled")
    rounds = ap.parse_args().rounds
    arch = torch.cuda.get_device_capability()
    arch = arch[0] * 10 + arch[1]
    spec = cg.GemmSpec(arch=90 if arch == 90 else 80, a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    # A ragged M costs host time a full one does not: the last token tile's fitted box (lower.TAIL_LOADS) adds a TMA
    # descriptor (encoded once per problem, then cached with the rest: csrc/cutlassgen/params_cache.hpp) and the
    # runtime asks a's storage how many rows it may read (_rows_readable). On sm90 a tile that takes the box by default
    # (64 token rows, the plan's at 161x8704) at rows that fill its tiles and at rows that do not, both with out=.
    fitted = dataclasses.replace(spec, tile=cg.Sm90Tile(cta=(64, 224, 64), cluster=(1, 1, 1), mainloop="pingpong"))
    k, k_fitted = cg.build_many([spec, fitted]) if spec.arch == 90 else (cg.build(spec, dispatch=False), None)
    a = torch.randn(64, 64, device="cuda").bfloat16()
    w = torch.randn(64, 64, device="cuda").bfloat16()
    bias = torch.randn(64, device="cuda").bfloat16()
    out = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    calls = {"torch.mm": lambda: torch.mm(a, w.t()), "ours": lambda: k(a, w.t(), bias=bias),
             "ours out=": lambda: k(a, w.t(), bias=bias, out=out)}
    # The allocating call costs more over out= than torch.mm spends on its own output: the output's Python-side
    # allocation alone, in the runtime's form before session 54 (torch.empty) and its form since (new_empty).
    bf16 = torch.bfloat16
    allocations = {"torch.empty(device=a.device)": lambda: torch.empty((64, 64), dtype=bf16, device=a.device),
                   "a.new_empty(dtype=)": lambda: a.new_empty((64, 64), dtype=bf16)}
    calls.update({f"{name} alone": fn for name, fn in allocations.items()})
    if spec.arch == 90:
        # The kernel-parameter cache (csrc/cutlassgen/params_cache.hpp): "ours out=" repeats one problem, so each
        # call after the first launches cached parameters; here D moves through more places than the cache holds,
        # so every call encodes its own (and every capacity-th empties the cache), as each call did before it.
        places = k.params_cache_stats()["capacity"] + 1
        tall = torch.empty(64 * places, 64, device="cuda", dtype=torch.bfloat16)
        cycle = itertools.cycle([tall[64 * i:64 * (i + 1)] for i in range(places)])
        calls["ours out=, a new problem each call"] = lambda: k(a, w.t(), bias=bias, out=next(cycle))
    if k_fitted is not None:
        full, ragged = (torch.randn(m, 64, device="cuda").bfloat16() for m in (256, 200))
        out_full, out_ragged = (torch.empty(m, 64, device="cuda", dtype=torch.bfloat16) for m in (256, 200))
        calls["64-row tile, 256 rows"] = lambda: k_fitted(full, w.t(), bias=bias, out=out_full)
        calls["64-row tile, 200 rows"] = lambda: k_fitted(ragged, w.t(), bias=bias, out=out_ragged)
    # Rounds in a new order each time, differences taken within a round: a slow stretch of the machine (another
    # process, a clock change) then shows as one odd round instead of shifting one contender's median.
    us = interleaved_rounds(calls, host_us_per_call, rounds=rounds)
    diffs = {name: [t - mm for t, mm in zip(us[name], us["torch.mm"])] for name in ("ours", "ours out=")}
    for r in range(rounds):
        print(f"round {r + 1}: torch.mm {us['torch.mm'][r]:.2f} us/call, ours {us['ours'][r]:.2f} "
              f"({diffs['ours'][r]:+.2f}), with out= {us['ours out='][r]:.2f} ({diffs['ours out='][r]:+.2f})")
    print(f"over torch.mm, median of {rounds} rounds x 20000 calls: cutlassgen kernel "
          f"{statistics.median(diffs['ours']):+.2f} us/call, with out= {statistics.median(diffs['ours out=']):+.2f}"
          f" (ranges {min(diffs['ours']):+.2f} to {max(diffs['ours']):+.2f}, {min(diffs['ours out=']):+.2f} to "
          f"{max(diffs['ours out=']):+.2f})")
    if spec.arch == 90:
        miss = [m - h for m, h in zip(us["ours out=, a new problem each call"], us["ours out="])]
        print(f"out= at a new place each call (every call encodes its parameters) over one place (cached): median "
              f"{statistics.median(miss):+.2f} us/call (range {min(miss):+.2f} to {max(miss):+.2f})")
    alloc = [o - f for o, f in zip(us["ours"], us["ours out="])]
    print(f"ours allocating over ours out=: median {statistics.median(alloc):+.2f} us/call; the allocation alone: "
          + ", ".join(f"{name} {statistics.median(us[f'{name} alone']):.2f}" for name in allocations))
    if k_fitted is not None:
        tail = [r - f for r, f in zip(us["64-row tile, 200 rows"], us["64-row tile, 256 rows"])]
        print(f"64-row tile at 200 rows (a fitted last box, _rows_readable's storage queries) over 256, out=: "
              f"median {statistics.median(tail):+.2f} us/call (range {min(tail):+.2f} to {max(tail):+.2f}; 256 rows "
              f"{statistics.median(us['64-row tile, 256 rows']):.2f} us/call)")


if __name__ == "__main__":
    main()
