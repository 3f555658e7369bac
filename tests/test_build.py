"""The JIT's promises, with real nvcc compiles: one compile under concurrency, a killed build blocks nobody and
leaves nothing half-written, a corrupt entry is rebuilt, the key sees every input, errors are clear, warm is fast."""
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import time

import pytest

import cutlassgen as cg
from ci_specs import small_sm80
from cutlassgen import jit
from cutlassgen.jit import MODULE_FILE, cache, toolchain
from fake_toolchain import write_fake_tool

TESTS = str(pathlib.Path(__file__).resolve().parent)
ROOT = str(pathlib.Path(__file__).resolve().parents[1])
BUILD_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
import cutlassgen as cg
from ci_specs import small_sm80
k = cg.build(small_sm80({tag!r}), arch=80)
print(json.dumps({{"path": str(k.binary_path), "spec": k._mod.spec_json()}}))
"""


def _env(cache_dir, **extra):
    env = dict(os.environ, CUTLASSGEN_CACHE_DIR=str(cache_dir), PYTHONPATH=ROOT, CUTLASSGEN_JOBS="2")
    env.update(extra)
    return env


@pytest.mark.compile
def test_eight_processes_compile_once(tmp_path):
    # a cache path with a space and a colon: the ninja file quotes every path it hands the shell (a space split one
    # into two arguments and failed every compile)
    tmp_path = tmp_path / "my cache: 8"
    script = BUILD_SCRIPT.format(tests=TESTS, tag="concurrent")
    procs = [subprocess.Popen([sys.executable, "-c", script], env=_env(tmp_path), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(8)]
    results = [p.communicate(timeout=600) for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1][-2000:] for r in results]
    outs = [json.loads(r[0].strip().splitlines()[-1]) for r in results]
    assert len({o["path"] for o in outs}) == 1
    assert all(json.loads(o["spec"]) == small_sm80("concurrent").to_dict() for o in outs)
    compiles = sum(r[1].count("cutlassgen: compiling") for r in results)
    assert compiles == 1, [r[1] for r in results]
    assert len(cache.entries(tmp_path)) == 1


@pytest.mark.compile
def test_killed_build_blocks_nobody_and_corrupt_entries_are_rebuilt(tmp_path, monkeypatch):
    spec = small_sm80("lifecycle")
    env = _env(tmp_path)
    victim = subprocess.Popen([sys.executable, "-c", BUILD_SCRIPT.format(tests=TESTS, tag="lifecycle")], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while not list((tmp_path / "tmp").glob("resume-*/kernel.cu")):  # nvcc is about to run
        assert time.monotonic() < deadline and victim.poll() is None
        time.sleep(0.05)
    time.sleep(2)  # mid-compile
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait()
    assert not [e for e in cache.entries(tmp_path) if (e / cache.COMPLETE).exists()], "a half-built entry appeared"

    # The dead holder's flock is gone with it: a short lock timeout proves nobody waits for it.
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("CUTLASSGEN_LOCK_TIMEOUT", "30")
    # Paths only (load=False): this process must not map a module that the test then corrupts in place.
    (first,) = cg.build_many([spec], arch=80, verbose=False, load=False)
    assert cache.lookup(first.parent, MODULE_FILE) == first
    meta = cache.read_meta(first.parent)
    assert meta["spec"] == spec.to_dict() and meta["compile_seconds"] > 0

    # One flipped byte: the checksum makes it a miss.
    data = bytearray(first.read_bytes())
    data[len(data) // 2] ^= 0xFF
    first.write_bytes(bytes(data))
    assert cache.lookup(first.parent, MODULE_FILE) is None
    # Truncated: build() compiles it again and publishes a sound entry in its place.
    first.write_bytes(bytes(data[:1000]))
    again = cg.build(spec, arch=80, verbose=False)
    assert again.binary_path == first and cache.lookup(first.parent, MODULE_FILE) == first
    assert json.loads(again._mod.spec_json()) == spec.to_dict()
    assert cache.read_meta(first.parent)["key"] == meta["key"]


def _steps_done(cache_dir, output_name: str) -> int:
    """How many steps writing output_name the running build's ninja has logged as finished."""
    lines = [line.split("\t") for log in (cache_dir / "tmp").glob("ninja-*/.ninja_log")
             for line in log.read_text().splitlines()]
    # a line's fields: start, end, mtime, path, hash
    return sum(len(fields) == 5 and fields[3].endswith("/" + output_name) for fields in lines)


def _start_fake_build(tmp_path, names: list, slow: str):
    """A process building small_sm80 kernels of names with the fake toolchain, whose compile of slow hangs until the
    file hang (returned) is removed; returned once that compile has started (and any other kernel has linked)."""
    fake = write_fake_tool(tmp_path / "fake-tool", slow)
    log, cache_dir, hang = tmp_path / "steps.log", tmp_path / "cache", tmp_path / "hang"
    hang.touch()
    log.write_text("")
    env = _env(cache_dir, CUTLASSGEN_NVCC=str(fake), CXX=str(fake), FAKE_LOG=str(log), FAKE_SLOW=str(hang))
    script = (f"import signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); sys.path.insert(0, {TESTS!r}); "
              "import cutlassgen as cg; from ci_specs import small_sm80; "
              f"cg.build_many([small_sm80(n) for n in {names!r}], arch=90, load=False)")
    victim = subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    # The others linked: ninja logs a step once its command has exited. Their module files appear earlier, when the
    # link opens them, and a SIGINT then would stop that link and ninja would remove its half-written output.
    while _steps_done(cache_dir, MODULE_FILE) < len(names) - 1:
        assert time.monotonic() < deadline and victim.poll() is None
        time.sleep(0.05)
    while log.read_text().count("kernel.o.part") < len(names):  # slow's compile has started
        assert time.monotonic() < deadline and victim.poll() is None
        time.sleep(0.05)
    return victim, log, cache_dir, env, hang


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGINT"])
def test_an_interrupted_build_resumes_from_the_steps_that_finished(tmp_path, monkeypatch, stop):
    """Killed mid-build (a job's time limit: SIGKILL), or its ninja stopped by a SIGINT the builder itself ignores (a
    script's background job), a batch keeps each step that finished: the next build of the same kernels compiles
    only what had not, and a step cut off midway is redone, not taken half-written. The SIGINT is reported as an
    interruption, not as a compile error, and leaves nothing under failed/."""
    victim, log, cache_dir, env, _ = _start_fake_build(tmp_path, ["resume_fast", "resume_slow"], "resume_slow")
    os.killpg(victim.pid, getattr(signal, stop))
    _, err = victim.communicate(timeout=60)
    first_run = log.read_text().splitlines()
    if stop == "SIGKILL":
        assert cache.entries(cache_dir) == []  # nothing published: the batch never finished
    else:
        assert victim.returncode == 1 and "the build was interrupted (ninja: build stopped: interrupted by user.); " \
            "1 of 2 kernels were finished and cached" in err, err
        assert "nvcc failed" not in err and not (cache_dir / "failed").exists()
        assert len(cache.entries(cache_dir)) == 1  # the fast kernel, published

    log.write_text("")
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(cache_dir))
    for var in ("CUTLASSGEN_NVCC", "CXX", "FAKE_LOG"):
        monkeypatch.setenv(var, env[var])
    monkeypatch.delenv("FAKE_SLOW", raising=False)
    toolchain.find_nvcc.cache_clear()
    toolchain.nvcc_version.cache_clear()
    try:
        fast, slow = cg.build_many([small_sm80("resume_fast"), small_sm80("resume_slow")], arch=90, verbose=False,
                                   load=False)
    finally:
        toolchain.find_nvcc.cache_clear()
        toolchain.nvcc_version.cache_clear()
    second_run = log.read_text().splitlines()
    assert fast.read_text() == slow.read_text() == "part of it and the rest"  # whole modules, both published
    # SIGKILL: the fast kernel's finished folder is published by the second build; SIGINT: by the first
    assert cache.read_meta(fast.parent)["resumed"] == (stop == "SIGKILL")
    assert not cache.read_meta(slow.parent)["resumed"]  # its one finished step was cut off: nothing to reuse
    fast_dir, slow_dir = (f"resume-sm90-{p.parent.name}/" for p in (fast, slow))
    assert sum(fast_dir in line for line in first_run) == 2  # compile, link
    assert [line for line in second_run if fast_dir in line] == []  # nothing of it again
    assert sum(slow_dir in line for line in second_run) == 2  # its cut-off compile redone, then the link
    assert not list((cache_dir / "tmp").glob("resume-*"))  # published folders leave nothing behind


def test_cache_prune_and_clear_leave_a_running_builds_folders_alone(tmp_path, monkeypatch, capsys):
    """`cutlassgen cache prune` or `clear` while another process builds: that build's resume folder and ninja folder
    stay (it holds their locks), and it finishes and publishes; what a killed build left, prune removes."""
    from cutlassgen.cli import main

    victim, _, cache_dir, _, hang = _start_fake_build(tmp_path, ["prune_live"], "prune_live")
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(cache_dir))
    leftovers = sorted(p.name for p in (cache_dir / "tmp").iterdir() if p.is_dir())
    assert [name.split("-")[0] for name in leftovers] == ["ninja", "resume"]
    assert main(["cache", "prune"]) == 0
    assert "removed 0 entries, 0 device and host parts and 0 build leftovers" in capsys.readouterr().out
    assert sorted(p.name for p in (cache_dir / "tmp").iterdir() if p.is_dir()) == leftovers
    (cache_dir / "tuning").mkdir()
    (cache_dir / "tuning" / "old-sm90.json").write_text("{}")
    assert main(["cache", "clear"]) == 0
    assert "but the 2 folders that a running build holds" in capsys.readouterr().out
    assert sorted(p.name for p in (cache_dir / "tmp").iterdir() if p.is_dir()) == leftovers
    assert not (cache_dir / "tuning").exists()
    hang.unlink()
    _, err = victim.communicate(timeout=60)
    assert victim.returncode == 0, err
    (entry,) = cache.entries(cache_dir)
    assert cache.lookup(entry, MODULE_FILE)

    victim, _, _, _, _ = _start_fake_build(tmp_path, ["prune_killed"], "prune_killed")
    os.killpg(victim.pid, signal.SIGKILL)
    victim.communicate(timeout=60)
    assert main(["cache", "prune"]) == 0
    assert "removed 0 entries, 0 device and host parts and 2 build leftovers" in capsys.readouterr().out
    assert list((cache_dir / "tmp").iterdir()) == [] and cache.entries(cache_dir) == [entry]


def test_cache_key_sees_every_input(monkeypatch):
    spec = small_sm80("key")
    job = jit.plan(spec, 80)
    base = jit.key_parts(job.source_key, 80)
    key = jit.cache_key(base)
    for field, value in (("nvcc", "13.1.0"), ("cutlass", "4.3.0"), ("pybind11", "9.9"), ("python_abi", ".cpython-312"),
                         ("cutlassgen", "0.0.1"), ("flags", base["flags"] + ["-G"]), ("target_arch", 90)):
        assert jit.cache_key({**base, field: value}) != key, field
    assert jit.source_key(job.source, 86, job.spec.resolved_path) != job.source_key
    assert jit.source_key(job.source + "\n", 80, job.spec.resolved_path) != job.source_key
    monkeypatch.setattr(toolchain, "nvcc_version", lambda nvcc: "12.9.0")
    assert jit.cache_key(jit.key_parts(job.source_key, 80)) != key
    assert not any("/" in str(v) for k, v in base.items() if k != "flags"), "no paths in the key"


def test_cache_key_is_the_same_in_another_process():
    code = ("import sys; sys.path.insert(0, %r); from cutlassgen import jit; from ci_specs import small_sm80; "
            "j = jit.plan(small_sm80('key'), 80); print(jit.cache_key(jit.key_parts(j.source_key, 80)))" % TESTS)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=ROOT)).stdout.strip()
    job = jit.plan(small_sm80("key"), 80)
    assert out == jit.cache_key(jit.key_parts(job.source_key, 80))


@pytest.mark.compile  # needs the toolchain for the key; fails before nvcc runs
def test_a_cache_path_nvcc_cannot_take_is_named_before_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "cost$HOME"))
    with pytest.raises(cg.BuildError, match=r"path holds \$ .*set CUTLASSGEN_CACHE_DIR"):
        cg.build_many([small_sm80("dollar")], load=False)


def test_compile_error_raises_build_error_and_caches_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    real = jit._render_source
    monkeypatch.setattr(jit, "_render_source",
                        lambda spec, arch: "#error injected failure for the test\n" + real(spec, arch))
    with pytest.raises(cg.BuildError) as info:
        cg.build(small_sm80("broken"), arch=80, verbose=False)
    err = info.value
    assert any("injected failure" in line for line in err.first_errors)
    assert "nvcc" in err.command and "-gencode=arch=compute_80,code=sm_80" in err.command
    assert pathlib.Path(err.source_path).is_file() and pathlib.Path(err.log_path).is_file()
    assert "injected failure" in str(err) and err.log_path in str(err)
    assert cache.entries(tmp_path) == []


def test_missing_toolchain_pieces_are_named(monkeypatch):
    toolchain.find_nvcc.cache_clear()
    monkeypatch.setenv("CUTLASSGEN_NVCC", "/nonexistent/nvcc")
    with pytest.raises(cg.BuildError, match="CUTLASSGEN_NVCC=/nonexistent/nvcc does not exist"):
        toolchain.find_nvcc()
    toolchain.find_nvcc.cache_clear()
    monkeypatch.delenv("CUTLASSGEN_NVCC")
    toolchain.find_cutlass.cache_clear()
    monkeypatch.setenv("CUTLASS_PATH", "/nonexistent/cutlass")
    with pytest.raises(cg.BuildError, match="point CUTLASS_PATH at the root of a CUTLASS checkout"):
        toolchain.find_cutlass()
    toolchain.find_cutlass.cache_clear()

def test_an_nvcc_setting_that_is_not_a_runnable_nvcc_is_named(tmp_path, monkeypatch):
    """A folder, a file without execute permission, and a file the OS cannot run were one "does not exist", a
    PermissionError and an OSError from subprocess (exec format error); each is now a ToolchainError saying which."""
    plain, garbage, silent = tmp_path / "plain", tmp_path / "garbage", tmp_path / "silent"
    plain.write_text("#!/bin/sh\n")
    garbage.write_bytes(b"\x00not a program")
    garbage.chmod(0o755)
    silent.write_text("#!/bin/sh\nexit 0\n")
    silent.chmod(0o755)
    cases = [(tmp_path, "is a folder"), (plain, "is not executable by this user"),
             (garbage, "could not run .*garbage --version"), (silent, "could not read the version of .*silent")]
    try:
        for path, words in cases:
            toolchain.find_nvcc.cache_clear()
            toolchain.nvcc_version.cache_clear()
            monkeypatch.setenv("CUTLASSGEN_NVCC", str(path))
            with pytest.raises(toolchain.ToolchainError, match=f"{words}.*check that this nvcc runs|{words}.*point it"):
                toolchain.nvcc_version(toolchain.find_nvcc())
    finally:
        toolchain.find_nvcc.cache_clear()
        toolchain.nvcc_version.cache_clear()


@pytest.mark.parametrize("name, value", [("CUTLASSGEN_JOBS", "abc"), ("CUTLASSGEN_JOBS", "0"), ("MAX_JOBS", "2.5"),
                                         ("CUTLASSGEN_LOCK_TIMEOUT", "abc"), ("CUTLASSGEN_LOCK_TIMEOUT", "-5"),
                                         ("CUTLASSGEN_LOCK_TIMEOUT", "nan")])
def test_a_bad_setting_in_the_environment_is_named(monkeypatch, name, value):
    # (a word in CUTLASSGEN_JOBS or CUTLASSGEN_LOCK_TIMEOUT was a ValueError traceback; -5 seconds waited forever)
    for other in ("CUTLASSGEN_JOBS", "MAX_JOBS", "CUTLASSGEN_LOCK_TIMEOUT"):
        monkeypatch.delenv(other, raising=False)
    monkeypatch.setenv(name, value)
    read = (lambda: jit._parallel_jobs(4)) if name.endswith("JOBS") else cache.lock_timeout
    with pytest.raises(cg.BuildError, match=f"{name}='{value}' is not an? (integer|number) of at least"):
        read()
    monkeypatch.setenv(name, "3")
    assert read() == 3


def test_arch_mismatches_are_spec_errors():
    with pytest.raises(cg.SpecError, match="runs only on sm_90a"):
        jit.plan(cg.load_spec(pathlib.Path(ROOT, "examples/specs/linear_bias_gelu_fp8_sm90.toml")), 80)
    spec89 = cg.GemmSpec(arch=89, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    with pytest.raises(cg.SpecError, match="needs sm89 features"):
        jit.plan(spec89, 80)
    # 80.0 passed as 80 and failed after the compile, in torch's op schema ("..._sm80.0")
    for target in (80.0, "80", True):
        with pytest.raises(cg.SpecError, match="no supported compile target"):
            cg.build(spec89.replace(arch=80, a="bf16", b=cg.Operand("bf16", "column")), arch=target)


def test_build_render_and_build_many_name_a_wrong_argument_type():
    spec = cg.load_spec(pathlib.Path(ROOT, "examples/specs/fp16_bias_relu_sm80.toml"))
    for call, words in ((lambda: cg.build({"arch": 80}), "build() takes a GemmSpec, not dict"),
                        (lambda: cg.render("spec.toml"), "render() takes a GemmSpec, not str"),
                        (lambda: cg.build_many(spec), "build_many() takes a list of GemmSpecs"),
                        (lambda: cg.build_many([spec, "x"]), "build_many() takes GemmSpecs, not str")):
        with pytest.raises(TypeError, match=re.escape(words)):
            call()


def test_a_jobs_count_that_is_not_a_whole_number_of_at_least_one_is_named_before_any_build(tmp_path, monkeypatch,
                                                                                           capsys):
    """jobs went to ninja's -j as it came: -1 or 2.5 was a BuildError ("nvcc failed to compile", ninja's "invalid -j
    parameter" under an nvcc command) after the sources were rendered; now a ValueError before, from build_many and
    `cutlassgen aot` (before its output folder is made), and an argparse error from the CLI."""
    from cutlassgen import aot, cli

    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "cache"))
    spec = cg.load_spec(pathlib.Path(ROOT, "examples/specs/fp16_bias_relu_sm80.toml"))
    for jobs in (0, -1, 2.5, "4", True):
        with pytest.raises(ValueError, match=re.escape(f"jobs={jobs!r}: the number of compile jobs")):
            cg.build_many([spec], arch=80, jobs=jobs, load=False)
    with pytest.raises(ValueError, match="jobs=-2"):
        aot.build_prebuilt(pathlib.Path(ROOT, "examples/manifest.toml"), tmp_path / "out", jobs=-2)
    assert not (tmp_path / "out").exists() and not (tmp_path / "cache").exists()
    for argv in (["build", "x.toml", "--jobs", "0"], ["aot", "m.toml", "--out", "o", "--jobs", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        assert exit_.value.code == 2 and "must be at least 1" in capsys.readouterr().err


@pytest.mark.compile
def test_another_pythons_build_of_an_sm90_kernel_takes_its_kept_parts_and_only_links(ci_kernels, cache_dir, tmp_path,
                                                                                      monkeypatch):
    """The device part (cubin and ptxas log) and the host part (the entry points' object and nvcc's log) are kept by
    a key without the Python ABI and pybind11: a build for another Python (here the same kernel under a key that says
    so) takes both and compiles only the binding; with the host part missing (a cache kept before host parts were)
    it compiles that and keeps it. This is how parts compiled on one machine seed a build on another (bench/NOTES.md,
    session 77)."""
    import shutil

    from ci_specs import SM90_ALL

    first = ci_kernels["sm90"].binary_path
    key = jit.part_key(jit.plan(SM90_ALL, 90).with_cache_key())
    kept = {kind: cache.part_dir(kind, key, 90, cache_dir) for kind in cache.PART_FILES}
    for kind, files in cache.PART_FILES.items():
        assert cache.lookup(kept[kind], files[0]), f"the CI kernels' build kept its {kind} part"
    before = cache.read_meta(first.parent)
    real = jit.key_parts
    for python, parts in ((".cpython-399-other.so", cache.PART_FILES), (".cpython-398-other.so", [cache.DEVICE])):
        root = tmp_path / python
        for kind in parts:
            shutil.copytree(kept[kind], cache.part_dir(kind, key, 90, root))
        monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(root))
        monkeypatch.setattr(jit, "key_parts", lambda *a, python=python: {**real(*a), "python_abi": python})
        (second,) = cg.build_many([SM90_ALL], arch=90, load=False)
        meta = cache.read_meta(second.parent)
        assert second.parent.name != first.parent.name and not meta["resumed"], python
        assert meta["device_part_reused"] and meta["host_part_reused"] == (cache.HOST in parts), python
        assert (kept[cache.DEVICE] / "kernel.cubin").read_bytes() in second.read_bytes()  # the kept cubin is embedded
        assert meta["resources"] == before["resources"] and meta["warnings"] == before["warnings"], python
        if cache.HOST not in parts:  # the host part it compiled is kept for the next Python
            assert cache.lookup(cache.part_dir(cache.HOST, key, 90, root), "kernel.o"), python


@pytest.mark.compile
def test_a_cache_no_build_can_write_serves_its_kernels_and_names_itself_for_the_rest(ci_kernels, tmp_path,
                                                                                     monkeypatch):
    """A cache this process cannot write (a read-only image's shared cache; here one whose lock folder is a file,
    which fails every user's writes alike) loads the kernels it holds and refuses, before compiling, with the cache's
    path and the kernels it lacks, a build it would have to write: not a PermissionError from inside filelock."""
    import shutil

    from ci_specs import SM80_ALL

    entry = ci_kernels["sm80"].binary_path.parent
    root = tmp_path / "shared cache"
    shutil.copytree(entry, root / entry.parent.name / entry.name)
    (root / "locks").write_text("")
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(root))
    (path,) = cg.build_many([SM80_ALL], load=False)  # load=False: past the in-process memo, to the cache
    assert path == root / entry.parent.name / entry.name / MODULE_FILE
    with pytest.raises(toolchain.ToolchainError) as info:
        cg.build_many([small_sm80("ro_a"), small_sm80("ro_b")], arch=80)
    message = str(info.value)
    assert f"the kernel cache {root} cannot be written" in message and "2 kernel(s) to build" in message
    assert "ro_a" in message and "set CUTLASSGEN_CACHE_DIR" in message
    assert sorted(p.name for p in root.iterdir()) == ["locks", entry.parent.name]  # nothing else was written
    with pytest.raises(toolchain.ToolchainError, match="the build folder .* cannot be written .* choose an output"):
        cg.build_many([small_sm80("ro_a")], arch=80, root=root / "locks" / "aot", load=False)  # an AOT build's


def test_render_does_not_need_to_write_the_template_cache(tmp_path, monkeypatch):
    """Jinja's compiled-template cache sits in the kernel cache; a write there that fails (a read-only cache, a full
    disk) costs the render its speed-up, not the render."""
    import jinja2.bccache

    from cutlassgen import emit

    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    emit._environment.cache_clear()

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(tmp_path / "jinja"))

    monkeypatch.setattr(jinja2.bccache.tempfile, "NamedTemporaryFile", refuse)
    try:
        source = cg.render(small_sm80("ro_render"))
        assert "cutlass" in source and not list((tmp_path / "jinja").iterdir())
    finally:
        emit._environment.cache_clear()  # the next test's environment caches where its own cache is


@pytest.mark.parametrize("kind", ["device", "host"])
def test_a_broken_kept_part_is_not_taken_and_prune_removes_old_ones(tmp_path, monkeypatch, kind):
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    output, log = cache.PART_FILES[kind]
    staging = tmp_path / "staging"
    staging.mkdir()
    (staging / output).write_bytes(b"part bytes")
    (staging / log).write_text("ptxas info    : Used 168 registers")
    cache.keep_part(kind, "k1", 90, staging)
    kept = cache.part_dir(kind, "k1", 90)
    into = tmp_path / "into"
    into.mkdir()
    assert cache.take_part(kind, "k1", 90, into) and (into / output).read_bytes() == b"part bytes"
    assert (into / log).read_text() == (staging / log).read_text()
    (kept / output).write_bytes(b"part bytez")  # flipped: its COMPLETE digest no longer matches
    (into / output).unlink()
    assert not cache.take_part(kind, "k1", 90, into) and not (into / output).exists()
    cache.keep_part(kind, "k1", 90, staging)  # a broken one is replaced
    os.utime(kept, (time.time() - 7200,) * 2)  # kept two hours ago, taken now: its age counts from the take
    assert cache.take_part(kind, "k1", 90, into)
    assert cache.prune(tmp_path, time.time() - 3600) == (0, 0, 0, 0) and kept.exists()
    assert cache.prune(tmp_path, time.time() + 1) == (0, 1, 0, 0) and not kept.exists()


PICKLED_SCRIPT = """
import json, pickle, sys
data = open(sys.argv[1], "rb").read()
kernels = pickle.loads(data)
plain, per_shape = kernels["plain"], kernels["dispatch"]
print(json.dumps({"path": str(plain.binary_path), "key": plain.spec.key, "stages": plain.pipeline["mainloop_stages"],
                  "chosen": str(per_shape.choose(16, 4096, 4096).binary_path), "default": str(per_shape.spec.key),
                  "loaded_once": pickle.loads(data)["plain"] is plain}))
"""


@pytest.mark.compile
def test_a_kernel_pickles_into_another_process_and_copies_as_itself(ci_kernels, tmp_path, monkeypatch):
    """multiprocessing and torch.multiprocessing.spawn pickle what they hand a worker, and copy.deepcopy of an
    nn.Module copies the kernels it holds: each was "TypeError: cannot pickle 'module' object". The worker loads
    the same module file (or builds the spec where that file is gone); a copy within one process is the kernel
    itself; a per-shape DispatchKernel pickles as what it was made from."""
    import copy
    import pickle

    from cutlassgen import runtime
    from cutlassgen.dispatch import DispatchKernel

    plain, swap = ci_kernels["sm90"], ci_kernels["sm90_swap"]
    per_shape = DispatchKernel(plain, {"gpu": None, "limits": [64], "winners": [{"label": "swap", "n_min": 4096}]},
                               [swap])
    assert copy.deepcopy(plain) is plain and copy.copy(plain) is plain and copy.deepcopy(per_shape) is per_shape
    assert pickle.loads(pickle.dumps(plain)) is plain  # this process already loaded it
    again = pickle.loads(pickle.dumps(per_shape))
    assert again.choose(16, 4096, 4096) is swap and again.choose(16, 2048, 4096) is plain  # N under n_min
    (tmp_path / "kernels.pkl").write_bytes(pickle.dumps({"plain": plain, "dispatch": per_shape}))
    out = subprocess.run([sys.executable, "-c", PICKLED_SCRIPT, str(tmp_path / "kernels.pkl")], capture_output=True,
                         text=True, env=_env(os.environ["CUTLASSGEN_CACHE_DIR"]), timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"path": str(plain.binary_path), "key": plain.spec.key, "stages": plain.pipeline["mainloop_stages"],
                    "chosen": str(swap.binary_path), "default": plain.spec.key, "loaded_once": True}
    monkeypatch.setattr(jit, "_loaded", {})  # a process that has not loaded it, whose module file is gone
    rebuilt = runtime._unpickled_kernel(plain.spec, plain.target_arch, str(tmp_path / "gone.so"), plain.source)
    assert rebuilt is not plain and rebuilt.binary_path == plain.binary_path  # found in the cache: no compile


@pytest.mark.compile
def test_repeated_build_in_process_is_memoized(ci_kernels):
    from ci_specs import SM80_ALL

    k = cg.build(SM80_ALL)
    assert k is ci_kernels["sm80"]
    n = 2000
    t = time.perf_counter()
    for _ in range(n):
        cg.build(SM80_ALL)
    per_call = (time.perf_counter() - t) / n
    assert per_call < 50e-6, f"{per_call * 1e6:.1f} us per cached build()"


@pytest.mark.compile
def test_warm_start_in_a_new_process(ci_kernels):
    # The arch is explicit: without it, build() asks torch for the GPU, and importing torch alone takes longer.
    arch = ci_kernels["sm80"].target_arch
    code = ("import time; t = time.perf_counter(); import sys; sys.path.insert(0, %r); import cutlassgen as cg; "
            "from ci_specs import SM80_ALL; k = cg.build(SM80_ALL, arch=%d); "
            "print(time.perf_counter() - t, k._mod.target_arch())" % (TESTS, arch))
    times = []
    for _ in range(5):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env=dict(os.environ, PYTHONPATH=ROOT)).stdout.split()
        times.append(float(out[0]))
    # import cutlassgen + render + key + checksum + load: no torch (2.5-3 s to import on a 2-core machine), no compile.
    # The 0.2 s target (README, "The build system") is measured on a quiet machine by bench/build_times.py; on session
    # 44's 2-core machine single starts ranged 0.18-0.35 s with the load (0.27-0.35 s at 6828666, before its changes).
    assert min(times) < 0.5, times


def test_threads_building_one_spec_at_once_get_one_kernel(ci_kernels):
    """Eight threads of a new process build one cached spec at once (a server warming its models up in threads):
    each made a Kernel and registered its torch op, and torch.library failed all but the first ("Library object has
    been destroyed", 3 runs of 3). torch is imported first, as a server has it: then a Kernel registers its op."""
    arch = ci_kernels["sm90"].target_arch
    code = f"""
import sys, threading, traceback
sys.path.insert(0, {TESTS!r})
import torch
import cutlassgen as cg
from ci_specs import SM90_ALL
barrier, kernels, errors = threading.Barrier(8), [], []
def build():
    barrier.wait()
    try:
        kernels.append(cg.build(SM90_ALL, arch={arch}))
    except Exception:
        errors.append(traceback.format_exc())
threads = [threading.Thread(target=build) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
print(len(kernels), len({{id(k) for k in kernels}}), len({{id(k.op) for k in kernels}}))
print(errors[0] if errors else "")
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.split("\n")[0] == "8 1 1", run.stdout[-3000:]


def test_compile_seconds_count_a_kernels_own_steps_not_its_wait_for_the_link(tmp_path):
    # A large parallel build as ninja runs it: every long compile first, the short links at the end.
    a, b = tmp_path / "a", tmp_path / "b"
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v6\n"
                   f"0\t37000\t0\t{a}/kernel.cubin\th\n0\t17000\t0\t{a}/kernel.o\th\n"
                   f"200000\t201000\t0\t{a}/cubin_embed.o\th\n240000\t241000\t0\t{a}/module.so\th\n"
                   f"40000\t50000\t0\t{b}/kernel.o\th\n45000\t60000\t0\t{b}/kernel.cubin\th\n"
                   f"{tmp_path}/other/x.o\tbad\n")
    assert jit._kernel_spans(log, {"A": a, "B": b}) == {"A": 39.0, "B": 20.0}


def test_progress_counts_steps_when_no_kernel_has_finished_yet(tmp_path, capsys):
    from types import SimpleNamespace

    jobs = [SimpleNamespace(key=k, label=f"kernel {k}") for k in "AB"]
    stagings = {k: tmp_path / k for k in "AB"}
    for st in stagings.values():
        st.mkdir()
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v6\n" + "".join(f"0\t1\t0\t{tmp_path}/A/step{i}\th\n" for i in range(3)))
    with jit._Progress(jobs, stagings, True, log, n_steps=8, at_once=6):
        (stagings["A"] / MODULE_FILE).write_text("")  # A links; B is still compiling
    err = capsys.readouterr().err
    # the first line gives this machine's parallelism, not a fixed 2-core figure alone
    assert err.startswith("cutlassgen: compiling 2 kernel(s): kernel A, kernel B (6 compile step(s) at once here;"), err
    assert "cutlassgen: 3/8 compile steps finished" in err and "built 1/2 (0 s): kernel A" in err
    assert "built 2/2" not in err


def test_progress_says_the_build_is_alive_when_no_step_finishes_for_a_while(tmp_path, capsys, monkeypatch):
    import time
    from types import SimpleNamespace

    monkeypatch.setattr(jit._Progress, "HEARTBEAT_S", 0.4)
    jobs = [SimpleNamespace(key=k, label=f"kernel {k}") for k in "AB"]
    stagings = {k: tmp_path / k for k in "AB"}
    for st in stagings.values():
        st.mkdir()
    log = tmp_path / ".ninja_log"
    log.write_text("# ninja log v6\n")  # long compiles running, none finished
    with jit._Progress(jobs, stagings, True, log, n_steps=8):
        time.sleep(1.8)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "compile steps finished" in ln]
    assert len(lines) >= 2 and all(ln.startswith("cutlassgen: 0/8 compile steps finished (") for ln in lines), lines
