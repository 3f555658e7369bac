"""How close a kernel's output must be to the float64 reference, per output dtype, in one place.

Relative Frobenius error ||out - ref|| / ||ref|| for floating outputs; integer outputs may differ by one step
(the fp32 accumulation order shifts values that sit on a rounding boundary).
"""
REL_ERR = {
    "fp32": 5e-3,  # tf32 or 16-bit operands accumulate in fp32; tf32 inputs carry 10 mantissa bits
    "fp16": 5e-3,
    "bf16": 1.5e-2,
    "e4m3": 8e-2,  # 3 mantissa bits
    "e5m2": 1.5e-1,  # 2 mantissa bits
}
INT_MAX_ABS_DIFF = 1
