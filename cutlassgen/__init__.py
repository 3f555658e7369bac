"""cutlassgen: describe a fused GEMM in Python, get a fast, cached CUTLASS kernel you can call."""
import importlib

from .epilogue import Activation, Add, Amax, LinearCombination, Multiply, Quantize, StoreAux
from .errors import BuildError, SpecError
from .spec import GemmSpec, Operand, Sm80Tile, Sm90Tile, dump_toml, load_spec

__version__ = "0.1.0"


# The pipeline's entry points, imported on first use: `import cutlassgen` stays light (no Jinja, no build code; the
# jit module alone took 20 ms), and each name is the stage's own function, with its signature and docstring.
_ENTRY_POINTS = {"render": "emit", "build": "jit", "build_many": "jit", "tune": "tuning", "reference": "golden"}


def __getattr__(name):
    if name in _ENTRY_POINTS:
        value = getattr(importlib.import_module(f"{__name__}.{_ENTRY_POINTS[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_ENTRY_POINTS})


__all__ = ["GemmSpec", "Operand", "Sm80Tile", "Sm90Tile", "LinearCombination", "Add", "Multiply", "Activation",
           "Quantize", "StoreAux", "Amax", "SpecError", "BuildError", "render", "build", "build_many", "tune",
           "reference", "load_spec", "dump_toml", "__version__"]
