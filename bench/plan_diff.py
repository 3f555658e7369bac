"""Which (operands, M, N) points a plan change moves, worked out without a GPU: tiles.shape_tile of the working tree
against that of a git revision, over every sm90 operand width (bf16, fp16, e4m3 with and without fast accumulation,
int8, tf32) and the sm80 path's timed ones, M = 1-299, 400, 600, 1000, and N at and below each threshold of either
plan (and the shapes the probes time).
Each run of M that moved from one tile to the same other tile prints as one line, so a change that should touch one
band shows that band and nothing else (sessions 32-36 checked each plan change so, with a script kept in /tmp).

Run: python bench/plan_diff.py [REV]   (default HEAD; the revision's cutlassgen/ is read with git archive)
"""
import argparse
import io
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
OPERANDS = ["bf16", "fp16", "e4m3", "e4m3 fast", "int8", "fp32", "sm80 bf16", "sm80 int8"]
M_VALUES = [*range(1, 300), 400, 600, 1000]
# the shapes the probes time, and N thresholds with a point on each side (plans_of adds each tree's own thresholds
# and the points below them, so a new threshold cannot be missed)
N_VALUES = [512, 1024, 1025, 1536, 1537, 2048, 2049, 2304, 2305, 2560, 2561, 2816, 2817, 3072, 4096, 4224, 4225, 4352,
            4544, 4607, 4608, 4609, 5000, 5120, 5121, 5632, 5633, 6144, 6656, 7040, 7167, 7168, 8192, 8448, 8449,
            9216, 10240, 11264, 12287, 12288, 12672, 12673, 14336, 28672]

# run in a fresh interpreter with one tree's cutlassgen on its path: prints the N thresholds of its plan (sm90 and
# sm80 path; a revision without those tables gives none) as JSON
THRESHOLDS = """
import json
from cutlassgen import tiles
tables = [getattr(tiles, name, {}) for name in ("_N_THRESHOLDS", "_SM80_N_THRESHOLDS")]
print(json.dumps(sorted({n for table in tables for ns in table.values() for n in ns if n > 0})))
"""
# run likewise: prints {"OPERANDS M N": tile label} as JSON
DUMP = """
import json, sys
import cutlassgen as cg
from cutlassgen.tiles import shape_tile
from cutlassgen.tuning import label
operands, ms, ns = json.loads(sys.argv[1])
def spec(name):
    arch, _, dtype = name.rpartition(" ") if name.startswith("sm80") else ("sm90", "", name.split()[0])
    out = "fp32" if dtype == "fp32" else "bf16"
    fast = {"tile": cg.Sm90Tile(fp8_fast_accum=True)} if name.endswith("fast") else {}
    return cg.GemmSpec(arch=80 if arch == "sm80" else 90, a=cg.Operand(dtype), b=cg.Operand(dtype, "column"),
                       d=cg.Operand(out), **fast)
plans = {}
for name in operands:
    s = spec(name)
    for m in ms:
        for n in ns:
            tile = shape_tile(s, m, n)
            plans[f"{name}|{m}|{n}"] = "default" if tile is None else label(s.replace(tile=tile))
print(json.dumps(plans))
"""


# cutlassgen from the tree the script runs in (its cwd), ahead of every other finder: an editable install of
# cutlassgen (scripts/dev's .venv) puts its own finder in front of sys.path, which would import the working tree's
# package whatever PYTHONPATH says, and every revision would compare equal to it.
ONLY_TREE = """
import importlib.machinery, os, sys
class TreeFirst:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == "cutlassgen" or name.startswith("cutlassgen."):
            return importlib.machinery.PathFinder.find_spec(name, path or [os.getcwd()], target)
        return None
sys.meta_path.insert(0, TreeFirst)
import cutlassgen
if not os.path.abspath(cutlassgen.__file__).startswith(os.getcwd() + os.sep):
    sys.exit(f"plan_diff: imported cutlassgen from {cutlassgen.__file__}, not from {os.getcwd()}")
"""


def _run_in(tree: pathlib.Path, script: str, *args: str):
    """The JSON that script prints, run with the cutlassgen package in tree (and no other)."""
    out = subprocess.run([sys.executable, "-c", ONLY_TREE + script, *args], cwd=tree, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(tree)})
    if out.returncode != 0:
        sys.exit(f"plan_diff: the plan of {tree} failed:\n{out.stderr.strip()}")
    return json.loads(out.stdout)


def n_values(*trees: pathlib.Path) -> list:
    """N_VALUES with every tree's N thresholds and the points just below them."""
    thresholds = {n for tree in trees for n in _run_in(tree, THRESHOLDS)}
    return sorted(set(N_VALUES) | thresholds | {n - 1 for n in thresholds})


def plans_of(tree: pathlib.Path, ns: list) -> dict:
    """(operands, M, N) -> tile label under the cutlassgen package in tree, at every M of M_VALUES and N of ns."""
    plans = _run_in(tree, DUMP, json.dumps([OPERANDS, M_VALUES, ns]))
    return {tuple(int(v) if v.isdigit() else v for v in key.split("|")): tile for key, tile in plans.items()}


def moved(before: dict, after: dict) -> list:
    """(operands, N, first M, last M, before, after) for each run of consecutive M values (in M_VALUES' order) over
    which a point moved between the same two tiles."""
    runs = []
    for (operands, m, n) in sorted(before, key=lambda k: (k[0], k[2], k[1])):
        old, new = before[(operands, m, n)], after[(operands, m, n)]
        if old == new:
            continue
        last = runs[-1] if runs else None
        if (last and last[:2] == (operands, n) and last[4:] == (old, new)
                and M_VALUES.index(last[3]) + 1 == M_VALUES.index(m)):
            runs[-1] = (*last[:3], m, old, new)
        else:
            runs.append((operands, n, m, m, old, new))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", nargs="?", default="HEAD", help="the git revision to compare with (default HEAD)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.rev, "cutlassgen"], cwd=ROOT, capture_output=True)
        if archive.returncode != 0:
            sys.exit(f"plan_diff: git archive {args.rev}: {archive.stderr.decode().strip()}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        ns = n_values(pathlib.Path(tmp), ROOT)
        before = plans_of(pathlib.Path(tmp), ns)
    after = plans_of(ROOT, ns)
    runs = moved(before, after)
    for operands, n, first, last, old, new in runs:
        rows = f"M {first}" if first == last else f"M {first}-{last}"
        print(f"{operands:10s} N {n:5d} {rows:11s} {old} -> {new}")
    points = sum(M_VALUES.index(last) - M_VALUES.index(first) + 1 for _, _, first, last, *_ in runs)
    print(f"{points} of {len(before)} points moved ({len(runs)} runs), {args.rev} -> working tree")


if __name__ == "__main__":
    main()
