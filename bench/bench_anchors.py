"""Generated kernels against the anchors of ANCHORS.md, in one process, on the same inputs.

Run: python bench/bench_anchors.py [--compile] [--cold] [--out results.md] [--build-only]   (needs an sm90 GPU)
Times are device-event timings after warm-up (cutlassgen.timing.median_ms: the host's launch time is hidden behind
a GPU spin), median of 20 runs, then the median of 7 rounds that interleave every contender of a shape in a
shuffled order (a new seed per shape). 15 rounds since session 6 (7 before): two copies of the same kernel measured
670 and 702 TFLOP/s at 8192^3 in run 6, where the power-capped clock follows whatever ran just before. Inputs stay
in L2 between runs, as in ANCHORS.md; with --cold a 512 MiB read before every timed run, outside its events, leaves
none of them there (cutlassgen.timing.l2_flush), as for a layer in a model. TFLOP/s = 2*M*N*K / time.
"""
import argparse
import pathlib
import statistics
import sys

import torch
import torch.nn.functional as F

import cutlassgen as cg
from cutlassgen import Activation, Add, Amax, GemmSpec, Operand, Quantize, Sm90Tile
from cutlassgen import dispatch
from cutlassgen.dispatch import DispatchKernel
from cutlassgen.golden import rel_error
from cutlassgen.timing import interleaved_rounds_ms, l2_flush, paired_ratio
from tile_probe import fp8_scaled

ROUNDS = 15  # shuffled interleaved rounds per shape; a contender's number is the median of its rounds
SHAPES = [(8192, 8192, 8192), (4096, 14336, 4096), (2048, 8192, 8192), (256, 8192, 8192), (32, 8192, 8192)]
# The decode target (M <= 64, N, K >= 4096: bf16 bias+gelu vs cuBLAS mm) beyond ANCHORS.md's M = 32: the other
# decode buckets and Llama-class MLP shapes. Only the bf16 contenders run on these.
DECODE_SHAPES = [(16, 8192, 8192), (64, 8192, 8192), (32, 14336, 4096), (32, 4096, 14336), (64, 14336, 4096),
                 (64, 4096, 14336), (64, 6144, 4096)]  # the last: Llama-3-8B's fused QKV projection
COOP = {"mainloop": "cooperative"}
PP = {"mainloop": "pingpong"}
# The best tiles of bench/tile_probe.py and the tile study (bench/results/): 128x256 for large M, 128x128 at
# M = 256 (the tile cuBLASLt runs there), swap_ab for decode (D^T = W x^T: N tiled 64 rows at a time, M fits a
# CTA N of 32).
BF16_TILES = {
    "128x256x64 c2x1 coop": Sm90Tile(cta=(128, 256, 64), cluster=(2, 1, 1), **COOP),
    # cuBLASLt's tile at 8192^3; the best at 2048x8192x8192 in tile_probe.py epilogue (session 6)
    "256x128x64 c1x2 coop": Sm90Tile(cta=(256, 128, 64), cluster=(1, 2, 1), **COOP),
    # pingpong hides one warpgroup's bias+gelu epilogue behind the other's mainloop: 2-4% over 128x256 coop at
    # 4096x14336x4096 (tile_probe.py pingpong, run 29), behind it at 8192^3
    "128x128x64 c1x2 pingpong": Sm90Tile(cta=(128, 128, 64), cluster=(1, 2, 1), **PP),
    "128x128x64 c2x1 coop": Sm90Tile(cta=(128, 128, 64), cluster=(2, 1, 1), **COOP),
    "128x128x64 c1x1 coop": Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1), **COOP),
    "swap 64x32x128 pingpong": Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), swap_ab=True, **PP),
}
# fp8 scaled, fast accumulation (no promotion): timed against torch._scaled_mm(use_fast_accum=True)
FP8_TILES = {
    "128x256x128 c2x1 fastacc": Sm90Tile(cta=(128, 256, 128), cluster=(2, 1, 1), fp8_fast_accum=True),
    "128x128x128 c2x1 fastacc": Sm90Tile(cta=(128, 128, 128), cluster=(2, 1, 1), fp8_fast_accum=True),
    # 128 rows per warpgroup, pingpong: the epilogue's three broadcasts overlap the other warpgroup's mainloop
    # (tile_probe.py pingpong, run 5: +4% over 128x256 coop at 4096x14336x4096, +1% at M = 256)
    "128x128x128 c2x1 pingpong fastacc": Sm90Tile(cta=(128, 128, 128), cluster=(2, 1, 1), fp8_fast_accum=True, **PP),
    "128x128x128 c1x1 pingpong fastacc": Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), fp8_fast_accum=True, **PP),
    "swap 64x32x128 pingpong fastacc": Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), fp8_fast_accum=True,
                                                swap_ab=True, **PP),
}
# fp8 scaled, exact accumulation (promoted to fp32 every 128 of K): timed against torch._scaled_mm's default. The
# promotion buffer doubles the accumulators, so no 128x256 tile and no 128-row pingpong (validate refuses both).
FP8_EXACT_TILES = {
    "128x128x128 c1x1 coop": Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), **COOP),  # the spec's default
    "128x128x128 c2x1 coop": Sm90Tile(cta=(128, 128, 128), cluster=(2, 1, 1), **COOP),
    "128x128x128 c1x2 coop": Sm90Tile(cta=(128, 128, 128), cluster=(1, 2, 1), **COOP),
    "swap 64x32x128 pingpong": Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), swap_ab=True, **PP),
}


# Datasheet HBM bandwidth (TB/s) by device name: the roof of a decode GEMM, which streams the weights once. The bench
# runs on whichever card the session gets, and an H100's roof is not the H200's (session 94's H100 labelled its
# shares "of 4.8 TB/s"). The first name found in the device's counts; a GH200's roof depends on its memory (HBM3 or
# HBM3e), so it has none.
HBM_TBPS = {"GH200": None, "H200": 4.8, "H100 NVL": 3.9, "H100 PCIe": 2.0, "H100": 3.35}


def hbm_tbps(device_name: str):
    """The datasheet HBM bandwidth of the named device in TB/s; None for one HBM_TBPS lists without a roof or lacks."""
    return next((tbps for name, tbps in HBM_TBPS.items() if name in device_name), None)


def decode_table(rows, roof_tbps) -> list[str]:
    """The decode table's lines. Besides TFLOP/s, each side's bandwidth over the bytes the GEMM must move at least
    (A, the weights, bias and D once each, bf16) and its share of the device's HBM roof (roof_tbps, None where it is
    not known): decode is memory-bound, so this is how far from the roof both sides are, not only from each other."""
    roof = f"of the {roof_tbps} TB/s HBM roof" if roof_tbps else "no datasheet HBM roof known for this device"

    def share(tbps: float) -> str:
        return f" ({tbps / roof_tbps:.0%})" if roof_tbps else ""

    lines = ["", f"Decode (bf16 bias+gelu_tanh; target: >= 1.0x cuBLAS mm; TB/s: operands, bias and output moved once, "
                 f"{roof}):", "",
             "| M x N x K | cuBLAS mm | cuBLASLt fused | ours bias+gelu (tile) | vs cuBLAS mm | ours auto+shapes | "
             "vs cuBLAS mm | cuBLAS mm TB/s | ours TB/s |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        M, N, K = map(int, r["shape"].split("x"))
        bytes_per_flop = 2 * (M * K + N * K + N + M * N) / (2 * M * N * K)
        tbps = lambda tflops: tflops * bytes_per_flop  # noqa: E731  (TFLOP/s x bytes per FLOP = TB/s)
        lines.append(f"| {r['shape']} | {r['cublas_mm']:.0f} | {r['cublaslt_fused']:.0f} | {r['ours_best']:.0f} "
                     f"({r['ours_best_tile']}) | {r['ours_best'] / r['cublas_mm']:.2f}x | "
                     f"{r['ours auto+shapes']:.0f} | "
                     f"{r['ours auto+shapes'] / r['cublas_mm']:.2f}x | "
                     f"{tbps(r['cublas_mm']):.2f}{share(tbps(r['cublas_mm']))} | "
                     f"{tbps(r['ours_best']):.2f}{share(tbps(r['ours_best']))} |")
    return lines


def paired_table(rows, decode_rows, r_rounds) -> list[str]:
    """Each target's ratio round by round (ours' best tile of the median against the anchor in the same round):
    whether a median under 1.0 is a gap or a coin toss at parity."""
    lines = ["", f"Per-round ratios (ours / anchor in each of the {ROUNDS} interleaved rounds; ours = the tile with "
                 "the best median, so the rounds inherit that pick):", "",
             "| target | M x N x K | ours (tile) | anchor | median | quartiles | rounds ours >= |",
             "|---|---|---|---|---|---|---|"]
    targets = [("bf16 bias+gelu", "ours ", "ours_best_tile", "cublaslt_fused", rows),
               ("+fp8 quant", "fp8 ", "ours_fp8_tile", "unfused_fp8", rows),
               ("+fp8 quant", "fp8 ", "ours_fp8_tile", "torch_compile_fp8", rows),
               ("fp8 scaled exact", "scaled ", "ours_fp8_scaled_tile", "scaled_mm", rows),
               ("fp8 scaled fast", "scaledfast ", "ours_fp8_fast_tile", "scaled_mm_fast", rows),
               ("decode bias+gelu", "ours ", "ours_best_tile", "cublas_mm",
                [r for r in rows if r["shape"] == "32x8192x8192"] + decode_rows)]
    for what, prefix, tile_col, anchor, target_rows in targets:
        for r in target_rows:
            rounds = r_rounds[r["shape"]]
            if anchor not in rounds:
                continue
            p = paired_ratio(rounds[prefix + r[tile_col]], rounds[anchor])
            lines.append(f"| {what} | {r['shape']} | {r[tile_col]} | {anchor} | {p.median:.3f} | {p.q1:.3f}-{p.q3:.3f} "
                         f"| {p.wins} of {p.rounds} |")
    return lines


def every_tile(rows) -> list[str]:
    """Each row's TFLOP/s per tile of ours, a line per kind that the row timed (decode shapes time bias+gelu alone)."""
    lines = ["", "Every tile of ours (TFLOP/s):", ""]
    for r in rows:
        for prefix, what in (("ours ", "bias+gelu_tanh"), ("fp8 ", "+fp8 quant"), ("scaled ", "fp8 scaled exact"),
                             ("scaledfast ", "fp8 scaled fast accum")):
            tiles = [f"{k[len(prefix):]} {v:.0f}" for k, v in r.items() if k.startswith(prefix)]
            if tiles:
                lines.append(f"- {r['shape']} {what}: " + ", ".join(tiles))
    return lines


def bf16_operands(M, N, K, seed: int = 0):
    """The bf16 inputs of a shape, from a seeded generator: activations, weights scaled to keep the outputs O(1), and a
    bias."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(M, K, device="cuda", generator=g).bfloat16()
    w = (torch.randn(N, K, device="cuda", generator=g) / K ** 0.5).bfloat16()
    bias = torch.randn(N, device="cuda", generator=g).bfloat16()
    return a, w, bias


def unfused_fp8_chain(a, w, bias, scale):
    """The unfused torch chain of the +fp8 quantize target (bias, GELU, amax, per-tensor e4m3 quantize) on these
    tensors, as a function of no arguments: the unfused contender, and what torch.compile compiles."""
    def unfused_fp8():
        y = F.gelu(torch.mm(a, w.t()) + bias, approximate="tanh")
        amax = y.abs().amax()
        return (y.float() * scale).clamp(-448, 448).to(torch.float8_e4m3fn), amax

    return unfused_fp8


def specs():
    out = {}
    for name, tile in BF16_TILES.items():
        out[("bias_gelu", name)] = GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"),
                                            d=Operand("bf16"), tile=tile,
                                            epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")])
    for name in ("128x256x64 c2x1 coop", "128x128x64 c2x1 coop", "swap 64x32x128 pingpong"):
        out[("bias_gelu_fp8", name)] = GemmSpec(
            arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("e4m3"), tile=BF16_TILES[name],
            epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh"), Amax("amax"),
                      Quantize("e4m3", "per_tensor", "scale")])
    for name, tile in FP8_TILES.items():
        out[("fp8_scaled_fast", name)] = fp8_scaled(tile)
    for name, tile in FP8_EXACT_TILES.items():
        out[("fp8_scaled", name)] = fp8_scaled(tile)
    return out


def auto_spec():
    """The all-"auto" example spec: after `cutlassgen tune` on this GPU, build() dispatches to the tuned tile by M."""
    return cg.load_spec(pathlib.Path(__file__).resolve().parents[1] / "examples/specs/bias_gelu_bf16_sm90.toml")


def per_shape_plans(auto) -> tuple[dict, dict]:
    """The built-in per-shape heuristic (what build(spec, shapes=...) returns for an all-"auto" spec when no tuning
    record exists), for the bf16 chain (auto) and for fp8 scaled with each accumulation: kind -> (spec, record), and
    kind -> the specs it compiles, the default first."""
    plans = {kind: (spec, dispatch.heuristic_record(spec, shapes)) for kind, spec, shapes in (
        ("bias_gelu", auto, SHAPES + DECODE_SHAPES),
        ("fp8_scaled", fp8_scaled(Sm90Tile()), SHAPES),
        ("fp8_scaled_fast", fp8_scaled(Sm90Tile(fp8_fast_accum=True)), SHAPES))}
    return plans, {kind: [spec, *dispatch.heuristic_variants(spec, plan)] for kind, (spec, plan) in plans.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile(max-autotune-no-cudagraphs)")
    ap.add_argument("--cold", action="store_true",
                    help="flush L2 before every timed run (default: warm, as ANCHORS.md)")
    ap.add_argument("--build-only", action="store_true",
                    help="compile the kernels and stop (a GPU session builds them beside its test suite's)")
    args = ap.parse_args()
    flush = l2_flush() if args.cold else None
    table = specs()
    auto = auto_spec()
    record = dispatch.read_record(auto, 90) or {"winners": []}
    extra = [auto.replace(tile=w["tile"]) for w in record["winners"]]
    plans, plan_specs = per_shape_plans(auto)
    built = cg.build_many(list(table.values()) + extra + [s for group in plan_specs.values() for s in group])
    kernels = dict(zip(table, built))  # one ninja run above
    at = len(table) + len(extra)
    for kind, group in plan_specs.items():
        default, *variants = built[at:at + len(group)]
        at += len(group)
        kernels[(kind, "auto+shapes")] = dispatch.with_heuristic(default, plans[kind][1], variants)
        print(f"per-shape heuristic, {kind}:", kernels[(kind, "auto+shapes")], flush=True)
    tuned = cg.build(auto)
    if args.build_only:
        return
    if isinstance(tuned, DispatchKernel):
        print("tuned dispatch:", tuned, flush=True)
        kernels[("bias_gelu", "tuned")] = tuned
    rows, decode_rows, r_rounds = [], [], {}  # r_rounds: shape -> column -> per-round ms
    for M, N, K in SHAPES + DECODE_SHAPES:
        decode_only = (M, N, K) in DECODE_SHAPES
        flop = 2 * M * N * K
        tf = lambda ms: flop / ms / 1e9  # noqa: E731
        a, w, bias = bf16_operands(M, N, K)
        scale = torch.tensor([0.5], device="cuda")
        a8 = a.float().clamp(-448, 448).to(torch.float8_e4m3fn)
        w8 = (w.float() * 16).to(torch.float8_e4m3fn)
        sa = torch.rand(M, 1, device="cuda") + 0.5
        sb = torch.rand(1, N, device="cuda") / 16
        unfused_fp8 = unfused_fp8_chain(a, w, bias, scale)

        # Every contender of this shape: (column, function). Each is checked once, then all are timed in
        # interleaved rounds, so that clock and temperature drift over the run falls on all of them alike.
        timed = {"cublas_mm": lambda: torch.mm(a, w.t()),
                 "unfused_bias_gelu": lambda: F.gelu(torch.mm(a, w.t()) + bias, approximate="tanh"),
                 "cublaslt_fused": lambda: torch._addmm_activation(bias, a, w.t(), use_gelu=True),
                 "unfused_fp8": unfused_fp8,
                 # each accumulation of ours against cuBLASLt's same one: exact (the default), and fast
                 "scaled_mm": lambda: torch._scaled_mm(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias,
                                                       out_dtype=torch.bfloat16),
                 "scaled_mm_fast": lambda: torch._scaled_mm(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias,
                                                            out_dtype=torch.bfloat16, use_fast_accum=True)}
        if decode_only:
            timed = {col: timed[col] for col in ("cublas_mm", "unfused_bias_gelu", "cublaslt_fused")}
        if args.compile and not decode_only:
            torch._dynamo.reset()
            timed["torch_compile_fp8"] = torch.compile(unfused_fp8, mode="max-autotune-no-cudagraphs", dynamic=False)
            timed["torch_compile_fp8"]()  # autotune now, outside the timed rounds
        ref = F.gelu(a.double() @ w.double().t() + bias.double(), approximate="tanh")
        want8 = torch._scaled_mm(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias, out_dtype=torch.bfloat16)
        for (kind, name), k in kernels.items():
            if kind == "bias_gelu":
                out = k(a, w.t(), bias=bias)
                err = rel_error(out, ref)
                assert err < 1.5e-2, (name, err)
                timed[f"ours {name}"] = lambda k=k: k(a, w.t(), bias=bias)
            elif decode_only:
                continue
            elif kind == "bias_gelu_fp8":
                k(a, w.t(), bias=bias, scale=scale)  # fails loudly before timing; checked in the GPU suite
                timed[f"fp8 {name}"] = lambda k=k: k(a, w.t(), bias=bias, scale=scale)
            else:
                got = k(a8, w8.t(), scale_a=sa.reshape(M), scale_b=sb.reshape(N), bias=bias)
                err = rel_error(got, want8)
                assert err < 2e-2, (name, err)
                prefix = "scaledfast" if kind == "fp8_scaled_fast" else "scaled"
                timed[f"{prefix} {name}"] = lambda k=k: k(a8, w8.t(), scale_a=sa.reshape(M), scale_b=sb.reshape(N),
                                                          bias=bias)
        r = {"shape": f"{M}x{N}x{K}"}
        r_rounds[r["shape"]] = interleaved_rounds_ms(timed, rounds=ROUNDS, reps=20, seed=M * 7 + N, before=flush)
        r.update({col: tf(statistics.median(ms)) for col, ms in r_rounds[r["shape"]].items()})

        def best(prefix):
            return max((v, col[len(prefix):]) for col, v in r.items() if col.startswith(prefix))

        r["ours_best"], r["ours_best_tile"] = best("ours ")
        if decode_only:
            decode_rows.append(r)
            print({k: (round(v) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
            continue
        r["ours_fp8_best"], r["ours_fp8_tile"] = best("fp8 ")
        r["ours_fp8_scaled_best"], r["ours_fp8_scaled_tile"] = best("scaled ")
        r["ours_fp8_fast_best"], r["ours_fp8_fast_tile"] = best("scaledfast ")
        rows.append(r)
        print({k: (round(v) if isinstance(v, float) else v) for k, v in r.items()}, flush=True)
    lines = ["| M x N x K | cuBLAS mm | unfused bias+gelu | cuBLASLt fused | ours bias+gelu (tile) | vs cuBLASLt |"
             " vs cuBLAS mm | ours auto+shapes | vs cuBLASLt | unfused +fp8 | torch.compile +fp8 | ours +fp8 (tile) |"
             " vs unfused | vs compile |"
             " _scaled_mm | ours fp8 scaled (tile) | vs _scaled_mm |"
             " _scaled_mm fast accum | ours fast accum (tile) | vs _scaled_mm fast |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        tc = r.get("torch_compile_fp8")
        vs_tc = f"{r['ours_fp8_best'] / tc:.2f}x" if tc else "-"
        lines.append(
            f"| {r['shape']} | {r['cublas_mm']:.0f} | {r['unfused_bias_gelu']:.0f} | {r['cublaslt_fused']:.0f} | "
            f"{r['ours_best']:.0f} ({r['ours_best_tile']}) | {r['ours_best'] / r['cublaslt_fused']:.2f}x | "
            f"{r['ours_best'] / r['cublas_mm']:.2f}x | {r['ours auto+shapes']:.0f} | "
            f"{r['ours auto+shapes'] / r['cublaslt_fused']:.2f}x | {r['unfused_fp8']:.0f} | "
            f"{f'{tc:.0f}' if tc else '-'} | "
            f"{r['ours_fp8_best']:.0f} ({r['ours_fp8_tile']}) | {r['ours_fp8_best'] / r['unfused_fp8']:.2f}x | "
            f"{vs_tc} | "
            f"{r['scaled_mm']:.0f} | {r['ours_fp8_scaled_best']:.0f} ({r['ours_fp8_scaled_tile']}) | "
            f"{r['ours_fp8_scaled_best'] / r['scaled_mm']:.2f}x | "
            f"{r['scaled_mm_fast']:.0f} | {r['ours_fp8_fast_best']:.0f} ({r['ours_fp8_fast_tile']}) | "
            f"{r['ours_fp8_fast_best'] / r['scaled_mm_fast']:.2f}x |")
    lines += decode_table([r for r in rows if r["shape"] == "32x8192x8192"] + decode_rows,
                          hbm_tbps(torch.cuda.get_device_name()))
    lines += paired_table(rows, decode_rows, r_rounds)
    text = "\n".join(lines + every_tile(rows + decode_rows)) + "\n"
    print(text)
    if args.out:
        l2 = "L2 flushed before every timed run" if args.cold else "L2 warm"
        open(args.out, "w").write(f"TFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__}, {l2}; "
                                  f"command: python bench/bench_anchors.py {' '.join(sys.argv[1:])}\n\n" + text)


if __name__ == "__main__":
    main()
