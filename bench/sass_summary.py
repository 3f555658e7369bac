"""What ptxas made of a kernel, read from its SASS on a machine without a GPU: for each named tile (built, or a cache
hit), its instruction count, its warpgroup MMAs by form (SS: both operands from shared memory; RS: A from registers),
the warpgroup waits and arrives, and the local-memory loads and stores (spills: ptxas -v gives their bytes, not where
they are), split into those between the first and last MMA (the consumer's mainloop) and the rest; and the loops
around the MMAs: the k-tile loop (the shortest backward branch over an MMA), the tile loop around it, and the code
each tile runs before its k-tile loop. With --setting each tile is also built under a lower setting, side by side
(e.g. OVERLAPPED_PROMOTION=False); with --diff, each variant's k-tile loop and per-tile code before it are printed as
a diff against the tile's build with the defaults (register names and all), where ptxas scheduled a loop otherwise.

Run: python bench/sass_summary.py [--cuobjdump PATH] [--setting NAME=VALUE] [--diff] KIND/TILE ...
     e.g. python bench/sass_summary.py "fp8_scaled/128x128x128 c1x1 coop" --setting OVERLAPPED_PROMOTION=False
KIND is a spec maker of tile_probe.py (bias_gelu, fp8_scaled, fp8_scaled_fast, ...), TILE a tile_probe.py tile name.
cuobjdump need not come with the CUDA toolkit: `pip download nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm` has both
(nvidia/cu13/bin; cuobjdump runs nvdisasm from PATH), and they read sm_90a cubins without a GPU.
"""
import argparse
import collections
import difflib
import re

import tile_probe
from sass_opcodes import sass
from tile_probe import build_variants, tile_named
from tile_probe import parse_setting as setting  # NAME=VALUE, as setting_check.py reads it

# an MMA's operands with A from registers: "R24, R120, gdesc[UR8], R24" (SS: "R24, gdesc[UR8], RZ")
A_FROM_REGISTERS = re.compile(r"\s*R\d+,\s*R\d+,\s*gdesc")
PREDICATE = r"(?:@!?U?P\w+\s+)?"
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+" + PREDICATE + r"([A-Z][\w.]*)([^;]*);")  # opcode, operands
ADDRESSED = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(" + PREDICATE + r"[A-Z][^;]*);")  # address, whole instruction
BRANCH_TARGET = re.compile(r"\bBRA(?:\.\w+)* (?:\w+, )?(0x[0-9a-f]+)")


def loops(text: str) -> dict:
    """The k-tile loop (the shortest backward branch over an MMA) and the tile loop (the shortest around that) as
    (first, last) addresses, and their instructions: {"k loop": ..., "tile loop": ..., "before k loop": [...], "k loop
    code": [...]} (None and [] where there is no such loop)."""
    code = [(int(m.group(1), 16), re.sub(r"\s+", " ", m.group(2)).strip()) for m in ADDRESSED.finditer(text)]
    backward = [(int(t.group(1), 16), at) for at, ins in code if (t := BRANCH_TARGET.search(ins))
                and int(t.group(1), 16) < at]
    mmas = [at for at, ins in code if re.search(r"\b[HQI]GMMA\.", ins)]
    k_loops = [(lo, hi) for lo, hi in backward if any(lo <= at <= hi for at in mmas)]
    k_loop = min(k_loops, key=lambda r: r[1] - r[0], default=None)
    tile_loops = [(lo, hi) for lo, hi in backward if k_loop and lo < k_loop[0] and hi > k_loop[1]]
    tile_loop = min(tile_loops, key=lambda r: r[1] - r[0], default=None)

    def between(lo, hi):
        return [ins for at, ins in code if lo <= at <= hi]
    return {"k loop": k_loop, "tile loop": tile_loop,
            "k loop code": between(*k_loop) if k_loop else [],
            "before k loop": between(tile_loop[0], k_loop[0] - 1) if tile_loop else []}


def summary(text: str) -> dict:
    """Counts over a kernel's cuobjdump -sass text (see the module docstring)."""
    ops = [(m.group(1), m.group(2)) for m in INSTRUCTION.finditer(text)]
    mma_at = [i for i, (op, _) in enumerate(ops) if op.startswith(("HGMMA", "QGMMA", "IGMMA"))]
    first, last = (mma_at[0], mma_at[-1]) if mma_at else (0, -1)
    forms = collections.Counter()
    for i in mma_at:
        op, operands = ops[i]
        forms[op + (" RS" if A_FROM_REGISTERS.match(operands) else " SS")] += 1

    def count(prefix, inside):
        return sum(1 for i, (op, _) in enumerate(ops) if op.startswith(prefix) and (first <= i <= last) == inside)
    return {"instructions": len(ops), "mma forms": dict(forms),
            "waits": sum(op.startswith("WARPGROUP.DEPBAR") for op, _ in ops),
            "arrives": sum(op == "WARPGROUP.ARRIVE" for op, _ in ops),
            "spill stores in / outside the mainloop": (count("STL", True), count("STL", False)),
            "spill loads in / outside the mainloop": (count("LDL", True), count("LDL", False)),
            **loop_sizes(text)}


def loop_sizes(text: str) -> dict:
    """Instructions in the k-tile loop, in the tile loop around it, and in each tile's code before the k-tile loop."""
    found = loops(text)
    tile = found["tile loop"]
    return {"k-tile loop instructions": len(found["k loop code"]),
            "tile loop instructions": (tile[1] - tile[0]) // 16 + 1 if tile else 0,
            "per tile before the k-tile loop": len(found["before k loop"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="+", metavar="KIND/TILE")
    ap.add_argument("--setting", type=setting, action="append", default=[], metavar="NAME=VALUE",
                    help="also build each tile under this lower setting (repeatable: each one a variant)")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    ap.add_argument("--diff", action="store_true",
                    help="print each variant's k-tile loop and per-tile code before it as a diff against the "
                         "tile's build with the defaults")
    args = ap.parse_args()
    entries = []
    for item in args.kernels:
        kind, _, name = item.partition("/")
        make = getattr(tile_probe, kind, None)
        if not callable(make) or not name:
            ap.error(f"{item!r}: KIND/TILE with KIND a spec maker of tile_probe.py, e.g. fp8_scaled/128x128x128 c1x1")
        for variant in [{}, *({n: v} for n, v in args.setting)]:
            entries.append((f"{item} {variant or '(defaults)'}", make(tile_named(name)), variant))
    for (label, _, variant), kernel in zip(entries, build_variants([(spec, v) for _, spec, v in entries])):
        text = sass(kernel, args.cuobjdump)
        print(label)
        for key, value in summary(text).items():
            print(f"    {key}: {value}")
        if args.diff:
            found = (label, loops(text))
            if not variant:  # each tile's build with the defaults, which its variants are diffed against
                shipped = found
            else:
                print(loop_diff(shipped, found))


def loop_diff(before: tuple, after: tuple) -> str:
    """A unified diff of two builds' (label, loops()) k-tile loops and per-tile code before them."""
    return "".join("".join(difflib.unified_diff([i + "\n" for i in before[1][part]], [i + "\n" for i in after[1][part]],
                                                f"{before[0]}: {part}", f"{after[0]}: {part}", n=2))
                   for part in ("before k loop", "k loop code"))


if __name__ == "__main__":
    main()
