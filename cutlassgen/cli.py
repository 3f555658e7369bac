"""The `cutlassgen` command (also `python -m cutlassgen`)."""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import sys
import tempfile
import time

from .errors import SpecError


def _load_specs(paths):
    from .spec import load_spec

    return [load_spec(p) for p in paths]


def cmd_render(args):
    from .emit import render

    (spec,) = _load_specs([args.spec])
    sys.stdout.write(render(spec, args.arch))
    return 0


def cmd_build(args):
    from .dispatch import with_shape_variants
    from .jit import build_many
    from .tuning import label

    named = _load_specs(args.specs)
    specs = with_shape_variants(named, _parse_shapes(args.shape))
    paths = build_many(specs, arch=args.arch, jobs=args.jobs, load=False)
    for spec, path in zip(specs, paths):
        tile = "" if spec in named else f" [per-shape tile {label(spec)}]"
        print(f"{spec.name or spec.key}{tile}: {path}")
    return 0


def _parse_shapes(texts) -> list:
    from .dispatch import check_shapes

    if not texts:
        return []
    try:
        return check_shapes([[int(x) for x in s.lower().split("x")] for s in texts])
    except (ValueError, SpecError):
        raise SpecError("--shape", texts, "each must be MxNxK, three positive integers",
                        "e.g. --shape 32x8192x8192") from None


def _days(text: str) -> float:
    value = float(text)
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"must be a number of days, 0 or more, not {text}")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def cmd_cache(args):
    from .dispatch import is_tuning_record
    from .jit import cache

    root = cache.cache_root()
    if args.action == "ls":
        rows = []
        for entry in cache.entries(root):
            meta = cache.read_meta(entry)
            ok = (entry / cache.COMPLETE).exists()
            spec = meta.get("spec")
            name = (spec.get("name") if isinstance(spec, dict) else None) or meta.get("spec_key", "?")
            rows.append(f"{entry.parent.name}/{entry.name}  {'ok ' if ok else 'BAD'}  {name}  "
                        f"{meta.get('compile_seconds', '?')} s  {meta.get('built_at', '')}")
        for record in sorted((root / "tuning").glob("*.json")) if (root / "tuning").is_dir() else []:
            try:
                body = json.loads(record.read_text())
            except (OSError, ValueError):
                body = None
            if is_tuning_record(body):  # the test build() applies before it dispatches by the record
                wins = ", ".join(f"M={w['shape'][0]}: {w.get('label', w['tile'])}" for w in body["winners"])
                rows.append(f"tuning/{record.name}  {body['gpu']}  {wins}")
            else:
                rows.append(f"tuning/{record.name}  BAD (unreadable or malformed; build() ignores it)")
        print("\n".join(rows) if rows else f"(empty: {root})")
    elif args.action == "info":
        if not args.key:
            print("cutlassgen cache info needs an entry's key (a prefix will do); `cutlassgen cache ls` lists them",
                  file=sys.stderr)
            return 2
        matches = [e for e in cache.entries(root) if e.name.startswith(args.key)]
        if len(matches) != 1:
            print(f"no entry's key starts with {args.key!r} (`cutlassgen cache ls` lists them)" if not matches else
                  f"{len(matches)} entries' keys start with {args.key!r}; give a longer prefix", file=sys.stderr)
            return 1
        print(json.dumps(cache.read_meta(matches[0]), indent=2))
    elif args.action == "clear":
        kept = cache.prune(root, float("inf")).kept
        if kept:  # a running build's folders stay, and the folders of the cache with them
            print(f"removed every entry, build leftover and tuning record from {root} but the {kept} folders that a "
                  "running build holds")
            shutil.rmtree(root / "tuning", ignore_errors=True)
        else:
            shutil.rmtree(root, ignore_errors=True)
            print(f"removed {root}")
    elif args.action == "prune":
        pruned = cache.prune(root, time.time() - args.older_than * 86400)
        held = f"; kept {pruned.kept} that a running build holds" if pruned.kept else ""
        print(f"removed {pruned.entries} entries, {pruned.parts} device and host parts and {pruned.leftovers} "
              f"build leftovers from {root}{held}")
    return 0


def cmd_doctor(args):
    from .doctor import report

    lines, problems = report()
    print("\n".join(lines))
    if problems:
        print("\nproblems:")
        print("\n".join(f"- {p}" for p in problems))
        return 1
    print("\nno problems found")
    return 0


def cmd_aot(args):
    from .aot import build_prebuilt

    out = build_prebuilt(args.manifest, args.out, jobs=args.jobs)
    print(f"prebuilt kernels and index in {out}")
    return 0


def cmd_tune(args):
    from .tiles import resolve
    from .tuning import candidates, label, write_report

    (spec,) = _load_specs([args.spec])
    shapes = _parse_shapes(args.shape)
    variants = candidates(spec, shapes, args.limit, args.match, args.schedules)
    print(f"{len(variants)} valid configurations of {spec.name or spec.key} (its own tile first; for an all-'auto' "
          f"spec the per-shape heuristic's tiles of the shapes given next)")
    if args.list:  # with the pipeline each would compile to, as validation sizes it (kernel.pipeline once built)
        for v in variants:
            cfg = resolve(v)
            print(f"{label(v):48} {cfg.mainloop_stages} stages, {cfg.smem_bytes} bytes of shared memory")
        return 0
    try:
        import torch

        gpu = torch.cuda.is_available()
    except ImportError:
        gpu = False
    if not gpu:
        print("no CUDA GPU: timing needs one (use --list to see the configurations)", file=sys.stderr)
        return 1
    if not shapes:
        print("give at least one --shape MxNxK", file=sys.stderr)
        return 1
    from .dispatch import tile_is_auto
    from .tuning import NoMatchError, tune

    # the report is written after minutes of compiling and timing: a folder that cannot take it fails now (OSError:
    # exit 2, naming it), not after, when the study's rows would be lost
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tempfile.TemporaryFile(dir=out).close()
    save = not args.no_save and tile_is_auto(spec)
    result = None
    try:
        result = tune(spec, shapes, limit=args.limit, reps=args.reps, save=save, match=args.match,
                      schedules=args.schedules)
        rows = result.rows
    except NoMatchError as e:  # keep the study's rows: their rel_err column tells which kernels are wrong
        rows = e.rows
        print(f"cutlassgen: {e}; no tuning record written", file=sys.stderr)
    for path in write_report(rows, args.out, args.peak, spec=spec, peak_tbps=args.peak_bandwidth):
        print(path)
    if result is None:
        return 1
    for w in result.winners:
        base = f" (default {w['default_tflops']:.0f})" if w["default_tflops"] else ""
        print(f"{'x'.join(map(str, w['shape']))}: {w['label']} {w['tflops']:.0f} TFLOP/s{base}")
    if result.record:
        print(f"tuning record (build(spec) dispatches by M from now on): {result.record}")
    elif not args.no_save:
        print("no tuning record: the spec fixes its tile (only all-'auto' specs dispatch)")
    return 0


def cmd_demo(args):
    from .demo import run

    return run(arch=args.arch)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="cutlassgen", description="Fused CUTLASS GEMMs from Python specs.")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("render", help="print the CUTLASS C++ for a spec file")
    r.add_argument("spec", help="a spec file (TOML or JSON)")
    r.add_argument("--arch", type=int, default=None, help="compile target (default: the spec's arch)")
    r.set_defaults(fn=cmd_render)
    b = sub.add_parser("build", help="compile spec files into the cache (one parallel ninja run)")
    b.add_argument("specs", nargs="+", help="spec files (TOML or JSON)")
    b.add_argument("--arch", type=int, default=None, help="compile target (default: this GPU's, else each spec's arch)")
    b.add_argument("--jobs", type=_positive_int, default=None,
                   help="compile jobs at once (default: as many as cores and memory allow)")
    b.add_argument("--shape", action="append", default=[], metavar="MxNxK",
                   help="also the per-shape tiles build(spec, shapes=...) dispatches to (repeatable)")
    b.set_defaults(fn=cmd_build)
    c = sub.add_parser("cache", help="inspect or clean the kernel cache")
    c.add_argument("action", choices=["ls", "info", "clear", "prune"])
    c.add_argument("key", nargs="?", help="entry key prefix (info)")
    c.add_argument("--older-than", type=_days, default=30.0, help="prune: days since last build")
    c.set_defaults(fn=cmd_cache)
    d = sub.add_parser("doctor", help="check the toolchain, GPU and cache set-up")
    d.set_defaults(fn=cmd_doctor)
    a = sub.add_parser("aot", help="build a manifest's kernels into a prebuilt directory")
    a.add_argument("manifest", help="a TOML manifest of specs and their targets (examples/manifest.toml)")
    a.add_argument("--out", required=True, help="the prebuilt directory to fill")
    a.add_argument("--jobs", type=_positive_int, default=None,
                   help="compile jobs at once (default: as many as cores and memory allow)")
    a.set_defaults(fn=cmd_aot)
    t = sub.add_parser("tune", help="compile and time every valid tile configuration of a spec (a tile study)")
    t.add_argument("spec", help="a spec file (TOML or JSON); its tile is what the study varies")
    t.add_argument("--shape", action="append", default=[], metavar="MxNxK", help="problem shape (repeatable)")
    t.add_argument("--limit", type=_positive_int, default=None, help="at most this many configurations")
    t.add_argument("--match", default=None, metavar="REGEX",
                   help="only configurations whose label matches, e.g. '^128x(128|256)x64 c2x1' (see --list)")
    t.add_argument("--schedules", action="store_true",
                   help="each configuration under every raster order and swizzle too (sm90: 15 each, sm80 path: 4); "
                        "narrow with --match first")
    t.add_argument("--reps", type=_positive_int, default=20, help="timed runs per configuration and shape (median)")
    t.add_argument("--peak", type=float, default=None, help="TFLOP/s ceiling to draw (measured)")
    t.add_argument("--peak-bandwidth", type=float, default=None, metavar="TB/s",
                   help="DRAM bandwidth for the roofline (with --peak)")
    t.add_argument("--out", default="tune-report", help="the report's folder: CSV, JSON and plots")
    t.add_argument("--list", action="store_true", help="only list the valid configurations")
    t.add_argument("--no-save", action="store_true", help="a study only: write no tuning record")
    t.set_defaults(fn=cmd_tune)
    m = sub.add_parser("demo", help="build, check and time the built-in default spec")
    m.add_argument("--arch", type=int, default=None, help="compile target (default: this GPU's, else 90)")
    m.set_defaults(fn=cmd_demo)
    args = p.parse_args(argv)
    if args.cmd == "tune":  # a bad peak would fail only when the report is drawn, after the study's compiles
        from .tuning import check_peaks

        try:
            check_peaks(args.peak, args.peak_bandwidth, names=("--peak", "--peak-bandwidth"))
        except ValueError as e:
            t.error(f"argument {e}")
    from .errors import BuildError, SpecError

    try:
        status = args.fn(args)
        sys.stdout.flush()  # inside the try: a reader that went away (`| head`) surfaces here, not at exit
        return status
    except (SpecError, BuildError) as e:
        print(f"cutlassgen: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader closed the pipe: stop quietly, and send what Python would flush at exit nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a writer ended by SIGPIPE
    except OSError as e:  # a file or directory named on the command line that cannot be read or written (after
        # BrokenPipeError, which is an OSError too)
        print(f"cutlassgen: {e.strerror or e}: {e.filename or ''}", file=sys.stderr)
        return 2
