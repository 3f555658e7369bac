"""The main job: build the built-in default spec (nn.Linear + bias + GELU), check it, time it.

With a GPU it runs the kernel against the float64 reference and times it against the unfused PyTorch chain and
cuBLASLt's fused epilogue. Without one it validates, renders and compiles the kernel, and says what it could not do.
"""
from __future__ import annotations

import sys
import time

from .epilogue import Activation, Add
from .spec import GemmSpec, Operand


def default_spec(arch: int) -> GemmSpec:
    """bf16 Linear (W given as W.t()) + per-channel bias + gelu_tanh, bf16 out, for arch's path."""
    return GemmSpec(arch=90 if arch == 90 else 80, name="demo_linear_bias_gelu", a=Operand("bf16"),
                    b=Operand("bf16", "column"), d=Operand("bf16"),
                    epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")])


def run(arch: int | None = None) -> int:
    from . import build, reference
    from .golden import rel_error
    from .timing import median_ms

    try:
        import torch
    except ImportError:
        torch = None
    gpu = torch is not None and torch.cuda.is_available()
    if arch is None and gpu:
        major, minor = torch.cuda.get_device_capability()
        arch = major * 10 + minor
    elif arch is None:
        arch = 90
    spec = default_spec(arch)
    print(f"spec {spec.key}: {spec.name}, arch {spec.arch} ({spec.resolved_path} path)")
    t0 = time.perf_counter()
    kernel = build(spec, arch=arch)
    print(f"kernel ready in {time.perf_counter() - t0:.1f} s: {kernel.binary_path}")
    if pipe := kernel.pipeline:
        print(f"pipeline: {pipe['mainloop_stages']} mainloop stages, {pipe['smem_bytes']} bytes of shared memory "
              "per CTA")
    warns = kernel.build_info.get("warnings", [])
    print(f"compiler warnings: {len(warns)}" + "".join(f"\n  {w[:160]}" for w in warns))
    if not gpu:
        print("no CUDA GPU here: the kernel is compiled and cached; run `cutlassgen demo` on a GPU machine to "
              "check and time it", file=sys.stderr)
        return 0
    M = N = K = 4096
    g = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn(M, K, device="cuda", generator=g).bfloat16()
    w = (torch.randn(N, K, device="cuda", generator=g) / K ** 0.5).bfloat16()
    bias = torch.randn(N, device="cuda", generator=g).bfloat16()
    out = kernel(a, w.t(), bias=bias)
    ref = reference(spec, a, w.t(), bias=bias, return_float64=True)
    err = rel_error(out, ref)
    print(f"relative error vs float64 reference: {err:.2e} ({'ok' if err < 1.5e-2 else 'TOO LARGE'})")
    flop = 2 * M * N * K
    ours = median_ms(lambda: kernel(a, w.t(), bias=bias))
    unfused = median_ms(lambda: torch.nn.functional.gelu(a @ w.t() + bias, approximate="tanh"))
    fused = median_ms(lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True))
    for name, ms in (("cutlassgen", ours), ("unfused torch", unfused), ("cuBLASLt fused", fused)):
        print(f"{name:>14}: {ms:.3f} ms  {flop / ms / 1e9:.0f} TFLOP/s")
    return 0 if err < 1.5e-2 else 1
