"""cutlassgen: describe a fused GEMM in Python, get a fast, cached CUTLASS kernel you can call."""
from .epilogue import Activation, Add, Amax, LinearCombination, Multiply, Quantize, StoreAux
from .errors import BuildError, SpecError
from .spec import GemmSpec, Operand, Sm80Tile, Sm90Tile, dump_toml, load_spec

__version__ = "0.1.0"


def render(spec: GemmSpec, target_arch: int | None = None) -> str:
    """The CUTLASS C++ for spec, compiled for target_arch (default: spec.arch). Deterministic."""
    from .emit import render as _render

    return _render(spec, target_arch)


def build(spec: GemmSpec, arch=None, **kwargs):
    from .jit import build as _build

    return _build(spec, arch=arch, **kwargs)


def build_many(specs, arch=None, **kwargs):
    from .jit import build_many as _build_many

    return _build_many(specs, arch=arch, **kwargs)


def tune(spec: GemmSpec, shapes, **kwargs):
    """Time every valid tile of spec at each (M, N, K) on this GPU; record the winners for build()'s dispatch."""
    from .tuning import tune as _tune

    return _tune(spec, shapes, **kwargs)


def reference(spec: GemmSpec, a, b, c=None, **inputs):
    from .golden import reference as _reference

    return _reference(spec, a, b, c, **inputs)


__all__ = ["GemmSpec", "Operand", "Sm80Tile", "Sm90Tile", "LinearCombination", "Add", "Multiply", "Activation",
           "Quantize", "StoreAux", "Amax", "SpecError", "BuildError", "render", "build", "build_many", "tune",
           "reference", "load_spec", "dump_toml", "__version__"]
