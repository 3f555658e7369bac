"""Do L2 eviction hints on the mainloop's TMA loads change how fast our tiles run against cuBLAS?

CUTLASS 4.2's sm90 mainloop (cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp) issues every A and B
tile load with CuTe's default policy, EVICT_NORMAL. The weights of a layer are read once per call (decode: by one CTA
column; prefill: by a few), the activations by every CTA of their row, so "weights evict first, activations evict
last" would keep the reused operand in L2 while the streamed one passes through. Each variant below sets the policy
of the kernel's A and B loads; under swap_ab the kernel's A is the weights. "weights last" is a diagnostic: with the
inputs warm in L2 it says how much a kernel gains from weights that survive in L2 from the previous call.

This builds every tile once per variant against a temporary copy of the CUTLASS headers whose two load lines take
their policy from CUTLASSGEN_TMA_HINT_A / _B (EVICT_NORMAL unless the kernel source defines them; the probe prepends
the defines), all in one ninja run, then times them beside cuBLAS mm and cuBLASLt fused in shuffled interleaved
rounds on the same inputs, each checked against float64 first, with the inputs warm and with L2 flushed.

Run: cd bench && python tma_cache_hint.py [--rounds N] [--shapes MxNxK,...]   (needs an sm90 GPU)
"""
import argparse
import os
import pathlib
import shutil
import statistics
import tempfile

import torch

from cutlassgen import jit
from cutlassgen.jit import Job, source_key
from cutlassgen.jit.toolchain import find_cutlass
from cutlassgen.runtime import Kernel
from cutlassgen.timing import interleaved_rounds_ms, l2_flush, paired_ratio
from tile_probe import bias_gelu, bias_gelu_contenders, named

MAINLOOP = "include/cutlass/gemm/collective/sm90_mma_tma_gmma_ss_warpspecialized.hpp"
HINT = "cute::TMA::CacheHintSm90::EVICT_"
# variant -> the policy of the weights' loads and of the activations' loads (None: CuTe's default, EVICT_NORMAL)
VARIANTS = {"normal": (None, None), "weights first": ("FIRST", None), "acts last": (None, "LAST"),
            "weights first acts last": ("FIRST", "LAST"), "weights last": ("LAST", None)}
# each shipped tile at the anchors shapes it runs (tiles.shape_tile / bench_anchors' best tile)
TILES = named("swap 64x16x128 pingpong", "swap 64x32x128 c2x1 pingpong", "swap 64x64x128 c4x1 pingpong",
              "128x128x64 c1x1 coop", "256x128x64 c1x2 coop", "128x256x64 c2x1 coop")
SHAPES = {(16, 8192, 8192): "swap 64x16x128 pingpong", (32, 14336, 4096): "swap 64x32x128 c2x1 pingpong",
          (64, 6144, 4096): "swap 64x64x128 c4x1 pingpong", (256, 8192, 8192): "128x128x64 c1x1 coop",
          (2048, 8192, 8192): "256x128x64 c1x2 coop", (4096, 14336, 4096): "256x128x64 c1x2 coop",
          (8192, 8192, 8192): "128x256x64 c2x1 coop"}


def patched_headers() -> pathlib.Path:
    """A copy of the CUTLASS headers in use whose mainloop loads take CUTLASSGEN_TMA_HINT_A / _B."""
    include, util = map(pathlib.Path, find_cutlass().include_dirs)
    root = pathlib.Path(tempfile.mkdtemp(prefix="cutlass-tma-hint-"))
    shutil.copytree(include, root / "include")
    shutil.copytree(util, root / "tools/util/include")
    path = root / MAINLOOP
    text = path.read_text()
    for op in "ab":
        line = f"mainloop_params.tma_load_{op}.with(*tma_barrier, mcast_mask_{op})"
        assert text.count(line) == 1, "CUTLASS's mainloop load changed; update this probe"
        text = text.replace(line, line[:-1] + f", CUTLASSGEN_TMA_HINT_{op.upper()})")
    defaults = "".join(f"#ifndef CUTLASSGEN_TMA_HINT_{op}\n#define CUTLASSGEN_TMA_HINT_{op} {HINT}NORMAL\n#endif\n"
                       for op in "AB")
    path.write_text(text.replace("#pragma once\n", "#pragma once\n" + defaults, 1))
    return root


def job(tile_name: str, variant: str) -> Job:
    """The tile's kernel with the variant's policies defined ahead of every include (a distinct name, so a distinct
    cache key from the kernels built against the unpatched headers)."""
    spec = bias_gelu(TILES[tile_name]).replace(name="tma_hint_" + variant.replace(" ", "_"))
    weights, acts = VARIANTS[variant]
    a, b = (weights, acts) if TILES[tile_name].swap_ab else (acts, weights)
    defines = "".join(f"#define CUTLASSGEN_TMA_HINT_{op} {HINT}{hint}\n" for op, hint in (("A", a), ("B", b)) if hint)
    planned = jit.plan(spec)
    source = defines + planned.source
    return Job(spec, planned.target_arch, source, source_key(source, planned.target_arch, spec.resolved_path))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--shapes", default=None, help="only these of SHAPES, e.g. 64x6144x4096,256x8192x8192")
    args = ap.parse_args()
    shapes = SHAPES if args.shapes is None else {s: SHAPES[s] for s in
                                                 (tuple(map(int, x.split("x"))) for x in args.shapes.split(","))}
    headers = patched_headers()
    os.environ["CUTLASS_PATH"] = str(headers)
    find_cutlass.cache_clear()
    try:
        entries = [(t, v) for t in dict.fromkeys(shapes.values()) for v in VARIANTS]
        jobs = [job(t, v).with_cache_key() for t, v in entries]
        paths = jit._compile_missing(jobs, None, None, None)  # every variant of every tile in one ninja run
    finally:
        shutil.rmtree(headers, ignore_errors=True)
    kernels = {(t, v): Kernel(j.spec, p, j.target_arch, j.source) for (t, v), j, p in zip(entries, jobs, paths)}
    for cold in (True, False):
        flush = l2_flush() if cold else None
        print(f"\nTFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__} (median of {args.rounds} "
              "shuffled interleaved rounds of 20 runs; "
              f"{'L2 flushed by a 512 MiB read before every call' if cold else 'inputs warm in L2'})", flush=True)
        for (M, N, K), tile in shapes.items():
            ours = {f"{tile} | {v}": kernels[(tile, v)] for v in VARIANTS}
            rounds = interleaved_rounds_ms(bias_gelu_contenders(ours, M, N, K), rounds=args.rounds, seed=M + N,
                                           before=flush)
            tf = {n: 2 * M * N * K / statistics.median(t) / 1e9 for n, t in rounds.items()}
            print(f"{M}x{N}x{K}: " + ", ".join(f"{n} {v:.0f}" for n, v in tf.items()), flush=True)
            base = rounds[f"{tile} | normal"]
            for v in list(VARIANTS)[1:]:
                print(f"    {v} vs normal, per round: {paired_ratio(rounds[f'{tile} | {v}'], base)}", flush=True)
            anchor = "cuBLAS mm" if M <= 64 else "cuBLASLt fused"
            for v in VARIANTS:
                print(f"    {v} vs {anchor}: {paired_ratio(rounds[f'{tile} | {v}'], rounds[anchor])}", flush=True)


if __name__ == "__main__":
    main()
