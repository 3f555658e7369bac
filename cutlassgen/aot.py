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

import itertools
import pathlib
import shutil
import tomllib

from .dispatch import check_shapes, with_shape_variants
from .errors import SpecError
from .spec import GemmSpec, load_spec


def read_manifest(path) -> list[tuple[GemmSpec, list[int]]]:
    path = pathlib.Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise SpecError("manifest", str(path), f"cannot be read as TOML: {e}") from None
    archs = _archs(data.get("archs", [80, 90]), "manifest.archs")
    out = []
    for i, entry in enumerate(_tables(data, "spec")):
        own = _archs(entry.pop("archs", archs), f"manifest.spec[{i}].archs")
        shapes = entry.pop("shapes", None)
        spec = load_spec(path.parent / entry["file"]) if "file" in entry else GemmSpec.from_dict(entry)
        out.extend(_with_targets(spec, own, shapes, f"manifest.spec[{i}]"))
    for i, entry in enumerate(_tables(data, "matrix")):
        own = _archs(entry.pop("archs", archs), f"manifest.matrix[{i}].archs")
        vary = entry.pop("vary", {})
        shapes = entry.pop("shapes", None)
        if not isinstance(vary, dict) or not vary or not all(isinstance(v, list) and v for v in vary.values()):
            raise SpecError(f"manifest.matrix[{i}].vary", vary, "must map dotted fields to non-empty lists",
                            "e.g. vary = {\"d.dtype\" = [\"bf16\", \"fp16\"]}")
        base = load_spec(path.parent / entry.pop("file")).to_dict() if "file" in entry else entry
        for values in itertools.product(*vary.values()):
            d = _deep_copy(base)
            for dotted, value in zip(vary, values):
                _set_dotted(d, dotted, value)
            out.extend(_with_targets(GemmSpec.from_dict(d), own, shapes, f"manifest.matrix[{i}]"))
    if not out:
        raise SpecError("manifest.spec", None, "lists no specs", "add [[spec]] tables with file = '...'")
    return out


def _archs(value, where: str) -> list[int]:
    if not isinstance(value, list) or not value or not all(isinstance(a, int) and not isinstance(a, bool)
                                                           for a in value):
        raise SpecError(where, value, "must be a list of compute capabilities", "e.g. [80, 90]")
    return value


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
        check_shapes(shapes, spec)
    return [(s, chosen) for s in with_shape_variants([spec], shapes)]


def _deep_copy(d):
    return {k: _deep_copy(v) if isinstance(v, dict) else (list(v) if isinstance(v, list) else v)
            for k, v in d.items()}


def _set_dotted(d: dict, dotted: str, value) -> None:
    *parents, leaf = dotted.split(".")
    for key in parents:
        node = d.get(key)
        if not isinstance(node, dict):
            node = d[key] = {}
        d = node
    d[leaf] = value


def targets(spec: GemmSpec, archs: list[int]) -> list[int]:
    """The manifest's archs this spec can be compiled for."""
    if spec.resolved_path == "sm90":
        return [a for a in archs if a == 90]
    return [a for a in archs if a >= spec.arch]


def build_prebuilt(manifest, out, jobs: int | None = None) -> pathlib.Path:
    from . import prebuilt
    from .jit import MODULE_FILE, build_many, cache, plan

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
