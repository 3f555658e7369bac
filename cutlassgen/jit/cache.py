"""The content-addressed kernel cache.

Layout: <root>/sm<arch>/<key>/ holding kernel.cu, the module, build.log, meta.json and COMPLETE (the module's
sha256); <root>/device/ and <root>/host/ the parts of sm90 builds that another Python's build of a kernel reuses
(below). An entry is a hit only if COMPLETE exists and matches the module's bytes; anything else is a miss and is
rebuilt. Entries appear by renaming a finished private folder into place, so a reader never sees half of one.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import secrets
import shutil
import time
from typing import TYPE_CHECKING, NamedTuple

from ..errors import BuildError
from .toolchain import env_number

if TYPE_CHECKING:
    from filelock import FileLock

COMPLETE = "COMPLETE"
META = "meta.json"
RESUME_PREFIX = "resume-"  # tmp/resume-sm<arch>-<key>: one key's staging folder


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
    reuses the steps that finished; `cutlassgen cache prune` removes it when no build holds the key."""
    path = (root or cache_root()) / "tmp" / f"{RESUME_PREFIX}{_arch_key(key, target_arch)}"
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


# The parts of a split (sm90) build that no Python sees, kept by a key without the Python ABI or pybind11
# (jit.part_key): <root>/device/sm<arch>/<key>/ holds the device part (kernel.cubin and its ptxas log) and
# <root>/host/sm<arch>/<key>/ the host part (kernel.o, nvcc's object of the entry points, and its log), each with
# COMPLETE (the sha256 of its first file). The same kernel built for another Python (an AOT wheel per Python version,
# a second venv, the H200 machine's Python 3.12 after this machine's 3.11) compiles neither: only the binding, once,
# and the link. The kernel's object exports the C functions of csrc/cutlassgen/abi.h alone, so which host compiler
# made it does not matter to the link (the cache key does not name the host compiler either).
DEVICE = "device"
HOST = "host"
PART_FILES = {DEVICE: ("kernel.cubin", "device.log"), HOST: ("kernel.o", "host.log")}


def part_dir(kind: str, key: str, target_arch: int, root: pathlib.Path | None = None) -> pathlib.Path:
    return (root or cache_root()) / kind / f"sm{target_arch}" / key


def take_part(kind: str, key: str, target_arch: int, staging: pathlib.Path) -> bool:
    """Copy a kept part into staging (the build then leaves its compile out); False if there is none intact."""
    kept, files = part_dir(kind, key, target_arch), PART_FILES[kind]
    if lookup(kept, files[0]) is None:
        return False
    try:
        for name in reversed(files):  # the part's output last: the build takes an output in staging as a finished step
            shutil.copyfile(kept / name, staging / f"{name}.part")
            os.replace(staging / f"{name}.part", staging / name)
    except OSError:  # removed meanwhile (a prune), or unreadable: compile it
        (staging / files[0]).unlink(missing_ok=True)
        return False
    with contextlib.suppress(OSError):  # in use: prune goes by the last build that kept or took it
        os.utime(kept)
    return True


def keep_part(kind: str, key: str, target_arch: int, staging: pathlib.Path) -> None:
    """Keep a finished build's part (once: whoever renames first wins; every copy is the same compile)."""
    kept, files = part_dir(kind, key, target_arch), PART_FILES[kind]
    if lookup(kept, files[0]) is not None or not all((staging / n).is_file() for n in files):
        return
    part = kept.parent / f".part-{kept.name}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        part.mkdir(parents=True)
        for name in files:
            shutil.copyfile(staging / name, part / name)
        (part / COMPLETE).write_text(file_digest(part / files[0]))
        if kept.exists():  # broken (no intact COMPLETE): replace it
            shutil.rmtree(kept, ignore_errors=True)
        os.rename(part, kept)
    except OSError:  # another build kept it first, or the cache is not writable: keeping is only a saving
        shutil.rmtree(part, ignore_errors=True)


def lock_timeout() -> float:
    seconds = env_number("CUTLASSGEN_LOCK_TIMEOUT", float, 0, "the seconds to wait for another build of a kernel")
    return 900.0 if seconds is None else seconds


def _arch_key(key: str, target_arch: int | str) -> str:
    """What a key's lock and resume folder are named after (and prune reads back from their names)."""
    return f"sm{target_arch}-{key}"


def _filelock():
    # imported where a lock is taken, not with the cache: filelock's import took ~40 ms of a 0.25 s warm start in a
    # new process on a 2-core machine (session 44), and a cache hit takes no lock
    import filelock

    return filelock


def _key_lock_path(root: pathlib.Path, arch_key: str) -> pathlib.Path:
    return root / "locks" / f"{arch_key}.lock"


def key_lock(key: str, target_arch: int, root: pathlib.Path | None = None) -> FileLock:
    """A per-key flock: the OS drops it when its holder dies, so a killed build never blocks the next one."""
    path = _key_lock_path(root or cache_root(), _arch_key(key, target_arch))
    path.parent.mkdir(parents=True, exist_ok=True)
    return _filelock().FileLock(str(path), timeout=lock_timeout())


def build_workspace(root: pathlib.Path) -> tuple[pathlib.Path, FileLock]:
    """A new folder for one build's ninja files, and the lock its build holds while it runs (taken before the folder
    exists), so that `cache prune` leaves a live build's folder alone."""
    name = f"ninja-{secrets.token_hex(6)}"
    tmp = root / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    lock = _filelock().FileLock(str(tmp / f"{name}.lock"))
    lock.acquire()
    (tmp / name).mkdir()
    return tmp / name, lock


def remove_workspace(work: pathlib.Path, lock: FileLock) -> None:
    shutil.rmtree(work, ignore_errors=True)
    lock.release()
    pathlib.Path(lock.lock_file).unlink(missing_ok=True)


def _unheld(lock_path: pathlib.Path) -> FileLock | None:
    """The lock, taken, if no live process holds it; else None."""
    filelock = _filelock()
    lock = filelock.FileLock(str(lock_path), timeout=0)
    try:
        lock.acquire()
    except filelock.Timeout:
        return None
    return lock


def _remove_unless_held(path: pathlib.Path, lock_paths: list) -> bool:
    """Remove path unless a live build holds one of lock_paths (a key's lock, a build folder's); True if removed."""
    taken = []
    try:
        for lock_path in lock_paths:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            lock = _unheld(lock_path)
            if lock is None:
                return False
            taken.append(lock)
        shutil.rmtree(path, ignore_errors=True)
        return True
    finally:
        for lock in taken:
            lock.release()


class Pruned(NamedTuple):
    entries: int  # entries removed
    parts: int  # kept device and host parts removed
    leftovers: int  # build leftovers removed
    kept: int  # folders kept because a live build holds them


def prune(root: pathlib.Path, built_before: float) -> Pruned:
    """Remove the entries built before built_before (seconds since the epoch) or incomplete, the device and host
    parts last kept or taken before it, and what builds left behind: resume folders, ninja folders, failed builds'
    folders, replaced entries. Whatever a live build (another process) holds stays: it holds its keys' locks and its
    ninja folder's."""
    removed = parts = leftovers = kept = 0
    for entry in entries(root):
        if (entry / COMPLETE).exists() and entry.stat().st_mtime >= built_before:
            continue
        if _remove_unless_held(entry, [_key_lock_path(root, _arch_key(entry.name, entry.parent.name[2:]))]):
            removed += 1
        else:
            kept += 1
    tmp, failed = root / "tmp", root / "failed"
    candidates = []
    for path in sorted(tmp.iterdir()) if tmp.is_dir() else []:
        if path.name.startswith(RESUME_PREFIX):
            candidates.append((path, [_key_lock_path(root, path.name[len(RESUME_PREFIX):])]))
        elif path.is_dir():  # a build's ninja folder (or an unknown leftover): its lock beside it
            candidates.append((path, [tmp / f"{path.name}.lock"]))
    for path in sorted(failed.iterdir()) if failed.is_dir() else []:  # named by key, for any arch
        candidates.append((path, sorted((root / "locks").glob(f"sm*-{path.name}.lock"))))
    candidates += [(path, []) for path in sorted(root.glob("sm*/.trash-*"))]  # a publish cut off before its rmtree
    for kind in PART_FILES:
        candidates += [(path, []) for path in sorted(root.glob(f"{kind}/sm*/.part-*"))]  # a keep cut off midway
    for path in sorted(p for kind in PART_FILES for p in root.glob(f"{kind}/sm*/*")):
        if not path.name.startswith(".") and path.stat().st_mtime < built_before:
            shutil.rmtree(path, ignore_errors=True)  # never in use: a build copies what it takes
            parts += 1
    for path, lock_paths in candidates:
        if _remove_unless_held(path, lock_paths):
            leftovers += 1
        else:
            kept += 1
    for lock_path in sorted(tmp.glob("ninja-*.lock")) if tmp.is_dir() else []:  # their folders are gone
        if not (tmp / lock_path.stem).exists() and (lock := _unheld(lock_path)):
            lock_path.unlink(missing_ok=True)
            lock.release()
    return Pruned(removed, parts, leftovers, kept)


def acquire(lock: FileLock, what: str) -> None:
    try:
        lock.acquire()
    except _filelock().Timeout:
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
    """An entry's meta.json; {} where it is missing, unreadable or not a table (it describes the module, which works
    without it)."""
    try:
        meta = json.loads((entry / META).read_text())
    except (OSError, ValueError):
        return {}
    return meta if isinstance(meta, dict) else {}
