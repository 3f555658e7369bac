"""Compiler flags, decided in one place so that the key, the ninja file and the AOT CMake path agree."""
from __future__ import annotations

from ..arch import ARCHS

# -DNDEBUG matters: CUTLASS's asserts leave a call inside the wgmma pipeline, and ptxas then serializes it (C7510).
# -Xptxas=-v prints each kernel's registers, spills and static shared memory (the build records them; the study
# reports them).
NVCC_FLAGS = ("-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-Xcompiler=-fPIC",
              "-Xcompiler=-fvisibility=hidden", "-Xptxas=-warn-spills", "-Xptxas=-warn-lmem-usage", "-Xptxas=-v")
CXX_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden")
MODULE_NAME = "cutlassgen_kernel"


def gencode(target_arch: int) -> str:
    return f"-gencode={ARCHS[target_arch].gencode}"


def nvcc_flags(target_arch: int) -> list[str]:
    return [*NVCC_FLAGS, gencode(target_arch)]


# sm90 kernels build in two parts that nvcc compiles side by side: the kernel alone (nvcc -cubin: no host passes)
# and the host entry points, which launch it from the cubin embedded in the module (csrc/cutlassgen/entry_points.inl).
# One nvcc of the whole source runs cudafe++, cicc and the host compiler one after another; split, the host passes
# (~18 s of ~50 s for the sm90 example on 2 cores) leave the critical path.
DEVICE_PART = "-DCUTLASSGEN_DEVICE_PART"
HOST_PART = "-DCUTLASSGEN_SPLIT_DEVICE"
# each part's nvcc arguments after nvcc_flags and the include folders (cache.PART_FILES names the parts), which the
# jit's ninja edges, the commands meta.json shows and bench/seed_device_parts.py's compiles all take from here
PART_ARGS = {"device": (DEVICE_PART, "-cubin"), "host": (HOST_PART, "-c")}


def split_build(path: str) -> bool:
    return path == "sm90"


def recipe(target_arch: int, path: str) -> str:
    """Everything about how a source is compiled, for the cache key."""
    return " ".join([*nvcc_flags(target_arch), *(("split", DEVICE_PART, HOST_PART) if split_build(path) else ())])
