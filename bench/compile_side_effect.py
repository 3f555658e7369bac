"""Does torch.compile in the same process change how fast cuBLAS runs the decode anchors?

bench_anchors.py's warm runs with --compile (runs 15-47 and 71) have cuBLAS mm at 64x6144x4096 at 191-202 TFLOP/s,
its runs without at 181-188, while ours stays at 179-191 in both (bench/NOTES.md, session 79). This script times the
decode shapes as bench_anchors.py does (warm, interleaved rounds, median of 20 runs each) in three phases: before any
compile, after torch.compile(max-autotune-no-cudagraphs) of bench_anchors.py's fp8 chain at one anchor shape, and
after it at the other four. In each phase it times the tensors made before any compile and tensors made in that phase
(whether the change follows where the operands lie in memory), and lists the kernels cuBLAS mm launches
(torch.profiler) and the matmul settings torch exposes.

Session 79 (bench/results/h200_compile_side_effect.log): no. cuBLAS mm ran 193 / 206 TFLOP/s at 64x6144x4096 on the
first / new tensors before any compile and the same after (one nvjet kernel throughout), ours 180-181: its warm speed
there follows the process and the tensor set.

Run: python bench/compile_side_effect.py [--rounds 7]   (needs an sm90 GPU; ~3 minutes, most of it torch.compile)
"""
import argparse
import statistics

import torch
import torch.nn.functional as F

import cutlassgen as cg
from bench_anchors import DECODE_SHAPES, SHAPES, auto_spec, bf16_operands, unfused_fp8_chain
from cutlassgen.golden import rel_error
from cutlassgen.timing import interleaved_rounds_ms, paired_ratio

# the decode shapes the compiled runs moved most (64x6144x4096) and two that did not (bench/anchor_history.py)
WATCHED = [(64, 6144, 4096), (64, 8192, 8192), (32, 4096, 14336)]


def compile_fp8_chain(M, N, K):
    """bench_anchors.py's torch.compile contender at one shape, autotuned now (its inputs are dropped after)."""
    unfused_fp8 = unfused_fp8_chain(*bf16_operands(M, N, K, seed=1), torch.tensor([0.5], device="cuda"))
    torch._dynamo.reset()
    torch.compile(unfused_fp8, mode="max-autotune-no-cudagraphs", dynamic=False)()
    torch.cuda.synchronize()


def cublas_kernels(a, w) -> list[str]:
    """The CUDA kernels torch.mm(a, w.t()) launches."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            torch.mm(a, w.t())
        torch.cuda.synchronize()
    return sorted({e.key for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA})


def settings() -> str:
    m = torch.backends.cuda.matmul
    return (f"allow_tf32={m.allow_tf32} allow_bf16_reduced={m.allow_bf16_reduced_precision_reduction} "
            f"allow_fp16_reduced={m.allow_fp16_reduced_precision_reduction} "
            f"blas={torch.backends.cuda.preferred_blas_library()} "
            f"allocated={torch.cuda.memory_allocated() / 2**20:.0f} MiB "
            f"reserved={torch.cuda.memory_reserved() / 2**20:.0f} MiB")


def phase(name, kernel, first, rounds):
    print(f"\n## {name}: {settings()}", flush=True)
    for M, N, K in WATCHED:
        flop = 2 * M * N * K
        sets = (("first tensors", first[(M, N, K)]), ("new tensors", bf16_operands(M, N, K, seed=2)))
        for which, (a, w, bias) in sets:
            ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
            assert rel_error(kernel(a, w.t(), bias=bias), ref) < 1.5e-2
            timed = {"cublas_mm": lambda: torch.mm(a, w.t()),
                     "cublaslt_fused": lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True),
                     "ours": lambda: kernel(a, w.t(), bias=bias)}
            r = interleaved_rounds_ms(timed, rounds=rounds, reps=20, seed=M * 7 + N)
            tf = {col: flop / statistics.median(ms) / 1e9 for col, ms in r.items()}
            print(f"{M}x{N}x{K} {which}: cuBLAS mm {tf['cublas_mm']:.0f}, cuBLASLt fused {tf['cublaslt_fused']:.0f}, "
                  f"ours {tf['ours']:.0f} TFLOP/s; ours / cuBLAS mm {paired_ratio(r['ours'], r['cublas_mm'])}",
                  flush=True)
            print(f"  cuBLAS mm kernels: {', '.join(cublas_kernels(a, w))}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    kernel = cg.build(auto_spec(), shapes=DECODE_SHAPES)  # bench_anchors.py's auto+shapes at the decode shapes
    print(kernel, flush=True)
    first = {shape: bf16_operands(*shape, seed=0) for shape in WATCHED}
    phase("before any torch.compile", kernel, first, args.rounds)
    compile_fp8_chain(*SHAPES[3])
    phase(f"after torch.compile at {'x'.join(map(str, SHAPES[3]))}", kernel, first, args.rounds)
    for shape in SHAPES[:3] + SHAPES[4:]:
        compile_fp8_chain(*shape)
    phase("after torch.compile at the other four anchor shapes", kernel, first, args.rounds)


if __name__ == "__main__":
    main()
