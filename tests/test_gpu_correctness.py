"""Every GPU-suite kernel against the float64 reference, on fresh random inputs and poisoned outputs."""

import pytest

from gpu_specs import GPU_SPECS, PAST_ROW_WALKS, fresh_generator, past_row_twins
from tolerances import INT_MAX_ABS_DIFF, REL_ERR

pytestmark = pytest.mark.gpu

# (M, N, K): tile-aligned, M = 1, M = 7, M = 4097, K not a multiple of any CTA K, N at the alignment edge.
SHAPES = [(256, 512, 1024), (1, 128, 64), (7, 144, 80), (4097, 272, 528), (300, 16, 1040)]


def make_inputs(spec, kernel, M, N, K, gen):
    import torch

    from cutlassgen.dtypes import storage

    dev = "cuda"

    def matrix(rows, cols, op, scale=1.0):
        shape = (rows, cols) if op.layout == "row" else (cols, rows)
        if op.dtype == "int8":
            t = torch.randint(-8, 8, shape, generator=gen, device=dev, dtype=torch.int8)
        else:
            t = (torch.randn(shape, generator=gen, device=dev) * scale).to(getattr(torch, storage(op.dtype).torch))
        return t if op.layout == "row" else t.t()

    a = matrix(M, K, spec.a, 1.0)
    b = matrix(K, N, spec.b, 1.0 / K ** 0.5)
    if spec.a.dtype == "int8":
        b = matrix(K, N, spec.b)
    c = matrix(M, N, spec.c) if spec.c is not None else None
    inputs = {}
    for name, (kind, dtype) in kernel.inputs.items():
        tdt = getattr(torch, storage(dtype).torch)
        if kind == "scalar":
            v = 0.5 + torch.rand((), generator=gen, device=dev).item()
            if name in ("dequant",):
                v = 2e-3
            # Alternate a Python number and a device tensor, the two ways a scalar may come (a PDL kernel takes
            # numbers only: test_gpu_integration checks that it refuses a tensor).
            number = len(inputs) % 2 or getattr(spec.tile, "pdl", False)
            inputs[name] = v if number else torch.tensor([v], device=dev)
        else:
            n = M if kind == "per_row" else N
            v = torch.randn(n, generator=gen, device=dev)
            if "scale" in name:
                v = v.abs() + 0.5
            if name == "qscale" and spec.d.dtype == "int8":
                v = v * 20
            inputs[name] = v.to(tdt)
    return a, b, c, inputs


def aligned_shape(spec, shape):
    """The suite's shape, rounded up where an extent is contiguous and must meet the spec's 16-byte alignment."""
    M, N, K = shape
    align = 16 if spec.a.dtype in ("int8", "e4m3", "e5m2") or spec.d.dtype in ("int8", "e4m3", "e5m2") else 8
    N = -(-N // align) * align
    K = -(-K // align) * align
    if spec.d.layout == "column" or spec.a.layout == "column":
        M = -(-M // align) * align
    return M, N, K


def poisoned_out(spec, M, N):
    import torch

    from cutlassgen.dtypes import storage

    dt = getattr(torch, storage(spec.d.dtype).torch)
    shape = (M, N) if spec.d.layout == "row" else (N, M)
    if spec.d.dtype == "int8":
        t = torch.full(shape, 77, dtype=dt, device="cuda")
    else:
        t = torch.full(shape, float("nan"), device="cuda").to(dt)
    return t if spec.d.layout == "row" else t.t()


def assert_close(out, ref, dtype, what):
    import torch

    assert out.shape == ref.shape, what
    o, r = out.double(), ref.double()
    assert not torch.isnan(o).any() or torch.isnan(r).any(), f"{what}: NaN (unwritten or poisoned) in output"
    if dtype in ("int8", "int32"):
        diff = (o - r).abs().max().item()
        assert diff <= INT_MAX_ABS_DIFF, f"{what}: max |out - ref| = {diff}"
        return
    err = ((o - r).norm() / r.norm().clamp_min(1e-30)).item()
    assert err <= REL_ERR[dtype], f"{what}: relative error {err:.3g} > {REL_ERR[dtype]}"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(GPU_SPECS))
def test_matches_reference(gpu_kernel, name, shape):
    spec = GPU_SPECS[name]
    check_against_reference(name, gpu_kernel(name), *aligned_shape(spec, shape), fresh_generator(name, shape))


def check_against_reference(name, kernel, M, N, K, gen, what=""):
    """GPU_SPECS[name]'s kernel on fresh inputs from gen into a poisoned out: D (written into out) and the other
    outputs against the float64 reference."""
    import torch

    import cutlassgen as cg

    spec = GPU_SPECS[name]
    a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
    out = poisoned_out(spec, M, N)
    res = kernel(a, b, c, out=out, **inputs)
    torch.cuda.synchronize()
    ref = cg.reference(spec, a, b, c, **inputs)
    d = res.d if kernel.Result else res
    assert d.data_ptr() == out.data_ptr()
    assert_close(d, ref.d if kernel.Result else ref, spec.d.dtype, f"{name} {M}x{N}x{K} D{what}")
    assert_other_outputs_close(kernel, res, ref, f"{name} {M}x{N}x{K}{what}")


# Where the operand the persistent scheduler's walk sweeps whole outgrows L2, its strips may pad the tile grid
# (lower.SWIZZLE_PAD, csrc/cutlassgen/auto_swizzle.hpp; test_lower.py checks these shapes' strips): 63 x 64 128x128
# tiles walk strips of 8 over 64 rows, 32 x 43 128x256 tiles in 2x1 clusters strips of 4 over 44 columns. CUTLASS
# runs the padded tiles too; they must leave D, the aux store and amax as the reference has them.
PADDED_WALKS = [("sm90_epi_tile_residual_aux", (8000, 8192, 8192)), ("sm90_bf16_bias_gelu", (4096, 11008, 8192))]


@pytest.mark.parametrize("name, shape", PADDED_WALKS, ids=lambda x: x if isinstance(x, str) else "x".join(map(str, x)))
def test_a_walk_in_padded_strips_matches_reference(gpu_kernel, name, shape):
    import cutlassgen as cg

    assert cg.lower.SWIZZLE_PAD > 0, "no padding allowed: this test would check the unpadded walk"
    check_against_reference(name, gpu_kernel(name), *shape, fresh_generator(name, shape, "padded walk"),
                            " (padded walk)")


@pytest.mark.parametrize("name", ["sm90_tf32_residual", "sm90_fp16_residual_colD", "sm80_bf16_residual_aux_amax"])
def test_out_may_be_c_itself(gpu_kernel, name):
    """In place: out=c (the same view) writes D over the C it reads, each tile's C read before its D is written
    (runtime.Kernel refuses an out that overlaps a, b, an input vector or part of c). TMA and 2.x epilogues, row- and
    column-major; not yet run on a GPU when written (session 77)."""
    import cutlassgen as cg

    spec, kernel = GPU_SPECS[name], gpu_kernel(name)
    M, N, K = aligned_shape(spec, (4097, 272, 528))
    gen = fresh_generator(name, "D over C")
    a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
    before = c.clone()
    res = kernel(a, b, c, out=c, **inputs)
    d = res.d if kernel.Result else res
    assert d.data_ptr() == c.data_ptr()
    ref = cg.reference(spec, a, b, before, **inputs)
    assert_close(c, ref.d if kernel.Result else ref, spec.d.dtype, f"{name} {M}x{N}x{K} D over C")


def assert_other_outputs_close(kernel, res, ref, what):
    """The outputs beside D (amax, aux stores) against the reference's."""
    for slot in kernel._out_slots:
        got, want = getattr(res, slot.name), getattr(ref, slot.name)
        if slot.kind == "amax":
            assert abs(got.item() - want.item()) <= 1e-2 * want.item() + 1e-6, f"amax {got.item()} vs {want.item()}"
        else:
            assert_close(got, want, slot.dtype, f"{what} {slot.name}")


def in_taller_buffer(t, extra, fill):
    """t's values as a view of a buffer `extra` rows taller along M (its first dimension), the rest `fill`: for a
    column-major t the buffer's rows are t's columns, so its leading dimension grows instead."""
    import torch

    row_major = t.stride(1) == 1
    shape = (t.shape[0] + extra, t.shape[1]) if row_major else (t.shape[1], t.shape[0] + extra)
    tall = torch.full(shape, fill, device=t.device).to(t.dtype)
    view = tall[:t.shape[0]] if row_major else tall[:, :t.shape[0]].t()
    view.copy_(t)
    return tall, view


@pytest.mark.parametrize("shape", [(7, 144, 80), (300, 144, 1040)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", list(GPU_SPECS))
def test_rows_past_m_in_the_buffers_change_nothing(gpu_kernel, name, shape):
    """a and out as the first M rows of taller buffers: the sm90 mainloop then reads a's rows past M up to its last M
    tile's end (runtime._rows_readable). Those rows are NaN here, so a result or amax that took them in fails, and
    out's rows past M must stay poisoned (the epilogue writes only the problem's rows)."""
    import torch

    import cutlassgen as cg

    spec = GPU_SPECS[name]
    kernel = gpu_kernel(name)
    M, N, K = aligned_shape(spec, shape)
    gen = fresh_generator(name, shape, "tall")
    a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)

    def poison(dtype):  # what no result holds: NaN, or for integers a value far past the inputs' products
        return 77 if dtype in ("int8", "int32") else float("nan")

    _, tall_a = in_taller_buffer(a, 256, poison(spec.a.dtype))
    out_buffer, out_view = in_taller_buffer(poisoned_out(spec, M, N), 64, poison(spec.d.dtype))
    res = kernel(tall_a, b, c, out=out_view, **inputs)
    torch.cuda.synchronize()
    if kernel._m_tile and M % kernel._m_tile:  # the case this test is for: the kernel read rows past M
        lda = tall_a.stride(0) if tall_a.stride(1) == 1 else tall_a.stride(1)
        assert kernel._rows_readable(tall_a, M, K, lda) == -(-M // kernel._m_tile) * kernel._m_tile
    ref = cg.reference(spec, a, b, c, **inputs)
    assert_close(res.d if kernel.Result else res, ref.d if kernel.Result else ref, spec.d.dtype, f"{name} D")
    past = out_buffer[M:] if out_view.stride(1) == 1 else out_buffer[:, M:]
    untouched = (past == 77).all() if spec.d.dtype in ("int8", "int32") else torch.isnan(past.float()).all()
    assert untouched, f"{name}: the kernel wrote out's buffer past row M"
    assert_other_outputs_close(kernel, res, ref, name)


def huge_value(dtype) -> float:
    """An input value far past make_inputs' (about 1) whose products with the weights stay finite in fp32."""
    import torch

    if not dtype.is_floating_point:
        return torch.iinfo(dtype).max
    return min(torch.finfo(dtype).max, 1e30)


def leave_huge_rows_in_shared_memory(kernel, a, b, c, inputs) -> None:
    """Run kernel once on an a of the largest value its products keep finite, so that the pipeline's stages hold
    huge rows when the call under test loads fewer rows than a stage has room for."""
    import torch

    kernel(torch.full_like(a, huge_value(a.dtype)), b, c, **inputs)


# The lower.TAIL_LOADS setting this file's stale-rows test builds with, the default (its kernels are the suite's own):
# named here so that the test keeps checking the fitted box whatever the default.
FITTED_TAIL = "swap_ab+m64"


def _fitted_tail_specs() -> list:
    """The suite's kernels whose last token tile loads one box fitted to its rows under FITTED_TAIL."""
    from cutlassgen import lower

    with lower.settings(TAIL_LOADS=FITTED_TAIL):
        return [name for name, spec in GPU_SPECS.items()
                if spec.resolved_path == "sm90" and lower.lower(spec).get("tail_operand") is not None]


@pytest.fixture(scope="module")
def fitted_tail_kernels(cache_dir):
    """Those kernels built with FITTED_TAIL, in one ninja run: the suite's own where it is the default, else renamed,
    so that build's in-process memo (by spec) does not hand back the suite's builds without it."""
    import dataclasses

    import cutlassgen as cg
    from cutlassgen import lower

    names = _fitted_tail_specs()
    default = lower.TAIL_LOADS == FITTED_TAIL
    with lower.settings(TAIL_LOADS=FITTED_TAIL):
        built = cg.build_many([GPU_SPECS[n] if default else dataclasses.replace(GPU_SPECS[n], name=f"{n}_fitted_tail")
                               for n in names])
    return dict(zip(names, built))


@pytest.mark.parametrize("name", _fitted_tail_specs())
def test_stale_rows_past_m_in_the_last_token_tile_change_nothing(fitted_tail_kernels, name):
    """Where M ends inside a token tile the fitted box loads only rows below M, and the stage's rows past it keep
    what an earlier call or tile left in shared memory. A full-tile call on activations of the largest size their
    products keep finite fills them first; then, on ordinary inputs, a ragged M must match the reference in D, aux
    and amax (an accumulator row past M taken in would show as a result or amax many times too large)."""
    import torch

    import cutlassgen as cg
    from cutlassgen.lower import lower

    spec = GPU_SPECS[name]
    kernel = fitted_tail_kernels[name]
    assert ", 1>;" in kernel.source or ", 0>;" in kernel.source  # built with the fitted box
    ctx = lower(spec)
    tokens = ctx["cta"][1] if ctx["swap_ab"] else ctx["cta"][0]
    for M_full, M in ((tokens, 5), (2 * tokens, tokens + 3)):
        _, N, K = aligned_shape(spec, (M_full, 144, 80))
        gen = fresh_generator(name, M, "stale")
        a, b, c, inputs = make_inputs(spec, kernel, M_full, N, K, gen)
        leave_huge_rows_in_shared_memory(kernel, a, b, c, inputs)
        M = aligned_shape(spec, (M, N, K))[0]
        a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
        out = poisoned_out(spec, M, N)
        res = kernel(a, b, c, out=out, **inputs)
        torch.cuda.synchronize()
        ref = cg.reference(spec, a, b, c, **inputs)
        what = f"{name} {M}x{N}x{K} after {M_full} huge rows"
        assert_close(res.d if kernel.Result else res, ref.d if kernel.Result else ref, spec.d.dtype, what + " D")
        assert_other_outputs_close(kernel, res, ref, what)


@pytest.fixture(scope="module")
def past_row_kernels(cache_dir):
    """gpu_specs.past_row_twins' kernels by suite name, in one ninja run."""
    import cutlassgen as cg

    twins = past_row_twins()
    return dict(zip(twins, cg.build_many(list(twins.values()))))


@pytest.mark.parametrize("name, shape", PAST_ROW_WALKS,
                         ids=lambda x: x if isinstance(x, str) else "x".join(map(str, x)))
def test_tiles_wholly_past_m_skip_their_token_loads_and_change_nothing(past_row_kernels, name, shape):
    """After a call on huge activations over the padded grid's rows has filled shared memory, the fitted twin at a
    padded walk matches the float64 reference on a bare a (its descriptors end at M) and on a taller buffer whose rows
    past M are NaN (widened to the last M tile's end), with out's buffer past M left poisoned."""
    import torch

    import cutlassgen as cg
    from cutlassgen.lower import lower

    spec, kernel = GPU_SPECS[name], past_row_kernels[name]
    assert lower(kernel.spec)["tail_operand"] == 0 and not lower(spec)["swap_ab"]
    M, N, K = shape
    assert -(-M // 128) % 8, "the walk pads no row: this test would check nothing wholly past M"
    gen = fresh_generator(name, shape, "past rows")
    a, b, c, inputs = make_inputs(spec, kernel, 8192, N, K, gen)
    leave_huge_rows_in_shared_memory(kernel, a, b, c, inputs)
    a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
    ref = cg.reference(spec, a, b, c, **inputs)
    _, tall_a = in_taller_buffer(a, 256, float("nan"))
    for where, a_in in (("bare", a), ("in a taller buffer", tall_a)):
        out_buffer, out = in_taller_buffer(poisoned_out(spec, M, N), 64, float("nan"))
        res = kernel(a_in, b, c, out=out, **inputs)
        torch.cuda.synchronize()
        what = f"{name} fitted {M}x{N}x{K}, a {where}"
        assert_close(res.d if kernel.Result else res, ref.d if kernel.Result else ref, spec.d.dtype, what + " D")
        assert torch.isnan(out_buffer[M:].float()).all(), f"{what}: the kernel wrote out's buffer past row M"
        assert_other_outputs_close(kernel, res, ref, what)


# Kernels whose parameters the cache holds per call (csrc/cutlassgen/params_cache.hpp): the anchors' kernel; a C
# source, a runtime alpha and a column-major D; PDL on a swapped tile (its fitted last token box); stream-K and
# split-K, whose workspace pointer joins the key; amax and an aux store, fresh outputs each call.
PARAMS_CACHE_SPECS = ["sm90_bf16_bias_gelu", "sm90_fp16_residual_colD", "sm90_pdl_swap_pingpong",
                      "sm90_bf16_act_chain_streamk", "sm90_swap_splitk_bias_gelu", "sm90_bf16_gelu_fp8"]


@pytest.mark.parametrize("name", PARAMS_CACHE_SPECS)
def test_reused_parameters_follow_every_argument(gpu_kernel, name):
    """A call equal to an earlier one in every pointer, extent and scalar launches that call's parameters. Each step
    changes one thing they are made of (the data behind the same pointers, a scalar's value, a pointer, M, the
    output's place, more problems than the cache holds) and must match the float64 reference, with out poisoned
    before every call. Where nothing is allocated per call (no workspace, no extra outputs), the steps that repeat
    an earlier call's arguments must be hits, so the cache is shown to be in use."""
    import torch

    import cutlassgen as cg

    spec = GPU_SPECS[name]
    kernel = gpu_kernel(name)
    M, N, K = aligned_shape(spec, (300, 144, 1040))
    gen = fresh_generator(name, "params cache")
    a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
    poison = poisoned_out(spec, M, N)
    out = poison.clone()
    hits = lambda: kernel.params_cache_stats()["hits"]  # noqa: E731

    def check(a, b, c, inputs, out, what):
        out.copy_(poison[:out.shape[0]])
        res = kernel(a, b, c, out=out, **inputs)
        torch.cuda.synchronize()
        ref = cg.reference(spec, a, b, c, **inputs)
        assert_close(res.d if kernel.Result else res, ref.d if kernel.Result else ref, spec.d.dtype, f"{name}: {what}")
        assert_other_outputs_close(kernel, res, ref, f"{name}: {what}")

    check(a, b, c, inputs, out, "first call")
    repeatable = not kernel._out_slots and not kernel._workspace[(a.device.index, M, N, K)]
    before = hits()
    a2, b2, c2, inputs2 = make_inputs(spec, kernel, M, N, K, gen)
    for mine, new in [(a, a2), (b, b2), (c, c2)] + [(v, inputs2[n]) for n, v in inputs.items()]:
        if isinstance(mine, torch.Tensor):
            mine.copy_(new)
    check(a, b, c, inputs, out, "new data behind the same pointers")
    if repeatable:
        assert hits() == before + 1
    for n in [n for n, v in inputs.items() if isinstance(v, float)]:
        check(a, b, c, {**inputs, n: inputs[n] * 1.75}, out, f"{n} given anew as a number")
    check(a, b2, c, inputs, out, "another b")
    rows = M - 16
    short = {n: v[:rows] if kernel.inputs[n][0] == "per_row" else v for n, v in inputs.items()}
    check(a[:rows], b, None if c is None else c[:rows], short, out[:rows], f"M = {rows}")
    before = hits()
    check(a, b, c, inputs, out, "the first call's arguments again")
    if repeatable:
        assert hits() == before + 1
    capacity = kernel.params_cache_stats()["capacity"]
    assert capacity > 0  # an sm90 kernel
    # More problems than the cache holds: D at as many places in a taller buffer (16 rows apart, aligned).
    places = capacity + 8
    tall = poisoned_out(spec, M + 16 * places, N)
    for i in range(places):
        check(a, b, c, inputs, tall[16 * i:16 * i + M], f"D at row {16 * i} of a taller buffer")
    assert kernel.params_cache_stats()["entries"] <= capacity
    check(a, b, c, inputs, out, "the first call's arguments after the cache emptied")


def _bf16(name, tile, epilogue):
    """A bf16 spec (row-major a, column-major b, bf16 out) of one sm90 tile, for the study settings' GPU tests."""
    from cutlassgen import GemmSpec, Operand

    return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=epilogue, name=name)


# lower.DIRECT_STORE, the study setting of bench/tile_probe.py directstore (csrc/cutlassgen/direct_store.hpp): D
# written from each thread's accumulators, no shared memory. Its kernels: the decode tile swapped with bias+gelu and
# with no epilogue, and an unswapped cooperative tile whose epilogue reads a vector along each of its dimensions.
def _direct_store_specs() -> dict:
    from cutlassgen import Activation, Add, Multiply, Sm90Tile

    swapped = Sm90Tile(cta=(64, 64, 128), cluster=(4, 1, 1), mainloop="pingpong", swap_ab=True)
    return {"direct_swap_bias_gelu": _bf16("direct_swap_bias_gelu", swapped,
                                           [Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]),
            "direct_swap_plain": _bf16("direct_swap_plain", swapped, []),
            "direct_coop_scale_bias_relu": _bf16(
                "direct_coop_scale_bias_relu", Sm90Tile(cta=(128, 128, 64), cluster=(2, 1, 1), mainloop="cooperative"),
                [Multiply("per_row", "scale", "fp32"), Add("per_col", "bias", "bf16"), Activation("relu")])}


@pytest.fixture(scope="module")
def direct_store_kernels(cache_dir):
    import cutlassgen as cg
    from cutlassgen import lower

    specs = _direct_store_specs()
    with lower.settings(DIRECT_STORE="always"):
        return dict(zip(specs, cg.build_many(list(specs.values()))))


@pytest.mark.parametrize("name", list(_direct_store_specs()))
def test_direct_store_epilogue_matches_the_reference(direct_store_kernels, name):
    """Every element written once and right, where tokens and weights end inside their tiles (the threads of the last
    tiles predicate their vector reads and stores) and where they fill them; out poisoned before every call."""
    import torch

    import cutlassgen as cg

    spec, kernel = _direct_store_specs()[name], direct_store_kernels[name]
    assert "DirectEpilogue" in kernel.source
    for M, N, K in ((48, 5120, 1024), (5, 312, 200), (64, 136, 4096), (300, 264, 520)):
        gen = fresh_generator(name, M, N, K)
        a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
        out = poisoned_out(spec, M, N)
        res = kernel(a, b, c, out=out, **inputs)
        torch.cuda.synchronize()
        assert_close(res, cg.reference(spec, a, b, c, **inputs), spec.d.dtype, f"{name} {M}x{N}x{K}")


# lower.WEIGHTS_KEEP_MIB (16 by default, 1 here): a weights-first kernel loads the first MiB of its weights
# EVICT_NORMAL and the rest EVICT_FIRST, the policy chosen per work tile in the producer. A swapped decode tile and an
# unswapped cooperative one, at shapes whose weights fall within that MiB, past it, and across it inside one call.
def _keep_weights_specs() -> dict:
    from cutlassgen import Activation, Add, Sm90Tile

    bias_gelu = [Add("per_col", "bias", "bf16"), Activation("gelu_tanh")]
    return {"keep_swap": _bf16("keep_swap", Sm90Tile(cta=(64, 64, 128), cluster=(4, 1, 1), mainloop="pingpong",
                                                     swap_ab=True, weights_evict_first=True), bias_gelu),
            "keep_coop": _bf16("keep_coop", Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1), mainloop="cooperative",
                                                     weights_evict_first=True), bias_gelu)}


@pytest.fixture(scope="module")
def keep_weights_kernels(cache_dir):
    import cutlassgen as cg
    from cutlassgen import lower

    specs = _keep_weights_specs()
    with lower.settings(WEIGHTS_KEEP_MIB=1):
        return dict(zip(specs, cg.build_many(list(specs.values()))))


@pytest.mark.parametrize("name", list(_keep_weights_specs()))
def test_weights_kept_in_l2_by_address_still_match_the_reference(keep_weights_kernels, name):
    """The hints change which lines L2 keeps, never a value: every shape right on a poisoned out, twice."""
    import re

    import torch

    import cutlassgen as cg

    spec, kernel = _keep_weights_specs()[name], keep_weights_kernels[name]
    assert re.search(r"MainloopLoadHints<\w+, [\w:]+,\s+[\w:]+, [\w:]+, 1>;", kernel.source)
    # weights of 10 MiB (8 swapped 64-row tiles kept), 0.12 MiB (all kept), 1.06 MiB (the last tile past the MiB),
    # 0.26 MiB (all kept, 300 token rows over several token tiles)
    for M, N, K in ((48, 5120, 1024), (5, 312, 200), (64, 136, 4096), (300, 264, 520)):
        gen = fresh_generator(name, M, N, K)
        a, b, c, inputs = make_inputs(spec, kernel, M, N, K, gen)
        ref = cg.reference(spec, a, b, c, **inputs)
        for _ in range(2):
            out = poisoned_out(spec, M, N)
            res = kernel(a, b, c, out=out, **inputs)
            torch.cuda.synchronize()
            assert_close(res, ref, spec.d.dtype, f"{name} {M}x{N}x{K}")
