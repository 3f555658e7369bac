"""Wrong calls raise before any launch, with the type the contract names and a message naming the argument.

These run anywhere: the kernel is compiled (no GPU needed) and the checks come before the device check, which is
the last one. Calls that need CUDA tensors to go wrong are in test_gpu_integration.py. The last test: how many of
a's rows a call lets the kernel read.
"""
import copy

import pytest

import cutlassgen as cg

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.compile

M, N, K = 64, 128, 96


def good():
    a = torch.randn(M, K).bfloat16()
    b = torch.randn(N, K).bfloat16().t()  # column-major (K, N): an nn.Linear weight passed as W.t()
    c = torch.randn(M, N).bfloat16()
    inputs = dict(alpha=1.5, bias=torch.randn(N).bfloat16(), token_scale=torch.rand(M), shift=0.25,
                  out_scale=torch.rand(N) + 0.5)
    return a, b, c, inputs


def call(kernel, a=None, b=None, c=None, **changes):
    ga, gb, gc, inputs = good()
    inputs.update(changes)
    inputs = {k: v for k, v in inputs.items() if v is not DROP}
    return kernel(ga if a is None else a, gb if b is None else b, gc if c is None else c, **inputs)


DROP = object()
BAD = [
    # (id, how to call, exception type, fragment of the message)
    ("a not a tensor", lambda k: call(k, a=[[1.0]]), TypeError, "a must be a torch.Tensor"),
    ("b not a tensor", lambda k: call(k, b=3), TypeError, "b must be a torch.Tensor"),
    ("a 1-D", lambda k: call(k, a=torch.randn(K).bfloat16()), ValueError, "a must be 2-D"),
    ("a 3-D", lambda k: call(k, a=torch.randn(2, M, K).bfloat16()), ValueError, "a must be 2-D"),
    ("K mismatch", lambda k: call(k, b=torch.randn(N, K + 8).bfloat16().t()), ValueError, "b must be (K, N) with K=96"),
    ("a wrong dtype", lambda k: call(k, a=torch.randn(M, K).half()), ValueError, "a has dtype torch.float16"),
    ("a fp32", lambda k: call(k, a=torch.randn(M, K)), ValueError, "a has dtype torch.float32"),
    ("b wrong dtype", lambda k: call(k, b=torch.randn(N, K).half().t()), ValueError, "b has dtype"),
    ("b row-major", lambda k: call(k, b=torch.randn(K, N).bfloat16()), ValueError, "b must be column-major"),
    ("a column-major", lambda k: call(k, a=torch.randn(K, M).bfloat16().t()), ValueError, "a must be row-major"),
    ("a strided columns", lambda k: call(k, a=torch.randn(M, 2 * K).bfloat16()[:, ::2]), ValueError,
     "a must be row-major"),
    ("K off alignment", lambda k: call(k, a=torch.randn(M, K + 1).bfloat16(),
                                      b=torch.randn(N, K + 1).bfloat16().t()), ValueError, "multiples of the spec's "
                                                                                             "alignment"),
    ("lda off alignment", lambda k: call(k, a=torch.randn(M, K + 4).bfloat16()[:, :K]), ValueError,
     "leading dimension (100)"),
    ("a with overlapping rows", lambda k: call(k, a=torch.randn(M * 8 + K).bfloat16().as_strided((M, K), (8, 1))),
     ValueError, "a's leading dimension 8 is smaller than its contiguous extent (96)"),
    ("a misaligned pointer", lambda k: call(k, a=torch.randn(M * K + 1).bfloat16()[1:].view(M, K)), ValueError,
     "a's data pointer is not 16-byte aligned"),
    ("c missing", lambda k: k(*good()[:2], **good()[3]), ValueError, "c is required"),
    ("c wrong shape", lambda k: call(k, c=torch.randn(M, N + 8).bfloat16()), ValueError, "c has shape"),
    ("c wrong dtype", lambda k: call(k, c=torch.randn(M, N).half()), ValueError, "c has dtype"),
    ("c column-major", lambda k: call(k, c=torch.randn(N, M).bfloat16().t()), ValueError, "c must be row-major"),
    ("c not a tensor", lambda k: call(k, c="residual"), TypeError, "c must be a torch.Tensor"),
    ("missing bias", lambda k: call(k, bias=DROP), TypeError, "missing epilogue input(s) ['bias']"),
    ("missing alpha", lambda k: call(k, alpha=DROP), TypeError, "missing epilogue input(s) ['alpha']"),
    ("unexpected input", lambda k: call(k, residual=torch.randn(M, N)), TypeError, "unexpected epilogue input(s) "
                                                                                   "['residual']"),
    ("misspelled input", lambda k: call(k, bais=torch.randn(N).bfloat16(), bias=DROP), TypeError, "['bais']"),
    ("bias wrong length", lambda k: call(k, bias=torch.randn(N + 1).bfloat16()), ValueError,
     "bias must have shape (128,)"),
    ("bias 2-D", lambda k: call(k, bias=torch.randn(1, N).bfloat16()), ValueError, "bias must have shape (128,)"),
    ("bias wrong dtype", lambda k: call(k, bias=torch.randn(N)), ValueError, "bias has dtype torch.float32"),
    ("bias not a tensor", lambda k: call(k, bias=[0.0] * N), TypeError, "bias must be a torch.Tensor"),
    ("bias strided", lambda k: call(k, bias=torch.randn(2 * N).bfloat16()[::2]), ValueError, "bias must be "
                                                                                             "contiguous"),
    ("per-row scale is per-col length", lambda k: call(k, token_scale=torch.rand(N)), ValueError,
     "token_scale must have shape (64,) = M (one per row)"),
    ("per-row scale wrong dtype", lambda k: call(k, token_scale=torch.rand(M).bfloat16()), ValueError,
     "token_scale has dtype"),
    ("scalar as a string", lambda k: call(k, alpha="2"), TypeError, "alpha must be a number or a one-element"),
    ("scalar as a bool", lambda k: call(k, shift=True), TypeError, "shift must be a number"),
    ("scalar tensor of two", lambda k: call(k, alpha=torch.ones(2)), ValueError, "alpha must be a number or a "
                                                                                 "one-element float32 tensor"),
    ("scalar tensor fp16", lambda k: call(k, alpha=torch.ones(1).half()), ValueError, "one-element float32"),
    ("out wrong shape", lambda k: call(k, out=torch.empty(M, N + 16, dtype=torch.int8)), ValueError, "out has shape"),
    ("out wrong dtype", lambda k: call(k, out=torch.empty(M, N)), ValueError, "out has dtype"),
    ("out column-major", lambda k: call(k, out=torch.empty(N, M, dtype=torch.int8).t()), ValueError,
     "out must be row-major"),
    ("cpu tensors", lambda k: call(k), ValueError, "a is on cpu"),
    # out sharing memory with what the kernel reads: a race, not a result (c itself, the same view, is allowed)
    ("out overlaps a", lambda k: call(k, **_a_and_out_in_one_buffer()), ValueError, "out shares memory with a"),
    ("out overlaps bias", lambda k: call(k, **_bias_inside_out()), ValueError, "out shares memory with bias"),
    ("out is part of c", lambda k: call(k, **_out_inside_c()), ValueError,
     "out shares memory with c (without being c itself)"),
]


def _a_and_out_in_one_buffer():
    buf = torch.randn(M * K).bfloat16()
    return dict(a=buf.view(M, K), out=buf.view(torch.int8)[:M * N].view(M, N))  # out over a's first bytes


def _bias_inside_out():
    raw = torch.zeros(M * N, dtype=torch.int8)
    return dict(out=raw.view(M, N), bias=raw[:2 * N].view(torch.bfloat16))


def _out_inside_c():
    c = torch.randn(M, N).bfloat16()
    return dict(c=c, out=c.view(torch.int8)[:, :N])  # int8 over the first half of each of c's rows


@pytest.mark.parametrize("case", BAD, ids=[b[0] for b in BAD])
def test_bad_call_is_refused_with_a_named_argument(ci_kernels, case):
    _, how, exc, fragment = case
    with pytest.raises(exc) as info:
        how(ci_kernels["sm80"])
    assert fragment in str(info.value), str(info.value)


# The calls cutlassgen.reference refuses as the kernel does: the same exception and words. (It takes any real dtype,
# layout and device, and no out=, so those cases are the kernel's alone.) It used to raise KeyError for a missing
# input, torch's RuntimeError for a wrong length, and ignore an unexpected input.
REFERENCE_REFUSES = ["a not a tensor", "b not a tensor", "a 1-D", "a 3-D", "K mismatch", "c missing", "c wrong shape",
                     "c not a tensor", "missing bias", "missing alpha", "unexpected input", "misspelled input",
                     "bias wrong length", "bias 2-D", "bias not a tensor", "per-row scale is per-col length",
                     "scalar as a string", "scalar as a bool"]


@pytest.mark.parametrize("case", [b for b in BAD if b[0] in REFERENCE_REFUSES], ids=REFERENCE_REFUSES)
def test_the_reference_refuses_a_bad_call_as_the_kernel_does(case):
    from ci_specs import SM80_ALL

    _, how, exc, fragment = case
    with pytest.raises(exc) as info:
        how(lambda *args, **inputs: cg.reference(SM80_ALL, *args, **inputs))
    assert fragment in str(info.value), str(info.value)


def test_out_beside_a_in_one_buffer_is_not_an_overlap(ci_kernels, monkeypatch):
    """Slices of one buffer side by side (an engine's packed activations) share no byte: the call goes on to the
    device check, the last one, instead of an overlap error."""
    buf = torch.randn(M, K + N // 2).bfloat16()  # each row: a's K bf16, then out's N int8
    with pytest.raises(ValueError, match="a is on cpu"):
        call(ci_kernels["sm80"], a=buf[:, :K], out=buf.view(torch.int8)[:, 2 * K:2 * K + N])
    # c itself (the same view) may be out, were D of C's type: in place (test_gpu_correctness runs it)
    a, b, c, _ = good()
    k, at = ci_kernels["sm80"], lambda t: t.data_ptr()
    monkeypatch.setattr(k, "_geometry", (*k._geometry[:3], k._geometry[2]))  # D of C's type and layout
    no_inputs = [0] * k._n_ptrs
    assert k._out_clash(M, N, K, at(c), N, at(a), K, at(b), K, at(c), N, no_inputs) is None
    assert k._out_clash(M, N, K, at(c) + 2, N, at(a), K, at(b), K, at(c), N, no_inputs) == "c"  # one element on


@pytest.mark.parametrize("case", [b for b in BAD if b[0] in ("missing bias", "missing alpha", "unexpected input",
                                                             "misspelled input")], ids=lambda b: b[0])
def test_the_torch_op_refuses_wrong_epilogue_inputs_by_name(ci_kernels, case):
    """kernel.op (what a torch.compile graph calls) raised KeyError for a missing input and ignored an extra one."""
    _, how, exc, fragment = case
    with pytest.raises(exc) as info:
        how(ci_kernels["sm80"].op)
    assert fragment in str(info.value), str(info.value)


def test_there_are_at_least_thirty_bad_calls():
    assert len(BAD) >= 30


def test_dlpack_arrays_are_taken_as_tensors(ci_kernels):
    np = pytest.importorskip("numpy")
    a, b, c, inputs = good()
    arr = np.zeros((M, K), dtype=np.float32)  # a DLPack producer: converted, then refused for its dtype
    with pytest.raises(ValueError, match="a has dtype torch.float32"):
        ci_kernels["sm80"](arr, b, c, **inputs)
    bias = np.zeros(N, dtype=np.float32)
    with pytest.raises(ValueError, match="bias has dtype torch.float32"):
        ci_kernels["sm80"](a, b, c, **{**inputs, "bias": bias})


def test_rows_readable_reaches_the_last_m_tiles_end_inside_a_storage(ci_kernels):
    """How many of a's rows an sm90 kernel's mainloop may read (runtime._rows_readable): up to the end of the M tile
    holding row M - 1 where a's storage reaches that far, fewer where it ends sooner, none past M otherwise."""
    swap, plain, sm80 = ci_kernels["sm90_swap"], ci_kernels["sm90"], ci_kernels["sm80"]
    assert (swap._m_tile, plain._m_tile, sm80._m_tile) == (72, 128, 0)  # the swapped kernel's tile N, else its M

    def readable(kernel, a):
        lda = a.stride(0) if a.stride(1) == 1 else a.stride(1)
        return kernel._rows_readable(a, a.shape[0], a.shape[1], lda)

    buf = torch.empty(400, K).bfloat16()
    assert readable(swap, buf[:100]) == 144  # two 72-row tiles
    assert readable(plain, buf[:100]) == 128
    assert readable(swap, buf[:144]) == 0  # M a whole number of tiles: nothing to widen
    assert readable(swap, torch.empty(100, K).bfloat16()) == 0  # a's own storage: no row past M
    assert readable(swap, buf[300:390]) == 100  # 10 rows left after the view, fewer than the tile's end (144)
    assert readable(swap, buf[330:395]) == 70  # 65 rows in one 72-row tile, 5 rows past them in the storage
    assert readable(sm80, buf[:100]) == 0  # the sm80 path reads with predicates, no descriptor to widen
    # a column-major a (a spec with Operand(..., "column")): M runs along the buffer's rows
    col_major = copy.copy(swap)
    col_major._a_row_major = False
    col = torch.empty(K, 160).bfloat16()
    assert readable(col_major, col[:, :100].t()) == 144
    assert readable(col_major, col[:, 30:130].t()) == 130  # the last column reaches element 159 of its row


def _launch_on_the_cpu(kernel, monkeypatch, launches=None):
    """Replace the kernel's launch by what it would return, on the CPU: fresh outputs of the call's shape (and, into
    launches, the kernel's name and the call's M)."""
    from cutlassgen.dtypes import storage

    def launched(a, b, c, out, inputs):
        if launches is not None:
            launches.append((kernel.spec.name, a.shape[0]))

        def matrix(dtype):
            return torch.zeros(a.shape[0], b.shape[1], dtype=getattr(torch, storage(dtype).torch))

        extras = [torch.zeros(1) if s.kind == "amax" else matrix(s.dtype) for s in kernel._out_slots]
        return kernel.Result(matrix(kernel.spec.d.dtype), *extras) if kernel.Result else matrix(kernel.spec.d.dtype)

    monkeypatch.setattr(kernel, "_launch", launched)


def pre_act(result):
    """The bf16 aux output of SM80_ALL's result: D is int8, which carries no gradient (as torch's integer outputs)."""
    return result.pre_act


def test_a_call_that_needs_a_gradient_gets_a_backward_that_refuses(ci_kernels, monkeypatch):
    """With grad mode on, an input that requires a gradient (an nn.Parameter's weight or bias, say) gives outputs
    whose backward raises, naming the inputs: before, the outputs had no backward at all, and a training loop through
    them would silently have left those inputs unchanged. out= is refused then, as torch's own out= ops refuse it.
    Under no_grad, or with inputs that need no gradient, nothing changes."""
    kernel = ci_kernels["sm80"]
    _launch_on_the_cpu(kernel, monkeypatch)
    a, b, c, inputs = good()
    weight = torch.randn(N, K).bfloat16().requires_grad_()
    d = pre_act(kernel(a, weight.t(), c, **inputs))
    assert d.requires_grad and not pre_act(kernel(a, b, c, **inputs)).requires_grad
    with pytest.raises(RuntimeError, match=r"\(b\): the kernel computes no gradients .*torch.no_grad"):
        d.float().sum().backward()
    with torch.no_grad():
        assert not pre_act(kernel(a, weight.t(), c, **inputs)).requires_grad
    with pytest.raises(ValueError, match=r"out= is not allowed when an input requires grad \(b\)"):
        kernel(a, weight.t(), c, out=torch.empty(M, N, dtype=torch.bfloat16), **inputs)
    inputs["bias"] = inputs["bias"].requires_grad_()  # an epilogue input counts too
    assert pre_act(kernel(a, b, c, **inputs)).grad_fn is not None
    with pytest.raises(RuntimeError, match=r"\(bias\): the kernel computes no gradients"):
        pre_act(kernel(a, b, c, **inputs)).float().sum().backward()


def test_the_torch_op_and_torch_compile_give_forward_only_calls_a_backward_that_refuses(ci_kernels, monkeypatch):
    """What a torch.compile graph calls (kernel.op) does what a direct call does with an input that requires a
    gradient. Before, the op's autograd missed an epilogue tensor listed beside numbers (a bias Parameter: no
    backward, so nothing learned), and torch.compile of a call with a Parameter weight failed while it traced the
    backward, though the call (an nn.Module outside no_grad) would never run one."""
    kernel = ci_kernels["sm80"]
    _launch_on_the_cpu(kernel, monkeypatch)
    a, b, c, inputs = good()
    bias = inputs["bias"].requires_grad_()
    d = pre_act(kernel.op(a, b, c, **inputs))
    assert d.requires_grad
    with pytest.raises(RuntimeError, match=r"\(bias\): the kernel computes no gradients .*torch.no_grad"):
        d.float().sum().backward()
    with pytest.raises(ValueError, match=r"out= is not allowed when an input requires grad \(bias\)"):
        kernel.op(a, b, c, out=torch.empty(M, N, dtype=torch.bfloat16), **inputs)
    inputs["bias"] = bias.detach()

    weight = torch.nn.Parameter(torch.randn(N, K).bfloat16())
    # dynamic: the number inputs are symbolic floats then, which a requires_grad check must step around
    compiled = torch.compile(lambda a, w: pre_act(kernel(a, w.t(), c, **inputs)), backend="aot_eager", fullgraph=True,
                             dynamic=True)
    d = compiled(a, weight)
    assert d.requires_grad and d.shape == (M, N)
    with pytest.raises(RuntimeError, match=r"\(b\): the kernel computes no gradients"):
        d.float().sum().backward()
    with torch.no_grad():
        assert not compiled(a, weight).requires_grad


@pytest.mark.parametrize("gpu", [None, "NVIDIA H200"], ids=["heuristic", "tuned"])
def test_a_per_shape_kernel_under_torch_compile_runs_the_tile_of_each_calls_rows(ci_kernels, monkeypatch, gpu):
    """Inside torch.compile a DispatchKernel is one op that chooses the tile when it runs, by the call's rows. It
    chose while tracing before: each bucket became a guard and a recompile, and past torch's 8 recompiles (a plan
    has up to 22 buckets) the whole compiled function ran eagerly. A tuning record (made on a named GPU) compiles
    too: its GPU check, on the first call, stopped a fullgraph compile; it runs in the op now, and here (no GPU,
    so not the record's) falls back to the default tile with its warning."""
    from torch._dynamo.utils import counters

    from cutlassgen.dispatch import DispatchKernel

    plain, swap = ci_kernels["sm90"], ci_kernels["sm90_swap"]  # one chain, two tiles
    launches = []
    for kernel in (plain, swap):
        _launch_on_the_cpu(kernel, monkeypatch, launches)
    limits = [16 * i for i in range(1, 13)] + [2 ** 31]  # 13 buckets, alternately swapped
    per_shape = DispatchKernel(plain, {"gpu": gpu, "limits": limits, "winners": [{"label": str(i)} for i in limits]},
                               [swap if i % 2 == 0 else plain for i in range(len(limits))])
    _, b, _, inputs = good()
    del inputs["token_scale"]

    def f(a, c, token_scale):
        return per_shape(a, b, c, token_scale=token_scale, **inputs).pre_act

    if gpu:  # the GPU check's warning, from the first call (made where no GPU is seen, so checked on a call)
        with pytest.warns(UserWarning, match="made on NVIDIA H200, not on this None"):
            torch.compile(f, backend="aot_eager", fullgraph=True)(torch.randn(8, K).bfloat16(),
                                                                   torch.randn(8, N).bfloat16(), torch.rand(8))
    for dynamic in (None, True):  # None: static first, then dynamic from the second M on
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(f, backend="aot_eager", fullgraph=True, dynamic=dynamic)
        for rows in (8, 24, 40, 56, 72, 88, 104, 120, 136, 152, 168, 184, 200, 16, 17):
            got = compiled(torch.randn(rows, K).bfloat16(), torch.randn(rows, N).bfloat16(), torch.rand(rows))
            assert got.shape == (rows, N)
            bucket = next(i for i, lim in enumerate(limits) if rows <= lim)
            want = plain if gpu else swap if bucket % 2 == 0 else plain
            assert launches[-1] == (want.spec.name, rows), (dynamic, rows)
        assert counters["stats"]["unique_graphs"] <= 2, dict(counters["stats"])  # not one per bucket


def test_torch_jit_trace_records_the_kernel_and_replays_it_on_new_inputs(ci_kernels, monkeypatch):
    """A launch is invisible to torch.jit.trace: a traced call of the kernel replayed only the output's allocation, so
    the traced module returned uninitialized memory for any new input. Under tracing the call now goes through the
    kernel's torch op, which the trace records. The fake launch computes outside torch (numpy), as the real one does."""
    import warnings

    kernel = ci_kernels["sm80"]
    _, b, c, inputs = good()

    def untraced(a, b, c, out, inputs):
        value = torch.from_numpy(a.float().numpy() @ b.float().numpy())
        return kernel.Result(value.to(torch.int8), value.bfloat16(), value.abs().amax().reshape(1))

    monkeypatch.setattr(kernel, "_launch", untraced)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch.jit.trace's deprecation, numpy's constant
        traced = torch.jit.trace(lambda a: kernel(a, b, c, **inputs).pre_act, (torch.randn(M, K).bfloat16(),))
    assert any(kernel.op_name.split("::")[1] in n.kind() for n in traced.graph.nodes())
    a = torch.randn(M, K).bfloat16()
    # the same numpy product (torch's own may round a last bit differently)
    assert torch.equal(traced(a), torch.from_numpy(a.float().numpy() @ b.float().numpy()).bfloat16())


def test_the_fast_path_is_marked_ready_after_everything_it_reads(ci_kernels):
    """A call takes the fast path once _fd is set (the first call prepares it): set before _fslots, _fouts and the
    stream getters, another thread's first call could read those before they existed (an AttributeError)."""
    from cutlassgen.runtime import Kernel

    order = []

    class Recording(Kernel):
        def __setattr__(self, name, value):
            order.append(name)
            object.__setattr__(self, name, value)

    kernel = object.__new__(Recording)
    kernel.__dict__.update(ci_kernels["sm90"].__dict__)
    kernel._prepare_fast_path()
    assert order[-1] == "_fd" and {"_fa", "_fb", "_fslots", "_fouts", "_raw_stream", "_current_device"} <= set(order)
