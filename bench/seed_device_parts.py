"""Compile, on a machine without a GPU, the parts of sm90 builds that no Python sees (device parts: cubins; host
parts: the entry points' objects) that a GPU session's builds will need, so that those builds only compile the
binding once and link (cutlassgen/jit/cache.py: kept parts; README: The build system).

    python bench/seed_device_parts.py --out devcalls/seed [--what suite,per_shape,anchors,warm_weights,stages256]
        [--per-shape bf16,fp8,...] [--parts device,host] [--jobs 2]

Each kernel's parts are compiled with the flags a build uses (jit.nvcc_flags_with_includes plus the part's
flags.PART_ARGS) and kept under OUT/device/sm90/<jit.part_key> and OUT/host/sm90/<jit.part_key> as a build keeps
them. Carry OUT to the GPU machine and start its session with SEED_CACHE=OUT
(bench/device_session.sh copies it into the cache). A part is taken there only where the key matches: the same
rendered source, csrc/, flags, nvcc version, CUTLASS version and cutlassgen version.
"""
import argparse
import concurrent.futures
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
NOT_CASES = {"suite", "per_shape", "anchors", "warm_weights"}  # --what's names that are not tile_probe.py cases


def probe_cases(what: set) -> set:
    """The names in --what that are meant as tile_probe.py cases."""
    return what - NOT_CASES


def _named_specs(tile_probe, group, with_plan: bool = True) -> list:
    """The specs of a tile_probe.py case group's named tiles, and with_plan, for its PLAN entry, what
    build(spec, shapes=...) compiles for the group's shapes: the all-auto spec and its per-shape plan's variants (as
    tile_probe.py builds them, under no lower setting)."""
    from cutlassgen import Sm90Tile, dispatch

    make, tiles, shapes = group[1], group[2], group[3]
    specs = [make(t) for t in tiles.values() if t is not tile_probe.PLAN]
    if with_plan and any(t is tile_probe.PLAN for t in tiles.values()):
        specs += dispatch.with_shape_variants([make(Sm90Tile())], shapes)
    return specs


def wanted_specs(what: set, per_shape: str = "all") -> list:
    """The sm90-path specs of device_session.sh's prebuild (suite_specs: the GPU suite, per_shape: its per-shape
    tests, those named in per_shape or "all") and of the tile_probe.py cases named in what."""
    from suite_specs import prebuild_specs

    specs = prebuild_specs(suite="suite" in what, per_shape=per_shape if "per_shape" in what else "")
    if "anchors" in what:  # bench_anchors.py's tiles and per-shape plans (a tuning record's tiles aside)
        import bench_anchors

        specs += list(bench_anchors.specs().values())
        specs += [s for group in bench_anchors.per_shape_plans(bench_anchors.auto_spec())[1].values() for s in group]
    cases = probe_cases(what)
    if cases:
        import tile_probe

        specs += [s for case in cases for g in tile_probe.CASES[case] for s in _named_specs(tile_probe, g)]
    return list({s.key: s for s in specs if s.resolved_path == "sm90"}.values())


def wanted_jobs(what: set, per_shape: str = "all") -> list:
    """The cache-keyed sm90 build jobs of wanted_specs, and of the builds that render under lower settings (and so are
    jobs, not specs): warm_weights_policy.py's LOAD_HINTS variants, the tile_probe.py case groups that name one."""
    from cutlassgen.jit import plan

    jobs = [plan(s, 90).with_cache_key() for s in wanted_specs(what, per_shape)]
    cases = probe_cases(what)
    if "warm_weights" in what or cases:
        import tile_probe

        # (spec, lower settings) of each case group built per setting
        variants = [(s, settings) for case in cases for g in tile_probe.CASES[case]
                    for _, settings in tile_probe.builds_of(g) if settings
                    for s in _named_specs(tile_probe, g, with_plan=False)]
        if "warm_weights" in what:
            import warm_weights_policy

            variants += warm_weights_policy.variant_entries()
        jobs += tile_probe.variant_jobs(variants)
    return list({j.key: j for j in jobs if j.target_arch == 90}.values())


def unknown_names(what: set, per_shape: str) -> list:
    """What is wrong with --what and --per-shape, if anything: a name that is neither one of NOT_CASES nor a
    tile_probe.py case would stop wanted_specs with a KeyError, and a --per-shape name that is not a per_shape_cases
    case would match nothing and seed none of its kernels, silently."""
    problems = []
    cases = probe_cases(what)
    if cases:
        import tile_probe

        unknown = sorted(cases - set(tile_probe.CASES))
        if unknown:
            problems.append(f"--what: no such name {', '.join(unknown)} (not one of {', '.join(sorted(NOT_CASES))} "
                            "nor a tile_probe.py case; its docstring lists them)")
    if "per_shape" in what:
        from suite_specs import per_shape_case_error

        problem = per_shape_case_error(per_shape)
        if problem:
            problems.append(f"--per-shape: {problem}")
    return problems


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=pathlib.Path)
    p.add_argument("--what", default="suite,per_shape",
                   help="suite, per_shape, anchors (bench_anchors.py), warm_weights (warm_weights_policy.py) and/or "
                        "tile_probe.py case names")
    p.add_argument("--per-shape", default="all",
                   help='with per_shape in --what: "all" or per_shape_cases names, comma-separated')
    p.add_argument("--parts", default="device,host", help="device (cubins), host (entry points' objects) or both")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = p.parse_args()
    os.environ["CUTLASSGEN_CACHE_DIR"] = str(args.out.resolve())
    from cutlassgen.jit import cache, flags, nvcc_flags_with_includes, part_key, toolchain

    nvcc = str(toolchain.find_nvcc())
    what = set(args.what.split(","))
    for problem in unknown_names(what, args.per_shape):
        p.error(problem)
    kinds = args.parts.split(",")
    if set(kinds) - set(flags.PART_ARGS):
        p.error(f"--parts: {args.parts!r} is not a comma-separated choice of {', '.join(flags.PART_ARGS)}")
    jobs = wanted_jobs(what, args.per_shape)
    todo = [(job, key, kind) for job in jobs for key in [part_key(job)] for kind in kinds
            if cache.lookup(cache.part_dir(kind, key, 90), cache.PART_FILES[kind][0]) is None]
    print(f"{len(jobs)} sm90 kernels; compiling {len(todo)} of their {len(jobs) * len(kinds)} {' and '.join(kinds)} "
          f"parts ({args.jobs} at a time)", flush=True)

    def compile_one(job_key_kind) -> str:
        job, key, kind = job_key_kind
        output, log_name = cache.PART_FILES[kind]
        # staged outside OUT: a seeding cut off midway leaves no half-written folder in the seed that travels
        with tempfile.TemporaryDirectory(prefix="cutlassgen-seed-") as tmp:
            st = pathlib.Path(tmp)
            (st / "kernel.cu").write_text(job.source)
            cmd = [nvcc, *nvcc_flags_with_includes(90), *flags.PART_ARGS[kind], str(st / "kernel.cu"), "-o",
                   str(st / output)]
            with open(st / log_name, "w") as log:
                rc = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT).returncode
            if rc:
                return f"FAILED  {kind} part of {job.label}: " + (st / log_name).read_text()[-300:]
            cache.keep_part(kind, key, 90, st)
            return f"kept    {kind} part of {job.label}"

    started, failed = time.time(), 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for i, line in enumerate(pool.map(compile_one, todo), 1):
            failed += line.startswith("FAILED")
            print(f"[{i}/{len(todo)}, {time.time() - started:.0f} s] {line}", flush=True)
    held = ", ".join(f"{sum(1 for _ in (args.out / kind).rglob(cache.PART_FILES[kind][0]))} in {args.out / kind}"
                     for kind in kinds)
    print(f"{len(todo) - failed} kept, {failed} failed, in {time.time() - started:.0f} s ({held})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
