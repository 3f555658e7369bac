"""What lower.TAIL_LOADS changes in a kernel's code where M fills its last tile (the anchors' shapes): each named
bench_anchors.py kernel is built under two settings (no GPU needed) and its SASS compared. Prints each build's
instruction count, whether the consumers' mainloop (first to last warpgroup MMA) is the same instructions, and the
stretches that differ (of 4 or more instructions; --all-stretches for every one). Before comparing, what moves when
code or Params grow is masked: hex constants (branch targets; the fitted box's 128-byte descriptor shifts Params'
offsets) and register numbers. bench/results/sass_tail_loads.log holds a run.
With --sources, nothing compiles: it counts the GPU tests' kernels (the suite's and each per-shape case's) whose
source differs between the two settings, the kernels a change of default sends back to the GPU; given more settings,
also those whose source under the first differs from every other's.

Run: python bench/tail_loads_sass.py [--modes swap_ab all] [--cuobjdump PATH] [KIND/TILE ...]
     e.g. python bench/tail_loads_sass.py "bias_gelu/128x256x64 c2x1 coop"   (needs cuobjdump; no GPU)
     python bench/tail_loads_sass.py --sources [--modes swap_ab+m64 swap_ab all]
"""
import argparse
import difflib
import pathlib
import re
import sys

import cutlassgen as cg
from bench_anchors import specs
from cutlassgen import lower
from sass_opcodes import sass
from tile_probe import build_variants


def instructions(text: str) -> list:
    """The SASS instructions with what a change elsewhere renumbers masked: addresses, encodings and hex constants
    (branch targets and Params offsets move when code or Params grow) and register numbers (allocation)."""
    lines = [line for line in text.splitlines() if re.match(r"\s+/\*[0-9a-f]{4,}\*/", line)]
    masked = []
    for line in lines:
        line = re.sub(r"/\*[0-9a-f]+\*/|;.*", "", line)
        line = re.sub(r"\b(U?R|U?P|B)\d+\b", r"\1", re.sub(r"0x[0-9a-f]+", "X", line))
        masked.append(" ".join(line.split()))
    return masked


def mma_span(code: list) -> tuple:
    """From the first warpgroup MMA (HGMMA, QGMMA, IGMMA) to the last: the consumers' mainloop."""
    at = [i for i, ins in enumerate(code) if re.search(r"(^|\s)[A-Z]GMMA\.", ins)]
    return (at[0], at[-1] + 1) if at else (0, 0)


def changed_sources(modes: list) -> None:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
    import per_shape_cases
    from gpu_specs import GPU_SPECS

    sets = {"GPU suite": list(GPU_SPECS.values())}
    for name, (spec, shapes, _) in per_shape_cases.cases().items():
        sets[f"per-shape {name}"] = per_shape_cases.planned_specs(spec, shapes)
    first, others = modes[0], modes[1:]
    for what, specs_ in sets.items():
        sources = {}
        for mode in modes:
            with lower.settings(TAIL_LOADS=mode):
                sources[mode] = [cg.render(s) for s in specs_]
        line = ", ".join(f"{sum(x != y for x, y in zip(sources[first], sources[m]))} differ from {m}" for m in others)
        if len(others) > 1:  # 0 here: each kernel is one that the other settings already build
            unlike = sum(all(x != sources[m][i] for m in others) for i, x in enumerate(sources[first]))
            line += f", {unlike} from each of them"
        print(f"{what}, {len(specs_)} kernels under {first}: {line}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modes", nargs="+", default=["swap_ab", "all"], choices=lower.TAIL_LOAD_MODES,
                    help="two to compare; with --sources the first against each of the others")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--sources", action="store_true", help="count the GPU tests' kernels whose source differs")
    ap.add_argument("--all-stretches", action="store_true", help="print every changed stretch, not only those of "
                    "4 or more instructions (the rest are mostly the scheduler's reorderings)")
    ap.add_argument("kernels", nargs="*", default=["bias_gelu/128x256x64 c2x1 coop"], metavar="KIND/TILE",
                    help="bench_anchors.py's specs() keys, joined by /")
    args = ap.parse_args()
    if len(args.modes) < 2 or (len(args.modes) > 2 and not args.sources):
        ap.error("--modes: two settings (with --sources, two or more)")
    if args.sources:
        changed_sources(args.modes)
        return 0
    table = specs()
    wanted = [tuple(k.split("/", 1)) for k in args.kernels]
    for key in wanted:
        if key not in table:
            ap.error(f"{'/'.join(key)}: not one of {', '.join('/'.join(k) for k in table)}")
    kernels = build_variants([(table[k], {"TAIL_LOADS": m}) for m in args.modes for k in wanted])  # one ninja run
    built = {m: kernels[i * len(wanted):(i + 1) * len(wanted)] for i, m in enumerate(args.modes)}
    first, second = args.modes
    for i, key in enumerate(wanted):
        a, b = (instructions(sass(built[m][i], args.cuobjdump)) for m in args.modes)
        (a0, a1), (b0, b1) = mma_span(a), mma_span(b)
        if a1 == a0:
            print(f"{'/'.join(key)}: no warpgroup MMA found in the SASS")
            continue
        blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
        changed = [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in blocks if tag != "equal"]
        inside = [c for c in changed if c[0] < a1 and c[1] > a0]
        print(f"{'/'.join(key)}: {first} {len(a)} instructions, {second} {len(b)}; consumers' mainloop ({a1 - a0} "
              f"instructions, first to last MMA) {'identical' if a[a0:a1] == b[b0:b1] else 'CHANGED'} "
              f"(register numbers aside); elsewhere {len(changed) - len(inside)} changed stretches, "
              f"{sum(i2 - i1 for i1, i2, _, _ in changed)} of {first}'s instructions -> "
              f"{sum(j2 - j1 for _, _, j1, j2 in changed)} of {second}'s")
        for i1, i2, j1, j2 in changed:
            if i2 - i1 + j2 - j1 >= 4 or args.all_stretches:
                print(f"  {first}[{i1}:{i2}] -> {second}[{j1}:{j2}]: {' ; '.join(b[j1:j2])[:300]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
