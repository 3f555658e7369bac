"""Check an installed cutlassgen wheel on a GPU: with JIT forbidden, every spec of the manifest loads from the wheel's
prebuilt directory and matches the float64 reference on fresh random inputs; a spec outside it is refused clearly.

Run (from outside the repository, the wheel installed, CUTLASSGEN_NO_JIT=1): python check_wheel.py MANIFEST
"""
import dataclasses
import pathlib
import sys

import torch

import cutlassgen as cg
from cutlassgen.aot import read_manifest
from cutlassgen.golden import rel_error
from cutlassgen.tuning import random_inputs

TOL = {"e4m3": 0.08, "e5m2": 0.15, "bf16": 1.5e-2, "fp16": 5e-3, "fp32": 5e-3, "int8": 0.05}


def main(manifest: str) -> int:
    package = pathlib.Path(cg.__file__).resolve().parent
    print(f"cutlassgen {cg.__version__} from {package}; GPU {torch.cuda.get_device_name()}")
    failures = 0
    for spec, archs in read_manifest(pathlib.Path(manifest)):
        kernel = cg.build(spec)
        inside = package in kernel.binary_path.resolve().parents
        M, N, K = 1000, 1024, 2048
        args, inputs = random_inputs(spec, M, N, K)
        out = kernel(*args, **inputs)
        ref = cg.reference(spec, *args, **inputs)
        d, r = (out.d, ref.d) if isinstance(out, tuple) else (out, ref)
        err = rel_error(d, r)
        ok = inside and err <= TOL[spec.d.dtype]
        failures += not ok
        print(f"{spec.name}: prebuilt={'yes' if inside else 'NO'} ({kernel.binary_path.name}), {M}x{N}x{K} relative "
              f"error {err:.2e} -> {'ok' if ok else 'FAIL'}")
    spec, _ = read_manifest(pathlib.Path(manifest))[0]
    outside = dataclasses.replace(spec, name="not_in_the_manifest")
    try:
        cg.build(outside)
        print("a spec outside the manifest was served: FAIL")
        failures += 1
    except cg.BuildError as e:
        print(f"outside the manifest: BuildError, as it should be: {str(e).splitlines()[0][:160]}")
    print("wheel check:", "PASSED" if not failures else f"{failures} FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
