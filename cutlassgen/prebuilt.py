"""Prebuilt kernel directories (AOT wheels, `cutlassgen aot --out DIR`), searched before the JIT cache.

A prebuilt directory holds index.json: {"<source_key>@sm<arch>": "relative/path/to/module.so", ...}. The source key
is toolchain-free (rendered source + shared C++ + flags + target), so a machine with no nvcc can find its kernel.
CUTLASSGEN_PREBUILT_DIRS (os.pathsep-separated) adds directories; the installed package's own `prebuilt/` comes
first. CUTLASSGEN_NO_JIT=1 makes a miss an error instead of a compile.
"""
from __future__ import annotations

import functools
import json
import os
import pathlib

INDEX = "index.json"


def prebuilt_dirs() -> list[pathlib.Path]:
    dirs = [pathlib.Path(__file__).resolve().parent / "prebuilt"]
    env = os.environ.get("CUTLASSGEN_PREBUILT_DIRS", "")
    dirs += [pathlib.Path(p).expanduser() for p in env.split(os.pathsep) if p]
    return dirs


@functools.lru_cache(maxsize=None)
def _read_index(directory: str) -> dict:
    try:
        index = json.loads((pathlib.Path(directory) / INDEX).read_text())
    except (OSError, ValueError):
        return {}
    # a hand-edited or foreign file: its string entries count, anything else is no entry (the JIT path builds it)
    return {k: v for k, v in index.items() if isinstance(v, str) and v} if isinstance(index, dict) else {}


def index_key(source_key: str, target_arch: int) -> str:
    return f"{source_key}@sm{target_arch}"


def find_prebuilt(source_key: str, target_arch: int) -> pathlib.Path | None:
    for d in prebuilt_dirs():
        rel = _read_index(str(d)).get(index_key(source_key, target_arch))
        if rel and (d / rel).is_file():
            return d / rel
    return None


def jit_forbidden() -> bool:
    return os.environ.get("CUTLASSGEN_NO_JIT", "") not in ("", "0", "false", "no")


def write_index(directory: pathlib.Path, entries: dict) -> None:
    """Merge entries (index key -> module path) into directory's index, paths stored relative to it."""
    directory = pathlib.Path(directory)
    index = _read_index.__wrapped__(str(directory))
    for k, path in entries.items():
        index[k] = pathlib.Path(path).resolve().relative_to(directory.resolve()).as_posix()
    tmp = directory / (INDEX + ".tmp")
    tmp.write_text(json.dumps(index, indent=1, sort_keys=True))
    os.replace(tmp, directory / INDEX)
    _read_index.cache_clear()
