"""Ahead of time: a manifest of specs -> a prebuilt directory (modules + index.json) the runtime searches first.

Manifest (TOML):

    archs = [80, 90]                 # compile targets; each spec is built for those its path can run on
    [[spec]]
    file = "specs/linear_gelu.toml"  # relative to the manifest
    archs = [90]                     # optional: this spec's own targets
    shapes = [[32, 8192, 8192]]      # optional: also the per-shape tiles build(spec, shapes=...) dispatches to
    [[spec]]                         # or a spec inline, as in a spec file
    arch = 80
    a = {dtype = "fp16"} ...
    [[matrix]]                       # a spec template crossed with lists of values
    file = "specs/linear_gelu.toml"
    vary = {"d.dtype" = ["bf16", "fp16"], "tile.cta" = [[128, 128, 64], [128, 256, 64]]}

Kernels already in the JIT cache (same key) are copied instead of compiled again.
"""
from __future__ import annotations

import contextlib
import itertools
import pathlib
import shutil
import tomllib

from .arch import ARCHS
from .dispatch import check_shapes, with_shape_variants
from .errors import SpecError, did_you_mean, is_int
from .spec import GemmSpec, load_spec


def read_manifest(path) -> list[tuple[GemmSpec, list[int]]]:
    """Each spec of the manifest file at path (and the per-shape variants of its shapes) with the archs to build it
    for; a SpecError naming the manifest's entry for anything it cannot build as written."""
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SpecError("manifest", str(path), f"cannot be read as TOML: {e}") from None
    return manifest_specs(data, path.parent)


def manifest_specs(data: dict, folder: pathlib.Path) -> list[tuple[GemmSpec, list[int]]]:
    """read_manifest of a manifest already parsed; its spec files are relative to folder."""
    _known_keys(data, ("archs", "spec", "matrix"), "manifest")
    archs = _archs(data.get("archs", [80, 90]), "manifest.archs")
    out = []
    for where, entry, own, shapes in _entries(data, "spec", archs):
        with _located(where, entry.get("file")):
            spec = _spec_file(folder, entry["file"], where) if "file" in entry else GemmSpec.from_dict(entry)
            out.extend(_with_targets(spec, own, shapes, where))
    for where, entry, own, shapes in _entries(data, "matrix", archs, also_reads=("vary",)):
        vary = entry.pop("vary", {})
        if not isinstance(vary, dict) or not vary or not all(isinstance(v, list) and v for v in vary.values()):
            raise SpecError(f"{where}.vary", vary, "must map dotted fields to non-empty lists",
                            "e.g. vary = {\"d.dtype\" = [\"bf16\", \"fp16\"]}")
        with _located(where, entry.get("file")):
            base = _spec_file(folder, entry["file"], where).to_dict() if "file" in entry else entry
            for values in itertools.product(*vary.values()):
                d = _deep_copy(base)
                for dotted, value in zip(vary, values):
                    _set_dotted(d, dotted, value, f"{where}.vary")
                out.extend(_with_targets(GemmSpec.from_dict(d), own, shapes, where))
    if not out:
        raise SpecError("manifest.spec", None, "lists no specs", "add [[spec]] tables with file = '...'")
    return out


def _entries(data: dict, name: str, archs: list[int], also_reads: tuple = ()):
    """(where, entry, its archs, its shapes) of each [[name]] table; archs and shapes taken out of the entry, which
    holds a spec's fields, or file = ... and also_reads."""
    for i, entry in enumerate(_tables(data, name)):
        where = f"manifest.{name}[{i}]"
        own = _archs(entry.pop("archs", archs), f"{where}.archs")
        shapes = entry.pop("shapes", None)
        if "file" in entry:
            _known_keys(entry, ("file", "archs", "shapes", *also_reads), where)
        yield where, entry, own, shapes


def _known_keys(table: dict, allowed: tuple, where: str) -> None:
    """A key the manifest does not read is a typo (`shape` for `shapes`, `arch` for `archs`), not something to skip."""
    for key in table:
        if key not in allowed:
            hint = did_you_mean(key, allowed)
            if where != "manifest":
                hint += " (a spec's own fields go in its file, or in a table without file = ...)"
            raise SpecError(f"{where}.{key}", table[key], "is not a manifest field here", hint)


@contextlib.contextmanager
def _located(where: str, file):
    """A SpecError from a spec in the manifest, with the entry (and file) it came from in its field."""
    try:
        yield
    except SpecError as e:
        if e.field.startswith(where):  # raised by this module, already located
            raise
        place = f"{where} ({file}): " if file is not None else f"{where}."
        raise SpecError(place + e.field, e.value, e.rule, e.fix) from None


def _spec_file(folder: pathlib.Path, file, where: str) -> GemmSpec:
    if not isinstance(file, str) or not file:
        raise SpecError(f"{where}.file", file, "must be a spec file's path, relative to the manifest",
                        "e.g. file = \"specs/linear_gelu.toml\"")
    try:
        return load_spec(folder / file)
    except OSError as e:
        raise SpecError(f"{where}.file", file, f"cannot be read ({folder / file}: {e.strerror})") from None


def _archs(value, where: str) -> list[int]:
    if not isinstance(value, list) or not value or not all(is_int(a) for a in value):
        raise SpecError(where, value, "must be a list of compute capabilities", "e.g. [80, 90]")
    for a in value:
        if a not in ARCHS:
            raise SpecError(where, value, f"{a} is no supported compile target",
                            "choose from " + ", ".join(map(str, ARCHS)))
    return list(dict.fromkeys(value))  # a target listed twice builds once


def _tables(data: dict, name: str) -> list[dict]:
    """The manifest's [[name]] tables, each as a dict of its own."""
    tables = data.get(name, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise SpecError(f"manifest.{name}", tables, f"must be [[{name}]] tables", f"write [[{name}]] above each entry")
    return [dict(t) for t in tables]


def _with_targets(spec: GemmSpec, archs: list[int], shapes, where: str) -> list[tuple[GemmSpec, list[int]]]:
    """spec and the per-shape variants of shapes (checked even where the spec's tile is not "auto"), each with the
    archs of the manifest that can run it. Where none can, an error: not a spec built for no arch."""
    chosen = targets(spec, archs)
    if not chosen:
        raise SpecError(f"{where}.archs", archs, f"none of these can run {spec.name or spec.key} "
                        f"({spec.resolved_path} path, arch {spec.arch})", "list 90 for sm90-path specs")
    if shapes is not None:
        try:
            check_shapes(shapes, spec)
        except SpecError as e:
            raise SpecError(f"{where}.{e.field}", e.value, e.rule, e.fix) from None
    return [(s, chosen) for s in with_shape_variants([spec], shapes)]


def _deep_copy(d):
    return {k: _deep_copy(v) if isinstance(v, dict) else (list(v) if isinstance(v, list) else v)
            for k, v in d.items()}


def _set_dotted(d: dict, dotted: str, value, where: str) -> None:
    """d's field at a dotted path ("tile.cta"), making the tables on the way that d lacks."""
    *parents, leaf = dotted.split(".")
    if not all(parents) or not leaf:
        raise SpecError(where, dotted, "is not a dotted field name", "e.g. \"d.dtype\" or \"tile.cta\"")
    for i, key in enumerate(parents):
        node = d.setdefault(key, {})
        if not isinstance(node, dict):
            raise SpecError(where, dotted, f"goes through {'.'.join(parents[:i + 1])}, which is not a table",
                            f"vary {'.'.join(parents[:i + 1])} itself")
        d = node
    d[leaf] = value


def targets(spec: GemmSpec, archs: list[int]) -> list[int]:
    """The manifest's archs this spec can be compiled for."""
    if spec.resolved_path == "sm90":
        return [a for a in archs if a == 90]
    return [a for a in archs if a >= spec.arch]


def build_prebuilt(manifest, out, jobs: int | None = None) -> pathlib.Path:
    from . import prebuilt
    from .jit import MODULE_FILE, build_many, cache, check_jobs, plan

    check_jobs(jobs)  # before the output folder is made and filled from the cache
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pairs = [(s, a) for s, arch_list in read_manifest(manifest) for a in arch_list]
    for spec, arch in pairs:  # reuse what the JIT cache already holds
        job = plan(spec, arch).with_cache_key()
        src = cache.entry_dir(job.key, arch)
        dst = cache.entry_dir(job.key, arch, out)
        if cache.lookup(src, MODULE_FILE) and not cache.lookup(dst, MODULE_FILE):
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copytree(src, dst, dirs_exist_ok=True)
    index = {}
    by_arch: dict[int, list] = {}
    for spec, arch in pairs:
        by_arch.setdefault(arch, []).append(spec)
    for arch, group in by_arch.items():
        paths = build_many(group, arch=arch, root=out, load=False, jobs=jobs)
        for spec, path in zip(group, paths):
            index[prebuilt.index_key(plan(spec, arch).source_key, arch)] = path
    for leftover in ("tmp", "locks", "failed"):
        shutil.rmtree(out / leftover, ignore_errors=True)
    prebuilt.write_index(out, index)
    return out
