"""Shared by the example scripts: build a spec file's kernel, check it against the float64 reference, time it."""
import pathlib
import sys

import torch

import cutlassgen as cg
from cutlassgen.golden import rel_error
from cutlassgen.timing import median_ms

SPECS = pathlib.Path(__file__).resolve().parent / "specs"


def kernel_for(spec_file: str):
    spec = cg.load_spec(SPECS / spec_file)
    if not torch.cuda.is_available():
        kernel = cg.build(spec, arch=spec.arch)
        print(f"{spec.name}: compiled for sm_{spec.arch} at {kernel.binary_path}; no GPU here to run it")
        sys.exit(0)
    return spec, cg.build(spec)


def check_and_time(spec, kernel, args, inputs, unfused, tol, baseline="unfused torch"):
    """Compare kernel(*args, **inputs) with cg.reference and print its speed against `unfused`, the torch way of
    computing the same thing (named by baseline)."""
    out = kernel(*args, **inputs)
    ref = cg.reference(spec, *args, **inputs)
    d, r = (out.d, ref.d) if isinstance(out, tuple) else (out, ref)
    err = rel_error(d, r)
    ours = median_ms(lambda: kernel(*args, **inputs))
    theirs = median_ms(unfused)
    print(f"{spec.name}: relative error {err:.2e} ({'ok' if err <= tol else 'TOO LARGE'}); "
          f"{ours:.3f} ms vs {baseline} {theirs:.3f} ms ({theirs / ours:.2f}x)")
    return 0 if err <= tol else 1
