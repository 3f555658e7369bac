"""What build(spec, shapes=...) runs on this GPU where the plan names another tile for some GPU models
(tiles.instead_on): the DispatchKernel's choice, its output against float64, and its time beside the plan's own tile
and the spec's default (device events, median, L2 flushed before each run).

Run: python bench/instead_on_check.py [--shapes MxNxK,...] [--reps N]   (needs an sm90 GPU)
"""
import argparse
import pathlib

import torch

import cutlassgen as cg
from cutlassgen import dispatch
from cutlassgen.golden import rel_error
from cutlassgen.tiles import instead_on, shape_tile
from cutlassgen.timing import l2_flush, median_ms
from cutlassgen.tuning import label
from tile_probe import parse_shapes

SPEC = pathlib.Path(__file__).resolve().parents[1] / "examples/specs/bias_gelu_bf16_sm90.toml"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", type=parse_shapes, default=[(4096, 14336, 4096), (2048, 28672, 4096),
                                                            (1024, 14336, 4096), (8192, 14336, 4096)])
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()
    spec = cg.load_spec(SPEC)
    plan = [spec.replace(tile=shape_tile(spec, *s)) for s in args.shapes]
    k, default, *planned = cg.build_many([spec, spec] + plan, shapes=[args.shapes, None] + [None] * len(plan))
    name = torch.cuda.get_device_name()
    print(f"{name}; {k!r}")
    flush = l2_flush()
    for (M, N, K), own in zip(args.shapes, planned):
        g = torch.Generator(device="cuda").manual_seed(M + N + K)
        a = torch.randn(M, K, generator=g, device="cuda").bfloat16()
        w = (torch.randn(N, K, generator=g, device="cuda") / K ** 0.5).bfloat16()
        bias = torch.randn(N, generator=g, device="cuda").bfloat16()
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, w.t(), bias=bias, out=out)
        err = rel_error(out, cg.reference(spec, a, w.t(), bias=bias))
        chosen = k.choose(M, N, K)
        times = {what: median_ms(lambda kern=kern: kern(a, w.t(), bias=bias, out=out), reps=args.reps, before=flush)
                 for what, kern in (("dispatch", k), ("plan tile", own), ("default", default))}
        tflops = {what: 2 * M * N * K / ms / 1e9 for what, ms in times.items()}
        instead = instead_on(spec, M, N, shape_tile(spec, M, N, K))
        print(f"{M}x{N}x{K}: runs {'the default' if chosen is k.default else label(chosen.spec)}"
              f" (plan tile {label(own.spec)}, instead on {sorted(instead)}, here: "
              f"{dispatch.model_of(instead, name)}); rel err {err:.1e}; TFLOP/s "
              + ", ".join(f"{what} {v:.0f}" for what, v in tflops.items()), flush=True)


if __name__ == "__main__":
    main()
