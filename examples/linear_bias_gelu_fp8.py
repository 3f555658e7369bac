"""nn.Linear + bias + GELU, quantized to fp8 e4m3 with a per-tensor scale and amax recorded, in one kernel (sm90).

Run: python examples/linear_bias_gelu_fp8.py
"""
import torch
import torch.nn.functional as F

from _common import check_and_time, kernel_for

spec, kernel = kernel_for("linear_bias_gelu_fp8_sm90.toml")
M, N, K = 4096, 4096, 4096
x = torch.randn(M, K, device="cuda").bfloat16()
w = (torch.randn(N, K, device="cuda") / K ** 0.5).bfloat16()
bias = torch.randn(N, device="cuda").bfloat16()
scale = torch.tensor([0.5], device="cuda")  # 1 / the delayed-scaling amax of an earlier step


def unfused():
    y = F.gelu(F.linear(x, w, bias), approximate="tanh")
    return (y.float() * scale).clamp(-448, 448).to(torch.float8_e4m3fn), y.abs().amax()


raise SystemExit(check_and_time(spec, kernel, (x, w.t()), {"bias": bias, "scale": scale}, unfused, tol=8e-2))
