"""The float64 PyTorch reference of a spec: what the kernel must compute, node by node.

(Named golden.py, not reference.py: a submodule named like the public function cutlassgen.reference would replace
that function on the package once imported.)
"""
from __future__ import annotations

import collections
import math

from . import epilogue as epi
from .dtypes import DTYPES, storage
from .spec import GemmSpec


def rel_error(out, ref) -> float:
    """||out - ref|| / ||ref|| in float64: the relative Frobenius error every check of a kernel against the reference
    uses (NaN where out holds any, as a poisoned out left partly unwritten does)."""
    ref = ref.double()
    return ((out.double() - ref).norm() / ref.norm()).item()


def _act(fn: str, x, node):
    import torch
    import torch.nn.functional as F

    return {
        "identity": lambda: x,
        "relu": lambda: torch.relu(x),
        "gelu": lambda: F.gelu(x),
        "gelu_tanh": lambda: F.gelu(x, approximate="tanh"),
        "silu": lambda: F.silu(x),
        "sigmoid": lambda: torch.sigmoid(x),
        "tanh": lambda: torch.tanh(x),
        "leaky_relu": lambda: F.leaky_relu(x, node.slope),
        "hardswish": lambda: F.hardswish(x),
        "clamp": lambda: torch.clamp(x, min=None if math.isinf(node.lo) else node.lo,
                                     max=None if math.isinf(node.hi) else node.hi),
    }[fn]()


def _operand(value, kind, M, N):
    import torch

    if kind == "scalar":
        return torch.as_tensor(value, dtype=torch.float64).reshape(()) if not isinstance(value, torch.Tensor) \
            else value.double().reshape(())
    t = value.double()
    return t.reshape(M, 1) if kind == "per_row" else t.reshape(1, N)


def reference(spec: GemmSpec, a, b, c=None, *, return_float64: bool = False, **inputs):
    """Evaluate spec on (a, b, c, inputs) in float64, rounding where the kernel rounds (aux stores, the output).

    Returns D (in D's dtype, or float64 before the final cast with return_float64=True), or the same named tuple
    the kernel returns when the chain has extra outputs.
    """
    import torch

    M, N = a.shape[0], b.shape[1]
    acc = a.double() @ b.double()
    if spec.accumulator == "int32":
        acc = acc.round()
    cd = c.double() if c is not None else None
    extras = {}
    v = acc
    for node in spec.epilogue:
        if isinstance(node, epi.LinearCombination):
            alpha = inputs["alpha"] if node.alpha == epi.RUNTIME else node.alpha
            beta = inputs["beta"] if node.beta == epi.RUNTIME else node.beta
            v = _operand(alpha, "scalar", M, N) * v
            if node.beta != 0.0:
                v = v + _operand(beta, "scalar", M, N) * cd
        elif isinstance(node, (epi.Add, epi.Multiply)):
            src = cd if node.source == "tensor" else _operand(inputs[node.name], node.source, M, N)
            v = v + src if node.op == "add" else v * src
        elif isinstance(node, epi.Activation):
            v = _act(node.fn, v, node)
        elif isinstance(node, epi.Quantize):
            if node.scale != "none":
                kind = "scalar" if node.scale == "per_tensor" else node.scale
                v = v * _operand(inputs[node.name], kind, M, N)
            d = DTYPES[node.dtype]
            v = torch.clamp(v, d.min_finite, d.max_finite)
            if d.kind == "int":
                v = torch.round(v)  # half to even, like cvt.rni
        elif isinstance(node, epi.StoreAux):
            extras[node.name] = v.to(getattr(torch, storage(node.dtype).torch))
        elif isinstance(node, epi.Amax):
            extras[node.name] = v.abs().max().reshape(1).float() if v.numel() else torch.zeros(1, device=v.device)
    out = v if return_float64 else v.to(getattr(torch, storage(spec.d.dtype).torch))
    if not extras:
        return out
    Result = collections.namedtuple("Result", ["d", *extras])
    return Result(out, *extras.values())
