"""The callable inside PyTorch: CUDA graphs, torch.compile, streams, empty problems, GPU-only argument checks."""
import pytest

from cutlassgen.golden import rel_error
import per_shape_cases as cases
from gpu_specs import GPU_SPECS, fresh_generator, fresh_seed
from tolerances import REL_ERR

pytestmark = pytest.mark.gpu
NAME = "sm90_bf16_bias_gelu"


def _inputs(M=256, N=512, K=384):
    """bf16 activations, weights (column-major) and bias on fresh_seed."""
    import torch

    g = fresh_generator(M, N, K)
    a = torch.randn(M, K, generator=g, device="cuda").bfloat16()
    w = (torch.randn(N, K, generator=g, device="cuda") / K ** 0.5).bfloat16()
    bias = torch.randn(N, generator=g, device="cuda").bfloat16()
    return a, w.t(), bias


def test_cuda_graph_capture_and_replay(gpu_kernel):
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)
    a, b, bias = _inputs()
    k(a, b, bias=bias)  # warm up outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = k(a, b, bias=bias)
    a2, b2, bias2 = _inputs()
    a.copy_(a2), b.copy_(b2), bias.copy_(bias2)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert rel_error(out, cg.reference(GPU_SPECS[NAME], a2, b2, bias=bias2)) < REL_ERR["bf16"]


def test_torch_compile_fullgraph(gpu_kernel):
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)

    def f(a, b, bias):
        return k(a, b, bias=bias).float() * 2.0 + 1.0

    compiled = torch.compile(f, fullgraph=True)
    a, b, bias = _inputs()
    got = compiled(a, b, bias)
    want = cg.reference(GPU_SPECS[NAME], a, b, bias=bias).float() * 2.0 + 1.0
    assert rel_error(got, want) < REL_ERR["bf16"]


def test_runs_on_the_current_stream(gpu_kernel):
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)
    a, b, bias = _inputs(M=2048, N=2048, K=2048)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = k(a, b, bias=bias)
        done = torch.cuda.Event()
        done.record(side)
    done.synchronize()
    assert rel_error(out, cg.reference(GPU_SPECS[NAME], a, b, bias=bias)) < REL_ERR["bf16"]


def _worker_runs_the_pickled_kernel(rank, kernel, a, b, bias, results):
    # torch.multiprocessing.spawn pickles kernel and the tensors. The result goes back as a numpy array, by value: a
    # tensor would be shared through a file descriptor that the worker, once it exits, no longer serves (seen: the
    # parent's get() met "Connection reset by peer").
    results.put(kernel(a, b, bias=bias).float().cpu().numpy())


def test_a_spawned_worker_runs_the_pickled_kernel(gpu_kernel):
    """torch.multiprocessing.spawn (CUDA needs spawn) hands the kernel to the worker by pickling it: the worker
    loads the same module and its result matches the reference."""
    import torch
    import torch.multiprocessing as mp

    import cutlassgen as cg

    k = gpu_kernel(NAME)
    a, b, bias = _inputs()
    results = mp.get_context("spawn").Queue()
    workers = mp.spawn(_worker_runs_the_pickled_kernel, args=(k, a, b, bias, results), nprocs=1, join=False)
    got = torch.from_numpy(results.get(timeout=120)).cuda()  # before join (a worker may wait for its result to be
    # read); a worker that died raises queue.Empty here instead of hanging
    workers.join()
    assert rel_error(got, cg.reference(GPU_SPECS[NAME], a, b, bias=bias)) < REL_ERR["bf16"]
    torch.cuda.synchronize()


def test_an_input_that_requires_grad_gives_a_correct_output_whose_backward_refuses(gpu_kernel):
    """An nn.Parameter weight outside no_grad: the result is the reference's, and its backward raises (it had
    none before, so a training loop through it learned nothing without a word)."""
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)
    a, b, bias = _inputs()
    weight = torch.nn.Parameter(b.t().contiguous())
    got = k(a, weight.t(), bias=bias)
    assert got.requires_grad
    assert rel_error(got.detach(), cg.reference(GPU_SPECS[NAME], a, b, bias=bias)) < REL_ERR["bf16"]
    with pytest.raises(RuntimeError, match="computes no gradients"):
        got.float().sum().backward()
    # the same under torch.compile (the kernel's torch op), with the bias a Parameter too: compiling it failed
    # while tracing a backward, and the op's autograd missed an epilogue tensor
    bias = torch.nn.Parameter(bias)
    got = torch.compile(lambda a, w: k(a, w.t(), bias=bias) * 2.0, fullgraph=True)(a, weight)
    assert got.requires_grad
    assert rel_error(got.detach(), cg.reference(GPU_SPECS[NAME], a, b, bias=bias.detach()) * 2.0) < REL_ERR["bf16"]
    with pytest.raises(RuntimeError, match=r"\(b, bias\): the kernel computes no gradients"):
        got.float().sum().backward()


def test_empty_problems_behave_like_torch(gpu_kernel):
    import torch
    import torch.nn.functional as F

    k = gpu_kernel(NAME)
    a, b, bias = _inputs(M=0, N=512, K=384)
    assert k(a, b, bias=bias).shape == (0, 512)
    a, b, bias = _inputs(M=64, N=512, K=0)
    got = k(a, b, bias=bias)
    want = F.gelu(bias.double().expand(64, 512), approximate="tanh").bfloat16()
    assert torch.equal(got, want)


def test_gpu_only_argument_checks(gpu_kernel):
    import torch

    k = gpu_kernel(NAME)
    a, b, bias = _inputs()
    with pytest.raises(ValueError, match="bias is on cpu"):
        k(a, b, bias=bias.cpu())
    with pytest.raises(ValueError, match="out has dtype"):
        k(a, b, bias=bias, out=torch.empty(256, 512, device="cuda"))
    with pytest.raises(ValueError, match="out has shape"):
        k(a, b, bias=bias, out=torch.empty(256, 256, device="cuda", dtype=torch.bfloat16))
    with pytest.raises(ValueError, match="a's data pointer is not 16-byte aligned"):
        big = torch.randn(256 * 384 + 1, device="cuda").bfloat16()
        k(big[1:].view(256, 384), b, bias=bias)
    # an out sharing memory with an operand: the fast path hands it to the checks (test_calls has the CPU cases)
    buf = torch.empty(256 * 512 + 256 * 384, device="cuda", dtype=torch.bfloat16)
    with pytest.raises(ValueError, match="out shares memory with a"):
        k(buf[:256 * 384].view(256, 384).copy_(a), b, bias=bias, out=buf[256 * 128:256 * 640].view(256, 512))
    side = torch.empty(256, 384 + 512, device="cuda", dtype=torch.bfloat16)  # a and out side by side in one buffer
    side[:, :384] = a
    out = k(side[:, :384], b, bias=bias, out=side[:, 384:])
    assert rel_error(out, k(a, b, bias=bias)) == 0


def test_per_shape_dispatch_runs_each_buckets_tile(cache_dir):
    """build(spec, shapes=...) of an all-auto spec: every M bucket's own tile (swap_ab tiles fitted to the tokens up
    to 256 rows, with their N-class variants, the default above) matches the float64 reference, written into a
    poisoned out."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec, shapes = cases.bf16_bias_gelu(), cases.BF16_SHAPES
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_bf16_tiles(cases.tile_of_dispatch(k, shapes))
    _check_bias_gelu_dispatch(k, spec, shapes)


def _check_bias_gelu_dispatch(k, spec, shapes):
    """Each shape through the dispatching kernel k of a bias+gelu spec into a poisoned out, against the reference."""
    import torch

    import cutlassgen as cg

    for M, N, K in shapes:
        assert k.choose(M, N, K).spec.tile == (cases.planned_tile(spec, M, N, K) or spec.tile), (M, N, K)
        a, b, bias = _inputs(M=M, N=N, K=K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, bias=bias, out=out)
        assert rel_error(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], (M, N)


def test_a_per_shape_kernel_under_torch_compile_runs_each_buckets_tile(cache_dir):
    """torch.compile(fullgraph, dynamic) of build(spec, shapes=...)'s DispatchKernel: one op that chooses each call's
    tile when it runs (choosing while tracing made each bucket a recompile, past torch's limit of 8 an eager run).
    Every shape of the bf16 per-shape test right against the reference, through one compiled function."""
    import torch

    import cutlassgen as cg

    spec, shapes = cases.bf16_bias_gelu(), cases.BF16_SHAPES
    k = cg.build(spec, shapes=shapes)
    compiled = torch.compile(lambda a, b, bias: k(a, b, bias=bias) * 1.0, fullgraph=True, dynamic=True)
    for M, N, K in shapes:
        a, b, bias = _inputs(M=M, N=N, K=K)
        got = compiled(a, b, bias)
        assert rel_error(got, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], (M, N, K)


def test_a_tuned_wide_pingpong_winner_runs_128x224_at_ragged_m(cache_dir):
    """A tuning record, written here as `cutlassgen tune` would on this GPU, whose winner at 1024x12288 is the plan's
    wide-N 128x128 pingpong tile: build(spec) runs the plan's 128x224 cooperative at a ragged M (1000 rows) and the
    winner at 1024, each into a poisoned out that matches the float64 reference (dispatch.tuned_fills). The spec is
    the per-shape tests' own, whose kernels the device prebuild compiles; the record and the memo go after."""
    import torch

    import cutlassgen as cg
    from cutlassgen import dispatch
    from cutlassgen.jit import forget_built
    from cutlassgen.tiles import shape_tile

    spec = cases.bf16_bias_gelu()
    pingpong = shape_tile(spec, 1024, 12288, 512)
    dispatch.write_record(spec, 90, torch.cuda.get_device_name(), [
        {"shape": [1024, 12288, 512], "tile": dispatch.tile_to_dict(pingpong), "label": "128x128 pingpong",
         "tflops": 1.0, "default_tflops": 1.0}])
    forget_built(spec)
    try:
        k = cg.build(spec)
    finally:
        dispatch.record_path(spec, 90).unlink()
        forget_built(spec)
    assert isinstance(k, dispatch.DispatchKernel), k
    assert "(where M is ragged: 128x224x64 c1x1 cooperative)" in repr(k)
    for M, cta in ((1000, (128, 224)), (1024, (128, 128))):
        assert k.choose(M, 12288, 512).spec.tile.cta[:2] == cta
        a, b, bias = _inputs(M=M, N=12288, K=512)
        out = torch.full((M, 12288), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, bias=bias, out=out)
        assert rel_error(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], M


def test_per_shape_plan_runs_its_fill_tile_at_a_padded_walk_on_the_gpus_that_take_it(cache_dir):
    """At 8064x14336x4096 (M a multiple of 128, A past L2) the wide-N pingpong tile's strips walk a row of tiles
    wholly past M; a DispatchKernel made on a GPU of tiles.PADDED_WALK_FILL_ON runs 128x224 cooperative there, any
    other its own 128x128 tile, and either is right against the reference into a poisoned out. The plan's kernels are
    the bf16 per-shape test's (its (2000, 14296, 512) entry), so the device prebuild has compiled them."""
    import torch

    import cutlassgen as cg
    from cutlassgen import tiles

    spec, (M, N, K) = cases.bf16_bias_gelu(), (8064, 14336, 4096)
    own = tiles.shape_tile(spec, M, N, K)
    assert tiles.walk_rows_past_m(spec.replace(tile=own), M, N, K) == 1
    k = cg.build(spec, shapes=[(M, N, K)])
    fills = any(model in torch.cuda.get_device_name() for model in tiles.PADDED_WALK_FILL_ON)
    assert k.choose(M, N, K).spec.tile.cta[:2] == ((128, 224) if fills else own.cta[:2])
    a, b, bias = _inputs(M=M, N=N, K=K)
    out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    k(a, b, bias=bias, out=out)
    assert rel_error(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"]


def test_build_many_with_shapes_gives_each_spec_its_per_shape_plan(cache_dir):
    """build_many([bf16, fp8], shapes=[their problems]): each spec's dispatching kernel, with the tiles that
    build(spec, shapes=...) gives it alone (the two tests beside this one; their kernels are cache hits here), each
    shape right against the reference into a poisoned out."""
    import cutlassgen as cg

    bf16, fp8 = cases.bf16_bias_gelu(), cases.fp8_scaled("fp8_per_shape_dispatch")
    both = cg.build_many([bf16, fp8], shapes=[cases.BF16_SHAPES, cases.FP8_SHAPES])
    for k, spec, shapes in zip(both, (bf16, fp8), (cases.BF16_SHAPES, cases.FP8_SHAPES)):
        alone = cg.build(spec, shapes=shapes)
        assert [k.choose(*s).spec for s in shapes] == [alone.choose(*s).spec for s in shapes], spec.name
    _check_bias_gelu_dispatch(both[0], bf16, cases.BF16_SHAPES)
    _check_fp8_scaled_dispatch(both[1], fp8, cases.FP8_SHAPES)


def test_fp8_per_shape_dispatch_runs_the_token_tiles(cache_dir):
    """fp8 e4m3 with per-row x per-column scales and a bias (the vLLM epilogue) over the sm90 token tiles of M
    65-256, which take 128 bytes of K for fp8, at ragged N, written into a poisoned out."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec, shapes = cases.fp8_scaled("fp8_per_shape_dispatch"), cases.FP8_SHAPES
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_fp8_tiles(cases.tile_of_dispatch(k, shapes))
    _check_fp8_scaled_dispatch(k, spec, shapes)


def _fp8_scaled_inputs(M, N, K, g) -> dict:
    """a, b and the vLLM epilogue's scales and bias for cases.fp8_scaled, drawn from generator g."""
    import torch

    return dict(a=torch.randn(M, K, generator=g, device="cuda").to(torch.float8_e4m3fn),
                b=(torch.randn(N, K, generator=g, device="cuda") * 0.5).to(torch.float8_e4m3fn).t(),
                scale_a=torch.rand(M, generator=g, device="cuda") / K ** 0.5 + 0.01,
                scale_b=torch.rand(N, generator=g, device="cuda") + 0.5,
                bias=torch.randn(N, generator=g, device="cuda").bfloat16())


def _poisoned_run(kernel, x: dict):
    """kernel(**x) into a bf16 out filled with NaN (x: a and b, then its epilogue's keyword inputs)."""
    import torch

    out = torch.full((x["a"].shape[0], x["b"].shape[1]), float("nan"), device="cuda", dtype=torch.bfloat16)
    kernel(out=out, **x)
    return out


def _check_fp8_scaled_dispatch(k, spec, shapes):
    """Each shape through the dispatching kernel k into a poisoned out, against the reference."""
    import cutlassgen as cg

    g = fresh_generator(spec.name)
    for M, N, K in shapes:
        assert k.choose(M, N, K).spec.tile == (cases.planned_tile(spec, M, N, K) or spec.tile), (M, N, K)
        x = _fp8_scaled_inputs(M, N, K, g)
        out = _poisoned_run(k, x)
        assert rel_error(out, cg.reference(spec, **x)) < REL_ERR["bf16"], (M, N, K)


def _checked_fp8_case(name: str):
    """(spec, shapes, k) of the fp8 scaled per-shape case name: k built for its shapes, the plan's tiles as the case
    expects them, each shape against the reference (_check_fp8_scaled_dispatch)."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec, shapes, expect = cases.cases()[name]
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    expect(cases.tile_of_dispatch(k, shapes))
    _check_fp8_scaled_dispatch(k, spec, shapes)
    return spec, shapes, k


def test_fp8_exact_dispatch_takes_the_opaque_loop_up_to_k_2048(cache_dir):
    """Exact fp8 by K: the 128x128 cooperative tiles with Sm90Tile.opaque_pipeline up to K = 2048 and without it
    above, and the 128x192 tile above 2048 rows at wide N, each shape against the reference into a poisoned out;
    where K picked the opaque loop, its output bit for bit that of the same tile's shipped loop (the kernel K = 4096
    takes at that M and N) on the same inputs."""
    import torch

    spec, shapes, k = _checked_fp8_case("fp8_deep")
    g = fresh_generator(spec.name, "opaque loop")
    for M, N, K in [s for s in shapes if s[2] <= 2048]:
        opaque, shipped = k.choose(M, N, K), k.choose(M, N, 4096)
        assert opaque.spec.tile.opaque_pipeline and not shipped.spec.tile.opaque_pipeline, (M, N, K)
        x = _fp8_scaled_inputs(M, N, K, g)
        assert torch.equal(_poisoned_run(opaque, x), _poisoned_run(shipped, x)), (M, N, K)


def test_fp8_fast_accum_per_shape_dispatch_runs_the_8_step_token_tiles(cache_dir):
    """fp8 with fast accumulation takes token columns in steps of 8 under 192-row weight tiles (2 x 72 at 129-144
    rows, 2 x 88 at 161-176; validate.n_step_of), whose epilogue CUTLASS's builder implementation builds: at ragged
    N, the second column partly past M, into a poisoned out."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec, shapes = cases.fp8_scaled("fp8_fast_narrow_token_tiles", fp8_fast_accum=True), cases.FP8_FAST_SHAPES
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_fp8_fast_tiles(cases.tile_of_dispatch(k, shapes))
    _check_fp8_scaled_dispatch(k, spec, shapes)


def test_fp8_fast_per_shape_dispatch_runs_the_fitted_twin_at_ragged_m(cache_dir):
    """fp8 fast above 512 rows at ragged M (700x8192, 513x4096, 2000x14336) runs its 128x128 pingpong tile's twin that
    loads the last row of token tiles in a box fitted to it (Sm90Tile.fitted_tail, tiles.fitted_twin); where M fills
    its tiles the tile itself. Each shape against the reference into a poisoned out, and at ragged M bit for bit the
    output of the kernel the same entry runs where M fills its tiles (the loads' box differs, nothing else). At
    8064x14336x8192, M a multiple of 128 where the scheduler's strips walk a row of tiles wholly past M
    (tiles.walk_rows_past_m), the twin too (those tiles load no activation), against the reference and bit for bit
    the tile's output at the same entry."""
    import torch

    from cutlassgen.tiles import resolve

    spec, shapes, k = _checked_fp8_case("fp8_fast_ragged")
    g = fresh_generator(spec.name, "twin")
    padded = (8064, 14336, 8192)
    _check_fp8_scaled_dispatch(k, spec, [padded])
    for M, N, K in [s for s in shapes if s[0] % 128] + [padded]:
        aligned = -(-M // 128) * 128 if M % 128 else M + 128  # the same entry, where nothing lies past M
        twin, plain = k.choose(M, N, K), k.choose(aligned, N, K)
        assert twin.spec.tile.fitted_tail and not plain.spec.tile.fitted_tail, (M, N, K)
        assert resolve(twin.spec).cta == resolve(plain.spec).cta, (M, N, K)
        x = _fp8_scaled_inputs(M, N, K, g)
        assert torch.equal(_poisoned_run(twin, x), _poisoned_run(plain, x)), (M, N, K)


@pytest.mark.parametrize("case", ["fp8_fast_weights_first", "fp8_weights_first", "bf16_weights_first",
                                  "int8_weights_first", "bf16_swapped_weights_first",
                                  "fp8_fast_swapped_weights_first"])
def test_the_plans_tiles_load_weights_over_36_mib_evict_first(cache_dir, case):
    """The plan's swapped tiles, and at 97-256 rows its unswapped ones, cooperative and pingpong, take
    Sm90Tile.weights_evict_first where the weights take over 36 MiB (fp8 fast and exact, bf16, int8): each shape
    against the reference into a poisoned out, and bit for bit the output of the same tile without it (an L2 policy
    on the loads, nothing else) on the same inputs."""
    import dataclasses

    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.tuning import random_inputs

    spec, shapes, expect = cases.cases()[case]
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    expect(cases.tile_of_dispatch(k, shapes))
    twin_specs = cases.weights_first_twins(spec, shapes)
    twins = {twin.tile: kernel for twin, kernel in zip(twin_specs, cg.build_many(twin_specs))}
    g = fresh_generator(case)
    for M, N, K in shapes:
        assert k.choose(M, N, K).spec.tile == (cases.planned_tile(spec, M, N, K) or spec.tile), (M, N, K)
        if spec.a.dtype == "e4m3":
            x = _fp8_scaled_inputs(M, N, K, g)
        elif spec.a.dtype == "int8":
            torch.manual_seed(fresh_seed(spec.name, M, N, K))
            (a, b), inputs = random_inputs(spec, M, N, K)
            x = dict(a=a, b=b, **inputs)
        else:
            a, b, bias = _inputs(M=M, N=N, K=K)
            x = dict(a=a, b=b, bias=bias)
        out = _poisoned_run(k, x)
        assert rel_error(out, cg.reference(spec, **x)) < REL_ERR["bf16"], (M, N, K)
        twin = twins[dataclasses.replace(k.choose(M, N, K).spec.tile, weights_evict_first=False)]
        assert torch.equal(out, _poisoned_run(twin, x)), (M, N, K)


@pytest.mark.parametrize("operands", ["int8", "tf32"])
def test_sm90_int8_and_tf32_per_shape_dispatch_run_the_token_tiles(cache_dir, operands):
    """int8 x int8 dequantized to bf16 and fp32 (tf32 math) + bias over the sm90 per-shape tiles, which take 128 bytes
    of K (128 int8, 32 fp32 elements; 64 bytes in the decode tiles of tf32): swapped decode and token tiles at
    N = 1040 (for tf32, 128x128 where a token tile is off wgmma's base N), and at N = 12520, where the last weight
    tiles run partly or wholly past N, int8's two token columns under 192-row pingpong weight tiles at 136 rows and
    its unswapped 128x192 tiles in 2x1 clusters at 250, tf32's one column under 128-row weight tiles in 4x1 clusters;
    at 110x9304 int8's 64x160 pingpong tiles in 2x1 clusters, tf32's two columns under 128-row weight tiles; at
    180x9304 int8's three 64-row token tiles under 224-wide weight tiles; from N = 4225 int8's three token columns
    under 128-row weight tiles with no cluster (140, 185, 200 and 240 rows) and two in a 1x2 cluster (150); below
    N = 2561 int8's narrow columns, 32 to 80 wide with no cluster; into a poisoned out."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.tuning import random_inputs

    spec, shapes, _ = cases.cases()[f"sm90_{operands}"]  # int8 also at its narrow columns' shapes
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_sm90_int8_or_tf32_tiles(cases.tile_of_dispatch(k, shapes), operands)
    out_dtype = torch.bfloat16 if operands == "int8" else torch.float32
    for M, N, K in shapes:
        assert k.choose(M, N, K).spec.tile == (cases.planned_tile(spec, M, N, K) or spec.tile), (M, N, K)
        torch.manual_seed(fresh_seed(spec.name, M, N, K))
        (a, b), inputs = random_inputs(spec, M, N, K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
        k(a, b, **inputs, out=out)
        assert rel_error(out, cg.reference(spec, a, b, **inputs)) < REL_ERR[spec.d.dtype], (M, N)


def test_sm80_path_per_shape_dispatch_runs_each_buckets_tile(cache_dir):
    """The sm80 path's per-shape tiles (32x64, 64x64, 64x128, 128x128x64, and 128x256 at large M and N; compiled for
    the GPU at hand) at N and K that are not multiples of the tile, written into a poisoned out; the default kernel
    names its per-shape tile."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.jit import PerformanceWarning

    spec, shapes = cases.bf16_bias_gelu(arch=80, name="sm80_per_shape_dispatch"), cases.SM80_BF16_SHAPES
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_sm80_bf16_tiles(cases.tile_of_dispatch(k, shapes), spec)
    for M, N, K in shapes:
        assert k.choose(M, N, K).spec.tile == (cases.planned_tile(spec, M, N, K) or spec.tile), M
        a, b, bias = _inputs(M=M, N=N, K=K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, bias=bias, out=out)
        assert rel_error(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], M
    a, b, bias = _inputs(M=24, N=1000, K=520)
    with pytest.warns(PerformanceWarning, match=r"M=24, N=1000 runs the default tile.*32x64x64 w32x32"):
        cg.build(spec, dispatch=False)(a, b, bias=bias)


def test_sm80_path_int8_per_shape_dispatch_runs_each_buckets_tile(cache_dir):
    """int8 x int8 dequantized to bf16 (examples/specs/int8_dequant_sm80.toml's chain) over the sm80 path's per-shape
    tiles, which take 128 bytes of K (128 int8 elements) below 129 rows and 64 up to 256, at ragged N into a poisoned
    out."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.tuning import random_inputs

    spec, shapes = cases.int8_dequant(80, "sm80_int8_per_shape_dispatch"), cases.SM80_INT8_SHAPES
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    cases.expect_sm80_int8_tiles(cases.tile_of_dispatch(k, shapes))
    for M, N, K in shapes:
        torch.manual_seed(fresh_seed(spec.name, M, N, K))
        (a, b), inputs = random_inputs(spec, M, N, K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, **inputs, out=out)
        assert rel_error(out, cg.reference(spec, a, b, **inputs)) < REL_ERR["bf16"], M


def test_default_kernel_says_once_when_a_small_m_has_a_better_tile(cache_dir):
    import warnings

    import cutlassgen as cg
    from cutlassgen.jit import PerformanceWarning

    spec = cases.bf16_bias_gelu()
    k = cg.build(spec, dispatch=False)  # the default tile alone (compiled by the test above)
    a, b, bias = _inputs(M=2048, N=1024, K=512)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        k(a, b, bias=bias)  # large M: nothing to say
    a, b, bias = _inputs(M=24, N=1024, K=512)
    with pytest.warns(PerformanceWarning, match=r"M=24, N=1024 runs the default tile.*shapes=\[\(24, 1024, 512\)"):
        got = k(a, b, bias=bias)
    assert rel_error(got, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"]
    a, b, bias = _inputs(M=40, N=1024, K=512)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        k(a, b, bias=bias)  # once per kernel


@pytest.mark.parametrize("name, M", [("sm90_pdl_bias_gelu", 512), ("sm90_pdl_swap_pingpong", 32)])
def test_pdl_kernel_waits_for_the_previous_one(gpu_kernel, name, M):
    """Sm90Tile(pdl=True): each call reads the output of the call before it, all launched without a sync, eagerly and
    replayed from a CUDA graph. A kernel that read its input before the previous one finished would see the NaN the
    outputs were poisoned with, or a partial result."""
    import torch

    import cutlassgen as cg

    k, spec, steps, N = gpu_kernel(name), GPU_SPECS[name], 12, 1024
    assert k.spec.tile.pdl
    x0, w, bias = _inputs(M=M, N=N, K=N)
    xs = [x0] + [torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16) for _ in range(steps)]

    def chain():
        for i in range(steps):
            k(xs[i], w, out=xs[i + 1], s=1.25, bias=bias)

    def check(how):
        torch.cuda.synchronize()
        for i in range(steps):
            want = cg.reference(spec, xs[i], w, s=1.25, bias=bias)
            assert rel_error(xs[i + 1], want) < REL_ERR["bf16"], f"{how}: step {i + 1} of {steps}"

    chain()
    check("eager")
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        chain()
    for x in xs[1:]:
        x.fill_(float("nan"))
    graph.replay()
    check("graph replay")


def test_pdl_kernel_refuses_a_scalar_tensor(gpu_kernel):
    import torch

    k = gpu_kernel("sm90_pdl_bias_gelu")
    a, b, bias = _inputs()
    with pytest.raises(ValueError, match="takes scalars as Python numbers only"):
        k(a, b, s=torch.tensor([1.0], device="cuda"), bias=bias)
    assert k(a, b, s=1.0, bias=bias).shape == (256, 512)
