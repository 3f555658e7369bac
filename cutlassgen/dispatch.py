"""Dispatch by problem size. `cutlassgen.tune` records, per spec, target arch and GPU, which tile won at which
problem size; `build(spec)` of an all-"auto" spec then returns a DispatchKernel that picks the tuned kernel by M (N,
K) on each call. Without a record, `build(spec, shapes=...)` dispatches over the built-in per-shape tiles instead
(`tiles.shape_tile`), one kernel per M bucket (and N class, and for exact fp8 K class) those shapes fall in.

A record lives in <cache>/tuning/<spec key>-sm<arch>.json. It holds the GPU's name: on another GPU the record is
ignored (with one warning) and the default kernel runs. Buckets split at the geometric mean of neighbouring tuned
M's, so a record tuned at M = 32 and M = 4096 sends M <= 362 to the first winner and larger M to the second; shapes
tuned at one M and several N split the same way in N, and at one M and N and several K in K.
"""
from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import json
import math
import os
import pathlib
import sys
import tempfile
import warnings

from .errors import BuildError, SpecError, caller_stacklevel, is_int
from .jit import cache
from .spec import AUTO, GemmSpec, Sm80Tile, Sm90Tile, tile_to_dict

RECORD_VERSION = 1
# shapes a DispatchKernel keeps tiles.walk_rows_past_m for, the least recently called dropped first
ROWS_PAST_KEPT = 4096


def tile_is_auto(spec: GemmSpec) -> bool:
    """True when every field a tuning or the per-shape plan varies is left to cutlassgen (so a tuned choice may
    replace it)."""
    t = spec.tile
    if isinstance(t, Sm90Tile):
        return t.cta == AUTO and t.cluster == AUTO and t.mainloop == "auto" and t.stages == AUTO and \
            t.scheduler == "persistent" and not t.opaque_pipeline and not t.weights_evict_first and not t.fitted_tail
    return t.threadblock == AUTO and t.warp == AUTO and t.stages == AUTO


def record_path(spec: GemmSpec, target_arch: int) -> pathlib.Path:
    return cache.cache_root() / "tuning" / f"{spec.key}-sm{target_arch}.json"


def tile_from_dict(d: dict):
    cls = Sm90Tile if "cta" in d else Sm80Tile
    return cls(**{k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()})


def write_record(spec: GemmSpec, target_arch: int, gpu: str, winners: list[dict]) -> pathlib.Path:
    """winners: one dict per tuned shape: {"shape": [M, N, K], "tile": tile_to_dict(...), "label", "tflops",
    "default_tflops"}. Written atomically (a reader sees the old record or the new one)."""
    path = record_path(spec, target_arch)
    path.parent.mkdir(parents=True, exist_ok=True)
    body = {"version": RECORD_VERSION, "spec_key": spec.key, "target_arch": target_arch, "gpu": gpu,
            "winners": sorted(winners, key=lambda w: (w["shape"][0], -w["shape"][1], w["shape"][2]))}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")  # unique per writer
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(body, indent=1))
    os.replace(tmp, path)
    return path


def read_record(spec: GemmSpec, target_arch: int) -> dict | None:
    record = _read_record_of(spec, target_arch)
    legacy = _before_auto_swizzle(spec)
    if record is None and legacy is not None:  # a record tuned before swizzle "auto" was the default still holds
        record = _read_record_of(legacy, target_arch)
    return record


def _before_auto_swizzle(spec: GemmSpec) -> GemmSpec | None:
    """The same spec as keyed before an sm90 tile's swizzle defaulted to "auto" (it was 1), or None."""
    if not isinstance(spec.tile, Sm90Tile) or spec.tile.swizzle != AUTO:
        return None
    return dataclasses.replace(spec, tile=dataclasses.replace(spec.tile, swizzle=1))


def _read_record_of(spec: GemmSpec, target_arch: int) -> dict | None:
    path = record_path(spec, target_arch)
    try:
        body = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        warnings.warn(f"ignoring the unreadable tuning record {path}: {e}", stacklevel=caller_stacklevel())
        return None
    if isinstance(body, dict) and (body.get("version") != RECORD_VERSION or body.get("spec_key") != spec.key
                                   or not body.get("winners")):
        return None  # another version's record, or another spec's
    if not is_tuning_record(body):
        warnings.warn(f"ignoring the malformed tuning record {path}: not what write_record writes",
                      stacklevel=caller_stacklevel())
        return None
    return body


def is_tuning_record(body) -> bool:
    """body has write_record's form (a hand-edited or foreign file may not): a gpu name, and winners that each have a
    tile and an (M, N, K) of positive ints; no limits (only heuristic records, made in memory, have them)."""
    def shape_ok(shape):
        return (isinstance(shape, list) and len(shape) == 3
                and all(is_int(x) and x > 0 for x in shape))

    return (isinstance(body, dict) and isinstance(body.get("gpu"), str) and "limits" not in body
            and isinstance(body.get("winners"), list)
            and all(isinstance(w, dict) and isinstance(w.get("tile"), dict) and shape_ok(w.get("shape"))
                    for w in body["winners"]))


def bucket_limits(ms: list[int]) -> list[float]:
    """Upper M limit of each tuned M's bucket (the last is unbounded)."""
    return [math.sqrt(lo * hi) for lo, hi in zip(ms, ms[1:])] + [math.inf]


def tuned_entries(winners: list[dict]) -> list[tuple[int, float, float, float]]:
    """(index into winners, M limit, n_min, k_max) per tuned shape, in the order choose() tries them: by M, within one
    M (shapes tuned at several N, e.g. a model's layers at one batch size) the widest N first, each taking the N from
    the geometric mean with the next narrower one up, and within one M and N (tuned at several K) the shallowest K
    first, each taking the K up to the geometric mean with the next deeper one (k_max; 0 for the deepest: any K)."""
    ms = sorted({w["shape"][0] for w in winners})
    limit_of = dict(zip(ms, bucket_limits(ms)))
    order = sorted(range(len(winners)), key=lambda i: (winners[i]["shape"][0], -winners[i]["shape"][1],
                                                       winners[i]["shape"][2]))
    entries = []
    for i in order:
        M, N, K = winners[i]["shape"][:3]
        narrower = max((w["shape"][1] for w in winners if w["shape"][0] == M and w["shape"][1] < N), default=None)
        deeper = min((w["shape"][2] for w in winners if tuple(w["shape"][:2]) == (M, N) and w["shape"][2] > K),
                     default=None)
        entries.append((i, limit_of[M], 0 if narrower is None else math.sqrt(N * narrower),
                        0 if deeper is None else math.sqrt(K * deeper)))
    return entries


class DispatchKernel:
    """Calls the kernel chosen for the nearest problem size; everything else (spec, inputs, op...) is the default
    kernel's. `.choose(M, N, K)` says which kernel a call with M rows, N columns and depth K runs. The record is a
    tuning record, or a heuristic one (gpu None, its own bucket limits, entries for N >= n_min, for K <= k_max and for
    weights of at most weights_max bytes) from heuristic_record()."""

    def __init__(self, default, record: dict, kernels: list, instead_kernels: list | None = None,
                 fill_kernels: list | None = None):
        # what a pickle rebuilds it from (__reduce__)
        self._made_from = (default, record, list(kernels), instead_kernels, fill_kernels)
        self.default = default
        if record.get("limits"):  # a heuristic record: in choose() order, with its own limits, n_min and k_max
            self.limits, self.n_mins = record["limits"], [w.get("n_min", 0) for w in record["winners"]]
            self.k_maxes = [w.get("k_max", 0) for w in record["winners"]]
        else:
            entries = tuned_entries(record["winners"])
            record = {**record, "winners": [record["winners"][i] for i, *_ in entries]}
            kernels = [kernels[i] for i, *_ in entries]
            fill_kernels = [fill_kernels[i] for i, *_ in entries] if fill_kernels else None
            self.limits, self.n_mins = [lim for _, lim, _, _ in entries], [n for _, _, n, _ in entries]
            self.k_maxes = [k for *_, k in entries]
        from .tiles import operand_bytes

        # choose() runs on every call: each entry's weights_max (heuristic records only) as N * K elements of B
        b_bytes = operand_bytes(default.spec)[1]
        self._nk_maxes = [w.get("weights_max", 0) // b_bytes for w in record["winners"]]
        self.record = record
        self.kernels = kernels
        # per entry of a heuristic record, {GPU model: the kernel it runs instead} (tiles.instead_on)
        self._instead = instead_kernels or [{} for _ in kernels]
        # per entry of a heuristic record, the kernels a call runs at ragged M or where they fill the GPU's waves
        # better (tiles.wave_fill_tiles); the SM count is read once. A copy: _check_gpu empties some lists,
        # _made_from keeps them all
        self._fills = [list(f) for f in fill_kernels] if fill_kernels else [[] for _ in kernels]
        self._sms = None
        self._walk_fill = False  # whether this GPU runs the fill tile where the walk pads (tiles.PADDED_WALK_FILL_ON)
        self._fill_ctas = {}  # entry index: the CTA tiles of its kernel and fill kernels, worked out at first use
        self._rows_past_seen = collections.OrderedDict()  # (entry index, M, N, K): walk_rows_past_m, least recent first
        # a tuning record's winner was timed at its own shape, against the fill tiles too: only ragged M, which a
        # tuning at M a multiple of the tile's rows did not see, goes to them (tuned_fills)
        self._fill_by_waves = bool(record.get("limits"))
        # the built-in heuristic holds on every sm90 GPU, but for entries some models run another tile for (instead_on)
        self._gpu_checked = record["gpu"] is None and not any(w.get("instead_on") for w in record["winners"])
        self._op = None
        torch = sys.modules.get("torch")
        if torch is not None:
            if not self._gpu_checked and torch.cuda.is_available():  # warned where the kernel is made
                self._check_gpu()
            self._op = self.op  # registered now, outside any torch.compile trace (registering is not traceable)

    def __getattr__(self, name):  # spec, source, inputs, Result, op ... of the default kernel
        if "default" not in self.__dict__:  # while unpickling, before the state is set
            raise AttributeError(name)
        return getattr(self.__dict__["default"], name)

    def __reduce__(self):  # made again in the other process, which checks its own GPU against the record
        return DispatchKernel, self._made_from

    def __copy__(self):  # as Kernel: no state a caller could change
        return self

    def __deepcopy__(self, memo):
        return self

    def choose(self, M: int, N: int | None = None, K: int | None = None):
        """The first entry whose M limit holds M, whose n_min N reaches (N None: entries without an n_min), whose
        k_max K does not pass (K None: entries without a k_max) and whose weights_max the N x K weights do not pass
        (N or K None: entries without one); above every limit, the last such entry; none: the default kernel."""
        if not self._gpu_checked:
            self._check_gpu()
        chosen = None
        for i, (limit, n_min, k_max, nk_max) in enumerate(zip(self.limits, self.n_mins, self.k_maxes,
                                                               self._nk_maxes)):
            if (0 if N is None else N) < n_min or (k_max and (K is None or K > k_max)) or (
                    nk_max and (N is None or K is None or N * K > nk_max)):
                continue
            chosen = i
            if M <= limit:
                break
        if chosen is None:
            return self.default
        if self._fills[chosen] and N is not None:
            return self._wave_filled(chosen, M, N, K)
        return self.kernels[chosen]

    def _wave_filled(self, i: int, M: int, N: int, K: int | None):
        """Entry i's kernel, or the one of its wave-fill kernels that an M x N x K call runs
        (tiles.wave_fill_choice)."""
        from .tiles import PADDED_WALK_FILL_ON, resolve, wave_fill_choice

        if self._sms is None:
            self._sms = sm_count()
            self._walk_fill = model_of(PADDED_WALK_FILL_ON, gpu_name()) is not None
        candidates = [self.kernels[i], *self._fills[i]]
        if i not in self._fill_ctas:  # resolved: an entry's kernel may be the default, whose tile says "auto"
            self._fill_ctas[i] = [resolve(k.spec).cta for k in candidates]
        j = wave_fill_choice(M, N, self._fill_ctas[i], self._sms, self._fill_by_waves,
                             None if K is None else lambda: self._rows_past(i, M, N, K), self._walk_fill)
        return candidates[j]

    def _rows_past(self, i: int, M: int, N: int, K: int) -> int:
        """tiles.walk_rows_past_m for entry i's kernel, kept per shape (choose() runs on every call, and working it
        out takes ~15 us; a serving loop calls few shapes)."""
        key, seen = (i, M, N, K), self._rows_past_seen
        rows = seen.get(key)
        if rows is not None:
            seen.move_to_end(key)
            return rows
        from .tiles import walk_rows_past_m

        if len(seen) >= ROWS_PAST_KEPT:
            seen.popitem(last=False)
        rows = seen[key] = walk_rows_past_m(self.kernels[i].spec, M, N, K)
        return rows

    def _check_gpu(self):
        self._gpu_checked = True
        name = gpu_name()
        if self.record["gpu"] is None:  # the built-in plan: entries this GPU model runs another tile for
            from .tuning import label

            kernels, winners = list(self.kernels), list(self.record["winners"])
            for i, w in enumerate(winners):
                model = model_of(w.get("instead_on"), name)
                if model is None:
                    continue
                kernels[i] = self.default if w["instead_on"][model] is None else self._instead[i][model]
                if kernels[i] is self.default:  # wave fill was measured against the entry's own tile
                    self._fills[i] = []
                kind = "default (auto)" if kernels[i] is self.default else label(kernels[i].spec)
                winners[i] = {**w, "tile": w["instead_on"][model],
                              "label": f"{kind} in place of {w['label']} on {name}"}
            self.kernels, self.record = kernels, {**self.record, "winners": winners}
            return
        if name != self.record["gpu"]:
            warnings.warn(f"the tuning record for {self.default.spec.name or self.default.spec.key} was made on "
                          f"{self.record['gpu']}, not on this {name}; running the default tile (re-run tune here)",
                          stacklevel=caller_stacklevel())
            self.kernels, self.limits, self.n_mins, self.k_maxes, self._nk_maxes = [], [], [], [], []

    @property
    def op(self):
        """This per-shape kernel as one torch.library custom op, which chooses the tile by the call's shape when it
        runs. A torch.compile graph (or a jit.trace) holds it for every M: choosing while tracing made each bucket a
        guard and a recompile, and past torch's 8 recompiles the whole compiled function ran eagerly."""
        if self._op is None:
            from .runtime import _register_op

            key = json.dumps([self.limits, self.n_mins, self.k_maxes, self._nk_maxes, self.record["gpu"],
                              [k.op_name for k in self.kernels], [[k.op_name for k in f] for f in self._fills]],
                             default=str)
            name = f"{self.default.op_name}_d{hashlib.sha256(key.encode()).hexdigest()[:12]}"
            self._op = _register_op(self.default, name, lambda M, N, K: self.choose(M, N, K))
        return self._op

    def __call__(self, a, b, c=None, *, out=None, **inputs):
        torch = sys.modules.get("torch")
        if torch is not None and (torch.compiler.is_compiling() or torch._C._is_tracing()):
            return self.op(a, b, c, out=out, **inputs)
        shape_a, shape_b = getattr(a, "shape", None), getattr(b, "shape", None)
        M, K = shape_a if shape_a is not None and len(shape_a) == 2 else (None, None)
        N = shape_b[1] if shape_b is not None and len(shape_b) == 2 else None
        kernel = (self.choose(M, N if isinstance(N, int) else None, K if isinstance(K, int) else None)
                  if isinstance(M, int) else self.default)
        return kernel(a, b, c, out=out, **inputs)

    def __repr__(self):
        def limits(lim, n, k, weights_max):
            return (f"M<={lim:.0f}{f' N>={n:.0f}' if n else ''}{f' K<={k:.0f}' if k else ''}"
                    f"{f' weights<={weights_max / 2**20:.0f}MiB' if weights_max else ''}")
        def wave_fill(fills):
            from .tiles import PADDED_WALK_FILL_ON, WAVE_FILL_MAX_M
            from .tuning import label

            if not fills:
                return ""
            where = "where M is ragged"
            if self._fill_by_waves:  # wave_fill_choice: a twin (fitted_tail) never by waves
                where += (" or the walk pads rows past M" if fills[0].spec.tile.fitted_tail else
                          f", or M>{WAVE_FILL_MAX_M} on an {'/'.join(PADDED_WALK_FILL_ON)} and the walk pads rows past "
                          f"M, or M<={WAVE_FILL_MAX_M} and it fills the waves better")
            return f" ({where}: {' or '.join(label(k.spec) for k in fills)})"

        tiles = ", ".join(f"{limits(lim, n, k, w.get('weights_max', 0))}: {w['label']}{wave_fill(f)}"
                          for lim, n, k, w, f in zip(self.limits, self.n_mins, self.k_maxes, self.record["winners"],
                                                     self._fills))
        return f"<cutlassgen.DispatchKernel {self.default.spec.name or self.default.spec.key} [{tiles}]>"


def tuned(default, target_arch: int, build_many):
    """default wrapped in a DispatchKernel when a tuning record exists for its spec; else default."""
    spec = default.spec
    if not tile_is_auto(spec):
        return default
    record = read_record(spec, target_arch)
    if record is None:
        return default
    try:
        variants = [dataclasses.replace(spec, tile=tile_from_dict(w["tile"])) for w in record["winners"]]
        kernels = build_many(variants, arch=target_arch)
    except (SpecError, BuildError, TypeError, KeyError) as e:  # a record from another version, a failed build
        warnings.warn(f"ignoring the tuning record {record_path(spec, target_arch)}: its tiles do not build here "
                      f"({type(e).__name__}: {str(e).splitlines()[0]}); running the default tile",
                      stacklevel=caller_stacklevel())
        return default
    fills = tuned_fills(spec, record, variants)
    if not any(fills):
        return DispatchKernel(default, record, kernels)
    try:
        built = iter(build_many([f for per_winner in fills for f in per_winner], arch=target_arch))
    except (SpecError, BuildError) as e:  # the tuned tiles still run, without the ragged-M tile
        warnings.warn(f"the ragged-M tile for the tuning record {record_path(spec, target_arch)} does not build here "
                      f"({type(e).__name__}: {str(e).splitlines()[0]}); ragged M runs the tuned tiles",
                      stacklevel=caller_stacklevel())
        return DispatchKernel(default, record, kernels)
    return DispatchKernel(default, record, kernels, fill_kernels=[[next(built) for _ in f] for f in fills])


def tuned_fills(spec: GemmSpec, record: dict, variants: list) -> list[list[GemmSpec]]:
    """Per winner of a tuning record (variants: its specs), the specs its calls run at ragged M (tiles.
    tuned_ragged_tiles): the wide-N pingpong tile ran 0.70x cuBLASLt fused on a bare activation at 2000 and 4000 x
    14336 x 4096 and the plan's 128x224 coop 0.94-0.96x (bench/results/h100_session107.log), a loss a tuning at M a
    multiple of 128 does not see."""
    from .tiles import tuned_ragged_tiles

    return [[dataclasses.replace(spec, tile=t) for t in tuned_ragged_tiles(spec, *w["shape"], variant.tile)]
            for w, variant in zip(record["winners"], variants)]


def check_shapes(shapes, spec: GemmSpec | None = None) -> list[tuple[int, int, int]]:
    """shapes as (M, N, K) tuples of positive ints; with spec, each one a problem its kernel can run
    (validate.check_problem_shape: every tensor's contiguous extent a multiple of its alignment)."""
    from .validate import check_problem_shape

    try:
        sizes = [tuple(int(x) for x in s) for s in shapes]
        ok = bool(sizes) and all(len(s) == 3 and min(s) > 0 for s in sizes)
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise SpecError("shapes", shapes, "must be a non-empty list of (M, N, K) problem sizes, each positive",
                        "e.g. [(32, 8192, 8192), (4096, 8192, 8192)]")
    if spec is not None:
        for M, N, K in sizes:
            check_problem_shape(spec, M, N, K)
    return sizes


# build() keys its memo by these classes on every call; working out a tile (where K or the weights' size can matter)
# takes ~0.1 ms, so a model's repeated shapes are looked up
@functools.lru_cache(maxsize=4096)
def plan_class(spec: GemmSpec, M: int, N: int, K: int) -> tuple[int, int, int, int]:
    """(M bucket, n_min, k_max, weights_max) of a problem in the per-shape plan: tiles.plan_shape_class; k_max the
    depth up to which its tile was chosen (tiles.OPAQUE_PIPELINE_MAX_K where shape_tile set opaque_pipeline for this
    K; else 0); weights_max the bytes of weights up to which it was (tiles.WEIGHTS_FIRST_MIN_BYTES where the tile goes
    without weights_evict_first only for the weights' size; else 0)."""
    from .tiles import (OPAQUE_PIPELINE_MAX_K, WEIGHTS_FIRST_MIN_BYTES, may_take_opaque_pipeline,
                        may_take_weights_first, plan_shape_class, shape_tile, weights_bytes, weights_first_tile)

    # the tile is worked out only where K or the weights' size can matter
    deep = light = False
    if may_take_opaque_pipeline(spec, K) or (may_take_weights_first(spec, M)
                                             and weights_bytes(spec, N, K) <= WEIGHTS_FIRST_MIN_BYTES):
        tile = shape_tile(spec, M, N, K)
        deep = getattr(tile, "opaque_pipeline", False)
        light = tile is not None and weights_first_tile(spec, tile, M) is not tile  # it would at a larger size
    return (*plan_shape_class(spec, M, N), OPAQUE_PIPELINE_MAX_K if deep else 0,
            WEIGHTS_FIRST_MIN_BYTES if light else 0)


def heuristic_record(spec: GemmSpec, shapes) -> dict | None:
    """The per-shape plan for shapes: one entry per M bucket, N class, K class and weights class (plan_class) that
    they fall in, with its tile (tiles.shape_tile; tile None: the spec's default), neighbours with the same tile
    merged; within a bucket the widest N class ("n_min") comes first, and within a class the entry for K up to k_max,
    or for weights of up to weights_max bytes, before the one for any. A call that no entry of its bucket takes (an M
    between the buckets used, an N below the classes, a K above the k_max, larger weights) goes to the next larger
    one; above all of them, to the last. None when every shape keeps the default tile and no entry has tiles a call
    may run in its place (wave_fill: tiles.wave_fill_tiles)."""
    from .tiles import BUCKET_UPPER, instead_on, shape_tile, wave_fill_tiles
    from .tuning import label

    first = {}
    for M, N, K in check_shapes(shapes, spec):
        first.setdefault(plan_class(spec, M, N, K), [M, N, K])
    winners, limits = [], []
    for bucket, n_min, k_max, weights_max in sorted(first, key=lambda c: (c[0], -c[1], not c[2], not c[3])):
        M, N, K = first[(bucket, n_min, k_max, weights_max)]
        tile = shape_tile(spec, M, N, K)
        as_dict = None if tile is None else tile_to_dict(tile)
        upper = BUCKET_UPPER[bucket]
        instead = {model: None if t is None else tile_to_dict(t) for model, t in instead_on(spec, M, N, tile).items()}
        fills = [tile_to_dict(t) for t in wave_fill_tiles(spec, M, N, tile)]
        if (winners and winners[-1]["tile"] == as_dict and winners[-1].get("n_min", 0) == n_min
                and winners[-1].get("k_max", 0) == k_max and winners[-1].get("weights_max", 0) == weights_max
                and winners[-1].get("instead_on", {}) == instead and winners[-1].get("wave_fill", []) == fills):
            limits[-1] = upper
            continue
        winners.append({"shape": [M, N, K], "tile": as_dict,
                        "label": "default (auto)" if tile is None else label(dataclasses.replace(spec, tile=tile)),
                        **({"n_min": n_min} if n_min else {}), **({"k_max": k_max} if k_max else {}),
                        **({"weights_max": weights_max} if weights_max else {}),
                        **({"instead_on": instead} if instead else {}), **({"wave_fill": fills} if fills else {})})
        limits.append(upper)
    if all(w["tile"] is None and not w.get("wave_fill") for w in winners):
        return None
    limits[-1] = None
    return {"version": RECORD_VERSION, "spec_key": spec.key, "source": "heuristic", "gpu": None, "winners": winners,
            "limits": [math.inf if lim is None else lim for lim in limits]}


def _variant_tiles(record: dict):
    """(entry index, role, tile dict) for each tile a heuristic record needs compiled besides the spec's default:
    each entry's own (role None), then those GPU models run in its place (instead_on; role the model), then those a
    call runs at ragged M or where they fill the GPU's waves better (wave_fill; role the tile's index there). One
    order for heuristic_variants and with_heuristic."""
    for i, w in enumerate(record["winners"]):
        if w["tile"]:
            yield i, None, w["tile"]
        for model, tile in w.get("instead_on", {}).items():
            if tile:
                yield i, model, tile
        for j, tile in enumerate(w.get("wave_fill", [])):
            yield i, j, tile


def heuristic_variants(spec: GemmSpec, record: dict | None) -> list:
    """The specs a heuristic record needs compiled besides spec itself (its tiles that are not the default, and those
    some GPU models run in their place: every model's, so that AOT builds and pickles carry them); none for the None
    of heuristic_record, where every shape runs the spec's own tile."""
    if record is None:
        return []
    return [dataclasses.replace(spec, tile=tile_from_dict(tile)) for _, _, tile in _variant_tiles(record)]


def with_heuristic(default, record: dict | None, variant_kernels: list):
    """default and the kernels of heuristic_variants(record), in the record's order, as one DispatchKernel; default
    itself where record is None."""
    if record is None:
        return default
    kernels = [default] * len(record["winners"])
    instead = [{} for _ in record["winners"]]
    fills = [[] for _ in record["winners"]]
    for (i, role, _), kernel in zip(_variant_tiles(record), variant_kernels, strict=True):
        if role is None:
            kernels[i] = kernel
        elif isinstance(role, int):
            fills[i].append(kernel)
        else:
            instead[i][role] = kernel
    return DispatchKernel(default, record, kernels, instead, fills)


def with_shape_variants(specs: list, shapes) -> list:
    """specs, each all-"auto" one followed by the per-shape variants build(spec, shapes=shapes) would compile (for
    `cutlassgen build --shape` and AOT manifests, so that those builds find them in the cache or prebuilt)."""
    out = []
    for spec in specs:
        out.append(spec)
        record = heuristic_record(spec, shapes) if shapes and tile_is_auto(spec) else None
        if record is not None:
            out.extend(heuristic_variants(spec, record))
    return out


def gpu_name() -> str | None:
    """torch's name for the current GPU, which tuning records and tiles.instead_on are matched against; None without
    one."""
    import torch

    return torch.cuda.get_device_name() if torch.cuda.is_available() else None


def sm_count() -> int | None:
    """The current GPU's number of SMs, over which tiles.wave_fill counts waves; None without one."""
    import torch

    if not torch.cuda.is_available():
        return None
    return torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count


def model_of(models, name: str | None) -> str | None:
    """The first of models (GPU-name substrings: tiles.instead_on) that the GPU named name (torch's device name; None:
    none seen) is, or None."""
    return next((model for model in models or () if name and model in name), None)


def planned_tile(spec: GemmSpec, M: int, N: int | None, K: int | None = None, gpu: str | None = None,
                 sms: int | None = None):
    """The per-shape tile build(spec, shapes=...) runs at M x N (x K) on the GPU named gpu with sms SMs:
    tiles.shape_tile's, or the one that GPU model runs in its place (tiles.instead_on), or the one it runs at ragged M
    or where that fills the waves better (tiles.wave_fill_tiles), or None (the spec's own) where there is none."""
    from .tiles import (PADDED_WALK_FILL_ON, instead_on, resolve, shape_tile, walk_rows_past_m, wave_fill_choice,
                        wave_fill_tiles)

    tile = shape_tile(spec, M, N, K)
    instead = instead_on(spec, M, N, tile)
    model = model_of(instead, gpu)
    own = tile if model is None else instead[model]
    # a model that runs the default in the entry's place runs no fill either (DispatchKernel._check_gpu)
    fills = wave_fill_tiles(spec, M, N, tile) if own is not None or model is None else []
    if not fills:
        return own
    specs = [spec if t is None else dataclasses.replace(spec, tile=t) for t in (own, *fills)]
    j = wave_fill_choice(M, N, [resolve(s).cta for s in specs], sms,
                         rows_past=None if K is None else lambda: walk_rows_past_m(specs[0], M, N, K),
                         walk_fill=model_of(PADDED_WALK_FILL_ON, gpu) is not None)
    return own if j == 0 else fills[j - 1]


def per_shape_hint(spec: GemmSpec, M: int, N: int, K: int) -> str | None:
    """What the default kernel of an all-"auto" spec says, once, when it runs a shape that has a per-shape tile (a
    small M, or on sm90 a large M with wide N) on this GPU (planned_tile)."""
    from .tuning import label

    if not tile_is_auto(spec):
        return None
    tile = planned_tile(spec, M, N, K, gpu_name(), sm_count())
    if tile is None:
        return None
    depth = f", K={K}" if getattr(tile, "opaque_pipeline", False) else ""  # K chose it
    return (f"{spec.name or spec.key}: M={M}, N={N}{depth} runs the default tile; build(spec, shapes=[({M}, {N}, "
            f"{K}), ...]) adds the per-shape tile {label(spec.replace(tile=tile))} for it, or `cutlassgen tune` picks "
            "one on this GPU (README: Tile defaults)")
