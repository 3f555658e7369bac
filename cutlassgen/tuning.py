"""Tile-shape study and tuning: enumerate the valid configurations of a spec, compile them in one parallel build,
time each on the GPU, check each against the reference, and write a report (CSV, JSON, plots).

Every configuration is validated before anything compiles; invalid ones never reach nvcc.
"""
from __future__ import annotations

import csv
import dataclasses
import itertools
import json
import math
import numbers
import pathlib
import re
import warnings

from .dtypes import DTYPES
from .errors import SpecError, is_int
from .spec import AUTO, GemmSpec, Sm80Tile, Sm90Tile
from .tiles import DECODE_M, mid_n_48_epilogue, resolve  # shapes with M at most DECODE_M get the decode space


# Small M (decode) is memory-bound: what matters is how many SMs stream B. With swap_ab the kernel computes D^T, so
# the problem's N (thousands) is tiled by the CTA's M and the few rows of A fit a narrow CTA N with no wasted MMA;
# split-K adds CTAs along K when N alone gives too few tiles.


def wants_decode_space(shapes) -> bool:
    return any(M <= DECODE_M for M, _, _ in shapes)


def tokens_space(shapes) -> tuple:
    """The M values of shapes with 65-256 rows, for which configs adds swapped tiles fitted to the tokens."""
    return tuple(sorted({M for M, _, _ in shapes if DECODE_M < M <= 256}))


def _decode_tiles(base: Sm90Tile, kb: int, k_bytes: int):
    # A 1x2 cluster (along the kernel's N: the tokens) loads a weight tile once for the CTA columns that share it,
    # which pays when the tokens span more than one column (the M 33-64 bucket's tiles, tiles.py); a 2x1 or 4x1 one
    # shares the tokens' tile between weight tiles (the M 17-32 bucket's tile at wide N, 64x64 at M 33-64).
    one, multicast, pair, quad = (1, 1, 1), (1, 2, 1), (2, 1, 1), (4, 1, 1)
    clusters = {16: (one, multicast, pair), 32: (one, multicast, pair), 48: (one, pair, quad), 64: (one, quad)}
    planned_48 = mid_n_48_epilogue(k_bytes) if base.epilogue_tile == AUTO else {}  # the plan's 41-48-row subtile
    for k in (2 * kb, 4 * kb):  # 128 and 256 bytes of K: long TMA copies keep more bytes in flight
        for n, n_clusters in clusters.items():  # 48: all of 33-48 tokens in one CTA (tiles.py)
            for cluster in n_clusters:
                tile = dataclasses.replace(base, cta=(64, n, k), cluster=cluster, mainloop="pingpong",
                                           scheduler="persistent", split_k=1, swap_ab=True, stages="auto")
                yield tile
                if n == 48 and cluster == quad and planned_48:
                    yield dataclasses.replace(tile, **planned_48)
        for n in (32, 64):
            # persistent: the M 33-64 winners (tiles.py); stream-K split 1 is CUTLASS's heuristic
            for cluster in (one, multicast) if n < 64 else (one,):
                yield dataclasses.replace(base, cta=(128, n, k), cluster=cluster, mainloop="cooperative",
                                          scheduler="persistent", split_k=1, swap_ab=True, stages="auto")
            for split in (1, 2, 4):
                yield dataclasses.replace(base, cta=(128, n, k), cluster=(1, 1, 1), mainloop="cooperative",
                                          scheduler="stream_k", split_k=split, swap_ab=True, stages="auto")


def _token_fitted_tiles(base: Sm90Tile, kb: int, token_rows):
    # 65-256 rows: swapped tiles whose token side fits M in one or two CTA columns. A token tile's rows past M cost
    # time (16 little, 32 a third: tiles.py); steps of 16, and of 8 where validate.n_step_of allows (16-bit and fp8
    # operands: the two columns of each form also 8-step wide, as cuBLAS fits them and the plan takes them). Two columns
    # also in a 1x2 cluster that multicasts their shared weight tile (the plan's form below MID_N), and under one
    # 128-row weight tile that a 1x2 cluster multicasts to both (cuBLAS's form there); one column under a 128-row
    # weight tile in a 4x1 cluster that multicasts the tokens (cuBLAS's form and the plan's from WIDE_N); two columns
    # under a 192-row pingpong weight tile in a 1x2 cluster (cuBLAS's form and the plan's from TALL_N); and unswapped,
    # the tokens in two 64-row tiles (up to 128 rows) or two 128-row ones (above) under weight tiles 144 to 192 wide
    # in a 2x1 cluster that multicasts each weight tile to both (the plan's where N / 64 of those fill one wave); at
    # 129-192 rows also three 64-row tiles under weight tiles 208 to 240 wide, and one 192-row tile under 80- or
    # 96-wide ones, no cluster (the plan's at 145-192 rows where 3 x N / 224 or N / 80 fill one wave). Three
    # swapped columns under a 128-row weight tile, no cluster: cuBLAS's split at 200-256 rows (in its 4x1 cluster)
    # and the plan's at 193-256 rows where 3 x N / 128 fill one wave.
    swapped = dict(scheduler="persistent", split_k=1, swap_ab=True, stages="auto")
    unswapped = dict(swapped, swap_ab=False)
    for m in token_rows:
        one, two = -(-m // 16) * 16, -(-m // 32) * 16
        # two or three columns in steps of 8 too (validation turns them away for int8 and tf32)
        two8 = -(-m // 16) * 8
        twos = sorted({two, two8})
        threes = sorted({-(-m // 48) * 16, -(-m // 24) * 8})
        for k in (2 * kb, 4 * kb):
            for n in sorted({one, *twos}):
                # a 1x2 cluster only where there are two columns to pair: one column would leave its twin idle
                for cluster in ((1, 1, 1), (2, 1, 1)) + (((1, 2, 1),) if n < one else ()):
                    yield dataclasses.replace(base, cta=(64, n, k), cluster=cluster, mainloop="pingpong", **swapped)
            for n in twos:
                yield dataclasses.replace(base, cta=(128, n, k), cluster=(1, 2, 1), mainloop="cooperative", **swapped)
            for n in threes:
                yield dataclasses.replace(base, cta=(128, n, k), cluster=(1, 1, 1), mainloop="cooperative", **swapped)
            yield dataclasses.replace(base, cta=(128, one, k), cluster=(4, 1, 1), mainloop="cooperative", **swapped)
            for n in twos:
                yield dataclasses.replace(base, cta=(192, n, k), cluster=(1, 2, 1), mainloop="pingpong", **swapped)
        rows = 64 if m <= 128 else 128
        for width in (144, 160, 176, 192):
            yield dataclasses.replace(base, cta=(rows, width, 2 * kb), cluster=(2, 1, 1),
                                      mainloop="pingpong" if rows == 64 else "cooperative", **unswapped)
        if 128 < m <= 192:
            for cta in ((64, 208), (64, 224), (64, 240), (192, 80), (192, 96)):
                yield dataclasses.replace(base, cta=(*cta, 2 * kb), cluster=(1, 1, 1), mainloop="pingpong",
                                          **unswapped)


def _sm80_decode_tiles(base: Sm80Tile, inst_k: int):
    # The sm80 path at decode: small threadblocks (N / 64 CTAs, few padded rows) with deep pipelines, 128 bytes of K
    # per stage (tiles.SM80_TILES; bench/results/h200_sm80_tiles.log).
    k = 4 * inst_k
    for (tm, tn), (wm, wn) in (((32, 64), (32, 32)), ((64, 64), (32, 32)), ((64, 32), (32, 32)), ((16, 64), (16, 32))):
        for stages in (4, 6, 8):
            yield dataclasses.replace(base, threadblock=(tm, tn, k), warp=(wm, wn, k), stages=stages)


# The order in which the tiles of the output are walked: on sm90 the persistent scheduler's raster order and swizzle
# (strips of that many tiles; "auto": csrc/cutlassgen/auto_swizzle.hpp per call), on the sm80 path the threadblock
# swizzle. They decide which CTAs share operand tiles in L2 at once: on H100s strips of 2 ran the 128x128 pingpong tile
# 1.13x faster than "auto" at 1024x14336x4096 and 0.93-0.98x at 8192 rows (bench/NOTES.md, session 97).
SM90_SCHEDULES = tuple(itertools.product(("auto", "along_m", "along_n"), (AUTO, 1, 2, 4, 8)))
SM80_SWIZZLES = (1, 2, 4, 8)


def schedule_variants(tile):
    """tile under each raster order and swizzle (sm90: 15, sm80 path: 4), tile's own first where it is one of them."""
    if isinstance(tile, Sm90Tile):
        variants = [dataclasses.replace(tile, raster=r, swizzle=s) for r, s in SM90_SCHEDULES]
    else:
        variants = [dataclasses.replace(tile, swizzle=s) for s in SM80_SWIZZLES]
    return sorted(variants, key=lambda v: v != tile)


def label_matcher(match: str | None):
    """match (a regular expression, or None: all) as a test of a variant's label(); one that is not is a SpecError."""
    try:
        wanted = re.compile(match) if match is not None else None
    except re.error as e:
        raise SpecError("match", match, f"is not a regular expression ({e})", "e.g. '^128x(128|256)x64 c2x1'") from None
    return lambda variant: wanted is None or wanted.search(label(variant)) is not None


def configs(spec: GemmSpec, limit: int | None = None, decode: bool = False, match: str | None = None,
            token_rows=(), schedules: bool = False) -> list[GemmSpec]:
    """Valid tile variants of spec (same dtypes, layouts and epilogue), in a stable order.

    limit caps the main space; decode=True adds the decode space after it (sm90: swap_ab, split-K; sm80 path:
    small threadblocks with deep pipelines); token_rows, M values of 65-256 rows, add (sm90) the swapped tiles
    whose token side fits each in one or two CTA columns (tokens_space).
    match: a regular expression; only variants whose label() it finds are kept (before the limit applies).
    schedules=True varies the raster order and swizzle too (schedule_variants: 15x the sm90 variants, 4x the sm80
    path's; the limit counts them), which otherwise keep the spec's."""
    if limit is not None and (not is_int(limit) or limit < 1):
        raise SpecError("limit", limit, "must be an integer of at least 1 (or None: every configuration)",
                        "e.g. limit=64")
    matches = label_matcher(match)
    k_bytes = DTYPES[spec.a.dtype].bits // 8
    kb = 128 // k_bytes // 2  # K of 64 bytes; x2 below gives 128 bytes
    out, seen = [], set()
    if spec.resolved_path == "sm90":
        space = itertools.product((64, 128, 256), (64, 128, 192, 256), (kb, 2 * kb),
                                  ((1, 1, 1), (2, 1, 1), (1, 2, 1)), ("cooperative", "pingpong"),
                                  ("persistent", "stream_k"))
        # replace() keeps the fields the study does not vary (fp8_fast_accum, raster, swizzle, epilogue, and
        # epilogue_tile: a set one leaves out the variants it does not fit, e.g. pingpong for 128 rows).
        base = spec.tile if isinstance(spec.tile, Sm90Tile) else Sm90Tile()
        tiles = (dataclasses.replace(base, cta=(m, n, k), cluster=cl, mainloop=ml, scheduler=sch, stages="auto",
                                     split_k=1, swap_ab=False)
                 for m, n, k, cl, ml, sch in space)
        extra = itertools.chain(_decode_tiles(base, kb, k_bytes) if decode else (),
                                _token_fitted_tiles(base, kb, token_rows))
    else:
        inst_k = {8: 32, 16: 16, 32: 8}[DTYPES[spec.a.dtype].bits]
        space = itertools.product(((128, 128), (128, 256), (256, 128), (128, 64), (64, 128), (64, 64)),
                                  ((64, 64), (64, 32), (32, 64), (32, 32)), (2 * inst_k, 4 * inst_k), (3, 4))
        base = spec.tile if isinstance(spec.tile, Sm80Tile) else Sm80Tile()
        tiles = (dataclasses.replace(base, threadblock=(tm, tn, k), warp=(wm, wn, k), stages=st)
                 for (tm, tn), (wm, wn), k, st in space)
        extra = _sm80_decode_tiles(base, inst_k) if decode else ()

    if schedules:
        tiles = (v for t in tiles for v in schedule_variants(t))
        extra = (v for t in extra for v in schedule_variants(t))

    def add(tile_iter, cap):
        start = len(out)
        for tile in tile_iter:
            if cap and len(out) - start >= cap:
                return
            try:
                candidate = dataclasses.replace(spec, tile=tile)
            except SpecError:
                continue
            if not matches(candidate):
                continue
            if candidate.key not in seen:
                seen.add(candidate.key)
                out.append(candidate)

    add(tiles, limit)
    add(extra, None)
    return out


def candidates(spec: GemmSpec, shapes, limit: int | None = None, match: str | None = None,
               schedules: bool = False) -> list[GemmSpec]:
    """What tune times: the spec itself (its default tile, the baseline), the per-shape heuristic's tile for each shape
    and those some GPU models run in its place or a call runs at ragged M or where they fill the waves better (what
    build(spec, shapes=...) would run there, tiles.instead_on and wave_fill_tiles, so a tuned choice never loses to
    it), then configs(spec, limit, match), with the decode space when a shape has
    M <= DECODE_M and the token-fitted tiles of each M of 65-256 rows.
    schedules=True: each raster order and swizzle of configs' variants and of the per-shape tiles (where match
    keeps them)."""
    from .dispatch import tile_is_auto
    from .tiles import instead_on, shape_tile, wave_fill_tiles

    baselines, planned_tiles = [spec], []
    if tile_is_auto(spec):
        for M, N, K in shapes:
            tile = shape_tile(spec, M, N, K)
            if tile is not None:
                baselines += [dataclasses.replace(spec, tile=t) for t in (tile, *instead_on(spec, M, N, tile).values(),
                                                                          *wave_fill_tiles(spec, M, N, tile))
                              if t is not None]
                planned_tiles += schedule_variants(tile) if schedules else []
    space = configs(spec, limit, decode=wants_decode_space(shapes), match=match, token_rows=tokens_space(shapes),
                    schedules=schedules)
    matches = label_matcher(match)
    planned = [v for v in (dataclasses.replace(spec, tile=t) for t in planned_tiles) if matches(v)]
    out, seen = [], set()
    for variant in baselines + space + planned:
        if variant.key not in seen:
            seen.add(variant.key)
            out.append(variant)
    return out


SCHEDULER_LABELS = {"persistent": "", "stream_k": " stream-K", "stream_k_always": " stream-K always"}


def label(spec: GemmSpec) -> str:
    """A configuration's name in reports and --match: its tile's fields, and the raster order and swizzle where they
    are not the defaults ("auto"; the sm80 path's swizzle 1)."""
    from .dispatch import tile_is_auto

    t = spec.tile
    if isinstance(t, Sm90Tile):
        schedule = (f"{'' if t.raster == 'auto' else ' ' + t.raster}"
                    f"{'' if t.swizzle == AUTO else f' swizzle{t.swizzle}'}")
    else:
        schedule = '' if t.swizzle in (1, AUTO) else f' swizzle{t.swizzle}'
    if tile_is_auto(spec):
        return "default (auto)" + schedule

    def dims(v) -> str:  # a tile may leave some fields "auto" and set others
        return v if v == AUTO else "x".join(map(str, v))

    if spec.resolved_path == "sm90":
        cluster = "cluster auto" if t.cluster == AUTO else f"c{t.cluster[0]}x{t.cluster[1]}"
        return (f"{'swap ' if t.swap_ab else ''}{dims(t.cta)} {cluster} {t.mainloop}{SCHEDULER_LABELS[t.scheduler]}"
                f"{f' split{t.split_k}' if t.split_k > 1 else ''}"
                f"{'' if t.epilogue_tile == AUTO else ' epi' + dims(t.epilogue_tile)}"
                f"{' opaque' if t.opaque_pipeline else ''}{' weights-first' if t.weights_evict_first else ''}"
                f"{' fitted-tail' if t.fitted_tail else ''}"
                f"{schedule}")
    return f"{dims(t.threadblock)} w{dims(t.warp[:2] if t.warp != AUTO else AUTO)} s{t.stages}{schedule}"


@dataclasses.dataclass
class Row:
    config: str
    shape: str
    ms: float
    tflops: float
    rel_err: float
    compile_seconds: float  # while one of this kernel's compile steps ran (ninja log), queueing left out
    warnings: int
    spec_key: str
    registers: int | None = None  # per thread, from ptxas -v (None: built before the build recorded it)
    spill_bytes: int | None = None  # ptxas spill stores
    smem_bytes: int | None = None  # shared memory a CTA launches with (Kernel.pipeline; else tiles.resolve's guess)
    stages: int | None = None  # mainloop pipeline stages the compiled kernel holds (None: its module does not say)


def study(spec: GemmSpec, shapes, *, limit: int | None = None, reps: int = 20, make_inputs=None,
          variants: list | None = None, gpus: int | None = None) -> list[Row]:
    """Compile every valid configuration of spec in one ninja run, then time and check each at each shape (GPU).

    variants: the specs to time instead of configs(spec, limit) (tune passes candidates(spec, shapes, ...)).
    gpus: how many GPUs share the timing (default: every visible one, if they are all the same model); each runs a
    worker process that times its share of the configurations on the same seeded inputs.
    """
    import torch

    from .dispatch import check_shapes
    from .jit import build_many

    shapes = check_shapes(shapes, spec)
    if not is_int(reps) or reps < 1:
        raise SpecError("reps", reps, "must be an integer of at least 1: the timed runs whose median is taken",
                        "e.g. reps=20")
    variants = configs(spec, limit) if variants is None else variants
    if not torch.cuda.is_available():  # before a build of minutes whose kernels nothing here could time
        raise RuntimeError(f"timing {len(variants)} configurations needs a CUDA GPU, and torch sees none "
                           "(torch.cuda.is_available() is False); nothing was compiled. cutlassgen.tuning.candidates"
                           "(spec, shapes) lists what tune would time, and cutlassgen.build_many compiles them")
    kernels = build_many(variants)  # every compile happens here, once; workers load from the cache
    n = gpus if gpus is not None else torch.cuda.device_count()
    if n > 1 and make_inputs is None and len({torch.cuda.get_device_name(i) for i in range(n)}) == 1:
        print(f"cutlassgen: timing {len(variants)} configurations on {n} GPUs, one worker process each", flush=True)
        timed = spread(variants, shapes, reps, n)
    else:
        timed = time_configurations(variants, kernels, range(len(variants)), shapes, reps, make_inputs)
    return [row for _, _, row in sorted(timed, key=lambda t: (t[0], t[1]))]


def time_configurations(variants, kernels, indices, shapes, reps, make_inputs=None) -> list:
    """(shape index, variant index, Row) for each of variants (numbered by indices) at each shape, on this GPU."""
    import torch

    from .golden import reference, rel_error
    from .jit import PerformanceWarning
    from .timing import l2_flush, median_ms

    out = []
    if not variants:
        return out
    spec = variants[0]  # all share dtypes, layouts and epilogue
    pipelines = [k.pipeline for k in kernels]
    smem = [p.get("smem_bytes") or resolve(v).smem_bytes for p, v in zip(pipelines, variants)]
    flush = l2_flush()  # each timed run starts with cold L2, as in a model
    with warnings.catch_warnings():
        # the default kernel's once-per-kernel hint that a small M has a per-shape tile: the study is deciding that
        warnings.filterwarnings("ignore", message=".*runs the default tile", category=PerformanceWarning)
        for si, (M, N, K) in enumerate(shapes):
            with torch.random.fork_rng(devices=[torch.cuda.current_device()]):
                torch.manual_seed(1000 + si)  # the same inputs in every worker process; the caller's RNG untouched
                args, inputs = (make_inputs or random_inputs)(spec, M, N, K)
            ref = reference(spec, *args, **inputs)
            ref = ref.d if isinstance(ref, tuple) else ref
            for vi, variant, kernel, smem_bytes, pipeline in zip(indices, variants, kernels, smem, pipelines):
                res = kernel(*args, **inputs)
                res = res.d if isinstance(res, tuple) else res
                err = rel_error(res, ref)

                ms = median_ms(lambda: kernel(*args, **inputs), reps=reps, before=flush)
                info = kernel.build_info
                used = info.get("resources") or {}
                out.append((si, vi, Row(label(variant), f"{M}x{N}x{K}", ms, 2 * M * N * K / ms / 1e9, err,
                                        info.get("compile_seconds", 0.0), len(info.get("warnings", [])), variant.key,
                                        used.get("registers"), used.get("spill_store_bytes"), smem_bytes,
                                        pipeline.get("mainloop_stages"))))
    return out


def spread(variants, shapes, reps, n_gpus: int, worker=None) -> list:
    """Time variants on n_gpus GPUs at once, one spawned worker process per GPU, round-robin shares."""
    import concurrent.futures
    import multiprocessing

    worker = worker or _gpu_worker
    dicts = [v.to_dict() for v in variants]
    shares = [list(range(g, len(variants), n_gpus)) for g in range(n_gpus)]
    out = []
    # One task per process (max_tasks_per_child=1): otherwise the first worker to finish importing could take a
    # second GPU's share and time it after its own, one GPU at a time.
    with concurrent.futures.ProcessPoolExecutor(max_workers=n_gpus, mp_context=multiprocessing.get_context("spawn"),
                                                max_tasks_per_child=1) as pool:
        futures = [pool.submit(worker, g, [dicts[i] for i in share], share, list(shapes), reps)
                   for g, share in enumerate(shares) if share]
        for f in futures:
            out.extend(f.result())
    return out


def _gpu_worker(device: int, spec_dicts: list, indices: list, shapes: list, reps: int) -> list:
    import torch

    from .jit import build_many

    torch.cuda.set_device(device)
    variants = [GemmSpec.from_dict(d) for d in spec_dicts]
    kernels = build_many(variants, verbose=False)  # cache hits: the parent compiled them
    return time_configurations(variants, kernels, indices, shapes, reps)


# The largest relative error a configuration may show and still win (fp8 outputs carry 2-3 mantissa bits).
MAX_REL_ERR = {8: 0.15, 16: 2e-2, 32: 1e-2}


@dataclasses.dataclass
class TuneResult:
    rows: list  # every configuration at every shape (Row)
    winners: list  # per shape: the record's entry (shape, tile, label, tflops, default_tflops)
    record: pathlib.Path | None  # where build(spec) will find it


class NoMatchError(RuntimeError):
    """No configuration matched the reference at some shape. rows holds every timed row (their rel_err says by how
    much each missed), so a study's report can still be written."""

    def __init__(self, message: str, rows: list):
        super().__init__(message)
        self.rows = rows


def tune(spec: GemmSpec, shapes, *, limit: int | None = None, reps: int = 20, save: bool = True,
         match: str | None = None, schedules: bool = False) -> TuneResult:
    """Time every valid configuration of spec at each shape on this GPU, keep the fastest one that matches the
    reference, and (save=True) record the winners so that build(spec) dispatches to them by M. schedules=True: each
    configuration under every raster order and swizzle too (candidates)."""
    import torch

    from . import dispatch
    from .dispatch import check_shapes
    from .jit import default_target_arch, forget_built

    if save and not dispatch.tile_is_auto(spec):
        raise SpecError("tile", spec.tile, "tuned dispatch replaces 'auto' tiles; this spec fixes its tile",
                        "tune a spec whose tile fields are 'auto' (or pass save=False for a study only)")
    shapes = check_shapes(shapes, spec)
    if save:  # before minutes of compiling and timing whose winners could not be kept
        _check_record_folder(dispatch.record_path(spec, default_target_arch(spec)))
    variants = candidates(spec, shapes, limit, match, schedules)
    rows = study(spec, shapes, reps=reps, variants=variants)
    by_key = {v.key: v for v in variants}
    max_err = MAX_REL_ERR[DTYPES[spec.d.dtype].bits if DTYPES[spec.d.dtype].bits in MAX_REL_ERR else 32]
    winners = []
    for M, N, K in shapes:
        here = [r for r in rows if r.shape == f"{M}x{N}x{K}"]
        ok = [r for r in here if r.rel_err <= max_err]
        if not ok:
            closest = (f"closest {min(r.rel_err for r in here):.3g} of {len(here)}" if here
                       else "none was timed there")
            raise NoMatchError(f"no configuration of {spec.name or spec.key} matched the reference at {M}x{N}x{K} "
                               f"(relative error at most {max_err:g}; {closest})", rows)
        best = max(ok, key=lambda r: r.tflops)
        default = next((r.tflops for r in here if r.spec_key == spec.key), None)
        winners.append({"shape": [M, N, K], "tile": dispatch.tile_to_dict(by_key[best.spec_key].tile),
                        "label": best.config, "tflops": round(best.tflops, 1),
                        "default_tflops": None if default is None else round(default, 1)})
    path = None
    if save:
        target = default_target_arch(spec)
        path = dispatch.write_record(spec, target, torch.cuda.get_device_name(), winners)
        forget_built(spec)  # the next build(spec) reads the new record
    return TuneResult(rows, winners, path)


def _check_record_folder(path: pathlib.Path) -> None:
    """A ToolchainError unless a file can be written where the tuning record will go (a read-only cache, one under
    a file): a study whose record cannot be kept should say so before it runs, not after."""
    import tempfile

    from .jit.toolchain import ToolchainError

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path.parent).close()
    except OSError as e:
        raise ToolchainError(f"the tuning record {path} cannot be written ({e.strerror or e}: {e.filename or path})",
                             "set CUTLASSGEN_CACHE_DIR to a folder this user can write, or pass save=False "
                             "(`cutlassgen tune --no-save`) for a study only") from None


def random_inputs(spec: GemmSpec, M: int, N: int, K: int):
    """Fresh random operands and epilogue inputs in the layouts and dtypes spec asks for."""
    import torch

    from .dtypes import storage
    from .epilogue import inputs_of

    def matrix(rows, cols, op, scale):
        shape = (rows, cols) if op.layout == "row" else (cols, rows)
        t = (torch.randint(-8, 8, shape, device="cuda", dtype=torch.int8) if op.dtype == "int8"
             else (torch.randn(shape, device="cuda") * scale).to(getattr(torch, storage(op.dtype).torch)))
        return t if op.layout == "row" else t.t()

    args = [matrix(M, K, spec.a, 1.0), matrix(K, N, spec.b, K ** -0.5)]
    if spec.c is not None:
        args.append(matrix(M, N, spec.c, 1.0))
    inputs = {}
    for name, kind, dtype in inputs_of(spec.epilogue):
        if kind == "scalar":
            inputs[name] = 0.5
        else:
            n = M if kind == "per_row" else N
            inputs[name] = (torch.rand(n, device="cuda") + 0.5).to(getattr(torch, storage(dtype).torch))
    return args, inputs


def arithmetic_intensity(spec: GemmSpec, M: int, N: int, K: int) -> float:
    """FLOP per byte of DRAM traffic if every operand is read once and D written once (the roofline's x axis)."""
    bytes_moved = (M * K * DTYPES[spec.a.dtype].bits + K * N * DTYPES[spec.b.dtype].bits +
                   M * N * DTYPES[spec.d.dtype].bits + (M * N * DTYPES[spec.c.dtype].bits if spec.c else 0)) / 8
    return 2 * M * N * K / bytes_moved


def read_report(out_dir) -> list[Row]:
    """The rows of a study.csv that write_report wrote (empty cells: values that run did not record)."""
    kinds = {"ms": float, "tflops": float, "rel_err": float, "compile_seconds": float, "warnings": int,
             "registers": int, "spill_bytes": int, "smem_bytes": int, "stages": int}
    with open(pathlib.Path(out_dir) / "study.csv", newline="") as f:
        return [Row(**{k: None if v == "" else kinds.get(k, str)(v) for k, v in d.items()}) for d in csv.DictReader(f)]


def check_peaks(peak_tflops: float | None, peak_tbps: float | None, names=("peak_tflops", "peak_tbps")) -> None:
    """A bad peak drew nothing, or failed in matplotlib after the report's files were written: refuse it first.
    names: what the message calls the two (a command line's options)."""
    for name, value in zip(names, (peak_tflops, peak_tbps)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                  or not 0 < value < math.inf):  # NaN fails this too
            raise ValueError(f"{name} must be a positive, finite number, not {value!r}")
    if peak_tbps is not None and peak_tflops is None:
        raise ValueError(f"{names[1]} needs {names[0]}: the roofline is min(peak, bandwidth x intensity)")


TOP_IN_PLOT = 15  # bars per shape: the fastest configurations (and the default), so that labels stay legible


def write_report(rows: list[Row], out_dir, peak_tflops: float | None = None, *, spec: GemmSpec | None = None,
                 peak_tbps: float | None = None) -> list[pathlib.Path]:
    """rows -> study.csv, study.json and (with matplotlib) study.png: per shape, the fastest configurations' TFLOP/s
    against the device's peak; with spec, a roofline panel (every configuration at its shape's arithmetic
    intensity, under min(peak_tflops, peak_tbps x intensity) when both peaks are given)."""
    check_peaks(peak_tflops, peak_tbps)
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "study.csv", out / "study.json"]
    with open(paths[0], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=[fl.name for fl in dataclasses.fields(Row)])
        writer.writeheader()
        writer.writerows(dataclasses.asdict(r) for r in rows)
    best = {}
    for r in rows:
        if r.shape not in best or r.tflops > best[r.shape]["tflops"]:
            best[r.shape] = dataclasses.asdict(r)
    paths[1].write_text(json.dumps({"rows": [dataclasses.asdict(r) for r in rows], "best": best}, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return paths
    shapes = sorted({r.shape for r in rows}, key=lambda s: [int(x) for x in s.split("x")])
    panels = len(shapes) + (1 if spec is not None else 0)
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 6), squeeze=False)
    for ax, shape in zip(axes[0], shapes):
        here = sorted((r for r in rows if r.shape == shape), key=lambda r: r.tflops)
        shown = [r for r in here if r in here[-TOP_IN_PLOT:] or r.config == "default (auto)"]
        ax.barh(range(len(shown)), [r.tflops for r in shown],
                color=["tab:orange" if r.config == "default (auto)" else "tab:blue" for r in shown])
        ax.set_yticks(range(len(shown)), [r.config for r in shown], fontsize=7)
        if peak_tflops:
            ax.axvline(peak_tflops, color="black", linestyle="--", label=f"peak {peak_tflops:.0f}")
            ax.legend(fontsize=7, loc="lower right")
        ax.set_title(f"{shape}: fastest {min(TOP_IN_PLOT, len(here))} of {len(here)}", fontsize=9)
        ax.set_xlabel("TFLOP/s")
    if spec is not None:
        ax = axes[0][-1]
        for shape in shapes:
            ai = arithmetic_intensity(spec, *(int(x) for x in shape.split("x")))
            ys = [r.tflops for r in rows if r.shape == shape]
            ax.scatter([ai] * len(ys), ys, s=10, alpha=0.6, label=shape)
        if peak_tflops and peak_tbps:
            import numpy as np

            xs = np.logspace(0, 4, 200)
            ax.plot(xs, np.minimum(peak_tflops, peak_tbps * xs), color="black", linestyle="--",
                    label=f"roofline ({peak_tflops:.0f} TFLOP/s, {peak_tbps:g} TB/s)")
        elif peak_tflops:
            ax.axhline(peak_tflops, color="black", linestyle="--", label=f"peak {peak_tflops:.0f}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("FLOP per DRAM byte (operands read once)")
        ax.set_ylabel("TFLOP/s")
        ax.set_title("every configuration against the roofline", fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "study.png", dpi=120)
    plt.close(fig)
    return paths + [out / "study.png"]
