"""The kernel callable: check every argument, allocate outputs, launch on torch's current stream.

torch is imported on first call, not at import time, so a cached build(spec) stays fast in a fresh process.
"""
from __future__ import annotations

import collections
import functools
import importlib.machinery
import importlib.util
import json
import pathlib
import sys
import threading
import warnings

from .dtypes import storage
from .errors import caller_stacklevel
from .jit.flags import MODULE_NAME
from .lower import lower_epilogue
from .spec import GemmSpec
from .tiles import Sm90Config, alignment, resolve

_INT32_MAX = 2**31 - 1
torch = None  # bound on first call


def _torch():
    global torch
    if torch is None:
        import torch as _t

        torch = _t
    return torch


def _load_module(path: pathlib.Path):
    # Every kernel's PyInit is PyInit_cutlassgen_kernel, but CPython caches extension modules by their full name:
    # loading a second kernel under the same name would hand back the first one. A unique dotted name keeps the
    # symbol (its last part) and makes each kernel its own module.
    name = f"cutlassgen.kernels.k{path.parent.name}.{MODULE_NAME}"
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _overlaps(x: tuple, y: tuple) -> bool:
    """Whether two strided blocks of memory share a byte. Each is (address, outer, inner, ld, element size): outer
    runs of inner elements, ld elements apart (a matrix's rows, or its columns where column-major; a vector is one
    run). Exact where the runs are equally far apart in bytes or either block is one run (slices of one buffer side
    by side do not overlap); otherwise any overlap of the two address ranges counts."""
    px, ox, ix, lx, ex = x
    py, oy, iy, ly, ey = y
    wx, wy = ix * ex, iy * ey
    if px + (ox - 1) * lx * ex + wx <= py or py + (oy - 1) * ly * ey + wy <= px:
        return False
    pitch = lx * ex if oy == 1 or (ox > 1 and lx * ex == ly * ey) else ly * ey if ox == 1 else 0
    if pitch == 0:  # runs of both blocks, at different distances: left at the ranges' overlap
        return True
    # row i of x meets row k of y where q = i - k has q * pitch strictly between d - wx and d + wy
    d = py - px
    q_lo, q_hi = (d - wx) // pitch + 1, -((-(d + wy)) // pitch) - 1
    return max(q_lo, 1 - oy) <= min(q_hi, ox - 1)


def _as_tensor(x):
    """x as a torch tensor sharing its memory if it speaks DLPack or the CUDA array interface; else x unchanged."""
    T = torch
    if x is None or isinstance(x, (T.Tensor, int, float, str, bool, list, tuple)):
        return x
    if hasattr(x, "__dlpack__"):
        return T.from_dlpack(x)
    if hasattr(x, "__cuda_array_interface__"):
        return T.as_tensor(x, device="cuda")
    return x


class Kernel:
    """kernel(a, b, c=None, *, out=None, **epilogue_inputs) -> D, or a named tuple (d, <extra outputs>)."""

    def __init__(self, spec: GemmSpec, module_path, target_arch: int, source: str):
        self.spec = spec
        self.binary_path = pathlib.Path(module_path)
        self.target_arch = target_arch
        self.source = source
        self._mod = _load_module(self.binary_path)
        lo = lower_epilogue(spec)
        self._in_slots = [s for s in lo.slots if not s.is_output]
        self._out_slots = [s for s in lo.slots if s.is_output]
        self._n_ptrs, self._n_scalars = lo.n_ptrs, lo.n_scalars
        self._input_names = {s.name for s in self._in_slots}
        self._workspace = {}  # (device, M, N, K) -> bytes: stream-K's and split-K's depend on the device's SMs
        self.Result = collections.namedtuple("Result", ["d", *(s.name for s in self._out_slots)]) \
            if self._out_slots else None
        self._align = {n: alignment(getattr(spec, n)) for n in ("a", "b", "d")}
        if spec.c is not None:
            self._align["c"] = alignment(spec.c)
        self._op = None
        self.op_name = f"cutlassgen::k{spec.key}_sm{target_arch}"
        if "torch" in sys.modules:  # register now, outside any torch.compile trace (registering is not traceable)
            self._op = _register_op(self)
        self._fd = None  # fast-path constants, filled on the first call (torch is imported then)
        from .dispatch import tile_is_auto

        # An all-auto kernel says once when a call's shape has a better per-shape tile (dispatch.per_shape_hint).
        self._hint_pending = tile_is_auto(spec)
        self._pdl = getattr(spec.tile, "pdl", False)  # then scalars come as numbers only (_vector_or_scalar)
        # The M extent of the sm90 kernel's tile (a swap_ab kernel's CTA N): a call whose M is not a multiple of it
        # lets the mainloop read the rows of a's buffer past M up to the tile's end (_rows_readable).
        cfg = resolve(spec)
        self._m_tile = (cfg.cta[1] if cfg.swap_ab else cfg.cta[0]) if isinstance(cfg, Sm90Config) else 0
        self._a_row_major = spec.a.layout == "row"
        self._a_bytes = storage(spec.a.dtype).bits // 8  # a's element size (both call paths check a's dtype first)
        # (row-major, element size) of each matrix, and (name, pointer slot, kind, element size) of each input that
        # a caller may pass as a tensor, for _out_clash
        self._geometry = tuple((op.layout == "row", storage(op.dtype).bits // 8) if op is not None else (True, 1)
                               for op in (spec.a, spec.b, spec.c, spec.d))
        self._input_geometry = tuple((s.name, s.ptr, s.kind, 4 if s.kind == "scalar" else storage(s.dtype).bits // 8)
                                     for s in self._in_slots)

    # A kernel crosses into another process (multiprocessing, torch.multiprocessing.spawn) as what it was built from,
    # and that process loads the same module file, or builds the spec again where the file is not there. Within one
    # process a copy is the kernel itself: it holds no state a caller could change (an nn.Module holding one
    # deep-copies).
    def __reduce__(self):
        return _unpickled_kernel, (self.spec, self.target_arch, str(self.binary_path), self.source)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    @property
    def build_info(self) -> dict:
        """meta.json of the cache entry: key parts, compile time, flags, compiler warnings."""
        from .jit.cache import read_meta

        return read_meta(self.binary_path.parent)

    @functools.cached_property
    def pipeline(self) -> dict:
        """What the compiled kernel fixed that the spec leaves to CUTLASS: smem_bytes (the dynamic shared memory a CTA
        launches with), mainloop_stages, and on sm90 epilogue_stages_c / _d (its C and D buffers); {} for a module
        built before modules said (an older prebuilt wheel)."""
        if not hasattr(self._mod, "pipeline_json"):
            return {}
        return json.loads(self._mod.pipeline_json())

    def params_cache_stats(self) -> dict:
        """The compiled module's cache of kernel parameters (csrc/cutlassgen/params_cache.hpp): calls that launched
        an earlier call's parameters ("hits": same pointers, shape, scalars and device), calls that encoded their own
        ("misses"), and the problems held ("entries", at most "capacity": a new one past it empties the cache). On
        the H200 machine a miss cost +1.14 us of host time over a hit (bench/host_overhead.py). sm80-path kernels,
        which have no TMA descriptors to encode, cache nothing (all 0); {} for a module built before the cache."""
        if not hasattr(self._mod, "params_cache_stats"):
            return {}
        return dict(self._mod.params_cache_stats())

    @property
    def inputs(self) -> dict:
        """Epilogue inputs the call takes: name -> (kind, dtype)."""
        return {s.name: (s.kind, s.dtype) for s in self._in_slots}

    def __repr__(self):
        return f"<cutlassgen.Kernel {self.spec.name or self.spec.key} sm_{self.target_arch} {self.binary_path}>"

    # ---- argument checks ------------------------------------------------------------------------------------------
    def _matrix(self, t, name, rows, cols, dtype, layout, align, device):
        T = torch
        if not isinstance(t, T.Tensor):
            raise TypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        if t.device != device:
            raise ValueError(f"{name} is on {t.device} but a is on {device}; all tensors must share one CUDA device")
        if t.dtype != dtype:
            raise ValueError(f"{name} has dtype {t.dtype}; this kernel takes {dtype}")
        if t.dim() != 2:
            raise ValueError(f"{name} must be 2-D, got shape {tuple(t.shape)}")
        if rows is not None and (t.shape[0] != rows or t.shape[1] != cols):
            raise ValueError(f"{name} has shape {tuple(t.shape)}; expected ({rows}, {cols})")
        r, c = t.shape
        if r == 0 or c == 0:
            return self._align[name if name in self._align else "d"]  # nothing is read or written
        s0, s1 = t.stride()
        if layout == "row":
            if c > 1 and s1 != 1:
                raise ValueError(f"{name} must be row-major (stride[1] == 1); got strides {t.stride()}."
                                 " Pass .contiguous(), or build a spec with the column layout")
            ld, inner = (s0 if r > 1 else c), c
        else:
            if r > 1 and s0 != 1:
                raise ValueError(f"{name} must be column-major (stride[0] == 1, e.g. W.t()); got strides {t.stride()}."
                                 " Pass .t().contiguous().t(), or build a spec with the row layout")
            ld, inner = (s1 if c > 1 else r), r
        if ld < inner:  # overlapping rows (as_strided, expand): the kernel would read past the storage
            raise ValueError(f"{name}'s leading dimension {ld} is smaller than its contiguous extent ({inner}); "
                             "pass a .contiguous() copy")
        if inner % align or ld % align:
            raise ValueError(f"{name}: its contiguous extent ({inner}) and leading dimension ({ld}) must be multiples "
                             f"of the spec's alignment ({align} elements); pad it or build a spec with a smaller "
                             "alignment (sm80 path)")
        if t.numel() and t.data_ptr() % (align * t.element_size()):
            raise ValueError(f"{name}'s data pointer is not {align * t.element_size()}-byte aligned "
                             "(a sliced view?); pass a .clone()")
        return ld

    def _vector_or_scalar(self, slot, value, M, N, device, ptrs, scalars):
        T = torch
        if slot.kind == "scalar":
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                scalars[slot.scalar] = float(value)
                return
            if isinstance(value, T.Tensor):
                if self._pdl:
                    # CUTLASS's scalar broadcast reads its pointer as the kernel starts, before griddepcontrol.wait:
                    # under PDL that could read a value the previous kernel has not written yet.
                    raise ValueError(f"{slot.name}: a kernel built with Sm90Tile(pdl=True) takes scalars as Python "
                                     "numbers only (a tensor would be read before the previous kernel is done); "
                                     f"pass float({slot.name}), or build without pdl")
                if value.device != device or value.dtype != T.float32 or value.numel() != 1:
                    raise ValueError(f"{slot.name} must be a number or a one-element float32 tensor on {device}; got "
                                     f"{value.dtype} {tuple(value.shape)} on {value.device}")
                ptrs[slot.ptr] = value.data_ptr()
                return
            raise TypeError(f"{slot.name} must be a number or a one-element float32 tensor, not {type(value).__name__}")
        length, what = (M, "M (one per row)") if slot.kind == "per_row" else (N, "N (one per column)")
        if not isinstance(value, T.Tensor):
            raise TypeError(f"{slot.name} must be a torch.Tensor of shape ({length},), not {type(value).__name__}")
        want = getattr(T, storage(slot.dtype).torch)
        if value.device != device:
            raise ValueError(f"{slot.name} is on {value.device}; expected {device}")
        if value.dtype != want:
            raise ValueError(f"{slot.name} has dtype {value.dtype}; the spec says {want}")
        if value.dim() != 1 or value.shape[0] != length:
            raise ValueError(f"{slot.name} must have shape ({length},) = {what}; got {tuple(value.shape)}")
        if length > 1 and value.stride(0) != 1:
            raise ValueError(f"{slot.name} must be contiguous")
        if value.data_ptr() % 16:
            raise ValueError(f"{slot.name}'s data pointer is not 16-byte aligned (a sliced view?); pass a .clone()")
        ptrs[slot.ptr] = value.data_ptr()

    def _prepare_fast_path(self):
        """Per-kernel constants for the common call, so that it costs a few attribute reads per tensor."""
        T = _torch()
        spec = self.spec
        dt = lambda name: getattr(T, storage(name).torch)  # noqa: E731

        def m(op, name):
            return (dt(op.dtype), op.layout == "row", self._align[name],
                    self._align[name] * storage(op.dtype).bits // 8)

        self._fa, self._fb = m(spec.a, "a"), m(spec.b, "b")
        self._fc = m(spec.c, "c") if spec.c is not None else None
        self._fslots = tuple((s.name, s.kind, s.ptr, s.scalar, dt(s.dtype)) for s in self._in_slots)
        self._fouts = tuple((s.kind, s.ptr, dt(s.dtype)) for s in self._out_slots)
        # A CPU-only torch has neither; then no call takes the fast path (and none could launch).
        self._raw_stream = getattr(T._C, "_cuda_getCurrentRawStream", None)
        self._current_device = getattr(T._C, "_cuda_getDevice", lambda: -2)
        self._fd = m(spec.d, "d")  # last: a call in another thread takes the fast path once _fd is set

    def __call__(self, a, b, c=None, *, out=None, **inputs):
        T = torch or _torch()
        # A torch.compile graph or a torch.jit.trace records the op; the launch itself is invisible to both (a trace
        # would replay the output's allocation alone, uninitialized). _C._is_tracing: 44 ns, jit.is_tracing 147.
        if T.compiler.is_compiling() or T._C._is_tracing():
            return self.op(a, b, c, out=out, **inputs)
        if T.is_grad_enabled() and self._needs_grad(a, b, c, out, inputs):
            return self._forward_only(a, b, c, out, inputs)
        return self._launch(a, b, c, out, inputs)

    @staticmethod
    def _needs_grad(a, b, c, out, inputs) -> bool:
        # Spelled out: in grad mode this runs on every call; a generator over the arguments took 0.65 us, this
        # 0.25 us (timeit, the 2-core machine; under no_grad or inference_mode only is_grad_enabled runs, 0.05 us).
        if getattr(a, "requires_grad", False) or getattr(b, "requires_grad", False):
            return True
        if (c is not None and getattr(c, "requires_grad", False)) or (out is not None and
                                                                       getattr(out, "requires_grad", False)):
            return True
        for value in inputs.values():
            if getattr(value, "requires_grad", False):
                return True
        return False

    def _forward_only(self, a, b, c, out, inputs):
        """A call whose inputs require a gradient, in grad mode (an nn.Parameter outside no_grad): the outputs carry
        a backward that raises. Without it they carried none, and a training loop through them would silently leave
        those inputs unchanged. (The torch op does the same under torch.compile and for kernel.op; a direct call
        keeps its own launch path, as without grad.)"""
        needing = _needing_grad(a, b, c, inputs)
        _refuse_out_needing_grad(out, needing)
        res = _forward_only_function().apply(self._grad_what(needing), lambda: self._launch(a, b, c, None, inputs),
                                              *(x for _, x in needing))
        return self.Result(*res) if self.Result else res

    def _grad_what(self, needing) -> str:
        return f"{self.spec.name or self.spec.key} ({', '.join(name for name, _ in needing)})"

    def _launch(self, a, b, c, out, inputs):
        """The call itself: the fast path's launch, or the thorough path's checks and launch."""
        T = torch
        if self._fd is None:
            self._prepare_fast_path()
        launch = self._fast_arguments(a, b, c, out, inputs)
        if launch is None:  # anything unusual: the thorough path explains what is wrong, or handles it
            return self._checked_call(a, b, c, out, inputs)
        dev, M, N, K, lda, ldb, ldc, d, ldd, ptrs, scalars, extras, aux_ld = launch
        ws = self._workspace.get((dev, M, N, K))
        if ws is None:  # the first call at this shape on this device (the current one: the fast path checked)
            if self._hint_pending:
                self._hint_per_shape(M, N, K)
            ws = self._workspace[(dev, M, N, K)] = self._mod.workspace_size(M, N, K, lda, ldb, ldc, ldd, ptrs, scalars)
        workspace = d.new_empty(ws, dtype=T.uint8) if ws else None
        self._mod.run(M, N, K, lda, ldb, ldc, ldd, a.data_ptr(), b.data_ptr(), c.data_ptr() if c is not None else 0,
                      d.data_ptr(), ptrs, scalars, aux_ld, workspace.data_ptr() if ws else 0, ws, self._raw_stream(dev),
                      self._rows_readable(a, M, K, lda))
        return self.Result(d, *extras) if self.Result else d

    def _rows_readable(self, a, M, K, lda):
        """How many rows of a, from its first, the kernel may read: up to the end of the M tile that holds row M - 1,
        as far as a's storage reaches (a view of a taller buffer, e.g. an inference engine's static activations);
        0 when that adds none. Reading them is memory-safe (they lie in a's own allocation) and changes no result: a
        row past M only meets output rows past M, which the epilogue neither writes nor reduces. It spares the
        last tile's loads from lying partly past a's end, which cost up to 1.5x the time on the H200 (bench/NOTES.md,
        runs 131-132)."""
        tile = self._m_tile
        if not tile or M % tile == 0:
            return 0
        # Written out rather than through a.element_size() and min(): this runs on every ragged call, and the
        # spelled-out form saved ~0.3 us of its ~0.7 us (session 53, timeit on the 2-core machine).
        elements = a.untyped_storage().nbytes() // self._a_bytes - a.storage_offset()
        # the last element a row r reads: r * lda + K - 1 (row-major) or r + (K - 1) * lda (column-major)
        rows = (elements - K) // lda + 1 if self._a_row_major else elements - (K - 1) * lda
        tile_end = M - M % tile + tile
        if rows > tile_end:
            rows = tile_end
        if rows > _INT32_MAX:  # the descriptor's extent is an int
            rows = _INT32_MAX
        return rows if rows > M else 0

    def _hint_per_shape(self, M, N, K):
        from .dispatch import per_shape_hint
        from .jit import PerformanceWarning

        message = per_shape_hint(self.spec, M, N, K)
        if message:
            self._hint_pending = False
            warnings.warn(message, PerformanceWarning, stacklevel=caller_stacklevel())

    @staticmethod
    def _fast_matrix(t, rows, cols, info, dev):
        """ld of a well-formed matrix on device dev, or None (then the thorough path decides)."""
        dtype, row_major, align, align_bytes = info
        if t.dtype is not dtype or t.get_device() != dev or t.dim() != 2:
            return None
        r, c = t.shape
        if r != rows or c != cols:
            return None
        s0, s1 = t.stride()
        ld, unit, inner = (s0, s1, c) if row_major else (s1, s0, r)
        if unit != 1 or ld < inner or ld % align or inner % align or t.data_ptr() % align_bytes:
            return None
        return ld

    def _fast_arguments(self, a, b, c, out, inputs):
        T = torch
        if type(a) is not T.Tensor or type(b) is not T.Tensor or a.dim() != 2 or b.dim() != 2:
            return None
        dev = a.get_device()
        if dev < 0 or dev != self._current_device():
            return None
        M, K = a.shape
        K2, N = b.shape
        if K2 != K or M < 2 or N < 2 or K < 1 or M > _INT32_MAX or N > _INT32_MAX or K > _INT32_MAX:
            return None
        lda = self._fast_matrix(a, M, K, self._fa, dev)
        ldb = self._fast_matrix(b, K, N, self._fb, dev)
        if lda is None or ldb is None:
            return None
        ldc = 0
        if self._fc is not None:
            if c is None or type(c) is not T.Tensor:
                return None
            ldc = self._fast_matrix(c, M, N, self._fc, dev)
            if ldc is None:
                return None
        elif c is not None:
            return None
        if len(inputs) != len(self._fslots):
            return None
        ptrs = [0] * self._n_ptrs
        scalars = [0.0] * self._n_scalars
        for name, kind, ptr, scalar, dtype in self._fslots:
            v = inputs.get(name)
            if kind == "scalar":
                if type(v) is float or type(v) is int:
                    scalars[scalar] = float(v)
                    continue
                if type(v) is not T.Tensor or v.dtype is not T.float32 or v.numel() != 1 or v.get_device() != dev \
                        or self._pdl:  # the thorough path refuses a scalar tensor under PDL
                    return None
            else:
                if type(v) is not T.Tensor or v.dtype is not dtype or v.get_device() != dev or v.dim() != 1 or \
                        v.shape[0] != (M if kind == "per_row" else N) or v.stride(0) != 1 or v.data_ptr() % 16:
                    return None
            ptrs[ptr] = v.data_ptr()
        row_d = self._fd[1]
        if out is None:
            ldd = N if row_d else M
            if ldd % self._fd[2]:
                return None
            # new_empty takes a's device without a torch.device round trip: 0.8 us of the 3.9 us allocation
            # (bench/host_overhead.py, session 53)
            d = a.new_empty((M, N) if row_d else (N, M), dtype=self._fd[0])
            if not row_d:
                d = d.t()
        else:
            if type(out) is not T.Tensor:
                return None
            d = out
            ldd = self._fast_matrix(out, M, N, self._fd, dev)
            if ldd is None or self._out_clash(M, N, K, out.data_ptr(), ldd, a.data_ptr(), lda, b.data_ptr(), ldb,
                                              c.data_ptr() if c is not None else 0, ldc, ptrs):
                return None
        extras, aux_ld = [], 0
        for kind, ptr, dtype in self._fouts:
            if kind == "amax":
                e = d.new_zeros(1, dtype=T.float32)
            else:
                aux_ld = N if row_d else M
                if aux_ld % (16 // dtype.itemsize):
                    return None
                e = d.new_empty((M, N) if row_d else (N, M), dtype=dtype)
                if not row_d:
                    e = e.t()
            ptrs[ptr] = e.data_ptr()
            extras.append(e)
        return dev, M, N, K, lda, ldb, ldc, d, ldd, ptrs, scalars, extras, aux_ld

    def _checked_call(self, a, b, c, out, inputs):
        """Every check with a message naming the argument; also the rare shapes (empty, M or N = 1, other device)."""
        T = torch
        spec = self.spec
        # Arrays from other libraries come in through DLPack or __cuda_array_interface__, sharing their memory.
        a, b, c, out = (_as_tensor(x) for x in (a, b, c, out))
        inputs = {k: _as_tensor(v) for k, v in inputs.items()}
        if not isinstance(a, T.Tensor):
            raise TypeError(f"a must be a torch.Tensor, not {type(a).__name__}")
        device = a.device
        tdt = lambda name: getattr(T, storage(name).torch)  # noqa: E731
        if a.dim() != 2:
            raise ValueError(f"a must be 2-D (M, K), got shape {tuple(a.shape)}")
        M, K = a.shape
        if not isinstance(b, T.Tensor):
            raise TypeError(f"b must be a torch.Tensor, not {type(b).__name__}")
        if b.dim() != 2 or b.shape[0] != K:
            raise ValueError(f"b must be (K, N) with K={K} (a is {tuple(a.shape)}); got {tuple(b.shape)}."
                             " For an nn.Linear weight W[N, K], pass W.t()")
        N = b.shape[1]
        if max(M, N, K) > _INT32_MAX:
            raise ValueError(f"problem ({M}, {N}, {K}) exceeds 2**31-1 in one dimension")
        lda = self._matrix(a, "a", M, K, tdt(spec.a.dtype), spec.a.layout, self._align["a"], device)
        ldb = self._matrix(b, "b", K, N, tdt(spec.b.dtype), spec.b.layout, self._align["b"], device)
        ldc = 0
        if spec.c is not None:
            if c is None:
                raise ValueError("c is required: this kernel's epilogue reads C (beta or a tensor source)")
            ldc = self._matrix(c, "c", M, N, tdt(spec.c.dtype), spec.c.layout, self._align["c"], device)
        elif c is not None:
            raise ValueError("c was given but this kernel's spec has no C operand")
        self._check_input_names(inputs)
        ptrs = [0] * self._n_ptrs
        scalars = [0.0] * self._n_scalars
        for slot in self._in_slots:
            self._vector_or_scalar(slot, inputs[slot.name], M, N, device, ptrs, scalars)
        d_dtype = tdt(spec.d.dtype)
        if out is not None:
            ldd = self._matrix(out, "out", M, N, d_dtype, spec.d.layout, self._align["d"], device)
            clash = self._out_clash(M, N, K, out.data_ptr(), ldd, a.data_ptr(), lda, b.data_ptr(), ldb,
                                    c.data_ptr() if c is not None else 0, ldc, ptrs) if M * N * K else None
            if clash:
                raise ValueError(f"out shares memory with {clash}{' (without being c itself)' * (clash == 'c')}: "
                                 f"the kernel reads {clash} while it writes out, so the result would depend on "
                                 "timing; pass an out of its own")
        # Device last, so that every shape/dtype/layout mistake is reported the same way on any machine.
        if device.type != "cuda":
            raise ValueError(f"a is on {device}; kernels run on CUDA tensors (move the operands with .cuda())")
        if out is None:
            out = (T.empty((M, N), dtype=d_dtype, device=device) if spec.d.layout == "row"
                   else T.empty((N, M), dtype=d_dtype, device=device).t())
            ldd = self._matrix(out, "out", M, N, d_dtype, spec.d.layout, self._align["d"], device)
        extras, aux_ld = [], 0
        for slot in self._out_slots:
            if slot.kind == "amax":
                t = T.zeros(1, dtype=T.float32, device=device)
            else:
                t = (T.empty((M, N), dtype=tdt(slot.dtype), device=device) if spec.d.layout == "row"
                     else T.empty((N, M), dtype=tdt(slot.dtype), device=device).t())
                aux_ld = N if spec.d.layout == "row" else M
                if (M * N) and (aux_ld % (16 // t.element_size())):
                    raise ValueError(f"the aux output {slot.name} needs its rows ({aux_ld}) to be a multiple of "
                                     f"{16 // t.element_size()} elements")
            ptrs[slot.ptr] = t.data_ptr()
            extras.append(t)
        if M == 0 or N == 0:
            return self._result(out, extras)
        if K == 0:  # no products: the epilogue over a zero accumulator, as torch would compute it
            from .golden import reference

            ref = reference(spec, a, b, c, **inputs)
            return self._result(out.copy_(ref.d if self.Result else ref), [
                t.copy_(getattr(ref, s.name).reshape(t.shape)) for t, s in zip(extras, self._out_slots)])
        with T.cuda.device(device):  # the workspace's size too: stream-K's depends on the device's SMs
            ws = self._workspace.get((device.index, M, N, K))
            if ws is None:  # the first call at this shape on this device
                if self._hint_pending:
                    self._hint_per_shape(M, N, K)
                ws = self._workspace[(device.index, M, N, K)] = self._mod.workspace_size(M, N, K, lda, ldb, ldc, ldd,
                                                                                         ptrs, scalars)
            workspace = T.empty(ws, dtype=T.uint8, device=device) if ws else None
            stream = T.cuda.current_stream(device).cuda_stream
            self._mod.run(M, N, K, lda, ldb, ldc, ldd, a.data_ptr(), b.data_ptr(), c.data_ptr() if c is not None else 0,
                          out.data_ptr(), ptrs, scalars, aux_ld, workspace.data_ptr() if ws else 0, ws, stream,
                          self._rows_readable(a, M, K, lda))
        return self._result(out, extras)

    def _out_clash(self, M, N, K, d, ldd, a, lda, b, ldb, c, ldc, ptrs):
        """The name of what a caller's out (at address d) shares memory with (a, b, part of c, an epilogue input),
        or None; a, b, c the operands' addresses (c 0 for none), ptrs the inputs' as the launch takes them. The
        kernel would read it while writing out, so the result would depend on timing. c may be out itself (the same
        view): each tile's C is read before its D is written there, and no other tile touches it. Runs on every call
        with out= after the checks of shapes, dtypes and layouts, so it is integer arithmetic: a range test per
        tensor, the exact test (_overlaps) only where the ranges meet."""
        (row_a, es_a), (row_b, es_b), (row_c, es_c), (row_d, es_d) = self._geometry
        block = (d, M, N, ldd, es_d) if row_d else (d, N, M, ldd, es_d)
        hi = d + ((block[1] - 1) * ldd + block[2]) * es_d
        if a < hi:
            m = (a, M, K, lda, es_a) if row_a else (a, K, M, lda, es_a)
            if d < a + ((m[1] - 1) * lda + m[2]) * es_a and _overlaps(block, m):
                return "a"
        if b < hi:
            m = (b, K, N, ldb, es_b) if row_b else (b, N, K, ldb, es_b)
            if d < b + ((m[1] - 1) * ldb + m[2]) * es_b and _overlaps(block, m):
                return "b"
        if c and c < hi:
            m = (c, M, N, ldc, es_c) if row_c else (c, N, M, ldc, es_c)
            if d < c + ((m[1] - 1) * ldc + m[2]) * es_c and m != block and _overlaps(block, m):
                return "c"
        for name, index, kind, es in self._input_geometry:
            p = ptrs[index]
            if p and p < hi:
                n = M if kind == "per_row" else N if kind == "per_col" else 1
                if d < p + n * es and _overlaps(block, (p, 1, n, n, es)):
                    return name
        return None

    def _result(self, d, extras):
        return self.Result(d, *extras) if self.Result else d

    def _check_input_names(self, inputs):
        unknown = set(inputs) - self._input_names
        if unknown:
            raise TypeError(f"unexpected epilogue input(s) {sorted(unknown)}; this kernel takes "
                            f"{sorted(self._input_names) or 'none'}")
        missing = self._input_names - set(inputs)
        if missing:
            raise TypeError(f"missing epilogue input(s) {sorted(missing)} ({self._describe(missing)})")

    def _describe(self, names):
        return ", ".join(f"{s.name}: {s.kind} {s.dtype}" for s in self._in_slots if s.name in names)

    # ---- torch.library registration ---------------------------------------------------------------------------------
    @property
    def op(self):
        """This kernel as a torch.library custom op (with a fake implementation), for torch.compile graphs."""
        if self._op is None:
            self._op = _register_op(self)
        return self._op


def _needing_grad(a, b, c, inputs) -> list:
    """(name, tensor) for each argument of a call that requires a gradient."""
    T = _torch()  # isinstance, not getattr: under torch.compile a number input may be a symbolic float
    return [(name, x) for name, x in (("a", a), ("b", b), ("c", c), *inputs.items())
            if isinstance(x, T.Tensor) and x.requires_grad]


def _refuse_out_needing_grad(out, needing):
    if out is not None and (needing or getattr(out, "requires_grad", False)):  # as torch's own out= ops refuse it
        raise ValueError(f"out= is not allowed when an input requires grad "
                         f"({', '.join(name for name, _ in needing) or 'out'}): the kernel computes no gradients; call "
                         "it under torch.no_grad() or torch.inference_mode(), or pass detached inputs")


def _no_gradient_message(what: str) -> str:
    return (f"cutlassgen kernel {what}: the kernel computes no gradients (forward only); call it under "
            "torch.no_grad() or torch.inference_mode(), or pass detached inputs")


@functools.lru_cache(maxsize=None)
def _forward_only_function():
    """The autograd Function of Kernel._forward_only (made on first use: torch is imported lazily)."""
    T = _torch()

    class ForwardOnly(T.autograd.Function):
        @staticmethod
        def forward(ctx, what, launch, *needing):
            ctx.what = what
            res = launch()
            return tuple(res) if isinstance(res, tuple) else res

        @staticmethod
        def backward(ctx, *grads):
            raise RuntimeError(_no_gradient_message(ctx.what))

    return ForwardOnly


@functools.lru_cache(maxsize=None)
def _no_gradient_op():
    """The op that the kernel ops' backward returns as each gradient: it raises when run, and its fake only gives
    the shape. A backward that raised itself would fail torch.compile while it traces the backward graph, in a
    forward-only call that never runs it (an nn.Parameter weight outside no_grad); this way the compiled call runs,
    and its backward raises as the eager one's does."""
    T = _torch()

    @T.library.custom_op("cutlassgen::no_gradient", mutates_args=(),
                         schema="(Tensor grad, SymInt[] size, ScalarType dtype, str what) -> Tensor")
    def no_gradient(grad, size, dtype, what):
        raise RuntimeError(_no_gradient_message(what))

    @no_gradient.register_fake
    def _(grad, size, dtype, what):
        return grad.new_empty(size, dtype=dtype)

    return no_gradient


def _unpickled_kernel(spec: GemmSpec, target_arch: int, module_path: str, source: str) -> Kernel:
    """A pickled Kernel in this process: the kernel of that spec and target loaded here already, else the pickled
    module file, else (another machine, another Python, a pruned cache) the spec built for the same target through
    the cache, the prebuilt kernels or a compile."""
    from . import jit

    for key in ((spec, target_arch), (spec, None)):
        loaded = jit._loaded.get(key)
        if loaded is not None and loaded.target_arch == target_arch:
            return loaded
    path = pathlib.Path(module_path)
    if path.is_file():
        try:
            kernel = Kernel(spec, path, target_arch, source)
        except ImportError:  # a module for another Python: build it for this one
            pass
        else:  # the next unpickling of it (a worker that receives it per task) loads nothing again
            with jit._loaded_lock:
                return jit._loaded.setdefault((spec, target_arch), kernel)
    return jit.build_many([spec], arch=target_arch)[0]


_OPS: dict = {}  # op name -> caller; torch.library refuses a second registration of a name
# Held while an op registers: threads building the same spec at once (a server warming its models up) each made a
# Kernel and registered its op, and torch.library failed the second ("Library object has been destroyed").
_OPS_LOCK = threading.Lock()


def _plain_gradient(arg):
    """The gradient backward gives for an op argument that is no tensor: torch's custom-op autograd takes a list
    of tensors, an empty one included, as a list (one gradient each), and any other argument as one leaf."""
    return [] if isinstance(arg, list) and not arg else None


def _register_op(kernel: Kernel, name: str | None = None, launch_kernel=None):
    """The torch op of kernel, registered once per name (default: kernel.op_name). launch_kernel(M, N, K) is the
    Kernel whose launch the op runs (default: kernel itself; a DispatchKernel's chooses by the call's shape when it
    runs, so that a graph holds one op for every M instead of a guard, and a recompile, per bucket)."""
    name = name or kernel.op_name
    with _OPS_LOCK:
        if name not in _OPS:  # else the same spec and target loaded again (a rebuild): the same function
            _no_gradient_op()  # its backward's op, registered once here rather than by two threads' backward calls
            _OPS[name] = _new_op(kernel, name, launch_kernel or (lambda M, N, K: kernel))
        return _OPS[name]


def _new_op(kernel: Kernel, name: str, launch_kernel):
    T = _torch()
    in_names = [s.name for s in kernel._in_slots]

    # The schema is spelled out: this module's annotations are strings (from __future__ import annotations). The
    # epilogue's tensors travel as a list of tensors only, their slots as 0 / 1 in is_tensor: torch's custom-op
    # autograd does not look inside a list that holds a None (torch 2.13), so a bias Parameter among numbers went
    # unseen; and torch.jit.trace cannot record a bool[].
    @T.library.custom_op(name, mutates_args=(), schema="(Tensor a, Tensor b, Tensor? c, Tensor[] tensors, "
                                                       "int[] is_tensor, float[] numbers) -> Tensor[]")
    def launch(a, b, c, tensors, is_tensor, numbers):
        given = iter(tensors)
        kwargs = {n: next(given) if t else v for n, t, v in zip(in_names, is_tensor, numbers)}
        # The launch itself, not __call__: autograd here is the op's, and __call__ would wrap a call whose inputs
        # require grad in its own forward-only Function again.
        res = launch_kernel(a.shape[0], b.shape[1], a.shape[1])._launch(a, b, c, None, kwargs)
        return list(res) if kernel.Result else [res]

    @launch.register_fake
    def _(a, b, c, tensors, is_tensor, numbers):
        M, N = a.shape[0], b.shape[1]
        row = kernel.spec.d.layout == "row"

        def matrix(dtype):  # the same layout the real call allocates
            return a.new_empty((M, N), dtype=dtype) if row else a.new_empty((N, M), dtype=dtype).t()

        outs = [matrix(getattr(T, storage(kernel.spec.d.dtype).torch))]
        for s in kernel._out_slots:
            outs.append(a.new_empty((1,), dtype=T.float32) if s.kind == "amax"
                        else matrix(getattr(T, storage(s.dtype).torch)))
        return outs

    def setup_context(ctx, inputs, output):
        a, b, c, tensors, is_tensor, numbers = inputs
        named = [("a", a), ("b", b), ("c", c), *zip([n for n, t in zip(in_names, is_tensor) if t], tensors)]
        needing = [x is not None and x.requires_grad for _, x in named]
        ctx.what = kernel._grad_what([nx for nx, need in zip(named, needing) if need])
        ctx.like = [(x.shape, x.dtype) if need else None for (_, x), need in zip(named, needing)]
        ctx.plain = [_plain_gradient(arg) for arg in (is_tensor, numbers)]

    def backward(ctx, grads):
        grad = next(g for g in grads if g is not None)
        poison = [None if like is None else _no_gradient_op()(grad, list(like[0]), like[1], ctx.what)
                  for like in ctx.like]
        return (*poison[:3], poison[3:], *ctx.plain)

    launch.register_autograd(backward, setup_context=setup_context)

    def call(a, b, c=None, *, out=None, **inputs):
        kernel._check_input_names(inputs)  # as a direct call does: a missing one was a KeyError, an extra ignored
        if out is not None and T.is_grad_enabled():
            _refuse_out_needing_grad(out, _needing_grad(a, b, c, inputs))
        is_tensor = [int(isinstance(inputs[n], T.Tensor)) for n in in_names]
        tensors = [inputs[n] for n, t in zip(in_names, is_tensor) if t]
        numbers = [0.0 if t else float(inputs[n]) for n, t in zip(in_names, is_tensor)]
        res = launch(a, b, c, tensors, is_tensor, numbers)
        if out is not None:
            out.copy_(res[0])
            res[0] = out
        return kernel.Result(*res) if kernel.Result else res[0]

    return call
