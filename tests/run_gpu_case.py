"""Run one GPU-suite spec over the suite's shapes in this process and print one line per shape.

A debugging aid beside the pytest suite: a kernel that faults takes down only this process, and the line before
the fault says which shape did it. Run: python tests/run_gpu_case.py SPEC_NAME [M N K]
"""
import sys
import traceback

import torch

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import cutlassgen as cg  # noqa: E402
from cutlassgen.golden import rel_error  # noqa: E402
from gpu_specs import GPU_SPECS  # noqa: E402
from test_gpu_correctness import SHAPES, aligned_shape, assert_close, make_inputs, poisoned_out  # noqa: E402


def main():
    name = sys.argv[1]
    shapes = [tuple(map(int, sys.argv[2:5]))] if len(sys.argv) >= 5 else SHAPES
    spec = GPU_SPECS[name]
    kernel = cg.build(spec, verbose=False)
    for shape in shapes:
        M, N, K = aligned_shape(spec, shape)
        gen = torch.Generator(device="cuda").manual_seed(0)
        a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
        out = poisoned_out(spec, M, N)
        try:
            res = kernel(a, b, c, out=out, **inputs)
            torch.cuda.synchronize()
            ref = cg.reference(spec, a, b, c, **inputs)
            d = res.d if kernel.Result else res
            r = ref.d if kernel.Result else ref
            nan = torch.isnan(d.double()).sum().item()
            err = rel_error(d, r)
            try:
                assert_close(d, r, spec.d.dtype, "D")
                status = "ok"
            except AssertionError as e:
                status = f"FAIL {e}"
            print(f"{name} {M}x{N}x{K}: rel_err={err:.3g} nan={nan} {status}", flush=True)
        except Exception:
            print(f"{name} {M}x{N}x{K}: EXCEPTION {traceback.format_exc(limit=2)}", flush=True)


if __name__ == "__main__":
    main()
