"""`cutlassgen doctor`: what this machine has for building and running kernels, and what will break."""
from __future__ import annotations

import os
import pathlib
import re
import subprocess

from .errors import BuildError


def _driver_cuda_version():
    """The newest CUDA version the installed driver supports, from nvidia-smi, or None."""
    try:
        out = subprocess.run(["nvidia-smi"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"CUDA Version:\s*([\d.]+)", out)
    return m.group(1) if m else None


def report() -> tuple[list[str], list[str]]:
    """(lines describing the set-up, problems each with its fix)."""
    from .jit import cache, toolchain

    lines, problems = [], []
    try:
        import torch

        lines.append(f"torch {torch.__version__} (CUDA {torch.version.cuda or 'none: a CPU build'})")
        gpus = []
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                cc = torch.cuda.get_device_capability(i)
                gpus.append((i, torch.cuda.get_device_name(i), cc[0] * 10 + cc[1]))
        for i, name, cc in gpus:
            lines.append(f"GPU {i}: {name}, sm_{cc}{'a (kernels target sm_90a)' if cc == 90 else ''}")
        if not gpus:
            lines.append("GPU: none visible (kernels can still be compiled with an explicit arch)")
        if gpus and any(cc not in (80, 86, 89, 90) for _, _, cc in gpus):
            problems.append("a GPU's arch is not one cutlassgen targets (80, 86, 89, 90): build() will refuse it; "
                            "sm90 kernels need an H100/H200, sm80 kernels run on sm80-sm90")
    except ImportError:
        gpus = []
        problems.append("torch is not installed: kernels can be built but not called; `pip install torch`")
    driver = _driver_cuda_version()
    lines.append(f"driver supports CUDA up to: {driver or 'unknown (no nvidia-smi)'}")
    try:
        nvcc = toolchain.find_nvcc()
        ver = toolchain.nvcc_version(nvcc)
        lines.append(f"nvcc {ver} at {nvcc}")
        # the first of CUDA_HOME / CUDA_PATH set, where the search passed over it: likely not what was meant
        var = next((v for v in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(v)), None)
        if var and not os.environ.get("CUTLASSGEN_NVCC") and not (pathlib.Path(os.environ[var]) / "bin" /
                                                                   "nvcc").is_file():
            problems.append(f"{var}={os.environ[var]} holds no bin/nvcc, so kernels compile with {nvcc} instead; "
                            f"point {var} at a CUDA toolkit, or unset it")
        if driver and tuple(map(int, ver.split(".")[:2])) > tuple(map(int, driver.split(".")[:2])):
            problems.append(f"nvcc {ver} is newer than the driver's CUDA {driver}: kernels would fail to load "
                            "('unsupported toolchain'); upgrade the driver or use an nvcc <= the driver's version")
    except BuildError as e:
        problems.append(str(e))
    try:
        cut = toolchain.find_cutlass()
        lines.append(f"CUTLASS {cut.version} headers at {cut.include_dirs[0]}")
    except BuildError as e:
        problems.append(str(e))
    try:
        inc, ver = toolchain.find_pybind11()
        lines.append(f"pybind11 {ver}; Python headers at {toolchain.python_include()}")
    except BuildError as e:
        problems.append(str(e))
    try:
        lines.append(f"host compiler {toolchain.host_cxx()}; ninja {toolchain.find_ninja()}")
    except BuildError as e:
        problems.append(str(e))
    root = cache.cache_root()
    lines.append(f"cache {root} ({len(cache.entries(root))} entries; set CUTLASSGEN_CACHE_DIR to move it)")
    unwritable = _cache_write_problem(root)
    if os.environ.get("CUTLASSGEN_NO_JIT"):
        lines.append("CUTLASSGEN_NO_JIT is set: only prebuilt or cached kernels load")
    elif unwritable:
        problems.append(f"{unwritable}: cached kernels load, but a kernel not in the cache cannot be built there; "
                        "set CUTLASSGEN_CACHE_DIR to a folder this user can write")
    return lines, problems


def _cache_write_problem(root: pathlib.Path) -> str | None:
    """Why a build could not write into the cache, or None: the nearest existing path at or above the cache root
    (a build creates the rest) is not a folder or not writable by this user, or its lock or scratch folder is not."""
    existing = next((p for p in (root, *root.parents) if p.exists()), None)
    if existing is not None and not existing.is_dir():
        return f"{existing} is not a folder"
    for folder in [existing] + [root / sub for sub in ("locks", "tmp") if (root / sub).exists()]:
        if folder is not None and not (folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)):
            return f"this user cannot write {folder}"
    return None
