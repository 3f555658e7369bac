"""Per-architecture facts, as data. Validation and lowering read these; nothing else hard-codes a limit."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArchInfo:
    cc: int
    smem_per_block: int  # bytes of opt-in shared memory per thread block
    smem_per_sm: int  # bytes of shared memory per SM: what the thread blocks resident on one SM share
    operand_dtypes: frozenset  # legal A/B element types
    has_wgmma: bool  # sm_90a collective-builder path (wgmma, TMA, clusters)
    max_cluster_size: int  # portable cluster size limit (0 = no clusters)
    gencode: str  # nvcc -gencode value


_SM80_OPERANDS = frozenset({"fp16", "bf16", "tf32", "int8"})
ARCHS: dict[int, ArchInfo] = {
    80: ArchInfo(80, 163 * 1024, 164 * 1024, _SM80_OPERANDS, False, 0, "arch=compute_80,code=sm_80"),
    86: ArchInfo(86, 99 * 1024, 100 * 1024, _SM80_OPERANDS, False, 0, "arch=compute_86,code=sm_86"),
    89: ArchInfo(89, 99 * 1024, 100 * 1024, _SM80_OPERANDS | {"e4m3", "e5m2"}, False, 0,
                 "arch=compute_89,code=sm_89"),
    90: ArchInfo(90, 227 * 1024, 228 * 1024, _SM80_OPERANDS | {"e4m3", "e5m2"}, True, 8,
                 "arch=compute_90a,code=sm_90a"),
}

# mma.sync instruction shapes (M, N, K) of the sm80 path, by operand type.
SM80_INSTRUCTION = {
    "fp16": (16, 8, 16),
    "bf16": (16, 8, 16),
    "tf32": (16, 8, 8),
    "int8": (16, 8, 32),
    "e4m3": (16, 8, 32),
    "e5m2": (16, 8, 32),
}

# The accumulator each operand type needs.
ACCUMULATOR = {"fp16": "fp32", "bf16": "fp32", "tf32": "fp32", "e4m3": "fp32", "e5m2": "fp32", "int8": "int32"}

# wgmma: the instruction's M is 64 per warpgroup; K per instruction is 32 bytes of operand.
WGMMA_M = 64
WGMMA_N_STEP = 8  # N is any multiple of 8 up to 256
WGMMA_N_MAX = 256
# The wgmma N that CuTe's instruction selector offers by default. For any other CTA N it falls back to the largest of
# these that divides it unless CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED adds every N in steps of 8: CTA N = 80 then ran
# five m64n16k16 per K step, twice a 64x96 tile's instructions under ncu, and such tiles 0.3-0.8x the TFLOP/s of the
# 32-multiple ones (bench/results/h200_tile_probe.log runs 54, 58-59). CUTLASS leaves the extended shapes out by
# default to save compile time, so cutlassgen/lower.py enables them only where the CTA N needs them.
WGMMA_BASE_N = (8, 16, 32, 64, 96, 128, 192, 256)

# Operand types whose sm90 wgmma needs K-major A and B (only 16-bit types can be MN-major in shared memory).
SM90_K_MAJOR_ONLY = frozenset({"tf32", "e4m3", "e5m2", "int8"})
# And on the sm80 path (mma.sync, whose ldmatrix transposes only 16-bit elements): int8 A column-major or B row-major
# and e4m3 A column-major stopped nvcc at an incomplete warp tile iterator; e4m3 B row-major compiled on the default
# tile but not on 64x128x64 with 16x128 warps, and no GPU run has checked it. tf32 A column-major with B row-major
# compiled. (Random specs compiled with the rule off, session 76.)
SM80_K_MAJOR_ONLY = frozenset({"e4m3", "e5m2", "int8"})

# Per-thread register file bound on sm90 accumulators: a CTA tile's fp32 accumulators per consumer thread.
SM90_MAX_ACC_REGS_PER_THREAD = 128  # 128x256 cooperative = 2 warpgroups x 128 floats per thread


def gencode_for(cc: int) -> str:
    return ARCHS[cc].gencode
