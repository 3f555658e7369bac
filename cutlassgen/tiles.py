"""Resolve a spec's 'auto' tile fields into one concrete configuration, and estimate its shared memory.

These defaults are documented in README ("Tile defaults"); validation checks the resolved result, so an
explicit tile and an auto one meet the same rules.
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from . import epilogue as epi
from .arch import ARCHS, SM80_INSTRUCTION
from .dtypes import DTYPES, max_alignment
from .errors import SpecError
from .spec import AUTO, GemmSpec, Sm80Tile, Sm90Tile
from .validate import FP8


@dataclass(frozen=True)
class Sm80Config:
    threadblock: tuple
    warp: tuple
    instruction: tuple
    stages: int
    swizzle: int
    split_k: int
    smem_bytes: int

    @property
    def mainloop_stages(self) -> int:  # as Sm90Config names it
        return self.stages


@dataclass(frozen=True)
class Sm90Config:
    cta: tuple
    cluster: tuple
    mainloop: str  # cooperative | pingpong
    scheduler: str
    stages: object  # int, or AUTO: let the collective builder fill what the epilogue leaves
    raster: str
    swizzle: int | str  # 1, 2, 4, 8, or "auto": chosen per call (csrc/cutlassgen/auto_swizzle.hpp)
    epilogue_tile: tuple
    smem_bytes: int  # mainloop stages + epilogue, as validated
    fp8_fast_accum: bool = False
    split_k: int = 1
    swap_ab: bool = False  # the kernel's (M, N) are the problem's (N, M): operands, layouts and vectors exchanged
    mainloop_stages: int = 0  # the stages smem_bytes counts: stages, or for AUTO as many as fit beside the epilogue


def operand_bytes(spec: GemmSpec) -> tuple[int, int]:
    return DTYPES[spec.a.dtype].bits // 8, DTYPES[spec.b.dtype].bits // 8


def alignment(op) -> int:
    return max_alignment(op.dtype) if op.alignment == AUTO else op.alignment


def sm80_epilogue_access(spec: GemmSpec) -> int:
    """Elements of D the sm80 path's epilogue moves per access: D's alignment, at most 8 (wider accesses leave too few
    rows per iteration for the 2.x thread map)."""
    return min(alignment(spec.d), 8)


def sm80_auto_stages(smem_limit: int, per_stage: int, least: int = 2) -> int:
    """The sm80 path's "auto" stage count: what fits beside 8 KiB, at least `least` and at most 4."""
    return max(least, min(4, (smem_limit - 8 * 1024) // per_stage))


def resolve_sm80(spec: GemmSpec, smem_limit: int) -> Sm80Config:
    t = spec.tile
    bytes_ab = max(operand_bytes(spec))
    k = 128 // (bytes_ab * 8) * 4  # 64 bytes of K per stage: 32 for 16-bit, 64 for 8-bit, 16 for tf32
    fp8 = is_fp8(spec)
    # fp8 mma.sync with 64x64 warp tiles spills registers (seen with ptxas -warn-spills): use 64x32 warps.
    tb = ((128, 64, k) if fp8 else (128, 128, k)) if t.threadblock == AUTO else t.threadblock
    warp = ((64, 32, tb[2]) if fp8 else (64, 64, tb[2])) if t.warp == AUTO else t.warp
    inst = SM80_INSTRUCTION[spec.a.dtype] if t.instruction == AUTO else t.instruction
    per_stage = tb[0] * tb[2] * operand_bytes(spec)[0] + tb[1] * tb[2] * operand_bytes(spec)[1]
    if t.stages == AUTO:
        stages = sm80_auto_stages(smem_limit, per_stage)
    else:
        stages = t.stages
    swizzle = 1 if t.swizzle == AUTO else t.swizzle
    split_k = 1 if t.split_k == AUTO else t.split_k
    return Sm80Config(tb, warp, inst, stages, swizzle, split_k, stages * per_stage)


def sm90_epilogue_tile(cta: tuple, mainloop: str, d_bits: int) -> tuple:
    """The epilogue subtile CUTLASS's builder would pick; rendered explicitly so aux stores can share it. Where CTA N
    is an odd multiple of 8 (16-bit and fp8 operands, validate.n_step_of) the whole width: the builder's rule would
    store it in 8-wide steps, which ran 0.77-0.80x the full width (192x72, tile_probe.py fp8narrow, run 82)."""
    from math import gcd

    if cta[1] % 16:
        return (128 if mainloop == "cooperative" else 64, cta[1])
    if mainloop == "cooperative":
        return (min(128, cta[0]), gcd(min(32, cta[1]), cta[1]))
    n_perf = 64 if d_bits == 8 and cta[1] % 64 == 0 else 32
    return (min(64, cta[0]), gcd(min(n_perf, cta[1]), cta[1]))


def kernel_vector_kind(kind: str, swap_ab: bool) -> str:
    """Which of the kernel's dimensions an input vector runs along: with swap_ab the kernel computes D^T, so the
    problem's per-column vector is per-row of the kernel and the other way round."""
    return {"per_row": "per_col", "per_col": "per_row"}.get(kind, kind) if swap_ab else kind


def sm90_epilogue_smem(spec: GemmSpec, cta: tuple, epi_tile: tuple) -> int:
    """Bytes the TMA epilogue keeps in shared memory, by the rule of CUTLASS's sm90 epilogue builder
    (sm90_get_tma_dispatch_policy): D in one buffer per subtile up to 2; C in one per subtile up to 4, and at least one
    more than D where D reuses C's buffers (C and D as wide, wider than 8 bits); aux stores as D; a vector along the
    kernel's N one CTA slice (CUTLASS's row broadcast), one along its M one slice per C stage in a swapped kernel
    (lower.py's bulk column broadcast) and none otherwise (CUTLASS's reads registers); 1 KiB of barriers and
    alignment."""
    em, en = epi_tile
    subtiles = (cta[0] // em) * (cta[1] // en)
    stages_d = min(subtiles, 2)
    d_bits = DTYPES[spec.d.dtype].bits
    c_bits = DTYPES[spec.c.dtype].bits if spec.c is not None else 0
    reuse = c_bits == d_bits > 8
    stages_c = max(min(subtiles, 4), stages_d + 1) if reuse else min(subtiles, 4)
    total = stages_c * em * en * c_bits // 8 + (0 if reuse else stages_d * em * en * d_bits // 8)
    for _, kind, dtype in epi.extra_outputs_of(spec.epilogue):
        if kind == "tensor":
            total += stages_d * em * en * DTYPES[dtype].bits // 8
    for _, kind, dtype in epi.inputs_of(spec.epilogue):
        kind = kernel_vector_kind(kind, spec.tile.swap_ab)
        if kind == "per_col":
            total += cta[1] * DTYPES[dtype].bits // 8
        elif kind == "per_row" and spec.tile.swap_ab:
            total += stages_c * cta[0] * DTYPES[dtype].bits // 8
    return total + 1024


def sm90_auto_stages(per_stage: int, epilogue_smem: int, smem_limit: int) -> int:
    """The mainloop stages CUTLASS's collective builder fits beside the epilogue (StageCountAutoCarveout): each
    stage's A and B tiles (per_stage bytes) rounded up to 128 bytes, with its pipeline's two 8-byte barriers."""
    def round_up(x):
        return -(-x // 128) * 128
    return (smem_limit // 128 * 128 - round_up(epilogue_smem)) // (round_up(per_stage) + 16)


def main_k(k_bytes: int) -> int:
    """The default tile's CTA K: 128 bytes of K, the widest (128B) shared-memory swizzle."""
    return 128 // k_bytes


def is_fp8(spec: GemmSpec) -> bool:
    return spec.a.dtype in FP8


def promotes_accumulators(spec: GemmSpec) -> bool:
    """fp8 without fp8_fast_accum keeps a second (promotion) accumulator as large as the first."""
    return is_fp8(spec) and not getattr(spec.tile, "fp8_fast_accum", False)


def resolve_sm90(spec: GemmSpec, smem_limit: int) -> Sm90Config:
    t = spec.tile
    k_default = main_k(max(operand_bytes(spec)))
    wide_n = 128 if promotes_accumulators(spec) else 256  # 128x256 with a promotion accumulator would spill
    # fp8 with fp8_fast_accum: 128x128 pingpong, one warpgroup's epilogue under the other's mainloop. Against the
    # 128x256 c2x1 cooperative tile in the 8 anchors runs 37-44 (bench_anchors.py, TFLOP/s warm / cold): 8192^3
    # 1363-1455 vs 1316-1382, 4096x14336x4096 1452-1514 vs 1387-1438, 2048x8192^2 1433-1519 vs 1438-1506 (ahead in 6
    # of 8), 256x8192^2 1156-1205 vs 741-754; tile_probe.py fastdefault (runs 183-184): 1.05-1.10x at 4096^3 and
    # 8192x28672x4096, level at 384-2048 rows, 0.98-0.99x at 1024 rows (1024x8192^2, 1024x4096x14336).
    # A spec whose other fields need the cooperative tile keeps the 128x256 one: stream-K (split-K runs through it)
    # and a 128-row epilogue subtile.
    fast_fp8_default = (t.cta == AUTO and t.mainloop == AUTO and is_fp8(spec) and t.fp8_fast_accum
                        and t.scheduler == "persistent" and (t.epilogue_tile == AUTO or t.epilogue_tile[0] == 64))
    if fast_fp8_default:
        cta, mainloop = (128, 128, k_default), "pingpong"
    else:
        cta = t.cta if t.cta != AUTO else ((128, wide_n, k_default) if t.mainloop != "pingpong"
                                          else (64, wide_n, k_default))
        mainloop = t.mainloop
    if mainloop == "auto":
        mainloop = "cooperative" if cta[0] % 128 == 0 else "pingpong"
    cluster = t.cluster if t.cluster != AUTO else ((2, 1, 1) if cta[1] >= 256 and cta[0] >= 128 else (1, 1, 1))
    epi_tile = (sm90_epilogue_tile(cta, mainloop, DTYPES[spec.d.dtype].bits) if t.epilogue_tile == AUTO
                else t.epilogue_tile)
    per_stage = cta[0] * cta[2] * operand_bytes(spec)[0] + cta[1] * cta[2] * operand_bytes(spec)[1]
    stages = t.stages

    def stages_and_smem(epi_tile) -> tuple:
        """The mainloop stages beside this epilogue subtile's buffers, and the CTA's shared memory with them."""
        epi_smem = sm90_epilogue_smem(spec, cta, epi_tile)
        n = stages if stages != AUTO else max(1, sm90_auto_stages(per_stage, epi_smem, smem_limit))
        return n, epi_smem + per_stage * n

    mainloop_stages, smem = stages_and_smem(epi_tile)
    # Exact fp8, cooperative, unswapped: the tensor cores idle through each tile's epilogue, and halving its store
    # steps (128x64 subtiles for CUTLASS's 128x32) ran 0.7-1.1% faster warm and 0.7-3.0% cold at 4096x14336x4096 and
    # 8192^3 on the 128x128 tile, level at 2048x8192^2 and 232-256 rows (tile_probe.py exactepi, probe runs 177-180).
    # Taken only where the wider buffers keep every mainloop stage (5 stages ran 0.5-3% slower) and the tile still
    # stores in two steps or more (one 128x128 step ran 2-6% slower).
    if (t.epilogue_tile == AUTO and mainloop == "cooperative" and not t.swap_ab and promotes_accumulators(spec)
            and epi_tile == (min(128, cta[0]), 32) and cta[1] % 64 == 0 and cta[1] >= 128):
        wider = (min(128, cta[0]), 64)
        wider_stages, wider_smem = stages_and_smem(wider)
        if wider_stages == mainloop_stages and wider_smem <= smem_limit:
            epi_tile, smem = wider, wider_smem
    raster = t.raster
    swizzle = t.swizzle
    split_k = 1 if t.split_k == AUTO else t.split_k
    return Sm90Config(cta, cluster, mainloop, t.scheduler, stages, raster, swizzle, epi_tile, smem, t.fp8_fast_accum,
                      split_k, t.swap_ab, mainloop_stages)


def resolve(spec: GemmSpec):
    limit = ARCHS[spec.arch].smem_per_block
    return resolve_sm90(spec, limit) if spec.resolved_path == "sm90" else resolve_sm80(spec, limit)


# Per-shape defaults. One tile cannot serve every M: the sm90 128x256 default leaves half the H200's 132 SMs idle
# at M = 256 and pads a decode batch up to 128 rows. Measured on the H200 (bench/results/h200_tile_probe.log,
# h200_decode_tiles.log, h200_study_bias_gelu/, h200_sm80_tiles.log): upper M of each bucket -> the tile for it
# (None: the spec's own).
DECODE_M = 64  # at most this many rows: memory-bound on the weights, and swap_ab pays off


# The largest M of each bucket; the last is unbounded. From 65 rows on sm90 fits its swapped token tiles to M (a token
# tile's rows past M cost time, _bucket_tiles); the sm80 path's tiles span several of these buckets (SM80_TILES),
# which a dispatch plan merges.
EXACT_WIDE_M = 2048  # above it exact fp8 at N >= WIDE_N takes a 192-wide tile (_own_n_classes)
BUCKET_UPPER = (16, 32, 40, 48, DECODE_M, 80, 96, 112, 120, 128, 144, 160, 168, 176, 192, 208, 224, 240, 256, 512,
                EXACT_WIDE_M, None)
# Buckets of 8 rows cut from the 16-row one above them (the value), whose tiles and N classes they take but where their
# narrow columns (NARROW_COLUMNS) differ, and 161-168's three columns from N = 4225 (_own_n_classes): a swapped tile's
# time rises as its last token column empties, in the mainloop (tile_probe.py lastcol, run 126: three 64-wide columns
# at N = 2048 17.98 us at 136 rows, 12.70 at 192; the same with no epilogue; under ncu the same traffic, longer waits
# on the loads, h200_ncu_l2.log part 7), and at 113-120 and 161-168 rows a narrower width keeps the columns' count and
# fills the last one.
FILL_BUCKETS = {120: 128, 168: 176}


def _decode_k(k_bytes: int) -> int:
    return min(128, 256 // k_bytes)  # 128 for 8- and 16-bit operands (the probed tiles), 64 for tf32


# swap_ab: the CTA's 64 rows tile the weights (N), the tokens fit the CTA's N with no padded wgmma rows
_SWAP = {"mainloop": "pingpong", "scheduler": "persistent", "cluster": (1, 1, 1), "swap_ab": True}
_COOP = {"mainloop": "cooperative", "scheduler": "persistent", "cluster": (1, 1, 1), "swap_ab": False}


def _coop_128(k_bytes: int) -> dict:
    """128x128 cooperative, no cluster: what M 65-256 ran before session 21, and where a bucket's tile fails there."""
    return {"cta": (128, 128, main_k(k_bytes)), **_COOP}


def mid_n_48_epilogue(k_bytes: int) -> dict:
    """The epilogue field of the M 41-48 tile from MID_N (swap 64x48 in a 4x1 cluster), which the tuner's decode space
    holds too. With 16-bit operands its D goes out in one 64x48 subtile, not CUTLASS's three 64x16: on an H100, bf16
    bias+gelu, 0.02-0.91 us faster in 35 of 36 cases (40-64 rows at N = 5120-14336, K 1024-4096, warm and cold, three
    runs; at 48x5120x4096 -0.08 / -0.31, +0.07 / -0.25 and -0.14 / -0.30 us; tile_probe.py epiwide64,
    h100_session88.log, h100_session89.log). 8-bit operands and tf32 keep CUTLASS's subtiles (not timed)."""
    return {"epilogue_tile": (64, 48)} if k_bytes == 2 else {}


@functools.cache  # shape_tile asks per shape; the tables only read, never changed
def _bucket_tiles(k_bytes: int, fp8: bool = False) -> dict:
    """The largest M of each bucket of BUCKET_UPPER -> the tile fields it sets (None: the spec's default tile), or a
    tuple of such, tried in order where the first cannot be made valid for a spec (fp8: the operands are fp8, whose
    tiles at 81-224 rows differ from int8's)."""
    k_decode = _decode_k(k_bytes)
    k_main = main_k(k_bytes)
    two_token_columns = {"cta": (64, 32, k_decode), **_SWAP, "cluster": (1, 2, 1)}
    two_112 = {"cta": (64, 112, k_main if k_bytes == 2 else k_decode), **_SWAP, "cluster": (1, 2, 1)}

    def unclustered_first(width: int) -> tuple:
        # 65-160 rows, two swapped token columns width wide under 64-row weight tiles: 16-bit operands with no
        # cluster first (from TWO_COLUMNS_MULTICAST_N the 1x2 cluster, _n_classes), others in the 1x2 cluster. bf16
        # cold / warm against the cluster (tile_probe.py nocluster2colgrid, nocluster2colmid; runs 112-113):
        # 1.05-1.10x / 1.03-1.08x at N = 2048, 1.00-1.06x at 1024, 1.02-1.09x / 0.99-1.03x at 2304-2560; fp8 scaled
        # 0.98-1.02x, not taken
        columns = {"cta": (64, width, k_decode), **_SWAP, "cluster": (1, 2, 1)}
        return ({**columns, "cluster": (1, 1, 1)}, columns) if k_bytes == 2 else (columns,)
    tiles = {
        16: {"cta": (64, 16, k_decode), **_SWAP},
        32: {"cta": (64, 32, k_decode), **_SWAP},
        # 33-64 tokens make two CTA columns of 32; a 1x2 cluster loads each weight tile once for both (multicast).
        # Below MID_N the 64-row tiles; wider N classes change the tile (_n_classes), at 33-48 rows from 64's, at
        # 33-40 (a bucket of its own for its N classes) from N = 4096.
        40: two_token_columns,
        48: two_token_columns,
        DECODE_M: two_token_columns,
        # From here the token tile fits M: its rows past M cost time, 32 of them up to a third of it, where 16 cost
        # little (h200_tile_probe.log runs 50-52: 128x64 cooperative 24 us at 128x8192x4096, 31 at M = 96; the
        # bucket's old 128x128 cooperative 0.51x cuBLASLt fused at 160x8192x4096 with 96 such rows). cuBLAS fits
        # its token tiles to M in steps of 8 (72, 88 and 104 wide at M = 136, 168 and 200; h200_library_kernels.log);
        # here in steps of 16, and of 8 where validate.n_step_of allows them (16-bit and fp8 operands, the mainloop's
        # TMA set-up from csrc/cutlassgen/narrow_tma.hpp for 16-bit ones). Token tiles that are not a wgmma base N
        # (80, 112, 144, ...) run on its extended shapes (arch.WGMMA_BASE_N; without them they had run at 0.3-0.8x
        # the 32-multiple tiles, runs 50-58). Against the 128x128 cooperative tile these buckets had until session 21,
        # or the session 21 plan where named (cold / warm, run 60):
        # 65-80: one swapped 80-wide token tile (72x8192x4096 216 / 214 vs 189 / 191 for 64x96, 72x4096^2 156 / 179
        # vs 140 / 148). Below TWO_64_COLUMNS_END_N (from there the 80-wide column, _n_classes) two 40-wide columns
        # in a 1x2 cluster first, cuBLAS's form: N / 32 CTAs (72x4096^2 169 / 214 vs 151 / 175, 72x4096x8192
        # 213 / 223 vs 199 / 197, tile_probe.py bf16narrow, run 83; 66x4096^2 153 / 168 vs 139 / 148, 72x2048x4096
        # 101 / 110 vs 86 / 91, narrowcols, run 84; fp8 at 72x4096^2 198 / 207 vs 164 / 171); the 80-wide column
        # where they cannot be made valid. At 72x4352x8192 their 136 CTAs passed a wave: 161 / 166 vs 208 / 209.
        80: (*unclustered_first(40), {"cta": (64, 80, k_decode), **_SWAP}),
        # 81-96 below TWO_64_COLUMNS_END_N: two swapped 48-wide token columns, their weight tile loaded once for both by
        # a 1x2 cluster: N / 32 CTAs where one column makes N / 64, half the SMs at N = 4096 (88x4096^2 203 / 226 vs 178
        # / 203 for one 96-wide column, run 65). From there (MID_N until run 85) the 96-wide column (_n_classes),
        # 1.2-1.6x the 128x128 tile (96x8192^2 329 vs 275 TFLOP/s).
        96: unclustered_first(48),
        # 97-112 below LARGE_N: one swapped 112-wide token tile (104x4096^2 202 / 226 vs 189 / 196 for 128x64).
        # Below TWO_64_COLUMNS_END_N two 56-wide columns in a 1x2 cluster first, as at 65-80 rows (104x4096^2
        # 234 / 280 vs 196 / 216, 104x4096x8192 286 / 305 vs 253 / 248, run 83; 98x4096^2 219 / 240 vs 185 / 202,
        # 112x4096^2 259 / 288 vs 215 / 244, 104x2048x8192 170 / 174 vs 144 / 135, run 84; fp8 at 104x4096^2
        # 267 / 278 vs 207 / 216); at 104x4352x4096 184 / 203 vs 209 / 237.
        112: (*unclustered_first(56), {"cta": (64, 112, k_decode), **_SWAP}),
        # 113-128 below TWO_64_COLUMNS_END_N: two swapped 64-wide token columns, N / 32 CTAs (120x4096^2 264 / 295 vs
        # 219 / 252 for 128x64 cooperative; 264 / 282 with the 1x2 cluster; run 65). From there to LARGE_N (16-bit
        # operands from MID_N, _n_classes): 128x64 cooperative, twice the CTAs of 128x128 (N / 64), 1.0-1.5x
        # (128x4096^2 233 vs 161).
        128: {"cta": (64, 64, k_decode), **_SWAP},
        # 129-144 below LARGE_N: one swapped 144-wide token tile with 48-wide epilogue subtiles (136x4096^2 253 / 265
        # vs 228 / 241 for 64x160; 243 / 250 with 16-wide subtiles, CUTLASS's pick). 16-bit operands below
        # TWO_64_COLUMNS_END_N (from there _n_classes): two 72-wide columns in a 1x2 cluster first, as at 65-128 rows
        # (136x4096^2 294 / 339 vs 249 / 262, 144x4096^2 319 / 357 vs 264 / 279; at 140x5120 253 / 270 vs 296 / 310,
        # past a wave; tile_probe.py wave7168, run 86). 8-bit operands too (where validate.n_step_of allows 72: fp8,
        # not int8): fp8 scaled 136x4096^2 437 / 469 vs 360 / 378 with fast accumulation, 334 / 346 vs 257 / 266
        # without (wave7168fp8, run 87).
        144: (unclustered_first(72) if k_bytes != 4 else ()) + (
            {"cta": (64, 144, k_main), **_SWAP, "epilogue_tile": (64, 48)},),
        # 145-160 below TWO_64_COLUMNS_END_N: two swapped 80-wide token columns in 1x2 clusters, N / 32 CTAs (152x4096^2
        # 312 / 357 vs 256 / 270 for one 160-wide column, run 65). From there to LARGE_N: the one 160-wide column,
        # 1.5-1.9x the 128x128 tile at N >= 8192 (160x8192x4096 408 vs 229, before the two-column form took over from
        # LARGE_N).
        160: unclustered_first(80),
        # 161-192 below LARGE_N (16-bit operands: TWO_64_COLUMNS_END_N, _n_classes): two 96-wide token tiles, twice
        # the CTAs of one 192-wide (192x4096^2 375 vs 287 for 64x192, 243 for 128x128; 176x4096^2 311 vs 263, 223).
        192: {"cta": (64, 96, k_decode), **_SWAP},
        # 193-224 below TWO_64_COLUMNS_END_N: two swapped 112-wide token columns under 64-row weight tiles in 1x2
        # clusters, N / 32 CTAs (200x4096^2 342 / 352 vs 280 / 283 for the 128-row form below, 216x4096^2 398 / 433 vs
        # 302 / 308; run 65). From there the same columns under a 128-row weight tile (cuBLAS's form, _n_classes).
        # 16-bit operands take 64 elements of K, 10 stages where 128 left 5 (cuBLAS's nvjet 64x104 runs 64 of K,
        # h200_library_kernels.log session 35), and at 193-208 rows columns 104 wide (steps of 8), cold / warm
        # against the 112-wide ones with 128 of K (tile_probe.py low200, low200more, runs 98-99): 200x1024x4096
        # 117 / 119 vs 102 / 106, 200x3072 316 / 345 vs 278 / 287, 200x4096 394 / 442 vs 323 / 349; at 209-224 rows
        # 1.01-1.07x (216x2048 216 / 230 vs 202 / 220). The 4x2 cluster of cuBLAS's tile ran 1.02-1.08x the 1x2 one
        # at N <= 2048, level at 3072-3840, 0.65-0.69x at 4096. cuBLASLt fused still leads at N <= 3840 (0.80-0.99x).
        # Below that the 16-bit columns' class starts (_n_classes: THREE_64_COLUMNS_END_N at 193-208 rows,
        # FOUR_56_COLUMNS_END_N at 209-224), three swapped token columns, 72 and 80 wide (four 56 wide at 209-224
        # since run 115, below), under 64-row weight tiles with no cluster: 3 x ceil(N / 64) CTAs. Our copy of
        # cuBLAS's tile at 200x2048 (nvjet 64x72 _4x1) ran its consumers waiting on full stages, 24% more cycles than
        # nvjet's under ncu; the same tile with no cluster read what nvjet reads from L2 and ran 0.97-0.98x cuBLASLt
        # fused (tile_probe.py twin200, run 107). Cold / warm against the two columns (nocluster200, run 108): 72
        # wide 1.07-1.12x at 196-208 rows, N = 1024-2816 (200x2048x4096 245 / 249 vs 218 / 231, 208x2816 337 / 356
        # vs 306 / 333); 80 wide 1.08-1.15x at 216 rows to 2048 (216x1024 131 / 134 vs 114 / 118), 0.85-0.95x at
        # 212x2560 and 224x2816. fp8 operands (128 of K) take these 72-wide columns and 209-224's 56-wide ones (next),
        # then the 112-wide pair (tile_probe.py morecolsfp8wide, run 122, with fast accumulation / without, cold and
        # warm): 1.22-1.26x at 200 rows, N = 1536-2560 (200x2048 341 / 261 vs 277 / 208 warm), timed to 2560, taken to
        # THREE_64_COLUMNS_END_N as 16-bit's; four 56-wide 1.23-1.31x at 216 rows, N = 1024-2048 (216x1024 206 / 151 vs
        # 162 / 115), three 80-wide 1.08-1.14x.
        208: (({**_SWAP, "cta": (64, 72, k_main)}, {**two_112, "cta": (64, 104, k_main)}) if k_bytes == 2 else
              ({**_SWAP, "cta": (64, 72, k_main)},) if fp8 else ()) + (two_112,),
        # 209-224 below FOUR_56_COLUMNS_END_N: four 56-wide columns in place of the three 80-wide ones runs 108-110
        # had taken, 4 x ceil(N / 64) CTAs (tile_probe.py morecols and morecols2, runs 115-116, cold / warm):
        # 1.04-1.26x at N = 1536-2048 (216x2048x4096 251 / 293 vs 236 / 233), 1.07-1.20x at 512-1024.
        224: (({**_SWAP, "cta": (64, 56, k_main)},) if k_bytes == 2 or fp8 else ()) + (two_112,),
        # 225-256 below MID_N (16-bit operands: TWO_64_COLUMNS_END_N, _n_classes): two swapped 128-wide token tiles,
        # 128 CTAs at N = 4096 where 128x128 makes 64 (256x4096^2 448 / 495 vs 323 / 330 cold / warm; 240x4096^2
        # 379 / 440 vs 304 / 309, run 53).
        256: {"cta": (64, 128, k_main), **_SWAP},
        512: None,  # larger M: the spec's default tile; above 512 rows an N class changes it (_n_classes)
        EXACT_WIDE_M: None,
        None: None,
    }
    # 161-176 and 225-240 are buckets of their own only for the one column (_n_classes); below its N they run the
    # tile of the bucket above (193-208 has its own 16-bit and fp8 form, above); FILL_BUCKETS' take their parent's
    # (161-168 after 161-176 has taken 177-192's)
    for upper, parent in {176: 192, 240: 256, **FILL_BUCKETS}.items():
        tiles[upper] = tiles[parent]
    # the narrow columns with the K of the tile they go in front of
    for upper, ((width, _), *_) in _narrow_columns(k_bytes, fp8).items():
        own = tiles[upper] if isinstance(tiles[upper], tuple) else (tiles[upper],)
        tiles[upper] = ({**_SWAP, "cta": (64, width, own[0]["cta"][2])}, *own)
    return tiles


# N classes: a bucket's tile for N >= n_min, measured on the H200 (132 SMs; bench/results/h200_tile_probe.log, runs
# 1-2, 9-19, 30-31, 49-60, 66-68, 70-73):
# - M 17-32, N >= WIDE_N: over 1.5 waves of the swapped 64-row tiles; a 2x1 cluster measured 3-5% faster
#   (32x14336x4096: 111-114 vs 107-111 TFLOP/s), the same at N = 8192 and 9% slower at N = 4096.
# - M 33-64, N < MID_N: the bucket's 64x32 c1x2 tiles (2N/64 CTAs) fill one wave at N = 4096, where 128-row tiles
#   leave half the SMs idle (64x4096x14336: 220-227 vs 170-188); from N = 5120 on they are over one wave
#   (64x5120x8192: 163 vs 183 TFLOP/s for 128x32 c1x2). The 1x2 multicast beat the old 128x32 tile without it:
#   226-227 vs 217-224 at 64x8192x8192, 167-173 vs 147-166 at M = 48, 142 vs 123 at M = 40.
# - M 33-64, MID_N <= N < LARGE_N: 64x64 tiles, all the tokens in one CTA, the token tile multicast over 4x1
#   clusters of weight tiles (cuBLAS's own tile family there, bench/results/h200_library_kernels.log): runs 17-19,
#   64x5120x8192 199 vs 183, 64x6144x4096 179-182 vs 167-172, 64x6144x8192 212-213 vs 203-205, M = 40 at
#   6144x4096 111 vs 106, M = 48 128 vs 129. At 128 CTAs (N = 8192) not every 4-CTA cluster fits the GPCs: 152-175.
#   At 33-48 rows the token tile fitted to 48 (on wgmma's extended shapes since session 22; run 35 had it split into
#   m64n16k16 and behind) in the same 4x1 clusters, cold / warm (run 62): 48x6144x4096 133 / 139 vs 124 / 137 for
#   64x64, 40x6144x4096 109 / 116 vs 106 / 114, 48x6144x8192 162 / 165 vs 152 / 156, 48x5120x8192 156 / 158 vs
#   153 / 155.
# - M 33-40 from N = 4096: one swapped token tile 40 wide (steps of 8, validate.n_step_of: 16-bit and fp8 operands), in
#   4x1 clusters below LARGE_N and 2x1 from there (at N = 8192 not every 4-CTA cluster fits the GPCs), in place of each
#   N class's tile at 33-48 rows (cuBLAS's nvjet 64x40 _2x1 at 40x8192^2, h200_library_kernels.log session 9). bf16 cold
#   / warm (tile_probe.py bf16narrow, run 83): 40x4096^2 96 / 128 vs 92 / 100 for 64x32 c1x2, 40x6144x4096 113 / 114 vs
#   111 / 112 for 64x48 c4x1, 40x8192^2 149 / 150 vs 143 / 146 for 128x32 c1x2 (c4x1 121 / 121), 40x14336x4096 144 / 141
#   vs 136 / 137 for 128x64; fp8 with fast accumulation (fp8narrow, run 82) 138 / 154 vs 125 / 138 at 4096^2, 164 / 204
#   vs 159 / 191 at 6144, 257 / 256 vs 252 / 250 at 8192^2, 240 / 237 vs 241 / 236 at 14336. int8 and tf32 (steps of 16)
#   keep the classes of 33-48.
# - M 33-64, LARGE_N <= N < WIDE_N: 128x32 c1x2 again (64x7168x8192: 218 vs 215, 64x8192^2: 227-230 vs 221-223).
# - M 33-64, N >= WIDE_N: 128x64 tiles, one CTA column for all the tokens (64x14336x4096: 220-221 vs 202-208 for
#   128x32 c1x2; 64x28672x8192: 255 vs 174 for the old 128x32 stream-K tile).
# - M 97-128, LARGE_N <= N < TALL_N: two swapped 64-wide token columns under a 128-row weight tile in a 1x2 cluster
#   (120x8192x4096 357 / 356 vs 329 / 329 for 128x64 cooperative, 1.03-1.07x cuBLASLt fused; run 56, one shape;
#   at 104x8192x4096 308 / 297 vs 290 / 284 for one 112-wide token tile, run 60).
# - M 129-160, LARGE_N <= N < TALL_N: two swapped 80-wide token columns under a 128-row weight tile in a 1x2
#   cluster, subtiles as wide as a column (run 60: 136x8192x4096 377 / 388 vs 367 / 385 for one 144-wide token
#   tile and 302 / 311 for 64x160; 152x8192x4096 440 / 433 vs 394 / 396).
# - M 161-192, LARGE_N <= N < TALL_N: two swapped 96-wide token columns under a 128-row weight tile in a 1x2 cluster
#   (168x8192x4096 451 / 443 vs 353 / 352 for one 192-wide token tile, run 56), which had beaten two 64x96 tiles
#   without the cluster (192x8192x4096 499 / 481 vs 457 / 437, run 52).
# - M 65-128 from WIDE_N, 129-256 from ONE_COLUMN_N: all the tokens in one swapped column, fitted to M in steps of 16
#   (hence buckets of 16 rows up to 256), under a 128-row weight tile, the token tile multicast over a 4x1 cluster of
#   weight tiles: cuBLAS's form there (nvjet 128x72 ... 128x240 _4x1, h200_library_kernels.log sessions 21 and 24).
#   N/128 CTAs, 96 at N = 12288 and 112 at 14336, do not fill the SMs, but each weight tile is loaded once and each
#   token tile once per four weight tiles. Cold / warm against the tiles these buckets had (two 64x96 / 64x80 token
#   tiles in 2x1 clusters at 65-96, 128x128 at 97-128 and 225-256, two token columns under a 128-row weight tile in
#   1x2 clusters at 129-224), runs 67-68: 72x12288x4096 246 / 242 vs 219 / 211; 88x14336x4096 302 / 302 vs 282 / 283;
#   120x14336x4096 408 / 399 vs 391 / 379; 136x12288x4096 416 / 406 vs 358 / 348; 136x14336x4096 436 / 423 vs
#   401 / 389 (the plan); 168x14336x4096 510 / 491 vs 468 / 453; 200x28672x4096 564 / 547 vs 504 / 490; 216x14336x4096
#   571 / 568 vs 572 / 556 (the one tie); 232x14336x4096 598 / 590 vs 533 / 526; 256x14336x4096 617 / 617 vs
#   594 / 583. The column 16 rows wider than M ran 5-7% slower than the fitted one (168: 128x192 475 vs 510 cold; 200:
#   128x224 531 vs 558; 240: 128x256 587 vs 619). Subtiles as wide as the tile at 80 and 112 (as in the two-column
#   form), 48 at 240 (as fast as 80), CUTLASS's pick elsewhere (16 at 144 ran as fast as 48). Stream-K, which would
#   split the missing SMs' share of K among all of them, ran slower than every plan tile (run 66).
# - M 65-224 from TALL_N (where two token columns under 128-row weight tiles pass one wave: 2N / 128 > 132 CTAs) to
#   WIDE_N at 65-128 rows and to ONE_COLUMN_N (where two 192-row columns would pass it) at 129-224: two swapped token
#   columns fitted in steps of 16 (48 at least) under a 192-row weight tile multicast over a 1x2 cluster, pingpong,
#   subtiles as wide as a 48-, 80- or 112-wide column: cuBLAS's form at N = 12288 (nvjet 192x72 / 192x104 _1x2,
#   h200_library_kernels.log session 24), 2 * ceil(N / 192) CTAs, 128 at N = 12288. Cold / warm against the tiles
#   these buckets had (runs 70-72): at 129-256 rows 1.03-1.28x from N = 8704 to 12672 (136x9216x4096 339 / 324 vs
#   278 / 274; 200x10240x4096 483 / 474 vs 379 / 376; 248x9216x4096 471 / 476 vs 376 / 371; 232x12288x4096 572 / 578
#   vs 508 / 520 for the one column; 200x10240x8192 546 / 533 vs 463 / 458; 152x8704x4096 364 / 348 vs 299 / 294),
#   level at 129-144 rows at N = 12288 (136: 408 / 396 vs 409 / 397); fp8 with fp8_fast_accum 1.05-1.26x
#   (200x10240x4096 797 / 822 vs 635 / 653). At 65-128 rows below WIDE_N 1.15-1.27x (72x10240x4096 228 / 225 vs
#   182 / 178; 120x9216x4096 330 / 321 vs 272 / 268), at N = 12288 0.98-1.00x the one column, which keeps it. At N =
#   8192, where two 128-row columns make 128 CTAs, 0.72-0.81x them. At 225-256 rows the next form beat them, and at
#   97-128 rows to N = 10240, 209-224 to 9216 and 161-192 to 9856 or 10560, where they make 90-108 CTAs (runs 74-77,
#   _n_classes.tall_in_band).
# - M 225-256 in the same band (TALL_N to ONE_COLUMN_N): unswapped, the tokens in two 128-row tiles that a 2x1 cluster
#   multicasts each weight tile to, the weight tile N / 64 wide in steps of 16 (a class per width: 144 up to
#   N = 9216, 160 to 10240, 176 to 11264, 192 above), 64 columns and 128 CTAs: cuBLAS's form there (nvjet 144x128 and
#   168x128 _1x2 at 240x9216x4096 and 256x11008x4096, h200_library_kernels.log session 25). Against the 192-row tiles,
#   cold / warm (run 73): 240x9216x4096 576 / 567 vs 462 / 461, 256x9216x4096 610 / 598 vs 492 / 492, 240x10240x4096
#   591 / 565 vs 504 / 509, 256x11008x4096 616 / 601 vs 578 / 572, 256x12288x4096 649 / 644 vs 619 / 623; without the
#   cluster (1x2 instead) 490 / 490 at 240x9216x4096. At 200 rows the 192-row tiles stay ahead (200x10240x4096
#   479 / 470 vs 463 / 466 for 128x160); at 97-128 rows the same form with two 64-row token tiles (pingpong).
# - M 161-192 (145-192 until runs 133-135, _own_n_classes) in the same band, where the 192-row tiles make 2 x
#   ceil(N / 192) CTAs (96 at N = 9216): unswapped with no cluster, the tokens in three 64-row pingpong tiles under
#   224-wide weight tiles (3 x ceil(N / 224) CTAs, up to 132 to N = 9856), then at 177-192 rows all of them in one
#   192-row pingpong tile under 80-wide weight tiles (up to 132 to N = 10560). Cold / warm against the 192-row tiles
#   (runs 76-77): 184x9216x4096 477 / 450 vs 428 / 421, 192x9216x4096 500 / 478 vs 448 / 440, 176x8456x4096 432 / 412
#   vs 384 / 371, 176x9216x8192 514 / 514 vs 475 / 470, 152x9216x4096 393 / 382 vs 380 / 371, 148x8704x4096
#   366 / 351 vs 356 / 347; the one 192-row tile 192x10240x4096 513 / 502 vs 481 / 479, 180x10240x4096 469 / 457 vs
#   457 / 452. Mixed at 168x9728x8192 (454 / 521 vs 468 / 465); behind at 129-144 rows (144x9216x4096 337 / 315 at
#   best vs 358 / 353) and past a wave (168x10240x4096, 138 CTAs of the three tiles: 307 / 301 vs 424 / 421). fp8
#   with fast accumulation: 184x9216 744 / 800 vs 694 / 700, 192x10240 826 / 890 vs 782 / 792, 172x8704 669 / 736 vs
#   611 / 620 (run 78), but 160x8704 614 / 686 vs 640 / 696, so 8-bit operands take them from 161 rows; since runs
#   133-135 16-bit ones too (the three tiles ran 1.2-1.35x the 192-row tiles' time at 146-158x9216), but at
#   N = 9185-9248 (SHORT_LAST_WEIGHT_TILE_N, runs 136-139).
# - M 225-256, MID_N <= N < TALL_N: 128x128 cooperative (256x8192x4096 608 / 583 vs 496-509 for two swapped
#   128-wide token tiles, 256x8192^2 698 / 683 vs 568 / 548; 240x8192x4096 577 / 549 vs cuBLASLt fused 595 / 574;
#   runs 52-53).
# - M > 512, N >= WIDE_N: 128x128 pingpong, no cluster (tile_probe.py prefillpp and prefillwide, runs 30-31, warm /
#   cold): one warpgroup's epilogue runs under the other's mainloop, and twice the tiles of 128x256 fill the last
#   wave better: 1024x14336x4096 714-719 / 732-740 vs 643-646 / 660-662 for the default, 8192x14336x4096 723 / 714
#   vs 663 / 674, 4096x14336x4096 720-738 / 734-753 vs 707-718 / 728-731, 4096x14336x8192 713 / 734 vs 692 / 720,
#   2048x28672x4096 723 / 726 vs 687 / 723, 4096x12288x4096 709 / 738 vs 706 / 736. At M = 512 it lost
#   (512x14336x4096 596 / 621 vs 615 / 631), hence its own bucket; at N <= 8192 the default is as fast or faster
#   (default vs pingpong: 8192^3 701 / 735 vs 693 / 734, 4096x4096x14336 762 / 777 vs 753 / 764). fp8 with
#   fp8_fast_accum the same (4096x14336x4096: 1478 / 1520 vs 1400 / 1447, run 29). fp8 without it cannot take it
#   (its promotion buffer would double the 128x128 accumulators one warpgroup holds); see the next rule. On H100s at
#   their 700 W cap it ran up to 17% behind the cooperative tiles in bursts, machine by machine, level to -3%
#   sustained (bench/PERFORMANCE.md, session 96): kept as measured on the H200; on an H100 a DispatchKernel runs it
#   with strips of 4 (instead_on).
# - M > EXACT_WIDE_M, N >= WIDE_N, fp8 without fast accumulation: 128x192 cooperative, no cluster, 128x64 epilogue
#   subtiles (96 accumulators and a 96-register promotion buffer a thread; 168 registers, no spill; four stages).
#   Each k tile's A serves 1.5x the columns, so a tile's fixed costs and the shared-memory reads per MMA shrink; the
#   promotion adds per MMA stay. Against the plan's kernel (the default, or its opaque form at K <= 2048), warm /
#   cold (tile_probe.py exactwidesweep, runs 251-252): 4096x14336x4096 +5.1 / +5.3% (1332 / 1372 vs 1267 / 1303;
#   _scaled_mm 1329 / 1365), 4096x12288 +5.9 / +5.6%, 4096x16384 +4.5 / +5.5%, 4096x28672 +4.4 / +6.4%, at K = 1024
#   and 2048 +6.3 / +6.1% and +6.1 / +6.2% (4096x14336x2048 1185 / 1209 vs _scaled_mm 1187 / 1208); under 1% at
#   8192x14336x4096 (+0.9 / +0.4%) and K = 8192 (+0.6 / +0.4%), where the explicit 128x128 tile, the same code in
#   another module, ran 0.1-1.7% slower than the plan's. 6144x12288x4096 against two modules of 128x128 (exactwide,
#   runs 249-250): +3.4 to +4.0% / +2.8 to +3.4%. Fewer rows make fewer waves, where a wider tile's last wave costs
#   more: 1024x14336x4096 -0.6 / -1.0%, 512x14336 -6.1 / -5.9% (2048x14336 +2.4 / +0.8%). Below WIDE_N it depends
#   on the shape beyond what a class can tell (against 128x128: 4096x8192x4096 +3.2 / +2.1%, 8192^3 -1.8 / -0.6%,
#   16384x8192x4096 -1.5 / -2.7%, 2048x8192^2 -5.1 / -5.6%, 3072x5632x4096 -3.4 / -4.5%): those keep the default.
#   Just above the boundary, where ceil(tiles / 132) x width had its last wave about 2% dearer than 128x128's
#   (2112-2176 rows at N = 13824, 2368-2432 at 12288, 2560 at 14336), it ran level or ahead: -0.1 to +1.1%, and
#   +5 to +9% at 2304x13824, 2304x12288 and 3072x14336 (exactwideedge, runs 257-258).
MID_N = 4608
LARGE_N = 7168
WIDE_N = 12288
# Where two token columns pass one wave of the H200's 132 SMs: under 128-row weight tiles (2 * ceil(N / 128) CTAs)
# from TALL_N, under 192-row ones from ONE_COLUMN_N
TALL_N = 128 * 132 // 2 + 1
ONE_COLUMN_N = 192 * 132 // 2 + 1
# Where two token columns under 64-row weight tiles (2 * ceil(N / 64) CTAs) would pass one wave
TWO_64_COLUMNS_END_N = 64 * (132 // 2) + 1
# Where three token columns under 128-row weight tiles (3 * ceil(N / 128) CTAs) would pass one wave
THREE_COLUMNS_END_N = 128 * (132 // 3) + 1
# Where three token columns under 64-row weight tiles (3 * ceil(N / 64) CTAs) would pass it, and where the no-cluster
# columns at 209-224 rows (80 wide until run 115, 56 wide since) give way to two in a 1x2 cluster (measured: the
# 80-wide ones ahead at N = 2048, behind at 2560; run 108)
THREE_64_COLUMNS_END_N = 64 * (132 // 3) + 1
FOUR_56_COLUMNS_END_N = 2049
# 16-bit (and fp8, below) operands at 81-208 rows where N / 64 weight tiles are few: bucket -> ((width, end_n), ...),
# swapped no-cluster token columns under 64-row weight tiles that width wide below the first end_n, then the next width
# below the next end_n, then the bucket's own tiles and N classes as before. Its own tiles run 2-3 columns,
# 2-3 x ceil(N / 64) CTAs: 32-48 at N = 1024, where presumably each SM's own loads bound the time (not profiled).
# 16-bit, cold / warm against them (tile_probe.py morecols, morecols2, morecolsmid; runs 115-116 and 118):
# - below N = 1025, 4-6 columns 24-40 wide: 81-96 4 x 24 1.09-1.15x (88x1024x4096 73 / 75 vs 65 / 67); 97-112 4 x 32
#   1.04-1.10x; 113-128 4 x 32 1.13-1.17x (120x1024 96 / 99 vs 82 / 85); 129-144 6 x 24 1.16-1.21x (136 rows);
#   145-160 4 x 40 1.20-1.25x (156x1024 122 / 125 vs 98 / 100); 161-192 6 x 32 1.28-1.36x (184x1024 144 / 146 vs
#   109 / 114); 193-208 6 x 40 1.03-1.11x. 65-80 rows gained 0-7% (72, 76): not taken.
# - from 1025, three columns: 81-96 3 x 32 1.05-1.14x to 2304 (88x1536, 88x2048, 92x2048, 84 and 92 x 2304), mixed
#   at 2560 (0.97-1.08x); 97-112 3 x 40 1.02-1.11x at 1280-1792, 0.94-1.05x at 2048; 129-144 3 x 48 1.01-1.09x to 2560
#   (136, 132, 140 rows); 145-160 3 x 56 1.01-1.15x to 2304, 0.92-0.94x at 148x2560; 161-192 3 x 64 1.00-1.15x to 2560
#   (168, 184, 188 rows), mixed at 2816. 113-128: 4 x 32 on, 1.05-1.16x at 1280-1536, 1.00-1.06x at 1792, 0.90-1.08x
#   at 2048 (three 48-wide 0.84-1.09x). 193-208: the three 72-wide columns led.
# The narrower the columns, the more the time fell where the CTAs stayed under a wave, but not always: at N = 2048
# four columns (128 CTAs) ran 0.75-1.03x at 76-136, 200 and 208 rows and 1.04-1.26x at 152, 184, 216 and 224 (4 x
# 40, 48, 56, 56), at 1536 four columns (96 CTAs) 0.88-1.18x, behind three or five but at 184 rows. Profiled at
# 104x2048x4096 (session 41, h200_ncu_l2.log part 6): the four 32-wide columns' kernel reads 1.52x the L2 sectors of
# three 40-wide ones and takes 1.26x their time; at 152 rows four 40-wide ones read 1.03x and lead. Why, not found.
# Fuller last columns (FILL_BUCKETS; tile_probe.py lastcol, run 126, and fillcheck, run 127, warm / cold): at 113-120
# rows three 40-wide columns from N = 1025 (four 32-wide below: level), 1.00-1.25x / 1.03-1.25x four 32-wide (114x2048
# 10.98 vs 13.38 us); at 161-168 three 56-wide 1.06-1.40x / 1.09-1.37x three 64-wide (162x2560 13.06 vs 17.71 us),
# and below 1025 seven 24-wide 1.04-1.17x / 1.03-1.18x six 32-wide (164x1024 10.42 vs 12.19 us). Four 48-wide columns
# at 177-192 rows, N = 1793-2048, ran 0.86-1.03x / 1.00-1.05x three 64-wide (178x2048 14.91 vs 12.80 warm, its last
# column 34 of 48 rows): not taken.
NARROW_COLUMNS = {96: ((24, 1025), (32, 2305)), 112: ((32, 1025), (40, 2049)), 120: ((32, 1025), (40, 2049)),
                  128: ((32, 2049),), 144: ((24, 1025), (48, 2561)), 160: ((40, 1025), (56, 2305)),
                  168: ((24, 1025), (56, 2561)), 176: ((32, 1025), (64, 2561)), 192: ((32, 1025), (64, 2561)),
                  208: ((40, 1025),)}
# fp8 operands take the same columns (tile_probe.py morecolsfp8, run 120, fp8 scaled with fast accumulation / without,
# warm, against the two columns they had, in a 1x2 cluster but at 113-128 and 161-192 rows): 1.04-1.26x at N = 1024
# (184x1024 6 x 32 175 / 136 vs 154 / 108), 1.02-1.18x at 1536 (152x1536 3 x 56 210 / 157 vs 184 / 138), 1.04-1.15x at
# 2304 (136x2304 3 x 48 272 / 214 vs 262 / 198); cold the same but 0.98x with fast accumulation at 136 rows from 1536.
# At other rows (morecolsfp8check, run 121) 0.99-1.30x / 1.04-1.40x, warm and cold, the least at 97-112 rows (104x2048
# 0.99 / 1.04 warm), the most at 193-208 (200x1024 six 40-wide columns 193 / 149 vs 148 / 107). int8 takes its own
# (INT8_NARROW_COLUMNS, next); tf32 was not timed.
# fp8's FILL_BUCKETS (fillcheck, run 127, fast accumulation / without, warm): at 161-168 rows three 56-wide columns
# 1.05-1.27x / 1.02x three 64-wide (166x2560 9.50 vs 12.10 us with fast accumulation), cold 1.02-1.16x / 1.02-1.03x;
# at 113-120 three 40-wide 1.01-1.03x / 0.97-0.99x four 32-wide, so those keep 121-128's; seven 24-wide columns below
# N = 1025 not timed with fp8.
FP8_NARROW_COLUMNS = {**NARROW_COLUMNS, 120: NARROW_COLUMNS[128], 168: ((32, 1025), (56, 2561))}


# int8 operands, whose token columns go in steps of 16 (validate.n_step_of), in NARROW_COLUMNS' form, 209-224 rows too
# (tile_probe.py morecolsint8, run 123: the int8 dequant spec, warm / cold, against the tiles they had: two columns in
# a 1x2 cluster at 81-96, 145-160 and 193-224 rows, one 112- or 144-wide column at 97-112 and 129-144, two 64- or
# 96-wide ones with no cluster at 113-128 and 161-192):
# - 81-96 3 x 32 1.01-1.04x at N = 1024-2560 (6 x 16 0.76-0.81x from 1536);
# - 97-112 4 x 32 1.24-1.26x at 1024 (104x1024x4096 102 / 98 vs 81 / 79 TFLOP/s), then 2 x 64 1.09-1.18x to 2560
#   (4 x 32 0.81-0.83x at 2560);
# - 113-128 4 x 32 1.03-1.04x to 2048, 0.75-0.76x at 2560;
# - 129-144 5 x 32 1.30-1.36x at 1024-1536 (136x1024 133 / 124 vs 98 / 95), then 3 x 48 1.22-1.27x to 2560;
# - 145-160 5 x 32 1.12-1.13x at 1024-1536, 0.84x from 2048 (3 x 64 0.86-1.00x there);
# - 177-192 6 x 32 1.11-1.13x at 1024, then 3 x 64 1.05-1.08x to 2560 (161-176 takes them as 16-bit does, untimed);
# - 193-208 5 x 48 1.09-1.18x at 1024-1536 (3 x 80 1.05-1.12x), 0.78-0.80x from 2048 (3 x 80 0.98 / 1.08x at 2048);
# - 209-224 5 x 48 1.15-1.19x at 1024-1536, then 3 x 80 1.04 / 1.09x at 2048 (0.99 / 1.05x at 2560, not taken).
# At other rows and N (morecolsint8check, run 124) the plan ran 1.00-1.38x those tiles, warm and cold, 161-176 rows
# 1.06-1.16x; at 129-144 rows the 48-wide columns' inherited 64x48 subtile 1.03-1.04x CUTLASS's pick, and five 32-wide
# columns 0.97-1.07x three 48-wide ones below N = 1537.
INT8_NARROW_COLUMNS = {96: ((32, 2561),), 112: ((32, 1025), (64, 2561)), 128: ((32, 2049),),
                       144: ((32, 1537), (48, 2561)), 160: ((32, 1537),), 176: ((32, 1025), (64, 2561)),
                       192: ((32, 1025), (64, 2561)), 208: ((48, 1537),), 224: ((48, 1537), (80, 2049))}


def _narrow_columns(k_bytes: int, fp8: bool) -> dict:
    """The narrow columns the operands take: NARROW_COLUMNS for 16-bit ones, FP8_NARROW_COLUMNS for fp8,
    INT8_NARROW_COLUMNS for int8 (a FILL_BUCKETS bucket it does not name takes those of the bucket above)."""
    if fp8:
        return FP8_NARROW_COLUMNS
    if k_bytes == 2:
        return NARROW_COLUMNS
    if k_bytes != 1:
        return {}
    return {**{upper: INT8_NARROW_COLUMNS[parent] for upper, parent in FILL_BUCKETS.items()}, **INT8_NARROW_COLUMNS}


# Where the two token columns under 64-row weight tiles at 65-160 rows take their 1x2 cluster (16-bit operands);
# below it (2 x ceil(N / 64) CTAs, at most 80) the same columns with no cluster. Measured (cold / warm against the
# cluster): ahead at N = 1024-2560 (runs 112-113: 1.03-1.10x at 2048, 1.02-1.09x / 0.99-1.03x at 2304-2560), mixed
# at 2816 (1.01-1.03x / 0.96-1.01x) and 3072 (0.93-1.02x / 0.95-1.01x)
TWO_COLUMNS_MULTICAST_N = 2561
# Where three 64-row token tiles under 224-wide weight tiles, and one 192-row token tile under 80-wide ones, would
# pass it
THREE_TILES_END_N = 224 * (132 // 3) + 1
# Where 42 such weight tiles leave the last one 1-64 of N's columns (its TMA box mostly past B's end): at 161-176 rows
# and N = 9216 the three tiles ran 1.13-1.29x the 192-row tiles' time in some runs (tile_probe.py band161,
# band161more, fitweights; runs 136, 138-139), as the empty token rows had cost at 145-160 (runs 133-135)
SHORT_LAST_WEIGHT_TILE_N = (224 * 41 + 1, 224 * 41 + 65)
ONE_TOKEN_TILE_END_N = 80 * 132 + 1


def _own_n_classes(k_bytes: int, fp8: bool = False) -> dict:
    """The buckets' N classes but NARROW_COLUMNS' (_n_classes puts those in front), in _n_classes's form."""
    k_decode, k_main = _decode_k(k_bytes), main_k(k_bytes)
    coop = {"mainloop": "cooperative", "scheduler": "persistent"}
    # cuBLAS's form at M 97-256 (nvjet 128x72 ... 128x104 _1x2): two token columns, swapped, under one 128-row weight
    # tile that a 1x2 cluster multicasts to both; only the second column has rows past M
    two_columns = {**_SWAP, "mainloop": "cooperative", "cluster": (1, 2, 1)}
    above_mid_n = ((LARGE_N, {"cta": (128, 32, k_decode), **coop}),
                   (WIDE_N, {"cta": (128, 64, k_decode), **coop, "cluster": (1, 1, 1)}))

    def one_column(tokens: int, epilogue_tile=AUTO) -> dict:
        # cuBLAS's form from WIDE_N (nvjet 128x72 ... 128x240 _4x1 coopA): all the tokens in one swapped column under
        # a 128-row weight tile, the token tile multicast over a 4x1 cluster of weight tiles
        return {"cta": (128, tokens, k_main), **_SWAP, "mainloop": "cooperative", "cluster": (4, 1, 1),
                "epilogue_tile": epilogue_tile}

    def tall(tokens: int, epilogue_tile=AUTO, narrow_tokens: int | None = None) -> tuple:
        # cuBLAS's form at N = 12288 (nvjet 192x72 / 192x104 _1x2): two swapped token columns under a 192-row weight
        # tile that a 1x2 cluster multicasts to both. Pingpong, where one warpgroup holds a tile (three 64-row
        # wgmmas); CUTLASS's cooperative kernel cannot split 192 rows over two. narrow_tokens: the columns in steps of
        # 8, as cuBLAS fits them, where validate.n_step_of allows them (16-bit and fp8 operands; the others take
        # tokens), with full-width subtiles: 2 x 72 at 129-144 rows, 2 x 88 at 161-176. Against the 80 / 96 columns,
        # cold / warm: fp8 with fast accumulation 1.05-1.09x (tile_probe.py fp8narrow, run 82); bf16 1.06-1.10x at
        # 136-144 rows (136x9216x4096 367 / 364 vs 339 / 333) and 1.01-1.05x at 168-176 (172x10560x4096 463 / 455 vs
        # 442 / 433; bf16narrow, run 83)
        tile = {"cta": (192, tokens, k_main), **_SWAP, "cluster": (1, 2, 1), "epilogue_tile": epilogue_tile}
        if narrow_tokens is None:
            return (tile,)
        return {**tile, "cta": (192, narrow_tokens, k_main), "epilogue_tile": (64, narrow_tokens)}, tile

    # The band's tiles (TALL_N to ONE_COLUMN_N: 192-row and N / 64-wide) were timed with 16- and 8-bit operands; tf32
    # keeps the tiles it had (of their widths only 64, 96, 128 and 192 are wgmma base N for it, validate.py)
    band = k_bytes != 4

    def fitted(token_rows: int, width: int) -> dict:
        # cuBLAS's form at 225-256 rows from TALL_N (nvjet 144x128 / 168x128 _1x2 at N = 9216 / 11008; 144x64 _1x2 at
        # 120x9216): unswapped, the tokens in two token_rows-row tiles that a 2x1 cluster multicasts each weight tile
        # to, the weight tile as wide as N / 64 in steps of 16, so 64 columns make 128 CTAs. 64-row tiles pingpong.
        mainloop = "pingpong" if token_rows == 64 else "cooperative"
        return {"cta": (token_rows, width, k_main), **_COOP, "mainloop": mainloop, "cluster": (2, 1, 1)}

    def fitted_classes(token_rows: int, *widths: int, step: int = 16, start: int = TALL_N,
                       fallback: dict | None = None) -> tuple:
        # one N class per width (widths step apart), from where N / 64 needs it but not before start; fallback: the
        # tile a spec that cannot hold the fitted one takes there
        return tuple((max(start, 64 * (width - step) + 1),
                      fitted(token_rows, width) if fallback is None else (fitted(token_rows, width), fallback))
                     for width in widths)

    def fitted_band(token_rows: int, *widths: int) -> dict:
        # tall_in_band's arguments for the fitted tiles of widths, the 192-row tile after the last
        return {"before": fitted_classes(token_rows, *widths), "tall_from": 64 * widths[-1] + 1}

    # 161-192 rows to THREE_TILES_END_N: unswapped, the tokens in three 64-row pingpong tiles under 224-wide weight
    # tiles, no cluster: 3 x ceil(N / 224) CTAs, up to 132
    three_token_tiles = {"cta": (64, 224, k_main), **_COOP, "mainloop": "pingpong", "epilogue_tile": AUTO}
    # 177-192 rows, THREE_TILES_END_N to ONE_TOKEN_TILE_END_N: unswapped, all the tokens in one 192-row pingpong tile
    # (three 64-row wgmmas) under 80-wide weight tiles: ceil(N / 80) CTAs, up to 132
    one_token_tile = {"cta": (192, 80, k_main), **_COOP, "mainloop": "pingpong", "epilogue_tile": AUTO}

    def tall_in_band(tall_tiles: tuple, before: tuple = (), tall_from: int = TALL_N,
                     fallback: dict | None = None, tall_within: tuple = ()) -> tuple:
        # The classes before (unswapped tiles that fill the SMs where the 192-row ones leave them idle: two columns of
        # ceil(N / 192), 96 CTAs at N = 9216, 108 at 10240), then the 192-row tile from tall_from. Measured against it:
        # at 97-128 rows two 64-row token tiles 0.99-1.07x to N = 10240, tied or behind from 11008; at 209-224 two
        # 128-row ones 1.09-1.12x at N = 9216 (at 193-208 0.86-1.03x; at 9728-10240 +2-4% cold, -1-4% warm); at 145-192
        # three 64-row ones 1.01-1.13x to N = 9856 (behind at 129-144 rows; at 145-160 not since runs 133-135, which
        # found them 1.2-1.35x slower at some shapes); at 177-192 one 192-row one 1.01-1.07x from 9857 to 10560 (at
        # 168 rows 0.90-0.92x). tile_probe.py fitn, fitlow, fitlowcheck, fitmid, fitmidcheck: runs
        # 73-77. fallback: the tile a spec that cannot hold the 192-row one (fp8's promotion buffer) keeps there, not
        # the classes before. tall_within: (start, stop) ranges of N inside before's where the 192-row tile stands in;
        # a spec that cannot hold it there takes the class it stands in for, or what that class falls back to.
        if not band:
            return ()
        tall_class = tall_tiles if fallback is None else (*tall_tiles, fallback)
        classes = list(before)

        def in_effect(n: int) -> dict | tuple:  # the class of classes that N = n falls in
            return [fields for n_min, fields in classes if n_min <= n][-1]
        for start, stop in tall_within:
            replaced = in_effect(start)
            within = (*tall_tiles, *(replaced if isinstance(replaced, tuple) else (replaced,)))
            resumed = [] if any(n == stop for n, _ in classes) else [(stop, in_effect(stop))]
            classes = sorted([*(c for c in classes if not start <= c[0] < stop), (start, within), *resumed],
                             key=lambda c: c[0])
        return *classes, (tall_from, tall_class)

    def tall_then_one_column(tokens: int, one_tokens: int, epilogue_tile=AUTO, one_epilogue_tile=AUTO,
                             narrow_tokens: int | None = None, **band_classes) -> tuple:
        # Where a spec cannot hold the 192-row tile (fp8's promotion buffer) the narrower classes (or fallback) stand
        # in, and from WIDE_N the one column, as before the tall tiles
        one = one_column(one_tokens, one_epilogue_tile)
        if not band:
            return ((WIDE_N, one),)
        tall_tiles = tall(tokens, epilogue_tile, narrow_tokens)
        return (*tall_in_band(tall_tiles, **band_classes), (WIDE_N, (*tall_tiles, one)), (ONE_COLUMN_N, one))

    def fitted_then_one_column(one_tokens: int, one_epilogue_tile=AUTO) -> tuple:
        # 225-256 rows: the fitted form over the whole band (timed with bf16, tile_probe.py fitn, run 73; fp8 with
        # fast accumulation 1.05-1.21x the 192-row tiles, run 74). From ONE_COLUMN_N the one column, where a spec
        # cannot hold it (fp8's promotion buffer at 256 tokens) 128x128 as before.
        one = one_column(one_tokens, one_epilogue_tile)
        if not band:
            return ((WIDE_N, one),)
        return (*fitted_classes(128, 144, 160, 176, 192), (ONE_COLUMN_N, (one, _coop_128(k_bytes))))

    # 16-bit operands at 129-144 and 161-192 rows take the two columns under a 128-row weight tile from
    # TWO_64_COLUMNS_END_N (where the 64-row weight tiles' two columns pass a wave) instead of LARGE_N; cold / warm
    # (tile_probe.py wave7168, run 86): 2 x 72 at 140x5120x4096 301 / 314 vs 296 / 310 for the one 144-wide column,
    # 144x7040 392 / 382 vs 356 / 379; 2 x 88 at 168x4352x4096 289 / 297 vs 227 / 209 for the two 96-wide token
    # tiles under 64-row weight tiles, 168x6144x8192 456 / 457 vs 254 / 264; 2 x 96 at 184x6144x4096 413 / 402 vs
    # 333 / 332, 192x7040x4096 480 / 469 vs 396 / 378. 8-bit operands too (timed with fp8, int8 follows): fp8 scaled
    # with fast accumulation 1.00-1.03x at 129-144 rows (144x7040 595 / 688 vs 579 / 671), 1.20-1.65x at 161-176
    # (168x4352 437 / 454 vs 353 / 357), 1.10-1.12x at 177-192 (184x6144 624 / 658 vs 567 / 587); without it
    # 1.15-1.57x (168x6144x8192 650 / 654 vs 416 / 416; wave7168fp8, run 87). 145-160 rows from MID_N: 2 x 80, bf16
    # 1.00-1.08x the one 160-wide column (156x7040 409 / 395 vs 380 / 380; 0.97 / 1.00x at 150x4352, hence not from
    # TWO_64_COLUMNS_END_N; run 87), fp8 scaled 1.01-1.06x with fast accumulation and 1.20-1.23x without
    # (160x6144x4096 573 / 629 and 499 / 522 vs 544 / 605 and 406 / 425; tile_probe.py nvjet4352more, run 89).
    two_columns_from = TWO_64_COLUMNS_END_N if k_bytes != 4 else LARGE_N
    two_columns_128 = (LARGE_N, {"cta": (128, 64, k_main), **two_columns})
    two_columns_160 = (MID_N if k_bytes != 4 else LARGE_N,
                       {"cta": (128, 80, k_main), **two_columns, "epilogue_tile": (128, 80)})
    two_columns_192 = (two_columns_from, {"cta": (128, 96, k_main), **two_columns})
    two_columns_224 = (TWO_64_COLUMNS_END_N, {"cta": (128, 112, k_main), **two_columns, "epilogue_tile": (128, 112)})

    def narrowed(two_columns_class: tuple, tokens: int) -> tuple:
        # the class's two columns tokens wide (steps of 8, where validate.n_step_of allows them: cuBLAS's nvjet
        # 128x72 ... 128x104 _1x2), full-width subtiles, then its own. bf16 cold / warm (tile_probe.py narrowcols, run
        # 84): 2 x 56 at 104x8192x4096 315 / 310 vs 303 / 303, 2 x 72 at 136x8192x4096 396 / 395 vs 380 / 384, 2 x 88
        # at 168x8192x4096 472 / 467 vs 462 / 456, 2 x 104 at 200x8192x4096 526 / 517 vs 512 / 507; 1.01-1.03x at
        # 7680 with 8 more rows (the bucket's last)
        n, fields = two_columns_class
        return n, ({**fields, "cta": (128, tokens, k_main), "epilogue_tile": AUTO}, fields)
    # 161-192 rows: three 64-row token tiles, then at 177-192 one 192-row one; 1.06-1.19x with fp8 (runs 77-78). Not
    # at 145-160 rows, whose third token tile holds 17-32 of its 64 rows: there the three tiles ran 1.2-1.35x the
    # 192-row tiles' time at some shapes, warm or cold (146-158x9216x4096 37.9-40.1 vs 29.9-30.4 us warm, 152x9216x8192
    # 69.9 vs 52.0), and 0.96-1.01x it elsewhere, the 192-row tiles 0.91-0.96x cuBLASLt fused throughout
    # (tile_probe.py band145, band145more, band145tall; runs 133-135). fp8 had run 0.96 / 0.99x at 160x8704 (run 77).
    three_tiles = ((TALL_N, three_token_tiles),)
    three_then_tall = {"before": three_tiles, "tall_from": THREE_TILES_END_N}
    # 161-176 rows, 16-bit operands and fp8: the 192-row tile where the three tiles' last weight tile is short
    # (SHORT_LAST_WEIGHT_TILE_N); at the band's other N the three ran 1.01-1.05x it (runs 136, 138). fp8 with fast
    # accumulation the same (tile_probe.py band161fp8, run 142: 161x9216x4096 21.55 / 21.95 / 20.18 us vs 17.70 /
    # 17.95 / 18.27 warm, warm, cold; 168 and 174 rows 1.00-1.11x; 164x9216x4096 0.95-1.01x; over its five shapes at
    # 9216 the 192-row tile 5% less time); without it fp8 holds neither (its promotion buffer would spill) and keeps
    # its tiles. int8 keeps the three: its 192x96 tile took 1% less time over the same shapes, but 1.05-1.09x the
    # three's at 164x9216x4096
    three_then_tall_161 = {**three_then_tall, "tall_within": (SHORT_LAST_WEIGHT_TILE_N,) if k_bytes == 2 or fp8 else ()}
    # where N / 64 weight tiles fill half the SMs or less, buckets 80-224 split their tokens into two columns under
    # 64-row weight tiles (_bucket_tiles); from TWO_64_COLUMNS_END_N on (2 x 68 = 136 CTAs at N = 4352, past a wave)
    # their tiles of before, which had taken over from MID_N: cold / warm at 4352-4544 (tile_probe.py wave4608, run
    # 85) 88x4352x4096 186 / 226 vs 157 / 181 for the two columns, 96x4544 205 / 239 vs 170 / 196, 120x4352 231 / 267
    # vs 200 / 217, 128x4544 253 / 286 vs 216 / 237, 150x4352 269 / 283 vs 234 / 235, 160x4544 296 / 309 vs
    # 256 / 271, 200x4352 314 / 321 vs 251 / 244, 216x4544 336 / 339 vs 300 / 314. 161-192 rows: two_columns_from.
    # Also from TWO_64_COLUMNS_END_N, 16-bit operands (wave7168, run 86): at 113-128 rows to MID_N the band's
    # unswapped form, two 64-row token tiles in a 2x1 cluster under 80-wide weight tiles (110-116 CTAs): 120x4352x4096
    # 244 / 311 vs 233 / 266 for 128x64 cooperative, 128x4544 282 / 344 vs 251 / 296 (at 97-112 rows +4-8% at 112,
    # behind at 96-104); at 225-256 rows 128x128 (2 x 34-36 CTAs) 312 / 318 vs 263 / 252 for the two 128-wide
    # columns under 64-row weight tiles (2 x 68 CTAs) at 232x4352x4096, 356 / 361 vs 348 / 346 at 256x4544. 8-bit
    # operands (fp8 scaled, run 87): 128x128 at 225-256 rows too, 1.02-1.11x with fast accumulation (232x4352 486 /
    # 520 vs 467 / 467) and 1.43-1.50x without (438 / 464 vs 305 / 312); not the 113-128-row form, 1.08x with fast
    # accumulation but 0.97-0.98x without (120x4352 279 / 306 vs 288 / 315), and the classes see operand widths only.
    # At 225-256 rows both widths have taken three token columns there since (runs 88-89, below).
    coop_64 = {"cta": (128, 64, k_main), **_COOP}
    # 113-128 rows from MID_N to LARGE_N, 16-bit: the fitted form with the weight tile ceil(N / 64) wide in steps of
    # 8 (validate.n_step_of allows 8 for 16-bit operands only), as cuBLASLt fused runs it there (nvjet 72x64 ...
    # 88x64 _1x2, grid 2 x 64; h200_library_kernels.log session 35); 128x64 cooperative where a spec cannot hold it
    # (a set 128-row epilogue subtile). bf16 cold / warm against 128x64 cooperative (tile_probe.py fit8, fit8more,
    # runs 101-102): 1.01-1.21x (120x4608x4096 259 / 316 vs 242 / 265, 124x5120 286 / 356 vs 267 / 295, 116x6144
    # 299 / 319 vs 268 / 268, 124x7040 327 / 317 vs 318 / 315); from LARGE_N the two swapped columns stay ahead
    # (128x7168 0.96x, 120x8448 136 wide 0.87-0.90x); at 97-112 rows 0.91-1.06x the plan (fit8 and fit8low, runs
    # 101-103), not taken.
    fitted_by_8_to_large_n = (fitted_classes(64, *range(72, 113, 8), step=8, start=MID_N, fallback=coop_64)
                              if k_bytes == 2 else ())
    # 16-bit operands from TWO_64_COLUMNS_END_N to MID_N: run 86's 113-128-row form (above), and cuBLAS's forms there
    # (nvjet 64x96 _4x1, 128x80 _4x1; h200_library_kernels.log session 32), cold / warm against the tiles of before
    # (tile_probe.py nvjet4352, run 88): at 81-96 rows the 96-wide column with 64 elements of K in a 4x1 cluster,
    # the token tile multicast over four weight tiles (96x4544x4096 215 / 257 vs 210 / 222, 96x4352 210 / 248 vs
    # 205 / 226); at 225-256 rows three token columns of one_column's form, 80 or 88 wide (240x4544 363 / 365 vs
    # 334 / 333 for 128x128, 256x4544 381 / 389 vs 356 / 361, 232x4352 324 / 318 vs 311 / 316). At 200-216 rows three
    # 72-wide columns lost (200x4352 272 / 274 vs 309 / 314).
    # Run 89 (tile_probe.py nvjet4352more): from MID_N, 16-bit, the 81-96-row column 1.02-1.05x cold and 1.12-1.17x
    # warm (96x5120 230 / 285 vs 225 / 243, 88x6144 233 / 253 vs 221 / 231; timed to N = 6144, taken to LARGE_N, where
    # its ceil(N / 64) CTAs still fit one wave), the three columns 1.00-1.06x cold and 1.11-1.15x warm (232x5120 381 /
    # 405 vs 362 / 361, 256x5120 400 / 436 vs 400 / 392; to THREE_COLUMNS_END_N). fp8 scaled below MID_N: the three
    # columns 1.02-1.10x with fast accumulation and 1.07-1.16x without (256x4544 612 / 616 and 563 / 566 vs 556 / 590
    # and 500 / 529), taken by 8-bit operands; the 96-wide column 0.99-1.01x with fast accumulation, 0.98-0.99x
    # without, not taken.
    def from_two_64_columns_end(tile: dict | tuple, before: tuple, until: int, k_widths: tuple = (2,)) -> tuple:
        # tile (or tiles tried in order) from TWO_64_COLUMNS_END_N to until for operands k_widths bytes wide; before:
        # the class (n_min, fields) it replaces there, which takes over again from until
        return ((TWO_64_COLUMNS_END_N, tile), (until, before[1])) if k_bytes in k_widths else (before,)
    column_96 = (TWO_64_COLUMNS_END_N, {"cta": (64, 96, k_decode), "cluster": (1, 1, 1)})
    coop_128 = (MID_N, _coop_128(k_bytes))

    def no_cluster_column(tokens: int, epilogue_tile=AUTO) -> dict:
        return {**one_column(tokens, epilogue_tile), "cluster": (1, 1, 1)}

    def three_columns(columns: tuple, *classes: tuple, eight_bit_until: int = THREE_COLUMNS_END_N) -> tuple:
        # Three swapped token columns under 128-row weight tiles (the first of columns on the operands' steps), from
        # TWO_64_COLUMNS_END_N: 16-bit to THREE_COLUMNS_END_N, 8-bit to eight_bit_until, then the classes they
        # replace, whose tiles also stand in where no column is on the operands' steps (int8's go in 16s). No
        # cluster: the same tile in cuBLAS's 4x1 ran 0.75-0.83x as fast at 225-256 rows (bf16 232x4352x4096 416 / 437
        # vs 312 / 326, 256x5120 506 / 520 vs 405 / 434; fp8 0.93-0.98x; tile_probe.py stages4352 and c1x1more, runs
        # 90-91), though from WIDE_N the one column's 4x1 cluster ties or leads (c1x1wide, run 92). At 193-224 rows
        # (72 wide lost in a 4x1 cluster, run 88), with no cluster, cold / warm (nocluster and nocluster193, runs
        # 93-94): bf16 3 x 72 1.11-1.29x the two 104-wide columns in a 1x2 cluster (200x4352x4096 390 / 404 vs
        # 314 / 314, 208x5600 457 / 485 vs 413 / 412, 196x4608x8192 462 / 469 vs 385 / 384), 3 x 80 1.01-1.25x the
        # two 112-wide ones (224x4352 410 / 417 vs 336 / 337, 212x5600 414 / 410 vs 403 / 404); fp8 scaled 3 x 72
        # 1.15-1.26x with fast accumulation and 1.13-1.22x without (216x4544 629 / 671 and 528 / 552 vs 514 / 532 and
        # 443 / 454), 3 x 80 1.14-1.18x at 216x4544
        # 129-192 rows (threecols and threecolsmore, runs 95-96), bf16 3 x 48 at 129-144 1.04-1.11x the plan's two
        # 72-wide columns in a 1x2 cluster (136x4352x4096 286 / 311 vs 266 / 279, 144x5600 347 / 371 vs 332 / 342),
        # 3 x 56 at 145-160 1.03-1.18x (152x4352 322 / 331 vs 274 / 285, 160x5600 357 / 407 vs 347 / 353), 3 x 64 at
        # 161-192 1.01-1.27x (164x4352 314 / 290 vs 284 / 288, 3 x 56 there 341 / 370; 192x4352 376 / 403 vs
        # 314 / 317); fp8 scaled 1.09-1.22x with fast accumulation and 1.09-1.33x without (152x4544 3 x 56 462 / 487
        # and 389 / 408 vs 413 / 432 and 293 / 306). Not at 113-128 rows: 3 x 48 0.86-0.95x the plan but at 5600.
        # classes: the run of the bucket's classes (n_min, fields) they go in front of, the first from
        # TWO_64_COLUMNS_END_N wherever its own class starts; after them the class in force there.
        if k_bytes not in (1, 2):
            return classes
        until = THREE_COLUMNS_END_N if k_bytes == 2 else eight_bit_until
        (_, first), *rest = classes
        with_columns = [(n, (*columns, *(f if isinstance(f, tuple) else (f,))))
                        for n, f in ((TWO_64_COLUMNS_END_N, first), *(c for c in rest if c[0] < until))]
        in_force = [f for n, f in ((0, first), *rest) if n <= until][-1]
        return (*with_columns, (until, in_force), *(c for c in rest if c[0] > until))

    def two_64_row_columns_from(n_min: int, *widths: int, k: int = k_main) -> tuple:
        # 16-bit: the bucket's own no-cluster tiles (_bucket_tiles) run below n_min, from where two token columns
        # under 64-row weight tiles in a 1x2 cluster take over (the widths in order): at 65-160 rows the same columns
        # (TWO_COLUMNS_MULTICAST_N; at 129-144 the one column's 48-wide subtiles that the class inherits do not fit
        # 72, and shape_tile's CUTLASS pick stands in, as for the bucket's own tile), at 193-224 the two columns the
        # three replaced (THREE_64_COLUMNS_END_N, FOUR_56_COLUMNS_END_N)
        return ((n_min, tuple({"cta": (64, w, k), "cluster": (1, 2, 1)} for w in widths)),) if k_bytes == 2 else ()

    def fp8_two_112_from(n_min: int) -> tuple:
        # fp8 at 193-224 rows: the bucket's no-cluster columns (_bucket_tiles) below n_min, the two 112-wide columns
        # in a 1x2 cluster they replaced from there (104 wide at 193-208 was timed with 16-bit operands only)
        return ((n_min, {"cta": (64, 112, k_decode), "cluster": (1, 2, 1)}),) if fp8 else ()

    def multicast_columns_from(width: int) -> tuple:
        return two_64_row_columns_from(TWO_COLUMNS_MULTICAST_N, width, k=k_decode)
    column_80 = no_cluster_column(80, (128, 80))
    # 145-160 rows' 192-row tile, 16-bit operands: CUTLASS's 64x16 subtile (sm90_epilogue_tile; one stage more than
    # 64x80) 1.04-1.06x at K = 8192 (152x9216x8192 446 / 455 vs 423 / 434 warm / cold), 0.99-1.02x at K = 4096
    # (tile_probe.py tallsub, band161more, fitweights; runs 137-139). 8-bit operands keep the full width: fp8 with
    # fast accumulation ran 1.07-1.11x CUTLASS's subtile at K = 4096 (150x9216 17.31 vs 19.17 us warm), level at
    # 8192 (tallsubfp8, run 141); at 48 and 112 wide the full width led (88x10240 273 vs 262, 216x10240 513 vs 483)
    tall_80_subtile = AUTO if k_bytes == 2 else (64, 80)
    column_64 = no_cluster_column(64)

    def three_columns_161_176(columns: tuple) -> tuple:
        # 161-176 rows; 161-168 (a FILL_BUCKETS bucket) with three 56-wide columns where the operands' steps allow
        # (int8, whose columns go in 16s, keeps 64): against three 64-wide ones, cold / warm, bf16
        # 1.10-1.27x / 1.11-1.31x at N = 4352-5600 (164x4352x4096 16.86 vs 18.62 us cold, 16.05 vs 20.98 warm;
        # tile_probe.py fillmore, run 128), then as the plan (fillwide, run 129) 1.07-1.18x / 1.10-1.40x at
        # N = 4352-5632 and K = 8192 (161x4352 16.00 vs 22.46 us warm); fp8 scaled (fillwidefp8, run 130) 1.04-1.16x /
        # 1.17-1.31x with fast accumulation, 1.02x / 1.02-1.05x without
        return (*three_columns(columns, narrowed(two_columns_192, 88)),
                *tall_then_one_column(96, 176, narrow_tokens=88, **three_then_tall_161, fallback=two_columns_192[1]))
    # 97-112 rows, 16-bit, TWO_64_COLUMNS_END_N to THREE_COLUMNS_END_N: two 56-wide columns with no cluster, 2 x
    # ceil(N / 128) CTAs, 1.02-1.08x the one 112-wide column under 64-row weight tiles (104x4352x4096 224 / 243 vs
    # 212 / 234, 112x5120 260 / 283 vs 247 / 268; three 40-wide columns 0.91-1.08x; runs 95-96)
    column_112 = {"cta": (64, 112, k_decode)}

    def swapped_120(classes: tuple) -> tuple:
        # 225-240 rows, 16-bit from THREE_COLUMNS_END_N and fp8 from MID_N (where their three columns end), to TALL_N
        # (where the fitted tiles start): cuBLAS's form there (nvjet 128x120_64x6 _1x2 at 232x8192x4096,
        # h200_library_kernels.log session 52), two swapped 120-wide token columns under 128-row weight tiles in a
        # 1x2 cluster (2 x ceil(N / 128) CTAs, one wave to TALL_N), in place of 128x128 cooperative, which stands in
        # where a spec cannot hold it (int8's columns go in 16s). Warm / cold, us (tile_probe.py nvjet232, run 155):
        # bf16 232x6144x4096 26.18 / 25.94 vs 27.95 / 27.17, 240x7168 26.56 / 26.22 vs 28.50 / 27.57, 232x8192
        # 27.65 / 27.10 vs 29.78 / 27.97, 240x8192 27.42 / 26.91 vs 29.33 / 27.94 (cuBLASLt fused 26.05-29.78 over
        # them); ping-pong 2-3% and 128-wide columns 3-4% behind it. fp8 scaled (nvjet232fp8, runs 157-158, N
        # 4608-8192; 128x128's time over theirs): with fast accumulation 0.99-1.00x warm, 1.04-1.05x cold
        # (240x8192 17.02 / 17.18 vs 16.90 / 18.10; 240x4608 16.22 / 16.46 vs 16.03 / 17.09), without 0.98-0.99x
        # warm, 1.02-1.04x cold (232x8192 19.20 / 19.34 vs 18.82 / 19.95): taken for the cold case, a layer's
        # weights read from HBM. At 241-256 rows the 128-wide columns ran 2.9% faster warm and level cold for bf16
        # (248x8192), 5% slower warm and level cold for fp8: not taken. tf32 not timed.
        if k_bytes != 2 and not fp8:
            return classes
        replaced = (THREE_COLUMNS_END_N if k_bytes == 2 else MID_N, coop_128[1])
        assert replaced in classes
        swapped = (replaced[0], ({"cta": (128, 120, k_main), **two_columns}, coop_128[1]))
        return tuple(swapped if c == replaced else c for c in classes)
    # 41-48 rows from MID_N: all the tokens in one swapped 48-wide CTA under 64-row weight tiles in a 4x1 cluster, its D
    # in the subtile mid_n_48_epilogue gives.
    mid_n_48 = (MID_N, {"cta": (64, 48, k_decode), "cluster": (4, 1, 1), **mid_n_48_epilogue(k_bytes)})
    pingpong_128 = {"cta": (128, 128, k_main), "cluster": (1, 1, 1), "mainloop": "pingpong", "scheduler": "persistent"}
    # where a spec's promotion buffer turns the pingpong tile away (exact fp8), above EXACT_WIDE_M rows
    exact_wide = {"cta": (128, 192, k_main), **coop, "cluster": (1, 1, 1), "epilogue_tile": (128, 64)}
    token_40 = {"cta": (64, 40, k_decode), "cluster": (4, 1, 1)}
    token_40_c2 = {**token_40, "cluster": (2, 1, 1)}
    return {32: ((WIDE_N, {"cluster": (2, 1, 1)}),),
            40: ((4096, token_40), (MID_N, (token_40, mid_n_48[1])),
                 *((n, (token_40_c2, fields)) for n, fields in above_mid_n)),
            48: (mid_n_48, *above_mid_n),
            DECODE_M: ((MID_N, {"cta": (64, 64, k_decode), "cluster": (4, 1, 1)}), *above_mid_n),
            80: (*multicast_columns_from(40), (TWO_64_COLUMNS_END_N, {"cta": (64, 80, k_decode)}),
                 *tall_in_band(tall(48, (64, 48), narrow_tokens=40)), (WIDE_N, one_column(80, (128, 80)))),
            96: (*multicast_columns_from(48),
                 *from_two_64_columns_end({"cta": (64, 96, k_main), "cluster": (4, 1, 1)}, column_96, LARGE_N),
                 *tall_in_band(tall(48, (64, 48))), (WIDE_N, one_column(96))),
            112: (*multicast_columns_from(56),
                  *from_two_64_columns_end((no_cluster_column(56), column_112), (TWO_64_COLUMNS_END_N, column_112),
                                           THREE_COLUMNS_END_N),
                  narrowed(two_columns_128, 56),
                  *tall_in_band(tall(64, narrow_tokens=56), **fitted_band(64, 144, 160)),
                  (WIDE_N, one_column(112, (128, 112)))),
            128: (*from_two_64_columns_end(fitted(64, 80), (TWO_64_COLUMNS_END_N, coop_64), MID_N),
                  *fitted_by_8_to_large_n, two_columns_128,
                  *tall_in_band(tall(64), **fitted_band(64, 144, 160)), (WIDE_N, one_column(128))),
            144: (*multicast_columns_from(72),
                  *three_columns((no_cluster_column(48),), narrowed((two_columns_from, two_columns_160[1]), 72)),
                  *tall_then_one_column(80, 144, (64, 80), narrow_tokens=72)),
            160: (*multicast_columns_from(80),
                  *three_columns((no_cluster_column(56),),
                                 (TWO_64_COLUMNS_END_N, {"cta": (64, 160, k_main), "cluster": (1, 1, 1)}),
                                 two_columns_160),
                  *tall_then_one_column(80, 160, tall_80_subtile, fallback=two_columns_160[1])),
            168: three_columns_161_176((no_cluster_column(56), column_64)),
            176: three_columns_161_176((column_64,)),
            192: (*three_columns((column_64,), two_columns_192), *tall_then_one_column(
                96, 192, before=(*three_tiles, (THREE_TILES_END_N, one_token_tile)), tall_from=ONE_TOKEN_TILE_END_N,
                fallback=two_columns_192[1])),
            208: (*two_64_row_columns_from(THREE_64_COLUMNS_END_N, 104, 112), *fp8_two_112_from(THREE_64_COLUMNS_END_N),
                  *three_columns((no_cluster_column(72), column_80), narrowed(two_columns_224, 104)),
                  *tall_then_one_column(112, 208, (64, 112), narrow_tokens=104)),
            224: (*two_64_row_columns_from(FOUR_56_COLUMNS_END_N, 112), *fp8_two_112_from(FOUR_56_COLUMNS_END_N),
                  *three_columns((column_80,), two_columns_224),
                  *tall_then_one_column(112, 224, (64, 112), **fitted_band(128, 144), fallback=two_columns_224[1])),
            240: (*swapped_120(three_columns((column_80,), coop_128, eight_bit_until=MID_N)),
                  *fitted_then_one_column(240, (128, 48))),
            256: (*three_columns((no_cluster_column(88),), coop_128, eight_bit_until=MID_N),
                  *fitted_then_one_column(256)),
            EXACT_WIDE_M: ((WIDE_N, pingpong_128),),
            None: ((WIDE_N, (pingpong_128, exact_wide) if fp8 else pingpong_128),)}


@functools.cache  # as _bucket_tiles
def _n_classes(k_bytes: int, fp8: bool = False) -> dict:
    """The largest M of a bucket -> ((n_min, the fields its tile changes, or all of them where the bucket has none;
    or a tuple of such, tried in order), ...), narrowest first: _own_n_classes, with _narrow_columns' classes in
    front."""
    by_bucket = _own_n_classes(k_bytes, fp8)
    for upper, parent in FILL_BUCKETS.items():  # unless the bucket has classes of its own (161-168)
        by_bucket.setdefault(upper, by_bucket[parent])
    # The bucket tiles below the first end (_bucket_tiles), then a class per further width, then from the last end the
    # bucket's own tiles again, tried in order as there (int8 takes no 72-wide column at 129-144 rows, but the 144-wide
    # one), without a subtile (a class may not override one a spec sets), unless the bucket's own first class starts
    # there
    own_tiles = _bucket_tiles(k_bytes, fp8)
    for upper, ((_, first_end), *wider) in _narrow_columns(k_bytes, fp8).items():
        own = tuple({f: v for f, v in tile.items() if f != "epilogue_tile"} for tile in own_tiles[upper][1:])
        starts = [first_end] + [end for _, end in wider]
        assert starts[-1] <= by_bucket[upper][0][0], upper  # the narrow columns end where the bucket's classes start
        columns = [(n, {**own[0], "cluster": (1, 1, 1), "cta": (64, width, own[0]["cta"][2])})
                   for n, (width, _) in zip(starts, wider)]
        if starts[-1] < by_bucket[upper][0][0]:
            columns.append((starts[-1], own))
        by_bucket[upper] = (*columns, *by_bucket[upper])
    return by_bucket


# Each kind of operands the sm90 plan tells apart: (bytes of an element, fp8)
OPERAND_KINDS = ((1, False), (1, True), (2, False), (4, False))


def _thresholds_over_kinds() -> dict:
    """Each bucket's N thresholds over every kind of operands (a kind's classes may start at different N)."""
    by_kind = [_n_classes(k_bytes, fp8) for k_bytes, fp8 in OPERAND_KINDS]
    return {BUCKET_UPPER.index(upper): tuple(sorted({n for classes in by_kind for n, _ in classes.get(upper, ())}))
            for upper in {upper for classes in by_kind for upper in classes}}


_N_THRESHOLDS = _thresholds_over_kinds()


def shape_bucket(M: int) -> int:
    """Index of the per-shape bucket that a problem with M rows falls in."""
    return next(i for i, upper in enumerate(BUCKET_UPPER) if upper is None or M <= upper)


def shape_class(M: int, N: int | None = None, path: str = "sm90") -> tuple[int, int]:
    """(M bucket, n_min): the largest N threshold of the bucket's N classes on path that N reaches, 0 for none
    (N None: unknown, the bucket's own tile)."""
    bucket = shape_bucket(M)
    thresholds = (_N_THRESHOLDS if path == "sm90" else _SM80_N_THRESHOLDS).get(bucket, ())
    return bucket, max((n for n in thresholds if N is not None and N >= n), default=0)


def is_exact_fp8_sm90(spec: GemmSpec) -> bool:
    """Exact fp8 on the sm90 path (a promotion buffer): the specs whose plan has tiles of its own above EXACT_WIDE_M
    rows and, up to OPAQUE_PIPELINE_MAX_K, a K class."""
    return spec.resolved_path == "sm90" and promotes_accumulators(spec)


def plan_shape_class(spec: GemmSpec, M: int, N: int | None = None) -> tuple[int, int]:
    """shape_class for spec's plan: EXACT_WIDE_M parts the rows above 512 for exact fp8 on sm90 alone. Any other spec
    takes the same tiles on both sides, and one bucket keeps a call between two planned M (1024 between 600 and 4096)
    on its N class's tile."""
    bucket, n_min = shape_class(M, N, spec.resolved_path)
    if BUCKET_UPPER[bucket] == EXACT_WIDE_M and not is_exact_fp8_sm90(spec):
        bucket += 1
    return bucket, n_min


# Per-shape tiles of the sm80 path (mma.sync + cp.async: sm80/86/89 GPUs, and Hopper when an arch=80 spec is
# compiled for it). Its "auto" tile is one 128x128 threadblock for every M: at a decode batch that pads each CTA's
# MMAs to 128 rows and makes N / 128 CTAs, too few to keep enough weight bytes in flight. Measured on the H200 only
# (the sm80 path compiled for sm_90a; bench/sm80_tiles.py, bench/results/h200_sm80_tiles.log runs 3-4, cold), bf16
# operands (fp16 has the same mma.sync shape and sizes), bias + gelu_tanh, TFLOP/s of the tile below against the
# 128x128 default (cuBLAS mm); int8 below the list:
# - M <= 32: 32x64 threadblocks, 2 warps: 55 vs 24 (62) at 16x8192^2, 108 vs 47 (123) at M = 32, 112 vs 72 (118)
#   at 32x14336x4096. A 16-row tile was 3% faster at M = 16 and no faster at 32 (run 2).
# - M 33-64: 64x64, 4 warps: 191 vs 93 (223) at 64x8192^2, 139 vs 65 (182) at 64x6144x4096.
# - M 65-128: 64x128, 4 warps: 237 vs 180 at 128x8192^2.
# - M 129-256: the default's 128x128 with 64 bytes of K and the two-CTA stage rule below (5 stages on sm80, 80 KiB;
#   h200_sm80_tiles.log run 6): 376 vs 352 at M = 256, 354 vs 336 at 256x14336x4096, 292 vs 280 at 200x28672x4096.
#   Until run 6 it took 128 bytes of K (128 KiB, one CTA per SM): 402 at M = 256 with N = 8192, whose 128 CTAs fit
#   the H200's 132 SMs, but 337 and 273 where the CTAs outnumber the SMs, as they do on an A100 from N = 6912.
# - M > 512 at N >= SM80_WIDE_N: 128x256, 8 warps, 64 bytes of K: 1.16-1.23x the default at 640x4096^2,
#   2048x8192^2 and 4096^3 (runs 3-4; 1.17x at 512x8192^2, left in the 257-512 bucket). One 8-warp 128x256 CTA
#   per SM covers what two 128x128 ones do, so it fills the SMs as well where the default runs two per SM (sm80;
#   sm86/89 hold one, and keep the default); with fewer rows or columns the default's twice as many CTAs spread over
#   more SMs, so those keep it.
# int8 operands (run 5: the int8 dequant spec, per-row x per-column scales to bf16) take the same tiles with the same
# bytes of K per stage (twice the elements), so the same shared memory and stages: against int8's 128x128x64 default,
# cold / warm, M <= 32 1.93-1.95x, 33-64 1.78-1.83x, 65-128 1.25-1.26x, > 512 at N >= 4096 1.05-1.10x. At 129-256
# rows (run 6, five shapes) 128x128x64 s5 was the fastest int8 tile timed, 1.03-1.14x the default, where the 128
# bytes of K in 4 stages of runs 3-5 ranged 0.91-1.08x. e4m3 / e5m2 (sm89) and tf32 keep the default: not timed.
# The tiles up to 128 rows take 128 bytes of K per stage (the most the path's K-major layout holds); all up to 256
# rows as many stages (3 to 8) as leave room for two CTAs per SM in the spec's arch's shared memory. On the H200 one CTA
# per SM with a deeper pipeline was faster where the CTAs fit its 132 SMs in one wave (8-32%: 59 at M = 16, 218 at
# M = 64, 314 at M = 128) and 14-17% slower where they did not (32x14336x4096); at N = 8192 an A100's 108 SMs take
# the 128 CTAs of a decode batch in one wave only two at a time, hence the rule (not measured on an A100).
SM80_WIDE_N = 4096


@dataclass(frozen=True)
class Sm80BucketTile:
    threadblock: tuple  # (M, N)
    warp: tuple  # (M, N)
    k_bytes: int  # of K per stage
    two_per_sm: bool  # stages: as many as leave room for two CTAs per SM (3-8); else sm80_auto_stages (3-4)
    where_default_pairs: bool = False  # only where the default tile runs two CTAs per SM (the place it takes)


SM80_TILES = {  # (fewest M, most M or None, n_min) -> the tile; each range spans whole buckets of BUCKET_UPPER
    (1, 16, 0): Sm80BucketTile((32, 64), (32, 32), 128, True),
    (17, 32, 0): Sm80BucketTile((32, 64), (32, 32), 128, True),
    (33, 64, 0): Sm80BucketTile((64, 64), (32, 32), 128, True),
    (65, 128, 0): Sm80BucketTile((64, 128), (32, 64), 128, True),
    (129, 256, 0): Sm80BucketTile((128, 128), (64, 64), 64, True),
    (513, None, SM80_WIDE_N): Sm80BucketTile((128, 256), (64, 64), 64, False, where_default_pairs=True),
}
SM80_STAGES = (3, 8)  # the range the per-shape tiles' stage count is kept in
RUNTIME_SMEM_PER_CTA = 1024  # bytes of each resident CTA's shared memory that the CUDA runtime keeps (sm80-sm90)


def _sm80_ranges_of(bucket: int) -> list:
    """The keys of SM80_TILES whose M range holds the bucket."""
    lo = 1 if bucket == 0 else BUCKET_UPPER[bucket - 1] + 1
    hi = BUCKET_UPPER[bucket]
    return [(first, last, n) for first, last, n in SM80_TILES
            if first <= lo and (last is None or (hi is not None and hi <= last))]


_SM80_N_THRESHOLDS = {b: tuple(sorted(n for _, _, n in _sm80_ranges_of(b) if n)) for b in range(len(BUCKET_UPPER))}


def _sm80_timed_operands(spec: GemmSpec) -> bool:
    """Operand types the sm80 per-shape tiles were timed with (h200_sm80_tiles.log): 16-bit floats, int8."""
    return {spec.a.dtype, spec.b.dtype} <= {"fp16", "bf16"} or spec.a.dtype == spec.b.dtype == "int8"


def _sm80_bucket_tile(spec: GemmSpec, bucket: int, n_min: int):
    entry = next((SM80_TILES[key] for key in _sm80_ranges_of(bucket) if key[2] == n_min), None)
    if entry is None or not _sm80_timed_operands(spec):
        return None
    bytes_a, bytes_b = operand_bytes(spec)
    if min(alignment(spec.a) * bytes_a, alignment(spec.b) * bytes_b) < 16:
        # narrower cp.async copies: compiled for sm_80, three of the small-M tiles then used a 240-byte stack frame
        # (ptxas "Local memory used"), which the default tile does not; none of them was timed
        return None
    info = ARCHS[spec.arch]
    if entry.where_default_pairs and 2 * (resolve_sm80(spec, info.smem_per_block).smem_bytes + RUNTIME_SMEM_PER_CTA) > \
            info.smem_per_sm:
        return None
    (tm, tn), (wm, wn) = entry.threadblock, entry.warp
    k = entry.k_bytes // bytes_a
    per_stage = (tm + tn) * entry.k_bytes
    lo, hi = SM80_STAGES
    if entry.two_per_sm:
        stages = max(lo, min(hi, (info.smem_per_sm // 2 - RUNTIME_SMEM_PER_CTA) // per_stage))
    else:
        stages = sm80_auto_stages(info.smem_per_block, per_stage, least=lo)
    return Sm80Tile(threadblock=(tm, tn, k), warp=(wm, wn, k), stages=stages, swizzle=spec.tile.swizzle)


# Exact fp8 on the 128x128 cooperative tiles (the default above 256 rows; the plan's at 241-256 rows from N = 4608 to
# 8448 and from 12673): with Sm90Tile.opaque_pipeline ptxas schedules full_promotion.hpp's k-tile loop otherwise,
# which ran ahead of the shipped loop at every K timed from 256 to 2048, warm and cold, c1x1 and c2x1, at 3072x5632
# and 16384x8192 (+0.4 to +7.5%; tile_probe.py opaquek, runs 235-236), and mixed from there (-3.1 to +2.6% at 3072;
# -1.6 to +1.4% at 4096 and 8192, opaquepipe, runs 229-232). The plan takes it up to this K (through the plan +0.6 to
# +4.7%, opaqueplan, runs 237-238); the other exact-fp8 tiles ran about level with it at K = 1024-2048 (-1.8 to +0.8%
# in time, opaquetokens, runs 239-240) and keep the shipped loop.
OPAQUE_PIPELINE_MAX_K = 2048


def is_unswapped_coop128(cfg: Sm90Config) -> bool:
    """The unswapped 128x128x128 cooperative tile: exact fp8's default, on which its mainloop variants are measured
    and ruled (lower's promotion tiles and both-loops rule, opaque_pipeline_tile)."""
    return tuple(cfg.cta) == (128, 128, 128) and cfg.mainloop == "cooperative" and not cfg.swap_ab


def may_take_opaque_pipeline(spec: GemmSpec, K: int) -> bool:
    """Whether a problem of depth K of spec can take opaque_pipeline at all (exact fp8 on sm90, K at most
    OPAQUE_PIPELINE_MAX_K): a cheap test before the tile's own."""
    return K <= OPAQUE_PIPELINE_MAX_K and is_exact_fp8_sm90(spec)


def opaque_pipeline_tile(spec: GemmSpec, tile, K: int):
    """tile (None: the spec's default) with opaque_pipeline set, as an explicit tile, where a problem of depth K takes
    it (may_take_opaque_pipeline, and the tile 128x128x128 cooperative, unswapped, persistent); else tile
    unchanged."""
    if not may_take_opaque_pipeline(spec, K):
        return tile
    shaped = spec if tile is None else dataclasses.replace(spec, tile=tile)
    cfg = resolve(shaped)
    if not is_unswapped_coop128(cfg) or cfg.scheduler != "persistent" or shaped.tile.opaque_pipeline:
        return tile
    # cta, cluster and mainloop as resolved (the rest stays the tile's own), so that the variant is the same kernel
    # but for its k-tile loop, and is labelled as such
    opaque = dataclasses.replace(shaped.tile, cta=cfg.cta, cluster=cfg.cluster, mainloop=cfg.mainloop,
                                 opaque_pipeline=True)
    try:
        return dataclasses.replace(spec, tile=opaque).tile
    except SpecError:  # not expected: the same tile, validated above, but for the flag
        return tile


# A weight tile is read by few CTAs of one wave and by no later one: where the weights are larger than L2 keeps, they
# load EVICT_FIRST (Sm90Tile.weights_evict_first), so that they replace each other in L2 rather than the activations
# and the dirty lines a previous kernel left (clock_probe.py, runs 5-9: the plain loads paid more for those than
# _scaled_mm's kernel). Where the weights take 40 MiB or less they stay in L2 from one call to the next under
# CUTLASS's loads, and EVICT_FIRST gives that up (but for the 16 MiB a weights-first tile keeps since session 92,
# with which the bound moved to 36 MiB in session 93). On the H200 (~50 MB of L2), with the inputs warm in L2:
# - Unswapped tiles at 97-256 rows: every tile the plans ship there ran +0.3-9.1% faster with it (most +2-6%) where the
#   weights took 48 MiB or more: the 128-row cooperative tiles at 240-256 rows and 128x64 at 128 rows, the 64-row
#   pingpong tiles at 112-128 rows (two share each weight tile) and 64x224 at 184-192 (three), 192x80 pingpong at
#   184-192, in bf16, exact and fast fp8 and int8. With 40 MiB or less it cost up to 15% (the 64-row pingpong tiles
#   at 128x10240x4096 in fast fp8 and int8, 64x80 in bf16 at 128x5120x4096, 64x224 in int8 at 192x9216x4096, int8's
#   128x128 at 256x8192x4096) and gained at most 3.0% (fp8's 128-row tiles at 32-40 MiB). With L2 flushed within 1.3%
#   either way but once -2.7% (exact fp8's 128x64 at 128x5120x14336, +1.1 / +0.3% warm). (bench/tile_probe.py
#   fast256hints, weights256, weights256b, weights128, weights128b, weights128c: runs 268-285.) Unswapped tiles below
#   97 rows were not measured, and at 2048x8192^2 it cost 0.3-0.8% (probe runs 40-41).
# - Swapped tiles (the tokens under the CTA's N: at most 256 rows), which loaded their weights EVICT_FIRST always
#   until session 82 (1-3.5% faster warm at 8192^2-class decode shapes, 0-1.1% cold; probe runs 40-41): the plan's
#   decode tile at 64x6144x4096 (48 MiB) 2-5% faster warm with it, at 64x5120x4096 (40 MiB) 6-13% slower (0.81-0.84x
#   cuBLAS mm against 0.89-0.93x), at 64x4096x4096 (32 MiB) 0-1.6% slower; level cold (bench/warm_weights_policy.py,
#   h200_session82.log; an H100 alike, h100_session81.log); at 72 and 104 rows x 4096^2 0-2.4% slower (probe run 106).
#   Other rows and fp8 (tile_probe.py swapweights, h200_session86.log): at 32-40 MiB within 1% either way warm at
#   16-192 rows and in fast fp8, 1.2% cold; at 64 MiB (64x8192x4096) 2.2% faster warm with it, 0.8% cold. An H100
#   differs (h100_session86.log): at 40 MiB 1.6-3.2% faster warm with it at 48, 96 and 192 rows and fast fp8's
#   64x10240x4096, 7% slower at fast fp8's 64x5120x8192; the plans follow the H200.
# - Since session 92 a weights-first tile keeps its first 16 MiB of weights EVICT_NORMAL (lower.WEIGHTS_KEEP_MIB). So
#   kept, at 40 MiB the plan's tile took 18-28% less time warm than with the plan's own loads (tile_probe.py
#   keepwide, an H100, h100_session92.log: bf16 64x5120x4096 swapped and 128x5120x4096 unswapped, fast fp8
#   64x10240x4096 and 128x10240x4096), 10% at 192x4608x4096 (36 MiB), level at 48x4608x4096 (36 MiB) and at
#   64x4096x4096 (32 MiB, keepweights), all level cold. The H200 (session 93, h200_session93.log, two warm runs):
#   at 40 MiB 1.2-9.7% less time warm (bf16 64x5120x4096 2.4-2.7%, 128x5120x4096 2.2-5.0%; fast fp8 and int8 at
#   64x10240x4096 1.2-2.1%, at 128x10240x4096 6.3-9.7%), cold within +1.0% (bf16 64x5120x4096, int8 64x10240x4096);
#   at 36 MiB level warm (bf16 48x4608x4096 +0.5/+1.4%, 192x4608x4096 and int8 192x9216x4096 within 1.6%) and cold
#   up to +1.3% (48x4608x4096). So the bound is 36 MiB since session 93: weights over it take the flag.
# Left out: exact fp8's hidden-loop tile at K <= OPAQUE_PIPELINE_MAX_K (its weights fit in L2), unswapped tf32 tiles
# (not measured); fp16 as bf16. A problem whose N or K the plan does not know is taken as a large one.
WEIGHTS_FIRST_ROWS = (97, 256)  # the unswapped tiles'; a swapped tile may take it at any M (up to 256 rows)
WEIGHTS_FIRST_MIN_BYTES = 36 * 2**20  # the weights must take more than this
WEIGHTS_FIRST_DTYPES = {"bf16", "fp16", "int8", *FP8}  # the unswapped tiles'


def weights_bytes(spec: GemmSpec, N: int, K: int) -> int:
    """The bytes of an N x K problem's weights (operand B)."""
    return N * K * operand_bytes(spec)[1]


def may_take_weights_first(spec: GemmSpec, M: int) -> bool:
    """Whether an M-row problem of spec can take weights_evict_first at all (sm90, at most WEIGHTS_FIRST_ROWS[1]
    rows): a cheap test before the tile's own (weights_first_tile)."""
    return M <= WEIGHTS_FIRST_ROWS[1] and spec.resolved_path == "sm90"


def weights_first_tile(spec: GemmSpec, tile, M: int, N: int | None = None, K: int | None = None):
    """tile with weights_evict_first set where an M x N x K problem of spec takes it (weights over
    WEIGHTS_FIRST_MIN_BYTES, N or K None: as large; a swapped tile, or an unswapped one at WEIGHTS_FIRST_ROWS with
    operands of WEIGHTS_FIRST_DTYPES but the hidden-loop one); else tile."""
    small = N is not None and K is not None and weights_bytes(spec, N, K) <= WEIGHTS_FIRST_MIN_BYTES
    if (tile is None or small or not may_take_weights_first(spec, M) or tile.weights_evict_first
            or tile.opaque_pipeline):
        return tile
    unswapped_takes_it = M >= WEIGHTS_FIRST_ROWS[0] and {spec.a.dtype, spec.b.dtype} <= WEIGHTS_FIRST_DTYPES
    if not (unswapped_takes_it or resolve(dataclasses.replace(spec, tile=tile)).swap_ab):
        return tile
    return dataclasses.replace(spec, tile=dataclasses.replace(tile, weights_evict_first=True)).tile


# GPU models (substrings of torch's device name) that run another tile in place of one of the plan's, each with the
# fields it changes on that tile (None: the spec's default tile instead), so that a DispatchKernel made there runs it
# (dispatch.DispatchKernel, dispatch.planned_tile). The M > 512, N >= WIDE_N pingpong tile of 16-bit floats was chosen
# on the H200 with "auto"'s strips of 8, where it ran level with the cooperative tiles or ahead in tile_probe.py
# prefillwide's bursts (sessions 12 and 96). On H100s at their 700 W cap that tile ran 0-17% behind the default
# (128x256 c2x1 cooperative) at 2048-4096 rows (sessions 96-97), and from 08248a9 they ran the default there. With
# strips of 4 it ran 1.04-1.19x strips of 8 at 1024-4096 rows but 1536 (4 both) and 0.97-1.00x at 8192 (tile_probe.py
# swizzlesweep), and over the default at 12 shapes of 768-8192 rows: geometric mean 1.025 cold (0.970-1.129 by
# shape), 1.052 warm (0.994-1.128; wideh100; h100_session100.log), 1.029 / 1.053 on another (h100_session101.log;
# at 4096x14336x4096 0.98-0.99x cold, 1.03x warm). fp8 with fast accumulation was not slower on H100s with strips
# of 8, and strips of 4 ran it 0.97-1.03x (fp8swizzlesweep): it keeps the plan's tile. On the H200 strips of 4 gained
# nothing: 0.996 cold, 0.993 warm over "auto" (0.93-1.01 by shape; 16-bit; fp8 fast 0.998 / 1.005; swizzlesweep,
# fp8swizzlesweep, h200_session102.log), so it has no entry. Measured on the H100 80GB HBM3 (SXM) only; "H100" takes
# in PCIe and NVL.
WIDE_PINGPONG_INSTEAD_ON = {"H100": {"swizzle": 4}}


def instead_on(spec: GemmSpec, M: int, N: int | None, tile) -> dict:
    """{GPU-name substring: the tile that model runs in place of tile, the plan's for an M x N problem of spec, or None
    for the spec's default} (WIDE_PINGPONG_INSTEAD_ON); {} for every other tile, and where a spec's own field (its
    swizzle) stands or the changed tile is not valid for it."""
    if not _is_wide_pingpong(spec, M, N, tile):
        return {}
    own = spec.tile if isinstance(spec.tile, Sm90Tile) else Sm90Tile()
    out = {}
    for model, fields in WIDE_PINGPONG_INSTEAD_ON.items():
        if fields is None:
            out[model] = None
            continue
        if any(getattr(own, f) != AUTO for f in fields):  # the spec set it: its own stands
            continue
        try:
            out[model] = dataclasses.replace(spec, tile=dataclasses.replace(tile, **fields)).tile
        except SpecError:
            continue
    return out


def _is_wide_pingpong(spec: GemmSpec, M: int, N: int | None, tile) -> bool:
    """Whether tile is the plan's M > 512, N >= WIDE_N 128x128 pingpong tile of 16-bit floats on sm90."""
    return (tile is not None and spec.resolved_path == "sm90" and N is not None and N >= WIDE_N and M > 512
            and not {spec.a.dtype, spec.b.dtype} - {"bf16", "fp16"} and tile.mainloop == "pingpong"
            and not tile.swap_ab and tuple(tile.cta[:2]) == (128, 128))


# Wave fill: up to WAVE_FILL_MAX_M rows the wide-N pingpong tile's 128x128 tiles may leave the last of their waves over
# the GPU's SMs (132 on H100 SXM and H200) nearly empty; at 768x14336 they make 672 tiles, 5.09 waves. There a call runs
# 128x224 cooperative (WAVE_FILL_TILES) where its tiles fill their last wave better by WAVE_FILL_MARGIN (wave_fill), and
# wherever M leaves the last row of 128-row tiles part-filled (ragged M). On an H100 80GB HBM3: tile_probe.py mid768 and
# wavefill (session 103, h100_session103.log, M a multiple of 128): 128x224 ran 1.10-1.13x the plan's tile at 768x14336
# and 896x12288, 1.01-1.10x at 768x28672 and 1280-1536x14336, never slower where the rule picks it (it leaves 128x224's
# 1.04x at 896x28672); wavefillcheck (session 105, h100_session105.log: 576-1408 rows x N 13824-24576): at the 16 shapes
# of ragged M (576-960 rows) 128x224 ran 1.11-1.53x the plan's 128x128 pingpong, which ran 0.73-0.75x cuBLASLt fused
# there (geometric means); at 1152 and 1408 rows the rule picked no slower tile. 128x112 pingpong, a second fill tile
# fitted to session 103, ran 0.83-0.90x the plan at four of those 24 shapes and is gone. Ragged M above WAVE_FILL_MAX_M
# (session 107, h100_session107.log): raggedwide had 128x128 pingpong at 0.70x cuBLASLt fused at 2000 and 4000 rows x
# 14336 on a bare a (its TMA box past a's end; on a padded a 0.90-0.97x) and 128x224 at 0.94-0.96x, so ragged M takes
# 128x224 at any M > 512; raggedlarge, ten ragged shapes of 1600-12000 rows x N 12288-28672: 1.24x the plan before
# cold, 1.16x warm (geometric means; 0.97-1.44x by shape). On the H100 with auto swizzle the tile runs its default
# strips. Above WAVE_FILL_MAX_M on an H100 (PADDED_WALK_FILL_ON) it runs too at aligned M where the scheduler's strips
# pad the grid with rows of tiles wholly past M (walk_rows_past_m), whose loads are TMA boxes wholly outside a bare
# activation: there (big14k, h100_session111.log) the plan's 128x128 pingpong ran 565 / 581 TFLOP/s cold at
# 8064x14336x8192 / x4096 (0.78x cuBLASLt fused), 128x224 683 / 683; oobrow (h100_session110.log) had pingpong at its
# 8192-row speed there once a's descriptor covered the padded row, the cooperative tiles 0-4% behind it either way.
WAVE_FILL_MAX_M = 1536
WAVE_FILL_MARGIN = 0.025
# GPU models (substrings of torch's device name) where a call runs the fill tile at aligned M above WAVE_FILL_MAX_M
# where the walk pads: measured on the H100 80GB HBM3 ("H100" takes in PCIe and NVL too). On the H200 the fp8 twin's
# fitted loads ran level with CuTe's boxes past M (fittedtwin, h200_session109.log), so those boxes may cost it
# nothing, and there the wide-N pingpong tile ran up to 11% ahead of the cooperative default (prefillwide,
# h200_session96.log): it keeps its tile until big14k has run on one.
PADDED_WALK_FILL_ON = ("H100",)
WAVE_FILL_TILES = ({"cta": (128, 224, 64), "mainloop": "cooperative"},)


# Fitted twin: above 512 rows fp8 with fast accumulation runs its default, 128x128 pingpong with no cluster, whose
# last row of tiles at ragged M loads a TMA box of 128 rows past a bare activation's end. On an H100 80GB HBM3
# (tile_probe.py raggedother, h100_session108.log) the same tile loading a box fitted to the rows that remain
# (Sm90Tile.fitted_tail) ran 1.25-1.38x faster cold at 704x14336, 2000x8192, 2000x14336 and 4000x14336 (x4096; warm
# 1.09-1.34x), 1.05x at 8000x8192x8192, ahead of 128x224 coop at three of those five, and as fast as the tile on an
# activation padded to whole tiles; where M fills its tiles it ran 0.3-3.5% behind (4096x14336x4096, 8192^3). So
# both are compiled and a call runs the twin at ragged M only (wave_fill_choice). On the H200 (tile_probe.py
# fittedtwin, h200_session109.log: eight ragged shapes of 700-12000 rows, N 4096-28672, cold) the tile with CuTe's
# loads lost nothing there, and the plan with the twin ran 0.997-1.030x it (geometric mean 1.005 with the two aligned
# controls, where the plan runs the tile itself: 0.999, 1.007); on an H100 at those shapes (session 110,
# h100_session110.log) 1.156x cold and 1.137x warm (0.99-1.48x by shape).
# Since session 111 the twin loads no activation for a tile wholly past M (csrc/cutlassgen/load_hints.hpp), and a call
# of the plan runs it at aligned M too where the scheduler's walk runs such tiles (walk_rows_past_m: the swept operand
# outgrows L2 and the strips pad the grid). On an H100 (tile_probe.py pastrows, h100_session111.log) at
# 8064x14336x8192 the tile ran 1105 TFLOP/s cold and 1217 warm, the twin 1351 and 1285 (the tile with its loads
# widened into a taller buffer: 1371, 1311); where nothing pads (8192x14336x8192) the twin ran 0.98x the tile cold
# and 1.00x warm.
FITTED_TWIN_MIN_M = 513


def fitted_twin(spec: GemmSpec, M: int, tile) -> list:
    """[tile, the plan's for M rows of spec (None: the spec's default), as resolved with fitted_tail set] where it is
    fp8 fast accumulation's unswapped 128x128 pingpong tile with no cluster, above 512 rows, and its token operand
    takes a fitted box; else []."""
    if spec.resolved_path != "sm90" or M < FITTED_TWIN_MIN_M or not is_fp8(spec):
        return []
    own = spec if tile is None else dataclasses.replace(spec, tile=tile)
    cfg = resolve(own)
    if (not cfg.fp8_fast_accum or cfg.mainloop != "pingpong" or cfg.swap_ab or tuple(cfg.cta[:2]) != (128, 128)
            or tuple(cfg.cluster) != (1, 1, 1) or own.tile.fitted_tail):
        return []
    try:  # the resolved tile, so that its label names the kernel it runs
        return [dataclasses.replace(own, tile=dataclasses.replace(
            own.tile, cta=cfg.cta, cluster=cfg.cluster, mainloop=cfg.mainloop, fitted_tail=True)).tile]
    except SpecError:  # its activation takes no fitted box (validate.tail_box_why)
        return []


def wave_fill_tiles(spec: GemmSpec, M: int, N: int | None, tile) -> list:
    """The tiles a call may run in place of tile, the plan's for an M x N problem of spec (None: the spec's default):
    for the wide-N pingpong tile those of WAVE_FILL_TILES made valid for spec, at ragged M or (up to WAVE_FILL_MAX_M
    rows) where they fill the GPU's waves better; for fp8 fast accumulation's 128x128 pingpong its fitted twin at
    ragged M (fitted_twin; wave_fill_choice). [] for every other tile."""
    if not _is_wide_pingpong(spec, M, N, tile):
        return fitted_twin(spec, M, tile)
    out = []
    for fields in WAVE_FILL_TILES:
        try:
            out.append(dataclasses.replace(spec, tile=dataclasses.replace(tile, stages=AUTO, **fields)).tile)
        except SpecError:
            continue
    return out


def tuned_ragged_tiles(spec: GemmSpec, M: int, N: int, K: int, tile) -> list:
    """The tiles that a tuned tile, timed at M x N x K, runs in place of at ragged M, where M fills its last row of
    tiles (a tuning at ragged M timed them against it): the plan's wave-fill tiles there where tile is the wide-N
    pingpong one with no cluster (any swizzle: with auto and with 4 it lost alike at ragged M,
    h100_session107.log); its fitted twin where it is fp8 fast accumulation's 128x128 pingpong (fitted_twin); []
    elsewhere (an sm80 tile among them)."""
    if not isinstance(tile, Sm90Tile) or M % tile.cta[0]:
        return []
    if not _is_wide_pingpong(spec, M, N, tile):
        return fitted_twin(spec, M, tile)
    if tuple(tile.cluster) != (1, 1, 1):
        return []
    return wave_fill_tiles(spec, M, N, shape_tile(spec, M, N, K))


# csrc/cutlassgen/auto_swizzle.hpp's rule in Python, so that the plan can tell where the persistent scheduler's walk
# runs tiles wholly past M (a CPU test compares the two over a grid of problems).
L2_BYTES = 50 << 20


def _cluster_tiles(extent: int, tile: int, cluster: int) -> int:
    """Tiles of an extent, rounded up to whole clusters (as CUTLASS's grid counts them)."""
    return -(-(-(-extent // tile)) // cluster) * cluster


def _widest_strip(tiles_m: int, tiles_n: int, cluster_m: int, cluster_n: int, max_pct: int) -> int:
    for s in (8, 4, 2):
        strip_m, strip_n = s * cluster_m, s * cluster_n
        padded = -(-tiles_m // strip_m) * strip_m * (-(-tiles_n // strip_n) * strip_n)
        if (padded - tiles_m * tiles_n) * 100 <= tiles_m * tiles_n * max_pct:
            return s
    return 1


def scheduler_strip(m: int, n: int, k: int, cta, cluster, a_bytes: int, b_bytes: int, raster: str = "auto",
                    max_pct: int | None = None) -> int:
    """The strip that auto_swizzle gives the kernel's m x n x k problem (kernel operands: a swapped kernel's m is
    the problem's N) with cta tiles in clusters, max_pct lower.SWIZZLE_PAD where None."""
    from . import lower

    max_pct = lower.SWIZZLE_PAD if max_pct is None else max_pct
    cm, cn = cluster[0], cluster[1]
    tiles_m, tiles_n = _cluster_tiles(m, cta[0], cm), _cluster_tiles(n, cta[1], cn)
    unpadded = _widest_strip(tiles_m, tiles_n, cm, cn, 0)
    if max_pct <= 0 or unpadded == 8:
        return unpadded
    along_m = raster == "along_m" or (raster == "auto" and tiles_n > tiles_m)
    swept = m * k * a_bytes if along_m else n * k * b_bytes
    return _widest_strip(tiles_m, tiles_n, cm, cn, max_pct) if swept > L2_BYTES else unpadded


def walk_rows_past_m(spec: GemmSpec, M: int, N: int, K: int) -> int:
    """How many rows of tiles the persistent scheduler walks wholly past the M tokens of an M x N x K call of an
    unswapped sm90 spec: CUTLASS rounds the grid's tile rows up to a multiple of strip x cluster and runs the padded
    ones too (0 for a swapped tile, whose tokens are the kernel's N, and for the sm80 path)."""
    cfg = resolve(spec)
    if not isinstance(cfg, Sm90Config) or cfg.swap_ab:
        return 0
    a_bytes, b_bytes = operand_bytes(spec)
    most = scheduler_strip(M, N, K, cfg.cta, cfg.cluster, a_bytes, b_bytes, cfg.raster)
    if cfg.swizzle != AUTO:
        most = min(most, cfg.swizzle)
    cm, cn = cfg.cluster[0], cfg.cluster[1]
    rows = -(-M // cfg.cta[0])
    # CUTLASS's get_log_swizzle_size: the strip max_swizzle_size allows on a grid this small (cluster-rounded)
    least_side = min(_cluster_tiles(M, cfg.cta[0], cm), _cluster_tiles(N, cfg.cta[1], cn))
    strip = next(s for s, side in ((8, 6), (4, 3), (2, 2), (1, 0)) if most >= s and least_side >= side)
    return -(-rows // (strip * cm)) * strip * cm - rows


def wave_fill(M: int, N: int, cta, sms: int) -> float:
    """The share of the SMs' waves that an M x N problem's cta tiles fill (1.0: the last wave is full)."""
    tiles = -(-M // cta[0]) * -(-N // cta[1])
    return tiles / (-(-tiles // sms) * sms)


def wave_fill_choice(M: int, N: int, ctas: list, sms: int | None, by_waves: bool = True, rows_past=None,
                     walk_fill: bool = False) -> int:
    """Which of ctas (the plan's tile's, then those of wave_fill_tiles) an M x N call runs on a GPU of sms SMs: 0 (the
    plan's) unless M > 512 is ragged in the plan's tile rows and the first other is a fitted twin (the same CTA
    tile) or N >= WIDE_N (then 1); or by_waves and rows_past() (walk_rows_past_m: called only then) says the
    scheduler's walk runs tiles wholly past M, where the first other is a fitted twin, or N >= WIDE_N, M >
    WAVE_FILL_MAX_M and walk_fill (the GPU is one of PADDED_WALK_FILL_ON) (then 1); or by_waves, N >= WIDE_N, 512 < M
    <= WAVE_FILL_MAX_M and another fills its waves by WAVE_FILL_MARGIN better (the first such); sms None (no GPU
    seen): 0. (A tuned entry, unlike the plan's wide-N one, takes narrower N too: where the rule was not measured.)"""
    if sms is None or M <= 512 or len(ctas) < 2:
        return 0
    twin = tuple(ctas[1]) == tuple(ctas[0])
    if M % ctas[0][0]:
        return 1 if N >= WIDE_N or twin else 0
    if twin:
        return 1 if by_waves and rows_past is not None and rows_past() else 0
    if not by_waves or N < WIDE_N:
        return 0
    if M > WAVE_FILL_MAX_M:  # the fill tile where the walk's padded rows would cost the plan's their boxes past M
        return 1 if walk_fill and rows_past is not None and rows_past() else 0
    plan = wave_fill(M, N, ctas[0], sms)
    return next((i for i, cta in enumerate(ctas[1:], 1) if wave_fill(M, N, cta, sms) >= plan + WAVE_FILL_MARGIN), 0)


def shape_tile(spec: GemmSpec, M: int, N: int | None = None, K: int | None = None):
    """The tile the per-shape heuristic picks for an M x N (x K) problem of an all-"auto" spec (N None: the M bucket's
    own tile, that of N below every N class; K None: as at a large K), or None for the spec's own default (sm90:
    M > 256 but for M > 512 at N >= WIDE_N (exact fp8: M > EXACT_WIDE_M), and for exact fp8 at K <=
    OPAQUE_PIPELINE_MAX_K; sm80 path: M 257-512, M > 512 at N < SM80_WIDE_N, operands other than 16-bit floats or
    int8, A or B aligned to less than 16 bytes; either: a tile these rules cannot make valid)."""
    tile = _shape_tile_mn(spec, M, N)
    return weights_first_tile(spec, tile if K is None else opaque_pipeline_tile(spec, tile, K), M, N, K)


def _shape_tile_mn(spec: GemmSpec, M: int, N: int | None):
    bucket, n_min = shape_class(M, N, spec.resolved_path)
    if spec.resolved_path != "sm90":
        tile = _sm80_bucket_tile(spec, bucket, n_min)
        if tile is None:
            return None
        try:
            return dataclasses.replace(spec, tile=tile).tile
        except SpecError:
            return None
    k_bytes, fp8 = max(operand_bytes(spec)), is_fp8(spec)
    upper = BUCKET_UPPER[bucket]
    own = _bucket_tiles(k_bytes, fp8)[upper]
    own = own if isinstance(own, tuple) else (own,)
    classes = dict(_n_classes(k_bytes, fp8).get(upper, ()))
    # N's class first, then the narrower classes and the bucket's own tiles, for where a class's tile cannot be made
    # valid for this spec (tf32 takes no 48-wide token tile; fp8's promotion buffer no 128x256 one). A class sets
    # fields of the bucket's last own tile.
    tiers = [{**(own[-1] or {}), **fields} for n in sorted(classes, reverse=True) if n <= n_min
             for fields in (classes[n] if isinstance(classes[n], tuple) else (classes[n],))] + list(own)
    if tiers[0] is None:
        return None
    base = spec.tile if isinstance(spec.tile, Sm90Tile) else Sm90Tile()
    # Keeps fp8_fast_accum, raster, swizzle, pdl and the epilogue schedule. Validation runs on the new spec and turns
    # away what the rules cannot make valid, e.g. 128-row pingpong for fp8 with a promotion buffer (256 accumulators
    # a thread, over validate.MAX_ACCUMULATORS_PER_THREAD), or a set cooperative (128-row) epilogue subtile on a
    # pingpong token tile, where from 65 to 256 rows _coop_128 stands in.
    # A bucket's explicit epilogue subtile may not fit beside a spec's C, aux stores and vectors: then CUTLASS's pick.
    choices = [c for fields in tiers if fields is not None
               for c in [fields] + ([{**fields, "epilogue_tile": AUTO}] if "epilogue_tile" in fields else [])]
    if upper is not None and DECODE_M < upper <= 256:
        choices.append(_coop_128(k_bytes))
    for choice in choices:
        try:
            return dataclasses.replace(spec, tile=dataclasses.replace(base, stages=AUTO, split_k=1, **choice)).tile
        except SpecError:
            continue
    return None
