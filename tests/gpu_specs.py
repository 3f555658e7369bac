"""The kernels the GPU suite builds (in one parallel ninja run) and checks against the float64 reference.

Together they cover every epilogue node, every activation, every legal operand dtype, both layouts of A and B,
both arch paths (sm80-path kernels compiled for the GPU at hand), both sm90 schedules, stream-K, PDL and
the widest tiles validation allows. The GPU tests draw their inputs from fresh_seed / fresh_generator.
"""
import dataclasses

from cutlassgen import (Activation, Add, Amax, GemmSpec, LinearCombination, Multiply, Operand, Quantize, Sm80Tile,
                        Sm90Tile, StoreAux)

ROW, COL = "row", "column"


def fresh_seed(*what) -> int:
    """A new seed each run (fresh inputs), printed so that a failure, whose captured output pytest shows, can be
    replayed with manual_seed."""
    import random

    seed = random.randrange(2**31)
    print(f"inputs of {what}: manual_seed({seed})")
    return seed


def fresh_generator(*what):
    """A CUDA generator on fresh_seed(*what)."""
    import torch

    return torch.Generator(device="cuda").manual_seed(fresh_seed(*what))


GPU_SPECS = {
    # The ANCHORS.md kernel: nn.Linear + bias + gelu_tanh, bf16.
    "sm90_bf16_bias_gelu": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                    epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]),
    # Linear + bias + gelu -> fp8 with the pre-activation saved and amax recorded (delayed scaling).
    "sm90_bf16_gelu_fp8": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("e4m3"),
                                   epilogue=[Add("per_col", "bias", "bf16"), StoreAux("pre_act", "bf16"),
                                             Activation("gelu"), Amax("amax"),
                                             Quantize("e4m3", "per_tensor", "scale")]),
    # fp8 GEMM with per-token x per-channel dequant scales and bias, the vLLM/TRT-LLM epilogue.
    "sm90_fp8_scaled": GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", COL), d=Operand("bf16"),
                                epilogue=[Multiply("per_row", "scale_a", "fp32"),
                                          Multiply("per_col", "scale_b", "fp32"), Add("per_col", "bias", "bf16")]),
    # fp16 NN/TT layouts, C residual via beta and a runtime alpha; pingpong; column-major output.
    "sm90_fp16_residual_colD": GemmSpec(arch=90, a=Operand("fp16", COL), b=Operand("fp16", ROW),
                                        c=Operand("fp16", COL), d=Operand("fp16", COL),
                                        tile=Sm90Tile(cta=(64, 128, 64), mainloop="pingpong", cluster=(1, 1, 1)),
                                        epilogue=[LinearCombination(alpha="runtime", beta=0.5),
                                                  Activation("leaky_relu", slope=0.1),
                                                  Activation("clamp", lo=-3.0, hi=3.0), Activation("clamp", hi=2.5)]),
    # Every remaining activation in one chain, rescaled between steps; stream-K.
    "sm90_bf16_act_chain_streamk": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", ROW), d=Operand("fp32"),
        tile=Sm90Tile(cta=(128, 128, 64), scheduler="stream_k", cluster=(1, 2, 1)),
        epilogue=[Activation("silu"), Multiply("scalar", "s1", "fp32"), Activation("hardswish"), Activation("sigmoid"),
                  Multiply("scalar", "s2", "fp32"), Activation("tanh"), Add("per_row", "row_bias", "fp32"),
                  Activation("relu")]),
    # int8 x int8 -> int32 accumulate, dequant to bf16, then requantize to int8 per channel.
    "sm90_int8_requant": GemmSpec(arch=90, a=Operand("int8"), b=Operand("int8", COL), d=Operand("int8"),
                                  epilogue=[Multiply("scalar", "dequant", "fp32"), Add("per_col", "bias", "fp32"),
                                            Quantize("int8", "per_col", "qscale")]),
    # tf32 math from fp32 operands, residual added as a tensor source.
    "sm90_tf32_residual": GemmSpec(arch=90, a=Operand("fp32"), b=Operand("fp32", COL), c=Operand("fp32"),
                                   d=Operand("fp32"), tile=Sm90Tile(cta=(128, 128, 32)),
                                   epilogue=[Add("tensor", "residual"), Activation("gelu_tanh")]),
    # --- the sm80 path, compiled for the GPU at hand ---
    "sm80_fp16_bias_relu": GemmSpec(arch=80, a=Operand("fp16"), b=Operand("fp16", COL), d=Operand("fp16"),
                                    epilogue=[Add("per_col", "bias", "fp16"), Activation("relu")]),
    "sm80_int8_dequant": GemmSpec(arch=80, a=Operand("int8"), b=Operand("int8", COL), d=Operand("bf16"),
                                  epilogue=[Multiply("per_row", "scale_a", "fp32"),
                                            Multiply("per_col", "scale_b", "fp32"), Add("per_col", "bias", "bf16"),
                                            Activation("silu")]),
    "sm80_bf16_residual_aux_amax": GemmSpec(
        arch=80, a=Operand("bf16", COL), b=Operand("bf16", ROW), c=Operand("bf16"), d=Operand("bf16"),
        tile=Sm80Tile(threadblock=(128, 64, 32), warp=(64, 32, 32), stages=3),
        epilogue=[LinearCombination(alpha=2.0, beta="runtime"), StoreAux("pre_act", "bf16"), Activation("gelu"),
                  Amax("amax"), Multiply("per_row", "row_scale", "fp32")]),
    "sm80_tf32_acts": GemmSpec(arch=80, a=Operand("fp32"), b=Operand("fp32"), d=Operand("fp32"),
                               epilogue=[Activation("leaky_relu", slope=0.2), Activation("clamp", lo=-1.5, hi=4.0),
                                         Activation("hardswish"), Activation("tanh"), Activation("sigmoid"),
                                         Activation("gelu_tanh"), Activation("clamp", lo=-0.25)]),
    "sm89_fp8_scaled": GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", COL), d=Operand("bf16"),
                                epilogue=[Multiply("scalar", "scale", "fp32"), Add("per_col", "bias", "fp32")]),
    # 8-bit outputs on the sm80 path: int8 requantize, and an fp8 e5m2 output with amax (sm89 for fp8).
    "sm80_int8_requant": GemmSpec(arch=80, a=Operand("int8"), b=Operand("int8", COL), d=Operand("int8"),
                                  epilogue=[Multiply("scalar", "dequant", "fp32"), Add("per_col", "bias", "fp32"),
                                            Quantize("int8", "per_col", "qscale")]),
    "sm89_bf16_gelu_e5m2": GemmSpec(arch=89, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("e5m2"),
                                    epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu"), Amax("amax"),
                                              Quantize("e5m2", "per_tensor", "scale")]),
    # fp8 operand mixes on the sm90 path: e4m3 x e5m2 and e5m2 x e5m2 (fast accumulation), 8-bit e5m2 output.
    "sm90_fp8_mixed": GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e5m2", COL), d=Operand("bf16"),
                               epilogue=[Multiply("per_row", "scale_a", "fp32"),
                                         Multiply("per_col", "scale_b", "fp32")]),
    "sm90_e5m2_fast_accum": GemmSpec(arch=90, a=Operand("e5m2"), b=Operand("e5m2", COL), d=Operand("e5m2"),
                                     tile=Sm90Tile(fp8_fast_accum=True),
                                     epilogue=[Multiply("scalar", "scale_ab", "fp32"),
                                               Quantize("e5m2", "per_tensor", "out_scale")]),
    # The raw int8 x int8 -> int32 accumulator on both paths, and e5m2 operands on the sm89 (mma.sync) path with an
    # e4m3 output.
    "sm80_int8_raw_int32": GemmSpec(arch=80, a=Operand("int8"), b=Operand("int8", COL), d=Operand("int32"),
                                    epilogue=[]),
    "sm90_int8_raw_int32": GemmSpec(arch=90, a=Operand("int8"), b=Operand("int8", COL), d=Operand("int32"),
                                    epilogue=[]),
    "sm89_e5m2_to_e4m3": GemmSpec(arch=89, a=Operand("e5m2"), b=Operand("e5m2", COL), d=Operand("e4m3"),
                                  epilogue=[Multiply("scalar", "scale_ab", "fp32"),
                                            Quantize("e4m3", "per_tensor", "out_scale")]),
    # Decode kernels: swap_ab (the kernel computes D^T, so per-column vectors broadcast along its rows and D, C and
    # the aux output are stored transposed), with split-K through the stream-K scheduler, and with pingpong.
    "sm90_swap_splitk_bias_gelu": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                           tile=Sm90Tile(cta=(128, 32, 64), cluster=(1, 1, 1), scheduler="stream_k",
                                                         split_k=4, swap_ab=True),
                                           epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]),
    "sm90_swap_pingpong_fp8_aux": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", COL), c=Operand("bf16"), d=Operand("e4m3"),
        tile=Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True),
        epilogue=[Multiply("per_row", "sa", "fp32"), Add("tensor", "res"), StoreAux("pre", "bf16"),
                  Add("per_col", "bias", "bf16"), Activation("gelu"), Amax("amax"),
                  Quantize("e4m3", "per_tensor", "scale")]),
    # A wider epilogue subtile (Sm90Tile.epilogue_tile: 2 steps of 128x64 instead of 4 of 128x32 per 128x128 tile)
    # with a C source, an aux store and a broadcast, which all walk the subtile.
    "sm90_epi_tile_residual_aux": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", COL), c=Operand("bf16"), d=Operand("bf16"),
        tile=Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1), epilogue_tile=(128, 64)),
        epilogue=[Add("tensor", "res"), Add("per_col", "bias", "bf16"), StoreAux("pre", "bf16"),
                  Activation("gelu_tanh")]),
    # CTA N outside wgmma's base shapes (arch.WGMMA_BASE_N: the kernel takes CuTe's extended shapes) with subtiles
    # as wide as the tile: a swapped 80-token cooperative tile in a 1x2 cluster with every kind of node that walks
    # the subtile (C, a per-row and a per-column vector, an aux store, amax, fp8 quantize), and a 64x112 pingpong
    # tile with a residual, an aux store and a bias.
    "sm90_swap_n80_full_subtile_fp8_aux": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", COL), c=Operand("bf16"), d=Operand("e4m3"),
        tile=Sm90Tile(cta=(128, 80, 64), cluster=(1, 2, 1), swap_ab=True, epilogue_tile=(128, 80)),
        epilogue=[Multiply("per_row", "sa", "fp32"), Add("tensor", "res"), StoreAux("pre", "bf16"),
                  Add("per_col", "bias", "bf16"), Activation("gelu"), Amax("amax"),
                  Quantize("e4m3", "per_tensor", "scale")]),
    "sm90_n112_full_subtile_residual_aux": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", COL), c=Operand("bf16"), d=Operand("bf16"),
        tile=Sm90Tile(cta=(64, 112, 64), cluster=(1, 1, 1), mainloop="pingpong", epilogue_tile=(64, 112)),
        epilogue=[Add("tensor", "res"), Add("per_col", "bias", "bf16"), StoreAux("pre", "bf16"),
                  Activation("gelu_tanh")]),
    # 16-bit operand tiles of an odd number of 8-row groups, whose TMA descriptors come from a taken pipeline stage
    # (csrc/cutlassgen/narrow_tma.hpp): cuBLAS's 72-token columns under a 192-row weight tile in a 1x2 cluster, with a
    # C source, an aux store and a bias; fp16 with N-major weights and M-major activations, unswapped 128x88 in a 2x1
    # cluster, which multicasts each 88-row weight tile in halves; a 40-token decode tile whose 4x1 cluster
    # multicasts it in quarters; a 56-token split-K tile.
    "sm90_bf16_narrow_swap_c_aux": GemmSpec(
        arch=90, a=Operand("bf16"), b=Operand("bf16", COL), c=Operand("bf16"), d=Operand("bf16"),
        tile=Sm90Tile(cta=(192, 72, 64), cluster=(1, 2, 1), mainloop="pingpong", swap_ab=True),
        epilogue=[LinearCombination(alpha=1.0, beta=0.5), Add("per_col", "bias", "bf16"), StoreAux("pre", "bf16"),
                  Activation("gelu_tanh")]),
    "sm90_fp16_narrow_mn_major": GemmSpec(arch=90, a=Operand("fp16", COL), b=Operand("fp16", ROW), d=Operand("fp16"),
                                          tile=Sm90Tile(cta=(128, 88, 64), cluster=(2, 1, 1)),
                                          epilogue=[Add("per_col", "bias", "fp16"), Activation("silu")]),
    "sm90_bf16_narrow_decode_c4x1": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                             tile=Sm90Tile(cta=(64, 40, 128), cluster=(4, 1, 1), mainloop="pingpong",
                                                           swap_ab=True),
                                             epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]),
    "sm90_bf16_narrow_swap_splitk": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                             tile=Sm90Tile(cta=(128, 56, 64), cluster=(1, 1, 1), scheduler="stream_k",
                                                           split_k=2, swap_ab=True),
                                             epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]),
    # Programmatic dependent launch (Sm90Tile.pdl) with both schedules: the cooperative default tile with its 2x1
    # cluster (two launch attributes) and the swapped pingpong decode tile; a runtime scalar, given as a number.
    "sm90_pdl_bias_gelu": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                   tile=Sm90Tile(pdl=True),
                                   epilogue=[Multiply("scalar", "s", "fp32"), Add("per_col", "bias", "bf16"),
                                             Activation("gelu_tanh")]),
    "sm90_pdl_swap_pingpong": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("bf16"),
                                       tile=Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), mainloop="pingpong",
                                                     swap_ab=True, pdl=True),
                                       epilogue=[Multiply("scalar", "s", "fp32"), Add("per_col", "bias", "bf16"),
                                                 Activation("gelu_tanh")]),
    # Tiles past 128 fp32 accumulators a thread (validate.MAX_ACCUMULATORS_PER_THREAD): 256x192 cooperative (192)
    # with the suite's longest bf16 chain, which ptxas compiled without spills, and 128x192 pingpong (192, one
    # warpgroup per tile) for fp8 with fast accumulation. N = 512 / 144 / 272 leave partial 192-wide tiles.
    "sm90_wide_acc_gelu_fp8": GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", COL), d=Operand("e4m3"),
                                       tile=Sm90Tile(cta=(256, 192, 64), cluster=(1, 2, 1)),
                                       epilogue=[Add("per_col", "bias", "bf16"), StoreAux("pre_act", "bf16"),
                                                 Activation("gelu"), Amax("amax"),
                                                 Quantize("e4m3", "per_tensor", "scale")]),
    "sm90_wide_acc_pingpong_fp8": GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", COL), d=Operand("bf16"),
                                           tile=Sm90Tile(cta=(128, 192, 128), cluster=(1, 1, 1), mainloop="pingpong",
                                                         fp8_fast_accum=True),
                                           epilogue=[Multiply("per_row", "scale_a", "fp32"),
                                                     Multiply("per_col", "scale_b", "fp32"),
                                                     Add("per_col", "bias", "bf16")]),
}


# Padded walks on tiles that load their token operand through load_hints.hpp (Sm90Tile.fitted_tail, the per-shape
# plan's twin): a tile of the scheduler's padded row (63 x 64 128x128 tiles in strips of 8) or a 2x1 cluster's spare
# CTA (63 row tiles of 128x256 rounded to 64) lies wholly past M and loads no token operand (skip_token_tile);
# test_gpu_correctness.py's past-rows test runs these twins at these shapes.
PAST_ROW_WALKS = [("sm90_epi_tile_residual_aux", (8000, 8192, 8192)), ("sm90_bf16_gelu_fp8", (8064, 8192, 8192))]


def past_row_twins() -> dict:
    """PAST_ROW_WALKS' kernels by suite name, as specs with fitted_tail and a name of their own (build's in-process
    memo is by spec)."""
    return {n: dataclasses.replace(GPU_SPECS[n], name=f"{n}_fitted",
                                   tile=dataclasses.replace(GPU_SPECS[n].tile, fitted_tail=True))
            for n, _ in PAST_ROW_WALKS}
