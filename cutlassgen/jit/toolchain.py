"""Find the pieces a build needs: nvcc, the CUTLASS headers, pybind11 and Python headers, a host C++ compiler.

Each finder says what is missing and how to install it; versions feed the cache key.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sysconfig
from dataclasses import dataclass

from ..errors import BuildError


class ToolchainError(BuildError):
    """A build prerequisite is missing. The message says which and how to get it."""

    def __init__(self, what: str, fix: str):
        RuntimeError.__init__(self, f"cutlassgen cannot build kernels: {what}. {fix}")
        self.command, self.source_path, self.log_path, self.first_errors = "", "", "", [what]


def env_number(name: str, cast, minimum, meaning: str):
    """The number an environment variable sets (None where unset or empty); a value that is not one, or is below
    minimum, is a ToolchainError naming the variable rather than a traceback from int() or float()."""
    text = os.environ.get(name, "").strip()
    if not text:
        return None
    try:
        value = cast(text)
    except ValueError:
        value = None
    if value is None or value != value or value < minimum:
        raise ToolchainError(f"{name}={text!r} is not {'an integer' if cast is int else 'a number'} of at least "
                             f"{minimum}",
                             f"set it to {meaning}, or unset it")
    return value


def _pip_nvcc() -> pathlib.Path | None:
    """nvcc from the nvidia-cuda-nvcc wheel (the `cu13` layout), if installed."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return None
    for root in spec.submodule_search_locations:
        for cand in sorted(pathlib.Path(root).glob("cu*/bin/nvcc")) + [pathlib.Path(root) / "cuda_nvcc/bin/nvcc"]:
            if cand.is_file():
                return cand
    return None


@functools.lru_cache(maxsize=None)
def find_nvcc() -> pathlib.Path:
    """CUTLASSGEN_NVCC, then CUDA_HOME / CUDA_PATH, then PATH, then the pip-installed nvidia-cuda-nvcc."""
    if os.environ.get("CUTLASSGEN_NVCC"):
        p = pathlib.Path(os.environ["CUTLASSGEN_NVCC"])
        problem = ("does not exist" if not p.exists() else "is a folder" if p.is_dir()
                   else "is not executable by this user" if not os.access(p, os.X_OK) else None)
        if problem:
            raise ToolchainError(f"CUTLASSGEN_NVCC={p} {problem}", "point it at an nvcc binary or unset it")
        return p
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            p = pathlib.Path(os.environ[var]) / "bin" / "nvcc"
            if p.is_file():
                return p
    on_path = shutil.which("nvcc")
    if on_path:
        return pathlib.Path(on_path)
    pip = _pip_nvcc()
    if pip:
        return pip
    raise ToolchainError("no CUDA compiler (nvcc) found in CUTLASSGEN_NVCC, CUDA_HOME, CUDA_PATH or PATH",
                         "install the CUDA toolkit, or `pip install cutlassgen[nvcc]`, or use a prebuilt wheel")


@functools.lru_cache(maxsize=None)
def nvcc_version(nvcc: pathlib.Path) -> str:
    try:
        out = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:  # not a program this machine runs, or one that hangs
        raise ToolchainError(f"could not run {nvcc} --version ({e})", "check that this nvcc runs") from None
    m = re.search(r"release [\d.]+, V([\d.]+)", out)
    if not m:
        raise ToolchainError(f"could not read the version of {nvcc}", "check that this nvcc runs")
    return m.group(1)


def nvcc_link_dirs(nvcc: pathlib.Path) -> list[str]:
    """The pip wheels ship cudart under lib/, while their nvcc.profile looks in lib64/."""
    lib = nvcc.parent.parent / "lib"
    return [str(lib)] if (lib / "libcudart_static.a").exists() and not (nvcc.parent.parent / "lib64").exists() else []


@dataclass(frozen=True)
class Cutlass:
    include_dirs: tuple
    version: str


@functools.lru_cache(maxsize=None)
def find_cutlass() -> Cutlass:
    """CUTLASS_PATH (a CUTLASS checkout) or the nvidia-cutlass package's bundled headers."""
    if os.environ.get("CUTLASS_PATH"):
        root = pathlib.Path(os.environ["CUTLASS_PATH"])
    else:
        spec = importlib.util.find_spec("cutlass_library")
        if spec is None or spec.origin is None:
            raise ToolchainError("CUTLASS headers not found (no CUTLASS_PATH, no nvidia-cutlass package)",
                                 "`pip install nvidia-cutlass` or set CUTLASS_PATH to a CUTLASS checkout")
        root = pathlib.Path(spec.origin).parent / "source"
    inc, util = root / "include", root / "tools" / "util" / "include"
    version_h = inc / "cutlass" / "version.h"
    if not version_h.is_file():
        raise ToolchainError(f"{inc} holds no cutlass/version.h",
                             "point CUTLASS_PATH at the root of a CUTLASS checkout")
    text = version_h.read_text()
    parts = [re.search(rf"#define CUTLASS_{k} (\d+)", text) for k in ("MAJOR", "MINOR", "PATCH")]
    version = ".".join(p.group(1) for p in parts if p) or hashlib.sha256(text.encode()).hexdigest()[:12]
    return Cutlass((str(inc), str(util)), version)


@functools.lru_cache(maxsize=None)
def find_pybind11() -> tuple[str, str]:
    try:
        import pybind11
    except ImportError:
        raise ToolchainError("pybind11 is not installed", "`pip install pybind11`") from None
    return pybind11.get_include(), pybind11.__version__


def python_include() -> str:
    inc = sysconfig.get_paths()["include"]
    if not pathlib.Path(inc, "Python.h").is_file():
        raise ToolchainError(f"Python headers missing ({inc}/Python.h)", "install your Python's dev package")
    return inc


def ext_suffix() -> str:
    return sysconfig.get_config_var("EXT_SUFFIX") or ".so"


def host_cxx() -> str:
    cxx = os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")
    if not cxx:
        raise ToolchainError("no host C++ compiler (c++/g++) found", "install g++ or set CXX")
    return cxx


def find_ninja() -> str:
    try:
        import ninja

        return str(pathlib.Path(ninja.BIN_DIR) / "ninja")
    except ImportError:
        exe = shutil.which("ninja")
        if exe:
            return exe
    raise ToolchainError("ninja not found", "`pip install ninja`")


CSRC = pathlib.Path(__file__).resolve().parents[1] / "csrc"
if not CSRC.is_dir():  # source checkout: csrc/ sits beside the package
    CSRC = pathlib.Path(__file__).resolve().parents[2] / "csrc"


@functools.lru_cache(maxsize=None)
def csrc_digest(root: pathlib.Path = CSRC) -> str:
    """Hash of the shared C++ (headers and binding): a change to them must change every key. (root: another copy of
    csrc/, e.g. an earlier commit's, for bench/sass_same.py.)"""
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]
