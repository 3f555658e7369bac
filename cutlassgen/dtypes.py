"""Element types cutlassgen knows, with everything the other stages need to know about each one."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    name: str  # the spelling used in specs
    cutlass: str  # the CUTLASS C++ type
    torch: str  # attribute name on the torch module
    bits: int
    kind: str  # "float" or "int"
    max_finite: float | None = None  # saturation bound when this is a quantize target
    min_finite: float | None = None


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("fp16", "cutlass::half_t", "float16", 16, "float", 65504.0, -65504.0),
        DType("bf16", "cutlass::bfloat16_t", "bfloat16", 16, "float", 3.3895313892515355e38, -3.3895313892515355e38),
        DType("fp32", "float", "float32", 32, "float"),
        DType("tf32", "cutlass::tfloat32_t", "float32", 32, "float"),
        DType("e4m3", "cutlass::float_e4m3_t", "float8_e4m3fn", 8, "float", 448.0, -448.0),
        DType("e5m2", "cutlass::float_e5m2_t", "float8_e5m2", 8, "float", 57344.0, -57344.0),
        DType("int8", "int8_t", "int8", 8, "int", 127.0, -128.0),
        DType("int32", "int32_t", "int32", 32, "int"),
    )
}

# Other spellings users type; they normalize to the names above.
ALIASES = {
    "float16": "fp16", "half": "fp16", "f16": "fp16",
    "bfloat16": "bf16",
    "float32": "fp32", "float": "fp32", "f32": "fp32",
    "float8_e4m3fn": "e4m3", "fp8_e4m3": "e4m3", "fp8": "e4m3",
    "float8_e5m2": "e5m2", "fp8_e5m2": "e5m2",
    "s8": "int8", "i8": "int8", "s32": "int32", "i32": "int32",
}

# Storage types (tf32 operands live in fp32 tensors).
def storage(name: str) -> DType:
    return DTYPES["fp32"] if name == "tf32" else DTYPES[name]


def max_alignment(name: str) -> int:
    """Elements per 128-bit access: the widest vector load the dtype allows."""
    return 128 // DTYPES[name].bits
