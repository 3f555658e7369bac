"""The epilogue chain: elementwise steps applied in order to the fp32 accumulator.

Every node is a frozen dataclass with a dict form (`op` names the node) and a float64 PyTorch reference
(`cutlassgen.reference`). Lowering turns the chain into an Epilogue Visitor Tree for either arch path.
"""
from __future__ import annotations

import keyword
from dataclasses import dataclass, fields
from typing import Union

from .dtypes import ALIASES, DTYPES
from .errors import SpecError, choose, is_number

# Where an epilogue input's values come from, and the shape the caller passes:
#   scalar  - a Python number or a one-element tensor
#   per_row - one value per output row, shape (M,)   (per token)
#   per_col - one value per output column, shape (N,) (per channel)
#   tensor  - a full (M, N) tensor: the spec's operand C (residual)
BROADCASTS = ("scalar", "per_row", "per_col", "tensor")
ACTIVATIONS = ("identity", "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh", "leaky_relu", "hardswish", "clamp")
QUANT_DTYPES = ("e4m3", "e5m2", "int8")
QUANT_SCALES = ("none", "per_tensor", "per_row", "per_col")
RUNTIME = "runtime"  # alpha/beta given at call time instead of baked into the kernel
FLOAT32_MAX = 3.4028234663852886e38


def _float32_constant(field: str, value, infinite_ok: bool = False) -> float:
    """value as a float the kernel can bake in as a float32 literal. NaN would render as no C++ literal (a compile
    error a minute later) and makes the spec unequal to itself; a finite value beyond float32's range would compile
    to infinity."""
    if not is_number(value):
        raise SpecError(field, value, "must be a number")
    try:
        v = float(value)
    except OverflowError:  # an int past any float
        v = float("nan")
    if v != v or (abs(v) > FLOAT32_MAX and not (infinite_ok and abs(v) == float("inf"))):
        what = "or +-inf, not NaN" if infinite_ok else "and finite"
        raise SpecError(field, value, f"must be within float32's range (|x| <= {FLOAT32_MAX:.4g}) {what}: the kernel "
                        "bakes it in as a float32 constant", "e.g. 1.0")
    return v


def _check_name(field: str, value, example: str, output: bool = False) -> None:
    """An input's name becomes a keyword argument of the kernel's call; an output's, a field of its result tuple
    (collections.namedtuple: no keyword, no leading underscore)."""
    if not (isinstance(value, str) and value.isidentifier()) or keyword.iskeyword(value):
        raise SpecError(field, value, "must be a Python identifier and not a keyword (it becomes a keyword argument"
                        f"{' and a field of the result' if output else ''})", f"e.g. {example!r}")
    if output and value.startswith("_"):
        raise SpecError(field, value, "an output's name may not start with '_' (it becomes a field of the kernel's "
                        "result tuple)", f"e.g. {example!r}")


def _scalar_or_runtime(field: str, value):
    if value == RUNTIME:
        return value
    if not is_number(value):
        raise SpecError(field, value, "must be a number or 'runtime'", "e.g. 1.0 or 'runtime'")
    return _float32_constant(field, value)


@dataclass(frozen=True)
class LinearCombination:
    """alpha * value + beta * C. beta needs the spec's operand C."""
    alpha: Union[float, str] = 1.0
    beta: Union[float, str] = 0.0
    op = "linear_combination"

    def __post_init__(self):
        object.__setattr__(self, "alpha", _scalar_or_runtime("epilogue.linear_combination.alpha", self.alpha))
        object.__setattr__(self, "beta", _scalar_or_runtime("epilogue.linear_combination.beta", self.beta))


@dataclass(frozen=True)
class _BinaryWithSource:
    source: str = "per_col"
    name: str = "bias"
    dtype: str = "fp32"  # element type of the input tensor (ignored for 'tensor', which is C)

    def __post_init__(self):
        where = f"epilogue.{self.op}"
        object.__setattr__(self, "source", choose(f"{where}.source", self.source, BROADCASTS))
        _check_name(f"{where}.name", self.name, "bias")
        object.__setattr__(self, "dtype", choose(f"{where}.dtype", self.dtype, DTYPES, ALIASES))


@dataclass(frozen=True)
class Add(_BinaryWithSource):
    """value + input (bias, residual)."""
    op = "add"


@dataclass(frozen=True)
class Multiply(_BinaryWithSource):
    """value * input (dequant scales, gating)."""
    name: str = "scale"
    op = "multiply"


@dataclass(frozen=True)
class Activation:
    fn: str = "identity"
    slope: float = 0.01  # leaky_relu
    lo: float = float("-inf")  # clamp
    hi: float = float("inf")
    op = "activation"

    def __post_init__(self):
        object.__setattr__(self, "fn", choose("epilogue.activation.fn", self.fn, ACTIVATIONS))
        for f in ("slope", "lo", "hi"):  # a clamp bound may be infinite (one-sided)
            object.__setattr__(self, f, _float32_constant(f"epilogue.activation.{f}", getattr(self, f),
                                                          infinite_ok=f != "slope"))
        # Parameters a function does not use are reset, so they cannot split the cache key.
        if self.fn != "leaky_relu":
            object.__setattr__(self, "slope", 0.01)
        if self.fn != "clamp":
            object.__setattr__(self, "lo", float("-inf"))
            object.__setattr__(self, "hi", float("inf"))
        if self.fn == "clamp" and not self.lo < self.hi:
            raise SpecError("epilogue.activation.lo", self.lo, f"clamp needs lo < hi (hi={self.hi})",
                            "e.g. lo=-6.0, hi=6.0")
        if self.fn == "clamp" and self.lo == float("-inf") and self.hi == float("inf"):
            raise SpecError("epilogue.activation.hi", self.hi, "clamp needs a finite lo or hi (with neither it does "
                            "nothing)", "e.g. lo=-6.0, hi=6.0, or hi=6.0 alone")


@dataclass(frozen=True)
class Quantize:
    """Multiply by a scale, saturate to the target range, round to nearest even, cast. The last step of a chain."""
    dtype: str = "e4m3"
    scale: str = "per_tensor"
    name: str = "scale_out"
    op = "quantize"

    def __post_init__(self):
        object.__setattr__(self, "dtype", choose("epilogue.quantize.dtype", self.dtype, QUANT_DTYPES, ALIASES))
        object.__setattr__(self, "scale", choose("epilogue.quantize.scale", self.scale, QUANT_SCALES))
        _check_name("epilogue.quantize.name", self.name, "scale_out")


@dataclass(frozen=True)
class StoreAux:
    """Store the running value here as an extra (M, N) output, e.g. the pre-activation for backward."""
    name: str = "aux"
    dtype: str = "bf16"
    op = "store_aux"

    def __post_init__(self):
        _check_name("epilogue.store_aux.name", self.name, "pre_act", output=True)
        object.__setattr__(self, "dtype", choose("epilogue.store_aux.dtype", self.dtype, DTYPES, ALIASES))


@dataclass(frozen=True)
class Amax:
    """Record max(|value|) over the whole output here, as a float32 scalar output (delayed scaling)."""
    name: str = "amax"
    op = "amax"

    def __post_init__(self):
        _check_name("epilogue.amax.name", self.name, "amax", output=True)


Node = Union[LinearCombination, Add, Multiply, Activation, Quantize, StoreAux, Amax]
NODE_TYPES = {cls.op: cls for cls in (LinearCombination, Add, Multiply, Activation, Quantize, StoreAux, Amax)}


def node_to_dict(node) -> dict:
    d = {"op": node.op}
    for f in fields(node):
        d[f.name] = getattr(node, f.name)
    return d


def node_from_dict(d: dict, index: int):
    if isinstance(d, (LinearCombination, Add, Multiply, Activation, Quantize, StoreAux, Amax)):
        return d
    if not isinstance(d, dict) or "op" not in d:
        raise SpecError(f"epilogue[{index}]", d, "each step must be a table with an 'op' key",
                        "e.g. {op = 'activation', fn = 'relu'}")
    d = dict(d)
    op = choose(f"epilogue[{index}].op", d.pop("op"), NODE_TYPES)
    cls = NODE_TYPES[op]
    known = {f.name for f in fields(cls)}
    for k in d:
        if k not in known:
            from .errors import did_you_mean
            raise SpecError(f"epilogue[{index}].{k}", d[k], f"unknown field of '{op}'", did_you_mean(k, sorted(known)))
    return cls(**d)


def inputs_of(chain) -> list:
    """The runtime inputs the chain reads, in chain order: (name, kind, dtype) with kind in BROADCASTS."""
    out = []
    for node in chain:
        if isinstance(node, LinearCombination):
            for which in ("alpha", "beta"):
                if getattr(node, which) == RUNTIME:
                    out.append((which, "scalar", "fp32"))
        elif isinstance(node, (Add, Multiply)) and node.source != "tensor":
            out.append((node.name, node.source, node.dtype))
        elif isinstance(node, Quantize) and node.scale != "none":
            kind = "scalar" if node.scale == "per_tensor" else node.scale
            out.append((node.name, kind, "fp32"))
    return out


def extra_outputs_of(chain) -> list:
    """Extra outputs the chain writes besides D: (name, kind, dtype), kind 'tensor' or 'scalar'."""
    out = []
    for node in chain:
        if isinstance(node, StoreAux):
            out.append((node.name, "tensor", node.dtype))
        elif isinstance(node, Amax):
            out.append((node.name, "scalar", "fp32"))
    return out


def uses_c(chain) -> bool:
    return any((isinstance(n, LinearCombination) and n.beta != 0.0)
               or (isinstance(n, (Add, Multiply)) and n.source == "tensor") for n in chain)
