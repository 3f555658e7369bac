"""Which kernels the libraries launch at the shapes where they beat us, and ours beside them: name, grid, block and
device time from torch.profiler (the library kernels' names spell their tile, cluster and schedule).
With --ncu, each contender instead runs once inside an NVTX range "probe", for
`ncu --nvtx --nvtx-include probe/ python bench/library_kernels.py --ncu` (bench/device_session.sh profile).

Run: python bench/library_kernels.py [--ncu] [--shapes MxNxK,...] [--libraries-only]   (needs an sm90 GPU)
"""
import argparse
import json
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile

import cutlassgen as cg
from cutlassgen import Sm90Tile
from cutlassgen.tiles import shape_tile
from tile_probe import (DECODE_TILES, M256_BF16_TILES, M256_FP8_TILES, PREFILL_TILES, bias_gelu, bias_gelu_contenders,
                        fp8_scaled, fp8_scaled_contenders, named, parse_shapes, run_in_probe_range)


def per_shape_cases(*shapes, beside: dict | None = None) -> list:
    """bf16 bias+gelu cases showing the tile the all-"auto" spec runs at each shape (the spec's default where the
    per-shape rules name none), and the tiles of `beside` (name -> tile) next to it."""
    return [((M, N, K), "bf16 bias+gelu", bias_gelu,
             {"per-shape tile": shape_tile(bias_gelu(Sm90Tile()), M, N, K) or Sm90Tile(), **(beside or {})},
             bias_gelu_contenders)
            for M, N, K in shapes]


def fp8_per_shape_cases(*shapes) -> list:
    """fp8 scaled cases showing the tile the all-"auto" spec runs at each shape with exact and with fast
    accumulation, beside torch._scaled_mm's two accumulations (fp8_scaled_contenders times both)."""
    def planned(M, N, K, fast):
        auto = Sm90Tile(fp8_fast_accum=fast)
        return shape_tile(fp8_scaled(auto), M, N, K) or auto
    return [((M, N, K), "fp8 scaled", fp8_scaled,
             {"per-shape tile": planned(M, N, K, False), "per-shape tile, fast accum": planned(M, N, K, True)},
             fp8_scaled_contenders)
            for M, N, K in shapes]


# shape -> (what, spec maker, our tiles to show, contenders); ours are the best of bench/results/h200_tile_probe.log
CASES = [
    ((8192, 8192, 8192), "bf16 bias+gelu", bias_gelu,
     {"128x256x64 c2x1 coop": PREFILL_TILES["128x256x64 c2x1 coop"]},
     bias_gelu_contenders),
    ((256, 8192, 8192), "bf16 bias+gelu", bias_gelu, {"128x128x64 c2x1 coop": M256_BF16_TILES["128x128x64 c2x1 coop"]},
     bias_gelu_contenders),
    ((256, 8192, 8192), "fp8 scaled", fp8_scaled, {"128x128x128 c2x1 coop": M256_FP8_TILES["128x128x128 c2x1 coop"]},
     fp8_scaled_contenders),
    ((16, 8192, 8192), "bf16 bias+gelu", bias_gelu,
     {"swap 64x16x128 pingpong": DECODE_TILES["swap 64x16x128 pingpong"]}, bias_gelu_contenders),
    ((32, 14336, 4096), "bf16 bias+gelu", bias_gelu,
     {"swap 64x32x128 c2x1 pingpong": DECODE_TILES["swap 64x32x128 c2x1 pingpong"]}, bias_gelu_contenders),
    # Session 8's open decode gaps: M = 32 on the anchor shape (0.98 in anchors run 10), and the M 33-64 bucket off
    # the anchor shapes (tile_probe run 15: 195 vs 203, 204 vs 216), each with the per-shape tile it runs now.
    *per_shape_cases((32, 8192, 8192), (64, 4096, 4096), (64, 6144, 8192)),
    # Session 9: the rest of the M 33-64 gaps (run 15: 64x6144x4096 179 vs 197, M = 40 / 48 at 8192^2 142 / 173 vs
    # 151 / 181), and 64x4096x14336, where cuBLASLt fused ran 224 against cuBLAS mm's 204 (probe run 16).
    *per_shape_cases((64, 6144, 4096), (48, 8192, 8192), (40, 8192, 8192), (64, 4096, 14336)),
    # Session 14: the prefill shapes short of cuBLASLt fused in every anchors run or nearly (bench/anchor_history.py),
    # with the tile "auto" runs there.
    *per_shape_cases((2048, 8192, 8192), (4096, 14336, 4096)),
    # Session 21: M 65-256, where the per-shape plan's token tiles have rows past M (tile_probe.py run 53).
    *per_shape_cases((96, 8192, 4096), (136, 8192, 4096), (168, 8192, 4096), (200, 4096, 4096), (200, 8192, 4096),
                     (240, 14336, 4096)),
    # Session 24: M 65-256 where the plan trails cuBLASLt fused by 5-23% (tile_probe.py runs 61, 65, 66).
    *per_shape_cases((72, 4096, 4096), (104, 4096, 4096), (72, 14336, 4096), (104, 14336, 4096), (136, 14336, 4096),
                     (168, 14336, 4096), (200, 14336, 4096), (136, 12288, 4096), (200, 12288, 4096)),
    # Session 25: where the plan's 192-row weight tiles (N = 8449-12672) still trail cuBLASLt fused (tile_probe.py
    # runs 71-72: 0.77-0.91x at 225-256 rows, 0.92-0.93x at 120x9216x4096).
    *per_shape_cases((240, 9216, 4096), (256, 11008, 4096), (120, 9216, 4096)),
    # Session 27: 129-144 rows in the band of the 192-row weight tiles (N = 8449-12672), where the plan trails
    # cuBLASLt fused by 4-10% and no unswapped form helped (tile_probe.py runs 76-77), and 168x9728x8192 (0.85x cold).
    *per_shape_cases((136, 9216, 4096), (144, 9216, 4096), (144, 10240, 4096), (136, 11008, 4096),
                     (168, 9728, 8192)),
    # Session 32: N = 4352-4544, where N / 64 weight tiles are about half a wave (bench/plan_waves.py) and the plan
    # trails cuBLASLt fused at 96-104, 200-216 and 225-256 rows (0.78-0.95x, tile_probe.py wave7168, run 86).
    *per_shape_cases((96, 4544, 4096), (104, 4352, 4096), (200, 4352, 4096), (216, 4544, 4096), (232, 4352, 4096),
                     (256, 4544, 4096)),
    # Session 35: 200 rows below TWO_64_COLUMNS_END_N, where the plan and the three 72-wide columns both trail
    # cuBLASLt fused (0.72-0.89x, tile_probe.py threecols, run 95), and 96 rows at 4352 (0.96-0.99x).
    *per_shape_cases((200, 3072, 4096), (200, 3840, 4096), (96, 4352, 4096)),
    # Session 37: at 200x2048 (0.83-0.91x cuBLASLt fused) our copy of cuBLAS's own tile there (nvjet 64x72 _4x1,
    # tile_probe.py low200, run 98: 242 vs 266) trails too, so the kernels themselves differ: the ncu source page.
    *per_shape_cases((200, 2048, 4096), beside=named("swap 64x72x64 c4x1 pingpong")),
    # Session 35, after run 96: 97-128 rows at N = 4544-5600, where the plan still trails (0.85-0.98x warm).
    *per_shape_cases((112, 5120, 4096), (128, 4544, 4096), (128, 5600, 4096)),
    # Session 36: the start-up ramp, where the plan's tile is nvjet's own and still trails cuBLAS mm by 0.3-0.5 us
    # (tile_probe.py twin and fixedcost, runs 104-105): SOURCE_SHAPES=104x4096x1024,72x4096x1024 for the ncu source
    # page (device_session.sh source).
    *per_shape_cases((104, 4096, 1024), (72, 4096, 1024)),
    # Session 38: at 65-160 rows the two token columns ran 1-10% faster without their 1x2 cluster below N = 2561,
    # which under ncu read fewer L2 sectors than none (tile_probe.py runs 112-113, h200_ncu_l2.log part 5): the
    # source page of both forms at 108x2560x4096.
    *per_shape_cases((108, 2560, 4096), beside=named("swap 64x56x128 c1x2 pingpong")),
    # Session 47: 97-128 and 225-256 rows at N = 8512-10560, 0.91-0.96x cuBLASLt fused on a bare and a padded a alike
    # (tile_probe.py paddedgap, run 146): the source page of the plan's tiles beside nvjet's.
    *per_shape_cases((100, 8512, 4096), (240, 10432, 4096)),
    # Session 52: 209-255 rows at N = 8192-9216, where the plan's 128x144 c2x1 / 128x128 tiles trail cuBLASLt fused by
    # 2-4% warm and cold with either loader (tile_probe.py tallfitted, run 154).
    *per_shape_cases((216, 9216, 4096), (232, 8192, 4096)),
    # Session 73: decode 64x8192^2, where cuBLAS mm ran 5% faster in anchors runs 59-62 than in runs 47-58 (ours
    # unchanged; tile_probe.py decode64wide): which kernel cuBLAS runs there now.
    *per_shape_cases((64, 8192, 8192)),
    # Session 87: 64x5120x4096, where no swapped form reached cuBLAS mm (tile_probe.py decode5120: the plan 0.917x
    # warm), beside 64x5120x8192, where the same tile leads it by 10%: which kernels cuBLAS runs at each.
    *per_shape_cases((64, 5120, 4096), (64, 5120, 8192), beside=named("swap 64x64x64 c4x1 pingpong")),
    # Session 55: fp8 scaled at the anchor shapes, each accumulation beside _scaled_mm's same one (bench_anchors.py
    # timed fast-accumulating kernels against an exactly accumulating _scaled_mm until then).
    *fp8_per_shape_cases((8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192),
                         (232, 8192, 4096)),
    # Session 62: eight waves of exact fp8's 128x128 tile at K = 1024, where the per-tile part of its gap to
    # _scaled_mm weighs most (tile_probe.py fp8ksweep, runs 185-186: ~0.5-1 us a tile): the source page of both.
    *fp8_per_shape_cases((3072, 5632, 1024)),
    # Session 70: exact fp8 just above tiles.EXACT_WIDE_M where the plan (128x192, and 128x128 beside it) ran
    # 0.96-0.98x _scaled_mm (tile_probe.py exactwideedge, runs 257-258), and the down projections where 128x208 and
    # 128x160 led the plan (exactdeepk, runs 255-256): which tiles cuBLASLt runs there; 2304x13824, where the plan
    # led _scaled_mm by 2-3%, beside them.
    *fp8_per_shape_cases((2176, 13824, 4096), (3072, 13824, 4096), (2432, 12288, 4096), (2560, 14336, 4096),
                         (2304, 13824, 4096), (4096, 4096, 14336), (4096, 5120, 13824)),
]


def kernel_events(run) -> list:
    """The GPU kernels that run() launches, in order, as torch.profiler's trace events (name, dur in us, args)."""
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        run()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json") as f:
        prof.export_chrome_trace(f.name)
        events = json.load(open(f.name))["traceEvents"]
    return [e for e in events if e.get("cat") == "kernel"]


def kernels_of(fn) -> list:
    """(name, grid, block, median us) of every GPU kernel that one call of fn launches, from a profiler trace."""
    seen = {}
    for e in kernel_events(lambda: [fn() for _ in range(10)]):
        seen.setdefault(e["name"], (e["args"].get("grid"), e["args"].get("block"), []))[2].append(e["dur"])
    return [(n, g, b, sorted(d)[len(d) // 2]) for n, (g, b, d) in seen.items()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ncu", action="store_true", help="run each contender once in an NVTX range 'probe' (for ncu)")
    ap.add_argument("--shapes", type=parse_shapes, default=None,
                    help="only these shapes, e.g. 64x6144x4096,48x8192x8192")
    ap.add_argument("--libraries-only", action="store_true", help="only the libraries' kernels (nothing to compile)")
    ap.add_argument("--what", default=None, help="only the cases whose kind contains this, e.g. 'fp8 scaled'")
    args = ap.parse_args()
    only = None if args.shapes is None else set(args.shapes)
    cases = [c for c in CASES if (only is None or c[0] in only) and (args.what is None or args.what in c[1])]
    missing = sorted((only or set()) - {c[0] for c in CASES})
    if missing:  # a shape outside CASES would otherwise print nothing at all
        ap.error("no case for " + ", ".join("x".join(map(str, s)) for s in missing) + "; add it to CASES")
    if not cases:  # --what matching no kind at these shapes would print nothing at all too
        ap.error(f"no case of kind {args.what!r} at these shapes; kinds: " + ", ".join(sorted({c[1] for c in CASES})))
    specs = [(i, name, make(t)) for i, (_, _, make, tiles, _) in enumerate(cases) for name, t in tiles.items()
             if not args.libraries_only]
    built = cg.build_many([s for _, _, s in specs])
    for i, ((M, N, K), what, _, _, contenders) in enumerate(cases):
        kernels = {name: k for (j, name, _), k in zip(specs, built) if j == i}
        for name, fn in contenders(kernels, M, N, K).items():
            for _ in range(5):
                fn()
            torch.cuda.synchronize()
            if args.ncu:
                run_in_probe_range(fn)
                print(f"ncu: {what} {M}x{N}x{K} {name}", flush=True)
                continue
            print(f"{what} {M}x{N}x{K} {name}:")
            for kname, grid, block, us in kernels_of(fn):
                print(f"    {us:7.1f} us  grid {grid} block {block}  {kname[:160]}")
        print(flush=True)


if __name__ == "__main__":
    main()
