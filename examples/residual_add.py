"""bf16 GEMM + bias + residual add (the residual stream passed as C), one kernel (sm90).

Run: python examples/residual_add.py
"""
import torch
import torch.nn.functional as F

from _common import check_and_time, kernel_for

spec, kernel = kernel_for("residual_add_sm90.toml")
M, N, K = 4096, 4096, 4096
x = torch.randn(M, K, device="cuda").bfloat16()
w = (torch.randn(N, K, device="cuda") / K ** 0.5).bfloat16()
bias = torch.randn(N, device="cuda").bfloat16()
residual = torch.randn(M, N, device="cuda").bfloat16()


def unfused():
    return F.linear(x, w, bias) + residual


raise SystemExit(check_and_time(spec, kernel, (x, w.t(), residual), {"bias": bias}, unfused, tol=1.5e-2))
