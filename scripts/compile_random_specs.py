"""Compile a varied sample of random valid specs: every spec that validates must compile (validate.py's contract).

    python scripts/compile_random_specs.py --count 30 [--seed 5] [--jobs N] [--plans | --configs SPECS]

Draws specs with tests/random_specs.py, keeps the valid ones, picks --count of them that together cover the most
features (path, dtypes, layouts, alignments, epilogue nodes, tile fields), compiles them in one parallel ninja run
and prints each one's outcome; a failure prints its first compiler lines and its spec as JSON. Exit status 1 if any
failed. Session 76, on the 2-core machine: a first run of 30 (an earlier draft of this script) had 3 fail, each now
a SpecError (the sm80 path's K-major 8-bit operands and its epilogue's access widths); `--count 24` then had 1 fail
in 434 s, a one-sided clamp whose infinite bound was no constant expression (fixed in lower._float_literal);
`--count 30 --seed 11` had 3 fail in 366 s, sm80-path tiles whose thread maps give a thread no copy or a warp no row
(validate._sm80_thread_maps); seeds 13 and 17 compiled 60 of 60, and 24 of the plan's tiles (a draft of --plans) all
compiled.
"""
import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import cutlassgen as cg  # noqa: E402
from cutlassgen.tiles import resolve  # noqa: E402
from random_specs import RandomSpecs  # noqa: E402


def features(spec) -> set:
    """What a spec exercises, for picking a sample that covers much with few compiles."""
    cfg, tile = resolve(spec), spec.tile
    out = {f"path:{spec.resolved_path}", f"arch:{spec.arch}", f"ab:{spec.a.dtype}", f"d:{spec.d.dtype}",
           f"c:{spec.c.dtype if spec.c else None}", f"layouts:{spec.a.layout},{spec.b.layout}",
           *(f"align {o}:{getattr(spec, o).alignment}" for o in ("a", "b", "d")),
           *(f"op:{n.op}" for n in spec.epilogue), f"nodes:{len(spec.epilogue)}",
           *(f"fn:{n.fn}" for n in spec.epilogue if n.op == "activation"),
           *(f"source:{n.source}:{n.dtype}" for n in spec.epilogue if n.op in ("add", "multiply")),
           *(f"quantize:{n.dtype}:{n.scale}" for n in spec.epilogue if n.op == "quantize")}
    if spec.resolved_path == "sm90":
        out |= {f"mainloop:{cfg.mainloop}", f"scheduler:{cfg.scheduler}", f"swap:{cfg.swap_ab}",
                f"cluster:{cfg.cluster}", f"cta m:{cfg.cta[0]}", f"cta n%64:{cfg.cta[1] % 64}", f"cta k:{cfg.cta[2]}",
                f"split_k:{tile.split_k}", f"pdl:{tile.pdl}", f"opaque:{tile.opaque_pipeline}",
                f"weights first:{tile.weights_evict_first}", f"fitted tail:{tile.fitted_tail}",
                f"fast:{tile.fp8_fast_accum}",
                f"epilogue tile:{tile.epilogue_tile}", f"stages:{tile.stages}"}
    else:
        out |= {f"threadblock:{cfg.threadblock}", f"warp:{cfg.warp}", f"stages:{tile.stages}"}
    return out


def varied_sample(specs: list, count: int) -> list:
    """Greedily, the spec adding the most features not yet covered, until count or nothing new."""
    pool, covered, chosen = [(s, features(s)) for s in specs], set(), []
    while pool and len(chosen) < count:
        best = max(range(len(pool)), key=lambda i: len(pool[i][1] - covered))
        spec, feats = pool.pop(best)
        if not feats - covered:
            break
        chosen.append(spec)
        covered |= feats
    return chosen


def plan_variants(spec, rng) -> list:
    """The tiles the per-shape plan adds for an all-"auto" spec at three random shapes (none where it keeps the
    default)."""
    from cutlassgen.dispatch import heuristic_record, heuristic_variants

    shapes = [(rng.choice([1, 8, 24, 40, 64, 72, 100, 128, 136, 160, 192, 200, 240, 256, 384, 512, 2048, 8192]),
               rng.choice([1024, 2048, 4096, 6144, 8192, 10240, 12288, 14336, 28672]),
               rng.choice([1024, 2048, 4096, 8192])) for _ in range(3)]
    try:
        return heuristic_variants(spec, heuristic_record(spec, shapes))
    except cg.SpecError:  # a shape the spec's alignment cannot take
        return []


def tune_variants(spec, rng) -> list:
    """What `cutlassgen tune` would compile for an all-"auto" spec at two random shapes (tuning.candidates: the
    per-shape tiles, the configuration space, and the decode and token-fitted tiles where the shapes ask for them)."""
    from cutlassgen.tuning import candidates

    shapes = [(rng.choice([8, 16, 64, 100, 128, 200, 256, 2048, 8192]), rng.choice([2048, 4096, 8192, 14336]),
               rng.choice([1024, 4096, 8192])) for _ in range(2)]
    try:
        return candidates(spec, shapes)
    except cg.SpecError:  # a shape the spec's alignment cannot take
        return []


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--pool", type=int, default=20000, help="random spec dicts drawn")
    p.add_argument("--jobs", type=int, default=None)
    tiles = p.add_mutually_exclusive_group()
    tiles.add_argument("--plans", action="store_true",
                       help="the per-shape plan's tiles instead: each spec's tile left 'auto', the tiles "
                            "build(spec, shapes=...) adds at three random shapes")
    tiles.add_argument("--configs", type=int, metavar="SPECS", default=0,
                       help="tune's configurations instead: each of the first SPECS valid specs with its tile left "
                            "'auto', what tuning.candidates enumerates for it at two random shapes")
    args = p.parse_args()
    gen, valid, bases = RandomSpecs(args.seed), {}, 0
    variants = plan_variants if args.plans else tune_variants if args.configs else (lambda spec, rng: [spec])
    for _ in range(args.pool):
        d = gen.spec()
        if args.plans or args.configs:
            d.pop("tile", None)
        try:
            spec = cg.GemmSpec.from_dict(d)
        except cg.SpecError:
            continue
        for s in variants(spec, gen.rng):
            valid[s.key] = s
        bases += 1
        if bases == args.configs:
            break
    what = "plan tiles" if args.plans else f"tune configurations of {bases} specs" if args.configs else "valid specs"
    sample = varied_sample(list(valid.values()), args.count)
    print(f"{len(valid)} {what} from random spec dicts; compiling {len(sample)}", flush=True)
    started = time.time()
    try:  # one ninja run (-k 0): what compiles is cached, then each spec is looked up alone below
        cg.build_many(sample, load=False, jobs=args.jobs)
    except cg.BuildError:
        pass
    failed = 0
    for spec in sample:
        try:
            cg.build_many([spec], load=False, jobs=args.jobs)
            print(f"ok      {spec.key}")
        except cg.BuildError as e:
            failed += 1
            print(f"FAILED  {spec.key}\n  " + "\n  ".join(e.first_errors[:3])
                  + f"\n  spec: {json.dumps(spec.to_dict())}")
    print(f"{len(sample) - failed} compiled, {failed} failed, in {time.time() - started:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
