"""Decode shapes (M <= 64): which sm90 tiles beat cuBLAS for bf16 GEMM + bias + gelu_tanh: plain tiles against
swap_ab (D^T = B^T A^T) and split-K ones. Times with cutlassgen.timing.interleaved_median_ms.

Run: python bench/decode_tiles.py   (needs an sm90 GPU)
"""
import torch
import torch.nn.functional as F

import cutlassgen as cg
from cutlassgen import Activation, Add, GemmSpec, Operand, Sm90Tile
from cutlassgen.timing import interleaved_median_ms

TILES = {
    # the best plain tiles of the previous run (bench/results/h200_decode_tiles.log)
    "64x128x64 pingpong": Sm90Tile(cta=(64, 128, 64), cluster=(1, 1, 1), mainloop="pingpong"),
    "64x64x128 pingpong": Sm90Tile(cta=(64, 64, 128), cluster=(1, 1, 1), mainloop="pingpong"),
    # swap_ab: the kernel computes D^T, so N is tiled by the CTA's M and the few rows of A by a narrow CTA N
    "swap 64x16x128 pingpong": Sm90Tile(cta=(64, 16, 128), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True),
    "swap 64x32x64 pingpong": Sm90Tile(cta=(64, 32, 64), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True),
    "swap 64x32x128 pingpong": Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True),
    "swap 64x64x128 pingpong": Sm90Tile(cta=(64, 64, 128), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True),
    # ... and split-K through the stream-K scheduler, for more CTAs along K when N gives too few tiles
    "swap 128x32x128 stream-K": Sm90Tile(cta=(128, 32, 128), cluster=(1, 1, 1), scheduler="stream_k", swap_ab=True),
    "swap 128x32x128 split2": Sm90Tile(cta=(128, 32, 128), cluster=(1, 1, 1), scheduler="stream_k", split_k=2,
                                       swap_ab=True),
    "swap 128x32x128 split4": Sm90Tile(cta=(128, 32, 128), cluster=(1, 1, 1), scheduler="stream_k", split_k=4,
                                       swap_ab=True),
    "swap 128x64x128 split2": Sm90Tile(cta=(128, 64, 128), cluster=(1, 1, 1), scheduler="stream_k", split_k=2,
                                       swap_ab=True),
}
SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (64, 8192, 8192), (32, 14336, 4096), (32, 4096, 14336)]


def main():
    specs = {name: GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"), tile=t,
                            epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")])
             for name, t in TILES.items()}
    kernels = dict(zip(specs, cg.build_many(list(specs.values()))))
    print(f"TFLOP/s on {torch.cuda.get_device_name()} (median of 3 interleaved rounds of 20 runs)")
    for M, N, K in SHAPES:
        a = torch.randn(M, K, device="cuda").bfloat16()
        w = (torch.randn(N, K, device="cuda") / K ** 0.5).bfloat16()
        bias = torch.randn(N, device="cuda").bfloat16()
        ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
        timed = {"cuBLAS mm": lambda: torch.mm(a, w.t()),
                 "cuBLASLt fused": lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True)}
        for name, k in kernels.items():
            err = ((k(a, w.t(), bias=bias).double() - ref).norm() / ref.norm()).item()
            assert err < 1.5e-2, (name, err)
            timed[name] = lambda k=k: k(a, w.t(), bias=bias)
        tf = {n: 2 * M * N * K / ms / 1e9 for n, ms in interleaved_median_ms(timed).items()}
        best = max((v, n) for n, v in tf.items() if n in kernels)
        print(f"{M}x{N}x{K}: " + ", ".join(f"{n} {v:.0f}" for n, v in tf.items()) +
              f" | best ours {best[1]} {best[0] / tf['cuBLAS mm']:.2f}x cuBLAS mm", flush=True)


if __name__ == "__main__":
    main()
