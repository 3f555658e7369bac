"""Kernels built with a lower setting changed against the same kernels as shipped, on the GPU: both builds of each tile
run on the same inputs, each into a NaN-poisoned out, and must agree bit for bit (a setting that moves work between
threads, not math); each is also compared with its float64 reference. Exits 1 on any mismatch.

Run: python bench/setting_check.py --setting NAME=VALUE [--kinds fp8_scaled,bias_gelu] [--shapes MxNxK,...]
     [--tiles NAME|plan,...] [--reordered]
e.g. --setting PROMOTION_SCHEDULE=halves (needs an sm90 GPU). Each kind is a tile_probe.py spec maker; its tiles are
each shape's shipped tile (tiles.shape_tile), the all-auto default and tile_probe.py's named 128x128x128 c1x1 and
c2x1 cooperative tiles, or with --tiles only the named tiles ("plan" naming each shape's shipped tile). The default
shapes leave rows and columns of the last tiles empty (M and N not multiples of 128), where predication and TMA
clipping matter. Session 63 checked lower.WARPGROUP_STORES with it (branch experiment/warpgroup-stores;
bench/results/h200_setting_check.log).

--reordered is for a setting that adds the same fp32 partial sums in another order, whose output may differ in the
last bits (STREAM_K_REDUCTION=Nondeterministic with --tiles naming stream-K tiles): instead of bit for bit, each
element's error against the float64 reference, as a share of the reference's largest magnitude, must stay within twice
the shipped build's largest (+1e-3), so that one wrong tile among thousands fails where a norm would hide it; and two
calls of the changed build must agree bit for bit unless STREAM_K_REDUCTION is Nondeterministic. Session 64 checked
stream_k_always with it, and the tail split of branch experiment/tail-stream-k (lower.STREAM_K_TAIL there), where it
found NaN left in the output at 2048x8200x1280.
"""
import argparse
import sys

import torch
import torch.nn.functional as F

from cutlassgen import Sm90Tile
from cutlassgen.golden import rel_error
from cutlassgen.lower import lower, settings
from cutlassgen.tiles import shape_tile
from cutlassgen.tuning import label
import tile_probe
from tile_probe import bf16_operands, build_variants, fp8_scaled_operands, parse_setting, parse_shapes, tile_named

SHAPES = [(1000, 2120, 896), (136, 8200, 512), (256, 8192, 1024), (4096, 4096, 4096), (2048, 8192, 8192)]
EXTRA_TILES = [tile_named("128x128x128 c1x1 coop"), tile_named("128x128x128 c2x1 coop")]


def operands(kind: str, M: int, N: int, K: int):
    """(call(kernel, out), float64 reference) for a kind's spec."""
    if kind.startswith("fp8_scaled"):
        a8, w8, bias, sa, sb, ref, _ = fp8_scaled_operands(M, N, K)
        return (lambda k, out: k(a8, w8.t(), scale_a=sa, scale_b=sb, bias=bias, out=out)), ref
    a, w, bias = bf16_operands(M, N, K)
    acc = a.double() @ w.double().t()
    if kind == "bias_gelu":
        return (lambda k, out: k(a, w.t(), bias=bias, out=out)), F.gelu(acc + bias.double(), approximate="tanh")
    if kind == "plain":
        return (lambda k, out: k(a, w.t(), out=out)), acc
    raise ValueError(f"setting_check: no operands for kind {kind!r}")


def build_pairs(specs: dict, before: dict, after: dict, differs: set) -> dict:
    """name -> (kernel under the lower settings `before`, kernel under `after`) for each spec of specs (name -> spec),
    all in one ninja run; a spec not in differs renders the same source either way (one cache key): built once, run
    twice."""
    entries = [(spec, over) for name, spec in specs.items()
               for over in ((before, after) if name in differs else (before,))]
    built = iter(build_variants(entries))
    pairs = {}
    for name in specs:
        first = next(built)
        pairs[name] = (first, next(built) if name in differs else first)
    return pairs


def tiles_at(make, M: int, N: int, K: int, names: str | None) -> list:
    """The tiles checked at one shape: names' tiles ("plan": the shape's shipped tile), or by default the shipped tile
    and EXTRA_TILES."""
    def plan():
        return shape_tile(make(Sm90Tile()), M, N, K) or Sm90Tile()

    if names is None:
        return [plan(), *EXTRA_TILES]
    return [plan() if name == "plan" else tile_named(name) for name in names.split(",")]


def poisoned_runs(kernels, call, M: int, N: int) -> list:
    """The output of each kernel run by call(kernel, out) into its own NaN-filled out (an element a kernel leaves
    unwritten stays NaN)."""
    outs = []
    for k in kernels:
        out = torch.full((M, N), float("nan"), dtype=torch.bfloat16, device="cuda")
        call(k, out)
        outs.append(out)
    return outs


def poisoned_outputs(pair, call, M: int, N: int, ref) -> tuple:
    """(bit for bit equal, [relative error against ref of each]) of a pair of kernels each run by call(kernel, out)
    into its own NaN-filled out (unwritten elements: unequal, and a NaN error)."""
    outs = poisoned_runs(pair, call, M, N)
    return torch.equal(outs[0], outs[1]), [rel_error(o, ref) for o in outs]


def worst_element_error(out, ref) -> float:
    """The largest |out - ref| as a share of ref's largest magnitude (NaN where an element is NaN)."""
    diff = (out.double() - ref).abs().max().item()
    return diff / max(ref.abs().max().item(), 1e-30)


def reordered_outputs(pair, call, M: int, N: int, ref, repeatable: bool) -> tuple:
    """(ok, line) for a pair whose second build may add its fp32 partial sums in another order."""
    shipped, changed, again = poisoned_runs((pair[0], pair[1], pair[1]), call, M, N)
    worst = [worst_element_error(o, ref) for o in (shipped, changed)]
    errs = [rel_error(o, ref) for o in (shipped, changed)]
    same_again = torch.equal(changed, again)
    ok = worst[1] <= 2 * worst[0] + 1e-3 and max(errs) < 2e-2 and (same_again or not repeatable)
    return ok, (f"bitwise equal {torch.equal(shipped, changed)}; two calls equal {same_again}; worst element "
                f"{worst[0]:.3e} (shipped) / {worst[1]:.3e} (changed); rel. error {errs[0]:.3e} / {errs[1]:.3e}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setting", action="append", required=True, type=parse_setting,
                    help="NAME=VALUE (a Python literal or a bare word), repeatable")
    ap.add_argument("--kinds", default="fp8_scaled,bias_gelu", help="tile_probe.py spec makers")
    ap.add_argument("--shapes", type=parse_shapes, default=None, help="MxNxK,... (default: SHAPES)")
    ap.add_argument("--tiles", default=None,
                    help="tile_probe.py tile names, NAME,... ('plan': each shape's shipped tile; default: the plan's "
                         "and two)")
    ap.add_argument("--reordered", action="store_true",
                    help="the setting may reorder fp32 sums: check each element, not bit for bit (see above)")
    args = ap.parse_args()
    changed = dict(args.setting)
    shapes = args.shapes or SHAPES
    specs = {}
    for kind in args.kinds.split(","):
        make = getattr(tile_probe, kind)
        for M, N, K in shapes:
            for tile in tiles_at(make, M, N, K, args.tiles):
                spec = make(tile)
                specs[f"{kind} {label(spec)}"] = (kind, spec)
    with settings(**changed):
        renders = {name: lower(spec) for name, (_, spec) in specs.items()}
    shipped = {name: lower(spec) for name, (_, spec) in specs.items()}
    differs = {name for name in specs if renders[name] != shipped[name]}
    print(f"{changed} changes:", ", ".join(sorted(differs)) or "-", "| not:",
          ", ".join(sorted(set(specs) - differs)) or "-", flush=True)
    kernels = build_pairs({name: spec for name, (_, spec) in specs.items()}, {}, changed, differs)
    failed = 0
    for M, N, K in shapes:
        by_kind = {}
        for name, (kind, _) in specs.items():
            if name not in differs:
                continue
            if kind not in by_kind:
                by_kind[kind] = operands(kind, M, N, K)
            call, ref = by_kind[kind]
            if args.reordered:
                ok, line = reordered_outputs(kernels[name], call, M, N, ref,
                                             repeatable=changed.get("STREAM_K_REDUCTION") != "Nondeterministic")
            else:
                same, errs = poisoned_outputs(kernels[name], call, M, N, ref)
                ok = same and max(errs) < 2e-2
                line = f"bitwise equal {same}; rel. error {errs[0]:.3e} (shipped) / {errs[1]:.3e} (changed)"
            failed += not ok
            print(f"{M}x{N}x{K} {name}: {'ok' if ok else 'FAILED'}; {line}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
