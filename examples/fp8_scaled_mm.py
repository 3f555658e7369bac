"""fp8 e4m3 GEMM with per-token (row) x per-channel (column) scales and a bias, bf16 out (sm90).

Run: python examples/fp8_scaled_mm.py
"""
import torch

from _common import check_and_time, kernel_for

spec, kernel = kernel_for("fp8_per_token_channel_sm90.toml")
M, N, K = 4096, 4096, 4096
x = torch.randn(M, K, device="cuda").clamp(-448, 448).to(torch.float8_e4m3fn)
w = (torch.randn(N, K, device="cuda") * 16 / K ** 0.5).to(torch.float8_e4m3fn)
scale_a = torch.rand(M, device="cuda") + 0.5
scale_b = (torch.rand(N, device="cuda") + 0.5) / 16
bias = torch.randn(N, device="cuda").bfloat16()


def unfused():
    # The spec accumulates with fp8_fast_accum, so cuBLASLt does too: the same arithmetic on both sides.
    return torch._scaled_mm(x, w.t(), scale_a=scale_a[:, None], scale_b=scale_b[None, :], bias=bias,
                            out_dtype=torch.bfloat16, use_fast_accum=spec.tile.fp8_fast_accum)


raise SystemExit(check_and_time(spec, kernel, (x, w.t()),
                                {"scale_a": scale_a, "scale_b": scale_b, "bias": bias}, unfused, tol=1.5e-2,
                                baseline="torch._scaled_mm (cuBLASLt, fused, same accumulation)"))
