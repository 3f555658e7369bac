"""Which (operands, M, N, K) points a plan change moves, worked out without a GPU: tiles.shape_tile of the working
tree against that of a git revision, over every sm90 operand width (bf16, fp16, e4m3 with and without fast
accumulation, int8, tf32) and the sm80 path's timed ones; M = 1-299, 400, 600, 1000, 4096, 8192 and each M bucket's
bound and the point above it, N at and below each N threshold (and the shapes the probes time), K at and above each K
class's bound, 4096, 8192 and "any" (shape_tile without K: as at a large K), the bounds of either plan.
Each run of M that moved from one tile to the same other tile prints as one line, so a change that should touch one
band shows that band and nothing else (sessions 32-36 checked each plan change so, with a script kept in /tmp).

With --loads a point's label is the tile without its weights_evict_first flag plus the L2 policy its kernel loads
the weights with (lower's load hints, where not CUTLASS's own): a flag that renders what a module setting rendered
before shows no move, and a setting that changes the loads of an unchanged tile does (session 82 moved the swapped
tiles' EVICT_FIRST from lower.LOAD_HINTS to the flag: 172,048 points took the flag, all of them the code they had run,
and the points whose loads changed showed nowhere).

Run: python bench/plan_diff.py [REV] [--loads]   (default HEAD; the revision's cutlassgen/ is read with git archive)
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
M_VALUES = [*range(1, 300), 400, 600, 1000, 4096, 8192]
# the shapes the probes time, and N thresholds with a point on each side (grid() adds each tree's own thresholds and
# the points below them, and its M and K bounds with the points above them, so a new bound cannot be missed)
N_VALUES = [512, 1024, 1025, 1536, 1537, 2048, 2049, 2304, 2305, 2560, 2561, 2816, 2817, 3072, 4096, 4224, 4225, 4352,
            4544, 4607, 4608, 4609, 5000, 5120, 5121, 5632, 5633, 6144, 6656, 7040, 7167, 7168, 8192, 8448, 8449,
            9216, 9217, 10240, 11264, 12287, 12288, 12672, 12673, 14336, 28672]
# depths beside the K classes' bounds: the weights' size (N x K) decides tiles.WEIGHTS_FIRST_MIN_BYTES, on both sides
# of it over N_VALUES
K_VALUES = [4096, 8192]

# run in a fresh interpreter with one tree's cutlassgen on its path: prints the bounds of its plan as JSON: "n" the N
# thresholds (sm90 and sm80 path), "m" the M buckets' upper bounds, "k" the K classes' deepest K (a revision without
# one of those tables gives none)
THRESHOLDS = """
import json
from cutlassgen import tiles
tables = [getattr(tiles, name, {}) for name in ("_N_THRESHOLDS", "_SM80_N_THRESHOLDS")]
print(json.dumps({"n": sorted({n for table in tables for ns in table.values() for n in ns if n > 0}),
                  "m": sorted(m for m in getattr(tiles, "BUCKET_UPPER", ()) if m is not None),
                  "k": [k for k in [getattr(tiles, "OPAQUE_PIPELINE_MAX_K", None)] if k is not None]}))
"""
# run likewise: prints {"OPERANDS|M|N|K": tile label} as JSON (K "any": shape_tile without K); with "loads" after
# the grid, the --loads label (lowered once per tile, so the grid takes no longer)
DUMP = """
import dataclasses, json, sys
import cutlassgen as cg
from cutlassgen.lower import lower
from cutlassgen.tiles import shape_tile
from cutlassgen.tuning import label
operands, ms, ns, ks = json.loads(sys.argv[1])
loads = sys.argv[2:] == ["loads"]
memo = {}
def loads_label(s):
    key = (s.a.dtype, s.tile)
    if key not in memo:
        tile = s.tile
        if getattr(tile, "weights_evict_first", False):
            tile = dataclasses.replace(tile, weights_evict_first=False)
        hints = lower(s, 90).get("load_hints") if isinstance(s.tile, cg.Sm90Tile) else None
        weights = hints[0 if s.tile.swap_ab else 1] if hints else None
        memo[key] = label(s.replace(tile=tile)) + ("" if weights in (None, "EVICT_NORMAL") else f", weights {weights}")
    return memo[key]
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
            for k in ks:
                tile = shape_tile(s, m, n) if k == "any" else shape_tile(s, m, n, k)
                at = None if tile is None else s.replace(tile=tile)
                plans[f"{name}|{m}|{n}|{k}"] = "default" if at is None else loads_label(at) if loads else label(at)
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


def grid(*trees: pathlib.Path) -> tuple[list, list, list]:
    """(M values, N values, K values) for trees: M_VALUES with every tree's M bounds and the points just above them,
    N_VALUES with its N thresholds and the points just below them, its K bounds and the points just above them with
    K_VALUES, then "any"."""
    bounds = [_run_in(tree, THRESHOLDS) for tree in trees]
    ms, ns, ks = ({v for b in bounds for v in b[axis]} for axis in ("m", "n", "k"))
    return (sorted(set(M_VALUES) | ms | {m + 1 for m in ms}), sorted(set(N_VALUES) | ns | {n - 1 for n in ns}),
            [*sorted(ks | {k + 1 for k in ks} | set(K_VALUES)), "any"])


def plans_of(tree: pathlib.Path, ms: list, ns: list, ks: list, loads: bool = False) -> dict:
    """(operands, M, N, K) -> tile label under the cutlassgen package in tree, over the grid ms x ns x ks (loads: the
    --loads label)."""
    plans = _run_in(tree, DUMP, json.dumps([OPERANDS, ms, ns, ks]), *(["loads"] if loads else []))
    return {tuple(int(v) if v.isdigit() else v for v in key.split("|")): tile for key, tile in plans.items()}


def moved(before: dict, after: dict, ms: list) -> list:
    """(operands, N, K, first M, last M, before, after) for each run of consecutive M values (in ms' order) over
    which a point moved between the same two tiles."""
    def order(point):  # by operands, N, K ("any" last), then M
        operands, m, n, k = point
        return operands, n, k == "any", 0 if k == "any" else k, m

    runs = []
    for (operands, m, n, k) in sorted(before, key=order):
        old, new = before[(operands, m, n, k)], after[(operands, m, n, k)]
        if old == new:
            continue
        last = runs[-1] if runs else None
        if (last and last[:3] == (operands, n, k) and last[5:] == (old, new)
                and ms.index(last[4]) + 1 == ms.index(m)):
            runs[-1] = (*last[:4], m, old, new)
        else:
            runs.append((operands, n, k, m, m, old, new))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rev", nargs="?", default="HEAD", help="the git revision to compare with (default HEAD)")
    ap.add_argument("--loads", action="store_true",
                    help="label each point by its tile without weights_evict_first and the L2 policy of its kernel's "
                         "weight loads: what the kernel runs, not what the tile says")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", args.rev, "cutlassgen"], cwd=ROOT, capture_output=True)
        if archive.returncode != 0:
            sys.exit(f"plan_diff: git archive {args.rev}: {archive.stderr.decode().strip()}")
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(tmp, filter="data")
        ms, ns, ks = grid(pathlib.Path(tmp), ROOT)
        before = plans_of(pathlib.Path(tmp), ms, ns, ks, args.loads)
    after = plans_of(ROOT, ms, ns, ks, args.loads)
    runs = moved(before, after, ms)
    for operands, n, k, first, last, old, new in runs:
        rows = f"M {first}" if first == last else f"M {first}-{last}"
        print(f"{operands:10s} N {n:5d} K {k:>5} {rows:11s} {old} -> {new}")
    points = sum(ms.index(last) - ms.index(first) + 1 for *_, first, last, _, _ in runs)
    print(f"{points} of {len(before)} points moved ({len(runs)} runs), {args.rev} -> working tree")


if __name__ == "__main__":
    main()
