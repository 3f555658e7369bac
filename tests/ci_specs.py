"""The few kernels CI compiles (no GPU needed): together they hold every epilogue node and every activation."""
from cutlassgen import (Activation, Add, Amax, GemmSpec, LinearCombination, Multiply, Operand, Quantize, Sm80Tile,
                        Sm90Tile, StoreAux)

ALL_ACTIVATIONS = [Activation("relu"), Activation("gelu"), Activation("gelu_tanh"), Activation("silu"),
                   Activation("sigmoid"), Activation("tanh"), Activation("leaky_relu", slope=0.1),
                   Activation("hardswish"), Activation("clamp", lo=-4.0, hi=4.0), Activation("identity"),
                   Activation("clamp", hi=5.0)]  # one-sided: its lo renders as -infinity, a constant expression


def _chain(quantize_to):
    chain = [LinearCombination(alpha="runtime", beta=0.5), Add("per_col", "bias", "bf16"),
             Multiply("per_row", "token_scale", "fp32"), Add("scalar", "shift", "fp32"), Multiply("tensor", "gate"),
             StoreAux("pre_act", "bf16"), *ALL_ACTIVATIONS, Amax("amax")]
    return chain + [Quantize(quantize_to, "per_col", "out_scale")]


# sm90: every node, quantize to fp8 included.
SM90_ALL = GemmSpec(arch=90, name="ci_sm90_all_nodes", a=Operand("bf16"), b=Operand("bf16", "column"),
                    c=Operand("bf16"), d=Operand("e4m3"), tile=Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1)),
                    epilogue=_chain("e4m3"))
# sm90 swap_ab (the decode path): the same chain with operands swapped, so per-column vectors become the kernel's
# column broadcasts, which swap_ab kernels bulk-copy into shared memory (csrc/cutlassgen/bulk_broadcast.hpp). Its CTA
# N of 72, with a subtile as wide, takes wgmma's extended shapes (arch.WGMMA_BASE_N), the epilogue from CUTLASS's
# builder implementation and, for the 72-row bf16 token tile (nine 8-row groups), the TMA set-up of
# csrc/cutlassgen/narrow_tma.hpp (validate.n_step_of). Its weights load EVICT_FIRST (weights_evict_first, what the
# per-shape plan sets on swapped tiles over 36 MiB of weights): csrc/cutlassgen/load_hints.hpp's loads with a policy.
SM90_SWAP_ALL = SM90_ALL.replace(name="ci_sm90_swap_all_nodes",
                                 tile=Sm90Tile(cta=(128, 72, 64), cluster=(1, 1, 1), swap_ab=True,
                                               epilogue_tile=(128, 72), weights_evict_first=True))
# fp8 operands with a CTA N that is an odd multiple of 8 (validate.n_step_of): the epilogue from CUTLASS's builder
# implementation, with a full-width 64x72 subtile (tiles.sm90_epilogue_tile), the 8-bit D stored along M. One 64-row
# weight tile: the plan's 192-row one (2 x 72 tokens at 129-144 rows) spills 4 bytes under this whole chain.
SM90_FP8_NARROW = SM90_ALL.replace(name="ci_sm90_fp8_narrow_token_tile", a=Operand("e4m3"), b=Operand("e4m3", "column"),
                                   tile=Sm90Tile(cta=(64, 72, 128), cluster=(1, 1, 1), mainloop="pingpong",
                                                 swap_ab=True, fp8_fast_accum=True))
# fp8 operands with exact accumulation on their default tile, 128x128x128 cooperative: the mainloop of
# csrc/cutlassgen/full_promotion.hpp (lower.OVERLAPPED_PROMOTION, PROMOTION_SCHEDULE), under the per-token x
# per-channel chain.
SM90_FP8_EXACT = GemmSpec(arch=90, name="ci_sm90_fp8_exact_accumulation", a=Operand("e4m3"),
                          b=Operand("e4m3", "column"), d=Operand("bf16"),
                          tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative"),
                          epilogue=[Multiply("per_row", "scale_a", "fp32"), Multiply("per_col", "scale_b", "fp32"),
                                    Add("per_col", "bias", "bf16")])
# sm80: every node too, quantizing to int8 (fp8 outputs need sm89; the GPU suite runs an e5m2 one).
SM80_ALL = GemmSpec(arch=80, name="ci_sm80_all_nodes", a=Operand("bf16"), b=Operand("bf16", "column"),
                    c=Operand("bf16"), d=Operand("int8"), tile=Sm80Tile(threadblock=(128, 128, 32), warp=(64, 64, 32)),
                    epilogue=_chain("int8"))


def small_sm80(tag: str) -> GemmSpec:
    """A cheap sm80 kernel (about 20 s on 2 cores), unique per tag, for the cache and lock tests."""
    return GemmSpec(arch=80, name=f"ci_small_{tag}", a=Operand("fp16"), b=Operand("fp16", "column"),
                    d=Operand("fp16"), epilogue=[Activation("relu")])
