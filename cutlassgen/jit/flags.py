"""Compiler flags, decided in one place so that the key, the ninja file and the AOT CMake path agree."""
from __future__ import annotations

from ..arch import ARCHS

# -DNDEBUG matters: CUTLASS's asserts leave a call inside the wgmma pipeline, and ptxas then serializes it (C7510).
NVCC_FLAGS = ("-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr", "-Xcompiler=-fPIC",
              "-Xcompiler=-fvisibility=hidden", "-Xptxas=-warn-spills", "-Xptxas=-warn-lmem-usage")
CXX_FLAGS = ("-std=c++17", "-O2", "-fPIC", "-fvisibility=hidden")
MODULE_NAME = "cutlassgen_kernel"


def gencode(target_arch: int) -> str:
    return f"-gencode={ARCHS[target_arch].gencode}"


def nvcc_flags(target_arch: int) -> list[str]:
    return [*NVCC_FLAGS, gencode(target_arch)]
