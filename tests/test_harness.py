"""The test harness itself: what pytest's header says about where the kernels of a run are compiled and kept."""
import os
import pathlib
import subprocess
import sys

from conftest import kernel_cache_header


def test_the_header_names_the_kept_cache_and_counts_its_kernels(tmp_path):
    for name in ("abc", "def"):
        (tmp_path / "sm90" / name).mkdir(parents=True)
    (tmp_path / "sm80" / "ghi").mkdir(parents=True)
    line = kernel_cache_header({"CUTLASSGEN_TEST_CACHE": str(tmp_path)})
    assert line == f"cutlassgen test cache: {tmp_path} (3 cache entries)"


def test_the_header_says_a_users_cache_dir_is_not_read_without_the_test_cache():
    line = kernel_cache_header({"CUTLASSGEN_CACHE_DIR": "/tmp/cgcache"})
    assert "every kernel compiles here" in line
    assert "CUTLASSGEN_CACHE_DIR=/tmp/cgcache is not read, set CUTLASSGEN_TEST_CACHE=/tmp/cgcache" in line
    assert "not read" not in kernel_cache_header({})
    assert kernel_cache_header({}).startswith("cutlassgen test cache: a fresh temporary folder")


def test_pytest_prints_the_header_at_the_top_of_a_run():
    env = {k: v for k, v in os.environ.items() if k != "CUTLASSGEN_TEST_CACHE"}
    env["CUTLASSGEN_CACHE_DIR"] = "/tmp/somewhere"
    here = pathlib.Path(__file__).resolve().parent
    out = subprocess.run([sys.executable, "-m", "pytest", "--co", "-p", "no:cacheprovider",
                          str(here / "test_harness.py")], capture_output=True, text=True, cwd=here.parent, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "CUTLASSGEN_CACHE_DIR=/tmp/somewhere is not read" in out.stdout.split("collected")[0]
