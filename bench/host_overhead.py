"""Host overhead per call of a generated kernel vs torch.mm on the same tiny tensors (GPU not the bottleneck).

Run: python bench/host_overhead.py   (needs a GPU; builds the sm90 or sm80 bias+gelu kernel first)
"""
import torch

import cutlassgen as cg
from cutlassgen.timing import host_us_per_call




def main():
    arch = torch.cuda.get_device_capability()
    arch = arch[0] * 10 + arch[1]
    spec = cg.GemmSpec(arch=90 if arch == 90 else 80, a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    k = cg.build(spec, dispatch=False)
    a = torch.randn(64, 64, device="cuda").bfloat16()
    w = torch.randn(64, 64, device="cuda").bfloat16()
    bias = torch.randn(64, device="cuda").bfloat16()
    out = torch.empty(64, 64, device="cuda", dtype=torch.bfloat16)
    rows = []
    for _ in range(3):
        rows.append((host_us_per_call(lambda: torch.mm(a, w.t())), host_us_per_call(lambda: k(a, w.t(), bias=bias)),
                     host_us_per_call(lambda: k(a, w.t(), bias=bias, out=out))))
    rows.sort(key=lambda r: r[1])
    mm, ours, ours_out = rows[len(rows) // 2]
    print(f"torch.mm: {mm:.2f} us/call; cutlassgen kernel: {ours:.2f} us/call (+{ours - mm:.2f}); "
          f"with out=: {ours_out:.2f} us/call (+{ours_out - mm:.2f})   [median of 3 runs x 20000 calls]")


if __name__ == "__main__":
    main()
