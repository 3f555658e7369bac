"""GemmSpec: the user's description of one fused GEMM. Frozen, hashable, dict/TOML round trip, stable hash.

Construction normalizes spellings and runs every validation rule (cutlassgen.validate), so a GemmSpec that
exists is one that lowers, renders and compiles.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import MISSING, dataclass, fields
from typing import Optional, Union

from . import epilogue as epi
from .dtypes import ALIASES, DTYPES
from .errors import SpecError, choose, did_you_mean, is_int

AUTO = "auto"
LAYOUTS = ("row", "column")
_LAYOUT_ALIASES = {"row_major": "row", "rowmajor": "row", "r": "row", "t": "row",
                   "col": "column", "column_major": "column", "colmajor": "column", "c": "column", "n": "column"}


def _shape(field_name: str, value, example: tuple):
    """A tuple of len(example) positive ints, or 'auto'."""
    if value == AUTO or value is None:
        return AUTO
    if isinstance(value, (list, tuple)) and len(value) == len(example) and all(
            is_int(v) and v > 0 for v in value):
        return tuple(int(v) for v in value)
    raise SpecError(field_name, value, f"must be {len(example)} positive integers or 'auto'", f"e.g. {example}")


def _int_or_auto(field_name: str, value, lo: int = 1):
    if value == AUTO or value is None:
        return AUTO
    if is_int(value) and value >= lo:
        return value
    raise SpecError(field_name, value, f"must be an integer >= {lo} or 'auto'")


@dataclass(frozen=True)
class Operand:
    dtype: str
    layout: str = "row"
    alignment: Union[int, str] = AUTO  # elements; auto = the widest the dtype allows (128 bits)

    def normalized(self, name: str) -> "Operand":
        dtype = choose(f"{name}.dtype", self.dtype, DTYPES, ALIASES)
        layout = choose(f"{name}.layout", self.layout, LAYOUTS, _LAYOUT_ALIASES)
        alignment = _int_or_auto(f"{name}.alignment", self.alignment)
        return Operand(dtype, layout, alignment)


@dataclass(frozen=True)
class Sm80Tile:
    """The 2.x path (mma.sync + cp.async), for sm80/86/89 and, compiled for it, sm90."""
    threadblock: Union[tuple, str] = AUTO
    warp: Union[tuple, str] = AUTO
    instruction: Union[tuple, str] = AUTO
    stages: Union[int, str] = AUTO
    swizzle: int = 1  # threadblock swizzle log-tile (1, 2, 4, 8)
    split_k: int = 1  # serial split-K slices
    path = "sm80"

    def normalized(self) -> "Sm80Tile":
        return Sm80Tile(_shape("tile.threadblock", self.threadblock, (128, 128, 32)),
                        _shape("tile.warp", self.warp, (64, 64, 32)),
                        _shape("tile.instruction", self.instruction, (16, 8, 16)),
                        _int_or_auto("tile.stages", self.stages, 2),
                        _int_or_auto("tile.swizzle", self.swizzle), _int_or_auto("tile.split_k", self.split_k))


MAINLOOPS = ("auto", "cooperative", "pingpong")
EPILOGUE_SCHEDULES = ("auto", "tma")
# stream_k: CUTLASS's heuristic decomposition, which stays data-parallel unless the last wave is under half full;
# stream_k_always: the last one to two waves' tiles split into equal K shares over every SM whatever the tail.
SCHEDULERS = ("persistent", "stream_k", "stream_k_always")
# The schedulers a pdl=True kernel compiles with: CUTLASS 4.2's StreamKScheduler::is_last_tile (called only under grid
# dependency control) binds a member of a const object to a non-const reference, and nvcc rejects it (H200, session 7)
PDL_SCHEDULERS = ("persistent",)
RASTERS = ("auto", "along_m", "along_n")


@dataclass(frozen=True)
class Sm90Tile:
    """The 3.x path (wgmma + TMA + clusters, sm_90a)."""
    cta: Union[tuple, str] = AUTO
    cluster: Union[tuple, str] = AUTO
    mainloop: str = "auto"
    epilogue: str = "auto"
    scheduler: str = "persistent"
    stages: Union[int, str] = AUTO
    raster: str = "auto"
    swizzle: Union[int, str] = AUTO  # scheduler strip: widest up to 1, 2, 4 or 8 that pads nothing; auto: up to 8
    fp8_fast_accum: bool = False  # fp8 only: accumulate in the tensor core's reduced precision, no promotion
    split_k: int = 1  # K slices reduced in the kernel (stream-K scheduler's split-K decomposition)
    swap_ab: bool = False  # compute D^T = B^T A^T: the CTA's M tiles N, its N tiles M (small-M decode)
    # (M, N) of the subtile the epilogue stores per step; auto: CUTLASS's choice (128x32 cooperative, 64x32 pingpong)
    epilogue_tile: Union[tuple, str] = AUTO
    # programmatic dependent launch: the kernel may be scheduled while the previous kernel on the stream finishes,
    # and waits (griddepcontrol.wait) before touching global memory; saves the launch gap between back-to-back kernels
    pdl: bool = False
    # exact fp8 only (fp8 operands without fp8_fast_accum, CTA K 128: csrc/cutlassgen/full_promotion.hpp): the k-tile
    # loop's pipeline state passes through a shuffle ptxas cannot see through, and ptxas schedules the loop otherwise.
    # Same output bit for bit; on the H200 +0.4-7.5% on the 128x128 cooperative tiles at K <= 2048, mixed from 3072
    # (bench/tile_probe.py opaquek). The per-shape plan sets it there (tiles.OPAQUE_PIPELINE_MAX_K).
    opaque_pipeline: bool = False
    # the mainloop loads the weights (B) with the L2 policy EVICT_FIRST, so that the lines they bring in replace each
    # other before lines the previous kernel left, such as its dirty output (else CUTLASS's loads). On the H200, with
    # 48 MiB of weights or more, the unswapped tiles at 112-256 rows ran 0.3-9.1% faster warm and the swapped decode
    # tile 2-5%, level with the L2 flushed; with 40 MiB or less, which stay in L2 between calls without it, up to
    # 15% slower warm (tile_probe.py weights256 to weights128c, warm_weights_policy.py). The per-shape plan sets it
    # where the weights take over 36 MiB (with its first 16 MiB kept in L2, lower.WEIGHTS_KEEP_MIB, 40 MiB of weights
    # ran 1.2-9.7% faster warm on the H200, session 93), on swapped tiles and on unswapped ones at 97-256 rows
    # (tiles.WEIGHTS_FIRST_MIN_BYTES, WEIGHTS_FIRST_ROWS).
    weights_evict_first: bool = False
    # where M ends inside the last row of token tiles (ragged M), that row loads its activation rows in one TMA box
    # fitted to them, not in a box of the tile's rows that runs past a bare activation tensor's end (else
    # lower.TAIL_LOADS decides: swapped tiles and 64-row ones). On an H100, fp8 fast accumulation's 128x128 pingpong
    # ran 1.05-1.38x faster with it at 704-8000 ragged rows, but up to 3.5% slower where M fills its tiles
    # (tile_probe.py raggedother); on the H200 that tile lost nothing at ragged M and the twin ran 0.997-1.030x it
    # (fittedtwin). So the per-shape plan compiles it as a twin that calls run at ragged M only (tiles.fitted_twin).
    fitted_tail: bool = False
    path = "sm90"

    def normalized(self) -> "Sm90Tile":
        return Sm90Tile(_shape("tile.cta", self.cta, (128, 256, 64)), _shape("tile.cluster", self.cluster, (2, 1, 1)),
                        choose("tile.mainloop", self.mainloop, MAINLOOPS,
                               {"ping-pong": "pingpong", "ping_pong": "pingpong"}),
                        choose("tile.epilogue", self.epilogue, EPILOGUE_SCHEDULES),
                        choose("tile.scheduler", self.scheduler, SCHEDULERS,
                               {"streamk": "stream_k", "stream-k": "stream_k", "stream-k-always": "stream_k_always"}),
                        _int_or_auto("tile.stages", self.stages, 2), choose("tile.raster", self.raster, RASTERS),
                        _int_or_auto("tile.swizzle", self.swizzle), _bool("tile.fp8_fast_accum", self.fp8_fast_accum),
                        _int_or_auto("tile.split_k", self.split_k), _bool("tile.swap_ab", self.swap_ab),
                        _shape("tile.epilogue_tile", self.epilogue_tile, (128, 64)), _bool("tile.pdl", self.pdl),
                        _bool("tile.opaque_pipeline", self.opaque_pipeline),
                        _bool("tile.weights_evict_first", self.weights_evict_first),
                        _bool("tile.fitted_tail", self.fitted_tail))


# Tile fields added after specs were keyed, with their defaults: left out of to_dict() while at the default, so that
# every spec written before them keeps its key (and its cache entries and tuning records).
_KEYLESS_DEFAULTS = {"epilogue_tile": AUTO, "pdl": False, "opaque_pipeline": False, "weights_evict_first": False,
                     "fitted_tail": False}


def tile_to_dict(tile) -> dict:
    """A tile's fields as JSON values: the one spelling used in spec keys and in tuning records."""
    return {f.name: (list(v) if isinstance(v := getattr(tile, f.name), tuple) else v) for f in fields(tile)
            if f.name not in _KEYLESS_DEFAULTS or getattr(tile, f.name) != _KEYLESS_DEFAULTS[f.name]}


def _bool(field_name: str, value) -> bool:
    if isinstance(value, bool):
        return value
    raise SpecError(field_name, value, "must be true or false")


@dataclass(frozen=True)
class GemmSpec:
    """D = epilogue(A @ B [, C]). A is (M, K), B is (K, N), C and D are (M, N).

    B 'column' layout means K is contiguous: an nn.Linear weight W[N, K] passed as W.t().
    path: 'auto' takes the sm90 (wgmma) path on arch 90 and the sm80 path elsewhere; 'sm80' forces the 2.x path.
    """
    arch: int
    a: Operand
    b: Operand
    d: Operand
    c: Optional[Operand] = None
    accumulator: str = AUTO
    compute: str = "fp32"
    tile: Union[Sm80Tile, Sm90Tile, None] = None
    epilogue: tuple = ()
    path: str = AUTO
    name: str = ""

    def __post_init__(self):
        from .validate import validate  # rules live there; construction runs them all

        if not is_int(self.arch):
            raise SpecError("arch", self.arch, "must be an integer compute capability", "one of 80, 86, 89, 90")
        for nm in ("a", "b", "d", "c"):
            op = getattr(self, nm)
            if op is None and nm == "c":
                continue
            if isinstance(op, dict):
                op = Operand(**_only(op, Operand, nm))
            elif isinstance(op, str):
                op = Operand(op)
            if not isinstance(op, Operand):
                raise SpecError(nm, op, "must be an Operand, a dict or a dtype name", "e.g. Operand('bf16', 'row')")
            object.__setattr__(self, nm, op.normalized(nm))
        object.__setattr__(self, "path", choose("path", self.path, ("auto", "sm80", "sm90")))
        object.__setattr__(self, "compute", choose("compute", self.compute, ("fp32",), ALIASES))
        if self.accumulator != AUTO:
            object.__setattr__(self, "accumulator", choose("accumulator", self.accumulator, ("fp32", "int32"), ALIASES))
        chain = self.epilogue
        if not isinstance(chain, (list, tuple)):
            raise SpecError("epilogue", chain, "must be a list of epilogue steps", "e.g. [Add('per_col', 'bias')]")
        object.__setattr__(self, "epilogue", tuple(epi.node_from_dict(n, i) for i, n in enumerate(chain)))
        tile = self.tile
        if isinstance(tile, dict):
            cls = Sm90Tile if self.resolved_path == "sm90" else Sm80Tile
            tile = cls(**_only(tile, cls, "tile"))
        if tile is None:
            tile = Sm90Tile() if self.resolved_path == "sm90" else Sm80Tile()
        if not isinstance(tile, (Sm80Tile, Sm90Tile)):
            raise SpecError("tile", tile, "must be an Sm80Tile, an Sm90Tile or a dict")
        object.__setattr__(self, "tile", tile.normalized())
        if not isinstance(self.name, str):
            raise SpecError("name", self.name, "must be a string")
        if not self.name.isprintable():  # a newline in it broke the build's ninja file, failing the whole batch
            raise SpecError("name", self.name, "must be one line of printable characters (it labels the kernel in "
                            "build logs and progress lines)", "e.g. name = 'llama_up_proj'")
        validate(self)

    @property
    def resolved_path(self) -> str:
        if self.path != AUTO:
            return self.path
        return "sm90" if self.arch == 90 else "sm80"

    # ---- serialization -------------------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        def op(o):
            return None if o is None else {"dtype": o.dtype, "layout": o.layout, "alignment": o.alignment}

        tile = tile_to_dict(self.tile)
        d = {"arch": self.arch, "path": self.path, "a": op(self.a), "b": op(self.b), "c": op(self.c), "d": op(self.d),
             "accumulator": self.accumulator, "compute": self.compute, "tile": tile,
             "epilogue": [epi.node_to_dict(n) for n in self.epilogue], "name": self.name}
        if d["c"] is None:
            del d["c"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "GemmSpec":
        if not isinstance(d, dict):
            raise SpecError("spec", d, "must be a dict")
        return cls(**_only(d, cls, "spec"))

    def canonical_json(self) -> str:
        """One spelling per spec: the key of every cache and index."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"), allow_nan=True)

    @property
    def key(self) -> str:
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:20]

    def replace(self, **changes) -> "GemmSpec":
        d = self.to_dict()
        d.update(changes)
        return GemmSpec.from_dict(d)


def _only(d: dict, cls, where: str) -> dict:
    """d's keys checked against cls's fields: none unknown, none of the required ones missing."""
    known = {f.name for f in fields(cls)}
    for k in d:
        if k not in known:
            raise SpecError(f"{where}.{k}", d[k], "unknown field", did_you_mean(k, sorted(known)))
    required = [f.name for f in fields(cls) if f.default is MISSING and f.default_factory is MISSING]
    for k in required:
        if k not in d:
            raise SpecError(k if where == "spec" else f"{where}.{k}", None,
                            f"missing: {cls.__name__} needs {', '.join(required)}",
                            "e.g. " + _REQUIRED_EXAMPLES.get(k, f"set {k}"))
    return dict(d)


_REQUIRED_EXAMPLES = {"arch": "arch = 90", "a": "a = {dtype = 'bf16'}", "b": "b = {dtype = 'bf16', layout = 'column'}",
                      "d": "d = {dtype = 'bf16'}", "dtype": "dtype = 'bf16'"}


def load_spec(path) -> GemmSpec:
    """Read a spec from a TOML (or JSON) file."""
    import pathlib
    import tomllib

    p = pathlib.Path(path)
    text = p.read_text()
    try:
        data = json.loads(text) if p.suffix == ".json" else tomllib.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise SpecError("file", str(p), f"is not valid {'JSON' if p.suffix == '.json' else 'TOML'}: {e}") from None
    return GemmSpec.from_dict(data)


def dump_toml(spec: GemmSpec) -> str:
    """TOML text that load_spec reads back to an equal spec."""
    d = spec.to_dict()
    out = []

    def val(v):
        if isinstance(v, str):
            return json.dumps(v)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float):
            return {float("inf"): "inf", float("-inf"): "-inf"}.get(v, repr(v))
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        return str(v)

    for k in ("arch", "path", "accumulator", "compute", "name"):
        out.append(f"{k} = {val(d[k])}")
    for k in ("a", "b", "c", "d", "tile"):
        if k in d:
            out.append(f"\n[{k}]")
            out += [f"{kk} = {val(vv)}" for kk, vv in d[k].items()]
    for node in d["epilogue"]:
        out.append("\n[[epilogue]]")
        out += [f"{kk} = {val(vv)}" for kk, vv in node.items()]
    return "\n".join(out) + "\n"
