"""The float64 PyTorch reference of a spec: what the kernel must compute, node by node.

(Named golden.py, not reference.py: a submodule named like the public function cutlassgen.reference would replace
that function on the package once imported.)
"""
from __future__ import annotations

import collections
import math

from . import epilogue as epi
from .dtypes import DTYPES, storage
from .errors import is_number
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


def _check_arguments(spec: GemmSpec, a, b, c, inputs: dict) -> None:
    """The kernel's own checks of what it is given, in its words (runtime.Kernel), but for dtypes, layouts and
    devices: the reference takes any real tensors and works in float64."""
    import torch

    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D; got shape {tuple(t.shape)}")
    M, K = a.shape
    if b.shape[0] != K:
        raise ValueError(f"b must be (K, N) with K={K} (a is {tuple(a.shape)}); got {tuple(b.shape)}")
    N = b.shape[1]
    if spec.c is not None and c is None:
        raise ValueError("c is required: this spec's epilogue reads C (beta or a tensor source)")
    if spec.c is None and c is not None:
        raise ValueError("c was given but this spec has no C operand")
    if c is not None and not isinstance(c, torch.Tensor):
        raise TypeError(f"c must be a torch.Tensor, not {type(c).__name__}")
    if c is not None and tuple(c.shape) != (M, N):
        raise ValueError(f"c has shape {tuple(c.shape)}; expected ({M}, {N})")
    wanted = {name: kind for name, kind, _ in epi.inputs_of(spec.epilogue)}
    unknown, missing = set(inputs) - set(wanted), set(wanted) - set(inputs)
    if unknown:
        raise TypeError(f"unexpected epilogue input(s) {sorted(unknown)}; this spec takes {sorted(wanted) or 'none'}")
    if missing:
        raise TypeError(f"missing epilogue input(s) {sorted(missing)}")
    for name, kind in wanted.items():
        value = inputs[name]
        if kind == "scalar":
            if isinstance(value, torch.Tensor):
                if value.numel() != 1:
                    raise ValueError(f"{name} must be a number or a one-element tensor; got {tuple(value.shape)}")
            elif not is_number(value):
                raise TypeError(f"{name} must be a number or a one-element tensor, not {type(value).__name__}")
            continue
        length, what = (M, "M (one per row)") if kind == "per_row" else (N, "N (one per column)")
        if not isinstance(value, torch.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor of shape ({length},), not {type(value).__name__}")
        if value.dim() != 1 or value.shape[0] != length:
            raise ValueError(f"{name} must have shape ({length},) = {what}; got {tuple(value.shape)}")


def reference(spec: GemmSpec, a, b, c=None, *, return_float64: bool = False, **inputs):
    """Evaluate spec on (a, b, c, inputs) in float64, rounding where the kernel rounds (aux stores, the output).

    Returns D (in D's dtype, or float64 before the final cast with return_float64=True), or the same named tuple
    the kernel returns when the chain has extra outputs.
    """
    import torch

    _check_arguments(spec, a, b, c, inputs)
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
