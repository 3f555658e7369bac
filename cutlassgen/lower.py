"""Lower a validated spec into the fully resolved context the templates render. No I/O, no defaults decided later.

The epilogue chain becomes an expression tree (the Epilogue Visitor Tree): leaves fetch the accumulator, C,
scalars and broadcast vectors; inner nodes compute or store. Each runtime input gets a slot in the pointer and
scalar arrays that the runtime fills in the same order.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from . import __version__
from . import epilogue as epi
from .arch import WGMMA_BASE_N
from .dtypes import DTYPES
from .spec import RASTERS, GemmSpec
from .tiles import (Sm80Config, alignment, is_fp8, is_unswapped_coop128, kernel_vector_kind, promotes_accumulators,
                    resolve, sm80_epilogue_access)
from .validate import check_target, tail_box_why

ACT_FUNCTOR = {"identity": "Identity", "relu": "Relu", "gelu": "Gelu", "gelu_tanh": "GeluTanh", "silu": "Silu",
               "sigmoid": "Sigmoid", "tanh": "Tanh", "hardswish": "HardSwish", "leaky_relu": "LeakyRelu",
               "clamp": "Clamp"}


# sm90: which vector broadcasts the epilogue's load warp bulk-copies into shared memory during the mainloop
# (csrc/cutlassgen/bulk_broadcast.hpp) instead of CUTLASS's nodes reading them from global memory after it: "swap_ab"
# (only in swap_ab kernels), "always" or "never". Column broadcasts (the bias under swap_ab, per-row scales): on the
# H200 the swapped decode tiles ran 0.5-1.5% faster with it, the per-row scales of unswapped fp8 tiles 1-2% slower
# (probe run 27), hence "swap_ab". Row broadcasts (the bias of unswapped kernels): 0.5-3% slower (probe runs 28, 33),
# so "never".
# Module settings, not spec fields, so that bench/tile_probe.py can build the variants side by side.
BULK_COL_BROADCAST = "swap_ab"
BULK_ROW_BROADCAST = "never"


# sm90 stream-K and split-K kernels: how the CTAs that share an output tile reduce their partial accumulators in the
# workspace. CUTLASS's default, "Deterministic", makes each split wait for the one before it (a turnstile, the same
# sums in the same order every call); "Nondeterministic" lets every split add as soon as the first has stored (fp32
# sums whose order, and so last bits, may differ between calls). A module setting, so that bench/tile_probe.py can
# build the two side by side.
STREAM_K_REDUCTION = "Deterministic"


def _bulk(setting: str, swap_ab: bool) -> bool:
    return {"always": True, "never": False, "swap_ab": swap_ab}[setting]


# sm90: the L2 eviction policy of the mainloop's TMA loads (CuTe's cute::TMA::CacheHintSm90), per operand of the
# problem (A: the activations, B: the weights) and kind of kernel; anything but EVICT_NORMAL everywhere builds the
# mainloop through csrc/cutlassgen/load_hints.hpp. No policy helped every tile at every size: a tile loads its weights
# EVICT_FIRST only where Sm90Tile.weights_evict_first says so, which the per-shape plan sets by the weights' size
# (tiles.WEIGHTS_FIRST_MIN_BYTES; the swapped decode tiles had loaded them so always until session 82).
# A module setting, like the two above, so that the probes can build the variants side by side.
LOAD_HINTS = {"a": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"},
              "b": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"}}


# sm90: of the weights of a tile that loads them EVICT_FIRST (Sm90Tile.weights_evict_first), the first this many MiB
# load EVICT_NORMAL (csrc/cutlassgen/load_hints.hpp, KeepMiB): the same part of the weights every call, which L2 keeps
# from one call to the next while the rest streams past it (0: all of them EVICT_FIRST). bench/tile_probe.py
# keepweights, the plan's weights-first tiles at 48-128 MiB of bf16 weights: on an H100 (session 92,
# h100_session92.log) 16 MiB kept ran 1.00-1.29x cuBLAS mm warm where nothing kept ran 0.99-1.01x; on the H200
# (session 93, h200_session93.log) 5-15% less time warm at 16-64 rows, 2.4-2.9% at 256x8192^2; after an L2 flush
# within 0.25 us of nothing kept on both. 24 and 32 MiB: faster still at the H200's decode shapes over 40 MiB but
# slower at 40 MiB and 256 rows, and not stable from run to run on the H100. Only warm calls on the same weights
# gain: a decode step over many layers' weights sees the cold case.
WEIGHTS_KEEP_MIB = 16


# A LOAD_HINTS name as the template writes it: CuTe's three policies, evict_normal as a policy operand, or no policy
# operand at all (the load instruction without .L2::cache_hint, as cuBLAS's kernels load). Measured and not used
# (bench/tma_cache_hint.py): evict_normal on both operands 0.68x CuTe's EVICT_NORMAL at 256x8192^2, 0.86-0.87x at
# 16x8192^2, 0.99x at 2048x8192^2 (probe run 43); no operand -0.7% to +1.2% of CuTe's on the unswapped tiles, and
# for the decode tiles' activations +0.0-0.6% over the shipped kernels (probe runs 45-46).
L2_POLICY = {name: "cute::TMA::CacheHintSm90::" + name for name in ("EVICT_NORMAL", "EVICT_FIRST", "EVICT_LAST")}
L2_POLICY["L2_EVICT_NORMAL"] = "cutlassgen::kL2EvictNormal"
L2_POLICY["NO_POLICY"] = "cutlassgen::kNoL2Policy"


# sm90: whether the last token tile, where the tokens end inside it, loads its rows in one TMA box fitted to them
# (load_hints.hpp, TailOperand). "never": every tile loads as CuTe does, one box of the tile's rows, which lies partly
# past a bare activation tensor's end there: up to 1.4x the whole call's time on the H200 (bench/NOTES.md runs
# 131-132, 143 and 145; swap 64x64x128 at 136x2048x4096 17.95 us, 12.96 fitted, 12.8 for cuBLASLt fused, probe run
# 148). "swap_ab": the swapped tiles only, whose token operand is the kernel's B. "swap_ab+m64" (the default): those
# and the unswapped tiles of 64 token rows, where the token operand is the kernel's A (64x224 at 161x9216x4096
# 34.8 us -> 30.0, probe run 149). "all": every unswapped tile; on 128 token rows it ran 0.5-2% behind CuTe's loads
# (128x256 c2x1 fp8 at 8192^3 and 8000x8192^2, 128x176 c2x1 at 240x10432x4096; probe runs 149-150, 152), whether M
# fills the last tile or not. Where M fills its last tile nothing is encoded and the consumers' mainloop is unchanged
# (bench/tail_loads_sass.py). A module setting, so that the probes can build the variants side by side
# (bench/tile_probe.py fittedtail, alltail, bench/per_shape_check.py --tail-loads). A tile with Sm90Tile.fitted_tail
# takes the fitted box under any of them (the per-shape plan's ragged-M twin, tiles.fitted_twin).
TAIL_LOAD_MODES = ("never", "swap_ab", "swap_ab+m64", "all")
TAIL_LOADS = "swap_ab+m64"

# sm90 fp8 with exact accumulation: whether the mainloop replaces CUTLASS's FP8 one, which waits for every MMA before
# each k tile's add of the partial sums to the fp32 accumulators and only then probes the next stage and releases the
# last, and with which schedule (PROMOTION_SCHEDULE):
# - "full" (csrc/cutlassgen/full_promotion.hpp): CUTLASS's full-width MMAs and adds in cuBLASLt's order, the next
#   stage probed while the MMAs run and each stage released before its adds. On the H200 7-11% faster than CUTLASS's
#   and 1-4% faster than "halves" (tile_probe.py fullpromo, probe run 168, session 57); since session 61 its wgmma
#   descriptors are carried from k tile to k tile, off the path from the adds to the next MMAs (level to 2.6% faster
#   at 12 of 13 probed shapes warm and 11 cold, 0.3-0.5% slower at the others: tile_probe.py fulldesc, probe runs
#   195-196).
# - "halves" (csrc/cutlassgen/overlapped_promotion.hpp): the k tile's MMAs in two halves of the tile's N, each half
#   added while the other's MMAs run; 4-9% faster than CUTLASS's (tile_probe.py overlappromo, session 55), its
#   half-width MMAs reading A twice. Kept for the probes.
# Both give the same sums in the same order as CUTLASS's mainloop, bit for bit the same output
# (bench/promotion_check.py). Which exact-fp8 tiles take it (PROMOTION_TILES): "all" (the default), every tile of
# CTA K 128 (a k tile is then CUTLASS's promotion interval), of either kernel schedule, swapped or not; "full" keeps
# CUTLASS's registers (no spill on the plan's tiles) and ran 1.04-1.15x CUTLASS's mainloop warm and 1.035-1.125x cold
# on 13 of the plan's tiles at 16-256 rows (tile_probe.py fullwide, probe runs 169-170, session 58). "coop128": the
# unswapped 128x128x128 cooperative tile only, the rule until then (with the halves ptxas spilled 1.5-4 KB on the 144-
# to 192-wide cooperative tiles and 0-340 bytes on narrower swapped and ping-pong ones). The halves also need CTA N in
# steps of 16. Module settings, so that the probes can build the variants side by side.
OVERLAPPED_PROMOTION = True
PROMOTION_TILE_MODES = ("coop128", "all")
PROMOTION_TILES = "all"
# Each schedule's mainloop: its header (csrc/cutlassgen/) and collective, which the template renders.
PROMOTION_MAINLOOPS = {"full": ("full_promotion.hpp", "MainloopFullPromotion"),
                       "halves": ("overlapped_promotion.hpp", "MainloopOverlappedPromotion")}
PROMOTION_SCHEDULES = tuple(PROMOTION_MAINLOOPS)
PROMOTION_SCHEDULE = "full"
# A study setting: whether "full" passes its pipeline object through a shuffle ptxas cannot see through
# (full_promotion.hpp, opaque_per_thread), so that the stage barriers' base stays in a register through the k-tile
# loop whatever the code around it. Bit for bit the shipped output; on the 128x128 tile +0.8-3.6% where tiles of
# 8 k tiles follow each other (K = 1024, 8-62 waves) but -0.2 to -1.6% at 8192^3, 2048x8192^2 and 3072x5632x4096,
# and -0.3 to +1.0% on the plan's tiles at 32-256 rows (tile_probe.py opaquepipe, probe runs 229-232, session 66).
# Off: the anchors' shapes lose, and a kernel's mainloop is one for every shape it runs. An int N instead builds
# both loops and takes the hidden one where a tile has at most N k tiles (K <= 128 N), chosen per call; compiled so,
# ptxas schedules both copies in a third form, which lost the hidden loop's gain at K = 1024 (tile_probe.py opaquebyk,
# runs 233-234). What ships instead is a tile field, Sm90Tile.opaque_pipeline (which renders as True does here), that
# the per-shape plan sets where K <= 2048 (tiles.OPAQUE_PIPELINE_MAX_K, runs 235-236), and BOTH_LOOPS_TILE's rule
# below. None (the default) applies that rule; False builds the plain loop alone on every tile.
OPAQUE_PIPELINE = None

# Exact fp8's unswapped 128x128x128 c1x1 cooperative persistent tile (the default above 256 rows) is built with both
# k-tile loops, the hidden one taken where a tile has at most BOTH_LOOPS_UP_TO_K_TILES k tiles: beside it ptxas
# schedules the plain loop in a third form, which ran ahead of the plain loop built alone at K >= 4096 in 23 of 24
# comparisons over two calls (runs 233-234, 243-244) and then in all 48 against a second module of each kernel
# (tile_probe.py opaqueclone, runs 245-246: +0.1 to +1.0% worst copy against best, warm and cold); over four modules
# each, +0.6 to +2.4% median against median and ahead in 91 of 96 pairs (clonespread, runs 247-248). On the c2x1 tile
# the same form ran behind (-2.4 to +0.1%), so it stays c1x1's. It is ptxas's schedule (CUDA 13.0), not a mechanism:
# a new nvcc may undo it. At K <= 2048 the per-shape plan takes the hidden loop alone (Sm90Tile.opaque_pipeline).
BOTH_LOOPS_TILE = ((1, 1, 1), "persistent")  # the cluster and scheduler of that tile (tiles.is_unswapped_coop128)
BOTH_LOOPS_UP_TO_K_TILES = 8

# sm90, a study setting: how many shared-memory buffers the epilogue stores D from (its TMA store pipeline), or None
# for CUTLASS's min(subtiles, 2). With as many buffers as subtiles plus one, a tile's last store need not have read its
# buffer before the consumer warps go on to the next tile; on exact fp8's 128x128 tile that ran within 0.6% of
# CUTLASS's count (bench/tile_probe.py storestages, probe runs 191-192); with one buffer, as cuBLASLt's exact kernel
# has, 0.7-6.9% slower (onestore, probe runs 204-205). tiles.sm90_epilogue_smem models CUTLASS's count, so under the
# setting validation's shared-memory figure leaves the extra buffers out (CUTLASS's stage carve-out still counts
# them).
EPI_STORE_STAGES = None

# sm90, a study setting: which kernels store D without shared memory, each thread evaluating the epilogue on its own
# accumulators and writing the results itself (csrc/cutlassgen/direct_store.hpp): "never", "swap_ab" or "always".
# Built to find where a decode tile's fixed cost goes against cuBLAS mm's kernel of the same tile (session 88,
# bench/tile_probe.py directstore). Epilogues of vectors, constants and elementwise functors only: a C source, a
# runtime scalar, an aux store or an amax refuse it.
DIRECT_STORE_MODES = ("never", "swap_ab", "always")
DIRECT_STORE = "never"
_DIRECT_NODE_KINDS = {"acc", "scalar", "col_bcast", "row_bcast", "compute"}

# sm90: the most tiles, in percent of the tile grid, that the persistent scheduler's strips ("auto" swizzle, and the
# cap on an explicit one) may add by padding it, where the operand the walk sweeps whole is larger than L2
# (csrc/cutlassgen/auto_swizzle.hpp). 0 pads nothing, which leaves strips of 1 wherever either axis has an odd tile
# count (63 row tiles at M = 8000 with 128-row tiles). Set from bench/tile_probe.py swizzlepad (an H100, session 108):
# there a padding of 1.6% (8000x8192x8192) gained 1.32-1.46x and one of 4.9% (128x224 at 12000x16384) 1.05-1.07x, but
# where the swept operand fit in L2 no padding gained more than 0.3% and most lost (up to 2.6x slower).
SWIZZLE_PAD = 5

# The module settings above, which the probes and tests set to build variants side by side.
SETTINGS = ("BULK_COL_BROADCAST", "BULK_ROW_BROADCAST", "STREAM_K_REDUCTION", "LOAD_HINTS",
            "TAIL_LOADS", "OVERLAPPED_PROMOTION", "PROMOTION_SCHEDULE", "PROMOTION_TILES", "EPI_STORE_STAGES",
            "OPAQUE_PIPELINE", "DIRECT_STORE", "WEIGHTS_KEEP_MIB", "SWIZZLE_PAD")


@contextlib.contextmanager
def settings(**values):
    """The module settings named (e.g. TAIL_LOADS="never") set for the block and restored after it. A setting changes
    the rendered source, and so the cache key, but not the spec: build()'s per-spec memo does not tell the variants
    apart (bench/tile_probe.py build_variants compiles by cache key)."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:  # a misspelt name must not pass as a setting that changed nothing
        raise ValueError(f"cutlassgen.lower.settings: no setting {', '.join(unknown)}; settings: {', '.join(SETTINGS)}")
    module = globals()
    saved = {name: module[name] for name in values}
    try:
        module.update(values)
        yield
    finally:
        module.update(saved)


def _tail_operand(spec: GemmSpec, cfg, swap_ab: bool) -> int | None:
    """The kernel operand (0: A, 1: B) that holds the tokens, where the tile's fitted_tail or TAIL_LOADS asks for a
    fitted last box and the operand takes one (validate.tail_box_why)."""
    if TAIL_LOADS not in TAIL_LOAD_MODES:  # a typo must not pass for "all"
        raise ValueError(f"cutlassgen.lower.TAIL_LOADS = {TAIL_LOADS!r}: one of {', '.join(TAIL_LOAD_MODES)}")
    unswapped_ok = TAIL_LOADS == "all" or (TAIL_LOADS == "swap_ab+m64" and cfg.cta[0] == 64)
    asked = spec.tile.fitted_tail or (TAIL_LOADS != "never" and (swap_ab or unswapped_ok))
    if not asked or tail_box_why(spec, cfg):
        return None
    return 1 if swap_ab else 0


def _overlapped_promotion(spec: GemmSpec, cfg) -> str | bool:
    """The promotion schedule replacing CUTLASS's FP8 mainloop in this sm90 kernel, or False (see
    OVERLAPPED_PROMOTION)."""
    if PROMOTION_SCHEDULE not in PROMOTION_SCHEDULES:  # a typo must not pass for the default
        raise ValueError(f"cutlassgen.lower.PROMOTION_SCHEDULE = {PROMOTION_SCHEDULE!r}: one of "
                         + ", ".join(PROMOTION_SCHEDULES))
    if PROMOTION_TILES not in PROMOTION_TILE_MODES:
        raise ValueError(f"cutlassgen.lower.PROMOTION_TILES = {PROMOTION_TILES!r}: one of "
                         + ", ".join(PROMOTION_TILE_MODES))
    coop128 = is_unswapped_coop128(cfg)
    # both mainloops promote once per k tile, which must then be CUTLASS's interval (4 wgmma k-blocks, CTA K 128);
    # the halves split the tile's N into two wgmma N
    fits = cfg.cta[2] == 128 and (PROMOTION_SCHEDULE != "halves" or cfg.cta[1] % 16 == 0)
    takes = (OVERLAPPED_PROMOTION and promotes_accumulators(spec) and fits
             and (PROMOTION_TILES == "all" or coop128))
    return PROMOTION_SCHEDULE if takes else False


def _opaque_pipeline(cfg) -> str | None:
    """full_promotion.hpp's kOpaqueUpToKTiles for OPAQUE_PIPELINE and the tile cfg, or None (the template's default,
    rendered as nothing)."""
    value = OPAQUE_PIPELINE
    if value is None:
        takes = is_unswapped_coop128(cfg) and (tuple(cfg.cluster), cfg.scheduler) == BOTH_LOOPS_TILE
        return str(BOTH_LOOPS_UP_TO_K_TILES) if takes else None
    if value is False:
        return None
    if value is True:
        return "cutlassgen::kAlwaysOpaque"
    if isinstance(value, int) and 0 < value < 2**31 - 1:
        return str(value)
    raise ValueError(f"cutlassgen.lower.OPAQUE_PIPELINE = {value!r}: None (BOTH_LOOPS_TILE's rule), False, True or a "
                     "k-tile count from 1")


def _direct_store(lo: "Lowered", swap_ab: bool) -> dict | None:
    """The template's direct_store context (the vectors the epilogue reads) where DIRECT_STORE takes this kernel,
    else None."""
    if DIRECT_STORE not in DIRECT_STORE_MODES:  # a typo must not pass for "never"
        raise ValueError(f"cutlassgen.lower.DIRECT_STORE = {DIRECT_STORE!r}: one of {', '.join(DIRECT_STORE_MODES)}")
    if DIRECT_STORE == "never" or (DIRECT_STORE == "swap_ab" and not swap_ab):
        return None
    for n in lo.nodes:
        if n["kind"] not in _DIRECT_NODE_KINDS or (n["kind"] == "scalar" and n["slot"] is not None) \
                or n.get("fn") == "cutlass::homogeneous_multiply_add":
            what = "a runtime scalar" if n["kind"] == "scalar" else n.get("fn", n["kind"])
            raise ValueError(f"cutlassgen.lower.DIRECT_STORE = {DIRECT_STORE!r}: the direct-store epilogue takes "
                             f"vectors, constants and elementwise functors, not {what}")
    return {"members": [{"element": n["element"], "ptr": n["slot"].ptr} for n in lo.nodes
                        if n["kind"] in ("col_bcast", "row_bcast")]}


def _load_hints(swap_ab: bool, weights_evict_first: bool = False) -> tuple | None:
    """(kernel A's policy, kernel B's) or None for CUTLASS's own loads; under swap_ab the kernel's A is the problem's
    B. weights_evict_first (Sm90Tile's): the weights EVICT_FIRST whatever LOAD_HINTS says."""
    kind = "swap_ab" if swap_ab else "plain"
    a, b = LOAD_HINTS["a"][kind], LOAD_HINTS["b"][kind]
    if weights_evict_first:
        b = "EVICT_FIRST"
    hints = (b, a) if swap_ab else (a, b)
    return None if hints == ("EVICT_NORMAL", "EVICT_NORMAL") else hints


def _keep_mib(weights_evict_first: bool) -> int:
    """WEIGHTS_KEEP_MIB for a tile whose weights load EVICT_FIRST (Sm90Tile.weights_evict_first), else 0, which
    renders nothing: the other kernels' sources, LOAD_HINTS' variants among them, stay as they were."""
    if isinstance(WEIGHTS_KEEP_MIB, bool) or not isinstance(WEIGHTS_KEEP_MIB, int) or WEIGHTS_KEEP_MIB < 0:
        raise ValueError(f"cutlassgen.lower.WEIGHTS_KEEP_MIB = {WEIGHTS_KEEP_MIB!r}: a whole number of MiB, 0 or more")
    return WEIGHTS_KEEP_MIB if weights_evict_first else 0


@dataclass
class Slot:
    """One runtime input or extra output of the kernel, as the runtime must pass it."""
    name: str
    kind: str  # scalar | per_row | per_col | tensor (aux output) | amax
    dtype: str
    ptr: int  # index into ptrs
    scalar: int = -1  # index into scalars (scalar inputs only)
    is_output: bool = False


@dataclass
class Lowered:
    nodes: list = field(default_factory=list)  # every EVT node, children before parents
    params: list = field(default_factory=list)  # constant structs for parametric functors
    slots: list = field(default_factory=list)
    n_ptrs: int = 0
    n_scalars: int = 0
    root: dict | None = None  # the node whose value becomes D

    def node(self, kind, children=(), **attrs):
        n = {"id": f"Epi{len(self.nodes)}", "kind": kind, "children": list(children), **attrs}
        self.nodes.append(n)
        return n

    def slot(self, name, kind, dtype, scalar=False, is_output=False):
        s = Slot(name, kind, dtype, self.n_ptrs, self.n_scalars if scalar else -1, is_output)
        self.n_ptrs += 1
        self.n_scalars += 1 if scalar else 0
        self.slots.append(s)
        return s


def _float_literal(v: float) -> str:
    # a constant expression: the Params structs hold static constexpr floats, and cutlass::platform's infinity()
    # (a bit_cast) is not one ("expression must have a constant value", a one-sided clamp, session 76)
    if v == float("inf"):
        return "cuda::std::numeric_limits<float>::infinity()"
    if v == float("-inf"):
        return "-cuda::std::numeric_limits<float>::infinity()"
    return repr(float(v)) + "f"


def lower_epilogue(spec: GemmSpec, swap_ab: bool = False) -> Lowered:
    """swap_ab: the kernel computes D^T, so a per-column vector of D broadcasts along the kernel's rows."""
    lo = Lowered()
    value = lo.node("acc")
    c_elem = DTYPES[spec.c.dtype].cutlass if spec.c is not None else None

    def scalar_const(v):
        return lo.node("scalar", value=_float_literal(v), slot=None)

    def scalar_runtime(name):
        return lo.node("scalar", slot=lo.slot(name, "scalar", "fp32", scalar=True))

    def compute(fn, *children, out=None):
        return lo.node("compute", children, fn=fn, out=out or "float")

    def source(kind, name, dtype):
        if kind == "tensor":
            return lo.node("src", element=c_elem)
        if kind == "scalar":
            return scalar_runtime(name)
        s = lo.slot(name, kind, dtype)
        along = "row_bcast" if kernel_vector_kind(kind, swap_ab) == "per_col" else "col_bcast"
        return lo.node(along, element=DTYPES[dtype].cutlass, slot=s, alignment=128 // DTYPES[dtype].bits)

    for node in spec.epilogue:
        if isinstance(node, epi.LinearCombination):
            if node.alpha != 1.0:
                alpha = scalar_runtime("alpha") if node.alpha == epi.RUNTIME else scalar_const(node.alpha)
                value = compute("cutlass::multiplies", alpha, value)
            if node.beta != 0.0:
                beta = scalar_runtime("beta") if node.beta == epi.RUNTIME else scalar_const(node.beta)
                value = compute("cutlass::homogeneous_multiply_add", beta, lo.node("src", element=c_elem), value)
        elif isinstance(node, (epi.Add, epi.Multiply)):
            fn = "cutlass::plus" if node.op == "add" else "cutlass::multiplies"
            value = compute(fn, value, source(node.source, node.name, node.dtype))
        elif isinstance(node, epi.Activation):
            if node.fn == "identity":
                continue
            fn = f"cutlassgen::epi::{ACT_FUNCTOR[node.fn]}"
            if node.fn in ("leaky_relu", "clamp"):
                pname = f"Params{len(lo.params)}"
                consts = {"slope": node.slope} if node.fn == "leaky_relu" else {"lo": node.lo, "hi": node.hi}
                lo.params.append({"name": pname, "functor": fn,
                                  "consts": {k: _float_literal(v) for k, v in consts.items()}})
                fn = pname + "Fn"
            value = compute(fn, value)
        elif isinstance(node, epi.Quantize):
            if node.scale != "none":
                kind = "scalar" if node.scale == "per_tensor" else node.scale
                value = compute("cutlass::multiplies", value, source(kind, node.name, "fp32"))
            d = DTYPES[node.dtype]
            pname = f"Params{len(lo.params)}"
            lo.params.append({"name": pname, "functor": "cutlassgen::epi::Clamp",
                              "consts": {"lo": _float_literal(d.min_finite), "hi": _float_literal(d.max_finite)}})
            value = compute(pname + "Fn", value)
        elif isinstance(node, epi.StoreAux):
            s = lo.slot(node.name, "tensor", node.dtype, is_output=True)
            value = lo.node("aux_store", [value], element=DTYPES[node.dtype].cutlass, slot=s,
                            alignment=128 // DTYPES[node.dtype].bits)
        elif isinstance(node, epi.Amax):
            s = lo.slot(node.name, "amax", "fp32", is_output=True)
            value = lo.node("amax", [value], slot=s)
    # The root's output converts to D's type (with round-to-nearest), as CUTLASS's own fused epilogues do.
    if value["kind"] == "compute":
        value["out"] = "ElementD"
    elif value["kind"] == "acc":
        value = compute("cutlassgen::epi::Identity", value, out="ElementD")
    lo.root = value
    return lo


def lower(spec: GemmSpec, target_arch: int | None = None) -> dict:
    """The template context: every name a template needs, all decided here."""
    target_arch = spec.arch if target_arch is None else target_arch
    check_target(spec, target_arch)
    cfg = resolve(spec)
    swap = getattr(cfg, "swap_ab", False)
    lo = lower_epilogue(spec, swap)
    # With swap_ab the kernel's A is the problem's B transposed (same memory, the other layout name), and so on.
    op_a, op_b = (spec.b, spec.a) if swap else (spec.a, spec.b)
    a, b, d = DTYPES[op_a.dtype], DTYPES[op_b.dtype], DTYPES[spec.d.dtype]
    layout = (lambda op: _layout(_FLIP[op.layout])) if swap else (lambda op: _layout(op.layout))
    ctx = {
        "version": __version__,
        "spec_key": spec.key,
        "spec_json": spec.canonical_json(),
        "path": spec.resolved_path,
        "target_arch": target_arch,
        "element_a": a.cutlass, "element_b": b.cutlass, "element_d": d.cutlass,
        "element_c": DTYPES[spec.c.dtype].cutlass if spec.c is not None else None,
        "element_acc": DTYPES[spec.accumulator].cutlass,
        "layout_a": layout(op_a), "layout_b": layout(op_b), "layout_d": layout(spec.d),
        "align_a": alignment(op_a), "align_b": alignment(op_b), "align_d": alignment(spec.d),
        "align_c": alignment(spec.c) if spec.c is not None else alignment(spec.d),
        "epi_nodes": lo.nodes, "epi_root": lo.root, "epi_params": lo.params, "slots": lo.slots,
        "n_ptrs": lo.n_ptrs, "n_scalars": lo.n_scalars,
    }
    if isinstance(cfg, Sm80Config):
        fp8 = is_fp8(spec)
        ctx.update(scalar_broadcast="VisitorScalarBroadcast<float, Stride<_0, _0, _0>>",
                   epi_access=sm80_epilogue_access(spec), tb=cfg.threadblock, warp=cfg.warp, inst=cfg.instruction,
                   stages=cfg.stages, swizzle=cfg.swizzle,
                   arch_tag="cutlass::arch::Sm89" if fp8 else "cutlass::arch::Sm80",
                   math_op="cutlass::arch::OpMultiplyAddSaturate" if spec.a.dtype == "int8"
                   else "cutlass::arch::OpMultiplyAdd")
    else:
        coop = cfg.mainloop == "cooperative"
        kernel = "cutlass::gemm::KernelTmaWarpSpecialized" + ("Cooperative" if coop else "Pingpong")
        if cfg.fp8_fast_accum:
            kernel += "FP8FastAccum"
        # a 16-bit operand tile of an odd number of 8-row groups (kernel M is a multiple of 64): its TMA set-up comes
        # from csrc/cutlassgen/narrow_tma.hpp, whose Params only load_hints.hpp's producer load() takes
        narrow_tma = a.bits == 16 and cfg.cta[1] % 16 != 0
        tail_operand = _tail_operand(spec, cfg, swap)
        load_hints = _load_hints(swap, spec.tile.weights_evict_first) or (
            ("EVICT_NORMAL", "EVICT_NORMAL") if narrow_tma or tail_operand is not None else None)
        promotion = _overlapped_promotion(spec, cfg)
        direct = _direct_store(lo, swap)
        opaque = _opaque_pipeline(cfg)  # checked for every sm90 kernel, as PROMOTION_SCHEDULE is
        if spec.tile.opaque_pipeline:  # validation let it through for exact fp8 of CTA K 128 only
            if promotion != "full":  # only a study setting turns "full" away from such a tile
                raise ValueError("Sm90Tile(opaque_pipeline=True) needs the \"full\" promotion mainloop; the study "
                                 "settings (OVERLAPPED_PROMOTION, PROMOTION_SCHEDULE, PROMOTION_TILES) give this tile "
                                 + (f"the {promotion!r} schedule" if promotion else "CUTLASS's FP8 mainloop"))
            opaque = "cutlassgen::kAlwaysOpaque"
        ctx.update(scalar_broadcast="Sm90ScalarBroadcast<float, Stride<_0, _0, int64_t>>", cta=cfg.cta,
                   cluster=cfg.cluster, epi_tile=cfg.epilogue_tile, mainloop=cfg.mainloop,
                   extended_mma_shapes=cfg.cta[1] not in WGMMA_BASE_N,
                   epilogue_builder_impl=cfg.epilogue_tile[1] % 16 != 0 or EPI_STORE_STAGES is not None,
                   epi_store_stages=EPI_STORE_STAGES,
                   narrow_tma=narrow_tma,
                   # False renders nothing: the other kernels' sources stay as they were
                   overlapped_promotion=promotion,
                   promotion_mainloop=PROMOTION_MAINLOOPS.get(promotion),
                   opaque_pipeline=opaque if promotion == "full" else None,
                   kernel_schedule=kernel,
                   epilogue_schedule="cutlass::epilogue::TmaWarpSpecialized" + ("Cooperative" if coop else ""),
                   tile_scheduler="cutlass::gemm::StreamKScheduler" if cfg.scheduler.startswith("stream_k")
                   else "cutlass::gemm::PersistentScheduler",
                   stream_k_always=cfg.scheduler == "stream_k_always", pdl=spec.tile.pdl,
                   # CUTLASS's default renders nothing, so the keys of kernels built before the setting still hold
                   stream_k_reduction=STREAM_K_REDUCTION if cfg.scheduler.startswith("stream_k") and
                   STREAM_K_REDUCTION != "Deterministic" else None,
                   direct_store=direct,
                   # the direct-store epilogue reads its vectors itself
                   bulk_col_broadcast=_bulk(BULK_COL_BROADCAST, swap) and direct is None,
                   bulk_row_broadcast=_bulk(BULK_ROW_BROADCAST, swap) and direct is None,
                   load_hints=load_hints, load_hint_exprs=[L2_POLICY[h] for h in load_hints or ()],
                   keep_mib=_keep_mib(spec.tile.weights_evict_first),
                   tail_operand=tail_operand,
                   stages=cfg.stages,
                   raster={"auto": "Heuristic", "along_m": "AlongM", "along_n": "AlongN"}[cfg.raster],
                   swizzle=cfg.swizzle, split_k=cfg.split_k, swap_ab=swap,
                   # auto_swizzle's SwizzlePad (its raster: RASTERS' order, 0 auto, 1 along M, 2 along N); none
                   # where SWIZZLE_PAD is 0 (the call as before the setting)
                   swizzle_pad=[SWIZZLE_PAD, "p.k", a.bits // 8, b.bits // 8, RASTERS.index(cfg.raster)]
                   if SWIZZLE_PAD else None,
                   # which cg_problem fields feed the kernel's M, N, A and B
                   kernel_m="n" if swap else "m", kernel_n="m" if swap else "n",
                   kernel_a="b" if swap else "a", kernel_b="a" if swap else "b")
    return ctx


_FLIP = {"row": "column", "column": "row"}


def _layout(name: str) -> str:
    return "cutlass::layout::RowMajor" if name == "row" else "cutlass::layout::ColumnMajor"
