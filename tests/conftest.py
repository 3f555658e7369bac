import os
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def _has_gpu() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


HAS_GPU = _has_gpu()


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU; skipped (with the reason) where there is none")
    config.addinivalue_line("markers", "compile: runs nvcc (no GPU needed)")


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (torch.cuda.is_available() is False); runs on the GPU machine")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def kernel_cache_header(environ=os.environ) -> str:
    """Where this run's kernels go, for pytest's header: a GPU session that prebuilt its kernels into
    CUTLASSGEN_CACHE_DIR but did not set CUTLASSGEN_TEST_CACHE compiles every kernel again inside the tests, silently
    and for minutes (session 87 lost a device call to it)."""
    keep = environ.get("CUTLASSGEN_TEST_CACHE")
    if keep:
        from cutlassgen.jit import cache
        return f"cutlassgen test cache: {keep} ({len(cache.entries(pathlib.Path(keep)))} cache entries)"
    line = "cutlassgen test cache: a fresh temporary folder (CUTLASSGEN_TEST_CACHE unset): every kernel compiles here"
    user = environ.get("CUTLASSGEN_CACHE_DIR")
    return line + (f"; CUTLASSGEN_CACHE_DIR={user} is not read, set CUTLASSGEN_TEST_CACHE={user} to use its kernels"
                   if user else "")


def pytest_report_header(config):
    return kernel_cache_header()


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    """One cache for the whole run, so kernels compiled by one test are reused by the others.

    CUTLASSGEN_TEST_CACHE keeps it across runs (CI sets it to a folder it can keep between steps)."""
    keep = os.environ.get("CUTLASSGEN_TEST_CACHE")
    d = pathlib.Path(keep) if keep else tmp_path_factory.mktemp("cutlassgen-cache")
    os.environ["CUTLASSGEN_CACHE_DIR"] = str(d)
    return d


@pytest.fixture(scope="session")
def gpu_kernels(cache_dir):
    """Every GPU-suite kernel, compiled in one parallel ninja run for the GPU at hand."""
    import cutlassgen as cg
    from gpu_specs import GPU_SPECS

    try:
        return dict(zip(GPU_SPECS, cg.build_many(list(GPU_SPECS.values()))))
    except cg.BuildError:  # one bad kernel must not hide the others: rebuild one by one (hits are instant)
        out = {}
        for name, spec in GPU_SPECS.items():
            try:
                out[name] = cg.build(spec)
            except cg.BuildError as e:
                out[name] = e
        return out


@pytest.fixture
def gpu_kernel(gpu_kernels, request):
    """gpu_kernels[name], failing the test with the build error if that kernel did not compile."""
    def get(name):
        k = gpu_kernels[name]
        if isinstance(k, Exception):
            raise k
        return k
    return get


@pytest.fixture(scope="session")
def ci_kernels(cache_dir):
    """SM80_ALL, SM90_ALL, SM90_SWAP_ALL, SM90_FP8_NARROW and SM90_FP8_EXACT, compiled once for the session in one
    ninja run.

    Without a GPU each builds for its own arch; on a GPU machine all build for the GPU at hand."""
    import cutlassgen as cg
    from ci_specs import SM80_ALL, SM90_ALL, SM90_FP8_EXACT, SM90_FP8_NARROW, SM90_SWAP_ALL

    names = ("sm80", "sm90", "sm90_swap", "sm90_fp8_narrow", "sm90_fp8_exact")
    return dict(zip(names, cg.build_many([SM80_ALL, SM90_ALL, SM90_SWAP_ALL, SM90_FP8_NARROW, SM90_FP8_EXACT])))
