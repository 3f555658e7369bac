"""The content-addressed kernel cache.

Layout: <root>/sm<arch>/<key>/ holding kernel.cu, the module, build.log, meta.json and COMPLETE (the module's
sha256). An entry is a hit only if COMPLETE exists and matches the module's bytes; anything else is a miss and is
rebuilt. Entries appear by renaming a finished private folder into place, so a reader never sees half of one.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shutil
import time

from filelock import FileLock, Timeout

from ..errors import BuildError

COMPLETE = "COMPLETE"
META = "meta.json"


def cache_root() -> pathlib.Path:
    env = os.environ.get("CUTLASSGEN_CACHE_DIR")
    if env:
        return pathlib.Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "cutlassgen"


def entry_dir(key: str, target_arch: int, root: pathlib.Path | None = None) -> pathlib.Path:
    return (root or cache_root()) / f"sm{target_arch}" / key


def file_digest(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def lookup(entry: pathlib.Path, module_file: str) -> pathlib.Path | None:
    """The module path if the entry is complete and intact, else None."""
    marker = entry / COMPLETE
    module = entry / module_file
    try:
        expected = marker.read_text().strip()
        if expected and file_digest(module) == expected:
            return module
    except OSError:
        pass
    return None


def resume_dir(key: str, target_arch: int, root: pathlib.Path | None = None) -> pathlib.Path:
    """The staging folder of one key's build, on the cache's file system so that publishing it is one atomic rename.
    An interrupted build (Ctrl-C, a killed job) leaves it in place, and the next build of the key (under its lock)
    reuses the steps that finished; `cutlassgen cache clean` removes it."""
    tmp = (root or cache_root()) / "tmp"
    path = tmp / f"resume-sm{target_arch}-{key}"
    path.mkdir(parents=True, exist_ok=True)
    return path


def publish(staging: pathlib.Path, entry: pathlib.Path, module_file: str, meta: dict) -> pathlib.Path:
    """Seal a finished build (meta, then COMPLETE) and rename it into place, replacing a broken entry."""
    (staging / META).write_text(json.dumps(meta, indent=2, sort_keys=True))
    (staging / COMPLETE).write_text(file_digest(staging / module_file))
    entry.parent.mkdir(parents=True, exist_ok=True)
    if entry.exists():  # a stale or corrupt entry (we hold the key's lock): move it aside, then remove it
        trash = entry.parent / f".trash-{entry.name}-{os.getpid()}-{time.monotonic_ns()}"
        os.rename(entry, trash)
        shutil.rmtree(trash, ignore_errors=True)
    os.rename(staging, entry)
    return entry / module_file


def lock_timeout() -> float:
    return float(os.environ.get("CUTLASSGEN_LOCK_TIMEOUT", "900"))


def key_lock(key: str, target_arch: int, root: pathlib.Path | None = None) -> FileLock:
    """A per-key flock: the OS drops it when its holder dies, so a killed build never blocks the next one."""
    locks = (root or cache_root()) / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    return FileLock(str(locks / f"sm{target_arch}-{key}.lock"), timeout=lock_timeout())


def acquire(lock: FileLock, what: str) -> None:
    try:
        lock.acquire()
    except Timeout:
        raise BuildError(f"waited {lock.timeout:.0f} s for another process building {what} (lock {lock.lock_file}); "
                         "it is still alive and compiling. Raise CUTLASSGEN_LOCK_TIMEOUT or try again.",
                         "", "", "", []) from None


def entries(root: pathlib.Path | None = None):
    """Every entry folder (complete or not) under the cache root."""
    root = root or cache_root()
    if not root.is_dir():
        return []
    return sorted(p for arch in root.glob("sm*") if arch.is_dir() for p in arch.iterdir()
                  if p.is_dir() and not p.name.startswith("."))


def read_meta(entry: pathlib.Path) -> dict:
    try:
        return json.loads((entry / META).read_text())
    except (OSError, ValueError):
        return {}
