"""The JIT: render -> write sources -> one ninja run -> publish into the cache -> load.

build(spec) serves, in order: this process's memory, a prebuilt directory (AOT wheels, `cutlassgen aot`), the
cache, and only then the compiler. build_many(specs) compiles every missing kernel in one ninja run.
"""
from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass

from .. import __version__
from ..errors import BuildError, caller_stacklevel, is_int
from ..spec import GemmSpec
from . import cache, flags, toolchain
from .ptxas import performance_warnings, ptxas_resources  # re-exported: cutlassgen.jit.performance_warnings


class PerformanceWarning(UserWarning):
    """The compiler reported something that costs speed (wgmma serialization C7510, register spills)."""


@dataclass
class Job:
    spec: GemmSpec
    target_arch: int
    source: str
    source_key: str  # toolchain-free: what prebuilt indexes are keyed by
    key: str = ""  # the full cache key (adds nvcc, CUTLASS, pybind11, Python ABI); set by with_cache_key()
    key_parts: dict | None = None

    def with_cache_key(self) -> "Job":
        if not self.key:
            self.key_parts = key_parts(self.source_key, self.target_arch)
            self.key = cache_key(self.key_parts)
        return self

    @property
    def split(self) -> bool:
        return flags.split_build(self.spec.resolved_path)

    @property
    def label(self) -> str:
        return f"{self.spec.name or self.spec.key} (sm_{self.target_arch}{'a' if self.target_arch == 90 else ''})"


MODULE_FILE = flags.MODULE_NAME + toolchain.ext_suffix()
_loaded: dict = {}  # (spec, arch) -> Kernel
_built: dict = {}  # (spec, arch, dispatch) -> what build() returned: a Kernel or a DispatchKernel
_loaded_lock = threading.Lock()


def _render_source(spec: GemmSpec, target_arch: int) -> str:
    from ..emit import render

    return render(spec, target_arch)


def source_key(source: str, target_arch: int, path: str) -> str:
    """Names what will be compiled: the source, the shared C++ it includes, the flags and recipe, the target."""
    h = hashlib.sha256()
    for part in (source, toolchain.csrc_digest(), flags.recipe(target_arch, path), " ".join(flags.CXX_FLAGS),
                 str(target_arch), toolchain.ext_suffix()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def key_parts(src_key: str, target_arch: int) -> dict:
    """Everything the compiled bytes depend on. No paths, no mtimes."""
    nvcc = toolchain.find_nvcc()
    return {"source_key": src_key, "target_arch": target_arch, "nvcc": toolchain.nvcc_version(nvcc),
            "cutlass": toolchain.find_cutlass().version, "pybind11": toolchain.find_pybind11()[1],
            "python_abi": toolchain.ext_suffix(), "cutlassgen": __version__,
            "flags": flags.nvcc_flags(target_arch)}


def part_key(job: Job) -> str:
    """What a split build's device part (its cubin) and host part (its entry points' object) depend on: the cache
    key's parts but the Python ABI and pybind11, which only the binding and the link see (cache.part_dir)."""
    parts = job.with_cache_key().key_parts
    h = hashlib.sha256()
    for part in (job.source, toolchain.csrc_digest(), flags.recipe(job.target_arch, job.spec.resolved_path),
                 str(job.target_arch), parts["nvcc"], parts["cutlass"], parts["cutlassgen"]):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _include_dirs() -> list[str]:
    """The folders a kernel source includes from: csrc/ and CUTLASS's."""
    return [str(toolchain.CSRC), *toolchain.find_cutlass().include_dirs]


def nvcc_flags_with_includes(target_arch: int) -> list[str]:
    """nvcc's flags for a kernel source, with the include folders (csrc/, CUTLASS's): what each compile step gets;
    each part of a split build adds its flags.PART_ARGS, an unsplit build -c."""
    return [*flags.nvcc_flags(target_arch), *(f"-I{p}" for p in _include_dirs())]


def cache_key(parts: dict) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:24]


def default_target_arch(spec: GemmSpec) -> int:
    """The current GPU's arch if there is one (sm90 -> sm_90a), else the spec's own."""
    torch = sys.modules.get("torch")
    if torch is None:
        try:
            import torch
        except ImportError:
            return spec.arch
    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        return major * 10 + minor
    return spec.arch


def forget_built(spec: GemmSpec) -> None:
    """Drop build()'s in-process memo of spec, so that its next build() looks again (e.g. at a new tuning record)."""
    for key in [k for k in _built if k[0] == spec]:
        _built.pop(key, None)


def plan(spec: GemmSpec, arch: int | None = None) -> Job:
    target = default_target_arch(spec) if arch is None else arch
    source = _render_source(spec, target)  # lower() refuses a target the spec cannot run on
    return Job(spec, target, source, source_key(source, target, spec.resolved_path))


def build(spec: GemmSpec, arch: int | None = None, *, verbose: bool | None = None, dispatch: bool = True,
          shapes=None):
    """A callable kernel for spec: from memory, a prebuilt directory, the cache, or a fresh compile.

    dispatch: when `cutlassgen tune` recorded winners for this all-"auto" spec on this arch, return a
    DispatchKernel that runs the tuned tile for each call's M (see dispatch.py); False: always the default tile.
    shapes: the (M, N, K) problems the kernel will serve. For an all-"auto" spec without a tuning record, the
    per-shape tile of each M bucket (and, sm90, N class and K class) they fall in (tiles.shape_tile) is compiled in
    the same ninja run as the default, and a DispatchKernel picks among them by M, N and K.
    """
    if not isinstance(spec, GemmSpec):
        raise TypeError(f"build() takes a GemmSpec, not {type(spec).__name__}")
    buckets = None if shapes is None else _buckets_of(spec, shapes)
    memo = _built.get((spec, arch, dispatch, buckets))
    if memo is not None:
        return memo
    kernel = _build_dispatching([spec], [shapes], arch, verbose, None, dispatch)[0]
    with _loaded_lock:
        return _built.setdefault((spec, arch, dispatch, buckets), kernel)


def _build_dispatching(specs: list, shapes: list, arch, verbose, jobs, dispatch: bool = True) -> list:
    """What build(spec, arch, shapes=s, dispatch=dispatch) returns for each spec and its s, with every default tile
    and per-shape variant (heuristic_record) compiled in one ninja run. A tuning record's tiles are left to
    dispatch.tuned(), which ignores a record whose tiles no longer build, with a warning."""
    from .. import dispatch as by_shape

    plans, todo = [], []
    for spec, s in zip(specs, shapes):
        record = None
        if dispatch and s is not None and by_shape.tile_is_auto(spec):
            target = default_target_arch(spec) if arch is None else arch
            if by_shape.read_record(spec, target) is None:  # a tuning record, made on the GPU, beats the heuristic
                record = by_shape.heuristic_record(spec, s)
        variants = by_shape.heuristic_variants(spec, record)
        plans.append((record, len(variants)))
        todo += [spec, *variants]
    built = build_many(todo, arch=arch, verbose=verbose, jobs=jobs)
    out, at = [], 0
    for record, n_variants in plans:
        default, variants = built[at], built[at + 1:at + 1 + n_variants]
        at += 1 + n_variants
        if record is not None:
            out.append(by_shape.with_heuristic(default, record, variants))
        elif dispatch:
            out.append(by_shape.tuned(default, default.target_arch, build_many))
        else:
            out.append(default)
    return out


def _shapes_per_spec(specs: list, shapes) -> list:
    """build_many's shapes, checked: one entry per spec, each None or a list of (M, N, K) that spec can run."""
    from ..dispatch import check_shapes
    from ..errors import SpecError

    per_spec = list(shapes) if isinstance(shapes, (list, tuple)) else None
    if (per_spec is None or len(per_spec) != len(specs)
            or any(isinstance(s, (list, tuple)) and s and is_int(s[0]) for s in per_spec)):
        raise SpecError("shapes", shapes, f"build_many() takes one list of (M, N, K) per spec ({len(specs)} here), "
                        "None for a spec without", "e.g. shapes=[[(32, 4096, 4096), (4096, 4096, 4096)], None]; the "
                        "same problems for every spec: shapes=[problems] * len(specs)")
    for i, (spec, s) in enumerate(zip(specs, per_spec)):
        if s is not None:
            try:
                check_shapes(s, spec)
            except SpecError as e:
                raise SpecError(f"shapes[{i}] ({spec.name or spec.key}): {e.field}", e.value, e.rule, e.fix) from None
    return per_spec


def _buckets_of(spec: GemmSpec, shapes) -> tuple:
    from ..dispatch import check_shapes, plan_class

    return tuple(sorted({plan_class(spec, M, N, K) for M, N, K in check_shapes(shapes, spec)}))


def build_many(specs, arch: int | None = None, *, verbose: bool | None = None, jobs: int | None = None,
               root: pathlib.Path | None = None, load: bool = True, shapes=None):
    """Kernels for all specs; every missing one compiles in a single ninja run. Returns them in order.

    root: build into this directory instead of the cache (how `cutlassgen aot` fills a prebuilt directory).
    load: False returns module paths instead of loaded kernels (no GPU or torch needed).
    shapes: one list of (M, N, K) per spec, or None for a spec without (e.g. a model's layers, each with its own N
    and K): each kernel is then what build(spec, arch, shapes=...) returns, a DispatchKernel over the per-shape
    tiles for an all-"auto" spec, and every tile of every spec compiles in the one ninja run.
    """
    from ..prebuilt import find_prebuilt, jit_forbidden
    from ..runtime import Kernel

    if isinstance(specs, GemmSpec):
        raise TypeError("build_many() takes a list of GemmSpecs; for one, build_many([spec]) or build(spec)")
    check_jobs(jobs)
    specs = list(specs)
    for spec in specs:
        if not isinstance(spec, GemmSpec):
            raise TypeError(f"build_many() takes GemmSpecs, not {type(spec).__name__}")
    if shapes is not None:
        if root is not None or not load:
            raise ValueError("build_many(shapes=...) returns loaded, dispatching kernels: it takes neither root nor "
                             "load=False (for an AOT build, list the per-shape specs with "
                             "dispatch.with_shape_variants, as `cutlassgen aot` does)")
        return _build_dispatching(specs, _shapes_per_spec(specs, shapes), arch, verbose, jobs)
    results: list = [None] * len(specs)
    todo: list[tuple[int, Job]] = []
    for i, spec in enumerate(specs):
        if load and (spec, arch) in _loaded:
            results[i] = _loaded[(spec, arch)]
            continue
        job = plan(spec, arch)
        path = None if root else find_prebuilt(job.source_key, job.target_arch)
        if path is None and jit_forbidden() and not root:
            path = _cache_lookup_without_toolchain(job)
        elif path is None:
            job.with_cache_key()
            path = cache.lookup(cache.entry_dir(job.key, job.target_arch, root), MODULE_FILE)
        if path is None:
            if jit_forbidden() and not root:
                from ..prebuilt import prebuilt_dirs
                raise BuildError(f"no prebuilt kernel for {job.label} (source key {job.source_key}) and "
                                 "CUTLASSGEN_NO_JIT forbids compiling; searched: " +
                                 ", ".join(str(d) for d in prebuilt_dirs()) + " and the cache " +
                                 str(cache.cache_root()), "", "", "", [])
            todo.append((i, job))
        else:
            results[i] = (job, path)
    if todo:
        built = _compile_missing([job for _, job in todo], root, verbose, jobs)
        for (i, job), path in zip(todo, built):
            results[i] = (job, path)
    out = []
    for spec, res in zip(specs, results):
        if not isinstance(res, tuple):
            out.append(res)
            continue
        job, path = res
        if not load:
            out.append(path)
            continue
        kernel = Kernel(spec, path, job.target_arch, job.source)
        with _loaded_lock:
            kernel = _loaded.setdefault((spec, arch), kernel)
        out.append(kernel)
    return out


def _cache_lookup_without_toolchain(job: Job):
    """With JIT forbidden there may be no nvcc to compute the full key; a cached entry still counts."""
    try:
        job.with_cache_key()
    except BuildError:
        return None
    return cache.lookup(cache.entry_dir(job.key, job.target_arch), MODULE_FILE)


def _compile_missing(jobs_: list[Job], root, verbose, jobs) -> list[pathlib.Path]:
    """Lock each key, re-check the cache (another process may have just finished it), compile the rest."""
    into_cache = root is None
    root = root or cache.cache_root()
    paths: dict[str, pathlib.Path] = {}
    held = []
    try:
        for job in sorted({j.key: j for j in jobs_}.values(), key=lambda j: j.key):  # one order: no deadlock
            try:  # the first write into the cache: its lock file
                lock = cache.key_lock(job.key, job.target_arch, root)
                cache.acquire(lock, job.label)
            except OSError as e:
                raise _unwritable_root(root, e, jobs_, into_cache) from None
            held.append(lock)
            hit = cache.lookup(cache.entry_dir(job.key, job.target_arch, root), MODULE_FILE)
            if hit:
                paths[job.key] = hit
        missing = [j for j in {j.key: j for j in jobs_}.values() if j.key not in paths]
        if missing:
            paths.update(_ninja_build(missing, root, verbose, jobs))
    finally:
        for lock in held:
            lock.release()
    return [paths[j.key] for j in jobs_]


def _unwritable_root(root: pathlib.Path, error: OSError, jobs_: list[Job], into_cache: bool):
    """A ToolchainError for a cache (or an AOT build's output folder) this process cannot write: a read-only
    image's shared cache serves the kernels it holds, but a kernel it lacks must be compiled somewhere writable."""
    why = f"({error.strerror or error}: {error.filename or root})"
    if not into_cache:
        return toolchain.ToolchainError(f"the build folder {root} cannot be written {why}",
                                        "choose an output folder this user can write")
    missing = sorted({j.label for j in jobs_})
    listed = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return toolchain.ToolchainError(
        f"the kernel cache {root} cannot be written {why}, and {len(missing)} kernel(s) to build are not in it "
        f"({listed})",
        "set CUTLASSGEN_CACHE_DIR to a folder this user can write (a read-only cache still serves the kernels it "
        "holds)")


def check_jobs(jobs) -> None:
    """jobs, the compile jobs to run at once: None (as many as cores and memory allow) or a whole number >= 1. Any
    other went to ninja's -j and came back as a BuildError under an nvcc command ("invalid -j parameter")."""
    if jobs is not None and not (is_int(jobs) and jobs >= 1):
        raise ValueError(f"jobs={jobs!r}: the number of compile jobs to run at once must be a whole number of at least "
                         "1, or None for as many as this machine's cores and memory allow")


def _parallel_jobs(n_kernels: int) -> int:
    for name in ("CUTLASSGEN_JOBS", "MAX_JOBS"):
        jobs = toolchain.env_number(name, int, 1, "the number of compile jobs to run at once")
        if jobs is not None:
            return jobs
    cores = os.cpu_count() or 1
    try:
        mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    except (ValueError, OSError):
        mem_gb = 8
    # A CUTLASS sm90 translation unit can take several GiB in cicc; budget 4 GiB per job.
    return max(1, min(cores, int(mem_gb // 4), n_kernels * 2))


def _kernel_spans(ninja_log: pathlib.Path, stagings: dict) -> dict:
    """job key -> seconds during which at least one of its compile steps ran, from ninja's log (tab-separated:
    start ms, end ms, mtime, output, hash). Neither the whole batch's time nor first-step-to-link says anything per
    kernel in a large parallel build: ninja runs every long compile before any short link, so each kernel's steps
    spread over the whole batch."""
    owner = {st: key for key, st in stagings.items()}
    steps: dict = {}
    for line in _read(ninja_log).splitlines():
        parts = line.split("\t")
        if len(parts) < 4 or line.startswith("#"):
            continue
        try:
            start, end = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        key = owner.get(pathlib.Path(parts[3]).parent)
        if key is not None:
            steps.setdefault(key, []).append((start, end))
    return {key: _union_ms(intervals) / 1000 for key, intervals in steps.items()}


def _union_ms(intervals) -> int:
    """Total length of the union of (start, end) intervals."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total, reach = total + end - start, end
        elif end > reach:
            total, reach = total + end - reach, end
    return total


def _ninja_escape(s: str) -> str:
    return s.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _shell(*words) -> str:
    """words as one ninja variable's value that its rule's command line passes to the shell: each quoted for the
    shell (a cache, venv or toolkit path with a space split into two arguments and failed every compile), then '$'
    escaped for ninja. Flags of plain characters are left as they are."""
    return " ".join(shlex.quote(str(w)) for w in words).replace("$", "$$")


# Characters nvcc passes on to a shell unquoted when they are in a source's path: a build folder holding one failed
# every compile ("$" expanded, a backquote a syntax error, '"' a failed build; a space, ':', "'" and a backslash built,
# session 77).
_NVCC_UNSAFE_PATH = set('$`"')


def _ninja_build(jobs_: list[Job], root: pathlib.Path, verbose, n_jobs) -> dict:
    unsafe = _NVCC_UNSAFE_PATH & set(str(root))
    if unsafe:
        raise toolchain.ToolchainError(f"a build folder whose path holds {' '.join(sorted(unsafe))} ({root}): nvcc "
                                       "hands source paths to a shell unquoted, so every compile there fails",
                                       "set CUTLASSGEN_CACHE_DIR (or the --out of `cutlassgen aot`) to a path "
                                       "without them")
    nvcc = toolchain.find_nvcc()
    pyb_inc, _ = toolchain.find_pybind11()
    work, work_lock = cache.build_workspace(root)
    stagings = {}
    # Each step writes its output under a temporary name and renames it when the tool succeeds, so an output that
    # exists is whole: a build interrupted midway leaves its finished steps in each key's resume_dir, and the next
    # build of that key leaves them out of its graph (ninja itself would redo them: its log is per build folder).
    done = " > $log 2>&1 && mv -f $out.part $out"
    lines = [
        "ninja_required_version = 1.3",
        f"nvcc = {_shell(nvcc)}",
        f"cxx = {_shell(toolchain.host_cxx())}",
        # $flags ends with what the output is (-c, or a split part's flags.PART_ARGS)
        "rule nvcc",
        "  command = $nvcc $flags $in -o $out.part" + done,
        "  description = nvcc $desc",
        "rule cxx",
        "  command = $cxx $cxxflags -c $in -o $out.part" + done,
        "  description = c++ binding",
        "rule embed",
        "  command = $cxx -c $in -o $out.part" + done,
        "  description = embed cubin $desc",
        "rule link",
        "  command = $nvcc -shared $in -o $out.part $ldflags" + done,
        "  description = link $desc",
        "",
    ]
    binding_o = work / "binding.o"
    cxxflags = [*flags.CXX_FLAGS, f"-DCUTLASSGEN_MODULE_NAME={flags.MODULE_NAME}",
                *(f"-I{p}" for p in (str(toolchain.CSRC), pyb_inc, toolchain.python_include()))]
    lines += [f"build {_ninja_escape(str(binding_o))}: cxx {_ninja_escape(str(toolchain.CSRC / 'binding.cpp'))}",
              f"  cxxflags = {_shell(*cxxflags)}", f"  log = {_shell(work / 'binding.log')}"]
    ldflags = _shell(*(f"-L{d}" for d in toolchain.nvcc_link_dirs(nvcc)))
    resumed = set()
    reused = {cache.DEVICE: set(), cache.HOST: set()}  # the jobs whose kept part of that kind the build took
    part_keys = {job.key: part_key(job) for job in jobs_ if job.split}  # taken before the build, kept after it
    for job in jobs_:
        st = cache.resume_dir(job.key, job.target_arch, root)
        stagings[job.key] = st
        (st / "kernel.cu").write_text(job.source)  # the key hashes the source: a resumed folder's is the same
        nv = nvcc_flags_with_includes(job.target_arch)
        obj, mod, src = st / "kernel.o", st / MODULE_FILE, _ninja_escape(str(st / "kernel.cu"))
        if job.split and not mod.exists():  # built before for another Python: only the binding and the link are left
            for kind, files in cache.PART_FILES.items():
                if not (st / files[0]).exists() and cache.take_part(kind, part_keys[job.key], job.target_arch, st):
                    reused[kind].add(job.key)
        desc = job.label.replace("$", "$$")  # a variable's value: ninja reads "$x" in a spec's name as a variable
        objs = [obj]
        steps = []
        if job.split:
            cubin, embed = st / "kernel.cubin", st / "cubin_embed.o"
            quoted = str(cubin).replace("\\", "\\\\").replace('"', '\\"')  # an assembler string literal
            (st / "cubin_embed.S").write_text(_EMBED_ASM.format(cubin=quoted))
            steps += [(cubin, [f"build {_ninja_escape(str(cubin))}: nvcc {src}",
                               f"  flags = {_shell(*nv, *flags.PART_ARGS['device'])}",
                               f"  log = {_shell(st / 'device.log')}", f"  desc = device part {desc}"]),
                      (embed, [f"build {_ninja_escape(str(embed))}: embed {_ninja_escape(str(st / 'cubin_embed.S'))}"
                               f" | {_ninja_escape(str(cubin))}", f"  log = {_shell(st / 'embed.log')}",
                               f"  desc = {desc}"])]
            objs.append(embed)
        # a split build's host part logs to host.log, which is kept with its object (cache.PART_FILES)
        obj_log = st / ("host.log" if job.split else "build.log")
        obj_args = flags.PART_ARGS["host"] if job.split else ("-c",)
        steps += [(obj, [f"build {_ninja_escape(str(obj))}: nvcc {src}", f"  flags = {_shell(*nv, *obj_args)}",
                         f"  log = {_shell(obj_log)}", f"  desc = {desc}"]),
                  (mod, [f"build {_ninja_escape(str(mod))}: link {' '.join(_ninja_escape(str(o)) for o in objs)} "
                         f"{_ninja_escape(str(binding_o))}", f"  ldflags = {ldflags}",
                         f"  log = {_shell(st / 'link.log')}", f"  desc = {desc}"])]
        missing = [] if mod.exists() else [edge for output, edge in steps if not output.exists()]
        if len(missing) < len(steps) - sum(job.key in keys for keys in reused.values()):
            resumed.add(job.key)
        lines += [line for edge in missing for line in edge]
    (work / "build.ninja").write_text("\n".join(lines) + "\n")
    n = _parallel_jobs(len(jobs_))
    if n_jobs:
        n = n_jobs
    cmd = [toolchain.find_ninja(), "-C", str(work), "-k", "0", "-j", str(n)]
    started = time.monotonic()
    n_steps = sum(1 for ln in lines if ln.startswith("build "))
    try:
        with _Progress(jobs_, stagings, verbose, work / ".ninja_log", n_steps, at_once=n):
            proc = subprocess.run(cmd, capture_output=True, text=True)
    except BaseException:  # Ctrl-C: the finished steps stay in each key's resume_dir for the next build
        cache.remove_workspace(work, work_lock)
        raise
    elapsed = time.monotonic() - started
    spans = _kernel_spans(work / ".ninja_log", stagings)
    results, failures = {}, []
    for job in jobs_:
        st = stagings[job.key]
        log = "".join(_read(st / f) for f in ("device.log", "host.log", "build.log", "embed.log", "link.log"))
        (st / "build.log").write_text(log)
        if not (st / MODULE_FILE).exists():
            failures.append((job, st, log))
            continue
        warns = performance_warnings(log)
        for w in warns:
            warnings.warn(f"{job.label}: {w}", PerformanceWarning, stacklevel=caller_stacklevel())
        if job.split:
            for kind in cache.PART_FILES:
                cache.keep_part(kind, part_keys[job.key], job.target_arch, st)
        for tmp in ("kernel.o", "link.log", "device.log", "host.log", "embed.log", "cubin_embed.o", "cubin_embed.S",
                    "kernel.cubin"):
            (st / tmp).unlink(missing_ok=True)
        meta = {"spec": job.spec.to_dict(), "spec_key": job.spec.key, "key": job.key, "key_parts": job.key_parts,
                "compile_seconds": round(spans.get(job.key, elapsed), 2), "build_seconds": round(elapsed, 2),
                "kernels_in_build": len(jobs_), "resumed": job.key in resumed,
                "device_part_reused": job.key in reused[cache.DEVICE],
                "host_part_reused": job.key in reused[cache.HOST],
                "resources": ptxas_resources(log),
                "nvcc_command": _commands_text(nvcc, job, "kernel.cu"),
                "warnings": warns, "built_at": time.strftime("%Y-%m-%dT%H:%M:%S")}
        results[job.key] = cache.publish(st, cache.entry_dir(job.key, job.target_arch, root), MODULE_FILE, meta)
    binding_log = _read(work / "binding.log")
    cache.remove_workspace(work, work_lock)
    if failures and _interrupted(proc):
        # SIGINT reached ninja but not this process (it ignores SIGINT, as a background job of a script does): not a
        # compile error. The unfinished kernels keep their folders, so the next build resumes them.
        said = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [f"ninja exit {proc.returncode}"]
        raise BuildError(f"the build was interrupted ({said[0]}); {len(results)} of {len(jobs_)} kernels were "
                         "finished and cached, the rest keep their finished steps for the next build", "", "", "", [])
    if failures:
        job, st, log = failures[0]
        failed = root / "failed" / job.key
        shutil.rmtree(failed, ignore_errors=True)
        failed.parent.mkdir(parents=True, exist_ok=True)
        os.rename(st, failed)
        for _, other_st, _ in failures[1:]:
            shutil.rmtree(other_st, ignore_errors=True)
        if not log.strip():
            log = binding_log or proc.stdout + proc.stderr
            (failed / "build.log").write_text(log)
        errors = [ln.strip() for ln in log.splitlines() if "error" in ln.lower()][:8] or log.strip().splitlines()[:8]
        cmd_text = _commands_text(nvcc, job, str(failed / "kernel.cu"), _include_dirs())
        raise BuildError(f"nvcc failed to compile {job.label}" +
                         (f" (and {len(failures) - 1} more kernels)" if len(failures) > 1 else ""),
                         cmd_text, str(failed / "kernel.cu"), str(failed / "build.log"), errors)
    return results


def _interrupted(proc: subprocess.CompletedProcess) -> bool:
    """ninja stopped by SIGINT (exit 130 from 1.12 on; older ones say so on stdout)."""
    return proc.returncode in (130, -signal.SIGINT) or "interrupted by user" in proc.stdout


# The cubin of a split build, embedded in the module as read-only data (hidden: no other module sees the symbols).
_EMBED_ASM = """\
    .section .rodata
    .balign 128
    .globl cutlassgen_cubin_start
    .hidden cutlassgen_cubin_start
cutlassgen_cubin_start:
    .incbin "{cubin}"
    .byte 0
    .section .note.GNU-stack,"",@progbits
"""


def _commands_text(nvcc, job: Job, source: str, includes=()) -> str:
    """The nvcc command(s) that compile a kernel source, as a user would rerun them."""
    base = shlex.join([str(nvcc), *flags.nvcc_flags(job.target_arch), *(f"-I{p}" for p in includes)])
    source = shlex.quote(source)
    if not job.split:
        return f"{base} -c {source}"
    device, host = (" ".join(flags.PART_ARGS[kind]) for kind in ("device", "host"))
    return f"{base} {device} {source} -o kernel.cubin   and   {base} {host} {source}"


def _read(p: pathlib.Path) -> str:
    try:
        return p.read_text(errors="replace")
    except OSError:
        return ""


class _Progress:
    """Says what a long build is doing: a bar of compile steps on a terminal; otherwise one line per finished
    kernel, and a steps line per quarter of the steps or after HEARTBEAT_S without one. Steps, because ninja runs
    every long compile of a batch before any short link: in a large build no kernel finishes until near the end
    (87 kernels: all at 245-257 s of 257), and the first quarter of 99 kernels' steps took 163 s."""

    HEARTBEAT_S = 30.0  # a log (CI, a file) hears from the build at least this often

    def __init__(self, jobs_, stagings, verbose, ninja_log: pathlib.Path, n_steps: int, at_once: int = 1):
        self.jobs, self.stagings, self.at_once = jobs_, stagings, at_once
        self.ninja_log, self.n_steps = ninja_log, n_steps
        self.verbose = True if verbose is None else verbose
        self.stop = threading.Event()

    def __enter__(self):
        if not self.verbose:
            return self
        names = ", ".join(j.label for j in self.jobs[:3]) + (" ..." if len(self.jobs) > 3 else "")
        # the machine's own parallelism, beside the one per-kernel time measured (a 2-core machine's)
        print(f"cutlassgen: compiling {len(self.jobs)} kernel(s): {names} ({self.at_once} compile step(s) at once "
              "here; one kernel takes 30-60 s on 2 cores)", file=sys.stderr, flush=True)
        self.started = time.monotonic()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()
        return self

    def steps_done(self) -> int:
        """Steps ninja has finished: it appends one line per finished step to its log (fresh for each build)."""
        return sum(1 for ln in _read(self.ninja_log).splitlines() if ln and not ln.startswith("#"))

    def _watch(self):
        self.done = set()
        bar, quarter, steps = None, 0, 0
        last_line = time.monotonic()
        if sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=self.n_steps, desc="cutlassgen", unit="step", file=sys.stderr)
        stopping = False
        while not stopping:
            stopping = self.stop.wait(0.5)  # one last scan after ninja returns, so no finished kernel goes unsaid
            now = min(self.steps_done(), self.n_steps)
            if bar:
                bar.update(now - steps)
            elif now < self.n_steps and len(self.jobs) > 1 and (
                    now * 4 // max(self.n_steps, 1) > quarter or time.monotonic() - last_line >= self.HEARTBEAT_S):
                quarter, last_line = now * 4 // self.n_steps, time.monotonic()
                print(f"cutlassgen: {now}/{self.n_steps} compile steps finished "
                      f"({last_line - self.started:.0f} s)", file=sys.stderr, flush=True)
            steps = now
            for job in self.jobs:
                if job.key not in self.done and (self.stagings[job.key] / MODULE_FILE).exists():
                    self.done.add(job.key)
                    if bar:
                        bar.set_postfix_str(f"{len(self.done)}/{len(self.jobs)} kernels")
                    else:
                        print(f"cutlassgen: built {len(self.done)}/{len(self.jobs)} "
                              f"({time.monotonic() - self.started:.0f} s): {job.label}", file=sys.stderr, flush=True)
        if bar:
            bar.close()

    def __exit__(self, *exc):
        if self.verbose:
            self.stop.set()
            self.thread.join()
            print(f"cutlassgen: build finished in {time.monotonic() - self.started:.0f} s", file=sys.stderr, flush=True)
        return False
