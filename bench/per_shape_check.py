"""A plan change checked on the GPU at the shapes it moves, without the per-shape GPU tests' whole builds (91 kernels
for bf16 in session 52): for each tests/per_shape_cases.py case named, build(spec, shapes=...) at the given shapes
only (all cases' kernels in one parallel build first), each shape's chosen tile asserted to be the one the plan runs
on this GPU (per_shape_cases.planned_tile: tiles.shape_tile's, or the spec's default where tiles.slower_on names this
GPU), each call written into a NaN-poisoned out and compared with the float64 reference. Exits 1 if any shape fails.

Run: python bench/per_shape_check.py [--tail-loads MODE] CASE=MxNxK[,MxNxK...] ...   (needs an sm90 GPU)
     e.g. python bench/per_shape_check.py bf16=90x7000x512,250x5600x512 fp8=250x4400x512
     --tail-loads: cutlassgen.lower.TAIL_LOADS for the kernels built here (default: lower.py's, "swap_ab+m64";
     e.g. never: CuTe's one box of the tile's rows everywhere)
     CASE: a case of tests/per_shape_cases.py, or fp16 (the bf16 case's chain with fp16 operands)
"""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

import torch  # noqa: E402

import cutlassgen as cg  # noqa: E402
import per_shape_cases  # noqa: E402
from cutlassgen import lower  # noqa: E402
from cutlassgen.dtypes import storage  # noqa: E402
from cutlassgen.golden import rel_error  # noqa: E402
from cutlassgen.tuning import label, random_inputs  # noqa: E402
from tile_probe import parse_shapes  # noqa: E402
from tolerances import REL_ERR  # noqa: E402


def specs() -> dict:
    """CASE -> spec: the per-shape GPU tests' cases, and fp16, which takes the 16-bit plan unmeasured: the bf16
    case's chain with fp16 operands."""
    cases = {name: spec for name, (spec, *_) in per_shape_cases.cases().items()}
    cases["fp16"] = cases["bf16"].replace(name="fp16_per_shape_check", a=cg.Operand("fp16"),
                                          b=cg.Operand("fp16", "column"), d=cg.Operand("fp16"))
    return cases


def parse(args: list) -> list:
    cases = specs()
    plans = []
    for arg in args:
        name, _, shapes = arg.partition("=")
        if name not in cases or not shapes:
            sys.exit(f"usage: CASE=MxNxK[,MxNxK...] with CASE one of {', '.join(cases)}; got {arg!r}")
        try:
            plans.append((name, cases[name], parse_shapes(shapes)))
        except argparse.ArgumentTypeError as e:
            sys.exit(f"{arg!r}: {e}")
    return plans


def main() -> int:
    ap = argparse.ArgumentParser(description="per-shape plans checked on the GPU at the given shapes")
    ap.add_argument("--tail-loads", choices=lower.TAIL_LOAD_MODES, help="cutlassgen.lower.TAIL_LOADS for this build")
    ap.add_argument("plans", nargs="+", metavar="CASE=MxNxK[,MxNxK...]")
    args = ap.parse_args()
    if args.tail_loads:
        lower.TAIL_LOADS = args.tail_loads
    plans = parse(args.plans)
    cg.build_many([v for _, spec, shapes in plans for v in per_shape_cases.planned_specs(spec, shapes)])
    failed = 0
    for name, spec, shapes in plans:
        k = cg.build(spec, shapes=shapes)
        out_dtype = getattr(torch, storage(spec.d.dtype).torch)
        for M, N, K in shapes:
            # build() returns a plain Kernel where every shape runs the spec's default tile
            chosen = k.choose(M, N, K).spec if hasattr(k, "choose") else k.spec
            torch.manual_seed(M + N + K)
            (a, b), inputs = random_inputs(spec, M, N, K)
            out = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
            k(a, b, **inputs, out=out)
            rel = rel_error(out, cg.reference(spec, a, b, **inputs))  # NaN (a row left unwritten) fails too
            planned = per_shape_cases.planned_tile(spec, M, N, K) or spec.tile
            ok = chosen.tile == planned and rel < REL_ERR[spec.d.dtype]
            failed += not ok
            print(f"{name} {M}x{N}x{K}: {label(chosen)}, rel err {rel:.1e} {'ok' if ok else 'FAILED'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
