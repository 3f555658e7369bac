"""The kernel-parameter cache (csrc/cutlassgen/params_cache.hpp) on the host alone: tests/params_cache_check.cpp,
built with the host C++ compiler the JIT uses, checks that every field of a call's problem keys it, that it stays
bounded, and that threads get their own problems' parameters. The GPU suite checks it on real kernels
(test_gpu_correctness.py, test_reused_parameters_follow_every_argument)."""
import pathlib
import subprocess

from cutlassgen.jit import toolchain

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_params_cache_keys_on_every_field_stays_bounded_and_is_thread_safe(tmp_path):
    cxx = toolchain.host_cxx()  # the JIT's own; without one nothing builds, so this fails rather than skips
    exe = tmp_path / "params_cache_check"
    subprocess.run([cxx, "-std=c++17", "-O1", "-Wall", "-Wextra", "-Werror", "-pthread", f"-I{ROOT / 'csrc'}",
                    str(ROOT / "tests" / "params_cache_check.cpp"), "-o", str(exe)], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "params cache: ok"
