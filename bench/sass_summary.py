"""What ptxas made of a kernel, read from its SASS on a machine without a GPU: for each named tile (built, or a cache
hit), its instruction count, its warpgroup MMAs by form (SS: both operands from shared memory; RS: A from registers),
the warpgroup waits and arrives, and the local-memory loads and stores (spills: ptxas -v gives their bytes, not where
they are), split into those between the first and last MMA (the consumer's mainloop) and the rest. With --setting
each tile is also built under a lower setting, side by side (e.g. OVERLAPPED_PROMOTION=False).

Run: python bench/sass_summary.py [--cuobjdump PATH] [--setting NAME=VALUE] KIND/TILE ...
     e.g. python bench/sass_summary.py "fp8_scaled/128x128x128 c1x1 coop" --setting OVERLAPPED_PROMOTION=False
KIND is a spec maker of tile_probe.py (bias_gelu, fp8_scaled, fp8_scaled_fast, ...), TILE a tile_probe.py tile name.
cuobjdump need not come with the CUDA toolkit: `pip download nvidia-cuda-cuobjdump` has it (nvidia/cu13/bin), and
it reads sm_90a cubins without a GPU.
"""
import argparse
import collections
import re

import tile_probe
from sass_opcodes import sass
from tile_probe import build_variants, tile_named
from tile_probe import parse_setting as setting  # NAME=VALUE, as setting_check.py reads it

# an MMA's operands with A from registers: "R24, R120, gdesc[UR8], R24" (SS: "R24, gdesc[UR8], RZ")
A_FROM_REGISTERS = re.compile(r"\s*R\d+,\s*R\d+,\s*gdesc")
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][\w.]*)([^;]*);")


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
            "spill loads in / outside the mainloop": (count("LDL", True), count("LDL", False))}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("kernels", nargs="+", metavar="KIND/TILE")
    ap.add_argument("--setting", type=setting, action="append", default=[], metavar="NAME=VALUE",
                    help="also build each tile under this lower setting (repeatable: each one a variant)")
    ap.add_argument("--cuobjdump", default="cuobjdump")
    args = ap.parse_args()
    entries = []
    for item in args.kernels:
        kind, _, name = item.partition("/")
        make = getattr(tile_probe, kind, None)
        if not callable(make) or not name:
            ap.error(f"{item!r}: KIND/TILE with KIND a spec maker of tile_probe.py, e.g. fp8_scaled/128x128x128 c1x1")
        for variant in [{}, *({n: v} for n, v in args.setting)]:
            entries.append((f"{item} {variant or '(defaults)'}", make(tile_named(name)), variant))
    for (label, _, _), kernel in zip(entries, build_variants([(spec, v) for _, spec, v in entries])):
        print(label)
        for key, value in summary(sass(kernel, args.cuobjdump)).items():
            print(f"    {key}: {value}")


if __name__ == "__main__":
    main()
