"""Where a kernel call's host time goes: the Python checks, the C++ launch path, and torch.mm for scale.

Run: python bench/profile_call.py   (needs a GPU)
"""
import torch

import cutlassgen as cg
from cutlassgen.timing import host_us_per_call




def main():
    cc = torch.cuda.get_device_capability()
    spec = cg.GemmSpec(arch=90 if cc == (9, 0) else 80, a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    k = cg.build(spec, dispatch=False)
    a = torch.randn(64, 64, device="cuda").bfloat16()
    w = torch.randn(64, 64, device="cuda").bfloat16()
    b = w.t()
    bias = torch.randn(64, device="cuda").bfloat16()
    out = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    stream = torch.cuda.current_stream().cuda_stream
    # the binding's arguments: M N K, lda ldb ldc ldd, a b c d, epilogue pointers and scalars, aux ld, workspace and
    # its size, stream, and a's rows readable past M (0: none)
    raw = (64, 64, 64, 64, 64, 0, 64, a.data_ptr(), b.data_ptr(), 0, out.data_ptr(), [bias.data_ptr()], [], 0, 0, 0,
           stream, 0)
    mod = k._mod
    print(f"torch.mm                 {host_us_per_call(lambda: torch.mm(a, b)):7.2f} us")
    empty_us = host_us_per_call(lambda: torch.empty(64, 64, device='cuda', dtype=torch.bfloat16))
    print(f"torch.empty(64x64)       {empty_us:7.2f} us")
    print(f"module.run (C++ only)    {host_us_per_call(lambda: mod.run(*raw)):7.2f} us")
    print(f"kernel(a, b, bias, out=) {host_us_per_call(lambda: k(a, b, bias=bias, out=out)):7.2f} us")
    print(f"kernel(a, b, bias)       {host_us_per_call(lambda: k(a, b, bias=bias)):7.2f} us")
    k._mod = type("NoLaunch", (), {"run": staticmethod(lambda *args: None),
                                    "workspace_size": staticmethod(mod.workspace_size)})  # noqa: E501
    print(f"python checks only, out= {host_us_per_call(lambda: k(a, b, bias=bias, out=out)):7.2f} us")
    k._mod = mod


if __name__ == "__main__":
    main()
