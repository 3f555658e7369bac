"""Build-time numbers on this machine: cold compile of the sm90 example spec, warm start in a new process, and a
repeated in-process build(). Run: python bench/build_times.py  (needs nvcc; no GPU)"""
import os
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SPEC = ROOT / "examples/specs/linear_bias_gelu_fp8_sm90.toml"


def main():
    cache = tempfile.mkdtemp(prefix="cutlassgen-bench-")
    env = dict(os.environ, CUTLASSGEN_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    cold = ("import time, cutlassgen as cg; s = cg.load_spec(%r); t = time.perf_counter(); "
            "k = cg.build(s, arch=90, verbose=False); print(time.perf_counter() - t)" % str(SPEC))
    t_cold = float(subprocess.run([sys.executable, "-c", cold], env=env, capture_output=True, text=True,
                                  check=True).stdout.split()[-1])
    warm = ("import time; t = time.perf_counter(); import cutlassgen as cg; s = cg.load_spec(%r); "
            "k = cg.build(s, arch=90); t1 = time.perf_counter() - t; n = 10000; t = time.perf_counter()\n"
            "for _ in range(n): cg.build(s, arch=90)\n"
            "print(t1, (time.perf_counter() - t) / n)" % str(SPEC))
    runs = [subprocess.run([sys.executable, "-c", warm], env=env, capture_output=True, text=True, check=True)
            .stdout.split() for _ in range(5)]
    t_warm = sorted(float(r[0]) for r in runs)[2]
    t_memo = sorted(float(r[1]) for r in runs)[2]
    print(f"machine: {os.cpu_count()} cores")
    print(f"cold compile of {SPEC.name} (sm_90a, kernel + binding + link): {t_cold:.1f} s")
    print(f"warm start, new process (import + load spec + build from cache): {t_warm * 1e3:.0f} ms (median of 5)")
    print(f"repeated build() in one process: {t_memo * 1e6:.1f} us")


if __name__ == "__main__":
    main()
