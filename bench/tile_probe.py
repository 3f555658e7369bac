"""Which sm90 tiles beat the libraries at the shapes where the defaults do not: decode (M <= 64, bf16 bias+gelu vs
cuBLAS), large M (bf16 bias+gelu vs cuBLASLt fused) and M = 256 (bf16 bias+gelu vs cuBLASLt fused, fp8 per-row x
per-col scaled + bias vs torch._scaled_mm).
Every tile of a case is compiled in one ninja run, then timed with the libraries in shuffled interleaved rounds
(cutlassgen.timing.interleaved_rounds_ms) on the same inputs, each checked against a reference first; the best tile's
ratio to the library is also given round by round (timing.paired_ratio).

Run: python bench/tile_probe.py [CASE ...] [--rounds N] [--settle-ms MS] [--shapes MxNxK,...] [--cold] [--ncu]
                                 [--build-only]
     (needs an sm90 GPU; default: every case). Cases: decode m256 prefill prefill_fp8 pingpong epilogue cluster4
     streamk pdl wide wide64 multicast narrow64 offanchor64 exactfit midn64 epicost epiparts bulkcol bulkrow bulkepi
     prefillpp prefillwide midnk64 unswap fit48 acc192 fp8wide raster256 order2048 rasterlarge largedefault ksweep
     mid128 mid128grid mid128fit fit256 fitcheck fitodd twocol epiwide oddn extmma unswapext midnsk twocol4k
     sk14k sk4k onecol14k onecolcheck n12k n12k192 n192band tallcheck fitn fitlow fitlowcheck fitmid
     fitmidcheck fit176fp8 tall42 band176 band240 fp8narrow bf16narrow narrowcols
     wave4608 wave7168 wave7168fp8 nvjet4352 nvjet4352more stages4352 c1x1more c1x1wide nocluster nocluster193
     threecols threecolsmore low200 low200more lowk fit8 fit8more fit8low twin fixedcost weightsfirst twin200
     nocluster200 nocluster216 nocluster2col nocluster2colgrid nocluster2colwide
     nocluster2colmid cluster4x2 morecols morecols2 morecolscheck morecolsmid
     morecolsmidcheck morecolsfp8 morecolsfp8check
     morecolsfp8wide morecolsint8 morecolsint8check fourcols16 lastcol
     fillcheck fillmore fillwide fillwidefp8 padded paddedfill band145
     band145more band145tall band161 tallsub
     band161more fitweights tallsubfp8 weightfill band161fp8
     band161padded oobplace paddedgap weightcluster weight168
     fittedtail alltail alltailcheck tallfitted nvjet232 nvjet232fp8 overlappromo fullpromo fullwide
     fp8order fp8epicost exactepi fastdefault fp8ksweep fastmid fp8tilecost storestages fulldesc onestore
     exactpp opaquepipe opaquebyk opaquek opaqueplan opaquetokens opaqueclone clonespread exactwide
     exactwidesweep exactwideraster exactdeepk exactwideedge fast256k fast256bulk fast256code decode64wide
     fast256hints weights256 weights256b weights128 weights128b weights128c stages256 swapweights decode5120 decode5120k
     decode5120rot decode5120u directstore epiwide64 keepweights keepwide wideh100 wideraster wideswizzle swizzlesweep
     fp8swizzlesweep mid768 wavefill wavefillcheck raggedwide raggedlarge raggedother swizzlepad
     swizzlepadcheck fittedtwin big14k oobrow pastrows strips1
     (CASES at the end; the comment above each case's tiles says why it was run and what it measured).
With --ncu each contender instead runs once inside an NVTX range "probe", for
`ncu --nvtx --nvtx-include probe/ python bench/tile_probe.py CASE --ncu` (the order of the "ncu:" lines it prints is
the order of ncu's reports).
"""
import argparse
import ast
import dataclasses
import itertools
import math
import re
import statistics

import torch
import torch.nn.functional as F

from cutlassgen import Activation, Add, GemmSpec, Multiply, Operand, Sm90Tile, dispatch, jit, lower
from cutlassgen.golden import rel_error
from cutlassgen.tiles import resolve, shape_tile, walk_rows_past_m
from cutlassgen.timing import interleaved_rounds_ms, l2_flush, paired_ratio
from cutlassgen.tuning import label


# A pseudo-setting of build_variants: {CLONE: n} builds the kernel again from its source and a trailing comment, so that
# two loaded modules of one kernel show how far apart identical code times (the spread a difference must beat).
CLONE = "CLONE"


# A tile is named by what it sets, and the name is parsed into the tile (named()), so a name cannot drift from its
# tile. Tokens: "swap" (swap_ab), MxNxK (cta), cAxB (cluster), "pingpong" (else "auto", cooperative at 128+ rows;
# "coop" says so), "stream-K" [always], splitN (stream-K split-K), swizzleN, along_m/along_n, epiMxN, "pdl", sN
# (N mainloop stages; else as many as shared memory holds beside the epilogue's), "fitted" (fitted_tail: the mainloop
# loads the token operand through csrc/cutlassgen/load_hints.hpp's TailOperand).
# A tile without swizzleN takes "auto" (chosen per call, csrc/cutlassgen/auto_swizzle.hpp) since session 5; probe
# runs 1-5 in bench/results/h200_tile_probe.log ran with swizzle 1, the default of that time.
def tile_named(name: str, **extra) -> Sm90Tile:
    fields = dict(extra)
    words = name.split()
    for i, w in enumerate(words):
        if w == "swap":
            fields["swap_ab"] = True
        elif re.fullmatch(r"\d+x\d+x\d+", w):
            fields["cta"] = tuple(map(int, w.split("x")))
        elif re.fullmatch(r"c\dx\d", w):
            fields["cluster"] = (int(w[1]), int(w[3]), 1)
        elif w == "pingpong":
            fields["mainloop"] = "pingpong"
        elif w == "stream-K":
            fields["scheduler"] = "stream_k_always" if words[i + 1:i + 2] == ["always"] else "stream_k"
        elif w.startswith("split"):
            fields.update(scheduler="stream_k", split_k=int(w[5:]))
        elif w.startswith("swizzle"):
            fields["swizzle"] = int(w[7:])
        elif w in ("along_m", "along_n"):
            fields["raster"] = w
        elif w.startswith("epi"):
            fields["epilogue_tile"] = tuple(map(int, w[3:].split("x")))
        elif w == "pdl":
            fields["pdl"] = True
        elif re.fullmatch(r"s\d+", w):
            fields["stages"] = int(w[1:])
        elif w == "fitted":
            fields["fitted_tail"] = True
        elif w not in ("coop", "always"):
            raise ValueError(f"tile name {name!r}: unknown word {w!r}")
    fields.setdefault("cluster", (1, 1, 1))
    return Sm90Tile(**fields)


def named(*names: str, **extra) -> dict:
    """name -> tile for each name (extra: fields every tile of the dict sets, e.g. fp8_fast_accum)."""
    return {n: tile_named(n, **extra) for n in names}


FAST = {"fp8_fast_accum": True}
# In a case's tiles, the all-"auto" spec built for the case's shapes (build(spec, shapes=...)): the per-shape plan of
# cutlassgen.tiles, dispatched by M and N, as "auto+shapes" in bench_anchors.py.
PLAN = "per-shape plan"

DECODE_TILES = named(
    # swap_ab: the kernel computes D^T, so N is tiled by the CTA's M and the few rows of A by a narrow CTA N.
    # Run 1 (bench/results/h200_tile_probe.log) also had K = 256 and stream-K variants; these are its best ...
    "swap 64x16x128 pingpong",
    "swap 64x32x128 pingpong",
    "swap 64x32x128 c2x1 pingpong",
    "swap 128x32x128 stream-K",
    # ... and run 2's candidates. cuBLAS multicasts the activation tile over a 2x1 or 4x1 cluster
    # (bench/results/h200_library_kernels.log): each CTA reads as many bytes of A as of its weight tile at M = 64.
    "swap 64x16x64 c2x1 pingpong",
    "swap 64x16x128 c2x1 pingpong",
    "swap 64x32x128 c4x1 pingpong",
    "swap 64x32x256 c2x1 pingpong",
    "swap 64x64x128 c2x1 pingpong",
    "swap 64x64x128 c4x1 pingpong",
    "swap 128x32x64 c4x1 coop",
    "swap 128x32x128 c2x1 coop",
    "swap 128x64x128 c2x1 stream-K",
)
DECODE_SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (64, 8192, 8192), (32, 14336, 4096), (32, 4096, 14336)]

# M = 256, N = K = 8192: 128x128 tiles make 128 CTAs for 132 SMs, the tile and cluster cuBLASLt runs too, in as
# many cycles (bench/results/h200_ncu.log). Run 1 tried stream-K, 64-row pingpong with 2x1/4x1 clusters, 128x64,
# 128x128x128 and 128x256 stream-K: all slower. Run 2: the wider tiles' better MMA-to-load ratio, with K split in
# two so that 64 tiles still make 128 CTAs.
M256_BF16_TILES = named(
    "128x128x64 c2x1 coop",
    "128x128x64 c1x1 coop",
    "128x256x64 c2x1 split2",
    "256x128x64 c1x1 split2",
    "256x128x64 c1x2 split2",
)
M256_FP8_TILES = named(
    "64x128x128 pingpong",
    "128x128x128 c2x1 coop",
    "128x128x128 c1x1 coop",  # cuBLAS's _scaled_mm kernel: 128x128x128, no cluster
    "128x256x128 c2x1 split2",
    "256x128x128 c1x1 split2",
    "256x128x128 c1x2 split2",
    **FAST,
)


# Large M (compute-bound): the default 128x256 c2x1 tile against the other wide tiles and the persistent
# scheduler's raster order and swizzle, which decide how much of A and B the concurrently running tiles share in L2.
PREFILL_TILES = named(
    "128x256x64 c2x1 coop",
    "128x256x64 c2x1 coop swizzle2",
    "128x256x64 c2x1 coop swizzle4",
    "128x256x64 c2x1 coop along_n",
    "128x256x64 c2x1 coop along_m",
    "128x256x64 c1x2 coop",
    "256x128x64 c1x2 coop",
    "256x128x64 c2x1 coop",
    "64x256x64 c2x1 pingpong",
)
# fp8 at large M: cuBLAS's bf16 kernel there is 256x128 with a 1x2 cluster (bench/results/h200_library_kernels.log)
PREFILL_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x256x128 c1x2 coop",
    "256x128x128 c1x2 coop",
    "256x128x128 c2x1 coop",
    "128x256x128 c2x1 coop swizzle4",
    **FAST,
)
PREFILL_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192)]

# The cooperative kernel runs a tile's epilogue (bias, gelu's tanh, the TMA store) while its MMAs wait: a few % of
# every tile at large M. Pingpong overlaps one warpgroup's epilogue with the other's mainloop; at 128 rows per
# warpgroup (two m64 wgmmas) it keeps the 128x128 MMA-to-load ratio. Runs 1-4 tried only 64-row pingpong.
PINGPONG_BF16_TILES = named(
    "128x256x64 c2x1 coop",
    "128x128x64 c1x1 pingpong",
    "128x128x64 c2x1 pingpong",
    "128x128x64 c1x2 pingpong",
)
PINGPONG_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x128x128 c2x1 coop",
    "128x128x128 c1x1 pingpong",
    "128x128x128 c2x1 pingpong",
    "128x128x128 c1x2 pingpong",
    **FAST,
)
PINGPONG_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (256, 8192, 8192)]

# The epilogue subtile (Sm90Tile.epilogue_tile; session 6): CUTLASS's choice is 128x32 (cooperative) and 64x32
# (pingpong), i.e. 8 store steps per 128x256 tile, each with its own smem barrier and TMA store. A wider subtile
# halves the steps at the cost of epilogue shared memory (one mainloop stage fewer at 128x128). With it, the
# 256x128 c1x2 tile that cuBLASLt runs at 8192^3, measured before only at swizzle 1.
EPI_BF16_TILES = named(
    "128x256x64 c2x1 coop",
    "128x256x64 c2x1 coop epi128x64",
    "128x256x64 c2x1 coop epi128x128",
    "256x128x64 c1x2 coop",
    "256x128x64 c1x2 coop epi128x64",
    "128x128x64 c2x1 coop",
    "128x128x64 c2x1 coop epi128x64",
)
EPI_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x256x128 c2x1 coop epi128x64",
    "128x128x128 c2x1 pingpong",
    "128x128x128 c2x1 pingpong epi64x64",
    "128x128x128 c1x1 pingpong",
    "128x128x128 c1x1 pingpong epi64x64",
    **FAST,
)
EPI_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192)]

# 4-CTA clusters: with 2x2, each CTA loads half its A tile and half its B tile (the rest arrives by multicast), 24 KB
# instead of 32 KB of L2 reads per 128x256x64 k-step: fewer bytes per FLOP, the lever at the power cap (session 5).
# The price: a 4-CTA cluster must fit in one GPC, which may leave SMs idle.
CLUSTER4_BF16_TILES = named(
    "128x256x64 c2x1 coop",
    "128x256x64 c2x2 coop",
    "128x256x64 c4x1 coop",
    "256x128x64 c1x2 coop",
    "256x128x64 c2x2 coop",
)
CLUSTER4_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x256x128 c2x2 coop",
    "128x128x128 c2x1 pingpong",
    "128x128x128 c2x2 pingpong",
    **FAST,
)

# Wave quantization (session 7). 8192^3 makes 2048 tiles of 128x256 for 132 SMs: 15.5 waves run as 16. CUTLASS's
# stream-K heuristic stays data-parallel whenever the last wave is at least half full, true of every anchor shape
# (the M <= 64 bucket's "stream-K" ran data-parallel too); scheduler="stream_k_always" splits the last one to two
# waves' tiles into equal K shares over every SM.
STREAMK_BF16_TILES = named(
    "128x256x64 c2x1 coop",
    "128x256x64 c2x1 stream-K always",
    "256x128x64 c1x2 stream-K always",
    "128x128x64 c1x1 coop",
    "128x128x64 c1x1 stream-K always",
    "128x128x64 c2x1 stream-K always",
)
STREAMK_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x256x128 c2x1 stream-K always",
    "128x128x128 c2x1 pingpong",
    "128x128x128 c1x1 coop",
    "128x128x128 c1x1 stream-K always",
    **FAST,
)
STREAMK_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192)]
# Decode: 32x14336 makes 224 tiles of 64 rows (1.7 waves) or 112 of 128 rows (20 SMs idle); stream-K always puts
# every SM on the weights.
STREAMK_DECODE_TILES = named(
    "swap 64x32x128 pingpong",
    "swap 64x32x128 c2x1 pingpong",
    "swap 128x32x128 stream-K",
    "swap 128x32x128 stream-K always",
    "swap 128x16x128 stream-K always",
    "swap 128x32x64 stream-K always",
    "swap 128x64x128 stream-K always",
)

# Programmatic dependent launch (Sm90Tile.pdl; session 7): each call may be scheduled while the previous one drains
# and waits in griddepcontrol.wait before its first load, hiding the launch gap and prologue between back-to-back
# kernels: a few us, which matters at decode (30-40 us per call) and little at 8192^3.
PDL_DECODE_TILES = named(
    "swap 64x16x128 pingpong",
    "swap 64x16x128 pingpong pdl",
    "swap 64x32x128 pingpong",
    "swap 64x32x128 pingpong pdl",
    "swap 64x32x128 c2x1 pingpong pdl",
    "swap 128x32x128 stream-K",
    # stream-K does not compile with PDL (CUTLASS 4.2): the M <= 64 bucket's tile under PDL is persistent
    "swap 128x32x128 coop pdl",
)
PDL_BF16_TILES = named(
    "128x256x64 c2x1 coop",
    "128x256x64 c2x1 coop pdl",
    "128x128x64 c1x1 coop",
    "128x128x64 c1x1 coop pdl",
)
PDL_FP8_TILES = named(
    "128x256x128 c2x1 coop",
    "128x256x128 c2x1 coop pdl",
    "128x128x128 c2x1 pingpong",
    "128x128x128 c2x1 pingpong pdl",
    "128x128x128 c1x1 coop",
    "128x128x128 c1x1 coop pdl",
    **FAST,
)
PDL_SHAPES = [(8192, 8192, 8192), (2048, 8192, 8192), (256, 8192, 8192)]

# Wide weights at decode (session 7): at 32x14336x4096 the 2x1 cluster beat the bucket's tile in runs 1-2 and 9-10;
# where the gain starts in N (tiles.WIDE_N), and whether the M <= 16 and M <= 64 buckets want it too.
WIDE_DECODE_TILES = named(
    "swap 64x16x128 pingpong",
    "swap 64x16x128 c2x1 pingpong",
    "swap 64x32x128 pingpong",
    "swap 64x32x128 c2x1 pingpong",
    "swap 128x32x128 stream-K",
    "swap 128x32x128 coop",
    "swap 128x32x128 c2x1 coop",
)
# M = 64 at N = 14336 (probe run 11: bucket tile 199 vs cuBLAS 210): 224 tiles of 128x32 are 1.7 waves.
WIDE64_DECODE_TILES = named(
    "swap 128x32x128 stream-K",
    "swap 128x64x128 coop",
    "swap 128x64x128 c2x1 coop",
    "swap 64x64x128 pingpong",
    "swap 128x32x64 coop",
    "swap 128x32x128 stream-K always",
    "swap 256x32x64 coop",
)
# Weight multicast at M = 64 (session 8). The bucket's 128x32 tile makes two CTAs per 128 rows of weights, one per
# half of the tokens, and each loads the same weight tile from L2. A 1x2 cluster (along the kernel's N: the tokens,
# under swap_ab) loads it once and multicasts it to both: half the L2-to-SM weight bytes, still 128 CTAs at N = 8192.
MULTICAST_DECODE_TILES = named(
    "swap 128x32x128 stream-K",
    "swap 128x32x128 c1x2 coop",
    "swap 128x32x64 c1x2 coop",
    "swap 64x32x128 c1x2 pingpong",
    "swap 128x64x128 coop",
    "swap 64x64x128 pingpong",
)
MULTICAST_DECODE_SHAPES = [(64, 8192, 8192), (64, 14336, 4096), (64, 4096, 14336), (48, 8192, 8192)]
# Where the 64-row tiles take over in the M 33-64 bucket (multicast probe: 64x4096x14336 has only 64 CTAs of 128x32).
NARROW64_DECODE_TILES = named(
    "swap 128x32x128 stream-K",
    "swap 128x32x128 c1x2 coop",
    "swap 64x32x128 c1x2 pingpong",
    "swap 64x32x128 pingpong",
)
# The rest of the M 33-64 gaps off the anchor shapes (session 9; run 15: 64x6144x4096 179 vs cuBLAS 197, 64x6144x8192
# 204 vs 216, 64x4096x4096 195 vs 203, M = 40 / 48 at 8192^2 142 / 173 vs 151 / 181). At N = 6144 the bucket's 128x32
# c1x2 tile makes 96 CTAs for 132 SMs; stream-K always spreads K over all of them, 64x64 keeps all the tokens in one
# CTA (no multicast needed), K = 64 doubles the stages in flight.
OFFANCHOR64_DECODE_TILES = named(
    "swap 128x32x128 c1x2 coop",
    "swap 64x32x128 c1x2 pingpong",
    "swap 128x32x128 c1x2 stream-K always",
    "swap 128x32x64 c1x2 coop",
    "swap 64x32x64 c1x2 pingpong",
    "swap 64x64x128 pingpong",
    "swap 64x48x128 pingpong",
)
OFFANCHOR64_DECODE_SHAPES = [(64, 6144, 4096), (64, 6144, 8192), (64, 4096, 4096), (48, 8192, 8192), (40, 8192, 8192)]
# cuBLAS's kernels at those shapes (bench/results/h200_library_kernels.log, session 9) fit the token tile to M
# (64x40 at M = 40, 64x48 at M = 48, 64x64 at M = 64 for N = 6144), take K = 64 with 13-16 stages, and cluster 2 or 4
# CTAs along the weights (the activation tile multicast). The same family here, with K 64 and 128 (validation takes
# CTA N in steps of 16, so M = 40 runs 64x48).
EXACTFIT_DECODE_TILES = named(
    "swap 128x32x128 c1x2 coop",
    "swap 64x32x128 c1x2 pingpong",
    "swap 64x32x64 c2x1 pingpong",
    "swap 64x48x128 pingpong",
    "swap 64x48x128 c2x1 pingpong",
    "swap 64x48x64 c2x1 pingpong",
    "swap 64x64x128 pingpong",
    "swap 64x64x64 c2x1 pingpong",
    "swap 64x64x64 c4x1 pingpong",
    "swap 64x64x128 c4x1 pingpong",
)
EXACTFIT_DECODE_SHAPES = [(40, 8192, 8192), (48, 8192, 8192), (64, 6144, 4096), (64, 6144, 8192), (64, 4096, 4096),
                          (64, 8192, 8192), (32, 8192, 8192)]
# Runs 17-18: at 64x6144x4096 (Llama-3-8B's fused QKV width) 64x64 pingpong, all the tokens in one CTA, beat the
# bucket's 128x32 c1x2 tile by 4-5% (175 / 181 vs 168 / 172); at 64x8192^2 it lost (221 vs 230). Where between, and
# whether M = 40 / 48 (16-24 padded token columns) follow; M 17-32 with cuBLAS's 64x32x64 c2x1 kernel beside ours.
MIDN64_DECODE_TILES = named(
    "swap 128x32x128 c1x2 coop",
    "swap 64x64x128 pingpong",
    "swap 64x64x128 c2x1 pingpong",
    "swap 64x64x128 c4x1 pingpong",
)
MIDN64_DECODE_SHAPES = [(64, 5120, 8192), (64, 6144, 4096), (64, 6144, 8192), (64, 7168, 8192), (64, 8192, 4096),
                        (64, 8192, 8192), (48, 6144, 4096), (40, 6144, 4096)]
# cuBLAS's kernel at 64x6144x4096 is the same 64x64 4x1-cluster family with K = 64 and 13 stages
# (h200_library_kernels.log); ours takes K = 128 (about 6 stages). The K = 64 build of the M 33-64 mid-N tile (run 32).
MIDN_K64_TILES = named("swap 64x64x128 c4x1 pingpong", "swap 64x64x64 c4x1 pingpong")
MIDN_K64_SHAPES = [(64, 6144, 4096), (64, 5120, 8192), (64, 6144, 8192), (48, 6144, 4096)]
M32_DECODE_TILES = named("swap 64x32x128 pingpong", "swap 64x32x64 pingpong", "swap 64x32x64 c2x1 pingpong",
                         "swap 64x32x128 c2x1 pingpong")
M32_DECODE_SHAPES = [(32, 8192, 8192), (32, 14336, 4096), (32, 4096, 14336), (32, 6144, 4096)]
# What the bias+gelu epilogue costs (session 9): cuBLASLt's fused kernels ran 0.6-0.8 us longer than cuBLAS mm's
# same tile at decode (bench/results/h200_launch_gap.log), and ours as long as cuBLASLt's. The bucket tiles with and
# without the epilogue, against cuBLAS mm: does our mainloop alone match it?
EPICOST_DECODE_TILES = named("swap 64x16x128 pingpong", "swap 64x32x128 pingpong", "swap 64x32x128 c2x1 pingpong")
EPICOST_DECODE_SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (32, 14336, 4096)]
EPICOST_TILES = named("128x128x64 c1x1 coop", "256x128x64 c1x2 coop")
EPICOST_SHAPES = [(256, 8192, 8192), (2048, 8192, 8192)]
# Which part of the bias+gelu epilogue costs a decode kernel its last ~1% against cuBLAS mm (session 11): each tile
# built four ways (no epilogue, + bias, gelu alone, bias + gelu) and timed in one interleaved set on the same inputs.
# CUTLASS's column broadcast (the bias under swap_ab) reads its slice from global memory when the epilogue begins,
# after the last MMA; gelu alone reads nothing. Tiles: the per-shape tiles of tiles.shape_tile at these shapes.
EPIPARTS = {"plain": [], "bias": [Add("per_col", "bias", "bf16")], "gelu": [Activation("gelu_tanh")],
            "bias+gelu": [Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]}


def with_parts(*names: str) -> dict:
    """Each named tile once per epilogue part: "tile | part" -> (tile, part)."""
    return {f"{n} | {part}": (t, part) for n, t in named(*names).items() for part in EPIPARTS}


EPIPARTS_DECODE_TILES = with_parts("swap 64x16x128 pingpong", "swap 64x32x128 c2x1 pingpong")
EPIPARTS_MIDN_TILES = with_parts("swap 64x64x128 c4x1 pingpong")
# The bias under swap_ab and the per-row scales bulk-copied into shared memory by the epilogue's load warp during the
# mainloop (lower.BULK_COL_BROADCAST, csrc/cutlassgen/bulk_broadcast.hpp) against CUTLASS's Sm90ColBroadcast, which
# reads them after the last MMA: the per-shape decode tiles, and fp8 scaled at M = 256 (per-row scale_a). Probe run 27
# (e8a8271): faster for the decode tiles, slower for the fp8 ones; the default is now "swap_ab".
BULKCOL_VARIANTS = ("BULK_COL_BROADCAST", ("never", "always"))
# The same for row broadcasts (the bias of unswapped kernels, Sm90RowBroadcast's slice read after the mainloop too):
# bf16 at M = 256 (the bucket's 128x128 tiles) and at the prefill shapes bf16 still trails cuBLASLt on (the default
# 128x256 tile, several tiles per CTA), and fp8 scaled at M = 256 (per-column scale_b and bias).
BULKROW_VARIANTS = ("BULK_ROW_BROADCAST", ("never", "always"))
BULKROW_M256_TILES = named("128x128x64 c1x1 coop", "128x128x64 c2x1 coop")
BULKROW_PREFILL_TILES = named("128x256x64 c2x1 coop", "256x128x64 c1x2 coop")
# 128-row pingpong against the default cooperative tiles at large M: probe run 29 (session 12) had 128x128x64 c1x2
# pingpong 2-4% ahead of 128x256 coop at 4096x14336x4096 and behind at 8192^3. These shapes vary N and K apart
# (K = 4096 against 8192+, N 4096 against 14336) to find which one makes pingpong pay.
PREFILL_PP_TILES = named("128x256x64 c2x1 coop", "256x128x64 c1x2 coop", "128x128x64 c1x2 pingpong",
                         "128x128x64 c1x1 pingpong")
PREFILL_PP_SHAPES = [(8192, 8192, 8192), (2048, 8192, 8192), (4096, 14336, 4096), (8192, 4096, 4096),
                     (4096, 14336, 8192), (4096, 4096, 14336), (1024, 14336, 4096)]
# The N >= 12288 class those runs led to (tiles.shape_tile), at more wide-weight prefill shapes (run 31).
PREFILL_WIDE_SHAPES = [(512, 14336, 4096), (1024, 14336, 4096), (4096, 14336, 4096), (8192, 14336, 4096),
                       (2048, 28672, 4096), (4096, 12288, 4096)]
# That class on H100s (session 97): the plan's pingpong tile against the spec's default (what a DispatchKernel ran
# there on an H100 from 08248a9 to session 100; since then it runs the tile with strips of 4, tiles.instead_on),
# interleaved, from 768 to 8192 rows: session 96's separate bursts on five H100s had it 0-17% behind at 2048-4096
# rows, mixed at 1024 and 4-6% ahead at 8192. Session 97 on four H100s
# (h100_session97.log parts 1, 2, 5, and wideswizzle's parts 4, 6; bench/probe_ratio.py): the pingpong tile's speed
# over the default's, geometric mean 0.968-0.988 cold and 0.985-1.027 warm, 0.82-1.12 by shape, with no range of M
# where it led on every machine.
WIDE_H100_TILES = named("128x256x64 c2x1 coop", "128x128x64 c1x1 pingpong")
WIDE_H100_SHAPES = [*((M, 14336, 4096) for M in (768, 1024, 1536, 2048, 3072, 4096, 6144, 8192)),
                    (2048, 28672, 4096), (8192, 28672, 4096), (4096, 12288, 4096), (8192, 12288, 4096)]
# Run on an H100 (session 97), wideh100 had the pingpong tile 12-18% behind at 3072 and 6144 rows and 8-16% at
# 8192x28672, but 3-9% ahead at 1024-1536 and 8192x(12288, 14336) rows, alike in two runs: an order of tiles (L2
# reuse) more than a class. Its raster orders, swizzles and 2-CTA clusters beside the default's, at those shapes.
WIDE_RASTER_TILES = named("128x256x64 c2x1 coop", "128x256x64 c2x1 coop along_n", "128x128x64 c1x1 pingpong",
                          "128x128x64 c1x1 pingpong along_m", "128x128x64 c1x1 pingpong along_n",
                          "128x128x64 c1x1 pingpong swizzle2", "128x128x64 c1x1 pingpong swizzle4",
                          "128x128x64 c1x1 pingpong swizzle8", "128x128x64 c1x2 pingpong", "128x128x64 c2x1 pingpong")
WIDE_RASTER_SHAPES = [(1536, 14336, 4096), (3072, 14336, 4096), (4096, 14336, 4096), (6144, 14336, 4096),
                      (8192, 14336, 4096), (2048, 28672, 4096), (8192, 28672, 4096)]
# On a second H100 wideraster had the pingpong tile with swizzle 4 level with the default or ahead (-3% to +8%) at
# six of seven shapes cold and warm, where the plain one lost up to 12%; and 1x2 clusters ahead at 6144-8192 rows
# (cold). Those against the plain ones over wideh100's shapes, the default with swizzle 4 too. Part 4 of
# h100_session97.log: each won some shapes and lost others (pingpong swizzle 4: 327 TFLOP/s at 768x14336, against
# 653 without; swizzle 2 at 1024x14336 749 / 724 cold / warm against 635 / 665 without, the default's 657 / 639 and
# cuBLASLt fused's 729 / 708, but 620 / 619 against 723 / 676 at 8192x14336); none replaced the tiles of the plan.
# Part 6 (machine I) repeated G: each tile's ratio to the default a median 0.6% apart cold (at most 3.6%), 1.3% warm
# (at most 10%). "auto" (auto_swizzle.hpp) gives the pingpong tile 8 here but at 768 (2) and 1536 (4) rows: at 8 row
# tiles (1024) strips of 2 or 4 ran 1.13-1.14x the default, 8 0.97-1.04x.
WIDE_SWIZZLE_TILES = named("128x256x64 c2x1 coop", "128x256x64 c2x1 coop swizzle4", "128x128x64 c1x1 pingpong",
                           "128x128x64 c1x1 pingpong swizzle2", "128x128x64 c1x1 pingpong swizzle4",
                           "128x128x64 c1x2 pingpong", "128x128x64 c1x2 pingpong swizzle4")
# For an H200 (not yet run): each swizzle of both tiles beside "auto" (auto_swizzle.hpp: the widest strip up to 8 that
# pads nothing), at the rows where strips of 2-4 led on H100s (1024-2048) and lost (8192), and at two anchor shapes:
# does the H200 show the same, and which rule of row tiles and strip width would hold on both cards?
SWIZZLES = ("", " swizzle1", " swizzle2", " swizzle4", " swizzle8")
SWIZZLE_SWEEP_TILES = named(*(t + s for t in ("128x256x64 c2x1 coop", "128x128x64 c1x1 pingpong") for s in SWIZZLES))
SWIZZLE_SWEEP_SHAPES = [(1024, 14336, 4096), (1536, 14336, 4096), (2048, 14336, 4096), (2048, 28672, 4096),
                        (4096, 14336, 4096), (8192, 14336, 4096), (2048, 8192, 8192), (8192, 8192, 8192)]
# Run on an H100 (session 99, h100_session99.log), swizzlesweep had the pingpong tile's strips of 4 at or near its
# best from 1024 to 4096 rows (1024x14336x4096 760 / 741 cold / warm against 645 / 644 for "auto", which is 8 there),
# 8 ahead only at 8192 rows; where 8 padded the grid (the pingpong tile at 1536 rows, the default's 2x1 clusters at
# 1024) it ran 2-2.5x slower, and since then (2aad1f6) an explicit swizzle is the widest strip up to it that pads
# nothing, so those two run strips of 4. The fp8 scaled defaults are 128x128x128 c1x1 tiles too (pingpong with fast
# accumulation, cooperative without), and "auto" gives them strips of 8 at the anchor shapes where fp8 is short of
# _scaled_mm on the H200 (exact 8192^3; fast 8192^3, 4096x14336x4096, 2048x8192^2): each swizzle of both beside the
# plan.
# Session 100, another H100 (h100_session100.log; both cases, the cap in): the capped 8 ran as 4 where 8 pads (the
# pingpong tile at 1536 rows 728 / 723 cold / warm, the default at 1024 rows 664 / 649), the bf16 findings above held
# (strips of 4 over "auto" for the pingpong tile: 1.07 / 1.04 at 1024 rows, 1.19 / 1.14 at 2048x28672, 1.13 / 1.07 at
# 4096x14336, 0.97 / 1.00 at 8192x14336); for fp8 "auto" (8) ran within 3.3% of each tile's best swizzle at every
# shape, strips of 1 5-29% behind it but at 1024 rows, and strips of 4 0.97-1.03x it (1.01-1.03x at 1024-4096 rows).
# Session 102, the H200 (h200_session102.log): strips of 4 over "auto" for the pingpong tile, geometric mean 0.996 /
# 0.993 cold / warm (behind at 4096 and 8192 rows), for fp8 fast's 0.998 / 1.005: the H200 keeps "auto".
FP8_SWIZZLE_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (1024, 14336, 4096),
                      (8192, 14336, 4096)]
FP8_SWIZZLE_FAST_TILES = named(*("128x128x128 c1x1 pingpong" + s for s in SWIZZLES), **FAST)
FP8_SWIZZLE_EXACT_TILES = named(*("128x128x128 c1x1 coop" + s for s in SWIZZLES))
# The plan's 128x128 pingpong tile at 513-1023 rows with N >= 12288: in session 102's wideh100 on the H200
# (h200_session102.log) 768x14336x4096 ran 0.93x cuBLASLt fused cold and warm, the default (128x256) alike. Six rows of
# 128 make 672 128x128 tiles (5.09 waves of 132 SMs) or 336 of 128x256 (2.55): the last wave runs nearly empty. Tiles
# whose counts fill their last wave better there (128x224, 256x112: 384 tiles, 2.91 waves; 128x112: 768, 5.82),
# 128x192 (450, 3.41), and stream-K over the last wave, beside the plan.
MID768_TILES = named("128x256x64 c2x1 coop", "128x128x64 c1x1 pingpong", "128x192x64 c1x1 coop",
                     "128x224x64 c1x1 coop", "256x112x64 c1x1 coop", "128x112x64 c1x1 pingpong",
                     "128x256x64 c2x1 stream-K always", "128x128x64 c1x1 stream-K always")
MID768_SHAPES = [(640, 14336, 4096), (768, 14336, 4096), (896, 14336, 4096), (768, 12288, 4096),
                 (768, 28672, 4096), (1024, 14336, 4096)]
# mid768 on an H100 (session 103): at 640-768 rows 128x112 pingpong and 128x224 coop led the plan's 128x128 pingpong
# by 11-12%, as the waves of 132 SMs they fill predict; wavefill (run as "fill") sweeps 640-1536 rows and N =
# 12288-28672 to find the rule.
WAVEFILL_TILES = named("128x128x64 c1x1 pingpong", "128x112x64 c1x1 pingpong", "128x224x64 c1x1 coop",
                       "128x192x64 c1x1 coop", "256x112x64 c1x1 coop")
WAVEFILL_SHAPES = ([(M, N, 4096) for M in (640, 768, 896, 1024) for N in (12288, 14336, 16384, 28672)]
                   + [(768, 14336, 8192), (768, 28672, 8192), (1280, 14336, 4096), (1536, 14336, 4096)])
# The wave-fill rule (tiles.wave_fill_choice, then with 128x224 coop and 128x112 pingpong) fitted to wavefill's shapes,
# checked on shapes it was not fitted to (session 103).
WAVEFILL_CHECK_TILES = named("128x128x64 c1x1 pingpong", "128x112x64 c1x1 pingpong", "128x224x64 c1x1 coop")
WAVEFILL_CHECK_SHAPES = [(M, N, 4096) for M in (576, 704, 832, 960, 1152, 1408) for N in (13824, 18432, 22016, 24576)]
# Session 105 (H100, h100_session105.log; auto+shapes is that rule): it ran 1.02-1.03x the plan's 128x128 (geometric
# mean) but 0.83-0.90x at four shapes, each where it ran 128x112, which ran 0.52-0.87x cuBLASLt fused everywhere. At
# ragged M (576-960 rows) 128x128 pingpong ran 0.73-0.75x cuBLASLt fused and 128x224 coop 0.98x (geometric means, cold
# / warm), 128x224 1.11-1.53x 128x128 at all 16 shapes; at 1152 and 1408 rows 128x128 0.89-0.94x. The rule since:
# 128x224 only, and at ragged M.
# raggedwide (session 105; run in session 107, h100_session107.log): why does 128x128 pingpong lose 25% at ragged M? Its
# A box reaching past a's end (NOTES session 47: the cost is the box past the descriptor's extent), which a padded a
# avoids and TAIL_LOADS "all" fits? Each tile under both TAIL_LOADS values on a bare and on a padded a, at ragged M in
# and past the wave-fill rows, beside M a multiple of 128. On an H100 mostly the box: bare 0.70x cuBLASLt fused at 2000
# and 4000 rows, padded 0.90-0.97x, "all" 0.83-0.90x; 128x224 coop 0.94-0.96x on either a, and the loss reaches past
# 1536 rows.
RAGGED_WIDE_VARIANTS = ("TAIL_LOADS", ("swap_ab+m64", "all"))
RAGGED_WIDE_GROUPS = [(named("128x128x64 c1x1 pingpong", "128x224x64 c1x1 coop"),
                       [(704, 14336, 4096), (960, 18432, 4096), (768, 14336, 4096), (2000, 14336, 4096),
                        (4000, 14336, 4096), (4096, 14336, 4096)])]
# raggedlarge (session 107): raggedwide on an H100 (h100_session107.log) had the plan's 128x128 pingpong at 0.70x
# cuBLASLt fused at 2000 and 4000 rows x 14336 (bare a), past the wave-fill rows, and 128x224 coop at 0.94-0.96x. Does
# 128x224 lead at every ragged M above 1536 rows, at other N and K, and how near M a multiple of 128 (4097, 4160)?
# Beside the plan (which runs 128x224 at ragged M since session 107) and two aligned shapes as controls. On an H100 it
# did: the plan ran 1.24x "pingpong swizzle4" (the H100's plan before) cold, 1.16x warm, 0.97-1.44x by shape.
RAGGED_LARGE_TILES = named("128x128x64 c1x1 pingpong", "128x128x64 c1x1 pingpong swizzle4", "128x224x64 c1x1 coop")
RAGGED_LARGE_SHAPES = [(1600, 14336, 4096), (2000, 12288, 4096), (2000, 14336, 8192), (2500, 28672, 4096),
                       (3000, 18432, 4096), (4097, 14336, 4096), (4160, 14336, 4096), (6000, 14336, 4096),
                       (8000, 14336, 4096), (12000, 16384, 4096), (2048, 14336, 4096), (8192, 14336, 4096)]
# raggedother (session 107, not run yet): does the ragged-M loss of a bare activation reach the plan's other tiles
# above 512 rows? fp8 with fast accumulation runs 128x128x128 pingpong there (Tile defaults), the tile family that
# lost 30% in bf16; bf16 below N = 12288 runs the spec's default (128x256 c2x1 cooperative). Each beside cooperative
# tiles, under both TAIL_LOADS values, on a bare and on a padded a, at ragged M and at M a multiple of 128.
RAGGED_OTHER_FP8 = [(named("128x128x128 c1x1 pingpong", "128x128x128 c1x1 coop", "128x224x128 c1x1 coop", **FAST),
                     [(704, 14336, 4096), (2000, 8192, 4096), (2000, 14336, 4096), (4000, 14336, 4096),
                      (8000, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 8192)])]
RAGGED_OTHER_BF16 = [(named("128x256x64 c2x1 coop", "128x128x64 c1x1 pingpong"),
                      [(2000, 8192, 4096), (4000, 4096, 4096), (8000, 8192, 8192), (4096, 4096, 4096),
                       (8192, 8192, 8192)])]
# swizzlepad (session 108, run at 5a59412, where a SWIZZLE_PAD padded wherever it allowed, L2 or not): raggedother on
# an H100 (h100_session108.log) had 128x128 tiles at 8000x8192x8192 far behind 8192^3, padded a or not (fp8 fast
# pingpong 1022-1071 TFLOP/s cold against 1449; bf16 pingpong 470-494 against 701): 63 row tiles are odd, so "auto"
# (auto_swizzle.hpp, padding nothing) walks strips of 1. The same holds wherever either axis has an odd tile count:
# 128x224 at N = 12288 (55 columns) and 18432 (83), 128x256 c2x1 at N = 11008 (43). Each tile "auto" and with strips
# of 2 and 4, built with lower.SWIZZLE_PAD 0 (an explicit strip that pads is narrowed) and 1000 (any padding: "auto"
# is 8): what a padded strip gains, and what its padded tiles cost (1536x14336, 12 row tiles: strips of 8 padded to
# 16 ran 2.5x slower in session 99). Run (call 4): padding gained only where the operand the walk sweeps whole
# outgrew L2 (8000x8192x8192 1.6%: bf16 460 -> 671 TFLOP/s cold, fp8 1011 -> 1336; 128x224 at 12000x16384, 4.9%:
# 597 -> 641); elsewhere at best level, mostly behind (1664x14336 13 -> 14 row tiles, 7.7%: 594 -> 470; fp8
# 4096x11008 86 -> 88 columns, 2.3%: 1555 -> 1415-1480), hence auto_swizzle's rule.
SWIZZLE_PAD_VARIANTS = ("SWIZZLE_PAD", (0, 1000))
SWIZZLE_PAD_BF16 = [
    (named(*("128x128x64 c1x1 pingpong" + s for s in ("", " swizzle2", " swizzle4"))),
     [(8000, 8192, 8192), (1664, 14336, 4096), (1536, 14336, 4096), (8192, 8192, 8192)]),
    (named(*("128x224x64 c1x1 coop" + s for s in ("", " swizzle2", " swizzle4"))),
     [(3000, 18432, 4096), (960, 18432, 4096), (2000, 12288, 4096), (12000, 16384, 4096), (4000, 14336, 4096)]),
    (named(*("128x256x64 c2x1 coop" + s for s in ("", " swizzle2", " swizzle4"))),
     [(4096, 11008, 4096), (2048, 11008, 4096), (8192, 8192, 8192)])]
SWIZZLE_PAD_FP8 = [(named(*("128x128x128 c1x1 pingpong" + s for s in ("", " swizzle2", " swizzle4")), **FAST),
                    [(8000, 8192, 8192), (1664, 14336, 4096), (4096, 11008, 4096), (8192, 8192, 8192)])]
# swizzlepadcheck (session 108): the padding rule as it is (SWIZZLE_PAD 5: only where the swept operand outgrows L2)
# against none (0), on the plans' tiles at shapes where it pads (each to strips of 8 but 128x224 at 12000x16384: 4)
# and at one where the swept operand fits (1664x14336x4096: strips of 1 either way). Run (call 6, an H100): 1.02-1.50x
# at the ten where it pads, 1.003 / 1.007 at 1664x14336 (probe_ratio.py --over "{} swizzle_pad=5" --under
# "{} swizzle_pad=0": geometric mean 1.203 cold, 1.179 warm).
SWIZZLE_PAD_CHECK_VARIANTS = ("SWIZZLE_PAD", (0, 5))
SWIZZLE_PAD_CHECK_BF16 = [(named("128x128x64 c1x1 pingpong"),
                           [(8064, 14336, 8192), (8000, 8192, 8192), (8192, 8064, 8192), (1664, 14336, 4096)]),
                          (named("128x224x64 c1x1 coop"), [(12000, 16384, 4096), (8000, 12288, 8192)])]
SWIZZLE_PAD_CHECK_FP8_SHAPES = [(8000, 8192, 8192), (8064, 14336, 8192), (12000, 8192, 8192)]
# fittedtwin (session 109): from raggedother's fp8 fast numbers the plan runs, at ragged M above 512 rows, a twin of its
# 128x128x128 pingpong tile that loads the last row of token tiles in a box fitted to it (Sm90Tile.fitted_tail,
# tiles.fitted_twin; its source is the tile's under TAIL_LOADS "all"). At shapes raggedother did not time, the plan
# beside that tile as it ran there before (the plan before: the default, or at N >= 12288 the same tile named) and
# 128x224x128 coop; two shapes of M a multiple of 128 as controls, where the plan runs the tile itself. Run on an H200
# (cold, h200_session109.log): the tile with CuTe's loads lost nothing at ragged M there; the plan ran 0.997-1.030x it
# (geometric mean 1.005, the controls 0.999 and 1.007), 128x224 0.76-0.99x it.
FITTED_TWIN_TILES = named("128x128x128 c1x1 pingpong", "128x224x128 c1x1 coop", **FAST)
FITTED_TWIN_SHAPES = [(1000, 8192, 4096), (1500, 14336, 4096), (2500, 8192, 8192), (3000, 28672, 4096),
                      (5000, 14336, 4096), (6000, 4096, 4096), (700, 28672, 4096), (12000, 8192, 4096),
                      (4096, 14336, 4096), (2048, 8192, 4096)]
# strips1 (session 114): big14k had the fp8 fast plan (128x128x128 pingpong) at 1069 TFLOP/s cold at
# 8064x14336x4096 on an H100 against 1367 for 128x256x128 c2x1 coop (h100_session111.log). There A (33 MB) fits
# the 50 MiB L2, so auto_swizzle pads nothing and 63 odd row tiles leave strips of 1, while a 2x1 cluster rounds the
# rows to 64 and walks strips of 8. Do strips of 1 cost where the swept operand is 16-50 MB, as they did past L2
# (swizzlepad)? The plan's pingpong tile beside itself in a 2x1 cluster (strips of 8; 4 at 4992 and 5120 rows),
# plain and fitted (whose tiles wholly past M skip their loads, pastrows), and the cooperative tiles. Odd tile rows with
# the swept operand under L2 (A 20-41 MB along M; 6000x4096x4096 walks along N over B's 17 MB), and aligned controls.
STRIPS1_BF16 = named("128x128x64 c1x1 pingpong", "128x128x64 c2x1 pingpong", "128x128x64 c2x1 pingpong fitted",
                     "128x224x64 c1x1 coop", "128x256x64 c2x1 coop")
STRIPS1_BF16_SHAPES = [(4992, 14336, 4096), (8064, 14336, 2048), (5120, 14336, 4096)]
STRIPS1_FP8 = named("128x128x128 c1x1 pingpong", "128x128x128 c2x1 pingpong", "128x128x128 c2x1 pingpong fitted",
                    "128x256x128 c2x1 coop", **FAST)
STRIPS1_FP8_SHAPES = [(8064, 14336, 4096), (4992, 14336, 4096), (6000, 4096, 4096), (8192, 14336, 4096)]
# big14k (session 110): swizzlepadcheck left 128x128 pingpong, the plan at N >= 12288, at 0.74-0.77x cuBLASLt fused at
# 8064x14336x8192 (bf16 557 / 525 TFLOP/s on an H100, cold / warm) and fp8 fast at 0.78-0.88x _scaled_mm's, while
# 8000x8192x8192 ran 671 with the same tile and strips. Is it the padded strips (63 row tiles: strips of 8 over 64),
# the walk (along M, sweeping A, 14 strips), or the tile at M, N and K this large? Aligned 8192 rows pad nothing;
# along_n sweeps B instead; the wider cooperative tiles (the default below WIDE_N, 128x224) read fewer bytes per FLOP.
# Run twice on H100s (h100_session110.log): pingpong 549-578 TFLOP/s cold at 8064 rows (K 8192, 4096), 667-729 at
# 8192; along_n 572-619 at 8064; the cooperative tiles 0-4% behind their 8192-row speed, near cuBLASLt fused. Hence
# oobrow.
BIG14K_BF16_TILES = named("128x128x64 c1x1 pingpong", "128x128x64 c1x1 pingpong along_n",
                          "128x128x64 c1x1 pingpong swizzle4", "128x256x64 c2x1 coop", "128x224x64 c1x1 coop",
                          "256x128x64 c1x2 coop")
BIG14K_SHAPES = [(8064, 14336, 8192), (8192, 14336, 8192), (8064, 14336, 4096), (8192, 14336, 4096),
                 (8000, 8192, 8192)]
BIG14K_FP8_TILES = named("128x128x128 c1x1 pingpong", "128x128x128 c1x1 pingpong along_n", "128x256x128 c2x1 coop",
                         "128x224x128 c1x1 coop", **FAST)
BIG14K_FP8_SHAPES = [(8064, 14336, 8192), (8192, 14336, 8192), (8064, 14336, 4096)]
# oobrow (session 110): big14k on an H100 had 128x128 pingpong 17-21% slower at 8064 rows than at 8192 (x14336, K
# 8192 and 4096), fp8 fast 18%, while the cooperative tiles ran level. Both walk 64 row tiles in strips of 8 (the
# scheduler pads 63 to 64), so the same tiles compute; at 8064 rows the 64th row lies wholly past M and its loads are
# TMA boxes wholly outside a. The same tiles with a's descriptors widened over that row (a in a taller buffer): if
# the loss goes, those boxes are its cost, as the box past a's end was at ragged M (raggedother). Run (an H100,
# h100_session110.log): widened, pingpong ran 549 -> 657 and 578 -> 717 cold (K 8192, 4096), fp8 fast 1154 -> 1391,
# the 128x256 c2x1 coop and the aligned control level; fp8 fast at K 4096 level (1113 / 1112: A fits L2, so nothing
# pads there and the walk runs strips of 1).
OOB_ROW_BF16 = named("128x128x64 c1x1 pingpong", "128x128x64 c1x1 pingpong swizzle4", "128x256x64 c2x1 coop")
OOB_ROW_SHAPES = [(8064, 14336, 8192), (8064, 14336, 4096), (8192, 14336, 4096)]
OOB_ROW_FP8 = named("128x128x128 c1x1 pingpong", **FAST)
# pastrows (session 111): oobrow's loss as fixed in csrc. A tile with fitted_tail (load_hints.hpp's TailOperand) now
# loads no token operand where the tile lies wholly past the token rows, and counts its bytes off the stage's barrier;
# the padded row of the scheduler's strips then costs no TMA boxes outside a. Each tile bare, and " | widened" as in
# oobrow; the fitted tile's bare call should match the plain tile's widened one at 8064 rows, and the plain tile
# where nothing pads (8192 rows). 8000x8192x8192 is ragged as well as padded (63 row tiles, strips of 8).
PAST_ROWS_BF16 = named("128x128x64 c1x1 pingpong", "128x128x64 c1x1 pingpong fitted", "128x256x64 c2x1 coop",
                       "128x256x64 c2x1 coop fitted")
PAST_ROWS_SHAPES = [(8064, 14336, 8192), (8064, 14336, 4096), (8192, 14336, 4096), (8000, 8192, 8192)]
PAST_ROWS_FP8 = named("128x128x128 c1x1 pingpong", "128x128x128 c1x1 pingpong fitted", **FAST)
PAST_ROWS_FP8_SHAPES = [(8064, 14336, 8192), (8192, 14336, 8192), (8000, 8192, 8192)]
# Run 28's losers again with an epilogue subtile that makes 4 subtiles per tile. Hypothesis (ncu, session 12): with a
# load node the consumer waits on the epilogue load pipeline at every subtile, and CUTLASS gives that pipeline
# min(subtiles, 4) stages, so past 4 subtiles each wait is a round trip to the load warp; at 4 or fewer the load warp
# signals every subtile of a tile ahead. 128x128 pingpong with 64x32 subtiles (8) lost 4-8% under ncu, 128x128 coop
# with 128x32 (4) nothing. Run 33 (session 13, at 35ad318, whose kernels with the node took one load stage per
# subtile) refuted it: both 4-subtile builds still lost cold (fp8 1200 vs 1216, bf16 740 vs 752), and so did the
# 8-subtile ones of bulkrow with the extra stages; the stage change was reverted.
BULKEPI_FP8_TILES = named("128x128x128 c1x1 pingpong epi64x64", **FAST)
BULKEPI_BF16_TILES = named("128x256x64 c2x1 coop epi128x64")
# Unswapped decode tiles whose CTA N fits the weights to one wave (session 13). Under swap_ab the weights are tiled
# by the CTA's M, in steps of 64, so N = 6144 makes 96 CTAs for 132 SMs and N = 14336 224 (1.7 waves); unswapped, a
# 64-row CTA holds all the tokens (M <= 64, the padded rows cost MMA time decode has to spare) and CTA N goes in steps
# of 16: 64x48 makes 128 CTAs at N = 6144, 64x112 128 at 14336, 64x64 at 8192, 64x32 at 4096. c1x2 multicasts the
# token tile to two weight tiles. The bias is then a row broadcast, read after the mainloop unless the bulk node
# copies it during it (each CTA runs one tile, as under swap_ab, where the node paid), hence both builds. Beside
# them, the per-shape tile each shape runs today. Run 34: slower everywhere, with or without the node (cold
# 64x6144x4096 165-171 vs 177 for swap 64x64 c4x1, 64x14336x4096 211 vs 223 for swap 128x64; M <= 32 20-50% slower).
UNSWAP_DECODE_TILES = named("64x48x128 pingpong", "64x48x128 c1x2 pingpong", "64x112x128 pingpong",
                            "64x112x128 c1x2 pingpong", "64x64x128 c1x2 pingpong", "64x32x128 c1x2 pingpong")
UNSWAP_DECODE_SHAPES = [(64, 6144, 4096), (48, 6144, 4096), (64, 14336, 4096), (32, 14336, 4096), (64, 8192, 8192),
                        (32, 8192, 8192), (16, 8192, 8192), (64, 4096, 14336)]
# The token tile fitted to M = 33-48 (cuBLAS's 64x48_64x15_2x1 at M = 48, h200_library_kernels.log) across the
# M 33-64 bucket's N classes; session 9 ran it only at N = 8192 (runs 17-18: level with the bucket's tile), and
# 48x6144x4096 trails cuBLAS mm by 2-5% with the 64x64 c4x1 tile (runs 32, 34). Session 13, run 35: no better
# anywhere (cold 48x6144x4096 125-128 vs 132, 48x6144x8192 158 vs 160, 48x8192^2 170 vs 174; c4x1 at N = 8192 123).
# Those ran CTA N = 48 as three m64n16k16 per K step; on wgmma's extended shapes (session 22, run 62) 64x48 c4x1 led
# 64x64 c4x1 at N = 5120-6144 cold and warm (48x6144x4096 133 / 139 vs 124 / 137), and tiles.py took it there.
FIT48_TILES = named("swap 64x64x128 c4x1 pingpong", "swap 128x32x128 c1x2 coop", "swap 64x48x128 pingpong",
                    "swap 64x48x128 c2x1 pingpong", "swap 64x48x128 c4x1 pingpong", "swap 64x48x64 c4x1 pingpong")
FIT48_SHAPES = [(48, 6144, 4096), (40, 6144, 4096), (48, 6144, 8192), (48, 5120, 8192), (48, 8192, 8192)]
# Run 34's unswapped decode tiles again, on wgmma's extended shapes (session 23). Run 34 ran CTA N = 48 as three
# m64n16k16 per K step and 112 as seven, and those tiles lost by 5-35%; where the unswapped tile had a base N (64x64
# c1x2 at 64x8192^2) it ran level with the best swap_ab tile (221-228 vs 231). Unswapped, a 64-row CTA holds every
# token and CTA N fits the weights to one wave: 64x48 makes 128 CTAs at N = 6144 where swap_ab's 64-row weight tiles
# make 96, 64x112 makes 128 at N = 14336 (swap_ab 128x64: 112), 64x96 128 at N = 12288.
UNSWAPEXT_TILES = named("64x48x128 pingpong", "64x48x128 c1x2 pingpong", "64x48x64 pingpong", "64x112x128 pingpong",
                        "64x112x128 c1x2 pingpong", "64x96x128 c1x2 pingpong", "64x64x128 c1x2 pingpong")
UNSWAPEXT_SHAPES = [(64, 6144, 4096), (56, 6144, 4096), (48, 6144, 4096), (64, 6144, 8192), (64, 14336, 4096),
                    (48, 14336, 4096), (64, 12288, 4096), (64, 8192, 8192)]
# Run 63: no better than the plan anywhere (cold 64x6144x4096 175 vs 179, 64x14336x4096 225 vs 227; 64x96 c1x2 at
# 64x12288x4096 223 vs 217 cold, 218 vs 219 warm). The swap_ab tiles stay.
# The M 49-64 mid-N class (64x6144x4096, short of cuBLAS mm in every anchors run) with every SM pulling weights:
# its 64x64 swap_ab tiles make 96 CTAs for 132 SMs, and pingpong cannot take the stream-K scheduler (CUTLASS
# static_assert), so these are 128-row cooperative tiles (48 tiles at N = 6144) under stream-K's forced decomposition,
# which spreads the 48 x 32 K blocks over all 132 SMs and adds the partial sums after.
MIDNSK_TILES = named("swap 128x64x128 coop stream-K always", "swap 128x64x64 coop stream-K always",
                     "swap 128x64x128 c2x1 coop stream-K always", "swap 128x64x128 coop split3",
                     "swap 128x64x128 c1x1 coop")
MIDNSK_SHAPES = [(64, 6144, 4096), (56, 6144, 4096), (64, 6144, 8192), (64, 5120, 8192)]
# Run 64: slower everywhere (cold 64x6144x4096: stream-K 133-138, split3 111, the persistent 128x64 147, the plan's
# swap 64x64 c4x1 177; warm the same order). Spread over 132 SMs the 128x64 tile ran slower than on its own 48 CTAs;
# why was not profiled.
# N = 4096 at M 65-256 (session 23). Where the plan runs one swapped token tile (65-160) or two 112-wide columns under
# a 128-row weight tile (193-224), N / 64 weight tiles make 64 CTAs for 132 SMs, and these shapes trail cuBLASLt fused
# most (run 61: 0.78-0.88x at 88-104, 0.80-0.83x at 200x4096^2). At 161-192 and 225-256, where the plan runs two
# 64-row-weight columns (128 CTAs), it led the one-column tiles by 1.3-1.5x (runs 52-53). Two token columns under
# 64-row weight tiles for every bucket, with and without the 1x2 cluster that loads each weight tile once for both.
TWOCOL4K_TILES = named("swap 64x48x128 pingpong", "swap 64x48x128 c1x2 pingpong", "swap 64x64x128 pingpong",
                       "swap 64x64x128 c1x2 pingpong", "swap 64x80x128 c1x2 pingpong",
                       "swap 64x112x128 c1x2 pingpong")
TWOCOL4K_SHAPES = [(m, 4096, 4096) for m in (72, 88, 104, 120, 136, 152, 200, 216)]
# Run 65 (cold / warm vs the plan): two columns won where they pass M by 8 rows: 88 (2x48 c1x2 203 / 226 vs 178 /
# 203), 120 (2x64 264 / 295 vs 219 / 252), 152 (2x80 c1x2 312 / 357 vs 256 / 270), 216 (2x112 c1x2 398 / 433 vs
# 302 / 308), and at 200 by 24 (342 / 352 vs 280 / 283); at 72, 104 and 136 (24 rows past M) they trailed or split
# (104: 2x64 c1x2 213 / 203 vs 199 / 221). tiles.py takes them below MID_N for M 81-96, 113-128, 145-160, 193-224.
# Session 24: the wave tail. At N = 14336 the plan's tiles for M 65-256 make 112 or 224 output tiles for 132 SMs (0.85
# or 1.7 waves), and those shapes trail cuBLASLt fused by 3-15% (run 61: 0.85-0.86x at 168-200). CUTLASS's stream-K
# heuristic keeps a tail wave over half full data-parallel, so "stream-K always": every SM takes an equal share of the
# K blocks, and the CTAs that share an output tile add their partial sums in the workspace. Each tile both ways of
# reducing (lower.STREAM_K_REDUCTION): CUTLASS's turnstile (each split waits for the one before) and all splits adding
# once the first has stored. Probe run 64 had stream-K at 48 tiles slower than no stream-K, with the turnstile.
SK14K_TILES = named("swap 128x80x64 coop stream-K always", "swap 128x80x64 c1x2 coop stream-K always epi128x80",
                    "swap 128x96x64 c1x2 coop stream-K always", "swap 128x112x64 c1x2 coop stream-K always epi128x112",
                    "swap 128x128x64 coop stream-K always")
SK14K_SHAPES = [(m, 14336, 4096) for m in (72, 104, 136, 168, 200, 240)]
# The same at N = 4096, where the plan's 64-row token tiles at M = 72 and 104 make 64 CTAs (run 65: 0.86-0.95x and
# 0.83-0.85x): 128-row weight tiles split in four along K (32 tiles x 4 = 128 CTAs) or spread by stream-K, and the
# M 49-64 mid-N class's 64x6144x4096 (run 64's stream-K tile, now also with the concurrent reduction).
SK4K_TILES = named("swap 128x80x64 coop split4", "swap 128x112x64 coop split4", "swap 128x80x64 coop stream-K always",
                   "swap 128x112x64 coop stream-K always", "swap 128x64x64 coop stream-K always")
SK4K_SHAPES = [(72, 4096, 4096), (104, 4096, 4096), (64, 6144, 4096)]
STREAM_K_REDUCTIONS = ("STREAM_K_REDUCTION", ("Deterministic", "Nondeterministic"))
# Run 66 (cold / warm): stream-K and split-K slower than the plan everywhere, either reduction (200x14336x4096:
# 128x112 c1x2 stream-K 482 / 481 vs the plan's 520 / 521; 72x4096^2 split4 104-133 vs 155-168; 64x6144x4096 133-136
# vs 181-182); the concurrent adds gained 0-10% over the turnstile at N = 4096 only. No tile changed.
# cuBLAS at 240x14336x4096 runs nvjet_sm90_tst_128x240_64x4_4x1_v_bz_coopA (library_kernels session 21): all the
# tokens in one column under 128-row weight tiles, 112 CTAs for 132 SMs, a 4x1 cluster multicasting the tokens to
# four weight tiles. The plan there runs 128x128 (one column of 128 at 104-128, two at 240) or two columns in a 1x2
# cluster (136-224), which load the tokens once per weight tile. One column of all the tokens, M fitted in steps of
# 16, in 4x1 and 2x1 clusters; subtiles as wide as divide the token side by a multiple of 16 and leave stages.
ONECOL14K_TILES = named("swap 128x80x64 c4x1 coop epi128x80", "swap 128x80x64 c2x1 coop epi128x80",
                        "swap 128x112x64 c4x1 coop epi128x112", "swap 128x112x64 c2x1 coop epi128x112",
                        "swap 128x144x64 c4x1 coop epi128x48", "swap 128x144x64 c4x1 coop",
                        "swap 128x176x64 c4x1 coop", "swap 128x192x64 c4x1 coop epi128x64",
                        "swap 128x208x64 c4x1 coop", "swap 128x224x64 c4x1 coop",
                        "swap 128x240x64 c4x1 coop epi128x48", "swap 128x240x64 c4x1 coop epi128x80",
                        "swap 128x240x64 c2x1 coop epi128x48", "swap 128x256x64 c4x1 coop")
ONECOL14K_SHAPES = SK14K_SHAPES
# The plan with one column from WIDE_N (M 65-256; buckets of 16 rows up to 256 so that the column fits M in steps of
# 16) against the tiles it had there before, at N = 12288 (96 weight tiles for 132 SMs), 14336 (at M between run
# 67's) and 28672 (224 tiles, 1.7 waves).
ONECOLCHECK_TILES = named("swap 64x80x128 c2x1 pingpong", "swap 64x96x128 c2x1 pingpong", "128x128x64 coop",
                          "swap 128x80x64 c1x2 coop epi128x80", "swap 128x96x64 c1x2 coop",
                          "swap 128x112x64 c1x2 coop epi128x112")
ONECOLCHECK_SHAPES = ([(m, 14336, 4096) for m in (88, 120, 152, 184, 216, 232, 256)] +
                      [(m, 12288, 4096) for m in (72, 104, 136, 168, 200, 240)] +
                      [(m, 28672, 4096) for m in (72, 136, 200, 256)])
# Run 68: the one column led the old tiles everywhere, but at N = 12288 (96 weight tiles for 132 SMs) it still
# trailed cuBLASLt fused at M 136-240 (0.85-0.97x). Twice the CTAs there: 64-row weight tiles with all the tokens
# (pingpong, the tokens shared by a 2x1 cluster), or two columns under 128-row weight tiles in 2x2 clusters (the
# tokens shared by two weight tiles, the weights by both columns); beside the old two-column tiles. And fp8 (no
# fast accumulation) at N = 14336, where the one column replaced two columns untimed.
N12K_TILES = named("swap 128x80x64 c1x2 coop epi128x80", "swap 128x96x64 c1x2 coop",
                   "swap 128x112x64 c1x2 coop epi128x112", "swap 128x80x64 c2x2 coop epi128x80",
                   "swap 128x112x64 c2x2 coop epi128x112", "swap 64x144x64 c2x1 pingpong epi64x48",
                   "swap 64x176x64 c2x1 pingpong", "swap 64x208x64 c2x1 pingpong",
                   "swap 64x240x64 c2x1 pingpong epi64x48")
N12K_SHAPES = [(m, 12288, 4096) for m in (136, 168, 200, 240)]
N12K_FP8_TILES = named("swap 128x80x128 c1x2 coop epi128x80", "swap 128x112x128 c1x2 coop epi128x112")
N12K_FP8_SHAPES = [(136, 14336, 4096), (200, 14336, 4096)]
# Run 69 left N = 12288 at M 136-240 0.86-0.96x cuBLASLt fused: one column of 128-row weight tiles makes 96 CTAs for
# 132 SMs and two columns 192 (1.45 waves). cuBLAS runs 192-row weight tiles in two columns (nvjet 192x72 / 192x104
# _1x2: 128 CTAs). CUTLASS's cooperative kernel cannot split 192 rows over two warpgroups, but its pingpong kernel
# gives each tile to one warpgroup, three 64-row wgmmas per K step: validation lets pingpong take CTA M = 192. Two
# token columns under 192-row weight tiles (1x2 clusters share the weights, 2x2 also the tokens), M 72-256.
N12K192_TILES = named("swap 192x48x64 c1x2 pingpong epi64x48", "swap 192x64x64 c1x2 pingpong",
                      "swap 192x80x64 c1x2 pingpong epi64x80", "swap 192x96x64 c1x2 pingpong",
                      "swap 192x112x64 c1x2 pingpong epi64x112", "swap 192x128x64 c1x2 pingpong",
                      "swap 192x80x64 c2x2 pingpong epi64x80", "swap 192x112x64 c2x2 pingpong epi64x112")
N12K192_SHAPES = [(m, 12288, 4096) for m in (72, 104, 136, 168, 200, 240, 256)]
N12K192_FP8_TILES = named("swap 192x80x128 c1x2 pingpong epi64x80", "swap 192x112x128 c1x2 pingpong epi64x112",
                          **FAST)
N12K192_FP8_SHAPES = [(136, 12288, 4096), (200, 12288, 4096)]
# Run 70: at N = 12288 the 192-row weight tiles in two token columns led the plan's one column from 161 rows (168:
# 192x96 472 / 459 vs 454 / 446 cold / warm; 200: 192x112 550 / 547 vs 476 / 479; 240 and 256: 192x128 598-630 vs
# 527-535; fp8 136 and 200: 682 / 930 with fast accumulation vs 602 / 729 for the plan without) and tied it at
# 72-136. Where else: 2 * ceil(N / 192) CTAs fill the 132 SMs in one wave up to N = 12672, and below WIDE_N the plan
# runs two columns under 128-row weight tiles (2N / 128 CTAs, over one wave from N = 8449). N = 8192-11008 and more
# M at 12288; fp8 against the plan with fp8_fast_accum (run 70 had set it on the 192-row tiles only).
N192BAND_TILES = {k: v for k, v in N12K192_TILES.items() if "c1x2" in k and "192x48" not in k and "192x64" not in k}
N192BAND_SHAPES = ([(m, n, 4096) for n in (8192, 9216, 10240, 11008) for m in (152, 168, 200, 240, 256)] +
                   [(m, 12288, 4096) for m in (152, 184, 224)])
N192BAND_FP8_SHAPES = [(m, 12288, 4096) for m in (136, 168, 200, 240)] + [(200, 10240, 4096)]
# Run 71: from N = 9216 to 12288 the 192-row tiles led the plan at every M of 145-256 (1.04-1.28x cold and warm,
# e.g. 200x10240x4096 483 / 474 vs 379 / 376, 240x9216x4096 462 / 458 vs 368 / 359; fp8 fast-accum 200x10240x4096
# 797 / 822 vs 635 / 653); at N = 8192, where the plan's two 128-row columns make exactly 128 CTAs, they lost
# (0.72-0.81x). The plan took them from TALL_N to ONE_COLUMN_N at 129-256 rows (225-256 until run 73); here it is
# against the tiles it replaced, at N and M between those timed, and K = 8192. And 65-128 rows in the band, where
# the plan kept one 64-row tile or two 128-row columns (2N / 64 or 2N / 128 CTAs, over a wave): two columns of 48 or
# 64 tokens under 192-row tiles.
TALLCHECK_TILES = named("swap 128x80x64 c1x2 coop epi128x80", "swap 128x96x64 c1x2 coop",
                        "swap 128x112x64 c1x2 coop epi128x112", "128x128x64 coop",
                        "swap 128x208x64 c4x1 coop", "swap 128x240x64 c4x1 coop epi128x48")
TALLCHECK_SHAPES = [(136, 9216, 4096), (152, 8704, 4096), (184, 11008, 4096), (216, 10240, 4096), (248, 9216, 4096),
                    (232, 12288, 4096), (200, 12672, 4096), (200, 10240, 8192)]
TALLCHECK_LOW_TILES = named("swap 192x48x64 c1x2 pingpong epi64x48", "swap 192x64x64 c1x2 pingpong")
TALLCHECK_LOW_SHAPES = [(72, 10240, 4096), (88, 11008, 4096), (104, 10240, 4096), (120, 9216, 4096),
                        (120, 11008, 4096)]
TALLCHECK_FP8_TILES = named("swap 128x80x128 c1x2 coop epi128x80", "swap 128x112x128 c1x2 coop epi128x112",
                            "swap 128x240x128 c4x1 coop epi128x48", **FAST)
TALLCHECK_FP8_SHAPES = [(152, 11008, 4096), (216, 9216, 4096), (232, 12288, 4096)]
# Run 72 left 225-256 rows at N = 9216-11008 at 0.77-0.91x cuBLASLt fused. cuBLAS there (library_kernels.py,
# session 25): nvjet 144x128 _1x2 at 240x9216x4096 and 168x128 _1x2 at 256x11008x4096 (grids of 2 x 64 and 2 x 66),
# 144x64 _1x2 at 120x9216x4096: unswapped, the tokens in two 128- or 64-row tiles and the weight tile's width fitted so
# that N / width makes 64-66 columns, one wave of 128-132 CTAs. Ours in that form (CTA N in steps of 16), the two
# token tiles sharing the weight tile through a 2x1 cluster or not.
FITN_TILES = named("128x144x64 c2x1 coop", "128x144x64 c1x2 coop", "128x160x64 c2x1 coop", "128x176x64 c2x1 coop",
                   "128x192x64 c2x1 coop", "64x144x64 c2x1 pingpong", "64x160x64 c2x1 pingpong")
FITN_SHAPES = [(240, 9216, 4096), (256, 9216, 4096), (240, 10240, 4096), (256, 11008, 4096), (256, 12288, 4096),
               (200, 10240, 4096), (120, 9216, 4096), (104, 10240, 4096)]
# Run 73 (cold / warm): at 225-256 rows 1.03-1.25x the 192-row tiles with the 2x1 cluster (240x9216x4096 128x144
# 576 / 567 vs 462 / 461; 256x12288x4096 128x192 649 / 644 vs 619 / 623), 490 / 490 with 1x2 at 240x9216x4096; the
# plan takes them there (dfd929b). At 200 rows the 192-row tiles stayed ahead (479 / 470 vs 463 / 466). At 104-120
# rows two 64-row token tiles under N / 64-wide weight tiles in 2x1 clusters led the 192-row tiles by 4-7% (120x9216:
# 64x144 348 / 342 vs 326 / 323; 104x10240: 64x160 316 / 308 vs 301 / 296): untaken, 65-96 rows not timed.
# Session 26: run 73's lead at 104-120 rows, timed across the 65-128 band (TALL_N to WIDE_N): two 64-row token tiles
# under weight tiles N / 64 wide (N / 64 in steps of 16) in 2x1 clusters; and at 193-224 rows (to ONE_COLUMN_N) two
# 128-row token tiles in that form, against the plan's two columns under 192-row tiles. fp8 with fast accumulation
# at 225-256 rows, where the plan took the N / 64-wide form from bf16's timing: against the 192-row tiles it replaced.
FITLOW_TILES = named("64x144x64 c2x1 pingpong", "64x160x64 c2x1 pingpong", "64x176x64 c2x1 pingpong",
                     "64x192x64 c2x1 pingpong")
FITLOW_SHAPES = [(72, 9216, 4096), (88, 10240, 4096), (96, 11008, 4096), (100, 9216, 4096), (104, 11008, 4096),
                 (112, 10240, 4096), (120, 12000, 4096), (128, 9216, 4096), (128, 11008, 4096)]
FITHIGH_TILES = named("128x144x64 c2x1 coop", "128x160x64 c2x1 coop", "128x176x64 c2x1 coop",
                      "128x192x64 c2x1 coop")
FITHIGH_SHAPES = [(200, 9216, 4096), (208, 10240, 4096), (216, 11008, 4096), (224, 9216, 4096), (224, 12288, 4096),
                  (208, 12672, 4096)]
FITN_FP8_TILES = named("128x144x128 c2x1 coop", "128x176x128 c2x1 coop", "swap 192x112x128 c1x2 pingpong",
                       "swap 192x128x128 c1x2 pingpong", **FAST)
FITN_FP8_SHAPES = [(240, 9216, 4096), (256, 11008, 4096), (232, 10240, 4096)]
# Run 74 (cold / warm): at 97-128 rows 64xW against the plan's 192-row tiles 1.03-1.07x to N = 10240 (128x9216 64x144
# 378 / 366 vs 354 / 351; 112x10240 64x160 344 / 339 vs 334 / 324), 0.99x at 100x9216, tied or behind from 11008
# (128x11008 393 / 384 vs 397 / 385); at 65-96 behind (72x9216 187 / 189 vs 212 / 217). At 193-224 128xW 1.01-1.12x
# at N = 9216 (224x9216 128x144 542 / 529 vs 486 / 487), at 10240 1.03 / 0.99x, behind from 11008. fp8 fast: the
# plan's N / 64-wide tiles 1.05-1.21x the 192-row ones at 232-256 rows. The plan took 64xW at 97-128 rows to 10240
# and 128x144 at 193-224 to 9216; here it is against the tiles it replaced at other shapes of those classes.
FITLOWCHECK_TILES = named("swap 192x64x64 c1x2 pingpong", "swap 192x112x64 c1x2 pingpong epi64x112")
FITLOWCHECK_SHAPES = [(104, 8704, 4096), (112, 9216, 4096), (100, 9728, 4096), (128, 10240, 4096),
                      (200, 8704, 4096), (216, 9216, 4096), (208, 8960, 8192)]
FITLOWCHECK_FP8_TILES = named("swap 192x64x128 c1x2 pingpong", "swap 192x112x128 c1x2 pingpong epi64x112", **FAST)
FITLOWCHECK_FP8_SHAPES = [(120, 9216, 4096), (104, 10240, 4096), (216, 9216, 4096)]
# Run 75 (cold / warm): 97-128 rows 1.01-1.05x the 192-row tiles (104x8704 288 / 284 vs 274 / 272, 112x9216 322 / 315
# vs 307 / 307), level at 100x9728; 216x9216 518 / 512 vs 474 / 468, but at 193-208 rows 200x8704 0.99 / 1.02x and
# 208x8960x8192 477 / 433 vs 509 / 504, so 193-208 kept the 192-row tiles. fp8 fast 1.00-1.14x.
# Session 27: the tiles that leave SMs idle at 129-256 rows, in an unswapped form whose weight tile is as wide as
# N / 128 (in steps of 16), so that one token tile over all M makes up to 128 CTAs. At 129-192 rows the plan's two
# columns under 192-row weight tiles make 2 x ceil(N / 192) CTAs (96 at N = 9216); one 192-row pingpong token tile
# (three 64-row wgmmas, M padded to 192) under 80-wide weight tiles makes 116-128 to N = 10240. At N = 14336 the
# plan's one column (swap 128 x M) makes 112; 192x112 pingpong (129-192 rows) and 256x112 cooperative (193-256) make
# 128. Also the fitted 128x160 two-tile form at 209-224 rows and N = 9217-10240, which the plan left untimed.
FITMID_TILES = named("192x80x64 pingpong", "192x80x64 c1x2 pingpong", "192x96x64 c1x2 pingpong",
                     "64x224x64 pingpong")
FITMID_SHAPES = [(136, 9216, 4096), (152, 9216, 4096), (160, 8704, 4096), (168, 10240, 4096), (184, 9216, 4096),
                 (192, 10240, 4096), (176, 9216, 8192), (184, 11008, 4096)]
FIT14K_TILES = named("192x112x64 pingpong", "192x112x64 c1x2 pingpong", "256x112x64 c1x2 coop")
FIT14K_SHAPES = [(152, 14336, 4096), (168, 14336, 4096), (184, 14336, 4096), (200, 14336, 4096), (232, 14336, 4096),
                 (168, 14336, 8192)]
FITHIGH2_TILES = named("128x160x64 c2x1 coop")
FITHIGH2_SHAPES = [(216, 9728, 4096), (224, 10240, 4096), (212, 10240, 8192)]
FITMID_FP8_TILES = named("192x80x128 c1x2 pingpong", "192x112x128 c1x2 pingpong", **FAST)
FITMID_FP8_SHAPES = [(168, 9216, 4096), (184, 10240, 4096), (168, 14336, 4096)]
# Run 76 (cold / warm), against the plan: at 145-192 rows three 64-row token tiles under 224-wide weight tiles
# (3 x ceil(N / 224) CTAs, 123 at N = 9216) 1.01-1.11x (184x9216 477 / 450 vs 428 / 421; 176x9216x8192 514 / 514
# vs 475 / 470; 160x8704 399 / 379 vs 381 / 374), behind at 136 rows (255 / 331 vs 340 / 335) and past a wave
# (168x10240: 138 CTAs, 307 / 301 vs 424 / 421); one 192-row token tile under 80-wide weight tiles 1.07 / 1.05x at
# 192x10240 (513 / 502 vs 481 / 479), behind at 168x10240 and 184x11008 (96 wide). At N = 14336 none led the one
# column (192x112 0.85-0.97x at 152-184 rows; 256x112 0.62-0.99x). 128x160 at 209-224 rows, N = 9728-10240:
# +2-4% cold, -1-4% warm. fp8 fast: 192x80 1.02 / 1.09x at 184x10240, behind at 168x9216.
# Session 27, run 77: widths of the three-tile form per N (208 to N = 9152, 224 to 9856, 240 to 10560: up to 132
# CTAs) and the 192-row token tile, at more M and N, and both forms for fp8 with fast accumulation.
FITMIDCHECK_TILES = named("64x208x64 pingpong", "64x224x64 pingpong", "64x240x64 pingpong", "192x80x64 pingpong")
FITMIDCHECK_SHAPES = [(144, 9216, 4096), (148, 8704, 4096), (160, 9152, 4096), (176, 8456, 4096), (184, 9856, 4096),
                      (192, 9216, 4096), (180, 10240, 4096), (192, 10560, 4096), (168, 9728, 8192)]
FITMIDCHECK_FP8_TILES = named("64x224x128 pingpong", "64x240x128 pingpong", "192x80x128 pingpong", **FAST)
FITMIDCHECK_FP8_SHAPES = [(160, 8704, 4096), (184, 9216, 4096), (192, 10240, 4096)]
# Run 78: 8-bit operands take the three 64-row token tiles at 161-176 rows untimed (fp8 lost at 160 rows, won at 184);
# fp8 with fast accumulation there, the plan (9022a09) against the 192-row weight tiles it replaced.
FIT176_FP8_TILES = named("swap 192x96x128 c1x2 pingpong", **FAST)
FIT176_FP8_SHAPES = [(168, 9216, 4096), (172, 8704, 4096), (176, 9728, 4096)]
# Session 27: cuBLAS at 136-168 rows, N = 9216-11008 (library_kernels.py): nvjet 192x72 / 192x88 _4x2, 2 x ceil(N / 192)
# CTAs as our two columns under 192-row weight tiles, but in 4x2 clusters (each token tile multicast over four
# weight tiles as well). The plan's tall tiles in 4x2 and 4x1 clusters against its 1x2.
TALL42_TILES = named("swap 192x80x64 c4x2 pingpong epi64x80", "swap 192x80x64 c1x2 pingpong epi64x80",
                     "swap 192x96x64 c4x2 pingpong", "swap 192x112x64 c4x2 pingpong epi64x112")
TALL42_SHAPES = [(136, 9216, 4096), (144, 10240, 4096), (136, 11008, 4096), (168, 9728, 8192), (200, 10240, 4096)]
# Run 79 (cold / warm): 4x2 no faster than 1x2 (136x9216 192x80 328 / 323 vs 338 / 327; 144x10240 377 / 375 vs
# 386 / 379; 200x10240 192x112 479 / 472 vs the plan's 1x2 482 / 470); cuBLAS's lead there is not its cluster.
# Session 28: bf16 at 161-176 rows from N = 9857 to 10560 keeps the 192-row weight tiles (2 x ceil(N / 192), 108 CTAs
# at 10240) untimed beside the 192-row token tile (ceil(N / 80), 128 CTAs), which bucket 192 takes at 177-192 rows:
# run 77 had it behind at 168x10240 (12% of its rows padding), not at 172-176.
BAND176_TILES = named("192x80x64 pingpong")
BAND176_SHAPES = [(164, 10000, 4096), (172, 10240, 4096), (176, 9984, 4096), (176, 10560, 4096), (176, 10240, 8192)]
# Run 80 (cold): 192x80 behind the plan at all five (172x10240 417 vs 434, 176x10560 427 vs 451), but the plan at
# 0.89-0.90x cuBLASLt fused at 172-176 rows (1.11x at 164x10000). Three 64-row token tiles 240 or 256 wide make
# 3 x ceil(N / 240) = 129 CTAs at 10240 and 3 x ceil(N / 256) = 129 at 11008, where 224 passes a wave from 9857.
BAND240_TILES = named("64x240x64 pingpong", "64x256x64 pingpong", "192x80x64 pingpong")
BAND240_SHAPES = [(168, 10240, 4096), (172, 10240, 4096), (176, 9984, 4096), (176, 10560, 4096), (176, 10240, 8192),
                  (184, 10240, 4096), (176, 11008, 4096), (192, 11264, 4096)]
# Run 81 (cold / warm): 64x256 1.01-1.04x the plan cold at 168-176 rows (172x10240 442 vs 430, 176x11008 476 vs 464)
# but 0.98-1.00x warm (176x9984 420 vs 428), behind the 192-row token tile at 184x10240; 64x240 below 64x256
# everywhere, and both far behind past a wave (176x11008 at 240 wide: 315). Not taken. The gap at 172-176 rows
# (the plan 0.89-0.93x cuBLASLt fused) is cuBLAS's 88-wide token columns (bench/narrow_token_tiles.py).
# Session 28: fp8 operands compile token tiles in steps of 8 (validate.n_step_of; bench/narrow_token_tiles.py), as
# cuBLAS fits them: 2 x 72 at 129-144 rows (ours 2 x 80 under the same 192-row weight tiles), 2 x 88 at 161-176 where
# the plan runs 2 x 96 from N = 9857, 64x40 at M = 33-40 (ours 64x48 or 64x32 columns). Full-width and CUTLASS's own
# 8-wide epilogue subtiles.
FP8NARROW_TILES = named("swap 192x72x128 c1x2 pingpong epi64x72", "swap 192x72x128 c1x2 pingpong", **FAST)
FP8NARROW_SHAPES = [(136, 9216, 4096), (144, 9216, 4096), (144, 10240, 4096), (136, 11008, 4096), (140, 12288, 4096)]
FP8NARROW88_TILES = named("swap 192x88x128 c1x2 pingpong epi64x88", **FAST)
FP8NARROW88_SHAPES = [(176, 10240, 4096), (172, 10560, 4096), (168, 11008, 4096)]
FP8NARROW40_TILES = named("swap 64x40x128 c4x1 pingpong epi64x40", "swap 64x40x128 c2x1 pingpong epi64x40", **FAST)
FP8NARROW40_SHAPES = [(40, 6144, 4096), (40, 8192, 8192), (40, 14336, 4096), (40, 4096, 4096)]
# Run 82 (cold / warm; every kernel matched the reference): 2 x 72 with 64x72 subtiles 1.05-1.08x the plan's 2 x 80
# at 136-144 rows (136x9216 612 / 632 vs 568 / 589; CUTLASS's 64x8 subtiles 475 / 489), 2 x 88 1.07-1.09x the
# plan's 2 x 96 at 168-176 rows (176x10240 787 / 773 vs 725 / 715): the plan takes both (4acb18d). 64x40 at M = 40:
# c4x1 1.03 / 1.07x at N = 6144 and 1.10 / 1.12x at 4096, c2x1 1.02x at 8192x8192, level at 14336; not taken (a
# bucket of its own at 33-40 rows, untimed beside bf16's 64x48 there).
# Session 29: 16-bit operands compile the same token columns once the mainloop's TMA descriptors come from a taken,
# not sliced, pipeline stage (csrc/cutlassgen/narrow_tma.hpp; bench/narrow_token_tiles.py). bf16 beside session 28's
# plan (2 x 80 at 129-144 rows, 2 x 96 at 161-176; 64x48 at M = 33-48, 64x64 at 49-64, one 80- or 112-wide column
# at N = 4096 and M = 72 or 104), which cuBLAS runs 4-11% ahead of at 129-176 rows.
BF16NARROW_TILES = named("swap 192x72x64 c1x2 pingpong epi64x72", "swap 192x80x64 c1x2 pingpong epi64x80")
BF16NARROW88_TILES = named("swap 192x88x64 c1x2 pingpong epi64x88", "swap 192x96x64 c1x2 pingpong")
BF16NARROW88_SHAPES = [*FP8NARROW88_SHAPES, (176, 9984, 4096)]
BF16NARROW40_TILES = named("swap 64x40x128 c4x1 pingpong", "swap 64x40x128 c2x1 pingpong",
                           "swap 64x48x128 c4x1 pingpong")
BF16NARROW56_TILES = named("swap 64x56x128 c4x1 pingpong", "swap 64x56x128 c2x1 pingpong",
                           "swap 64x64x128 c4x1 pingpong")
BF16NARROW56_SHAPES = [(56, 6144, 4096), (56, 8192, 8192), (56, 14336, 4096), (56, 4096, 4096)]
BF16NARROW72_TILES = named("swap 64x40x128 c1x2 pingpong", "swap 64x80x128 c1x1 pingpong")
BF16NARROW104_TILES = named("swap 64x56x128 c1x2 pingpong", "swap 64x112x128 c1x1 pingpong")
# Run 83 (bf16narrow, cold / warm; every kernel matched the reference into a NaN-poisoned out): 2 x 72 1.06-1.10x the
# 2 x 80 at 136-144 rows (136x9216x4096 367 / 364 vs 339 / 333), 2 x 88 1.01-1.05x the 2 x 96 at 168-176 rows
# (172x10560x4096 463 / 455 vs 442 / 433); two 40-wide columns in a 1x2 cluster 1.12 / 1.22x the plan's one 80-wide
# column at 72x4096^2 (169 / 214 vs 151 / 175), two 56-wide ones 1.19 / 1.30x the 112-wide one at 104x4096^2
# (234 / 280 vs 196 / 216), 1.07-1.24x at K = 8192; 64x40 at M = 40 +2-6% cold, +2-28% warm over the plan, 64x56
# at M = 56 -2 to +4% (not taken: buckets of their own). The plan takes the first four.
# Session 29, run 84: the narrow forms where the plan did not time them: 65-80 and 97-112 rows below MID_N over the
# buckets and N (the plan's new two 40- or 56-wide columns beside the one column); fp8 there; two narrow columns under
# 128-row cooperative weight tiles from LARGE_N (cuBLAS's nvjet 128x72 ... 128x104 _1x2); the 192-row tile's
# columns narrowed at 65-80, 97-112 and 193-208 rows.
NARROWCOLS80_TILES = named("swap 64x80x128 c1x1 pingpong")
NARROWCOLS80_SHAPES = [(66, 4096, 4096), (80, 4096, 4096), (72, 2048, 4096), (72, 4352, 8192)]
NARROWCOLS112_TILES = named("swap 64x112x128 c1x1 pingpong")
NARROWCOLS112_SHAPES = [(98, 4096, 4096), (112, 4096, 4096), (104, 2048, 8192), (104, 4352, 4096)]
NARROWCOLS_FP8_TILES = named("swap 64x80x128 c1x1 pingpong", "swap 64x112x128 c1x1 pingpong")
NARROWCOLS_COOP_GROUPS = [
    (named("swap 128x56x64 c1x2 coop"), [(104, 8192, 4096), (112, 7680, 4096)]),
    (named("swap 128x72x64 c1x2 coop epi128x72"), [(136, 8192, 4096), (144, 7680, 4096)]),
    (named("swap 128x88x64 c1x2 coop epi128x88"), [(168, 8192, 4096), (176, 7680, 4096)]),
    (named("swap 128x104x64 c1x2 coop epi128x104"), [(200, 8192, 4096), (208, 7680, 4096)])]
NARROWCOLS_TALL_GROUPS = [
    (named("swap 192x40x64 c1x2 pingpong epi64x40"), [(72, 9216, 4096), (80, 10240, 4096)]),
    (named("swap 192x56x64 c1x2 pingpong epi64x56"), [(104, 11008, 4096), (110, 11264, 4096)]),
    (named("swap 192x104x64 c1x2 pingpong epi64x104"), [(200, 9216, 4096), (208, 10240, 4096)])]
# Run 84 (cold / warm, every kernel checked into a poisoned out): the plan's two 40- / 56-wide columns 1.10-1.29x the
# one column at 66-112 rows from N = 2048 to 4096, fp8 1.21-1.29x, but 0.77 / 0.79x at 72x4352x8192 and 0.88 / 0.86x at
# 104x4352x4096 (136 CTAs: tiles.TWO_64_COLUMNS_END_N); under 128-row weight tiles 56 / 72 / 88 / 104 columns
# 1.01-1.04x the 64 / 80 / 96 / 112 ones at N = 7680-8192; under 192-row ones 40 +0.5-2%, 56 +2-3%, 104 +3-6%.
# Session 29, run 85: at 4225 <= N < MID_N the two 64-row-weight-tile columns of buckets 96, 128, 160 and 224 make
# 2 x ceil(N / 64) = 136-142 CTAs, past one wave, where run 84 had the 40- and 56-wide ones lose (72x4352x8192);
# beside the tiles of MID_N.
WAVE4608_GROUPS = [
    (named("swap 64x96x128 c1x1 pingpong"), [(88, 4352, 4096), (96, 4544, 4096)]),
    (named("128x64x64 c1x1 coop"), [(120, 4352, 4096), (128, 4544, 4096)]),
    (named("swap 64x160x64 c1x1 pingpong"), [(150, 4352, 4096), (160, 4544, 4096)]),
    (named("swap 128x104x64 c1x2 coop", "swap 128x112x64 c1x2 coop epi128x112"),
     [(200, 4352, 4096), (216, 4544, 4096)])]
# Run 85 (cold / warm): the tiles of MID_N 1.04-1.29x the plan's two columns at all eight shapes (88x4352 186 / 226 vs
# 157 / 181, 200x4352 314 / 321 vs 251 / 244, 216x4544 at 128x112 336 / 339 vs 300 / 314): they take over from
# tiles.TWO_64_COLUMNS_END_N = 4225.
# Session 30: the plan's tiles below LARGE_N that no probe had timed. At 129-144 rows one 144-wide token column
# (ceil(N / 64) CTAs, 64 at N = 4096) beside two 72-wide ones under 64-row weight tiles (2 x ceil(N / 64), one wave
# to N = 4224) and under 128-row ones (2 x ceil(N / 128)); at 161-192 rows from TWO_64_COLUMNS_END_N two 96-wide
# token tiles under 64-row weight tiles (2 x ceil(N / 64): 136 CTAs at N = 4352, 220 at 7040, past a wave as run
# 85 found at 65-160 and 193-224 rows) beside the two columns under a 128-row weight tile that LARGE_N gives them,
# narrowed to 88 at 161-176, one 192-wide column, and the unswapped three-tile and one-token-tile forms of the band;
# at 225-256 rows from TWO_64_COLUMNS_END_N to MID_N two 128-wide token tiles under 64-row weight tiles beside the
# 128x128 tile of MID_N and the two columns under a 128-row weight tile. And where run 85's tiles of MID_N
# still ran 0.77-0.95x cuBLASLt fused (96-128 and 200-216 rows at N = 4352-4544, 68-71 CTAs, run 85:
# bench/plan_waves.py flags them under one wave), the band's unswapped form: two 64-row (81-128 rows) or
# 128-row (193-224) token tiles in a 2x1 cluster under weight tiles N / 64 wide, 72 in steps of 8 (122-128
# CTAs) or 80 (110-114).
WAVE7168_GROUPS = [
    (named("swap 64x72x128 c1x2 pingpong", "swap 128x72x64 c1x2 coop epi128x72"),
     [(136, 4096, 4096), (144, 4096, 4096), (140, 5120, 4096), (136, 6144, 4096), (144, 7040, 4096)]),
    (named("swap 128x96x64 c1x2 coop", "swap 64x192x64 c1x1 pingpong", "64x224x64 c1x1 pingpong",
           "192x80x64 c1x1 pingpong"),
     [(168, 4352, 4096), (176, 5120, 4096), (184, 6144, 4096), (192, 7040, 4096), (168, 6144, 8192)]),
    (named("swap 128x88x64 c1x2 coop epi128x88"), [(168, 4352, 4096), (176, 5120, 4096), (168, 6144, 8192)]),
    (named("128x128x64 c1x1 coop", "swap 128x128x64 c1x2 coop"), [(232, 4352, 4096), (256, 4544, 4096)]),
    (named("64x72x64 c2x1 pingpong", "64x80x64 c2x1 pingpong", "64x72x64 c1x1 pingpong"),
     [(96, 4544, 4096), (104, 4352, 4096), (120, 4352, 4096), (112, 4544, 4096), (128, 4544, 4096)]),
    (named("128x72x64 c2x1 coop", "128x80x64 c2x1 coop"), [(200, 4352, 4096), (208, 4544, 4096),
                                                          (216, 4544, 4096)])]
# Run 86 (cold / warm, every kernel checked into a poisoned out; tiles.py took the winners for 16-bit operands):
# 2 x 72 under 64-row weight tiles 1.18-1.29x the plan's one 144-wide column at 136-144x4096 (behind from 5120, past
# a wave), 2 x 72 under 128-row ones 1.01-1.10x from 5120; at 161-192 rows two columns under a 128-row weight tile
# 1.21-1.80x the two 96-wide token tiles (88 wide at 161-176 +4-8% over 96); 128x128 1.02-1.26x the two 128-wide
# columns at 225-256 rows; two 64-row token tiles under 80-wide weight tiles 1.05-1.17x at 113-128 rows (behind at
# 96-104); at 200-216 rows the 2x1 forms lost or tied.
# wave7168fp8 (written in session 31; its 13 tiles compiled on the 2-core machine in 327 s, 168 registers each, no
# spills): run 86's forms, which 16-bit operands took, with fp8 scaled, with
# and without fast accumulation (fp8 keeps its tiles there until timed): two 72-wide columns under 64-row weight
# tiles at 129-144 rows (N = 4096); two columns under a 128-row weight tile from N = 4225 at 129-192 rows (72, 88,
# 96 wide); 128x128 at 225-256 rows and two 64-row token tiles under 80-wide weight tiles at 113-128 (N = 4352-4544).
# And bf16 at 145-160 rows, N = 4352-7040, the one form run 86 left untimed: two 80-wide columns under a 128-row
# weight tile (the form of LARGE_N) beside the plan's one 160-wide column.
WAVE7168_FP8_GROUPS = [
    ("swap 64x72x128 c1x2 pingpong", [(136, 4096, 4096), (144, 4096, 4096)]),
    ("swap 128x72x128 c1x2 coop", [(140, 5120, 4096), (144, 7040, 4096)]),
    ("swap 128x88x128 c1x2 coop", [(168, 4352, 4096), (176, 5120, 4096), (168, 6144, 8192)]),
    ("swap 128x96x128 c1x2 coop", [(184, 6144, 4096), (192, 7040, 4096)]),
    ("128x128x128 c1x1 coop", [(232, 4352, 4096), (256, 4544, 4096)]),
    ("64x80x128 c2x1 pingpong", [(120, 4352, 4096), (128, 4544, 4096)])]
WAVE7168_BF16_160 = (named("swap 128x80x64 c1x2 coop epi128x80"),
                     [(150, 4352, 4096), (152, 5120, 4096), (160, 6144, 4096), (156, 7040, 4096)])
# Run 87 (cold / warm; tiles.py took what won for 8-bit operands): with and without fast accumulation every form won
# but the 113-128-row one without it (0.97-0.98x): 64x72 c1x2 1.21-1.30x at 136-144x4096, the 128-row two-column form
# 1.00-1.65x at 129-192 rows, 128x128 1.02-1.50x at 225-256. bf16 2 x 80 at 145-160 rows 1.00-1.08x the one
# 160-wide column from 5120, 0.97 / 1.00x at 150x4352 (taken from MID_N).
# nvjet4352 (session 32): what cuBLAS runs at N = 4352-4544 where the plan trails cuBLASLt fused (library_kernels.py,
# h200_library_kernels.log session 32): at 200-232 rows nvjet 128x72 / 128x80 _4x1, three swapped token columns
# under 128-row weight tiles, the token tile multicast over a 4x1 cluster (4 x 27 = 108 CTAs); at 96 rows 64x96 _4x1
# with 64 elements of K in 10 stages (the plan: the same 96-wide column, no cluster, 128 of K).
NVJET4352_GROUPS = [
    (named("swap 64x96x64 c4x1 pingpong", "swap 64x96x128 c4x1 pingpong"), [(96, 4544, 4096), (96, 4352, 4096)]),
    (named("swap 128x72x64 c4x1 coop"), [(200, 4352, 4096), (216, 4544, 4096)]),
    (named("swap 128x80x64 c4x1 coop epi128x80", "swap 128x88x64 c4x1 coop"), [(232, 4352, 4096), (240, 4544, 4096),
                                                                             (256, 4544, 4096)])]
# Run 88 (cold / warm; tiles.py took the winners for 16-bit operands at N = 4225-4607): the 96-wide column 64 of K
# c4x1 1.02-1.16x the plan's, 128 of K c4x1 0.99-1.14x; three 80-wide columns 1.01-1.10x 128x128 at 232-240 rows (at
# 256 four of them: 239 / 240), three 88-wide 1.07-1.08x at 256; three 72-wide 0.87-0.99x the plan at 200-216 rows.
# nvjet4352more (session 32, run 89 in session 33; its 11 tiles compiled on the 2-core machine, 168 registers, no
# spills):
# run 88's forms with fp8 scaled, with and without fast accumulation (8-bit keeps 64x96x128 at 81-96 rows and 128x128
# at 225-256 there), with fp8 the two 80-wide columns bf16 took from MID_N at 145-160 rows (run 87), and with bf16
# run 88's forms from MID_N, while three columns make up to 132 CTAs.
NVJET4352_FP8_GROUPS = [
    ("swap 64x96x128 c4x1 pingpong", [(96, 4544, 4096), (96, 4352, 4096)]),
    ("swap 128x80x128 c4x1 coop epi128x80", [(232, 4352, 4096), (240, 4544, 4096)]),
    ("swap 128x88x128 c4x1 coop", [(256, 4544, 4096)]),
    ("swap 128x80x128 c1x2 coop epi128x80", [(152, 5120, 4096), (160, 6144, 4096), (156, 7040, 4096)])]
NVJET4352_BF16_MID_N = [
    (named("swap 64x96x64 c4x1 pingpong"), [(96, 4608, 4096), (96, 5120, 4096), (88, 6144, 4096)]),
    (named("swap 128x80x64 c4x1 coop epi128x80", "swap 128x88x64 c4x1 coop"), [(240, 4608, 4096), (232, 5120, 4096),
                                                                             (256, 5120, 4096)])]
# Run 89 (cold / warm; tiles.py took the winners): fp8 three columns 1.02-1.16x 128x128 at 232-256 rows, with and
# without fast accumulation; fp8 2 x 80 at 145-160 rows from MID_N 1.01-1.06x (fast) and 1.20-1.23x (plain) the one
# 160-wide column; fp8's 96-wide column c4x1 0.98-1.02x (not taken); bf16 from MID_N the 96-wide column c4x1
# 1.02-1.17x, three 80- / 88-wide columns 1.00-1.15x.
# stages4352 (session 33): at 232x4352x4096 our 128x80 c4x1 (108 CTAs) ran 0.75-0.8x nvjet's same tile and cluster
# (128x80_64x8_4x1, 8 stages; ours 7), and ncu put a third of our warps' stall samples on the mainloop's wait for a
# full stage (h200_ncu_source.log, session 33). 8 stages fit beside 16-wide epilogue subtiles (16-bit: 26 KiB a
# stage); 6 stages, and the same tile with no or a 2x1 cluster, say how much depth and multicast matter.
STAGES4352_BF16 = named("swap 128x80x64 c4x1 coop epi128x80", "swap 128x80x64 c4x1 coop epi128x80 s6",
                        "swap 128x80x64 c4x1 coop epi128x16", "swap 128x80x64 c4x1 coop epi128x16 s7",
                        "swap 128x80x64 c2x1 coop epi128x80", "swap 128x80x64 c1x1 coop epi128x80")
STAGES4352_FP8 = named("swap 128x80x128 c4x1 coop epi128x80", "swap 128x80x128 c4x1 coop epi128x16")
STAGES4352_SHAPES = [(232, 4352, 4096), (240, 4544, 4096), (232, 5120, 4096)]
# c1x1more (session 33): run 90 put the 128x80 c1x1 (no cluster) 1.22-1.33x ahead of the same tile in the plan's
# 4x1 cluster; the same with 88-wide columns, fp8, and the 96-row column.
C1X1_BF16 = named("swap 128x88x64 c4x1 coop", "swap 128x88x64 c1x1 coop", "swap 64x96x64 c4x1 pingpong",
                  "swap 64x96x64 c1x1 pingpong")
C1X1_BF16_SHAPES = [(256, 4544, 4096), (256, 5120, 4096), (96, 4544, 4096), (96, 6144, 4096)]
C1X1_FP8 = named("swap 128x80x128 c1x1 coop epi128x80", "swap 128x88x128 c1x1 coop")
C1X1_FP8_SHAPES = [(232, 4352, 4096), (240, 4544, 4096), (256, 4544, 4096)]
# c1x1wide (session 33): the one column from WIDE_N (one_column, 4x1 cluster) beside the same tile with none.
C1X1_WIDE_GROUPS = [
    (named("swap 128x240x64 c4x1 coop epi128x48", "swap 128x240x64 c1x1 coop epi128x48"), [(240, 14336, 4096)]),
    (named("swap 128x128x64 c4x1 coop", "swap 128x128x64 c1x1 coop"), [(128, 14336, 4096), (120, 12288, 4096)]),
    (named("swap 128x208x64 c4x1 coop", "swap 128x208x64 c1x1 coop"), [(200, 14336, 4096)])]
# nocluster (session 33, run 93 in session 34): run
# 90 found the three token columns 1.20-1.34x faster without cuBLAS's 4x1 cluster; here the plan's other clusters
# below WIDE_N beside the same tile with none: the 33-64-row token tiles (4x1 at MID_N-7167, 2x1 above), the two
# columns under one 128-row weight tile (1x2), the band's unswapped tiles (2x1) and 192-row ones (1x2), and three
# 72- / 80-wide columns at 200-216 rows with no cluster (72 wide in a 4x1 one lost, run 88).
NOCLUSTER_GROUPS = [
    (named("swap 64x48x128 c4x1 pingpong", "swap 64x48x128 c1x1 pingpong"), [(48, 6144, 4096)]),
    (named("swap 64x64x128 c4x1 pingpong", "swap 64x64x128 c1x1 pingpong"), [(64, 6144, 4096), (64, 5120, 8192)]),
    (named("swap 64x40x128 c2x1 pingpong", "swap 64x40x128 c1x1 pingpong"), [(40, 8192, 4096)]),
    (named("swap 128x72x64 c1x2 coop", "swap 128x72x64 c1x1 coop"), [(136, 8192, 4096)]),
    (named("swap 128x104x64 c1x2 coop", "swap 128x104x64 c1x1 coop"), [(200, 8192, 4096), (200, 4352, 4096)]),
    (named("swap 128x72x64 c1x1 coop", "swap 128x80x64 c1x1 coop epi128x80"), [(200, 4352, 4096), (216, 4544, 4096)]),
    (named("128x144x64 c2x1 coop", "128x144x64 c1x1 coop"), [(240, 9216, 4096)]),
    (named("64x144x64 c2x1 pingpong", "64x144x64 c1x1 pingpong"), [(120, 9216, 4096)]),
    (named("swap 192x96x64 c1x2 pingpong", "swap 192x96x64 c1x1 pingpong"), [(184, 12288, 4096)])]
# Run 93 (cold / warm): the plan's clusters tie or lead the same tile with none (0.97-1.13x), so they stay; three
# 72-wide columns with no cluster 1.10-1.15x cuBLASLt fused at 200x4352 and 216x4544 (390 / 404 and 434 / 450 vs the
# plan's two 104- / 112-wide columns in a 1x2 cluster, 314 / 314 and 337 / 335), 80-wide 348 / 330 and 402 / 419.
# nocluster193 (session 34): tiles.py takes those for 16-bit operands at 193-224 rows (72 wide to 208, 80 above) from
# TWO_64_COLUMNS_END_N to THREE_COLUMNS_END_N; here across that range beside the tiles they replaced (the 1x2 two
# columns), below it beside the two columns under 64-row weight tiles, and with fp8 scaled (plan unchanged).
NOCLUSTER193_BF16 = [
    (named("swap 128x104x64 c1x2 coop", "swap 128x72x64 c1x1 coop"),
     [(200, 4096, 4096), (200, 5120, 4096), (208, 5600, 4096), (196, 4608, 8192)]),
    (named("swap 128x112x64 c1x2 coop epi128x112", "swap 128x80x64 c1x1 coop epi128x80"),
     [(216, 4096, 4096), (224, 4352, 4096), (224, 5120, 4096), (212, 5600, 4096)])]
NOCLUSTER193_FP8 = (("swap 128x72x128 c1x1 coop", "swap 128x80x128 c1x1 coop epi128x80"),
                    [(200, 4352, 4096), (216, 4544, 4096), (208, 5120, 4096)])
# Run 94 (cold / warm): bf16 72 wide 1.11-1.29x the 1x2 two columns, 80 wide 1.01-1.25x; fp8 scaled 1.13-1.26x
# (tiles.py takes both widths for 16- and 8-bit operands); at 200x4096 the 72 columns 1.13-1.15x the plan's two
# columns under 64-row weight tiles, at 216x4096 the 80 ones 0.93-0.98x.
# threecols (session 34; run 95, below; its 5 new tiles compiled on the 2-core machine in 153 s, 168 registers, no
# spills): cuBLAS splits 200-232 rows into three token columns (run 88's nvjet 128x72 /
# 128x80), and without a cluster they beat the plan's two columns (runs 90-94). The same split at fewer rows, from
# TWO_64_COLUMNS_END_N, where the plan's two columns (or one 112- / 160-wide one) make 68-80 CTAs: three 40- to
# 64-wide columns make 3 x ceil(N / 128) (102 at N = 4352); at 104 rows also the two 56-wide columns with no
# cluster; and the 72-wide three columns at 200 rows below TWO_64_COLUMNS_END_N (run 94 found them ahead at 4096).
THREECOLS_GROUPS = [
    (named("swap 128x40x64 c1x1 coop", "swap 128x56x64 c1x1 coop"), [(104, 4352, 4096), (104, 4544, 4096)]),
    (named("swap 128x48x64 c1x1 coop"), [(136, 4352, 4096), (136, 5120, 4096)]),
    (named("swap 128x56x64 c1x1 coop"), [(152, 4352, 4096), (160, 5120, 4096)]),
    (named("swap 128x64x64 c1x1 coop"), [(168, 4352, 4096), (184, 5120, 4096)]),
    (named("swap 128x72x64 c1x1 coop"), [(200, 2048, 4096), (200, 3072, 4096), (200, 3840, 4096)])]
# Run 95 (threecols, session 35; cold / warm): from TWO_64_COLUMNS_END_N three no-cluster columns beat the plan at
# 129-192 rows, 1.04-1.18x (136x4352x4096 3 x 48 286 / 311 vs 266 / 279, 152x4352 3 x 56 322 / 331 vs 274 / 285,
# 184x5120 3 x 64 412 / 424 vs 357 / 358; 1.14-1.52x cuBLASLt fused); at 104 rows 3 x 40 227 / 230 and 2 x 56
# 224 / 243 vs the plan's 212 / 234. Below TWO_64_COLUMNS_END_N at 200 rows the 72-wide three columns lost at 2048
# (0.94-0.96x the plan), tied at 3072 and led at 3840 (1.06 / 1.16x); cuBLASLt fused led both (the plan 0.72-0.87x,
# the columns 0.76-0.89x).
# threecolsmore (session 35): the rest of the three columns' bands before taking them: 113-128 rows (3 x 48), the
# bands' edges (161-168 rows 3 x 56 or 64; 5600, next to THREE_COLUMNS_END_N), 81-112 rows (3 x 32, 2 x 48, 3 x 40,
# 2 x 56 without a cluster), and fp8 scaled at 129-192 rows.
THREECOLS_MORE_BF16 = [
    (named("swap 128x32x64 c1x1 coop", "swap 128x48x64 c1x1 coop"), [(88, 4544, 4096), (96, 4352, 4096)]),
    (named("swap 128x40x64 c1x1 coop", "swap 128x56x64 c1x1 coop"), [(112, 4352, 4096), (112, 5120, 4096)]),
    (named("swap 128x48x64 c1x1 coop"), [(120, 4352, 4096), (128, 4544, 4096), (128, 5600, 4096), (144, 5600, 4096)]),
    (named("swap 128x56x64 c1x1 coop", "swap 128x64x64 c1x1 coop"), [(164, 4352, 4096), (160, 5600, 4096)]),
    (named("swap 128x64x64 c1x1 coop"), [(176, 5600, 4096), (192, 4352, 4096), (192, 5600, 4096)])]
THREECOLS_MORE_FP8 = (("swap 128x48x128 c1x1 coop", "swap 128x56x128 c1x1 coop", "swap 128x64x128 c1x1 coop"),
                      [(136, 4352, 4096), (152, 4544, 4096), (184, 5120, 4096)])
# Run 96 (cold / warm): bf16 2 x 56 at 112 rows 1.05-1.08x the plan, 3 x 48 at 144x5600 1.05-1.08x, 3 x 56 at
# 160x5600 1.03-1.15x, 3 x 64 at 176-192 rows 1.09-1.27x (at 164x4352 1.11 / 1.01x, 3 x 56 1.20 / 1.28x); fp8
# scaled 1.09-1.22x with fast accumulation, 1.09-1.33x without (tiles.py takes them at 97-112 rows for 16-bit
# operands, at 129-192 for 16- and 8-bit). Not taken: 3 x 48 at 113-128 rows (0.86-0.95x but 1.02-1.06x at
# 128x5600), 3 x 32 at 88-96 (0.94-1.03x).
# low200 (session 35): 200 rows below TWO_64_COLUMNS_END_N, where the plan's two 112-wide columns under 64-row weight
# tiles in a 1x2 cluster ran 0.72-0.87x cuBLASLt fused at N = 2048-3840 (run 95). cuBLAS there (library_kernels.py,
# session 35): nvjet 64x72 _4x1 (three 72-wide columns, the token tile multicast over four weight tiles; 96 CTAs) at
# 2048, 64x104 _4x2 (two 104-wide columns, 4x2 clusters) at 3072-3840; both with 64 elements of K.
LOW200_TILES = named("swap 64x72x64 c4x1 pingpong", "swap 64x104x64 c4x2 pingpong", "swap 64x104x64 c1x2 pingpong")
LOW200_SHAPES = [(200, 2048, 4096), (200, 3072, 4096), (200, 3840, 4096)]
# low200more (session 35, after low200 ran 1.14-1.25x the plan): the 64-element K of cuBLAS's tiles, with 104- and
# 112-wide columns in 1x2 and 4x2 clusters, at 193-224 rows over the rest of N below TWO_64_COLUMNS_END_N.
LOW200_MORE = [(named("swap 64x104x64 c1x2 pingpong", "swap 64x104x64 c4x2 pingpong"), [(200, 1024, 4096),
                                                                                      (200, 4096, 4096)]),
               (named("swap 64x112x64 c1x2 pingpong", "swap 64x112x64 c4x2 pingpong"),
                [(216, 2048, 4096), (216, 3072, 4096), (216, 4096, 4096)])]
# Runs 98-99 (cold / warm): 64x104x64 in the plan's 1x2 cluster 1.12-1.27x the plan's 64x112x128 at 200 rows,
# N = 1024-4096 (200x3840 387 / 418 vs 327 / 341), cuBLAS's 4x2 cluster 1.02-1.08x the 1x2 one at N <= 2048, level
# at 3072-3840, 0.65-0.69x at 4096, its 64x72 _4x1 three columns behind from 3072; at 216 rows 64x112x64 c1x2
# 1.01-1.07x the plan (tiles.py takes both for 16-bit operands). cuBLASLt fused still leads at N <= 3840: 0.80-0.99x.
# lowk (session 35): runs 98-99 found 64 elements of K (10 stages) 1.01-1.27x 128 (5) for 16-bit
# operands at 193-224 rows below TWO_64_COLUMNS_END_N; the plan's other two-column tiles under 64-row weight tiles
# there (65-192 rows) take 128 (5-8 stages). Each beside the same tile with 64.
LOWK_GROUPS = [(named(f"swap 64x{width}x64 {cluster} pingpong"), shapes) for width, cluster, shapes in (
    (40, "c1x2", [(72, 2048, 4096), (72, 4096, 4096)]), (48, "c1x2", [(88, 4096, 4096)]),
    (56, "c1x2", [(104, 2048, 4096), (104, 4096, 4096)]), (64, "c1x1", [(120, 4096, 4096)]),
    (72, "c1x2", [(136, 4096, 4096)]), (80, "c1x2", [(152, 4096, 4096)]), (96, "c1x1", [(184, 4096, 4096)]))]
# fit8 (session 35): at 97-128 rows from N = 4544 the plan trails cuBLASLt fused (0.85-0.98x warm, run
# 96), whose nvjet 72x64 / 80x64 / 88x64 _1x2 there (grid 2 x 64) reads as two 64-row token tiles under weight tiles
# ceil(N / 64) wide in steps of 8 with 64 of K: the plan's unswapped fitted form (tiles.py fitted(64, width)), which
# it runs in steps of 16 from N = 8449 and 80 wide at 113-128 rows from 4225 to 4607.
FIT8_GROUPS = [(named(f"64x{width}x64 c2x1 pingpong"), shapes) for width, shapes in (
    (72, [(128, 4544, 4096), (120, 4608, 4096)]), (80, [(112, 5120, 4096), (104, 5120, 4096)]),
    (88, [(128, 5600, 4096), (112, 5600, 4096)]))]
# Runs 100-101 (cold / warm): fit8 at 113-128 rows from MID_N 1.05-1.19x the plan's 128x64 cooperative tile
# (120x4608x4096 64x72 259 / 316 vs 242 / 265, 128x5600 64x88 313 / 352 vs 298 / 307), level with the plan's 64x80
# at 128x4544; at 97-112 rows 0.91-1.04x (104x5120 230 / 234 vs 247 / 256). lowk: 64 of K 0.90-1.05x 128 (104x2048
# 140 / 148 vs 133 / 147; 184x4096 347 / 352 vs 370 / 383), so the plan keeps 128.
# fit8more (session 36): the fitted form in steps of 8 over the rest of 113-128 rows from MID_N to TALL_N (the plan:
# 128x64 cooperative to LARGE_N, then two 64-wide swapped columns in a 1x2 cluster), and at 97-112 rows above
# THREE_COLUMNS_END_N (the plan: one 112-wide column under 64-row weight tiles, then two 56-wide ones from LARGE_N).
FIT8_MORE_GROUPS = [(named(f"64x{width}x64 c2x1 pingpong"), shapes) for width, shapes in (
    (80, [(124, 5120, 4096)]), (88, [(120, 5632, 4096)]), (96, [(128, 6144, 4096), (116, 6144, 4096),
                                                               (112, 6144, 4096)]),
    (104, [(120, 6656, 4096)]), (112, [(124, 7040, 4096), (128, 7168, 4096), (108, 7040, 4096)]),
    (120, [(120, 7680, 4096)]), (128, [(128, 8192, 4096), (112, 8192, 4096)]), (136, [(120, 8448, 4096)]))]
# Run 102 (cold / warm): 1.01-1.21x the plan's 128x64 cooperative tile at 113-128 rows from MID_N to LARGE_N
# (124x5120 286 / 356 vs 267 / 295, 116x6144 299 / 319 vs 268 / 268, 124x7040 327 / 317 vs 318 / 315); from
# LARGE_N behind the plan's two swapped columns (128x7168 0.96x, 120x8448 0.87-0.90x). tiles.py takes it for
# 16-bit operands (9a7811c); run 103 timed the plan after it, running the probe's tiles (0.95-1.00x cuBLASLt fused
# warm at 124x5120-124x7040, where it had run 0.80-0.91x).
# fit8low (session 36): the same form at 97-112 rows from THREE_COLUMNS_END_N to LARGE_N, where run 102 had it
# 1.05-1.06x the plan's one 112-wide column at 112x6144 but level at 108x7040.
FIT8_LOW_GROUPS = [(named(f"64x{width}x64 c2x1 pingpong"), shapes) for width, shapes in (
    (96, [(100, 6144, 4096), (104, 6144, 4096)]), (104, [(104, 6656, 4096), (112, 6656, 4096)]),
    (112, [(100, 7040, 4096), (112, 7040, 4096)]))]
# Run 103 (fit8low, cold / warm): 0.94-1.04x the plan (100x7040 240 / 245 vs 255 / 260, 104x6144 256 / 260 vs
# 249 / 250): not taken.
# twin (session 36): at 72x4096x4096 and 104x4096x4096 cuBLAS runs the very tiles the lowk case timed (nvjet
# 64x40_64x16 and 64x56_64x14 _1x2, h200_library_kernels.log session 24: 64 elements of K, 16 and 14 stages, as
# ours), yet ours ran 0.91-0.96x it warm (runs 100-101). Over K, with and without the epilogue: a gap constant in
# microseconds is a fixed cost (prologue, epilogue), one growing with K the mainloop.
TWIN_TILES = named("swap 64x40x64 c1x2 pingpong", "swap 64x56x64 c1x2 pingpong", "swap 64x56x128 c1x2 pingpong")
TWIN_SHAPES = [(M, 4096, k) for M in (72, 104) for k in (1024, 4096, 16384)]
# Run 104 (warm): without the epilogue, against cuBLAS mm, ours took 0.33-0.37 us longer at K = 1024 (72: 6.86 vs
# 6.49 us) and 0.36-0.57 us at 4096 (104: 12.78 vs 12.42 us with 128 of K): a gap that stops growing with K while
# the weights (32 MiB at 4096) stay in L2; at 16384 (128 MiB, past L2) ours streams them from memory 3.4-3.9 us
# faster (1.09-1.10x: 104 350 vs 319 TFLOP/s). So k_fit.py's straight line over these three K mixes two regimes.
# The bias+gelu epilogue cost ours 0.2-0.3 us, cuBLASLt's 0.3-0.6 (72x4096x4096: ours 197 / 201 TFLOP/s with /
# without, cuBLAS 201 / 211), so the epilogue is not where the gap is.
# fixedcost (session 36, after run 104): where the half microsecond goes. At K = 64 (one mainloop iteration) a call
# is nearly all fixed cost; the twin tile in its 1x2 cluster, with no cluster (no cluster barrier at start), and with
# 4 stages (fewer barriers to initialise, fewer loads in flight at start), with and without the epilogue.
FIXED_COST_TILES = named("swap 64x56x64 c1x2 pingpong", "swap 64x56x64 c1x1 pingpong", "swap 64x56x64 c1x2 pingpong s4")
FIXED_COST_SHAPES = [(104, 4096, 64), (104, 4096, 256), (104, 4096, 1024)]
# Run 105 (warm; TFLOP/s in whole numbers, hence the per-round ratios): without the epilogue ours 0.956x cuBLAS mm at
# K = 64 (about 0.2 us of its ~5 us), 0.960x at 256, 0.94x at 1024 (122 vs 130 TFLOP/s: 7.15 vs 6.71 us); no cluster
# the same, 4 stages the same to 256 and 0.75x at 1024. So about 0.2 us at the start, and the gap grows to 0.4-0.5 us
# over the first thousand of K, then holds to 4096 (run 104): the loads' ramp, not the cluster, the barriers or the
# epilogue. Next: ncu (source page, stall reasons) beside nvjet at 104x4096x1024. The probe now prints the
# median microseconds of calls under 50 us.
# weightsfirst (session 36, after run 105): the swapped tiles load the weights EVICT_FIRST (lower.LOAD_HINTS, probe
# runs 40-41 at decode, where the weights outgrow L2). At 72-104x4096x4096 the weights (32 MiB) fit in L2, and
# ours ran level or ahead of cuBLASLt fused cold but 0.92-0.94x warm (run 100): each tile as shipped and with
# CUTLASS's own loads, cold and warm.
class Setting(dict):
    """A LOAD_HINTS value that prints as its name in the probe's labels."""
    def __init__(self, name: str, value: dict):
        super().__init__(value)
        self.name = name

    def __str__(self) -> str:
        return self.name


WEIGHTS_FIRST_VARIANTS = ("LOAD_HINTS", (
    Setting("weights_first", {"a": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"},
                              "b": {"swap_ab": "EVICT_FIRST", "plain": "EVICT_NORMAL"}}),
    Setting("cutlass", {"a": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"},
                        "b": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"}})))
WEIGHTS_FIRST_GROUPS = [(named("swap 64x56x128 c1x2 pingpong", "swap 64x56x64 c1x2 pingpong"), [(104, 4096, 4096),
                                                                                              (104, 4096, 1024)]),
                        (named("swap 64x40x128 c1x2 pingpong"), [(72, 4096, 4096)]),
                        (named("swap 64x64x128 c4x1 pingpong"), [(64, 6144, 4096)])]
# Run 106 (warm twice, 5 and 9 rounds, then cold): with CUTLASS's own loads 1.5-2.4% faster warm at 104x4096x4096
# on the 64-of-K tile (11.82 / 11.87 vs 12.00 / 12.16 us), 0.2-1% with 128 of K, 0-1.6% at 72x4096x4096, level at
# 104x4096x1024; at 64x6144x4096 (48 MiB of weights) EVICT_FIRST 2.8-3.8% faster warm (17.87 / 17.92 vs 18.38 /
# 18.61 us); cold all within 0.7%. Too small and mixed to make the policy depend on the shape: unchanged. On this
# machine the plan ran 0.98-0.99x cuBLASLt fused warm at 104x4096x4096 (12.14 / 12.30 vs 12.00 us; run 100: 0.92x)
# and 1.02x cuBLAS mm warm at 64x6144x4096 (17.97 / 18.11 vs 18.37 / 18.53 us; 0.99x cold).
# twin200 (session 37): at 200x2048x4096 cuBLAS runs nvjet 64x72_64x12 _4x1, grid 4 x 24 (four weight tiles share
# a token tile); our copy of it (same tile, 12 stages, cluster and grid) took 24% more cycles under ncu (24,906 vs
# 20,058; the plan's 64x104x64 c1x2 27,463), its consumer waiting on full stages (19.5% of stall samples on the
# barrier's try-wait) and reading 34% more L2 sectors (2.36 M vs 1.76 M; the same 1.35x at 104x4096x1024, where the
# kernel times are level). The copy with CUTLASS's own loads (no EVICT_FIRST weights: each weight tile is read by
# three token tiles here), and with smaller clusters.
TWIN200_TILES = named("swap 64x72x64 c4x1 pingpong", "swap 64x72x64 c2x1 pingpong", "swap 64x72x64 c1x1 pingpong")
TWIN200_SHAPES = [(200, 2048, 4096)]
# Run 107 (warm / cold, us): the copy 13.57 / 15.14, with CUTLASS's own loads the same; no cluster 12.90 / 13.65,
# 0.98 / 0.97x cuBLASLt fused (12.62 / 13.26) and 1.10 / 1.13x the plan (14.24 / 15.47); the 2x1 cluster 15.87 /
# 16.85. Under ncu the SMs' own L2 reads (srcunit tex) of the copy 1.96 M sectors, of no cluster 1.73-1.78 M, of
# nvjet 1.72-1.73 M: with no cluster ours reads what nvjet reads.
# nocluster200 (session 37, after run 107): three no-cluster token columns under 64-row weight tiles, 64 of K, at
# 193-224 rows where 3 x N / 64 CTAs fit a wave (N <= 2816), against the plan's two columns in a 1x2 cluster.
NOCLUSTER200_GROUPS = [
    (named("swap 64x72x64 c1x1 pingpong"), [(200, 1024, 4096), (200, 2048, 4096), (208, 2816, 4096),
                                            (196, 1536, 4096)]),
    (named("swap 64x80x64 c1x1 pingpong"), [(216, 1024, 4096), (216, 2048, 4096), (224, 2816, 4096),
                                            (212, 2560, 4096)])]
# Run 108 (cold / warm): 72 wide 1.07-1.12x the plan at 196-208 rows to N = 2816 (200x2048 245 / 249 vs 218 / 231);
# 80 wide 1.08-1.15x at 216x1024-2048, 0.85-0.95x at 212x2560 and 224x2816. tiles.py takes them for 16-bit operands
# below THREE_64_COLUMNS_END_N and THREE_80_COLUMNS_END_N (run 109: the plan then ran the probe's tiles).
# nocluster216 (session 37, after the plan took run 108's columns): the 80-wide columns at 209-224 rows against the
# two 112-wide columns they replaced, side by side on one machine (after the change the plan ran 233 at 216x2048
# warm, against 248 for the columns in run 108).
NOCLUSTER216_TILES = named("swap 64x80x64 c1x1 pingpong", "swap 64x112x64 c1x2 pingpong")
NOCLUSTER216_SHAPES = [(216, 1024, 4096), (216, 2048, 4096), (212, 1536, 4096), (224, 2048, 4096)]
# Run 110 (warm, 9 rounds): 1.01-1.13x (216x1024 135 vs 119, 216x2048 232 vs 229, 224x2048 268 vs 237).
# nocluster2col (session 37, after run 107 found our multicast slower than none at 200x2048): the plan's two token
# columns under 64-row weight tiles in their 1x2 cluster (65-160 rows below N = 4225) against the same tiles with no
# cluster.
NOCLUSTER_2COL_GROUPS = [(named("swap 64x56x128 c1x1 pingpong"), [(104, 2048, 4096)]),
                         (named("swap 64x72x128 c1x1 pingpong"), [(136, 2048, 4096)]),
                         (named("swap 64x80x128 c1x1 pingpong"), [(152, 4096, 4096)])]
# Run 111 (warm / cold): no cluster 1.03 / 1.08x the plan at 104x2048 (153 / 142 vs 149 / 132), 1.08 / 1.10x at
# 136x2048 (184 / 173 vs 171 / 157), 1.02 / 0.99x at 152x4096. One shape each: not taken yet.
# nocluster2colgrid (session 38, run 111 widened): the same, every bucket whose two columns run in a 1x2 cluster
# (65-80, 81-96, 97-112, 129-144, 145-160 rows; 113-128 and 161-192 already have none), two row counts each, N =
# 1024-4096, and fp8 scaled at two buckets.
NOCLUSTER_2COL_GRID_N = (1024, 2048, 3072, 4096)
NOCLUSTER_2COL_GRID = [(named(f"swap 64x{width}x128 c1x1 pingpong"), [(m, n, 4096) for m in rows
                                                                       for n in NOCLUSTER_2COL_GRID_N])
                       for width, rows in ((40, (72, 80)), (48, (88, 96)), (56, (104, 112)), (72, (136, 144)),
                                           (80, (152, 160)))]
NOCLUSTER_2COL_GRID_FP8 = [(("swap 64x56x128 c1x1 pingpong",), [(104, 2048, 4096), (104, 4096, 4096)]),
                           (("swap 64x72x128 c1x1 pingpong",), [(136, 2048, 4096), (136, 4096, 4096)])]
# Run 112 (warm / cold, no cluster against the plan's cluster): bf16 1.03-1.08x / 1.05-1.10x at N = 2048 (112x2048
# 167 / 152 vs 155 / 138), 1.00-1.05x / 1.00-1.06x at 1024, mixed at 3072 (0.95-1.01x / 0.93-1.02x) and 4096
# (0.95-1.06x / 0.90-1.00x); fp8 scaled 0.98-1.02x. tiles.py takes it for 16-bit operands below
# TWO_COLUMNS_MULTICAST_N (2049, then 2561 after run 113).
# nocluster2colwide (session 38): at 193-224 rows above the three no-cluster columns (from THREE_64_COLUMNS_END_N /
# THREE_80_COLUMNS_END_N to 4224) the plan's two columns in a 1x2 cluster, against the same with none.
NOCLUSTER_2COL_WIDE = [(named("swap 64x104x64 c1x1 pingpong"), [(200, 3072, 4096), (208, 3584, 4096),
                                                                (204, 4096, 4096)]),
                       (named("swap 64x112x64 c1x1 pingpong"), [(216, 2560, 4096), (216, 3072, 4096),
                                                                (212, 3584, 4096), (224, 4096, 4096)])]
# Run 112: 0.93-1.03x warm, 0.99-1.04x cold (200x3072 316 / 322 vs 338 / 311): not taken.
# nocluster2colmid (session 38, after run 112 and the plan's TWO_COLUMNS_MULTICAST_N = 2049): both forms between
# the N that run 112 timed (2304-2816) and at K = 8192, at other rows of each bucket.
NOCLUSTER_2COL_MID = [(named(f"swap 64x{width}x128 c1x1 pingpong", f"swap 64x{width}x128 c1x2 pingpong"),
                       [(m, n, 4096) for n in (2304, 2560, 2816)] + [(m, 2048, 8192)])
                      for width, m in ((40, 76), (48, 92), (56, 108), (72, 140), (80, 156))]
# Run 113 (warm / cold, no cluster against the cluster): 0.99-1.03x / 1.02-1.09x at N = 2304-2560 (108x2560 190 /
# 178 vs 185 / 171), 0.96-1.01x / 1.01-1.03x at 2816, 1.02-1.07x / 1.09-1.10x at 2048x8192 (where the plan had
# taken it). TWO_COLUMNS_MULTICAST_N moved to 2561; run 114 (9 rounds, warm): 108x2304 174 vs 170, 108x2560 189 vs
# 184, the plan the no-cluster tile.
# cluster4x2 (session 38, run 115 in session 39): cuBLAS's own form at 108x2560x4096 (nvjet 64x56_64x14 _4x2: the
# two token columns under 64-row weight tiles with 64 of K, in a 4x2 cluster that multicasts both operands;
# h200_ncu_source.log session 38) beside the plan at 65-160 rows, N = 2048-4096, and the same tile with no cluster
# (64 of K alone).
CLUSTER_4X2 = [(named(f"swap 64x{width}x64 c4x2 pingpong", f"swap 64x{width}x64 c1x1 pingpong"),
                [(m, n, 4096) for n in (2048, 2560, 4096)])
               for width, m in ((40, 76), (48, 92), (56, 108), (72, 140), (80, 156))]
# Run 115 (warm / cold): the 4x2 cluster 0.97-1.04x the same tile with none at N = 2048-2560 (108x2560 184 / 174 vs
# 183 / 176) and 0.63-0.81x at 4096 (108x4096 184 / 175 vs 282 / 227): not taken.
# morecols (session 39): at N <= 2048 the plan's two (65-160 rows) or three (193-224) token columns under 64-row
# weight tiles make 2N / 64 or 3N / 64 CTAs, 32-48 at N = 1024, where the plan ran 0.85-0.90x cuBLASLt fused cold
# (run 112). More, narrower columns: three and four at 65-160 rows (the columns' width in steps of 8), four and five
# at 193-224 with the plan's 64 of K there, beside the plan.
MORE_COLUMNS = [(named(*(f"swap 64x{w}x{k} c1x1 pingpong" for w in widths)), [(m, n, 4096) for n in (1024, 2048)])
                for m, widths, k in ((76, (32, 24), 128), (92, (32, 24), 128), (108, (40, 32), 128),
                                     (140, (48, 40), 128), (156, (56, 40), 128), (200, (56, 40), 64),
                                     (216, (56, 48), 64))]
# Run 115 (warm / cold, against the plan): at N = 1024 four or five columns 1.04-1.25x at 92-216 rows (156x1024 4 x
# 40 125 / 122 vs 100 / 98), 76 rows level; at 2048 three columns 0.99-1.12x at 92-156 rows, four 0.80-1.00x but at 156
# (4 x 40 1.18 / 1.05x) and 216 (4 x 56 1.26 / 1.06x); 200 rows: the plan's three 72-wide columns led.
# morecols2 (session 39, after run 115): the columns' count against N at the other rows of each bucket, 113-128 and
# 161-192 too: three, four and five or six columns (width M / columns in steps of 8) at N = 512-2048.
MORE_COLUMNS_2 = [(named(*(f"swap 64x{w}x{k} c1x1 pingpong" for w in widths)),
                   [(m, n, 4096) for n in (512, 1024, 1536, 2048)])
                  for m, widths, k in ((72, (24, 16), 128), (88, (32, 24, 16), 128), (104, (40, 32, 24), 128),
                                       (120, (40, 32, 24), 128), (136, (48, 40, 24), 128), (152, (56, 40, 32), 128),
                                       (184, (64, 48, 32), 128), (208, (56, 40), 64), (224, (56, 40), 64))]
# Run 116 (warm / cold, against the plan): at N = 512-1024 the narrowest columns led, 1.03-1.36x (184x1024 6 x 32
# 146 / 144 vs 114 / 109); at 1536-2048 three columns 1.01-1.17x at 72-184 rows (0.97 / 1.01x at 104x2048), four or
# more 0.58-1.24x; at 224 rows four 56-wide columns 1.04-1.20x at every N. tiles.NARROW_COLUMNS takes them.
# morecolscheck (session 39, after the plan took runs 115-116's narrow columns, tiles.NARROW_COLUMNS): the plan at
# other rows of each bucket and at N between those timed, beside the tile each bucket ran there before (at 132
# rows also the 48-wide columns with CUTLASS's subtile, where the plan's inherit the 144-wide column's 64x48).
MORE_COLUMNS_CHECK = [(named(*before), [(m, n, 4096) for n in (768, 1024, 1280, 1792)])
                      for m, *before in ((84, "swap 64x48x128 c1x1 pingpong"), (100, "swap 64x56x128 c1x1 pingpong"),
                                         (116, "swap 64x64x128 c1x1 pingpong"),
                                         (132, "swap 64x72x128 c1x1 pingpong", "swap 64x48x128 c1x1 pingpong"),
                                         (148, "swap 64x80x128 c1x1 pingpong"), (168, "swap 64x96x128 c1x1 pingpong"),
                                         (196, "swap 64x72x64 c1x1 pingpong"), (212, "swap 64x80x64 c1x1 pingpong"))]
# Run 117 (warm / cold, the plan against the tile of before): 1.03-1.33x wherever it changed (168x1024 129 / 125 vs
# 97 / 98), 1.00x where it did not (100 and 116 rows from 1025, 196 rows from 1025); at 132 rows the inherited 64x48
# subtile 1.02-1.04x CUTLASS's pick. Against cuBLASLt fused the plan still runs 0.85-1.02x at 84-116 rows but at
# 100x1024 and 116x1024 (100x1280 91 / 87 vs 102 / 93).
# morecolsmid (session 39, after run 117): where tiles.NARROW_COLUMNS kept the buckets' own columns, three to five
# columns at 97-128 rows from N = 1025 to 2048 (the plan there still 0.89-0.96x cuBLASLt fused, run 117), and three
# at 81-96 and 129-192 rows from 2049 to 2816 (3 x 44 CTAs fill 132 SMs), beside the plan.
MORE_COLUMNS_MID = [*((named(*(f"swap 64x{w}x128 c1x1 pingpong" for w in widths)),
                       [(m, n, 4096) for n in (1280, 1536, 1792, 2048)])
                      for m, widths in ((100, (40, 24)), (108, (40, 24)), (116, (48, 32, 24)), (124, (48, 32, 24)))),
                    *((named(f"swap 64x{w}x128 c1x1 pingpong"), [(m, n, 4096) for n in (2304, 2560, 2816)])
                      for m, w in ((84, 32), (92, 32), (132, 48), (140, 48), (148, 56), (156, 56), (168, 64),
                                   (188, 64)))]
# Run 118 (warm / cold, against the plan): 97-112 3 x 40 1.02-1.11x at 1280-1792, 0.94-1.05x at 2048 (5 x 24
# 0.66-0.79x from 1792, past a wave); 113-128 4 x 32 1.05-1.16x at 1280-1536, 1.00-1.06x at 1792, 0.90-1.08x at 2048
# (3 x 48 0.84-1.09x); from 2304 three columns: 81-96 1.06-1.14x at 2304, 0.97-1.08x at 2560; 129-144 1.00-1.09x to
# 2560; 145-160 1.01-1.10x at 2304, 0.92-0.94x at 148x2560; 161-192 1.00-1.15x to 2560, mixed at 2816. The plan took
# each to the last N timed ahead (tiles.NARROW_COLUMNS).
# morecolsmidcheck (session 39, after the plan took run 118's columns): the plan beside the tile each bucket ran
# before, at other rows and N.
MORE_COLUMNS_MID_CHECK = [(named(before), shapes) for before, shapes in (
    ("swap 64x48x128 c1x1 pingpong", [(90, 2304, 4096), (94, 2176, 4096)]),
    ("swap 64x56x128 c1x1 pingpong", [(104, 1280, 4096), (110, 1792, 4096)]),
    ("swap 64x64x128 c1x1 pingpong", [(120, 1280, 4096), (126, 1536, 4096), (114, 1792, 4096)]),
    ("swap 64x72x128 c1x1 pingpong", [(130, 2304, 4096), (142, 2560, 4096)]),
    ("swap 64x80x128 c1x1 pingpong", [(152, 2304, 4096), (146, 2176, 4096)]),
    ("swap 64x96x128 c1x1 pingpong", [(176, 2304, 4096), (164, 2560, 4096), (192, 2432, 4096)]))]
# Run 119 (warm / cold): the plan 1.01-1.14x the tiles of before (120x1280 117 / 112 vs 103 / 99), but 0.97 / 1.04x at
# 146x2176.
# morecolsfp8 (session 39, run in session 40): tiles.NARROW_COLUMNS' widths with fp8 scaled operands (with fast
# accumulation, then without), whose plan kept two columns (in a 1x2 cluster at most of these rows), at N = 1024-2304.
MORE_COLUMNS_FP8 = [(tuple(f"swap 64x{w}x128 c1x1 pingpong" for w in widths),
                     [(m, n, 4096) for n in (1024, 1536, 2304)])
                    for m, widths in ((88, (24, 32)), (120, (32,)), (136, (24, 48)), (152, (40, 56)), (184, (32, 64)))]
# Run 120 (warm, fast accumulation / without, against the plan): the widths NARROW_COLUMNS takes for 16-bit led
# wherever they would run: 1.04-1.26x at N = 1024 (184x1024 6 x 32 175 / 136 vs 154 / 108), 1.02-1.18x at 1536,
# 1.04-1.15x at 2304; cold the same but 136x1536-2304 with fast accumulation (0.98x). Where four or six columns
# passed a wave (144 CTAs: 136x1536 6 x 24, 88x2304 4 x 24) they ran 0.75-0.87x. The plan at 120x2304 (two 64-wide
# columns) led 4 x 32.
# morecolsfp8check (session 40, after the plan gave fp8 NARROW_COLUMNS): the plan at other rows of each bucket
# (97-112 and 193-208 untimed in run 120) beside the tile each bucket ran before; at 140 rows also the 48-wide
# columns with CUTLASS's subtile, where the plan's inherit the 144-wide column's 64x48.
MORE_COLUMNS_FP8_CHECK = [((before,) + extra, [(m, n, 4096) for n in ns]) for m, before, extra, ns in (
    (92, "swap 64x48x128 c1x2 pingpong", (), (768, 1024, 1792, 2304)),
    (104, "swap 64x56x128 c1x2 pingpong", (), (768, 1024, 1536, 2048)),
    (124, "swap 64x64x128 c1x1 pingpong", (), (768, 1024, 1792, 2048)),
    (140, "swap 64x72x128 c1x2 pingpong", ("swap 64x48x128 c1x1 pingpong",), (768, 1024, 1792, 2560)),
    (156, "swap 64x80x128 c1x2 pingpong", (), (768, 1024, 1792, 2304)),
    (170, "swap 64x96x128 c1x1 pingpong", (), (768, 1024, 1792, 2560)),
    (200, "swap 64x112x128 c1x2 pingpong", (), (768, 1024)))]
# Run 121 (fast accumulation / without, warm and cold): the plan 0.99-1.30x / 1.04-1.40x the tiles of before; least
# at 97-112 rows with fast accumulation (104x2048 0.99 / 1.00, 1.04 / 1.07 without), most at 200 rows below 1025
# (six 40-wide columns 1.28-1.30x / 1.38-1.40x); at 140 rows the inherited 64x48 subtile 1.02-1.04x CUTLASS's pick.
# morecolsfp8wide (session 40, after run 121): where 16-bit operands take no-cluster columns that fp8's plan still
# runs as two 112-wide ones in a 1x2 cluster: three 72-wide at 193-208 rows from N = 1025 to 2816, four 56-wide at
# 209-224 rows below 2049 (and the three 80-wide ones before run 115), 128 of K as fp8's other token tiles.
MORE_COLUMNS_FP8_WIDE = [(("swap 64x72x128 c1x1 pingpong",), [(200, n, 4096) for n in (1536, 2048, 2560)]),
                         (("swap 64x56x128 c1x1 pingpong", "swap 64x80x128 c1x1 pingpong"),
                          [(216, n, 4096) for n in (1024, 1536, 2048)])]
# Run 122 (fast accumulation / without, warm and cold, against the plan's two 112-wide columns): three 72-wide
# columns 1.22-1.26x at 200 rows (200x2048 341 / 261 vs 277 / 208 warm), four 56-wide 1.23-1.31x at 216 rows
# (216x1024 206 / 151 vs 162 / 115), three 80-wide 1.08-1.14x. The plan takes the 72- and 56-wide columns for fp8.
# morecolsint8 (session 41): int8 operands (the int8 dequant spec) keep their old tiles where 16-bit and fp8 take
# tiles.NARROW_COLUMNS, whose 24-, 40- and 56-wide columns are off int8's steps of 16: the columns of each bucket in
# steps of 16 (16 to 80 wide, no cluster, 64-row weight tiles) beside the plan at N = 1024-2560.
MORE_COLUMNS_INT8 = [(named(*(f"swap 64x{w}x128 c1x1 pingpong" for w in widths)),
                      [(m, n, 4096) for n in (1024, 1536, 2048, 2560)])
                     for m, widths in ((88, (16, 32)), (104, (32, 48, 64)), (120, (32,)), (136, (32, 48)),
                                       (152, (32, 48, 64)), (184, (32, 64)), (200, (48, 64, 80)), (216, (48, 64, 80)))]
# Run 123 (warm / cold, against the plan): 81-96 3 x 32 1.01-1.04x at N = 1024-2560; 97-112 4 x 32 1.24-1.26x at
# 1024, 2 x 64 1.09-1.18x at 1536-2560; 113-128 4 x 32 1.03-1.04x to 2048; 129-144 5 x 32 1.30-1.36x to 1536, 3 x 48
# 1.22-1.27x at 2048-2560; 145-160 5 x 32 1.12-1.13x to 1536; 177-192 6 x 32 1.11-1.13x at 1024, 3 x 64 1.05-1.08x on;
# 193-224 5 x 48 1.09-1.19x to 1536, at 209-224 3 x 80 1.04 / 1.09x at 2048. tiles.INT8_NARROW_COLUMNS takes them.
# morecolsint8check (session 41, after the plan took them): the plan at other rows of each bucket (161-176 untimed in
# run 123) and N between those timed (512 too), beside the tile each bucket ran before; at 129-144 rows also the 48-wide
# columns with CUTLASS's subtile, where the plan's inherit the 144-wide column's 64x48.
MORE_COLUMNS_INT8_CHECK = [(named(*before), [(m, n, 4096) for n in ns]) for m, before, ns in (
    (84, ("swap 64x48x128 c1x2 pingpong",), (512, 768, 1280, 2304)),
    (92, ("swap 64x48x128 c1x2 pingpong",), (1792, 2432)),
    (100, ("swap 64x112x128 c1x1 pingpong",), (768, 1280, 2304)),
    (110, ("swap 64x112x128 c1x1 pingpong",), (1024, 1792, 2432)),
    (116, ("swap 64x64x128 c1x1 pingpong",), (768, 1280, 1792)),
    (132, ("swap 64x144x128 c1x1 pingpong epi64x48", "swap 64x48x128 c1x1 pingpong"),
     (512, 768, 1280, 1792, 2432)),
    (156, ("swap 64x80x128 c1x2 pingpong",), (768, 1280)),
    (168, ("swap 64x96x128 c1x1 pingpong",), (768, 1024, 1536, 2304)),
    (190, ("swap 64x96x128 c1x1 pingpong",), (768, 1280, 2432)),
    (196, ("swap 64x112x128 c1x2 pingpong",), (512, 768, 1280)),
    (220, ("swap 64x112x128 c1x2 pingpong",), (768, 1280, 1792)))]
# fourcols16 (session 42): at N = 2048 four 16-bit token columns (128 CTAs) led the plan's three at 152, 184, 216 and
# 224 rows (runs 115-116; 152x2048 event 1.18x, session 41) and there read no more L2 than three (h200_ncu_l2.log
# part 6), but ran behind at 76-136, 200 and 208 rows. On a grid of 145-192 rows at N = 1280-2048 (four
# columns stay under a wave, 4 x ceil(N / 64) <= 128 CTAs): four columns M / 4 wide in steps of 8 beside the plan's
# three 56- or 64-wide ones.
FOUR_COLUMNS_16 = [(named(f"swap 64x{width}x128 c1x1 pingpong"), [(m, n, 4096) for n in (1280, 1536, 1792, 2048)])
                   for m, width in ((148, 40), (152, 40), (158, 40), (164, 48), (172, 48), (180, 48), (190, 48))]
# Run 125 (warm / cold, four columns against the plan's three): 145-160 rows 1.05-1.08x / 1.02-1.03x at
# N = 1280, mixed from 1536 (152x2048 1.16x warm, 0.94x cold); 161-176 rows 0.89-1.04x / 0.84-1.03x; 177-192
# 0.94-1.07x / 1.00-1.04x. Not taken. But the time rose as the last token column emptied: the plan's three
# 64-wide columns at 164x2048 (its last column 36 of 64 rows) 15.1 us warm, at 190x2048 (62 of 64) 13.1 us; four
# 48-wide at 164x2048 (20 of 48) 17.0 us, at 190 rows 12.2.
# lastcol (session 42, after run 125): the time against the last column's fill, each tile at every 8 rows over
# 129-192 (and 164) at N = 1024 and 2048, with and without the epilogue; and four 32-wide columns at 97-128 rows,
# where 104 rows (the last column 8 of 32) ran 1.26x three 40-wide ones' time (session 41).
LAST_COLUMN = [(named(*(f"swap 64x{w}x128 c1x1 pingpong" for w in widths)), [(m, n, 4096) for m in ms for n in ns])
               for widths, ms, ns in (((64, 56, 48), (136, 144, 152, 160, 164, 168, 176, 184, 192), (1024, 2048)),
                                      ((32, 40), (100, 104, 108, 112, 120, 128), (2048,)))]
# Run 126 (warm, us at N = 2048): the fuller a tile's last column, the faster, with or without the epilogue (so the
# mainloop): three 64-wide columns 17.98 at 136 rows (8 of 64), 15.25 at 160 (32), 13.38 at 176 (48), 12.70 at 192
# (full); four 32-wide 15.01 at 100 rows (4 of 32), 12.00 at 120 (24). Where a narrower width keeps the column count it
# led: 161-168 rows three 56-wide columns 1.19-1.24x warm, 1.12-1.13x cold the plan's 64-wide (164x2048 12.06 vs
# 14.91); 113-120 three 40-wide 1.12 / 1.11x the plan's four 32-wide (120x2048 10.70 vs 12.00); at 177-192 four
# 48-wide columns 1.05-1.07x / 1.10-1.11x three 64-wide (192x2048 11.87 vs 12.70). tiles.FILL_BUCKETS and
# NARROW_COLUMNS take them (the last not after run 127).
# fillcheck (session 42, after the plan took run 126's fuller columns, tiles.FILL_BUCKETS): the plan beside the tile
# each place ran before at other rows and N (three 40-wide columns at 113-120 rows from N = 1025, three 56-wide at
# 161-168, four 48-wide at 177-192 from 1793 to 2048), fp8 scaled too (with fast accumulation, then without); and
# where the plan kept its narrow columns below N = 1025, the fuller widths beside them (three 40-wide at 113-120 rows;
# three 56-wide and seven 24-wide at 161-168).
FILL_CHECK = [(named("swap 64x32x128 c1x1 pingpong"), [(m, n, 4096) for m in (114, 117, 120)
                                                       for n in (1280, 1536, 1792, 2048)]),
              (named("swap 64x40x128 c1x1 pingpong"), [(116, 768, 4096), (116, 1024, 4096), (120, 1024, 4096)]),
              (named("swap 64x64x128 c1x1 pingpong"), [(m, n, 4096) for m in (162, 165, 168)
                                                       for n in (1280, 1536, 2048, 2560)]),
              (named("swap 64x56x128 c1x1 pingpong", "swap 64x24x128 c1x1 pingpong"),
               [(164, 768, 4096), (164, 1024, 4096), (168, 1024, 4096)]),
              (named("swap 64x64x128 c1x1 pingpong"), [(m, n, 4096) for m in (178, 186, 192)
                                                       for n in (1800, 1920, 2048)])]
FILL_CHECK_FP8 = [(("swap 64x32x128 c1x1 pingpong",), [(117, 1536, 4096), (120, 2048, 4096)]),
                  (("swap 64x64x128 c1x1 pingpong",), [(164, 1536, 4096), (168, 2048, 4096), (166, 2560, 4096),
                                                       (184, 2048, 4096), (190, 1904, 4096)])]
# Run 127 (warm / cold, the plan against the tile of before): bf16 113-120 rows three 40-wide columns 1.00-1.25x /
# 1.03-1.25x four 32-wide (114x2048 10.98 vs 13.38 us), level below 1025; 161-168 three 56-wide 1.06-1.40x / 1.09-1.37x
# three 64-wide (162x2560 13.06 vs 17.71), and below 1025 seven 24-wide 1.04-1.17x / 1.03-1.18x the plan's six 32-wide
# (164x1024 10.42 vs 12.19); 177-192 four 48-wide 0.86-1.03x / 1.00-1.05x three 64-wide (178x2048 14.91 vs 12.80
# warm). fp8, fast accumulation / without, warm: 161-168 1.05-1.27x / 1.02x, 113-120 1.01-1.03x / 0.97-0.99x,
# 177-192 0.96-1.00x / 1.01-1.03x. The plan keeps the 161-168 and 113-120 changes (fp8 the first only), takes seven
# 24-wide columns at 161-168 below 1025 for 16-bit, and drops the 177-192 one.
# Run 153 (session 51: every swapped tile now loads its last token tile in a fitted box, so no choice dodges a box
# past a's end; the tile of before over the plan's time, warm / cold): 113-120 rows from 1025 0.97-1.12x / 1.01-1.13x
# (the plan behind at N = 2048 warm only: 114x2048 11.17 us to 10.78, cold 11.71 to 12.46), below 1025 1.01-1.03x;
# 161-168 1.04-1.08x / 1.06-1.10x, below 1025 the 56-wide columns 1.14-1.16x / 1.12-1.16x; fp8 0.99-1.04x. The plan
# stands.
# fillmore (session 42, run 128 in session 43): where `plan_waves.py --fill 0.6` finds the plan's last token column
# least filled after FILL_BUCKETS, fuller widths beside the plan: below N = 1025 at 81-88 rows (four 24-wide columns,
# 9-16 of the last one's 24 rows), 97-104 (four 32-wide, 1-8 of 32), 129-136 (six 24-wide, 9-16), 169-176 (six 32-wide,
# 9-16) and 201-208 (six 40-wide with 64 of K, 1-8 of 40); two 56-wide columns at 97-103 rows from 1025 (three 40-wide,
# 17-23 of 40; at 104x2048 the two ran 9.0 us in the stream against three's 9.4, h200_launch_gap.log run 5); and at
# 161-168 rows from N = 4225 three 56-wide columns under 128-row weight tiles (three 64-wide, 33-40 of 64; 164x4352 3 x
# 56 341 / 370 vs 314 / 290 TFLOP/s cold / warm in runs 95-96).
FILL_MORE = [(named("swap 64x32x128 c1x1 pingpong", "swap 64x48x128 c1x1 pingpong"),
              [(84, 768, 4096), (84, 1024, 4096), (88, 1024, 4096)]),
             (named("swap 64x40x128 c1x1 pingpong", "swap 64x56x128 c1x1 pingpong"),
              [(98, 768, 4096), (100, 1024, 4096), (104, 1024, 4096)]),
             (named("swap 64x56x128 c1x1 pingpong"), [(98, 1536, 4096), (100, 2048, 4096), (102, 1280, 4096)]),
             (named("swap 64x48x128 c1x1 pingpong"), [(130, 768, 4096), (132, 1024, 4096), (136, 1024, 4096)]),
             (named("swap 64x48x128 c1x1 pingpong", "swap 64x64x128 c1x1 pingpong"),
              [(170, 768, 4096), (172, 1024, 4096), (176, 1024, 4096)]),
             (named("swap 64x56x64 c1x1 pingpong"), [(202, 768, 4096), (204, 1024, 4096), (208, 1024, 4096)]),
             (named("swap 128x56x64 c1x1 coop"), [(164, 4352, 4096), (166, 5000, 4096), (162, 5600, 4096)])]
# Run 128 (warm / cold, us): below N = 1025 the plan's tiles led the fuller widths or trailed them by 2% at most, warm
# and cold (84x1024 10.22 us against 10.32 for three 32-wide columns and 11.28 for two 48-wide, warm), but at 97-104
# rows cold, where three 40-wide columns ran 1.06x at 100x1024 (10.77 vs 11.44; warm 10.72 vs 10.56); two 56-wide
# columns at 97-103 rows 1.06x warm at 100x2048, 0.92-0.93x at 1280-1536 (cold 0.90-0.98x): neither taken. At 161-168
# rows from N = 4225 three 56-wide columns under 128-row weight tiles 1.11-1.31x / 1.10-1.27x the plan's 64-wide ones
# (164x4352 16.05 vs 20.98 warm, 16.86 vs 18.62 cold; 162x5600 20.70 vs 26.27 / 18.56 vs 23.63): taken
# (tiles._own_n_classes, 161-168 rows). Profiled (session 43, h200_ncu_l2.log part 7) at 136x2048x4096, three columns
# under 64-row weight tiles whose last has 56, 32 or 8 rows past M: 64-wide 16.1 us, 56-wide 13.4, 48-wide 10.3, with
# the same grid and instructions (1.41 / 1.38 / 1.40 M) and L2 sectors 1.83 / 1.73 / 1.49 M; at 192 rows the 64-wide one
# 11.3 us with 1.78 M sectors. Its sections: warps stall longer on an L1TEX scoreboard (5.7 vs 3.5 of 9.7 vs 7.6 cycles
# per instruction at 136 vs 192 rows) and the L2 runs at 33 vs 43% of its peak: the token tile's loads take longer when
# rows of its box lie past M, at no more traffic. Why, not found.
# fillwide (session 43, after the plan took run 128's 161-168 columns): the plan beside the tile of before over N =
# 4225-5632, K = 8192 once, bf16 and fp8 (fast accumulation and without; fp8's 56-wide column untimed before); run 129
# (bf16, warm / cold): 1.10-1.40x / 1.07-1.18x (161x4352 16.00 vs 22.46 us warm), 1.11-1.25x / 1.13-1.23x cuBLASLt
# fused. Its fp8 groups stopped at N = 5000, which torch._scaled_mm refuses (N in 16s): fillwidefp8 (run 130, N = 4992)
# 1.17-1.31x / 1.04-1.16x with fast accumulation, 1.02-1.05x / 1.02x without.
FILL_WIDE = [(named("swap 128x64x64 c1x1 coop"), [(161, 4352, 4096), (164, 4608, 4096), (168, 5120, 4096),
                                                 (166, 5632, 4096), (164, 4352, 8192)])]
FILL_WIDE_FP8 = [(("swap 128x64x128 c1x1 coop",), [(164, 4352, 4096), (166, 4992, 4096), (162, 5600, 4096)])]
# padded (session 44, after the profile above): does the empty-row cost come from the token tile's TMA box lying
# partly past a's end? Each kernel twice: on a of exactly M rows, and on the first M rows of a taller buffer (rows past
# M NaN), where the runtime lets the mainloop's descriptor span a's buffer to the last M tile's end
# (runtime._rows_readable); the NaN rows must leave the result as it was (checked into a NaN-poisoned output).
# Run 131 (warm / cold, us): yes. Three 64-wide columns at 136x2048 17.41 -> 12.56 / 17.94 -> 13.46, four 48-wide at
# 164x2048 18.98 -> 12.61 / 18.34 -> 13.70, at 192 rows (no row past M) unchanged; the plan at 150x9216 (unswapped
# 64x224, 22 of its last tile's 64 rows used) 36.62 -> 30.58 / 38.42 -> 30.13, at 100x2048 12.70 -> 10.78 /
# 11.62 -> 11.39; where the last tile is nearly full 0.97-1.01x (200x8192x8192 44.32 -> 45.06, both runs); fp8
# 1.00-1.04x. Every padded call matched its reference.
PADDED = [(named(*(f"swap 64x{w}x128 c1x1 pingpong" for w in (64, 56, 48))),
           [(136, 2048, 4096), (164, 2048, 4096), (192, 2048, 4096)]),
          ({}, [(100, 2048, 4096), (136, 4096, 4096), (150, 9216, 4096), (164, 4352, 4096), (200, 8192, 8192),
                (1000, 8192, 8192), (2000, 4096, 4096)])]
# paddedfill (after run 131): where the last M tile is nearly full, the plan on a, on a padded buffer (NaN) and on a
# zero-padded one, more rounds. Run 132: nearly full 0.99-1.01x (200x8192x8192 44.18 / 44.26 / 44.40 us), NaN and
# zero rows alike; 250x4096 1.07x, 100x2048 1.14x, 150x9216 1.24x. So the runtime widens whenever it can.
PADDED_FILL = [(200, 8192, 8192), (136, 4096, 4096), (164, 4352, 4096), (1000, 8192, 8192), (250, 4096, 4096),
               (4000, 4096, 4096), (120, 8192, 4096), (100, 2048, 4096), (150, 9216, 4096)]
# band145 (session 44, after run 131): at 145-160 rows from N = 8449 to 9856 the plan's three unswapped 64-row token
# tiles under 224-wide weight tiles (126 CTAs) ran 0.73-0.80x cuBLASLt fused on a bare a (150x9216x4096 36.6 vs 29.1
# us), their last token tile 17-32 of 64 rows. Forms that keep every token row in one tile of a swapped kernel: one
# 160-wide column under 128-row weight tiles with stream-K over the SMs (72 tiles) or split in two, under 64-row
# ones (144 CTAs); two 80-wide columns (the tile of before, 1x2 cluster) and under 192-row weight tiles; three 56-wide.
# Run 133 (us, warm / cold): the plan 29.5-30.5 / 28.3-30.0 at 145x8704, 156x9728 and 160x9856 but 35.6 / 31.6 at
# 150x9216 and 67.7 / 59.1 at 152x9216x8192; the two columns under 192-row weight tiles 30.0-31.3 / 29.4-30.5
# everywhere (50.0 / 49.2 at K = 8192), 0.93-0.97x cuBLASLt fused; stream-K over 72 tiles 32.5-34.7, the rest behind.
BAND145 = [(named("swap 128x160x64 c1x1 coop stream-K always", "swap 128x160x64 c1x1 coop split2",
                  "swap 64x160x64 c1x1 pingpong", "swap 128x80x64 c1x2 coop", "swap 192x80x64 c1x2 coop",
                  "swap 128x56x64 c1x1 coop"),
            [(145, 8704, 4096), (150, 9216, 4096), (156, 9728, 4096), (160, 9856, 4096), (152, 9216, 8192)])]
# band145more (after band145, run 133): the 192-row-weight form beside the plan over more of the band. Run 134: the
# 192-row tiles 29.5-30.7 / 29.2-30.3 us at all 20 shapes; the plan 29.5-31.2 warm but 34.7 at 158x9216, and cold
# 28.0-29.6 at 12 shapes, 31.6-38.5 at 6 (146-158x9216, 146-150x9600; 1.04-1.29x the 192-row tiles' time).
BAND145_MORE = [(named("swap 192x80x64 c1x2 coop"), [(m, n, 4096) for m in (146, 148, 150, 153, 158)
                                                     for n in (8576, 8960, 9216, 9600)])]
# band145tall (after band145more, run 134): the band's own 192-row tile as tiles.py builds it (full-width 64x80
# subtiles) beside the 64x16-subtile one runs 133-134 timed, and the plan. Run 135: the plan 1.20-1.34x its time at
# 146-150x9216 and 152x9216x8192 warm (37.9-40.1 vs 29.9-30.3 us; 69.9 vs 52.0), at 146, 150 and 158x9216 and 152x9216
# x8192 cold (1.08-1.22x), and 0.96-1.01x elsewhere; the two subtiles alike but at K = 8192 (64x16, one stage more:
# 49.6 vs 52.0 warm). tiles.py took the 192-row tile at 145-160 rows from N = 8449 (16-bit; 8-bit had it).
BAND145_TALL = [(named("swap 192x80x64 c1x2 pingpong epi64x80", "swap 192x80x64 c1x2 coop"),
                 [(145, 8704, 4096), (146, 9216, 4096), (148, 9216, 4096), (150, 9216, 4096), (158, 9216, 4096),
                  (150, 8576, 4096), (153, 8960, 4096), (158, 8960, 4096), (156, 9728, 4096), (160, 9856, 4096),
                  (152, 9216, 8192)])]
# band161 (session 45; NOTES session 44 item 2): runs 133-135 found the three unswapped 64-row token tiles 1.2-1.35x
# the 192-row tiles' time at some 145-160-row shapes only, varying from run to run; at 161-176 rows (last token tile
# 33-48 of 64 rows) runs 76-78 found none. The plan beside the 192-row tile these rows would take (two 88-wide
# columns), with full-width and CUTLASS's subtiles, at N = 9216 and 9600; run warm twice, then cold. Run 136 (warm /
# cold, TFLOP/s): the plan 317 / 366 vs 391-393 at 161x9216, 308 warm vs 396-397 at 164x9216, 412 / 401 vs 462-468 at
# 168x9216x8192; elsewhere 1.01-1.08x the 192-row tile (168x9216 408 / 395 vs 401 / 410). The two subtiles alike.
BAND161 = [(named("swap 192x88x64 c1x2 pingpong epi64x88", "swap 192x88x64 c1x2 pingpong"),
            [(m, n, 4096) for m in (161, 164, 168, 172, 176) for n in (9216, 9600)] + [(168, 9216, 8192)])]
# tallsub (session 45; NOTES session 44 item 3): the 192-row weight tiles' epilogue subtile. Where the token column is
# a multiple of 16 wide (48, 80, 112) tiles.py gives them subtiles as wide as it (64 x W); run 135 had CUTLASS's own
# pick (64x16, sm90_epilogue_tile's "auto", one stage more) 1.05x faster at 152x9216x8192 and level at K = 4096. The
# plan beside the same tile with the auto subtile, per column width. Run 137 (warm / cold): 80 wide the auto subtile
# 446 / 455 vs 423 / 434 at 152x9216x8192, 505 / 507 vs 490 / 488 at 156x11008x8192, 1.00-1.02x at K = 4096; 48 and
# 112 wide the full width led (88x10240 273 / 274 vs 262 / 266, 216x10240 513 / 514 vs 483 / 485).
TALL_SUBTILE = [(named(f"swap 192x{w}x64 c1x2 pingpong"), [(m, n, k) for k in (4096, 8192)])
                for w, m, n in ((48, 88, 10240), (80, 152, 9216), (80, 156, 11008), (112, 216, 10240))]
# band161more (after band161 and tallsub, runs 136-137): the plan beside the 192-row tile over more of 161-176 rows,
# and the 80-wide 192-row tile with CUTLASS's subtile over more of 145-160 rows (to N = 12672). Run 138 (warm twice,
# cold):
# the plan slow at 162x9216 (345 / 344 / 408 vs 392 / 391 / 396) and 174x9216 warm (394 / 396 vs 417 / 416), else
# 1.01-1.06x the 192-row tile (170x9856 447 vs 419); the auto subtile 1.04-1.06x at K = 8192 (150x9216x8192 440 / 439 /
# 448 vs 415 / 414 / 427), 0.99-1.02x at 4096. tiles.py took both (SHORT_LAST_WEIGHT_TILE_N, tall_80_subtile).
BAND161_MORE = [(named("swap 192x88x64 c1x2 pingpong epi64x88"),
                 [(m, n, 4096) for m in (162, 166, 170, 174) for n in (8704, 8960, 9216, 9600, 9856)]),
                (named("swap 192x80x64 c1x2 pingpong"),
                 [(145, 8704, 4096), (148, 9216, 4096), (150, 10240, 4096), (153, 11008, 4096), (158, 12288, 4096),
                  (150, 9216, 8192), (156, 10240, 8192), (146, 12288, 8192)])]
# fitweights (after band161more, run 138): the three unswapped token tiles' sick shapes lie at N = 9216, where 42
# 224-wide weight tiles leave the last one 32 columns of B (its TMA box mostly past B's end, as the empty token rows'
# cost was), and the 192-row tiles divide N. Weight tiles fitted nearer N / 44 (208, 216: 45 and 43 tiles) beside the
# plan and the 192-row tile. Run 139: both behind (162x9216 277 and 357 vs 392 for the 192-row tile, 208 wide past a
# wave with 135 CTAs); the plan slow again at 164x9216 warm (320 vs 398) and 161x9216x8192 (367 / 359 vs 458 / 465).
FIT_WEIGHTS = [(named("64x208x64 c1x1 pingpong", "64x216x64 c1x1 pingpong", "swap 192x88x64 c1x2 pingpong epi64x88"),
                [(162, 9216, 4096), (164, 9216, 4096), (174, 9216, 4096), (170, 9216, 4096), (161, 9216, 8192)]),
               (named("64x208x64 c1x1 pingpong", "64x216x64 c1x1 pingpong", "swap 192x80x64 c1x2 pingpong"),
                [(148, 9216, 4096), (150, 9216, 4096), (158, 9216, 4096)])]
# The 80-wide 192-row tile with CUTLASS's subtile, fp8 with fast accumulation (runs 136-137 timed bf16). Run 139 had
# it 64 bytes of K deep (x64) beside the plan's 128 (x128), which ran 1.11-1.17x it: no subtile result; now x128.
# Run 141 (warm twice, cold): the plan's full-width 64x80 1.07-1.11x at K = 4096 (150x9216 17.31 / 17.39 / 18.11 us
# vs 19.17 / 19.20 / 19.46), level at 152x10240x8192: 8-bit operands keep it.
TALL_SUBTILE_FP8 = [(("swap 192x80x128 c1x2 pingpong",), [(150, 9216, 4096), (152, 10240, 8192), (158, 12288, 4096)])]
# weightfill (session 45): where `plan_waves.py --weight-fill 0.3` finds the plan's last weight tile part-filled (the
# mechanism runs 136-139 point to at 161-176x9216), the plan beside widths whose last tile is fuller, and at a nearby N
# that the plan's tile fills (the control). Warm twice, then cold: the slow shapes of runs 133-139 came and went from
# run to run. Run 140: no such cost here; the plan's TFLOP/s at the flagged N as at the controls (100x8512 272 vs
# 100x8640 266 warm), and it led or tied every fuller width but 64x152 at the control 100x8640 warm (272 vs 266-268;
# cold the plan led); 177-192 rows 1.01-1.16x cuBLASLt fused, 97-128 and 225-256 rows 0.91-1.00x (240x10432 37.22
# vs 35.18 us).
WEIGHT_FILL = [
    # 97-128 rows: two 64-row token tiles under N / 64-wide weight tiles in steps of 16 (144 at 8512: last 16 of 144)
    (named("64x136x64 c2x1 pingpong", "64x152x64 c2x1 pingpong"), [(100, 8512, 4096), (100, 8640, 4096)]),
    (named("64x152x64 c2x1 pingpong", "64x176x64 c2x1 pingpong"), [(120, 9472, 4096), (120, 9600, 4096)]),
    # 225-256 rows: two 128-row token tiles (144 at 8512, 176 at 10432: last 48 of 176)
    (named("128x136x64 c2x1 coop", "128x152x64 c2x1 coop"), [(240, 8512, 4096), (240, 8640, 4096)]),
    (named("128x184x64 c2x1 coop"), [(240, 10432, 4096), (240, 10560, 4096)]),
    # 177-192 rows: three 64-row token tiles under 224-wide weight tiles (last 32 and 64 of 224), then one 192-row
    # token tile under 80-wide ones (last 16 of 80 at 10256)
    (named("swap 192x96x64 c1x2 pingpong", "64x232x64 c1x1 pingpong"),
     [(184, 8768, 4096), (184, 9024, 4096), (184, 8960, 4096), (184, 9216, 4096)]),
    (named("192x88x64 c1x1 pingpong"), [(184, 10256, 4096), (184, 10240, 4096)]),
]
# band161fp8 (session 46; NOTES session 45 item 2): 8-bit operands at 161-176 rows keep three unswapped 64-row token
# tiles under 224-wide weight tiles at N = 9216 too (the 16-bit change of 52f2edf left them out, untimed): the plan
# beside the 192-row tile the 16-bit operands now take there, fp8 with fast accumulation and int8 (without fast
# accumulation the 192x88 tile's promoted accumulators would spill, and int8 takes CTA N in steps of 16: 192x96).
# Run 142 (warm twice, cold): fp8 the plan slow at 161x9216 (21.55 / 21.95 / 20.18 us vs 17.70 / 17.95 / 18.27),
# 168x9216 in one warm pass and 174x9216 warm (19.18 / 19.12 vs 18.18 / 17.92), ahead at 164x9216 warm (17.30 vs
# 18.13); over the five 9216 shapes the 192-row tile 5% less time, so tiles.py gave it fp8 with fast accumulation
# there. int8 the same pattern but level in sum (161x9216 21.49 vs 18.40, 164x9216 16.94 vs 18.43): unchanged.
BAND161_8BIT_SHAPES = [(m, n, 4096) for m in (161, 164, 168, 174) for n in (9216, 9600)] + [(164, 9216, 8192)]
# band161padded (session 46, run 143 in session 47; NOTES session 46 item 2): the three token tiles' slow passes at
# 161-176x9216 (runs 136-139, 142) against run 140's finding that a short last weight tile alone costs nothing
# (184x9216, whose last token tile is nearly full, ran 1.01-1.05x cuBLASLt fused): the three tiles and the 192-row
# tile, each on a and on a NaN-padded taller buffer (the runtime then widens the mainloop's descriptors past M, as
# runs 131-132).
BAND161_PADDED_TILES = named("64x224x64 c1x1 pingpong", "swap 192x88x64 c1x2 pingpong epi64x88")
BAND161_PADDED_SHAPES = [(161, 9216, 4096), (164, 9216, 4096), (168, 9216, 4096), (174, 9216, 4096), (164, 9600, 4096),
                         (161, 9216, 8192)]
# Run 143 (band161padded, warm / cold / warm): padding took the three tiles' slow passes away (161x9216x4096 64x224
# 34.40 -> 30.42, 35.82 -> 29.38, 32.53 -> 30.35 us; 161x9216x8192 cold 71.44 -> 51.90), level with cuBLASLt fused
# (30.34 / 29.20 / 30.29); the 192-row tile the same either way (31.1-31.6). The last token tile's box past a's end
# again, as at 150x9216 (runs 131-132).
PADDED_FP8 = [(100, 2048, 4096), (136, 4096, 4096), (164, 4352, 4096), (1000, 8192, 8192)]
# tailloads (session 47, run 144; code at 87a1156, reverted): lower.TAIL_LOADS "token" loaded the last token tile in
# boxes of 8 rows (load_hints.hpp), a box wholly past a's end from a's last 8 rows instead. On a bare a it ran slower
# than one box of the tile's rows, in every pass (us, warm / cold / warm: 64x224 at 161x9216x4096 42.83 / 37.49 /
# 42.58 vs 39.58 / 33.50 / 39.65; at 150x9216 38.54 / 37.70 / 36.21 vs 31.07 / 29.94 / 31.01; swap 64x64x128 at
# 164x2048x4096 18.46 / 19.01 / 18.37 vs 15.22 / 14.74 / 15.31), against 29.2-31.2 / 12.7-13.7 padded: eight (sixteen
# at 128 of K) small boxes a stage cost more than the one box past the end. The 2x1-cluster group then stopped on a
# misaligned-address fault (not diagnosed). The bare one-box times moved between passes (150x9216: 31.07 / 29.94).
# oobplace (session 47, after run 144): the descriptor or the memory? Each tile on a that owns its rows (torch's
# allocation), on a bare view (DLPack: a tensor of exactly M rows, so no widening) of a taller buffer's first M rows,
# and on that buffer padded (widened): the last two read the same memory, their descriptors differ only in extent.
OOB_PLACE_GROUPS = [(named("64x224x64 c1x1 pingpong"), [(161, 9216, 4096), (164, 9216, 4096), (150, 9216, 4096)]),
                    (named("swap 64x64x128 c1x1 pingpong"), [(136, 2048, 4096), (164, 2048, 4096)])]
# Run 145 (warm / cold / warm, us): the bare view ran as slowly as a's own allocation, the padded call at full speed
# (swap 64x64x128 at 136x2048x4096: 17.74 / 17.41 / 17.70 vs own 18.05 / 18.14 / 17.98, padded 12.78 / 14.18 /
# 12.80; 64x224 at 161x9216x4096 33.74 / 31.66 / 33.57 vs 34.37 / 32.86 / 34.45, padded 30.19 / 29.04 / 30.24). So
# the cost is the TMA box reaching past the descriptor's extent, not the memory that lies there. (At 164 rows each
# bare form was slow in some passes only; at 150 the view was slow in all three, a's own allocation in none.)
# paddedgap (session 47, after oobplace): NOTES session 46 item 3, the plan at 97-128 and 225-256 rows, N = 8512-10560,
# 0.91-1.00x cuBLASLt fused in run 140, where its last token tile is 36-56 of 64 rows (64x144 / 64x160 c2x1) or 112 of
# 128 (128x176 c2x1): on a bare and on a padded a, is that gap the box past a's end?
PADDED_GAP = [(100, 8512, 4096), (120, 9472, 4096), (104, 8704, 4096), (240, 10432, 4096), (232, 10240, 4096)]
# Run 146 (warm / cold / warm, us): no. Padded and bare alike (100x8512 25.73 / 26.02 / 25.97 bare, 25.79 / 24.86 /
# 25.62 padded; 240x10432 37.09 / 36.46 / 37.15 vs 37.55 / 36.35 / 37.62); the gaps to cuBLASLt fused (24.64 / 23.68
# / 24.51 and 35.20 / 34.62 / 35.15) stay, so they lie in the kernel (NOTES session 46 item 3's ncu pass).
# weightcluster (session 47, after paddedgap): at 100x8512x4096 cuBLASLt fused runs nvjet 144x64_64x8 _4x2 (grid 8 x 15:
# the two token tiles under 144-wide weight tiles, as the plan's 64x144 c2x1, but in a 4x2 cluster that multicasts
# the token tiles across weight tiles too; library_kernels.py session 47). The plan's tiles with token tiles shared
# by 2 and 4 weight tiles.
WEIGHT_CLUSTER = [(named("64x144x64 c2x2 pingpong", "64x144x64 c2x4 pingpong"), [(100, 8512, 4096), (104, 8704, 4096)]),
                  (named("64x160x64 c2x2 pingpong", "64x160x64 c2x4 pingpong"), [(120, 9472, 4096)])]
# Run 147 (warm / cold / warm, us): no gain. 100x8512 c2x2 25.33 / 25.26 / 25.36, c2x4 25.55 / 24.18 / 25.63, the
# plan 25.46 / 25.57 / 25.58 (cuBLASLt fused 24.98 / 23.90 / 25.09); 120x9472 within 1.5% either way; at 104x8704, where
# 61 weight tiles do not divide by the cluster's 2 or 4, 34.3-35.9 against the plan's 25.6-26.8.
# weight168 (session 47, after weightcluster): at 240x10432x4096 cuBLASLt fused runs nvjet 168x128_64x5 _1x2 coopA
# (grid 2 x 63: 168-wide weight tiles, 126 CTAs) where the plan's 128x176 c2x1 makes 120 (library_kernels.py session
# 47; under ncu 34.98 vs 35.87 us). The plan's token tiles under 168-wide weight tiles.
WEIGHT_168 = [(named("128x168x64 c2x1 coop"), [(240, 10432, 4096), (232, 10240, 4096), (256, 10752, 4096)])]
# Run 151 (session 51; warm / cold, us): slower everywhere, the plan kept. 128x168 c2x1 43.25 / 41.04 at 240x10432
# against the plan's 37.54 / 37.18 (cuBLASLt fused 35.44 / 35.33), 42.37 / 39.36 at 232x10240 (plan 35.87 / 33.94),
# 43.33 / 40.48 at 256x10752 (plan 38.16 / 36.82). It holds 4 stages (195 KB) where 128x176 holds 5.
# nvjet232 (session 52, after run 154; run 155): at 209-255 rows, N = 8192-9216, the plan trails cuBLASLt fused by
# 2-4% (run 154). There cuBLASLt runs nvjet 128x120_64x6 _1x2 at 232x8192x4096 (128-wide weight tiles over 120-token
# tiles, 2 x 64 CTAs: the swapped form, which our unswapped 128-row token tiles cannot take) and 144x128_64x6 _1x2 at
# 216x9216x4096 (the plan's own 128x144 c2x1; library_kernels.py session 52). nvjet's swapped tile beside the plan,
# and the 144-wide weight tile with its cluster along the weights instead.
# Session 53 adds the swapped 128-wide token columns (2 x 64 CTAs, 256 rows of room) beside the 120-wide ones, and
# the band's other N (6144, 7168: the plan's 128x128 c1x1 there too) and 248 rows (past two 120-wide columns).
NVJET232 = [(named("swap 128x120x64 c1x2 coop", "swap 128x120x64 c1x2 pingpong", "swap 128x128x64 c1x2 coop"),
             [(232, 8192, 4096), (240, 8192, 4096), (216, 8192, 4096), (232, 6144, 4096), (240, 7168, 4096),
              (248, 8192, 4096)]),
            (named("128x144x64 c1x2 coop"), [(216, 9216, 4096)])]
# Run 155 (session 53, warm / cold, us, 9 rounds; plan then 128x128 c1x1 at 225-256 rows, swap 128x112 c1x2 at 216):
# swap 128x120 c1x2 coop 232x8192 27.65 / 27.10 vs 29.78 / 27.97 (cuBLASLt fused 29.12 / 27.49), 240x8192 27.42 /
# 26.91 vs 29.33 / 27.94, 232x6144 26.18 / 25.94 vs 27.95 / 27.17, 240x7168 26.56 / 26.22 vs 28.50 / 27.57 (cuBLASLt
# fused 29.78 / 26.05); pingpong 2-3% and swap 128x128 c1x2 3-4% behind it. At 216x8192 the plan's 128x112 ahead
# (26.99 / 26.58 vs 27.52 / 27.09); at 248x8192 swap 128x128 c1x2 29.04 / 28.18 vs 29.92 / 28.24 (120 wide needs
# three columns there: 54 us). 128x144 c1x2 at 216x9216 39.68 / 39.20 vs the plan's c2x1 32.56 / 32.48. Taken: the
# 120-wide columns at 225-240 rows, 16-bit, N 5633-8448 (tiles.py, 28062fc).
# Run 156 (session 53, warm, the plan now taking them): auto+shapes 232x8192 27.42 us (cuBLASLt fused 28.67),
# 232x6144 25.73 (28.42), 240x7168 26.40 (29.15), each within 0.2% of the named tile.
# nvjet232fp8 (session 54, after run 156): the 16-bit plan took the swapped 120-wide columns at 225-240 rows, N
# 5633-8448; 8-bit operands there still run 128x128 cooperative (tiles.py's swapped_120). fp8 scaled, with and
# without fast accumulation: the same columns (120 is on fp8's steps of 8) and the 128-wide ones, from MID_N.
NVJET232_FP8 = [(("swap 128x120x128 c1x2 coop", "swap 128x128x128 c1x2 coop"),
                 [(232, 8192, 4096), (240, 8192, 4096), (232, 6144, 4096), (240, 5120, 4096), (248, 8192, 4096),
                  (240, 4608, 4096), (226, 7168, 4096)])]
# Runs 157-158 (session 54, warm / cold, us, 9 rounds; run 158 repeats 157 with 240x4608 and 226x7168): with fast
# accumulation the 120-wide columns 0-1.3% behind the plan's 128x128 c1x1 warm, 3.5-5% ahead cold (232x8192 17.04 /
# 17.15 vs 16.88 / 18.05, 240x4608 16.22 / 16.46 vs 16.03 / 17.09; _scaled_mm 18.34 / 18.26, 15.71 / 16.53); without
# it 1-2.4% behind warm, 2-3% ahead cold (232x8192 19.20 / 19.34 vs 18.82 / 19.95); the 128-wide columns 4-5% behind
# the 120-wide ones. At 248x8192 the 128-wide columns 5% behind the plan warm, level cold. Taken: the 120-wide
# columns for fp8 at 225-240 rows, MID_N to TALL_N (tiles.py, d7dc9b7). Without fast accumulation the plan runs
# 0.88-0.93x _scaled_mm warm at these shapes (and 0.89-0.98x cold).
# overlappromo (session 55): fp8 with exact accumulation ran 0.86-0.92x torch._scaled_mm's (anchors runs 37-38), whose
# kernel is the plan's tile at the anchor shapes (nvjet 128x128_128x6 1x1 coopA, library_kernels.py): CUTLASS's FP8
# mainloop waits for every MMA before each k tile's promotion. lower.OVERLAPPED_PROMOTION builds the mainloop of
# csrc/cutlassgen/overlapped_promotion.hpp, which adds partial sums while other MMAs run; each tile
# built both ways, beside the plan (built with the setting too).
OVERLAP_PROMO_TILES = ("128x128x128 c1x1 coop", "128x128x128 c2x1 coop")
OVERLAP_PROMO_SHAPES = [(4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192), (232, 8192, 4096),
                        (32, 8192, 8192), (8192, 8192, 8192)]
# Runs 159-160 (session 55, warm / cold, TFLOP/s): a first form, two full-width partial accumulators taking turns by
# k tile, spilled (ptxas: 744-1268 bytes) and ran 15-20% behind CUTLASS's mainloop (4096x14336x4096 950 vs 1165
# warm). Runs 161-162, the kept form (each k tile in two halves of N, no spill at c1x1; 44 bytes at c2x1): 4-9%
# ahead, warm / cold 4096x14336x4096 1203 / 1217 vs 1143 / 1169, 8192^3 1213 / 1244 vs 1116 / 1158, 256x8192^2
# 1090 / 1100 vs 1031 / 1052, 232x8192x4096 855 / 809 vs 823 / 778; the plan (with it) 0.91-0.97x _scaled_mm at the
# three large shapes and 0.97-1.01x at 232-256 rows (_scaled_mm 1321 / 1338 at 4096x14336x4096). Taken
# (lower.OVERLAPPED_PROMOTION, 5d455b3), then for this tile only: others spilled with it (bench/NOTES.md, session 55).
# Since session 57 the setting builds PROMOTION_SCHEDULE's mainloop, "full" by default (fullpromo below).
# fullpromo (session 57): cuBLASLt's exact kernel issues CUTLASS's full-width MMAs and adds as CUTLASS's mainloop does,
# yet took 13% fewer cycles than the halves (ncu, session 56); it probes the next stage while the MMAs run and
# releases each stage before its adds. lower.PROMOTION_SCHEDULE "full" (csrc/cutlassgen/full_promotion.hpp) does that,
# beside "halves" on the plan's 128x128 tile. Run 168 (session 57, branch experiment/promotion-full, which also built
# CUTLASS's mainloop and a skewed form): full 1235 / 1256 / 1327 / 1124 / 883 TFLOP/s at 4096x14336x4096, 8192^3,
# 2048x8192^2, 256x8192^2, 232x8192x4096 against halves 1205 / 1228 / 1277 / 1088 / 871 and CUTLASS's 1150 / 1132 /
# 1218 / 1043 / 836 (_scaled_mm 1317 / 1331 / 1282 / 1136 / 854). Taken (the default schedule).
FULL_PROMO_SHAPES = [(4096, 14336, 4096), (8192, 8192, 8192), (2048, 8192, 8192), (256, 8192, 8192), (232, 8192, 4096)]
# fullwide (session 58): "full" keeps CUTLASS's registers, so the spills that kept the halves to the 128x128 tile do not
# bind it. Exact fp8's plan tiles at 65-256 rows and in decode, each at a shape where the plan runs it: CUTLASS's
# mainloop (PROMOTION_TILES "coop128", which leaves them alone) against "full" ("all"), beside _scaled_mm. Runs 169-170
# (session 58): "all" 1.04-1.15x warm, 1.035-1.125x cold on every tile (72x4096x4096 swap 64x40 c1x2 pingpong 232 vs
# 207 TFLOP/s warm, 112x9216x4096 64x144 c2x1 pingpong 510 vs 457, 232x8192x4096 swap 128x120 c1x2 866 vs 815), and
# every build bitwise equal to CUTLASS's mainloop (promotion_check.py --tiles all). Taken: "all" is the default.
# fullsync (session 59, branch experiment/promotion-sync): ncu put our exact mainloop at 1.11x nvjet's cycles with the
# same k tile but for nvjet's 128-thread barrier while the MMAs run (session 58). Keeping the two consumer warpgroups
# in time did not help: full_promotion.hpp with nvjet's barrier shared by both warpgroups ("fullbar"), one per
# warpgroup ("fullownbar"), or the warpgroups issuing their k tiles in turn ("fullturn"), on the 128x128 c1x1 and c2x1
# tiles. Each bitwise equal to CUTLASS's mainloop (promotion_check.py, 12 lines each). Runs 175-176 (warm / cold,
# TFLOP/s at 4096x14336x4096, 8192^3, 2048x8192^2, c1x1): full 1275 / 1253 / 1350 warm, fullbar 1271 / 1285 / 1347,
# fullownbar 1263 / 1249 / 1336, fullturn 1237 / 1215 / 1296 (2-4% slower everywhere); the c2x1 cluster 1-5% behind
# c1x1 but at 8192^3. fullbar's 8192^3 gain did not come back in runs 177-178 (1214 vs 1209 warm, 1226 vs 1248 cold).
# exactepi (session 59): the cooperative kernel runs no MMA during a tile's epilogue, so its store steps (CUTLASS's
# 128x32 subtile: 4 per 128x128 tile, each with a barrier and a TMA store) cost the exact tile directly. Wider
# subtiles (fewer steps, more epilogue shared memory) and 5 stages alone, on the 128x128 tile (whose "auto" subtile
# was 128x32 until this probe). 128x64 keeps the 6 stages (231424 bytes). Runs 177-180 (9 rounds warm / cold, then
# 15 rounds at the three large shapes): 128x64 against 128x32 at 4096x14336x4096 1269 / 1299 / 1258 / 1296 vs 1259 /
# 1290 / 1249 / 1287 (+0.7-0.8% in each run), 8192^3 1262 / 1311 / 1241 / 1287 vs 1246 / 1250 / 1228 / 1250
# (+1.1-4.9%), 2048x8192^2 +0.1-0.2%, 256x8192^2 -0.3-0.4%, 232x8192x4096 0-0.4%; 128x128 (one step) 2-6% slower,
# 5 stages 0.5-3% slower. Taken (tiles.resolve_sm90): exact fp8's unswapped cooperative tiles store 128x64 subtiles
# where that keeps every stage and leaves two steps or more (the plan's 128x128 tile; its 128x64 one keeps 128x32).
# fullrelease (session 60, branch experiment/warpgroup-release): nvjet's consumers release each stage from one thread
# per warpgroup; CUTLASS's 1x1-cluster pipeline has all 256 consumer threads arrive (SYNCS.ARRIVE.TRANS64.RED from
# each). "fullwg" (full_promotion.hpp on a pipeline with nvjet's count, bitwise equal to CUTLASS's mainloop) against
# "full" on the 128x128 c1x1 tile, runs 181-182 (warm / cold, TFLOP/s at 4096x14336x4096, 8192^3, 2048x8192^2,
# 256x8192^2, 232x8192x4096): full 1274 / 1253 / 1351 / 1121 / 899 warm, 1300 / 1306 / 1372 / 1148 / 837 cold;
# fullwg 1273 / 1230 / 1345 / 1132 / 896 and 1296 / 1297 / 1369 / 1147 / 836. No gain; not taken.
EXACT_EPI_TILES = named("128x128x128 c1x1 coop epi128x32", "128x128x128 c1x1 coop epi128x64",
                        "128x128x128 c1x1 coop epi128x128", "128x128x128 c1x1 coop epi128x32 s5")
# fastdefault (session 60): fp8 with fp8_fast_accum left "auto" resolved to bf16's 128x256 c2x1 cooperative tile,
# which ran 0.93-0.98x the 128x128 c1x1 pingpong tile at 8192^3 in every anchors run (37-44). tiles.resolve_sm90 now
# gives fast fp8 128x128 pingpong with no cluster; the old default beside it where the plan runs the default (M > 256).
# Runs 183-184 (warm / cold, TFLOP/s, pingpong vs 128x256): 8192^3 1390 / 1423 vs 1327 / 1348, 4096^3 1395 / 1448
# vs 1328 / 1383, 8192x28672x4096 1337 / 1356 vs 1217 / 1255; 1024x8192^2 1388 / 1439 vs 1417 / 1454 and
# 1024x4096x14336 1417 / 1450 vs 1447 / 1482 (1-2% behind); level at 384x8192^2, 512x8192^2 and 2048x8192^2.
FAST_DEFAULT_TILES = named("128x256x128 c2x1 coop", "128x128x128 c1x1 pingpong", **FAST)
FAST_DEFAULT_SHAPES = [(384, 8192, 8192), (512, 8192, 8192), (1024, 8192, 8192), (2048, 8192, 8192),
                       (8192, 8192, 8192), (4096, 4096, 4096), (1024, 4096, 14336), (8192, 28672, 4096)]
# fp8ksweep (session 61): exact fp8 runs 0.95x _scaled_mm at 8192^3 and 4096x14336x4096 but level at 2048x8192^2,
# and ncu (session 58) has our whole kernel at 1.11x nvjet's cycles. What is per tile (prologue, epilogue, the
# pipeline's refill between tiles) and what per k tile? Both kernels run the 128x128x128 c1x1 tile: at 1536x1408
# (132 tiles, one wave: each CTA one tile) and 3072x5632 (1056 tiles, eight waves), K swept; `python bench/k_fit.py
# LOG` fits time = fixed + per-K cost to each contender. Fast accumulation (pingpong) beside as the control. Runs
# 185-186: per k tile 2.8-2.9% more than _scaled_mm's in one wave, 0.4-0.5 us more fixed; at eight waves ~0.5-1 us
# more per tile (fp8tilecost below has the numbers).
FP8_KSWEEP_SHAPES = [(1536, 1408, k) for k in (2048, 4096, 8192, 16384, 32768)] + \
    [(3072, 5632, k) for k in (1024, 2048, 4096, 8192)]
# fp8tilecost (session 61): fp8ksweep (runs 185-186) put exact fp8's gap in what each tile costs apart from its k
# tiles: at eight waves ours ran fixed 20.9 / 21.1 us + 23.4 / 22.7 us per 1024 of K (warm / cold) against
# _scaled_mm's 15.0 / 12.3 + 24.6 / 25.1, and in one wave 5.7 / 7.1 + 2.95 / 2.81 against 5.3 / 6.7 + 2.87 / 2.73.
# Which part of our epilogue is it? The broadcasts (per-row scale_a through Sm90ColBroadcast, scale_b and the bias
# through Sm90RowBroadcast, all read from global memory after the last MMA) each bulk-copied during the mainloop
# instead (lower.BULK_COL_BROADCAST / BULK_ROW_BROADCAST, csrc/cutlassgen/bulk_broadcast.hpp), and the tile with no
# epilogue but the store (fp8 plain, _scaled_mm with unit scales and no bias beside). Runs 189-190: both bulk forms
# (five stages) cut the fixed cost to 19.1 / 19.8 us but raised the per-K cost: +2-4% at K = 1024-2048, level from
# 4096; col alone 3-6% slower; ours plain 0.90-0.94x _scaled_mm plain. With one slot per vector (branch
# experiment/bulk-one-slot, runs 193-194) no better. Not taken.
FP8_TILE_COST_SHAPES = [(3072, 5632, k) for k in (1024, 2048, 4096)] + [(4096, 14336, 4096), (8192, 8192, 8192)]
FP8_TILE_COST_VARIANTS = (None, tuple({"BULK_COL_BROADCAST": c, "BULK_ROW_BROADCAST": r}
                                      for c in ("never", "always") for r in ("never", "always")))
# storestages (session 61): a cooperative tile's epilogue stores D from min(subtiles, 2) shared-memory buffers
# (CUTLASS's choice), and after each subtile's TMA store one warp waits until the store before it has read its
# buffer while every consumer warp waits at a barrier; at the tile's last subtile that is a store issued a subtile
# earlier, so each tile ends on it. With subtiles + 1 buffers (lower.EPI_STORE_STAGES) the waits are on the tile
# before's stores. 128x32 subtiles with 4 buffers hold D in the 32 KB of the default's two 128x64 ones (six mainloop
# stages); 128x64 with 3 and 128x128 with 2 cost a stage. Runs 191-192: 128x32 and 128x64 within 0.6% of CUTLASS's
# count; 128x128 with 2 still 2-4% behind 128x64 from K = 4096. Not taken (the setting stays, for study).
STORE_STAGES_GROUPS = [("128x128x128 c1x1 coop epi128x32", (None, 4)), ("128x128x128 c1x1 coop epi128x64", (None, 3)),
                       ("128x128x128 c1x1 coop epi128x128", (None, 2))]
STORE_STAGES_SHAPES = [(3072, 5632, 1024), (3072, 5632, 4096), (4096, 14336, 4096), (8192, 8192, 8192),
                       (2048, 8192, 8192)]
# onestore (session 62): under ncu (h200_ncu_source.log, session 62) cuBLASLt's exact kernel keeps six stages and
# still has its producer bulk-copy two of the epilogue's vectors per tile (UTMALDG.1D, its epilogue waiting on their
# mbarrier), in the shared memory of a single 16 KiB D buffer where CUTLASS's epilogue takes two. Session 61's bulk
# broadcasts (fp8tilecost) cost the default tile a stage. One D buffer (lower.EPI_STORE_STAGES = 1) alone, with both
# vectors' bulk copies, with the row broadcasts' only, and the bulk copies with CUTLASS's two buffers (five stages).
# Runs 204-205 (9 rounds warm / cold): every variant keeps six stages but the last; one buffer alone 0.7-6.9% slower
# (3.0-4.3% at 8192^3 and 4096x14336x4096), with both vectors bulk-copied 0.4-4.1% slower but +0.5% at 256x8192^2
# cold, with the row vectors' only 1.4-5.7% slower but +0.4 / +1.6% at 256x8192^2; the bulk copies with two buffers
# (five stages) +4.0 / +5.4% at 3072x5632x1024, -0.3 to +0.9% at the larger shapes, -3.0 / +0.4% at 256x8192^2 (runs
# 189-190 had the same mix). Our epilogue needs its second D buffer, where cuBLASLt's does with one. Not taken.
ONE_STORE_VARIANTS = (None, ({}, {"EPI_STORE_STAGES": 1},
                             {"EPI_STORE_STAGES": 1, "BULK_COL_BROADCAST": "always", "BULK_ROW_BROADCAST": "always"},
                             {"EPI_STORE_STAGES": 1, "BULK_ROW_BROADCAST": "always"},
                             {"BULK_COL_BROADCAST": "always", "BULK_ROW_BROADCAST": "always"}))
ONE_STORE_SHAPES = [(3072, 5632, 1024), (3072, 5632, 4096), (8192, 8192, 8192), (4096, 14336, 4096),
                    (2048, 8192, 8192), (256, 8192, 8192)]
# exactpp (session 64): exact fp8's gap is per tile (fp8ksweep: ~0.5-1 us more a tile at eight waves, the k tile
# level or faster), and at the power cap ours does 5-9% fewer FLOP per cycle than _scaled_mm at 8192^3 and
# 4096x14336x4096 (power_clock.py --case anchors, h200_power_clock.log run 7). A ping-pong tile hides one warpgroup's
# epilogue under the other's mainloop; with exact accumulation a warpgroup's 128x128 tile would need 256 accumulator
# registers, but a 64-row one fits (64x128: 128, 64x192: 192; both 168 registers and no spill, compiled here). Its
# cost: nothing covers a warpgroup's promotion adds, since ping-pong mainloops take turns. Runs 220-221: 0.53-0.83x
# the cooperative 128x128 at every shape (session 62's promotion-pair, runs 200-201, had found the same). Not taken.
EXACT_PP_TILES = named("128x128x128 c1x1 coop", "128x128x128 c2x1 coop", "64x128x128 c1x1 pingpong",
                       "64x128x128 c2x1 pingpong", "64x192x128 c1x1 pingpong", "64x192x128 c2x1 pingpong")
EXACT_PP_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192),
                   (3072, 5632, 4096)]
# opaquepipe (session 66): of session 65's schedules on the 128x128 tile (carryk, runs 223-228), the pipeline object
# hidden from ptxas alone ("fullopaque" on branch experiment/carry-k-tile) ran at or above "full" in 31 of 36 warm and
# cold comparisons over three calls (-0.6% to +3.1%; below at 3072x5632x4096 four times, 8192^3 cold once).
# lower.OPAQUE_PIPELINE off and on: the 128x128 tile from one wave to 31, and the plan's tiles at 32-256 rows
# (ping-pong, swapped, 176-wide). Runs 229-232 (two calls, warm / cold; on against off): +0.2 / +0.2% and 0 / +0.5% in
# one wave, +1.5 / +1.0% and +0.8 / +0.9% at 3072x5632x1024, +3.6 / +3.4% and +3.4 / +3.3% at 16384x8192x1024, but -0.5
# / -0.2% and -0.6 / -0.5% at 3072x5632x4096, -1.0 / -0.2% and -1.6 / -0.7% at 8192^3, -0.5 / -0.5% and -0.4 / -0.7% at
# 2048x8192^2; +0.4 to +1.4% at 4096x14336x4096 and 256x8192^2; the plan's tiles at 32-256 rows -0.3 to +1.0%; bit for
# bit the shipped output at 64 tile-shape pairs (setting_check.py). Not taken: it moves time from the anchors' shapes
# to K = 1024.
OPAQUE_PIPE_VARIANTS = ("OPAQUE_PIPELINE", (False, True))
OPAQUE_PIPE_SHAPES = [(1536, 1408, 8192), (3072, 5632, 1024), (16384, 8192, 1024), (3072, 5632, 4096),
                      (8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192)]
# opaquebyk (session 66, not yet run): OPAQUE_PIPELINE = 8 builds both k-tile loops into one kernel and takes the
# hidden one where a tile has at most 8 k tiles (K <= 1024), per call, to keep opaquepipe's gain there without its
# losses at K >= 4096. Compiled here (bench/sass_summary.py), the two copies are not the standalone loops: both hold
# the stage index and the barriers' addresses in uniform registers and release the stage right after the MMA wait (113
# and 114 instructions; 1528 in all against 1352), a third form, as fullcarryplain's on branch experiment/carry-k-tile.
# Off, on and 8, at the shapes of opaquepipe; check with setting_check.py --setting OPAQUE_PIPELINE=8 first. Runs
# 233-234 (session 67): at K = 1024 the combined kernel lost the hidden loop's gain (8 -0.9% to +1.0% against off, on
# +1.3 to +6.5%); at K >= 4096, where 8 runs its plain copy, c1x1 +0.1% to +2.8% and c2x1 -2.4% to +0.1%. Again at
# K >= 4096 with 15 rounds (runs 243-244, --shapes): c1x1 -0.5% to +3.0% (11 of 12 ahead), c2x1 -0.3% to -2.0%.
OPAQUE_BY_K_VARIANTS = ("OPAQUE_PIPELINE", (False, True, 8))
# opaquek (session 67): opaquebyk (runs 233-234) had the int form's combined kernel lose the hidden loop's gain at
# K = 1024, which the standalone loop (on) kept on both 128x128 tiles (+1.3 to +6.5%). Where in K does on lead off?
# A K sweep of both tiles at 8 and 30 waves, to set the K up to which a per-shape plan would take it. Runs 235-236
# (warm / cold, on against off): c1x1 +0.9 to +7.5% / +0.8 to +7.1% at K <= 2048, +0.2 and -3.1% / 0 and +1.6% at
# 3072; c2x1 +1.7 to +6.2% / +0.4 to +6.4% at K <= 2048, +1.1 and +2.6% / +1.6 and -0.4% at 3072.
OPAQUE_K_SHAPES = [(m, n, k) for m, n in ((3072, 5632), (16384, 8192)) for k in (256, 512, 768, 1024, 1536, 2048, 3072)]
# opaqueplan (session 67): the per-shape plan with Sm90Tile.opaque_pipeline on exact fp8's 128x128 cooperative tiles
# up to K = 2048 (tiles.OPAQUE_PIPELINE_MAX_K, from opaquek's runs 235-236) beside the same tile's shipped loop, through
# the DispatchKernel: at 241-256 rows (one wave at N = 8192), 384-512 rows, and 1024-8192 rows at K = 512-2048; at
# 4096x8192x3072 both run the shipped loop. Runs 237-238 (warm / cold, plan against the tile): +2.0 / +2.9% and
# +1.7 / +1.9% at 241-256 rows, +1.8 / +3.6% and +0.6 / +2.1% at 384-512 rows, +1.8 to +4.1% / +1.8 to +4.7% at
# 1024-8192 rows (8192x8192x1024 +3.9 / +4.2%, 4096x4096x512 +4.1 / +4.7%), -0.1 / 0.0% at K = 3072.
OPAQUE_PLAN_SHAPES = [(256, 8192, 1024), (248, 6144, 2048), (384, 8192, 1024), (512, 4096, 2048), (1024, 8192, 1024),
                      (2048, 8192, 2048), (4096, 4096, 512), (8192, 8192, 1024), (4096, 14336, 2048),
                      (4096, 8192, 3072)]
# opaquetokens (session 67): the plan's other exact-fp8 tiles (swapped and ping-pong token tiles, 176-wide) at
# K = 1024 and 2048 (MoE experts, small models), OPAQUE_PIPELINE off and on: opaquepipe timed them at K = 4096 only
# (-0.3% to +1.0%, runs 229-232). Runs 239-240 (warm / cold, by median time, on against off): -1.8% to +0.1% / -1.0%
# to +0.8%; warm equal at every K = 1024 shape and 0.4-1.8% less time at six of seven at 2048, cold within 1% either
# way (the 176-wide tile 0.3-0.8% slower). Not taken: about level, and each would be one more kernel to build.
OPAQUE_TOKEN_SHAPES = [(m, n, k) for m, n in ((32, 8192), (64, 6144), (112, 9216), (128, 4096), (200, 4096),
                                              (232, 8192), (256, 11008)) for k in (1024, 2048)]
# opaqueclone (session 68): OPAQUE_PIPELINE = 8's plain copy (ptxas's third loop form) ran ahead of the shipped loop on
# exact fp8's default tile, 128x128 c1x1, at K >= 4096 in 23 of 24 comparisons (opaquebyk, runs 233-234 and 243-244;
# about +0.9%), but session 64 had identical kernels 1-2% apart at 8192^3 (tailsk, runs 218-219). Each build twice (the
# second a clone: the same code under another cache key), to see whether 8's lead beats the spread of identical code.
# Runs 245-246 (warm / cold): 8 ahead in all 48 comparisons of a copy of 8 with a copy of the plain loop, +0.1 to
# +1.0% worst against best; the plain loop's copies 0-2.0% apart, 8's 0-1.7%. Taken: lower.BOTH_LOOPS_TILE (since
# then the plain loop alone is OPAQUE_PIPELINE=False, and no setting means the rule).
OPAQUE_CLONE_BUILDS = (None, tuple({"OPAQUE_PIPELINE": v, **clone} for v in (False, 8) for clone in ({}, {CLONE: 1})))
OPAQUE_CLONE_SHAPES = [(1536, 1408, 8192), (3072, 5632, 4096), (8192, 8192, 8192), (4096, 14336, 4096),
                       (2048, 8192, 8192), (16384, 8192, 4096)]
# clonespread (session 68): opaqueclone had two modules of identical code up to 2% apart. Four modules each of the
# default (both loops on this tile, lower.BOTH_LOOPS_TILE) and of the plain loop alone, at the shapes where the copies
# spread most: how wide is the spread between identical kernels, and does the rule's lead hold over four of each?
# Runs 247-248 (warm / cold, median of four modules against median of four): +1.7 / +1.1% at 8192^3, +1.0 / +2.4% at
# 16384x8192x4096, +0.8 / +0.6% at 4096x14336x4096; the default ahead in 91 of 96 module pairs; the modules of one
# build 0.2-1.8% apart.
CLONE_SPREAD_BUILDS = (None, tuple({**setting, **({CLONE: i} if i else {})}
                                   for setting in ({}, {"OPAQUE_PIPELINE": False}) for i in range(4)))
CLONE_SPREAD_SHAPES = [(8192, 8192, 8192), (16384, 8192, 4096), (4096, 14336, 4096)]
# exactwide (session 69): exact fp8's tile above 256 rows has been 128x128 (nvjet's exact tile too); each of its
# consumer warpgroups holds 64 accumulators and a 64-register partial sum. 128x192 (96 + 96, 168 registers and no
# spill under setmaxnreg's 232, compiled here) shares each k tile's A among 1.5x the columns, so a tile's fixed costs
# (epilogue, tile switch) and the shared-memory reads per MMA shrink; the adds per MMA stay. Wide tiles beside the
# default, two modules of each (CLONE), at the anchors' shapes and two of eight-plus waves.
EXACT_WIDE_TILES = named("128x128x128 c1x1 coop", "128x160x128 c1x1 coop", "128x176x128 c1x1 coop",
                         "128x192x128 c1x1 coop", "128x192x128 c1x1 coop epi128x64", "128x192x128 c2x1 coop")
EXACT_WIDE_BUILDS = (None, ({}, {CLONE: 1}))
EXACT_WIDE_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (3072, 5632, 4096),
                     (16384, 8192, 4096), (6144, 12288, 4096)]
# exactwidesweep (session 69): runs 249-250 had 128x192 ahead where N >= 12288 and behind at N = 5632 and 8192. The
# wide tiles beside the plan (the default, or its opaque tile at K <= 2048) over N at 4096 rows, over M and over K at
# N = 14336, and at the down projection's 4096x4096x14336: where a rule would start and stop.
EXACT_WIDE_SWEEP_TILES = named("128x128x128 c1x1 coop", "128x160x128 c1x1 coop", "128x192x128 c1x1 coop",
                               "128x192x128 c1x1 coop epi128x64", "128x208x128 c1x1 coop")
EXACT_WIDE_SWEEP_SHAPES = [*((4096, n, 4096) for n in (6144, 8192, 10240, 11008, 12288, 14336, 16384, 28672)),
                           *((m, 14336, 4096) for m in (384, 512, 1024, 2048, 8192)),
                           *((4096, 14336, k) for k in (1024, 2048, 8192)), (4096, 4096, 14336)]
# exactwideraster (session 69): below N = 12288 runs 249-252 had 128x192 ahead at 4096x8192x4096 but behind at 8192^3
# and 16384x8192x4096, where its 43 columns leave the auto swizzle at 1 (auto_swizzle.hpp pads nothing), and 128x208
# (40 columns: swizzle 8; 128x16 epilogue subtiles, 208 = 13 x 16) ahead at 4096x4096x14336 and 4096x14336x8192. The
# wide tiles under each raster and a padded swizzle of 2, at N = 4096 and 8192.
EXACT_WIDE_RASTER_TILES = named("128x128x128 c1x1 coop", "128x192x128 c1x1 coop epi128x64",
                                "128x192x128 c1x1 coop epi128x64 along_m", "128x192x128 c1x1 coop epi128x64 along_n",
                                "128x192x128 c1x1 coop epi128x64 swizzle2", "128x208x128 c1x1 coop",
                                "128x208x128 c1x1 coop along_m")
EXACT_WIDE_RASTER_SHAPES = [(8192, 8192, 8192), (16384, 8192, 4096), (8192, 8192, 4096), (4096, 8192, 8192),
                            (4096, 4096, 14336), (8192, 4096, 14336), (4096, 8192, 4096)]
# exactdeepk (session 69): runs 251-254 had 128x208 +2.4 to +3.4% at the down projection's N = 4096, K = 14336 (4096
# and 8192 rows) in two calls. Where does a deep-K class for it hold: over M at N = 4096, K = 14336, over K at
# 4096x4096, and the 70B down projection's N = 8192, K = 28672, beside the plan and the other widths. Runs 255-256
# (session 70), 128x208 against the plan, warm / cold: +2.5 / +2.6% at 4096x4096x14336, +1.4 / +1.2% at K = 8192,
# +1.3 / +3.2% at 28672, +0.3 / +1.9% at 8192 rows, +1.7 / +1.4% at 8192x8192x28672; -12% at 2048 rows, -0.3 / -1.3%
# at 16384, -1.8 / +0.2% at 4096x8192x28672, -11% at 4096x5120x13824 (there 128x160, 32 columns, +3.7 / +2.3%). The
# lead follows the waves N = 4096's 20 columns make at those rows, not K: no K class taken (the plan 0.97-1.02x
# _scaled_mm at these shapes).
EXACT_DEEP_K_TILES = named("128x128x128 c1x1 coop", "128x160x128 c1x1 coop", "128x192x128 c1x1 coop epi128x64",
                           "128x208x128 c1x1 coop")
EXACT_DEEP_K_SHAPES = [*((m, 4096, 14336) for m in (2048, 4096, 8192, 16384)), (4096, 4096, 8192), (4096, 4096, 28672),
                       (4096, 8192, 28672), (8192, 8192, 28672), (4096, 5120, 13824)]
# exactwideedge (session 70): tiles.EXACT_WIDE_M puts exact fp8 on 128x192 from 2049 rows at N >= 12288, but
# runs 251-252 timed only 2048 and 4096 rows there. Waves (ceil(tiles / 132) x width) with 128x192's ~4.5% per column
# put it about 2% behind 128x128 at 2049-2176 rows for N = 13824, 2305-2432 for N = 12288 and 2433-2560 for 14336,
# ahead or level elsewhere: the two tiles beside the plan just above the boundary. Runs 257-258: 128x192 level or
# ahead at each (-0.1 to +1.1% where the waves had it behind; +5 to +9% at 2304x13824, 2304x12288, 3072x14336): the
# boundary stands.
EXACT_WIDE_EDGE_TILES = named("128x128x128 c1x1 coop", "128x192x128 c1x1 coop epi128x64")
EXACT_WIDE_EDGE_SHAPES = [(2112, 13824, 4096), (2176, 13824, 4096), (2304, 13824, 4096), (3072, 13824, 4096),
                          (2304, 12288, 4096), (2368, 12288, 4096), (2432, 12288, 4096), (2560, 14336, 4096),
                          (3072, 14336, 4096)]
# fast256k (session 70): fast fp8 at 256x8192^2 is short of _scaled_mm's fast accumulation in every anchors run
# 47-56 (1.9-3.7%), and every 128x128 form (c1x1 / c2x1, cooperative / pingpong, six stages) sits within 1-2% of the
# others. nvjet runs 128x128x128 in a 2x1 cluster, one tile per CTA. Is ours behind per k tile or fixed? K swept at
# 256 rows (128 tiles, one wave), for `python bench/k_fit.py LOG`. Runs 259-260: warm +1.7-2.0% per k tile (fixed
# +0.2-0.3 us); cold a fixed 0.5-1.0 us behind (per k tile 2.5% faster, ahead at K = 32768). All four forms alike.
# fast256hints (session 73): clock_probe.py runs 5-9 put the fast plan's lone cycles at 256x8192^2 +1.9-2.9% over
# _scaled_mm fast accum's behind the bench's spin (its previous call's lines in L2), +0.2-1.1% after an L2 flush, and
# +2.1% after the flush and a write of 4 MB (dirty lines): ours pays more for evicting dirty lines. The plan's tile
# under L2 policies on its loads (lower.LOAD_HINTS; the unswapped tiles ship CuTe's EVICT_NORMAL): the weights
# EVICT_FIRST, so that they replace each other rather than the dirty lines; the activations EVICT_LAST beside them;
# no policy operand, as nvjet loads.
def _plain_hints(name: str, b: str, a: str) -> Setting:
    return Setting(name, {"a": {"swap_ab": "EVICT_NORMAL", "plain": a}, "b": {"swap_ab": "EVICT_FIRST", "plain": b}})


FAST_256_HINT_VARIANTS = ("LOAD_HINTS", (_plain_hints("cutlass", "EVICT_NORMAL", "EVICT_NORMAL"),
                                         _plain_hints("weights_first", "EVICT_FIRST", "EVICT_NORMAL"),
                                         _plain_hints("weights_first acts_last", "EVICT_FIRST", "EVICT_LAST"),
                                         _plain_hints("no_policy", "NO_POLICY", "NO_POLICY")))
FAST_256_HINT_SHAPES = [(256, 8192, 8192), (256, 8192, 32768)]
# weights256 (session 74): fast256hints' lever, weights EVICT_FIRST, set where it was measured only (fast fp8's
# 128x128x128 cooperative tile at 241-256 rows, N 4608-8448). The other unswapped tiles the plans ship at 113-256 rows,
# where few CTAs share each weight tile, with and without it: exact fp8's 128x128x128 (its 256-row anchor, and N 14336
# and 28672 at 256 rows), the 128x144 / 128x160 / 128x192 c2x1 tiles at 240-256 rows, 128x64 at 128 rows; fast fp8's
# 256x8192^2 tile again as the control; bf16 bias+gelu's 128x128x64 at 256x8192^2 (weights first with the activations
# EVICT_LAST ran 0.994 / 0.995x cuBLASLt fused in probe runs 40-41, session 15's tma_cache_hint.py). Warm and cold.
WEIGHTS_256_SHAPES = [(240, 9216, 8192), (256, 10240, 8192), (256, 12288, 4096), (128, 6144, 4096)]
WEIGHTS_256_EXACT_SHAPES = [(256, 8192, 8192), (256, 8192, 32768), (256, 14336, 4096), (256, 28672, 4096)]
# Runs 271-273: warm, weights first took +1.9-5.8% on every 128-row cooperative tile at 240-256 rows, exact and fast
# (exact 256x8192^2 +4.1 / +4.5%), and nothing at 128 rows (128x64: -0.4 to +0.7%); cold within 0.6% but +1.4% at
# N = 28672; bf16's 128x128x64 +1.6 / +0.4% warm, level cold. weights256b: what it does to exact fp8's hidden-loop tile
# at K <= 2048 (Sm90Tile.opaque_pipeline), and to bf16's 256-row tiles at more shapes. Runs 274-276: the hidden-loop
# tile level (0.0% warm, -1.2 / +0.5% cold: its weights fit in L2); bf16 +0.3-2.5% warm but level at K = 2048, -0.8 to
# +0.4% cold. Taken for every such tile at 129-256 rows but the hidden-loop one (tiles.WEIGHTS_FIRST_ROWS).
# weights128 (session 75): the unswapped tiles the plans ship at 104-256 rows without the field, with and without it:
# the 64-row pingpong tiles at 104-128 rows (two rows of CTAs share each weight tile, as the 128-row tiles at 256 rows
# do), 192x80 pingpong at 184-192 rows (one row of CTAs: each weight tile read once, like 128x64 at 128 rows, which ran
# level), and int8's 128-row cooperative tiles at 256 rows (int8 was left out of WEIGHTS_FIRST_DTYPES, unmeasured).
WEIGHTS_128_BF16_SHAPES = [(112, 10240, 4096), (128, 10240, 4096), (128, 10240, 8192), (128, 5120, 4096),
                           (128, 6144, 4096), (192, 10240, 4096)]
WEIGHTS_128_FP8_SHAPES = [(128, 10240, 4096), (112, 10240, 8192)]
WEIGHTS_128_FAST_SHAPES = [(128, 10240, 4096), (192, 10240, 4096)]
WEIGHTS_128_INT8_SHAPES = [(256, 8192, 8192), (256, 8192, 2048), (256, 10240, 4096), (256, 12288, 4096),
                           (128, 10240, 4096), (192, 10240, 4096)]
# Runs 277-279 (warm, cold, warm): warm, the field took +2.7-7.0% where the weights were 48 MiB or more (bf16's 64-row
# pingpong tiles at 112-128 rows and 192x80 at 192 rows; exact fp8's 64x160 at 112x10240x8192; int8's 128x128 at
# 256x8192x8192 and 128x192 at 256x12288x4096); at 16-40 MiB, which stay in L2 from one call to the next without it,
# it cost up to 14% (fast fp8's and int8's 64x160 at 128x10240x4096, bf16's 64x80 at 128x5120x4096 once, int8 at
# 256x8192x2048) but gained +0.7-2.7% on exact fp8's 64x160 and int8's 128x160 at 40 MiB; cold within 1.1%.
# weights128b: that threshold, both sides: the 128-row tiles the plan gives the field at 129-256 rows with 10-40 MiB of
# weights, and the tiles at 104-192 rows with 48-80 MiB (128x64 cooperative too), with and without it.
WEIGHTS_128B_BF16_SHAPES = [(256, 6144, 2048), (256, 6144, 4096), (128, 5120, 4096), (128, 5120, 8192)]
WEIGHTS_128B_FP8_SHAPES = [(256, 6144, 4096), (256, 8192, 4096), (256, 10240, 4096), (128, 5120, 14336),
                           (128, 6144, 8192)]
WEIGHTS_128B_FAST_SHAPES = [(256, 5120, 2048), (256, 8192, 2048), (256, 8192, 4096), (256, 10240, 4096),
                            (128, 10240, 4096), (112, 10240, 8192), (184, 10240, 8192), (128, 6144, 8192)]
WEIGHTS_128B_INT8_SHAPES = [(256, 8192, 4096), (128, 10240, 4096), (128, 10240, 8192), (192, 10240, 8192),
                            (128, 5120, 14336)]
# Runs 280-282: warm, +2.2-7.3% on every tile with 48-80 MiB of weights (bf16 64x80 at 128x5120x8192, fp8's 128x64
# at 128 rows, 64x160 and 192x80 pingpong, int8's too) but exact fp8's 128x64 at 128x5120x14336 (+1.1 / +0.3%),
# fp8's 128-row tiles at 256 rows +1.1-1.6% at 32 MiB and +2.3-3.0% at 40 MiB (128x160); with 10-24 MiB level to
# -1.7%, int8 at 32 MiB -2.6 / -3.9%, the 64-row pingpong tiles at 40 MiB -6.0 to -15.0% again; cold -0.9 to +1.3%
# but that 128x64 -2.7%. Taken: the field on every unswapped tile at 97-256 rows whose weights take over 40 MiB
# (tiles.WEIGHTS_FIRST_MIN_BYTES).
# weights128c: the one tile that rule takes unmeasured, 64x224 pingpong at 177-192 rows (three 64-row tiles share each
# weight tile), in bf16, fp8 fast and int8.
# Runs 283-285: warm +4.9 / +5.6% (bf16, 72 MiB), +2.0 / +2.7% (bf16, 144 MiB), +6.3% (fp8 fast, 72 MiB), +8.8 / +9.1%
# (int8, 72 MiB), and -5.1 / -5.6% for int8 at 36 MiB (below the threshold, where the rule leaves it off); cold -0.2
# to +1.3%.
WEIGHTS_128C_BF16_SHAPES = [(184, 9216, 4096), (192, 9216, 8192)]
WEIGHTS_128C_FAST_SHAPES = [(184, 9216, 8192)]
WEIGHTS_128C_INT8_SHAPES = [(184, 9216, 8192), (192, 9216, 4096)]
WEIGHTS_256_OPAQUE_SHAPES = [(256, 8192, 1024), (256, 8192, 2048)]
WEIGHTS_256_BF16_SHAPES = [(256, 8192, 2048), (256, 8192, 8192), (240, 9216, 8192), (256, 10240, 8192),
                           (256, 12288, 4096)]
# decode64wide (session 73): decode 64x8192^2 cold ran 0.970 / 0.973x cuBLAS mm in anchors runs 60 / 62 after
# 1.012-1.036 in runs 48-58: ours held 228-236 TFLOP/s, cuBLAS mm rose from 223-227 to 236-237 (3.75 TB/s from
# 128 MiB of weights). The plan's tile (swap 128x32x128 c1x2 coop, 128 CTAs) beside forms that change its steps and
# its stages: half the K per stage (twice the stages), pingpong consumers, no cluster, four stages.
DECODE_64_WIDE_TILES = named("swap 128x32x64 c1x2 coop", "swap 128x32x128 c1x2 pingpong", "swap 128x32x128 c1x1 coop",
                             "swap 128x32x128 c1x2 coop s4")
DECODE_64_WIDE_SHAPES = [(64, 8192, 8192)]
# swapweights (session 82): warm_weights_policy.py on the H200 (h200_session82.log) had the swapped decode tile at
# 64x5120x4096 (40 MiB of weights) 0.81-0.84x cuBLAS mm warm with its weights EVICT_FIRST and 0.89-0.93x with
# CUTLASS's loads, CUTLASS's 0-1.6% faster at 32 MiB, 2-5% slower at 48 MiB, level cold: the unswapped tiles' 40 MiB
# rule (tiles.WEIGHTS_FIRST_MIN_BYTES) for the swapped ones too? The plan's swapped tiles at other rows and fp8, each
# built both ways (LOAD_HINTS), at 40 MiB or less and one above.
SWAP_WEIGHTS_BF16 = [
    (named("swap 64x16x128 c1x1 pingpong"), [(16, 5120, 4096)], "cuBLAS mm"),
    (named("swap 64x48x128 c4x1 pingpong"), [(48, 5120, 4096)], "cuBLAS mm"),
    (named("swap 64x96x64 c4x1 pingpong"), [(96, 5120, 4096)], "cuBLASLt fused"),
    (named("swap 64x64x128 c1x1 pingpong"), [(128, 4096, 4096)], "cuBLASLt fused"),
    (named("swap 128x64x64 c1x1 coop"), [(192, 5120, 4096)], "cuBLASLt fused"),
    (named("swap 128x32x128 c1x2 coop"), [(64, 8192, 4096)], "cuBLAS mm")]
SWAP_WEIGHTS_FAST = [(named("swap 128x32x128 c1x2 coop", **FAST), [(64, 10240, 4096), (64, 8192, 4096)]),
                     (named("swap 64x64x128 c4x1 pingpong", **FAST), [(64, 5120, 8192)])]
# decode5120 (session 82): at 64x5120x4096 cuBLAS mm ran 221-225 TFLOP/s warm and the plan's 64x64 c4x1 (80 CTAs of
# 132 SMs) 201-206 with CUTLASS's loads: the swapped forms with more CTAs, other clusters, K steps and stream-K, with
# CUTLASS's loads (what 40 MiB would take under the rule above), at 40 and 80 MiB.
DECODE_5120_TILES = named("swap 64x64x128 c4x1 pingpong", "swap 64x64x128 c2x1 pingpong",
                          "swap 64x64x128 c1x1 pingpong", "swap 64x64x64 c4x1 pingpong",
                          "swap 64x32x128 c1x2 pingpong", "swap 64x32x128 c2x2 pingpong",
                          "swap 128x32x128 c1x2 coop", "swap 128x64x128 c4x1 coop", "swap 128x32x128 stream-K",
                          "swap 128x64x128 stream-K")
DECODE_5120_SHAPES = [(64, 5120, 4096), (48, 5120, 4096), (64, 5120, 8192)]
# decode5120k (session 87): decode5120 found no tile form that closes 64x5120x4096 (the plan 0.917x cuBLAS mm warm,
# 0.949x cold) while the same tile leads at 64x5120x8192 (1.10x). Over a K sweep k_fit.py splits each contender's
# time into what it pays once (launch, pipeline fill, epilogue) and per 1024 of K; the plain group (no epilogue,
# against cuBLAS mm, the same GEMM) says how much of the gap is the epilogue's.
DECODE_5120_K_TILES = named("swap 64x64x128 c4x1 pingpong", "swap 64x64x64 c4x1 pingpong")
DECODE_5120_K_SHAPES = [(64, 5120, k) for k in (1024, 2048, 4096, 8192, 16384)]
# decode5120rot (session 89): decode5120k on rotating input sets (weights from HBM, code and launch state warm). Warm,
# cuBLAS mm's time at 64x5120x4096 moved 15.1-16.7 us between sets of rounds (h100_session88.log, h100_session89.log):
# its 40 MiB of weights partly in L2 from the call before. Warm minus rotated is what that reuse gives each kernel;
# rotated minus cold (--cold) what the flush's evicting code and parameters costs: which of the two is our gap?
# keepweights (session 90): weights larger than L2 keeps thrash it under one priority: warm, the 40 MiB decode tile
# with CUTLASS's loads gained only ~4 us of ~20 from L2 (decode5120rot, h100_session89.log), the 48 MiB ones load
# EVICT_FIRST and gain nothing. Here the plan's tile at each shape loads its weights EVICT_FIRST but for the first
# WEIGHTS_KEEP_MIB, which load EVICT_NORMAL: the same part every call, for L2 to keep (0: all EVICT_FIRST). Warm and
# cold: cold must not lose.
KEEP_WEIGHTS_SHAPES = [(64, 4096, 4096), (64, 5120, 4096), (64, 6144, 4096), (64, 8192, 4096), (16, 8192, 8192),
                       (32, 8192, 8192), (64, 14336, 4096), (256, 8192, 8192)]
KEEP_WEIGHTS_MIB = ("WEIGHTS_KEEP_MIB", (0, 16, 24, 32))
# keepwide (session 92): keepweights on an H100 (h100_session92.log) had the plan's weights-first tiles with 16 MiB
# kept 1.00-1.29x cuBLAS mm warm over 48-128 MiB of bf16 weights and level cold, and 64x5120x4096's (40 MiB, no
# weights-first in the plan) 1.16x against the plan's 0.97x. Where else does it hold: the plan's tile at 36-40 MiB
# swapped and unswapped (where EVICT_FIRST alone cost up to 15%, tiles.py), fp8's weights-first tiles, kept 0 and 16.
KEEP_WIDE_BF16_SHAPES = [(64, 5120, 4096), (48, 4608, 4096), (128, 5120, 4096), (192, 4608, 4096)]
KEEP_WIDE_FAST_SHAPES = [(64, 10240, 4096), (128, 10240, 4096), (64, 8192, 8192), (256, 8192, 8192)]
KEEP_WIDE_EXACT_SHAPES = [(64, 8192, 8192), (256, 8192, 8192)]
# int8 (session 93): 36 and 40 MiB, where weights-first alone cost int8 up to 15% (192x9216x4096, tiles.py)
KEEP_WIDE_INT8_SHAPES = [(192, 9216, 4096), (64, 10240, 4096), (128, 10240, 4096)]
KEEP_WIDE_MIB = ("WEIGHTS_KEEP_MIB", (0, 16))


def weights_first_plan_tiles(make, shapes: list) -> list:
    """(tiles, shapes) for each tile the plan ships at shapes (make's all-auto spec): the plan's own, and the same tile
    with its weights EVICT_FIRST."""
    base = make(Sm90Tile())
    return [({"auto+shapes": PLAN, label(base.replace(tile=t)): t}, tile_shapes)
            for t, tile_shapes in shapes_by_plan_tile(base, shapes, weights_evict_first=True).items()]


def weights_first_plan_groups(make, shapes: list, variants: tuple) -> list:
    """weights_first_plan_tiles as groups of make's spec (group_kind's contenders and anchor), each named tile built
    under each of variants (a lower setting and its values)."""
    what, contenders, anchor = group_kind(make)
    return [(what, make, tiles, tile_shapes, contenders, anchor, variants)
            for tiles, tile_shapes in weights_first_plan_tiles(make, shapes)]


# decode5120u (session 87): swap_ab tiles the weights in steps of 64 rows, so N = 5120 makes 80 CTAs for 132 SMs.
# Unswapped, a 64-row CTA holds every token and CTA N goes in steps of 8: 40-wide weight tiles make 128 CTAs at
# N = 5120, 48-wide 128 at 6144. Runs 34 and 63 timed such tiles alone or in a 1x2 cluster (no better than swap_ab);
# cuBLAS's decode kernels run a 4-wide cluster along the weights (nvjet ..._4x1, h200_library_kernels.log), which
# here is c1x4: each token tile loaded once for four weight tiles.
DECODE_5120_UNSWAPPED_TILES = named("64x40x64 c1x4 pingpong", "64x40x128 c1x4 pingpong", "64x48x64 c1x4 pingpong",
                                    "64x40x64 c1x2 pingpong", "swap 64x64x64 c4x1 pingpong")
DECODE_5120_UNSWAPPED_SHAPES = [(64, 5120, 4096), (48, 5120, 4096), (64, 5120, 8192), (64, 6144, 4096)]
# directstore (session 88): decode5120k put the 64x5120 gap in the fixed part (k_fit.py: per 1024 of K ours 3.6 us
# against cuBLAS mm's 3.9-4.0 warm, fixed 2.9 against 1.7-2.2; the same tile and cluster as cuBLAS's nvjet 64x64 4x1,
# library_kernels.py). The plan's tile and 64x64x64 with CUTLASS's TMA epilogue and with lower.DIRECT_STORE's, which
# writes D from registers (no shared memory, no fence, barrier or bulk-store wait), bias+gelu and plain; the same
# tiles with one 64x64 epilogue subtile instead of two 64x32; and the plan's tile's epilogue parts at these shapes.
def with_one_subtile(*names: str) -> dict:
    """Each named 64-row pingpong tile with one epilogue subtile as wide as the tile: "NAME epi64xW" -> tile."""
    tiles = {n: tile_named(n) for n in names}
    return {f"{n} epi64x{t.cta[1]}": dataclasses.replace(t, epilogue_tile=(64, t.cta[1])) for n, t in tiles.items()}


DIRECT_STORE_TILES = named("swap 64x64x128 c4x1 pingpong", "swap 64x64x64 c4x1 pingpong")
DIRECT_STORE_EPI64_TILES = with_one_subtile(*DIRECT_STORE_TILES)
DIRECT_STORE_SHAPES = [(64, 5120, 1024), (64, 5120, 4096), (48, 5120, 4096), (64, 5120, 8192)]
DIRECT_STORE_VARIANTS = ("DIRECT_STORE", ("never", "swap_ab"))
# epiwide64 (session 88): directstore's 64x64 epilogue subtile ran 0.1-0.4 us ahead of CUTLASS's two 64x32 (cold, at
# all four shapes, but in a group of its own). The plan's swapped tiles wider than 32 beside the same tile with one
# subtile as wide as the tile, in one interleaved group, at the decode shapes of their classes.
EPI_WIDE_BASE = ("swap 64x48x128 c4x1 pingpong", "swap 64x64x128 c4x1 pingpong", "swap 64x64x64 c4x1 pingpong")
EPI_WIDE_TILES = {**named(*EPI_WIDE_BASE), **with_one_subtile(*EPI_WIDE_BASE)}
EPI_WIDE_SHAPES = [(64, 5120, 1024), (64, 5120, 4096), (48, 5120, 4096), (40, 8192, 4096), (64, 6144, 4096),
                   (64, 14336, 4096)]
FAST_256_K_TILES = named("128x128x128 c1x1 pingpong", "128x128x128 c2x1 pingpong", "128x128x128 c2x1 coop", **FAST)
FAST_256_K_SHAPES = [(256, 8192, k) for k in (2048, 4096, 8192, 16384, 32768)]
# fast256bulk (session 70): fast256k (runs 259-260) put the 256-row gap cold in the fixed part (ours 6.1-6.3 us
# against 5.1, per k tile 2.5% faster) and warm mostly per k tile (+1.7-2.0%, fixed +0.2-0.3 us). After the last MMA
# CUTLASS's epilogue reads the per-row scales, the per-column scales and the bias from global memory, from HBM when
# cold; lower.BULK_*_BROADCAST bulk-copies them during the mainloop (fp8tilecost measured it at eight waves only). The
# plan's tiles at 256 rows, exact and fast, under each setting: fast keeps 6 stages under every setting, exact drops to
# 5 with either bulk copy (its 128x64 epilogue subtiles take more shared memory than fast's 128x32), a confound to
# weigh. Runs 261-262 (session 71; cold / warm): the row broadcasts bulk-copied 0.1-0.4 us faster cold at K = 2048-8192
# but up to 0.8 us slower warm, the column ones slower everywhere; ours stays 0.4-0.5 us behind cold. Not taken.
FAST_256_BULK_SHAPES = [(256, 8192, 2048), (256, 8192, 8192), (256, 8192, 32768)]
# fast256code (session 71): the 512 MiB read that flushes L2 before each cold call evicts the kernel's code and whatever
# else its launch reads, not only its operands. The plan, fast and exact, beside _scaled_mm over fast256k's K sweep on
# rotating inputs (fp8_scaled_rotated_contenders: operands cold, the rest as the call before left it), for k_fit.py:
# is the cold fixed cost (runs 259-260) the data's or the launch's? Runs 263-265 (session 71; rotated, rotated and
# flushed, warm), the fast plan against _scaled_mm fast accum: fixed +0.32 / +0.57 / +0.27 us, per 1024 of K +2.9 /
# +1.4 / +2.9%. Cold operands alone leave the warm picture; about 0.25 us of the cold fixed gap comes with the flush
# (code, parameters), and the warm per-k-tile gap is the larger part at K >= 8192. No lever in the tile or settings.
# fulldesc (session 61): fp8ksweep (runs 185-186) had exact fp8's k tile 2.8-2.9% slower than cuBLASLt's in one wave,
# where no tile follows another. Between a k tile's adds and its next MMAs, full_promotion.hpp rebuilds the wgmma
# descriptors from the stage index (about 15 uniform instructions in the SASS, where nvjet's loop has a NOP and the
# warpgroup arrive); "fulldesc" carries them from k tile to k tile, the next one's made before the MMA wait (the same
# 1352 instructions). The plan's 128x128 tile at one and eight waves and the anchors' shapes, then the plan's tiles
# at fewer rows, each under both schedules. Runs 195-196 (warm / cold, fulldesc against full): +0.6 / +0.5% and
# +1.3 / +1.2% in one wave (K = 8192, 32768), +0.4 / +0.5% at 3072x5632x4096, -0.3 / -0.4% at 4096x14336x4096,
# +1.5 / +2.1% at 8192^3, +0.7 / +0.5% at 2048x8192^2, +0.1 / +0.6% at 256x8192^2; the plan's tiles at 32-256 rows
# 0 to +2.6% but 256x11008x4096 cold (-0.5%); bitwise equal to CUTLASS's mainloop (promotion_check.py). Taken: "full"
# carries the descriptors since, and the case builds each tile once, as shipped.
FULL_DESC_SHAPES = [(1536, 1408, 8192), (1536, 1408, 32768), (3072, 5632, 4096), (4096, 14336, 4096),
                    (8192, 8192, 8192), (2048, 8192, 8192), (256, 8192, 8192)]
FULL_DESC_PLAN_SHAPES = [(32, 8192, 4096), (64, 6144, 4096), (112, 9216, 4096), (200, 4096, 4096), (232, 8192, 4096),
                         (256, 11008, 4096)]
# fastmid (session 61): the fast default (128x128 pingpong) ran 1-2% behind the old 128x256 c2x1 cooperative tile at
# 1024 rows and level at 512 and 2048 (runs 183-184). Where in M does the old tile lead, and by how much? Runs
# 187-188: only where it makes fewer, fuller waves (0-1.8% at 896 and 1024 rows at N = 8192, 2.0-5.3% at 768 and
# 1024 rows at 4096x14336); pingpong 3-31% ahead at 640, 768, 1280 and 1792 rows and at N = 28672. Not taken.
FAST_MID_SHAPES = [(m, 8192, 8192) for m in (640, 768, 896, 1024, 1280, 1536, 1792)] + \
    [(m, 4096, 14336) for m in (768, 1024, 1280)] + [(m, 28672, 4096) for m in (768, 1024, 1280)]
FULL_WIDE_SHAPES = [(16, 8192, 4096), (32, 8192, 4096), (64, 6144, 4096), (72, 4096, 4096), (96, 11008, 4096),
                    (100, 14336, 4096), (112, 9216, 4096), (128, 6144, 4096), (168, 8192, 4096), (200, 4096, 4096),
                    (232, 8192, 4096), (240, 9216, 4096), (256, 11008, 4096)]
FULL_WIDE_VARIANTS = ("PROMOTION_TILES", ("coop128", "all"))
# fp8order (session 58): with every exact tile on full_promotion.hpp, anchors runs 41-42 left exact fp8 at 0.93-0.98x
# _scaled_mm at 8192^3 and 4096x14336x4096, and fast accumulation 0.97-0.99x. cuBLASLt's exact kernel is our tile and
# cluster (nvjet 128x128_128x6 1x1 "_h_", grid 1x132; library_kernels.py), its fast one 128x128x128 in a 2x1 cluster
# ("_v_"). Ours pick the tile walk per call ("auto" raster and swizzle; grid 132x1 at 4096x14336x4096): each walk
# CUTLASS's scheduler offers, and stream-K, whose decomposition fills the last wave (4096 128x128 tiles at 8192^3 are
# 31.03 waves of 132, 3584 at 4096x14336x4096 27.15) where the data-parallel one leaves it nearly empty. Runs 171-172:
# no walk beat "auto" by more than 1.2%, nor one walk at every shape (8192^3 along_m swizzle4 1243 vs 1231 warm, along_n
# 1297 vs 1282 cold); stream-K 2-6% slower (8192^3 1183-1201 vs 1231); the fast tile no faster in any walk or the 2x1
# cluster (within 0.5% of c1x1 "auto"). Not taken.
FP8_ORDER_EXACT = named("128x128x128 c1x1 coop", "128x128x128 c1x1 coop along_m", "128x128x128 c1x1 coop along_n",
                        "128x128x128 c1x1 coop swizzle1", "128x128x128 c1x1 coop along_m swizzle2",
                        "128x128x128 c1x1 coop along_n swizzle2", "128x128x128 c1x1 coop along_m swizzle4",
                        "128x128x128 c1x1 coop along_n swizzle4", "128x128x128 c1x1 coop swizzle8",
                        "128x128x128 c1x1 coop stream-K", "128x128x128 c1x1 coop stream-K always")
FP8_ORDER_FAST = named("128x128x128 c1x1 pingpong", "128x128x128 c1x1 pingpong along_m",
                       "128x128x128 c1x1 pingpong along_n", "128x128x128 c2x1 pingpong",
                       "128x128x128 c2x1 pingpong along_m", "128x128x128 c2x1 pingpong along_n", **FAST)
FP8_ORDER_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192)]
# fp8epicost (session 58): none of those walks beat the default (fp8order, runs 171-172). What the per-row and
# per-column scales and the bias cost ours and cuBLASLt: each tile with the chain and with no epilogue, _scaled_mm with
# them and with unit per-tensor scales and no bias, each accumulation against its own. Runs 173-174 (one group per
# epilogue then, whose "best ours" set the fast tile against the exact _scaled_mm): exact, the chain cost ours 0-1.3%
# and _scaled_mm 4-7%; with no epilogue ours ran 0.90-0.91x _scaled_mm's exact kernel warm (1235 / 1249 / 1310 vs 1374 /
# 1388 / 1435 TFLOP/s), 0.91x cold: the exact gap is in the mainloop.
FP8_EPI_EXACT = named("128x128x128 c1x1 coop")
FP8_EPI_FAST = named("128x128x128 c1x1 pingpong", **FAST)
# fittedtail (session 48): lower.TAIL_LOADS "all" loads the last token tile in one box of the rows that remain
# (load_hints.hpp; a second descriptor encoded per call, the missing bytes counted off the stage's barrier): no box
# past a's end, one box per 128-byte column as before. On a bare a, does each tile run at its padded time? Run 144's
# groups, with its faulted 2x1-cluster ones, fp8, and a decode tile whose 16 token rows few calls fill.
FITTED_TAIL_VARIANTS = ("TAIL_LOADS", ("never", "all"))
FITTED_TAIL_GROUPS = [(named("64x224x64 c1x1 pingpong"), [(161, 9216, 4096), (150, 9216, 4096), (164, 9216, 4096)]),
                      (named("swap 64x64x128 c1x1 pingpong"), [(136, 2048, 4096), (164, 2048, 4096)]),
                      (named("64x144x64 c2x1 pingpong"), [(100, 8512, 4096), (1, 8512, 4096)]),
                      (named("128x176x64 c2x1 coop"), [(240, 10432, 4096), (100, 10432, 4096)]),
                      (named("swap 64x16x128 pingpong"), [(5, 8192, 4096), (13, 4096, 4096)])]
FITTED_TAIL_FP8 = (named("64x224x128 c1x1 pingpong", **FAST), [(161, 9216, 4096), (150, 9216, 4096)])
# Run 148 (warm / cold / warm, us; the setting then named "fitted", the box's address still CuTe's swizzled pointer):
# the bare a at its padded time (swap 64x64x128 at 136x2048x4096 17.95 / 17.97 / 18.02 -> 12.96 / 13.97 / 12.96,
# padded 12.96 / 14.16 / 12.98; 64x224 at 164x9216 36.10 / 29.02 / 36.40 -> 30.72 / 29.12 / 30.85). Each pass then
# stopped at the 64x144 c2x1 group on the swizzled address's misaligned-address fault (fixed since): the 2x1-cluster,
# 128x176, decode and fp8 groups had not run.
# Run 149 (session 50, the fixed address; 1 and 100 rows added: a 2x1 cluster's spare CTA, whose token tile lies wholly
# past M; warm / cold, us, never -> all on a bare a, cuBLASLt fused or _scaled_mm beside): every group checked and
# timed. 64x224 at 161x9216 34.77 / 33.63 -> 29.95 / 28.67 (30.46 / 29.18); 64x144 c2x1 at 100x8512 26.24 / 25.36 ->
# 25.26 / 24.50 (24.93 / 23.71), at 1x8512 34.82 / 36.78 -> 28.14 / 29.92 (24.88 / 23.34); 128x176 c2x1 at 100x10432
# 47.81 / 47.28 -> 44.66 / 43.07 (31.52 / 31.07), at 240x10432 37.42 / 36.54 -> 37.90 / 36.70 (35.36 / 35.46);
# fp8 fast 64x224x128 at 150x9216 20.13 / 20.67 -> 17.36 / 18.80 (_scaled_mm 33.36 / 35.17); the decode tile at 5 and
# 13 rows within 1% either way. "all" is the default since (lower.py).
# alltail (session 50): TAIL_LOADS "all", the default since, gives the unswapped tiles load_hints.hpp's producer in
# place of CUTLASS's even where M fills every token tile (no box is fitted; bench/tail_loads_sass.py: the consumers'
# mainloop is the same instructions). The plan's tiles at the anchors' shapes, built with "swap_ab" (their code
# before) beside "all".
ALLTAIL_VARIANTS = ("TAIL_LOADS", ("swap_ab", "all"))
ALLTAIL_GROUPS = [(named("128x256x64 c2x1 coop"), [(8192, 8192, 8192), (2048, 8192, 8192)]),
                  (named("128x128x64 c1x1 pingpong"), [(4096, 14336, 4096)]),
                  (named("128x128x64 c1x1 coop"), [(256, 8192, 8192)])]
ALLTAIL_FP8 = [(named("128x256x128 c2x1 coop", **FAST), [(8192, 8192, 8192), (2048, 8192, 8192)]),
               (named("128x128x128 c1x1 coop", **FAST), [(256, 8192, 8192)])]
# Run 150 (warm / cold, TFLOP/s, swap_ab -> all): 8192^3 bf16 729 / 748 -> 719 / 746, fp8 1399 / 1465 -> 1381 / 1436;
# elsewhere within 1% either way but 2048x8192^2 bf16 warm (748 -> 762) and 4096x14336x4096 warm (736 -> 740).
# alltailcheck (session 51, after run 150): is "all" slower at 8192^3 on 128x256 c2x1, or was that one run's noise?
# 15 rounds; and the 128-row token tiles where M is ragged (8000 rows: 64 of the last tile's 128; 240 and 232 rows
# under the plan's 128x176 and 128x160 c2x1, where run 149 had "all" 1.3% / 0.4% slower warm / cold at 240x10432).
ALLTAIL_CHECK = [(named("128x256x64 c2x1 coop"), [(8192, 8192, 8192), (8000, 8192, 8192)]),
                 (named("128x176x64 c2x1 coop"), [(240, 10432, 4096)]),
                 (named("128x160x64 c2x1 coop"), [(232, 10240, 4096)])]
ALLTAIL_CHECK_FP8 = (named("128x256x128 c2x1 coop", **FAST), [(8192, 8192, 8192), (8000, 8192, 8192)])
# Run 152 (15 rounds, warm / cold, swap_ab -> all): bf16 8192^3 712 / 715 -> 711 / 727 TFLOP/s, 8000x8192^2 693 / 701
# -> 683 / 696; fp8 8192^3 1378 / 1431 -> 1362 / 1413, 8000x8192^2 1348 / 1378 -> 1337 / 1371; 128x176 at 240x10432
# 36.98 / 36.38 -> 37.68 / 36.38 us, 128x160 at 232x10240 35.42 / 33.39 -> 35.39 / 33.54. On 128 token rows "all" led
# only at bf16 8192^3 cold, so lower.TAIL_LOADS "swap_ab+m64" (the default since) keeps CuTe's loads there.
# tallfitted (session 51, after run 152; run 154): where the plan gives a ragged M an unswapped token tile of 128
# or 192 rows, which "swap_ab+m64" leaves on CuTe's loads (a box partly past a bare a's end): 192x80 at 177-191 rows,
# 128x144 c2x1 at 209-255 (N = 9216), 128x128 c1x1 at 225-255 (6144, 8192), 128x192 c2x1 at 225-255 (12288). Each
# built with the default beside "all" (the fitted box), on a bare and on a padded a; if "all" wins on a bare a at
# one of them, lower._tail_operand could take that class.
TALL_FITTED_VARIANTS = ("TAIL_LOADS", ("swap_ab+m64", "all"))
TALL_FITTED_GROUPS = [(named("192x80x64 c1x1 pingpong"), [(177, 10240, 4096), (185, 10432, 4096)]),
                      (named("128x144x64 c2x1 coop"), [(216, 9216, 4096)]),
                      (named("128x128x64 c1x1 coop"), [(232, 8192, 4096), (240, 6144, 4096)]),
                      (named("128x192x64 c2x1 coop"), [(248, 12288, 4096)])]
# Run 154 (warm / cold, us, bare a, the default -> all; cuBLASLt fused): 192x80 at 177x10240 33.38 / 32.46 -> 32.24 /
# 31.86 (36.93 / 36.11; padded a 32.02 / 30.59), at 185x10432 32.80 / 31.95 -> 33.17 / 31.63 (32.88 / 32.02); 128x144
# c2x1 at 216x9216 32.22 / 31.06 -> 31.81 / 30.98 (30.64 / 30.32); 128x128 at 232x8192 29.46 / 27.89 -> 29.70 / 28.24
# (28.83 / 27.28), at 240x6144 27.90 / 27.04 -> 27.55 / 27.20 (27.23 / 27.12); 128x192 c2x1 at 248x12288 39.23 /
# 38.45 -> 39.66 / 39.30 (38.85 / 38.70). No class ahead warm and cold at each of its shapes (192x80 is at 177 rows,
# not at 185): the default stands. The 128-row tiles at 216-232 rows trail cuBLASLt by 2-4% either way.
# M 65-128 (session 20): the sm90 bucket gives these rows the M = 256 tile, 128x128 cooperative, which makes N / 128
# CTAs (64 at N = 8192) for 132 SMs; no probe had timed the bucket's lower half. Twice the CTAs, stream-K or split-K
# over every SM, and swapped tiles with all the tokens in one CTA (the decode family's shape at 128 tokens).
MID128_TILES = named(
    "128x128x64 c1x1 coop",
    "128x64x64 c1x1 coop",
    "128x64x64 c1x2 coop",
    "128x128x64 c1x1 coop stream-K",
    "128x128x64 c1x1 coop split2",
    "swap 64x128x128 pingpong",
    "swap 64x128x64 c2x1 pingpong",
)
MID128_SHAPES = [(128, 8192, 8192), (96, 8192, 8192), (128, 14336, 4096), (128, 6144, 4096), (128, 4096, 4096)]
# Run 49 (mid128, cold and warm): against cuBLASLt fused the bucket's tile ran 0.64-0.85x at M = 128 with
# N <= 8192 (0.98-1.00x at N = 14336); the better of 128x64 cooperative and the swapped 64x128x128 pingpong
# 0.88-1.01x there. At 96x8192^2 every tile ran 0.67-0.80x, and each took longer than at M = 128 with the same CTAs
# (cuBLAS: less). The grid below: M 80-128 by N 4096-8192 at K = 4096, with swapped tiles whose token side fits 80,
# 96 and 112 rows, as cuBLAS fits its decode tiles to M (64x40, 64x48).
MID128_GRID_TILES = named(
    "128x128x64 c1x1 coop",
    "128x64x64 c1x1 coop",
    "swap 64x128x128 pingpong",
    "swap 64x96x128 pingpong",
    "swap 64x80x128 pingpong",
    "swap 64x112x128 pingpong",
    "128x128x64 c1x1 coop split2",
)
MID128_GRID_SHAPES = [(m, n, 4096) for m in (80, 96, 112, 128) for n in (4096, 6144, 8192)]
# Run 50 (mid128grid, cold / warm): the token tile's rows past M cost time: 128x64 cooperative at 96x8192x4096
# 31 us against 24 at M = 128 (207 / 352 TFLOP/s), the swapped 64x128 the same; 16 such rows cost little (64x96 at
# M = 80: 228, at M = 96: 281). The swapped 64x96 tile reached 0.87-0.99x cuBLASLt fused at M 80-96 (1.00x warm at
# 96x8192x4096), while the tiles fitted to 80 and 112 rows were slower than it, their epilogue subtile (64x16 by
# gcd) half as wide; as wide as their tiles, those two failed to compile (CUTLASS: "Fragment size does not vectorize
# properly"), 64x96 did. Here: 64x96 with one epilogue subtile as wide as the tile, the candidates for M 97-128, a 2x1
# cluster sharing the token tile at wide N, and two shapes of the 129-256 bucket whose second 128-row tile is mostly
# past M.
MID128_FIT_TILES = named(
    "swap 64x96x128 pingpong",
    "swap 64x96x128 pingpong epi64x96",
    "swap 64x80x128 pingpong",
    "swap 64x112x128 pingpong",
    "swap 64x128x128 pingpong",
    "swap 64x96x128 c2x1 pingpong",
    "128x64x64 c1x1 coop",
    "128x128x64 c1x1 coop",
)
MID128_FIT_SHAPES = ([(m, n, 4096) for m in (72, 80, 96, 104, 112, 128) for n in (4096, 8192)]
                     + [(m, 14336, 4096) for m in (80, 96, 112)] + [(96, 8192, 8192), (160, 8192, 4096),
                                                                     (192, 8192, 4096)])
# Run 51 (mid128fit, cold / warm): the swapped 64x96 tile 1.2-1.6x the bucket's 128x128 at M 72-96 (0.85-0.98x
# cuBLASLt fused cold, 0.71-1.04x warm), its 2x1 cluster 2-5% ahead at N = 14336; at M 104-128 128x64 cooperative
# led at N = 4096 and tied the swapped 64x128 at N = 8192; at N = 14336 the 128x128 tile stayed ahead. At M 129-256
# the bucket's 128x128 ran 0.51x cuBLASLt fused at 160x8192x4096 and 0.58x at M = 192, where two swapped 64x96 token
# tiles (no rows past M) ran 0.86x. Here: swapped tiles with all the tokens in one or two CTA columns, M 144-256.
FIT256_TILES = named(
    "128x128x64 c1x1 coop",
    "swap 64x96x128 pingpong",
    "swap 64x128x128 pingpong",
    "swap 64x128x64 pingpong",
    "swap 64x160x64 pingpong",
    "swap 64x192x64 pingpong",
    "swap 64x256x64 pingpong",
    "swap 64x96x128 c2x1 pingpong",
)
FIT256_SHAPES = ([(m, n, 4096) for m in (144, 160, 176, 192, 224, 256) for n in (4096, 8192)]
                 + [(192, 14336, 4096), (160, 14336, 4096), (256, 8192, 8192)])
# Run 52 (fit256, cold / warm): swapped token tiles fitted to M won from 129 to 192 rows (160x8192x4096 s64x160 408
# vs 229 for 128x128; 192x8192x4096 s64x192 499 vs 313; 192x4096^2 two s64x96 375 vs 243), 128x128 kept M 193-256
# from N = 8192 (256x8192x4096 608 vs 496-568), and at 256x4096^2 two s64x128x64 ran 448 / 495 vs 323 / 330. The
# per-shape plan made of these (tiles.py), at M between and beside those timed, against the tile it replaced.
FITCHECK_TILES = {"auto+shapes": PLAN, **named("128x128x64 c1x1 coop")}
FITCHECK_SHAPES = [(m, n, 4096) for m in (72, 88, 104, 120, 136, 168, 200, 240) for n in (4096, 8192, 14336)]
# Run 53 (fitcheck, cold / warm): the plan ran 1.0-1.7x the old 128x128 tile but at 200x4096^2 (225 vs 253: two
# 128-wide token tiles, 56 rows past M); against cuBLASLt fused it still trailed at M = 136 (0.71-0.82x), 168 at
# N >= 8192 (0.69-0.83x) and 200 (0.55-0.75x), where its token tiles have 24-56 rows past M. Here: token tiles 16 wide
# apart (an odd multiple of 16 takes a 16-wide epilogue subtile, which cost 64x80 and 64x112 time in run 50), so
# that no more than 8 rows pass M.
FITODD_TILES = named("swap 64x144x64 pingpong", "swap 64x160x64 pingpong", "swap 64x176x64 pingpong",
                     "swap 64x192x64 pingpong", "swap 64x208x64 pingpong", "swap 64x224x64 pingpong",
                     "swap 64x128x64 pingpong", "128x128x64 c1x1 coop")
FITODD_SHAPES = [(m, n, 4096) for m in (136, 168, 200) for n in (4096, 8192)]
# Run 55 (fitcheck at 6849b8f): the plan 0.97-1.84x the old tile, still 0.64-0.83x cuBLASLt fused at M = 136, 168
# and 200 with N >= 8192. cuBLAS runs two token columns there under one 128-row weight tile multicast over a 1x2
# cluster (nvjet 128x72, 128x88, 128x104, h200_library_kernels.log). Its form in steps of 16 and 32, beside the plan.
TWOCOL_TILES = {"auto+shapes": PLAN, **named("swap 128x64x64 c1x2 coop", "swap 128x80x64 c1x2 coop",
                                              "swap 128x96x64 c1x2 coop", "swap 128x112x64 c1x2 coop",
                                              "swap 128x128x64 c1x2 coop")}
TWOCOL_SHAPES = [(120, 8192, 4096), (136, 8192, 4096), (152, 8192, 4096), (168, 8192, 4096), (168, 4096, 4096),
                 (200, 8192, 4096), (200, 14336, 4096), (240, 8192, 4096)]
# Run 56 (twocol, cold / warm): two 96-token columns won at 168x8192x4096 (451 vs 353); odd multiples of 16 (80, 112)
# trailed, with 16-wide epilogue subtiles, the only width CUTLASS's builder compiled there. Run 58 built wider ones by
# rebinding the epilogue to 8-value fragments (7aa3606; since removed, as wgmma's extended shapes build them, run 59):
# the same odd-16 token tiles with their subtile as wide as the tile (epiMxN), so that no more than 8-15 rows pass M,
# beside the 16-wide subtile, the plan and, at 129-160 and 193-224, the plan's tile with the tokens multicast (2x1).
EPIWIDE_GROUPS = [
    (named("swap 64x80x128 pingpong", "swap 64x80x128 pingpong epi64x80", "swap 64x112x128 pingpong epi64x112",
           "swap 128x48x64 c1x2 coop epi128x48", "swap 128x64x64 c1x2 coop"),
     [(72, 4096, 4096), (72, 8192, 4096), (104, 4096, 4096), (104, 8192, 4096)]),
    (named("swap 64x144x64 pingpong", "swap 64x144x64 pingpong epi64x48", "swap 64x144x64 pingpong epi64x144",
           "swap 64x160x64 c2x1 pingpong", "swap 128x80x64 c1x2 coop epi128x80", "swap 128x80x64 c1x2 coop"),
     [(136, 4096, 4096), (136, 8192, 4096), (136, 14336, 4096), (152, 8192, 4096)]),
    (named("swap 64x208x64 pingpong", "swap 64x208x64 pingpong epi64x208", "swap 128x112x64 c1x2 coop epi128x112",
           "swap 64x224x64 c2x1 pingpong"),
     [(200, 4096, 4096), (200, 8192, 4096), (200, 14336, 4096)]),
]
# Run 58 (epiwide, cold / warm): a subtile as wide as the tile moved odd-16 token tiles by 0-5% only (64x144 at
# 136x8192x4096: 262 with 16-wide subtiles, 269 with 48 or 144; 64x160 297), so what slows them is not the epilogue.
# Under ncu (--ncu), each beside the 32-multiple tile one step wider, at the M both fit.
ODDN_GROUPS = [(named("swap 64x144x64 pingpong", "swap 64x160x64 pingpong"), [(136, 8192, 4096)]),
               (named("swap 64x80x128 pingpong epi64x80", "swap 64x96x128 pingpong"), [(80, 8192, 4096)])]
# Run 59 (oddn under ncu, bench/results/h200_ncu_oddn.log): at 80x8192x4096 the 64x80 tile issued twice the
# instructions of 64x96 (IPC 0.90 vs 0.44 in the same cycles) and kept L1/TEX 75% busy against 30%: CuTe's wgmma
# selector offers N = 8, 16, 32, 64, 96, 128, 192, 256 unless CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED is defined, so
# CTA N = 80 ran five m64n16k16 per K step (its PTX), 144 nine, 160 five m64n32k16. Since lower.py enables the
# extended shapes for such N, the token tiles between 32-multiples, one and two columns, with 16-wide and full-width
# subtiles, beside the plan of 3049806, at M between and beside its buckets' edges.
EXTMMA_GROUPS = [
    (named("swap 64x80x128 pingpong", "swap 64x80x128 pingpong epi64x80", "swap 64x112x128 pingpong",
           "swap 64x112x128 pingpong epi64x112", "swap 128x48x64 c1x2 coop", "swap 64x80x128 c2x1 pingpong"),
     [(72, 4096, 4096), (72, 8192, 4096), (72, 14336, 4096), (88, 8192, 4096), (104, 4096, 4096),
      (104, 8192, 4096), (104, 14336, 4096), (120, 4096, 4096)]),
    (named("swap 64x144x64 pingpong", "swap 64x144x64 pingpong epi64x48", "swap 64x160x64 pingpong",
           "swap 64x176x64 pingpong", "swap 128x80x64 c1x2 coop", "swap 128x80x64 c1x2 coop epi128x80",
           "swap 64x144x64 c2x1 pingpong"),
     [(136, 4096, 4096), (136, 8192, 4096), (136, 14336, 4096), (152, 8192, 4096), (168, 4096, 4096),
      (168, 8192, 4096), (176, 8192, 4096), (184, 14336, 4096)]),
    (named("swap 64x208x64 pingpong", "swap 64x224x64 pingpong", "swap 128x112x64 c1x2 coop",
           "swap 128x112x64 c1x2 coop epi128x112", "swap 64x240x64 pingpong", "swap 64x208x64 c2x1 pingpong"),
     [(200, 4096, 4096), (200, 8192, 4096), (200, 14336, 4096), (216, 8192, 4096), (240, 4096, 4096),
      (240, 8192, 4096)]),
]
# Tiles holding 160-208 fp32 accumulators per thread, which validation refused (limit 128) before session 14; built
# here without spills (ptxas -v, nvcc 13.0; 224 spills). cuBLAS's mm at 8192^3 runs 320x128x64 "coopB"
# (h200_library_kernels.log): 160 accumulators a thread if its two warpgroups split N. A wider tile reads fewer
# operand bytes per FLOP (256x192: 110 MACs per element loaded, 256x128: 85), which counts where the power cap sets
# the clock; it also changes wave quantization (8192^3: 1376 256x192 tiles are 10.4 waves of 132, 256x160 12.6,
# 256x128 15.5; 4096x14336: 256x160 10.9, 256x192 9.1).
# Run 36: no bf16 gain. CTA N of 160, 176 and 208 ran at 0.41-0.78 of 256x192's speed with no ptxas warning (wgmma
# N off a multiple of 64); 256x192 and 128x192 pingpong trailed the shipped tiles (cold 8192^3 720 vs 758 for
# 256x128 c1x2, 2048x8192^2 733 vs 786). fp8 128x192x128 pingpong led at 4096x14336x4096 (1512 vs 1493 cold).
# The 160-208 tiles had run as m64n32k16 / m64n16k16 instructions (run 59). Run 62, on the extended shapes, cold:
# they now run level with the others (256x160 c1x2 751 at 4096x14336x4096 vs 742 for the shipped 128x128 pingpong
# and cuBLASLt fused's 754; 256x176 780 at 2048x8192^2 vs 789 for the shipped 256x128 c1x2); no tile changed.
ACC192_BF16_TILES = named("128x256x64 c2x1 coop", "256x128x64 c1x2 coop", "128x128x64 c1x1 pingpong",
                          "256x160x64 c1x2 coop", "256x176x64 c1x2 coop", "256x192x64 c1x2 coop",
                          "256x192x64 c2x1 coop", "256x208x64 c1x2 coop", "128x160x64 c1x1 pingpong",
                          "128x192x64 c1x1 pingpong")
ACC192_FP8_TILES = named("128x128x128 c2x1 pingpong", "128x128x128 c1x1 pingpong", "256x160x128 c1x2 coop",
                         "256x192x128 c1x2 coop", "128x192x128 c1x1 pingpong", **FAST)
ACC192_SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (8192, 14336, 4096)]
# fp8 128x192x128 pingpong against the M > 512, N >= 12288 class tile across that class (after run 36). Run 37:
# +1.3-2.1% at 4096x14336x4096, 2048x28672x4096 and 4096x12288x4096, a tie at K = 8192, -1 to -5% at
# 1024x14336x4096, 8192x14336x4096 and 8192^3 (the waves: 600 tiles are 4.5 of 132 at M = 1024). Mixed, and fp8
# scaled already leads _scaled_mm there by 1.05-1.14x: the class tile stays.
FP8WIDE_TILES = named("128x128x128 c1x1 pingpong", "128x192x128 c1x1 pingpong", "128x192x128 c1x2 pingpong",
                      "128x192x128 c2x1 pingpong", "256x192x128 c1x2 coop", **FAST)
FP8WIDE_SHAPES = [(1024, 14336, 4096), (4096, 14336, 4096), (8192, 14336, 4096), (4096, 14336, 8192),
                  (2048, 28672, 4096), (4096, 12288, 4096), (8192, 8192, 8192)]
# cuBLASLt fused runs nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA at 2048x8192^2 and 4096x14336x4096 (library_kernels
# session 14), the tile family of our 256x128x64 c1x2; ours trailed it in 12 of the 14 per-round medians of anchors
# runs 12-18 there (bench/anchor_history.py). Its walk over the tiles (raster, swizzle) beside the per-call "auto"
# one: the probe swept them only for 128x256 c2x1 (run 3, 2048: along_m 788, along_n 763, auto 785, all with
# swizzle 1, the default then). Run 38: cold, none beat "auto" (2048 758-785 vs 786, 4096x14336 712-734 vs 736);
# warm, the best ran within 1% of it either way (4096x14336: swizzle1 720, along_m swizzle2 719 vs 712; 2048:
# along_m swizzle4 773 vs 771), inside that shape's run-to-run spread.
RASTER256_TILES = named("256x128x64 c1x2 coop", "256x128x64 c1x2 coop along_m", "256x128x64 c1x2 coop along_n",
                        "256x128x64 c1x2 coop along_n swizzle2", "256x128x64 c1x2 coop along_n swizzle4",
                        "256x128x64 c1x2 coop along_m swizzle2", "256x128x64 c1x2 coop along_m swizzle4",
                        "256x128x64 c1x2 coop swizzle1")
RASTER256_SHAPES = [(2048, 8192, 8192), (4096, 14336, 4096), (8192, 8192, 8192)]
# The M > 512, N < 12288 class runs the spec's default, 128x256 c2x1. In anchors runs 8-20 256x128 c1x2 (cuBLASLt
# fused's tile there, library_kernels session 14) beat it at 2048x8192^2 in every run (+0.1-0.6%) and at 8192^3 in
# most; probe run 30 had the default ahead at 8192^3 and 8192x4096x4096. Both across that class. Run 39: within
# +-0.5% of each other at every shape (256x128 c1x2 +0.3-0.4% at 2048x8192^2, the default +0.3-0.8% at
# 4096x8192^2, 8192x4096^2 and 8192x8192x4096), so the default stays; 256x128 c2x1 trailed both by 0.4-3%.
# Per round the better one trailed cuBLASLt fused by 0.1-1.9%, except at 4096x8192^2 warm (1.003).
# Session 17: under ncu at 2048x8192^2, nvjet's 256x128 c1x2 kernel sends the L2 14% fewer read requests from the SMs
# than ours in the same tile and cluster (12.96 M vs 15.09 M; both under the tile's nominal 16.8 M, the fabric's
# alike; bench/results/h200_ncu_l2.log). If requests for the same lines from CTAs that run at the same time merge on
# the way, which tiles run together decides the count: this case reads it for each tile order CUTLASS's scheduler
# offers (raster, swizzle) in both large tiles.
ORDER2048_TILES = named(*RASTER256_TILES, "256x128x64 c1x2 coop along_m swizzle8",
                        "256x128x64 c1x2 coop along_n swizzle8",
                        "128x256x64 c2x1 coop", "128x256x64 c2x1 coop along_m", "128x256x64 c2x1 coop along_n",
                        "128x256x64 c2x1 coop along_m swizzle4", "128x256x64 c2x1 coop along_n swizzle4")
# Run 47 (order2048 timed, cold, 7 rounds) had 128x256 c2x1 rastered along N at 803 against the default's 796 (auto
# picks along M there) and cuBLASLt fused's 803: this case asks whether along N holds across the class.
RASTER_LARGE_TILES = named("128x256x64 c2x1 coop", "128x256x64 c2x1 coop along_n", "256x128x64 c1x2 coop",
                           "256x128x64 c1x2 coop along_n")
LARGE_DEFAULT_TILES = named("128x256x64 c2x1 coop", "256x128x64 c1x2 coop", "256x128x64 c2x1 coop")
LARGE_DEFAULT_SHAPES = [(8192, 8192, 8192), (4096, 8192, 8192), (2048, 8192, 8192), (1024, 8192, 8192),
                        (8192, 4096, 4096), (4096, 4096, 4096), (2048, 4096, 4096), (4096, 4096, 14336),
                        (8192, 8192, 4096)]
# Session 16: ncu (device_session.sh source) put ours at 2.1% more cycles than cuBLASLt fused at 256x8192^2 and 1.0%
# more at 2048x8192^2, and cuBLAS mm's kernel at M = 256 4,700 cycles under its own fused one. Timing each contender
# over K (time = fixed + per-K-step cost) tells a cost paid once per tile or per launch (prologue, pipeline fill,
# epilogue tail) from a slower mainloop; with and without the epilogue, against cuBLAS mm and cuBLASLt fused.
KSWEEP_M256_TILES = named("128x128x64 c1x1 coop", "128x128x64 c2x1 coop", "128x128x64 c1x1 pingpong")
KSWEEP_M256_SHAPES = [(256, 8192, k) for k in (512, 1024, 2048, 4096, 8192)]
KSWEEP_PREFILL_TILES = named("256x128x64 c1x2 coop", "128x256x64 c2x1 coop")
KSWEEP_PREFILL_SHAPES = [(2048, 8192, k) for k in (1024, 4096, 8192)]
BULKCOL_DECODE_TILES = named("swap 64x16x128 pingpong", "swap 64x32x128 pingpong", "swap 64x32x128 c2x1 pingpong",
                             "swap 64x64x128 c4x1 pingpong", "swap 128x32x128 c1x2 coop")
BULKCOL_FP8_TILES = named("128x128x128 c2x1 pingpong", "128x128x128 c1x1 pingpong", **FAST)
BULKCOL_DECODE_SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (64, 8192, 8192), (32, 14336, 4096), (64, 14336, 4096),
                         (64, 6144, 4096)]
NARROW64_DECODE_SHAPES = [(64, 4096, 4096), (64, 5120, 8192), (64, 6144, 8192), (64, 6144, 4096), (40, 8192, 8192),
                          (64, 4096, 14336)]
WIDE64_DECODE_SHAPES = [(64, 14336, 4096), (64, 8192, 8192), (64, 28672, 8192), (48, 14336, 4096),
                        (64, 12288, 4096)]
WIDE_DECODE_SHAPES = [(16, 14336, 4096), (32, 14336, 4096), (64, 14336, 4096), (32, 12288, 4096),
                      (32, 28672, 8192), (32, 8192, 8192)]

def bias_gelu(tile):
    return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")])


def plain(tile):
    """The same GEMM without an epilogue: what the epilogue costs, against cuBLAS mm, which has none."""
    return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"), tile=tile)


def fp8_scaled(tile):
    return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=[Multiply("per_row", "scale_a", "fp32"), Multiply("per_col", "scale_b", "fp32"),
                              Add("per_col", "bias", "bf16")])


def fp8_scaled_fast(tile):
    """fp8_scaled with fp8_fast_accum, also for the plan's all-"auto" tile (fp8_scaled's plan runs without it)."""
    return fp8_scaled(dataclasses.replace(tile, fp8_fast_accum=True))


def int8_dequant(tile):
    """int8 operands, per-row x per-column scales to bf16 (the int8 per-shape GPU test's spec)."""
    return GemmSpec(arch=90, a=Operand("int8"), b=Operand("int8", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=[Multiply("per_row", "scale_a", "fp32"), Multiply("per_col", "scale_b", "fp32")])


def epilogue_part(tile_and_part):
    tile, part = tile_and_part
    return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=EPIPARTS[part])


def bf16_operands(M, N, K):
    """The bf16 cases' inputs: activations, weights scaled to keep the outputs O(1), and a bias."""
    return (torch.randn(M, K, device="cuda").bfloat16(), (torch.randn(N, K, device="cuda") / K ** 0.5).bfloat16(),
            torch.randn(N, device="cuda").bfloat16())


def nan_bf16(M: int, N: int):
    """with_checked_kernels' poisoned for a bf16 D: a function making an M x N output full of NaN."""
    return lambda: torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")


def with_checked_kernels(timed: dict, kernels: dict, call, ref_of, tol: float = 1.5e-2, poisoned=None) -> dict:
    """timed (the libraries) plus name -> call(kernel, name) for every kernel, each first checked against its float64
    reference ref_of(name); with poisoned (a function making a NaN-filled output) the check's call is
    call(kernel, name, out=poisoned()), so that an element the kernel leaves unwritten fails it (a NaN norm)."""
    for name, k in kernels.items():
        ref = ref_of(name)
        got = call(k, name) if poisoned is None else call(k, name, out=poisoned())
        err = rel_error(got, ref)
        assert err < tol, (name, err)
        timed[name] = lambda k=k, name=name: call(k, name)
    return timed


def epipart_contenders(kernels, M, N, K):
    """cuBLAS mm and each (tile | part) kernel, given the bias only if its part has one, each checked first."""
    a, w, bias = bf16_operands(M, N, K)
    acc = a.double() @ w.double().t()
    refs = {"plain": acc, "bias": acc + bias.double(), "gelu": F.gelu(acc, approximate="tanh"),
            "bias+gelu": F.gelu(acc + bias.double(), approximate="tanh")}

    def part(name):
        return name.split(" | ")[1]

    return with_checked_kernels({"cuBLAS mm": lambda: torch.mm(a, w.t())}, kernels,
                                lambda k, name: k(a, w.t(), **({"bias": bias} if "bias" in part(name) else {})),
                                lambda name: refs[part(name)])


def bias_gelu_contenders(kernels, M, N, K):
    """name -> fn for the libraries and every kernel, each kernel checked against a float64 reference first."""
    a, w, bias = bf16_operands(M, N, K)
    ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
    timed = {"cuBLAS mm": lambda: torch.mm(a, w.t()),
             "cuBLASLt fused": lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)}
    return with_checked_kernels(timed, kernels, lambda k, _, out=None: k(a, w.t(), bias=bias, out=out), lambda _: ref,
                                poisoned=nan_bf16(M, N))


def plain_contenders(kernels, M, N, K):
    a, w, _ = bf16_operands(M, N, K)
    ref = a.double() @ w.double().t()
    return with_checked_kernels({"cuBLAS mm": lambda: torch.mm(a, w.t())}, kernels,
                                lambda k, _, out=None: k(a, w.t(), out=out), lambda _: ref,
                                poisoned=nan_bf16(M, N))


def scaled_mm_takes(N, K) -> bool:
    """Whether torch._scaled_mm runs this shape: it wants N and K in steps of 16 (run 129's fp8 groups stopped at
    N = 5000); elsewhere the fp8 groups time the kernels alone."""
    return N % 16 == 0 and K % 16 == 0


def fp8_scaled_operands(M, N, K):
    """The fp8 scaled cases' inputs (activations, weights, bias, per-row and per-column scales), the float64
    reference, and torch._scaled_mm on them where it takes the shape (else no library): "_scaled_mm" accumulates
    exactly (its default), "_scaled_mm fast accum" as our fp8_fast_accum kernels do (use_fast_accum=True)."""
    a8 = torch.randn(M, K, device="cuda").clamp(-448, 448).to(torch.float8_e4m3fn)
    w8 = (torch.randn(N, K, device="cuda") / K ** 0.5 * 16).to(torch.float8_e4m3fn)
    bias = torch.randn(N, device="cuda").bfloat16()
    sa, sb = torch.rand(M, device="cuda") + 0.5, torch.rand(N, device="cuda") / 16
    ref = (a8.double() @ w8.double().t()) * sa.double()[:, None] * sb.double() + bias.double()

    def scaled_mm(fast):
        return lambda: torch._scaled_mm(a8, w8.t(), scale_a=sa[:, None], scale_b=sb[None], bias=bias,
                                        out_dtype=torch.bfloat16, use_fast_accum=fast)

    libraries = {"_scaled_mm": scaled_mm(False), "_scaled_mm fast accum": scaled_mm(True)} \
        if scaled_mm_takes(N, K) else {}
    return a8, w8, bias, sa, sb, ref, libraries


def fp8_scaled_contenders(kernels, M, N, K):
    a8, w8, bias, sa, sb, ref, libraries = fp8_scaled_operands(M, N, K)
    return with_checked_kernels(
        libraries, kernels,
        lambda k, _: k(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias), lambda _: ref, tol=2e-2)


# What the rotated contenders' input sets hold together: five times the H200's 50 MB L2, so that a call finds none of
# its operands there (an LRU evicts them before their set comes round again).
ROTATE_MIB = 256


def rotated(contenders, set_bytes):
    """contenders over rotating input sets: each call reads operands that no call since their set's last turn has left
    in L2, so its data come from HBM as under --cold, but the code and launch state the call before it left (the same
    function, a spin kernel between) stay where they were; a 512 MiB flush evicts those too. Every set's kernels are
    checked against that set's float64 reference. set_bytes(M, N, K): what one set's operands, D and vectors take."""
    def rotated_contenders(kernels, M, N, K):
        count = max(2, math.ceil(ROTATE_MIB * 2**20 / set_bytes(M, N, K)))
        sets = [contenders(kernels, M, N, K) for _ in range(count)]

        def rotating(fns):
            turn = itertools.cycle(fns)
            return lambda: next(turn)()
        return {name: rotating([s[name] for s in sets]) for name in sets[0]}
    rotated_contenders.__name__ = contenders.__name__.replace("_contenders", "_rotated_contenders")
    return rotated_contenders


# fp8 A and B, bf16 D and bias, fp32 scales; bf16 A, B, D and bias
fp8_scaled_rotated_contenders = rotated(fp8_scaled_contenders,
                                        lambda M, N, K: M * K + N * K + 2 * M * N + 2 * N + 8 * (M + N))
bias_gelu_rotated_contenders = rotated(bias_gelu_contenders, lambda M, N, K: 2 * (M * K + N * K + M * N + N))
plain_rotated_contenders = rotated(plain_contenders, lambda M, N, K: 2 * (M * K + N * K + M * N))
ROTATING = {fp8_scaled_rotated_contenders, bias_gelu_rotated_contenders, plain_rotated_contenders}


def fp8_plain(tile):
    """fp8_scaled's operands with no epilogue: D = A B in bf16 (what the scales and bias cost, case fp8epicost)."""
    return fp8_scaled(tile).replace(epilogue=[])


def fp8_plain_contenders(kernels, M, N, K):
    """fp8_scaled's operands with no scales or bias: each kernel, and _scaled_mm with unit per-tensor scales and no
    bias, exact and fast, beside the scaled chain's _scaled_mm calls."""
    a8, w8, _, _, _, _, libraries = fp8_scaled_operands(M, N, K)
    one = torch.ones((), device="cuda")
    for fast in (False, True):
        libraries[f"_scaled_mm plain{' fast accum' if fast else ''}"] = \
            lambda fast=fast: torch._scaled_mm(a8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                               use_fast_accum=fast)
    return with_checked_kernels(libraries, kernels, lambda k, _: k(a8, w8.t()),
                                lambda _: a8.double() @ w8.double().t(), tol=2e-2)


def int8_dequant_contenders(kernels, M, N, K):
    """cuBLAS's int8 GEMM (torch._int_mm, int32 out, no scales) and the bf16 mm of the same shape, beside each
    kernel, checked first into a NaN-poisoned output (small integers: the float64 reference is exact)."""
    a8 = torch.randint(-8, 8, (M, K), device="cuda", dtype=torch.int8)
    w8 = torch.randint(-8, 8, (N, K), device="cuda", dtype=torch.int8)
    sa, sb = torch.rand(M, 1, device="cuda") + 0.5, torch.rand(1, N, device="cuda") / 64
    ref = (a8.double() @ w8.double().t()) * sa.double() * sb.double()
    a16, w16 = a8.bfloat16(), w8.bfloat16()
    timed = {"cuBLAS bf16 mm": lambda: torch.mm(a16, w16.t()), "_int_mm": lambda: torch._int_mm(a8, w8.t())}
    return with_checked_kernels(
        timed, kernels, lambda k, _, out=None: k(a8, w8.t(), scale_a=sa.reshape(M), scale_b=sb.reshape(N), out=out),
        lambda _: ref, poisoned=nan_bf16(M, N))


def in_taller_buffer(a, extra: int = 256, fill: float = float("nan")):
    """a's values as the first rows of a buffer extra rows taller, the rows past them fill."""
    tall = torch.full((a.shape[0] + extra, a.shape[1]), fill, device=a.device).to(a.dtype)
    tall[:a.shape[0]] = a
    return tall[:a.shape[0]]


def on_places(kernels: dict, places: dict, wrap=None) -> dict:
    """Each kernel under its name, and again for every place suffix of places but "" as "<name><suffix>", as
    wrap(suffix, kernel) where wrap is given."""
    return {name + suffix: (wrap(suffix, k) if wrap and suffix else k) for suffix in places
            for name, k in kernels.items()}


def place_of(places: dict, name: str):
    """The tensor a contender named name runs on: the place its " | " suffix names, else the bare one ("")."""
    return places[name[name.find(" | "):] if " | " in name else ""]


def bias_gelu_on_places(kernels, M, N, K, places_of, wrap=None):
    """cuBLASLt fused and each kernel on a under its name, and again on every other place of a's rows that places_of(a)
    gives (name suffix -> tensor) as "<name><suffix>" (on_places: wrap(suffix, kernel) where wrap is given), each
    checked first into a NaN-poisoned output."""
    a, w, bias = bf16_operands(M, N, K)
    ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
    places = {"": a, **places_of(a)}
    timed = {"cuBLASLt fused": lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)}
    return with_checked_kernels(
        timed, on_places(kernels, places, wrap),
        lambda k, name, out=None: k(place_of(places, name), w.t(), bias=bias, out=out),
        lambda _: ref, poisoned=nan_bf16(M, N))


def fp8_on_places(kernels, M, N, K, places_of, wrap=None):
    """The _scaled_mm contenders, each kernel on the fp8 activation, and again on every other place of its rows that
    places_of(a) gives, as bias_gelu_on_places does."""
    a8, w8, bias, sa, sb, ref, libraries = fp8_scaled_operands(M, N, K)
    places = {"": a8, **places_of(a8)}
    return with_checked_kernels(
        libraries, on_places(kernels, places, wrap),
        lambda k, name, out=None: k(place_of(places, name), w8.t(), scale_a=sa, scale_b=sb, bias=bias, out=out),
        lambda _: ref, tol=2e-2, poisoned=nan_bf16(M, N))


def padded_bias_gelu_contenders(kernels, M, N, K, zeros: bool = False):
    """Each kernel on a and on in_taller_buffer(a) (" | padded"); with zeros also with the rows past M zero."""
    return bias_gelu_on_places(kernels, M, N, K, lambda a: {
        " | padded": in_taller_buffer(a), **({" | padded zeros": in_taller_buffer(a, fill=0.0)} if zeros else {})})


def bare_view(t):
    """t's elements as a tensor whose storage is exactly its own (DLPack drops the rest of t's buffer), so that the
    runtime cannot widen the mainloop's descriptors past its rows."""
    return torch.utils.dlpack.from_dlpack(t)


def in_buffer_and_padded(a) -> dict:
    """a's rows as a bare view of a taller buffer's first rows (" | in buffer") and as that buffer's (" | padded",
    widened): the same memory, descriptors that differ only in extent."""
    tall = in_taller_buffer(a)
    view = bare_view(tall)
    assert view.untyped_storage().nbytes() == a.numel() * a.element_size()
    return {" | in buffer": view, " | padded": tall}


def placed_bias_gelu_contenders(kernels, M, N, K):
    """Each kernel on a in three places (oobplace): its own allocation, a bare view of a taller buffer's first rows,
    and that buffer's rows padded (widened)."""
    return bias_gelu_on_places(kernels, M, N, K, in_buffer_and_padded)


def widened_over_padded_grid(M: int, N: int, K: int):
    """wrap for on_places: a kernel called with the mainloop's descriptors of a spanning every row of the scheduler's
    grid, M's tile rows and the rows of tiles its walk pads past them (tiles.walk_rows_past_m; the runtime's
    _rows_readable widens them only to the last M tile's end, and only at ragged M), so that a padded row of tiles
    lying wholly past M loads rows inside a's buffer (in_taller_buffer's 256 rows past M must hold them)."""

    def wrap(_suffix, k):
        cta_m = resolve(k.spec).cta[0]
        rows = (-(-M // cta_m) + walk_rows_past_m(k.spec, M, N, K)) * cta_m
        assert rows <= M + 256, (k.spec.name, M, rows)

        def call(*args, **kw):
            k._rows_readable = lambda a, M, K, lda: rows  # the instance's, for this call only
            try:
                return k(*args, **kw)
            finally:
                del k._rows_readable
        return call
    return wrap


def widened_bias_gelu_contenders(kernels, M, N, K):
    """cuBLASLt fused, each kernel on a bare a, and each on a taller buffer's first M rows with its descriptors
    widened over the padded grid (" | widened", widened_over_padded_grid)."""
    return bias_gelu_on_places(kernels, M, N, K, lambda a: {" | widened": in_taller_buffer(a)},
                               widened_over_padded_grid(M, N, K))


def widened_fp8_contenders(kernels, M, N, K):
    """widened_bias_gelu_contenders' contenders for the fp8 scaled spec, against _scaled_mm."""
    return fp8_on_places(kernels, M, N, K, lambda a: {" | widened": in_taller_buffer(a)},
                         widened_over_padded_grid(M, N, K))


def padded_zeros_bias_gelu_contenders(kernels, M, N, K):
    return padded_bias_gelu_contenders(kernels, M, N, K, zeros=True)


def padded_fp8_contenders(kernels, M, N, K):
    """Each kernel on the fp8 activation and on in_taller_buffer(a) (" | padded")."""
    return fp8_on_places(kernels, M, N, K, lambda a: {" | padded": in_taller_buffer(a)})


def shipped_tiles(make, shapes) -> dict:
    """label -> the per-shape tile (tiles.shape_tile) an all-auto spec of make() runs at each of shapes today."""
    base = make(Sm90Tile())
    return {label(base.replace(tile=t)): t for t in (shape_tile(base, M, N) for M, N, _ in shapes)}


SHIPPED_DECODE_TILES = shipped_tiles(bias_gelu, UNSWAP_DECODE_SHAPES)


def run_in_probe_range(fn):
    """One call of fn, alone on the GPU, inside the NVTX range that `ncu --nvtx --nvtx-include probe/` profiles."""
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("probe")
    fn()
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()


# case -> [(what, spec of a tile, tiles, shapes, contenders, the library to beat[, (a cutlassgen.lower setting, its
#           values): each tile built once per value; or (None, settings dicts): once per dict])]
def with_and_without_epilogue(tiles: dict, shapes: list, anchor: str, rotating: bool = False) -> list:
    """Two case groups: bf16 bias+gelu against anchor, and the same tiles without an epilogue against cuBLAS mm
    (rotating: each on rotating input sets, rotated())."""
    with_epilogue, without = ((bias_gelu_rotated_contenders, plain_rotated_contenders) if rotating
                              else (bias_gelu_contenders, plain_contenders))
    return [("bf16 bias+gelu", bias_gelu, tiles, shapes, with_epilogue, anchor),
            ("bf16 plain", plain, tiles, shapes, without, "cuBLAS mm")]


def beside_plan(tiles: dict, shapes: list, *builds) -> tuple:
    """A bf16 bias+gelu group: tiles beside the per-shape plan and the libraries, ratios to cuBLASLt fused (builds: a
    lower setting to build each tile once per value of, as builds_of reads it)."""
    return ("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **tiles}, shapes, bias_gelu_contenders, "cuBLASLt fused",
            *builds)


def beside_plan_each(groups: list) -> list:
    """beside_plan for each (tiles, shapes) of groups."""
    return [beside_plan(tiles, shapes) for tiles, shapes in groups]


def scaled_mm_like(make) -> str:
    """The _scaled_mm contender that accumulates as make's kernels do (fp8_scaled_operands names both)."""
    return "_scaled_mm fast accum" if make is fp8_scaled_fast else "_scaled_mm"


def fp8_shipped_each(shapes: list, *builds) -> list:
    """One exact-fp8 group per shape: the tile the plan ships there, against _scaled_mm (builds: a lower setting to
    build each tile once per value of, as builds_of reads it)."""
    return [("fp8 scaled", fp8_scaled, shipped_tiles(fp8_scaled, [shape]), [shape], fp8_scaled_contenders, "_scaled_mm",
             *builds) for shape in shapes]


def shapes_by_plan_tile(base, shapes: list, **fields) -> dict:
    """The tile the plan ships at each of shapes (for base, an all-auto spec), with fields replaced -> its shapes."""
    by_tile = {}
    for shape in shapes:
        by_tile.setdefault(dataclasses.replace(shape_tile(base, *shape), **fields), []).append(shape)
    return by_tile


def group_kind(make) -> tuple:
    """(what, contenders, anchor) of a group of make's spec: bias_gelu against cuBLASLt fused, int8_dequant against
    _int_mm, fp8_scaled or fp8_scaled_fast against the _scaled_mm that accumulates alike."""
    return {bias_gelu: ("bf16 bias+gelu", bias_gelu_contenders, "cuBLASLt fused"),
            int8_dequant: ("int8 dequant", int8_dequant_contenders, "_int_mm")}.get(
                make, ("fp8 scaled", fp8_scaled_contenders, scaled_mm_like(make)))


def with_and_without_weights_first(make, shapes: list) -> list:
    """Groups of make's spec (group_kind's contenders and anchor): the tile the plan ships at each of shapes, one
    group per tile, built with its weights loaded EVICT_FIRST (Sm90Tile.weights_evict_first) and without."""
    base = make(Sm90Tile())
    by_tile = shapes_by_plan_tile(base, shapes, weights_evict_first=False)
    what, contenders, anchor = group_kind(make)
    def both(t) -> dict:
        name = label(base.replace(tile=t))
        return {name: t, f"{name} weights-first": dataclasses.replace(t, weights_evict_first=True)}
    return [(what, make, both(t), tile_shapes, contenders, anchor) for t, tile_shapes in by_tile.items()]


def plan_tile_by_stages(make, shape, stages: tuple) -> tuple:
    """A group of make's fp8 scaled spec at shape: the tile the plan ships there as it is ("auto" stages) and with
    each of stages, against the _scaled_mm that accumulates alike."""
    base = make(Sm90Tile())
    tile = shape_tile(base, *shape)
    name = label(base.replace(tile=tile))
    tiles = {f"{name} (plan, auto stages)": tile,
             **{f"{name} {n} stages": dataclasses.replace(tile, stages=n) for n in stages}}
    return ("fp8 scaled", make, tiles, [shape], fp8_scaled_contenders, scaled_mm_like(make))


def fp8_beside_plan(make, tiles: dict, shapes: list) -> tuple:
    """An fp8 scaled group (make: fp8_scaled, or fp8_scaled_fast for the plan with fast accumulation too): tiles
    beside the per-shape plan and torch._scaled_mm, whose accumulation (exact or fast) is the anchor."""
    return ("fp8 scaled", make, {"auto+shapes": PLAN, **tiles}, shapes, fp8_scaled_contenders, scaled_mm_like(make))


def int8_beside_plan(tiles: dict, shapes: list) -> tuple:
    """An int8 dequant group: tiles beside the per-shape plan, cuBLAS's int8 GEMM and the bf16 mm."""
    return ("int8 dequant", int8_dequant, {"auto+shapes": PLAN, **tiles}, shapes, int8_dequant_contenders, "_int_mm")


def fp8_fast_then_without(groups: list) -> list:
    """fp8_beside_plan for each (tile names, shapes) of groups: all with fast accumulation, then all without."""
    return [fp8_beside_plan(make, named(*names, **extra), shapes)
            for make, extra in ((fp8_scaled_fast, FAST), (fp8_scaled, {})) for names, shapes in groups]


def setting_groups(variants: tuple, bf16: list = (), fp8: list = (), padded: bool = False) -> list:
    """bf16 bias+gelu groups against cuBLASLt fused, then fp8 scaled ones (fast accumulation) against _scaled_mm's, for
    each (tiles, shapes), every tile built once per value of variants (a lower setting and its values, as builds_of
    reads it); padded: each call on a bare a and on a padded one."""
    bf16_calls, fp8_calls = ((padded_bias_gelu_contenders, padded_fp8_contenders) if padded else
                             (bias_gelu_contenders, fp8_scaled_contenders))
    return [*(("bf16 bias+gelu", bias_gelu, tiles, shapes, bf16_calls, "cuBLASLt fused", variants)
              for tiles, shapes in bf16),
            *(("fp8 scaled", fp8_scaled_fast, tiles, shapes, fp8_calls, "_scaled_mm fast accum", variants)
              for tiles, shapes in fp8)]


CASES = {
    "decode": [("bf16 bias+gelu", bias_gelu, DECODE_TILES, DECODE_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "prefill": [("bf16 bias+gelu", bias_gelu, PREFILL_TILES, PREFILL_SHAPES, bias_gelu_contenders,
                 "cuBLASLt fused")],
    "prefill_fp8": [("fp8 scaled", fp8_scaled, PREFILL_FP8_TILES, PREFILL_SHAPES[:2], fp8_scaled_contenders,
                     "_scaled_mm")],
    "pingpong": [("bf16 bias+gelu", bias_gelu, PINGPONG_BF16_TILES, PINGPONG_SHAPES, bias_gelu_contenders,
                  "cuBLASLt fused"),
                 ("fp8 scaled", fp8_scaled, PINGPONG_FP8_TILES, PINGPONG_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "epilogue": [("bf16 bias+gelu", bias_gelu, EPI_BF16_TILES, EPI_SHAPES, bias_gelu_contenders, "cuBLASLt fused"),
                 ("fp8 scaled", fp8_scaled, EPI_FP8_TILES, EPI_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "cluster4": [("bf16 bias+gelu", bias_gelu, CLUSTER4_BF16_TILES, PREFILL_SHAPES, bias_gelu_contenders,
                  "cuBLASLt fused"),
                 ("fp8 scaled", fp8_scaled, CLUSTER4_FP8_TILES, PREFILL_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "streamk": [("bf16 bias+gelu", bias_gelu, STREAMK_BF16_TILES, STREAMK_SHAPES, bias_gelu_contenders,
                 "cuBLASLt fused"),
                ("fp8 scaled", fp8_scaled, STREAMK_FP8_TILES, STREAMK_SHAPES, fp8_scaled_contenders, "_scaled_mm"),
                ("bf16 bias+gelu", bias_gelu, STREAMK_DECODE_TILES, DECODE_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "pdl": [("bf16 bias+gelu", bias_gelu, PDL_DECODE_TILES, DECODE_SHAPES, bias_gelu_contenders, "cuBLAS mm"),
            ("bf16 bias+gelu", bias_gelu, PDL_BF16_TILES, PDL_SHAPES, bias_gelu_contenders, "cuBLASLt fused"),
            ("fp8 scaled", fp8_scaled, PDL_FP8_TILES, PDL_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "wide": [("bf16 bias+gelu", bias_gelu, WIDE_DECODE_TILES, WIDE_DECODE_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "wide64": [("bf16 bias+gelu", bias_gelu, WIDE64_DECODE_TILES, WIDE64_DECODE_SHAPES, bias_gelu_contenders,
                "cuBLAS mm")],
    "multicast": [("bf16 bias+gelu", bias_gelu, MULTICAST_DECODE_TILES, MULTICAST_DECODE_SHAPES, bias_gelu_contenders,
                   "cuBLAS mm")],
    "narrow64": [("bf16 bias+gelu", bias_gelu, NARROW64_DECODE_TILES, NARROW64_DECODE_SHAPES, bias_gelu_contenders,
                  "cuBLAS mm")],
    "offanchor64": [("bf16 bias+gelu", bias_gelu, OFFANCHOR64_DECODE_TILES, OFFANCHOR64_DECODE_SHAPES,
                     bias_gelu_contenders, "cuBLAS mm")],
    "exactfit": [("bf16 bias+gelu", bias_gelu, EXACTFIT_DECODE_TILES, EXACTFIT_DECODE_SHAPES, bias_gelu_contenders,
                  "cuBLAS mm")],
    "midn64": [("bf16 bias+gelu", bias_gelu, MIDN64_DECODE_TILES, MIDN64_DECODE_SHAPES, bias_gelu_contenders,
                "cuBLAS mm"),
               ("bf16 bias+gelu", bias_gelu, M32_DECODE_TILES, M32_DECODE_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "epicost": [*with_and_without_epilogue(EPICOST_DECODE_TILES, EPICOST_DECODE_SHAPES, "cuBLAS mm"),
                *with_and_without_epilogue(EPICOST_TILES, EPICOST_SHAPES, "cuBLASLt fused")],
    "epiparts": [("bf16 epilogue parts", epilogue_part, EPIPARTS_DECODE_TILES, EPICOST_DECODE_SHAPES,
                  epipart_contenders, "cuBLAS mm"),
                 ("bf16 epilogue parts", epilogue_part, EPIPARTS_MIDN_TILES, [(64, 6144, 4096)], epipart_contenders,
                  "cuBLAS mm")],
    "bulkcol": [("bf16 bias+gelu", bias_gelu, BULKCOL_DECODE_TILES, BULKCOL_DECODE_SHAPES, bias_gelu_contenders,
                 "cuBLAS mm", BULKCOL_VARIANTS),
                ("fp8 scaled", fp8_scaled, BULKCOL_FP8_TILES, [(256, 8192, 8192)], fp8_scaled_contenders, "_scaled_mm",
                 BULKCOL_VARIANTS)],
    "bulkrow": [("bf16 bias+gelu", bias_gelu, BULKROW_M256_TILES, [(256, 8192, 8192)], bias_gelu_contenders,
                 "cuBLASLt fused", BULKROW_VARIANTS),
                ("bf16 bias+gelu", bias_gelu, BULKROW_PREFILL_TILES, [(2048, 8192, 8192), (4096, 14336, 4096)],
                 bias_gelu_contenders, "cuBLASLt fused", BULKROW_VARIANTS),
                ("fp8 scaled", fp8_scaled, BULKCOL_FP8_TILES, [(256, 8192, 8192)], fp8_scaled_contenders, "_scaled_mm",
                 BULKROW_VARIANTS)],
    "midnk64": [("bf16 bias+gelu", bias_gelu, MIDN_K64_TILES, MIDN_K64_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "bulkepi": [("fp8 scaled", fp8_scaled, BULKEPI_FP8_TILES, [(256, 8192, 8192)], fp8_scaled_contenders, "_scaled_mm",
                 BULKROW_VARIANTS),
                ("bf16 bias+gelu", bias_gelu, BULKEPI_BF16_TILES, [(4096, 14336, 4096)], bias_gelu_contenders,
                 "cuBLASLt fused", BULKROW_VARIANTS)],
    "unswap": [("bf16 bias+gelu", bias_gelu, {**SHIPPED_DECODE_TILES, **UNSWAP_DECODE_TILES}, UNSWAP_DECODE_SHAPES,
                bias_gelu_contenders, "cuBLAS mm", BULKROW_VARIANTS)],
    "unswapext": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **UNSWAPEXT_TILES}, UNSWAPEXT_SHAPES,
                   bias_gelu_contenders, "cuBLAS mm")],
    "midnsk": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **MIDNSK_TILES}, MIDNSK_SHAPES, bias_gelu_contenders,
                "cuBLAS mm")],
    "twocol4k": [beside_plan(TWOCOL4K_TILES, TWOCOL4K_SHAPES)],
    "sk14k": [beside_plan(SK14K_TILES, SK14K_SHAPES, STREAM_K_REDUCTIONS)],
    "onecol14k": [beside_plan(ONECOL14K_TILES, ONECOL14K_SHAPES)],
    "onecolcheck": [beside_plan(ONECOLCHECK_TILES, ONECOLCHECK_SHAPES)],
    "n12k": [beside_plan(N12K_TILES, N12K_SHAPES),
             fp8_beside_plan(fp8_scaled, N12K_FP8_TILES, N12K_FP8_SHAPES)],
    "n12k192": [beside_plan(N12K192_TILES, N12K192_SHAPES),
                fp8_beside_plan(fp8_scaled, N12K192_FP8_TILES, N12K192_FP8_SHAPES)],
    "n192band": [beside_plan(N192BAND_TILES, N192BAND_SHAPES),
                 ("fp8 scaled", fp8_scaled_fast, {"auto+shapes": PLAN, **N12K192_FP8_TILES,
                                                  **named("swap 192x128x128 c1x2 pingpong", **FAST)},
                  N192BAND_FP8_SHAPES, fp8_scaled_contenders, "_scaled_mm fast accum")],
    "tallcheck": [beside_plan(TALLCHECK_TILES, TALLCHECK_SHAPES),
                  beside_plan(TALLCHECK_LOW_TILES, TALLCHECK_LOW_SHAPES),
                  fp8_beside_plan(fp8_scaled_fast, TALLCHECK_FP8_TILES, TALLCHECK_FP8_SHAPES)],
    "fitn": [beside_plan(FITN_TILES, FITN_SHAPES)],
    "fitlow": [beside_plan(FITLOW_TILES, FITLOW_SHAPES),
               beside_plan(FITHIGH_TILES, FITHIGH_SHAPES),
               fp8_beside_plan(fp8_scaled_fast, FITN_FP8_TILES, FITN_FP8_SHAPES)],
    "fitlowcheck": [beside_plan(FITLOWCHECK_TILES, FITLOWCHECK_SHAPES),
                    fp8_beside_plan(fp8_scaled_fast, FITLOWCHECK_FP8_TILES, FITLOWCHECK_FP8_SHAPES)],
    "fitmid": [beside_plan(FITMID_TILES, FITMID_SHAPES),
               beside_plan(FIT14K_TILES, FIT14K_SHAPES),
               beside_plan(FITHIGH2_TILES, FITHIGH2_SHAPES),
               fp8_beside_plan(fp8_scaled_fast, FITMID_FP8_TILES, FITMID_FP8_SHAPES)],
    "fitmidcheck": [beside_plan(FITMIDCHECK_TILES, FITMIDCHECK_SHAPES),
                    fp8_beside_plan(fp8_scaled_fast, FITMIDCHECK_FP8_TILES, FITMIDCHECK_FP8_SHAPES)],
    "fit176fp8": [fp8_beside_plan(fp8_scaled_fast, FIT176_FP8_TILES, FIT176_FP8_SHAPES)],
    "tall42": [beside_plan(TALL42_TILES, TALL42_SHAPES)],
    "band176": [beside_plan(BAND176_TILES, BAND176_SHAPES)],
    "band240": [beside_plan(BAND240_TILES, BAND240_SHAPES)],
    "fp8narrow": [fp8_beside_plan(fp8_scaled_fast, FP8NARROW_TILES, FP8NARROW_SHAPES),
                  fp8_beside_plan(fp8_scaled_fast, FP8NARROW88_TILES, FP8NARROW88_SHAPES),
                  fp8_beside_plan(fp8_scaled_fast, FP8NARROW40_TILES, FP8NARROW40_SHAPES)],
    "bf16narrow": [beside_plan(BF16NARROW_TILES, FP8NARROW_SHAPES),
                   beside_plan(BF16NARROW88_TILES, BF16NARROW88_SHAPES),
                   *(("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **tiles}, shapes, bias_gelu_contenders,
                      "cuBLAS mm")
                     for tiles, shapes in ((BF16NARROW40_TILES, FP8NARROW40_SHAPES),
                                           (BF16NARROW56_TILES, BF16NARROW56_SHAPES),
                                           (BF16NARROW72_TILES, [(72, 4096, 4096), (72, 4096, 8192)]),
                                           (BF16NARROW104_TILES, [(104, 4096, 4096), (104, 4096, 8192)])))],
    "narrowcols": [beside_plan(NARROWCOLS80_TILES, NARROWCOLS80_SHAPES),
                   beside_plan(NARROWCOLS112_TILES, NARROWCOLS112_SHAPES),
                   fp8_beside_plan(fp8_scaled, NARROWCOLS_FP8_TILES, [(72, 4096, 4096), (104, 4096, 4096)]),
                   *beside_plan_each(NARROWCOLS_COOP_GROUPS + NARROWCOLS_TALL_GROUPS)],
    "wave4608": beside_plan_each(WAVE4608_GROUPS),
    "wave7168": beside_plan_each(WAVE7168_GROUPS),
    "nvjet4352": beside_plan_each(NVJET4352_GROUPS),
    "nvjet4352more": [*(fp8_beside_plan(make, named(tile, **extra), shapes) for make, extra in
                        ((fp8_scaled_fast, FAST), (fp8_scaled, {})) for tile, shapes in NVJET4352_FP8_GROUPS),
                      *beside_plan_each(NVJET4352_BF16_MID_N)],
    "c1x1more": [beside_plan(C1X1_BF16, C1X1_BF16_SHAPES), fp8_beside_plan(fp8_scaled, C1X1_FP8, C1X1_FP8_SHAPES)],
    "c1x1wide": beside_plan_each(C1X1_WIDE_GROUPS),
    "nocluster": beside_plan_each(NOCLUSTER_GROUPS),
    "threecols": beside_plan_each(THREECOLS_GROUPS),
    "low200": [beside_plan(LOW200_TILES, LOW200_SHAPES)],
    "lowk": beside_plan_each(LOWK_GROUPS),
    "fit8": beside_plan_each(FIT8_GROUPS),
    "fit8more": beside_plan_each(FIT8_MORE_GROUPS),
    "fit8low": beside_plan_each(FIT8_LOW_GROUPS),
    "twin": with_and_without_epilogue(TWIN_TILES, TWIN_SHAPES, "cuBLASLt fused"),
    "fixedcost": with_and_without_epilogue(FIXED_COST_TILES, FIXED_COST_SHAPES, "cuBLASLt fused"),
    "weightsfirst": [beside_plan(tiles, shapes, WEIGHTS_FIRST_VARIANTS) for tiles, shapes in WEIGHTS_FIRST_GROUPS],
    "twin200": [beside_plan(TWIN200_TILES, TWIN200_SHAPES, WEIGHTS_FIRST_VARIANTS)],
    "nocluster200": beside_plan_each(NOCLUSTER200_GROUPS),
    "nocluster216": [beside_plan(NOCLUSTER216_TILES, NOCLUSTER216_SHAPES)],
    "nocluster2col": beside_plan_each(NOCLUSTER_2COL_GROUPS),
    "nocluster2colgrid": [*beside_plan_each(NOCLUSTER_2COL_GRID),
                          *(fp8_beside_plan(make, named(*names, **extra), shapes)
                            for names, shapes in NOCLUSTER_2COL_GRID_FP8
                            for make, extra in ((fp8_scaled_fast, FAST), (fp8_scaled, {})))],
    "nocluster2colwide": beside_plan_each(NOCLUSTER_2COL_WIDE),
    "nocluster2colmid": beside_plan_each(NOCLUSTER_2COL_MID),
    "cluster4x2": beside_plan_each(CLUSTER_4X2),
    "morecols": beside_plan_each(MORE_COLUMNS),
    "morecols2": beside_plan_each(MORE_COLUMNS_2),
    "morecolscheck": beside_plan_each(MORE_COLUMNS_CHECK),
    "morecolsmid": beside_plan_each(MORE_COLUMNS_MID),
    "morecolsmidcheck": beside_plan_each(MORE_COLUMNS_MID_CHECK),
    "morecolsfp8": fp8_fast_then_without(MORE_COLUMNS_FP8),
    "morecolsfp8check": fp8_fast_then_without(MORE_COLUMNS_FP8_CHECK),
    "morecolsfp8wide": fp8_fast_then_without(MORE_COLUMNS_FP8_WIDE),
    "morecolsint8": [int8_beside_plan(tiles, shapes) for tiles, shapes in MORE_COLUMNS_INT8],
    "morecolsint8check": [int8_beside_plan(tiles, shapes) for tiles, shapes in MORE_COLUMNS_INT8_CHECK],
    "fourcols16": beside_plan_each(FOUR_COLUMNS_16),
    "lastcol": [group for tiles, shapes in LAST_COLUMN
                for group in with_and_without_epilogue(tiles, shapes, "cuBLASLt fused")],
    "fillcheck": [*beside_plan_each(FILL_CHECK),
                  *fp8_fast_then_without(FILL_CHECK_FP8)],
    "fillmore": beside_plan_each(FILL_MORE),
    "fillwide": [*beside_plan_each(FILL_WIDE), *fp8_fast_then_without(FILL_WIDE_FP8)],
    "fillwidefp8": fp8_fast_then_without(FILL_WIDE_FP8),
    "band145": beside_plan_each(BAND145),
    "band145more": beside_plan_each(BAND145_MORE),
    "band145tall": beside_plan_each(BAND145_TALL),
    "band161": beside_plan_each(BAND161),
    "tallsub": beside_plan_each(TALL_SUBTILE),
    "band161more": beside_plan_each(BAND161_MORE),
    "fitweights": beside_plan_each(FIT_WEIGHTS),
    "weightfill": beside_plan_each(WEIGHT_FILL),
    "band161fp8": [fp8_beside_plan(fp8_scaled_fast, named("swap 192x88x128 c1x2 pingpong epi64x88", **FAST),
                                   BAND161_8BIT_SHAPES),
                   int8_beside_plan(named("swap 192x96x128 c1x2 pingpong epi64x96"), BAND161_8BIT_SHAPES)],
    "band161padded": [("bf16 bias+gelu", bias_gelu, {**BAND161_PADDED_TILES, "auto+shapes": PLAN},
                       BAND161_PADDED_SHAPES, padded_bias_gelu_contenders, "cuBLASLt fused")],
    "paddedgap": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN}, PADDED_GAP, padded_bias_gelu_contenders,
                   "cuBLASLt fused")],
    "weightcluster": beside_plan_each(WEIGHT_CLUSTER),
    "weight168": beside_plan_each(WEIGHT_168),
    "nvjet232": beside_plan_each(NVJET232),
    "nvjet232fp8": fp8_fast_then_without(NVJET232_FP8),
    "overlappromo": [(*fp8_beside_plan(fp8_scaled, named(*OVERLAP_PROMO_TILES), OVERLAP_PROMO_SHAPES),
                      ("OVERLAPPED_PROMOTION", (False, True)))],
    "fullpromo": [(*fp8_beside_plan(fp8_scaled, named(OVERLAP_PROMO_TILES[0]), FULL_PROMO_SHAPES),
                   ("PROMOTION_SCHEDULE", ("halves", "full")))],
    "exactepi": [("fp8 scaled", fp8_scaled, EXACT_EPI_TILES, FULL_PROMO_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "fastdefault": [fp8_beside_plan(fp8_scaled_fast, FAST_DEFAULT_TILES, FAST_DEFAULT_SHAPES)],
    "fp8ksweep": [("fp8 scaled", fp8_scaled, FP8_EPI_EXACT, FP8_KSWEEP_SHAPES, fp8_scaled_contenders, "_scaled_mm"),
                  ("fp8 scaled", fp8_scaled_fast, FP8_EPI_FAST, FP8_KSWEEP_SHAPES, fp8_scaled_contenders,
                   "_scaled_mm fast accum")],
    "fastmid": [fp8_beside_plan(fp8_scaled_fast, FAST_DEFAULT_TILES, FAST_MID_SHAPES)],
    "opaquepipe": [("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), OPAQUE_PIPE_SHAPES, fp8_scaled_contenders,
                    "_scaled_mm", OPAQUE_PIPE_VARIANTS),
                   *fp8_shipped_each(FULL_DESC_PLAN_SHAPES, OPAQUE_PIPE_VARIANTS)],
    "opaquebyk": [("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), OPAQUE_PIPE_SHAPES, fp8_scaled_contenders,
                   "_scaled_mm", OPAQUE_BY_K_VARIANTS),
                  ("fp8 scaled", fp8_scaled, named("128x128x128 c2x1 coop"), OPAQUE_PIPE_SHAPES[1:],
                   fp8_scaled_contenders, "_scaled_mm", OPAQUE_BY_K_VARIANTS)],
    "opaquek": [("fp8 scaled", fp8_scaled, named(tile), OPAQUE_K_SHAPES, fp8_scaled_contenders, "_scaled_mm",
                 OPAQUE_PIPE_VARIANTS) for tile in ("128x128x128 c1x1 coop", "128x128x128 c2x1 coop")],
    "opaqueplan": [fp8_beside_plan(fp8_scaled, named("128x128x128 c1x1 coop"), OPAQUE_PLAN_SHAPES)],
    "opaquetokens": fp8_shipped_each(OPAQUE_TOKEN_SHAPES, OPAQUE_PIPE_VARIANTS),
    "opaqueclone": [("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), OPAQUE_CLONE_SHAPES,
                     fp8_scaled_contenders, "_scaled_mm", OPAQUE_CLONE_BUILDS)],
    "clonespread": [("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), CLONE_SPREAD_SHAPES,
                     fp8_scaled_contenders, "_scaled_mm", CLONE_SPREAD_BUILDS)],
    "exactwide": [("fp8 scaled", fp8_scaled, EXACT_WIDE_TILES, EXACT_WIDE_SHAPES, fp8_scaled_contenders, "_scaled_mm",
                   EXACT_WIDE_BUILDS)],
    "exactwidesweep": [fp8_beside_plan(fp8_scaled, EXACT_WIDE_SWEEP_TILES, EXACT_WIDE_SWEEP_SHAPES)],
    "exactwideraster": [("fp8 scaled", fp8_scaled, EXACT_WIDE_RASTER_TILES, EXACT_WIDE_RASTER_SHAPES,
                         fp8_scaled_contenders, "_scaled_mm")],
    "exactdeepk": [fp8_beside_plan(fp8_scaled, EXACT_DEEP_K_TILES, EXACT_DEEP_K_SHAPES)],
    "exactwideedge": [fp8_beside_plan(fp8_scaled, EXACT_WIDE_EDGE_TILES, EXACT_WIDE_EDGE_SHAPES)],
    "fast256hints": [("fp8 scaled", fp8_scaled_fast, named("128x128x128 c1x1 coop", **FAST), FAST_256_HINT_SHAPES,
                      fp8_scaled_contenders, "_scaled_mm fast accum", FAST_256_HINT_VARIANTS)],
    "weights256": (with_and_without_weights_first(fp8_scaled, WEIGHTS_256_EXACT_SHAPES + WEIGHTS_256_SHAPES) +
                   with_and_without_weights_first(fp8_scaled_fast, [(256, 8192, 8192)] + WEIGHTS_256_SHAPES) +
                   with_and_without_weights_first(bias_gelu, [(256, 8192, 8192)])),
    "weights256b": (with_and_without_weights_first(fp8_scaled, WEIGHTS_256_OPAQUE_SHAPES) +
                    with_and_without_weights_first(bias_gelu, WEIGHTS_256_BF16_SHAPES)),
    "weights128": (with_and_without_weights_first(bias_gelu, WEIGHTS_128_BF16_SHAPES) +
                   with_and_without_weights_first(fp8_scaled, WEIGHTS_128_FP8_SHAPES) +
                   with_and_without_weights_first(fp8_scaled_fast, WEIGHTS_128_FAST_SHAPES) +
                   with_and_without_weights_first(int8_dequant, WEIGHTS_128_INT8_SHAPES)),
    "weights128b": (with_and_without_weights_first(bias_gelu, WEIGHTS_128B_BF16_SHAPES) +
                    with_and_without_weights_first(fp8_scaled, WEIGHTS_128B_FP8_SHAPES) +
                    with_and_without_weights_first(fp8_scaled_fast, WEIGHTS_128B_FAST_SHAPES) +
                    with_and_without_weights_first(int8_dequant, WEIGHTS_128B_INT8_SHAPES)),
    "weights128c": (with_and_without_weights_first(bias_gelu, WEIGHTS_128C_BF16_SHAPES) +
                    with_and_without_weights_first(fp8_scaled_fast, WEIGHTS_128C_FAST_SHAPES) +
                    with_and_without_weights_first(int8_dequant, WEIGHTS_128C_INT8_SHAPES)),
    # stages256 (written in session 77 without a GPU; not yet run): exact and fast fp8's 256-row plan tile (128x128x128
    # cooperative, weights EVICT_FIRST, 6 stages as "auto" fills them) with 3-5 stages, at 256x8192^2 and at K = 32768.
    # Cold, both take fewer cycles than _scaled_mm's kernels but run at a 1.0-2.0% lower clock, which goes with the
    # field's faster loads (clock_probe runs 10-12); fewer loads in flight might keep the clock (bench/NOTES.md,
    # session 75's first item). Run cold and warm.
    "stages256": [plan_tile_by_stages(make, shape, (3, 4, 5)) for make in (fp8_scaled, fp8_scaled_fast)
                  for shape in ((256, 8192, 8192), (256, 8192, 32768))],
    "swapweights": [*(("bf16 bias+gelu", bias_gelu, tiles, shapes, bias_gelu_contenders, anchor,
                       WEIGHTS_FIRST_VARIANTS) for tiles, shapes, anchor in SWAP_WEIGHTS_BF16),
                    *(("fp8 scaled", fp8_scaled_fast, tiles, shapes, fp8_scaled_contenders, "_scaled_mm fast accum",
                       WEIGHTS_FIRST_VARIANTS) for tiles, shapes in SWAP_WEIGHTS_FAST)],
    "decode5120": [("bf16 bias+gelu", bias_gelu, DECODE_5120_TILES, DECODE_5120_SHAPES, bias_gelu_contenders,
                    "cuBLAS mm", ("LOAD_HINTS", (WEIGHTS_FIRST_VARIANTS[1][1],)))],
    "decode5120k": with_and_without_epilogue(DECODE_5120_K_TILES, DECODE_5120_K_SHAPES, "cuBLAS mm"),
    "decode5120rot": with_and_without_epilogue(DECODE_5120_K_TILES, DECODE_5120_K_SHAPES, "cuBLAS mm", rotating=True),
    "keepweights": [("bf16 bias+gelu", bias_gelu, tiles, shapes, bias_gelu_contenders, "cuBLAS mm", KEEP_WEIGHTS_MIB)
                    for tiles, shapes in weights_first_plan_tiles(bias_gelu, KEEP_WEIGHTS_SHAPES)],
    "keepwide": [group for make, shapes in ((bias_gelu, KEEP_WIDE_BF16_SHAPES),
                                            (fp8_scaled_fast, KEEP_WIDE_FAST_SHAPES),
                                            (fp8_scaled, KEEP_WIDE_EXACT_SHAPES),
                                            (int8_dequant, KEEP_WIDE_INT8_SHAPES))
                 for group in weights_first_plan_groups(make, shapes, KEEP_WIDE_MIB)],
    "decode5120u": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **DECODE_5120_UNSWAPPED_TILES},
                     DECODE_5120_UNSWAPPED_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "directstore": [*(group + (DIRECT_STORE_VARIANTS,) for group in with_and_without_epilogue(
                        DIRECT_STORE_TILES, DIRECT_STORE_SHAPES, "cuBLAS mm")),
                    ("bf16 bias+gelu", bias_gelu, DIRECT_STORE_EPI64_TILES, DIRECT_STORE_SHAPES, bias_gelu_contenders,
                     "cuBLAS mm"),
                    ("bf16 epilogue parts", epilogue_part, EPIPARTS_MIDN_TILES, DIRECT_STORE_SHAPES,
                     epipart_contenders, "cuBLAS mm")],
    "epiwide64": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **EPI_WIDE_TILES}, EPI_WIDE_SHAPES,
                 bias_gelu_contenders, "cuBLAS mm")],
    "decode64wide": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN, **DECODE_64_WIDE_TILES}, DECODE_64_WIDE_SHAPES,
                      bias_gelu_contenders, "cuBLAS mm")],
    "fast256k": [fp8_beside_plan(fp8_scaled_fast, FAST_256_K_TILES, FAST_256_K_SHAPES)],
    "fast256bulk": [("fp8 scaled", fp8_scaled_fast, named("128x128x128 c1x1 coop", **FAST), FAST_256_BULK_SHAPES,
                     fp8_scaled_contenders, "_scaled_mm fast accum", FP8_TILE_COST_VARIANTS),
                    ("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), FAST_256_BULK_SHAPES,
                     fp8_scaled_contenders, "_scaled_mm", FP8_TILE_COST_VARIANTS)],
    "fast256code": [("fp8 scaled", make, {"auto+shapes": PLAN}, FAST_256_K_SHAPES, fp8_scaled_rotated_contenders,
                     scaled_mm_like(make)) for make in (fp8_scaled_fast, fp8_scaled)],
    "fulldesc": [("fp8 scaled", fp8_scaled, FP8_EPI_EXACT, FULL_DESC_SHAPES, fp8_scaled_contenders, "_scaled_mm"),
                 *fp8_shipped_each(FULL_DESC_PLAN_SHAPES)],
    "storestages": [("fp8 scaled", fp8_scaled, named(tile), STORE_STAGES_SHAPES, fp8_scaled_contenders, "_scaled_mm",
                     ("EPI_STORE_STAGES", values)) for tile, values in STORE_STAGES_GROUPS],
    "onestore": [("fp8 scaled", fp8_scaled, FP8_EPI_EXACT, ONE_STORE_SHAPES, fp8_scaled_contenders, "_scaled_mm",
                  ONE_STORE_VARIANTS)],
    "exactpp": [("fp8 scaled", fp8_scaled, EXACT_PP_TILES, EXACT_PP_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "fp8tilecost": [("fp8 scaled", fp8_scaled, FP8_EPI_EXACT, FP8_TILE_COST_SHAPES, fp8_scaled_contenders, "_scaled_mm",
                     FP8_TILE_COST_VARIANTS),
                    ("fp8 plain", fp8_plain, FP8_EPI_EXACT, FP8_TILE_COST_SHAPES, fp8_plain_contenders,
                     "_scaled_mm plain")],
    "fp8order": [("fp8 scaled", fp8_scaled, FP8_ORDER_EXACT, FP8_ORDER_SHAPES, fp8_scaled_contenders, "_scaled_mm"),
                 ("fp8 scaled", fp8_scaled_fast, FP8_ORDER_FAST, FP8_ORDER_SHAPES, fp8_scaled_contenders,
                  "_scaled_mm fast accum")],
    "fp8epicost": [("fp8 scaled", fp8_scaled, FP8_EPI_EXACT, FP8_ORDER_SHAPES, fp8_scaled_contenders, "_scaled_mm"),
                   ("fp8 scaled", fp8_scaled_fast, FP8_EPI_FAST, FP8_ORDER_SHAPES, fp8_scaled_contenders,
                    "_scaled_mm fast accum"),
                   ("fp8 plain", fp8_plain, FP8_EPI_EXACT, FP8_ORDER_SHAPES, fp8_plain_contenders, "_scaled_mm plain"),
                   ("fp8 plain", fp8_plain, FP8_EPI_FAST, FP8_ORDER_SHAPES, fp8_plain_contenders,
                    "_scaled_mm plain fast accum")],
    "fullwide": fp8_shipped_each(FULL_WIDE_SHAPES, FULL_WIDE_VARIANTS),
    "oobplace": [("bf16 bias+gelu", bias_gelu, tiles, shapes, placed_bias_gelu_contenders, "cuBLASLt fused")
                 for tiles, shapes in OOB_PLACE_GROUPS],
    "fittedtail": setting_groups(FITTED_TAIL_VARIANTS, FITTED_TAIL_GROUPS, [FITTED_TAIL_FP8], padded=True),
    "alltail": setting_groups(ALLTAIL_VARIANTS, ALLTAIL_GROUPS, ALLTAIL_FP8),
    "alltailcheck": setting_groups(ALLTAIL_VARIANTS, ALLTAIL_CHECK, [ALLTAIL_CHECK_FP8]),
    "tallfitted": setting_groups(TALL_FITTED_VARIANTS, TALL_FITTED_GROUPS, padded=True),
    "tallsubfp8": [fp8_beside_plan(fp8_scaled_fast, named(*names, **FAST), shapes)
                   for names, shapes in TALL_SUBTILE_FP8],
    "paddedfill": [("bf16 bias+gelu", bias_gelu, {"auto+shapes": PLAN}, PADDED_FILL, padded_zeros_bias_gelu_contenders,
                    "cuBLASLt fused")],
    "padded": [*(("bf16 bias+gelu", bias_gelu, {**tiles, "auto+shapes": PLAN}, shapes, padded_bias_gelu_contenders,
                  "cuBLASLt fused") for tiles, shapes in PADDED),
               ("fp8 scaled", fp8_scaled_fast, {"auto+shapes": PLAN}, PADDED_FP8, padded_fp8_contenders,
                "_scaled_mm fast accum")],
    "low200more": beside_plan_each(LOW200_MORE),
    "threecolsmore": [*beside_plan_each(THREECOLS_MORE_BF16),
                      *(fp8_beside_plan(make, named(*THREECOLS_MORE_FP8[0], **extra), THREECOLS_MORE_FP8[1])
                        for make, extra in ((fp8_scaled_fast, FAST), (fp8_scaled, {})))],
    "nocluster193": [*beside_plan_each(NOCLUSTER193_BF16),
                     *(fp8_beside_plan(make, named(*NOCLUSTER193_FP8[0], **extra), NOCLUSTER193_FP8[1])
                       for make, extra in ((fp8_scaled_fast, FAST), (fp8_scaled, {})))],
    "stages4352": [beside_plan(STAGES4352_BF16, STAGES4352_SHAPES),
                   fp8_beside_plan(fp8_scaled, STAGES4352_FP8, STAGES4352_SHAPES[:2])],
    "wave7168fp8": [*(fp8_beside_plan(make, named(tile, **extra), shapes) for make, extra in
                      ((fp8_scaled_fast, FAST), (fp8_scaled, {})) for tile, shapes in WAVE7168_FP8_GROUPS),
                    beside_plan(*WAVE7168_BF16_160)],
    "sk4k": [beside_plan(SK4K_TILES, SK4K_SHAPES, STREAM_K_REDUCTIONS)],
    "fit48": [("bf16 bias+gelu", bias_gelu, FIT48_TILES, FIT48_SHAPES, bias_gelu_contenders, "cuBLAS mm")],
    "prefillpp": [("bf16 bias+gelu", bias_gelu, PREFILL_PP_TILES, PREFILL_PP_SHAPES, bias_gelu_contenders,
                   "cuBLASLt fused")],
    "prefillwide": [("bf16 bias+gelu", bias_gelu, PREFILL_PP_TILES, PREFILL_WIDE_SHAPES, bias_gelu_contenders,
                     "cuBLASLt fused")],
    "wideh100": [beside_plan(WIDE_H100_TILES, WIDE_H100_SHAPES)],
    "wideraster": [("bf16 bias+gelu", bias_gelu, WIDE_RASTER_TILES, WIDE_RASTER_SHAPES, bias_gelu_contenders,
                    "cuBLASLt fused")],
    "wideswizzle": [("bf16 bias+gelu", bias_gelu, WIDE_SWIZZLE_TILES, WIDE_H100_SHAPES, bias_gelu_contenders,
                     "cuBLASLt fused")],
    "swizzlesweep": [beside_plan(SWIZZLE_SWEEP_TILES, SWIZZLE_SWEEP_SHAPES)],
    "fp8swizzlesweep": [fp8_beside_plan(fp8_scaled_fast, FP8_SWIZZLE_FAST_TILES, FP8_SWIZZLE_SHAPES),
                        fp8_beside_plan(fp8_scaled, FP8_SWIZZLE_EXACT_TILES, FP8_SWIZZLE_SHAPES)],
    "mid768": [beside_plan(MID768_TILES, MID768_SHAPES)],
    "wavefill": [beside_plan(WAVEFILL_TILES, WAVEFILL_SHAPES)],
    "wavefillcheck": [beside_plan(WAVEFILL_CHECK_TILES, WAVEFILL_CHECK_SHAPES)],
    "raggedwide": setting_groups(RAGGED_WIDE_VARIANTS, RAGGED_WIDE_GROUPS, padded=True),
    "raggedlarge": [beside_plan(RAGGED_LARGE_TILES, RAGGED_LARGE_SHAPES)],
    "raggedother": setting_groups(RAGGED_WIDE_VARIANTS, RAGGED_OTHER_BF16, RAGGED_OTHER_FP8, padded=True),
    "swizzlepad": setting_groups(SWIZZLE_PAD_VARIANTS, SWIZZLE_PAD_BF16, SWIZZLE_PAD_FP8, padded=True),
    "swizzlepadcheck": [
        *setting_groups(SWIZZLE_PAD_CHECK_VARIANTS, SWIZZLE_PAD_CHECK_BF16,
                        [(named("128x128x128 c1x1 pingpong", **FAST), SWIZZLE_PAD_CHECK_FP8_SHAPES)]),
        ("fp8 scaled", fp8_scaled, named("128x128x128 c1x1 coop"), SWIZZLE_PAD_CHECK_FP8_SHAPES[:2],
         fp8_scaled_contenders, "_scaled_mm", SWIZZLE_PAD_CHECK_VARIANTS)],
    "fittedtwin": [fp8_beside_plan(fp8_scaled_fast, FITTED_TWIN_TILES, FITTED_TWIN_SHAPES)],
    "oobrow": [("bf16 bias+gelu", bias_gelu, OOB_ROW_BF16, OOB_ROW_SHAPES, widened_bias_gelu_contenders,
                "cuBLASLt fused"),
               ("fp8 scaled", fp8_scaled_fast, OOB_ROW_FP8, OOB_ROW_SHAPES[:2], widened_fp8_contenders,
                "_scaled_mm fast accum")],
    "pastrows": [("bf16 bias+gelu", bias_gelu, PAST_ROWS_BF16, PAST_ROWS_SHAPES, widened_bias_gelu_contenders,
                  "cuBLASLt fused"),
                 ("fp8 scaled", fp8_scaled_fast, PAST_ROWS_FP8, PAST_ROWS_FP8_SHAPES, widened_fp8_contenders,
                  "_scaled_mm fast accum")],
    "strips1": [beside_plan(STRIPS1_BF16, STRIPS1_BF16_SHAPES),
                fp8_beside_plan(fp8_scaled_fast, STRIPS1_FP8, STRIPS1_FP8_SHAPES)],
    "big14k": [beside_plan(BIG14K_BF16_TILES, BIG14K_SHAPES),
               fp8_beside_plan(fp8_scaled_fast, BIG14K_FP8_TILES, BIG14K_FP8_SHAPES)],
    "acc192": [("bf16 bias+gelu", bias_gelu, ACC192_BF16_TILES, ACC192_SHAPES, bias_gelu_contenders,
                "cuBLASLt fused"),
               ("fp8 scaled", fp8_scaled, ACC192_FP8_TILES, ACC192_SHAPES[:2], fp8_scaled_contenders, "_scaled_mm")],
    "fp8wide": [("fp8 scaled", fp8_scaled, FP8WIDE_TILES, FP8WIDE_SHAPES, fp8_scaled_contenders, "_scaled_mm")],
    "raster256": [("bf16 bias+gelu", bias_gelu, RASTER256_TILES, RASTER256_SHAPES, bias_gelu_contenders,
                   "cuBLASLt fused")],
    "order2048": [("bf16 bias+gelu", bias_gelu, ORDER2048_TILES, [(2048, 8192, 8192)], bias_gelu_contenders,
                   "cuBLASLt fused")],
    "rasterlarge": [("bf16 bias+gelu", bias_gelu, RASTER_LARGE_TILES, LARGE_DEFAULT_SHAPES, bias_gelu_contenders,
                     "cuBLASLt fused")],
    "largedefault": [("bf16 bias+gelu", bias_gelu, LARGE_DEFAULT_TILES, LARGE_DEFAULT_SHAPES, bias_gelu_contenders,
                      "cuBLASLt fused")],
    "ksweep": [*with_and_without_epilogue(KSWEEP_M256_TILES, KSWEEP_M256_SHAPES, "cuBLASLt fused"),
               *with_and_without_epilogue(KSWEEP_PREFILL_TILES, KSWEEP_PREFILL_SHAPES, "cuBLASLt fused")],
    "mid128": [("bf16 bias+gelu", bias_gelu, MID128_TILES, MID128_SHAPES, bias_gelu_contenders, "cuBLASLt fused")],
    "mid128grid": [("bf16 bias+gelu", bias_gelu, MID128_GRID_TILES, MID128_GRID_SHAPES, bias_gelu_contenders,
                    "cuBLASLt fused")],
    "mid128fit": [("bf16 bias+gelu", bias_gelu, MID128_FIT_TILES, MID128_FIT_SHAPES, bias_gelu_contenders,
                   "cuBLASLt fused")],
    "fit256": [("bf16 bias+gelu", bias_gelu, FIT256_TILES, FIT256_SHAPES, bias_gelu_contenders, "cuBLASLt fused")],
    "fitcheck": [("bf16 bias+gelu", bias_gelu, FITCHECK_TILES, FITCHECK_SHAPES, bias_gelu_contenders,
                  "cuBLASLt fused")],
    "fitodd": [("bf16 bias+gelu", bias_gelu, FITODD_TILES, FITODD_SHAPES, bias_gelu_contenders, "cuBLASLt fused")],
    "twocol": [("bf16 bias+gelu", bias_gelu, TWOCOL_TILES, TWOCOL_SHAPES, bias_gelu_contenders, "cuBLASLt fused")],
    "epiwide": beside_plan_each(EPIWIDE_GROUPS),
    "oddn": [("bf16 bias+gelu", bias_gelu, tiles, shapes, bias_gelu_contenders, "cuBLASLt fused")
             for tiles, shapes in ODDN_GROUPS],
    "extmma": beside_plan_each(EXTMMA_GROUPS),
    "m256": [("bf16 bias+gelu", bias_gelu, M256_BF16_TILES, [(256, 8192, 8192)], bias_gelu_contenders,
              "cuBLASLt fused"),
             ("fp8 scaled", fp8_scaled, M256_FP8_TILES, [(256, 8192, 8192)], fp8_scaled_contenders, "_scaled_mm")],
}


def builds_of(group) -> list:
    """(name suffix, lower settings) for each build of a group's tiles: one, or one per value of its setting."""
    if len(group) < 7:
        return [("", {})]
    key, values = group[6]
    if key is None:  # values: settings dicts, each one build
        return [("".join(f" {k.lower()}={v}" for k, v in settings.items()), settings) for settings in values]
    return [(f" {key.lower()}={v}", {key: v}) for v in values]


def parse_shapes(text: str) -> list:
    """"MxNxK,MxNxK,..." -> [(M, N, K), ...] (the bench scripts' --shapes), each three positive integers."""
    try:
        shapes = [tuple(int(x) for x in item.lower().split("x")) for item in text.split(",")]
    except ValueError:
        shapes = []
    if not shapes or any(len(s) != 3 or min(s) <= 0 for s in shapes):
        raise argparse.ArgumentTypeError(f"{text!r}: MxNxK[,MxNxK...], three positive integers each")
    return shapes


def parse_setting(item: str) -> tuple:
    """NAME=VALUE -> (NAME, VALUE as a Python literal, or the bare word as a string)."""
    name, sep, value = item.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"--setting {item!r}: NAME=VALUE")
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return name, value


def variant_jobs(entries) -> list:
    """The cache-keyed build jobs of (spec, {lower setting: value}) pairs (CLONE: the same code under another key)."""
    jobs = []
    for spec, settings in entries:
        settings = dict(settings)
        clone = settings.pop(CLONE, None)
        with lower.settings(**settings):
            job = jit.plan(spec)
        if clone is not None:  # the same code under another cache key: a second module of an identical kernel
            source = f"{job.source}\n// tile_probe.py clone {clone}\n"
            job = dataclasses.replace(job, source=source,
                                      source_key=jit.source_key(source, job.target_arch, spec.resolved_path))
        jobs.append(job.with_cache_key())
    return jobs


def build_variants(entries):
    """Kernels for (spec, {lower setting: value}) pairs, all compiled in one ninja run. A setting changes the rendered
    source, and so the cache key, but not the spec, which build_many's per-spec memo goes by."""
    from cutlassgen.runtime import Kernel

    jobs = variant_jobs(entries)
    paths = jit._compile_missing(jobs, None, None, None)
    return [Kernel(job.spec, path, job.target_arch, job.source) for job, path in zip(jobs, paths)]


def built_beside_plans(tile_specs: list, plan_specs: list, shapes) -> tuple[list, list]:
    """(kernels of tile_specs, build(spec, shapes=shapes) of each all-"auto" spec of plan_specs): the tiles and every
    plan's per-shape kernels compile in one ninja run, after which build() finds the plans' kernels loaded. build()
    prefers a tuning record in the cache to the heuristic plan (main() below builds the heuristic's by hand)."""
    from cutlassgen import build, build_many

    tiles = build_many(list(tile_specs) + dispatch.with_shape_variants(list(plan_specs), shapes))[:len(tile_specs)]
    return tiles, [build(spec, shapes=shapes) for spec in plan_specs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", choices=list(CASES), help="default: all")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--settle-ms", type=float, default=0.0,
                    help="back-to-back runs before each contender's timed runs (session 6 probe: 0 and 50)")
    ap.add_argument("--shapes", type=parse_shapes, default=None,
                    help="only these shapes of the cases, e.g. 256x8192x8192,8192x8192x8192")
    ap.add_argument("--cold", action="store_true",
                    help="read a 512 MiB buffer before every timed call, outside its events (cutlassgen.timing."
                         "l2_flush: L2 holds nothing of the operands, as in a model between two calls of one layer)")
    ap.add_argument("--ncu", action="store_true", help="run each contender once in an NVTX range 'probe' (for ncu)")
    ap.add_argument("--ncu-repeats", type=int, default=1,
                    help="with --ncu: profile every contender this many times, round-robin, each after one call of its "
                         "own (one profiled launch varies by a few percent; bench/ncu_table.py --median)")
    ap.add_argument("--build-only", action="store_true",
                    help="compile the kernels and stop (e.g. before an ncu run, which should not profile the compile)")
    args = ap.parse_args()
    if args.ncu_repeats < 1:
        ap.error("--ncu-repeats: at least 1")
    only = None if args.shapes is None else set(args.shapes)
    # with --shapes, only the groups that time one of them are built
    groups = [g for c in (args.cases or CASES) for g in CASES[c] if only is None or only & set(g[3])]
    # (group, name, spec, lower settings): a group with a 7th field builds each tile once per value of its setting
    specs = [(gi, name + suffix, g[1](t), settings) for gi, g in enumerate(groups) for name, t in g[2].items()
             if t is not PLAN for suffix, settings in builds_of(g)]
    auto = {gi: g[1](Sm90Tile()) for gi, g in enumerate(groups) if PLAN in g[2].values()}
    plans = {gi: dispatch.heuristic_record(spec, groups[gi][3]) for gi, spec in auto.items()}
    plan_specs = {gi: [spec] + dispatch.heuristic_variants(spec, plans[gi]) for gi, spec in auto.items()}
    # every tile of every case, and each plan's kernels, in one ninja run
    built = build_variants([(s, settings) for *_, s, settings in specs] +
                           [(s, {}) for gi in plan_specs for s in plan_specs[gi]])
    # what each compiled tile holds (kernel.pipeline): its mainloop stages and shared memory
    print("stages:", ", ".join(f"{name} {k.pipeline.get('mainloop_stages')} ({k.pipeline.get('smem_bytes')} B)"
                               for (_, name, *_), k in zip(specs, built)), flush=True)
    plan_kernels, at = {}, len(specs)
    for gi, group_specs in plan_specs.items():
        default, variants = built[at], built[at + 1:at + len(group_specs)]
        plan_kernels[gi] = dispatch.with_heuristic(default, plans[gi], variants)
        print("per-shape plan:", plan_kernels[gi], flush=True)
        at += len(group_specs)
    if args.build_only:
        return
    flush = l2_flush() if args.cold else None
    l2 = "L2 flushed by a 512 MiB read before every call" if args.cold else "inputs warm in L2 as in ANCHORS.md"
    rotating_groups = sorted({g[4].__name__ for g in groups if g[4] in ROTATING})
    if rotating_groups:
        l2 += f"; {', '.join(rotating_groups)}: each call on the next of several input sets, its operands not in L2"
    print(f"TFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__} (median of {args.rounds} shuffled "
          f"interleaved rounds of 20 runs, each after {args.settle_ms:.0f} ms of settling; {l2})")
    for gi, (what, _, _, shapes, contenders, anchor, *_variants) in enumerate(groups):
        kernels = {name: k for (g, name, *_), k in zip(specs, built) if g == gi}
        kernels.update({name: plan_kernels[gi] for name, t in groups[gi][2].items() if t is PLAN})
        for M, N, K in [s for s in shapes if only is None or s in only]:
            if args.ncu:  # ncu flushes the caches before each profiled kernel itself (unless --cache-control none)
                fns = contenders(kernels, M, N, K)
                for fn in fns.values():
                    for _ in range(2):
                        fn()
                # a label of its own per group where two groups of one kind time this shape (k_fit.py's "#2")
                again = sum(g[0] == what and (M, N, K) in g[3] for g in groups[:gi])
                for _ in range(args.ncu_repeats):
                    for name, fn in fns.items():
                        fn()  # L2 (under --cache-control none) as the contender's own call leaves it
                        run_in_probe_range(fn)
                        print(f"ncu: {what} {M}x{N}x{K} {name}" + (f" #{again + 1}" if again else ""), flush=True)
                continue
            rounds = interleaved_rounds_ms(contenders(kernels, M, N, K), rounds=args.rounds, settle_ms=args.settle_ms,
                                           before=flush)
            tf = {n: 2 * M * N * K / statistics.median(t) / 1e9 for n, t in rounds.items()}
            best = max((v, n) for n, v in tf.items() if n in kernels)
            versus = f" ({anchor} does not run this shape)"
            if anchor in rounds:
                paired = paired_ratio(rounds[best[1]], rounds[anchor])
                versus = f" {best[0] / tf[anchor]:.2f}x {anchor} (per round {paired})"
            # calls of tens of microseconds: their median times too, where whole TFLOP/s are too coarse (run 105)
            us = {n: statistics.median(t) * 1e3 for n, t in rounds.items()}
            times = (" | us: " + ", ".join(f"{n} {v:.2f}" for n, v in us.items())) if min(us.values()) < 50 else ""
            print(f"{what} {M}x{N}x{K}: " + ", ".join(f"{n} {v:.0f}" for n, v in tf.items()) +
                  f" | best ours {best[1]}{versus}" + times, flush=True)


if __name__ == "__main__":
    main()
