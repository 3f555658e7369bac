"""The callable inside PyTorch: CUDA graphs, torch.compile, streams, empty problems, GPU-only argument checks."""
import pytest

from gpu_specs import GPU_SPECS
from tolerances import REL_ERR

pytestmark = pytest.mark.gpu
NAME = "sm90_bf16_bias_gelu"


def _inputs(M=256, N=512, K=384, seed=0):
    import torch

    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(M, K, generator=g, device="cuda").bfloat16()
    w = (torch.randn(N, K, generator=g, device="cuda") / K ** 0.5).bfloat16()
    bias = torch.randn(N, generator=g, device="cuda").bfloat16()
    return a, w.t(), bias


def _rel(x, y):
    return ((x.double() - y.double()).norm() / y.double().norm()).item()


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
    a2, b2, bias2 = _inputs(seed=1)
    a.copy_(a2), b.copy_(b2), bias.copy_(bias2)
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert _rel(out, cg.reference(GPU_SPECS[NAME], a2, b2, bias=bias2)) < REL_ERR["bf16"]


def test_torch_compile_fullgraph(gpu_kernel):
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)

    def f(a, b, bias):
        return k(a, b, bias=bias).float() * 2.0 + 1.0

    compiled = torch.compile(f, fullgraph=True)
    a, b, bias = _inputs(seed=3)
    got = compiled(a, b, bias)
    want = cg.reference(GPU_SPECS[NAME], a, b, bias=bias).float() * 2.0 + 1.0
    assert _rel(got, want) < REL_ERR["bf16"]


def test_runs_on_the_current_stream(gpu_kernel):
    import torch

    import cutlassgen as cg

    k = gpu_kernel(NAME)
    a, b, bias = _inputs(M=2048, N=2048, K=2048, seed=4)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = k(a, b, bias=bias)
        done = torch.cuda.Event()
        done.record(side)
    done.synchronize()
    assert _rel(out, cg.reference(GPU_SPECS[NAME], a, b, bias=bias)) < REL_ERR["bf16"]


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


def test_per_shape_dispatch_runs_each_buckets_tile(cache_dir):
    """build(spec, shapes=...) of an all-auto spec: every M bucket's own tile (swap_ab tiles fitted to the tokens up
    to 256 rows, with their N-class variants, the default above) matches the float64 reference, written into a
    poisoned out."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.tiles import shape_tile

    spec = cg.GemmSpec(arch=90, name="per_shape_dispatch", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    # N = 12288: the wide-weight tiles of the M <= 32 (2x1 cluster) and M <= 64 (128x64) buckets; M = 40 at
    # N = 8192: the M <= 64 bucket's 128x32 tile multicasting the weights to a ragged second column of tokens; at
    # N = 5000: 64x48 (M = 40) and 64x64 (M = 56) tiles in 4x1 clusters, the last cluster's 79th-80th weight tiles
    # partly or wholly past N; M = 600 at N = 12288: the large-M wide-weight 128x128 pingpong tile, its last row of
    # tiles ragged; M 65-256: the token tiles fitted to M in steps of 16 or 8 (144 with 48-wide subtiles, 2x96,
    # 2x128 wide; below N = 4225 two columns under 64-row weight tiles in 1x2 clusters, 2x40 and 2x56, 80 and 112
    # wide from there (72 and 100 rows at N = 4304), below 4608 2x48, 2x80 and 2x112 in 1x2 clusters, 2x64 without;
    # from 4608 on one 96-, 160-wide column and 128x64 cooperative; two columns under one 128-row weight tile in a
    # 1x2 cluster, 56 wide at 110 rows, 72 at 140, 80 at 150, 96 at 180, 112 at 210, with subtiles as wide as a
    # column) and 128x128 cooperative, at ragged M and N; one column of all the tokens under 128-row
    # weight tiles in 4x1 clusters (80 to 256 wide), from N = 12288 at 65-128 rows and from 12673 above, the last
    # cluster's weight tiles partly or wholly past N; from N = 8449 two token columns under 192-row pingpong weight
    # tiles in 1x2 clusters, to 12287 at 65-128 rows (40 to 64 wide, at N = 9304 the last tile 88 rows deep, at
    # 11000 56) and to 12672 at 129-224 (80 to 104 wide, at N = 12520 40 rows deep); in that band unswapped token
    # tiles in 2x1 clusters under weight tiles N / 64 wide (160 at N = 9304, 144 at 8704, 192 at 12520; ragged last
    # ones): 128-row cooperative at 225-256 rows and at 209-224 to 9216, 64-row pingpong at 97-128 to 10240; with no
    # cluster, three 64-row pingpong token tiles under 224-wide weight tiles at 145-192 rows to N = 9856 (150 and 170
    # rows at N = 8704 and 9304) and one 192-row one under 80-wide weight tiles at 177-192 to 10560 (185x10008, the last
    # weight tile 8 wide)
    shapes = ([(M, 1024, 512) for M in (8, 24, 48, 72, 88, 100, 120, 136, 150, 180, 200, 240, 1000)]
              + [(M, 12288, 512) for M in (24, 48, 72)]
              + [(M, 12520, 520) for M in (100, 150, 170, 200, 235, 250)]
              + [(M, 13000, 520) for M in (150, 200, 250)] + [(88, 9304, 520), (120, 9304, 520), (240, 9304, 520)]
              + [(120, 11000, 520), (216, 8704, 520), (150, 8704, 520), (170, 9304, 520), (185, 10008, 520)]
              + [(72, 9304, 520), (104, 11000, 520), (72, 4304, 512), (100, 4304, 512)]
              + [(40, 8192, 512), (40, 5000, 512), (56, 5000, 512), (110, 8192, 512), (140, 8192, 512),
                 (180, 8192, 512), (210, 5000, 512), (240, 5000, 512), (600, 12288, 512), (150, 7200, 520),
                 (88, 5000, 512), (120, 5000, 512), (150, 5000, 512)])
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    assert k.choose(24, 12288).spec.tile.cluster == (2, 1, 1) and k.choose(48, 12288).spec.tile.cta[1] == 64
    assert k.choose(40, 8192).spec.tile.cta[:2] == (128, 32) and k.choose(40, 8192).spec.tile.cluster == (1, 2, 1)
    assert k.choose(48, 1024).spec.tile.cta[:2] == (64, 32) and k.choose(48, 1024).spec.tile.cluster == (1, 2, 1)
    assert k.choose(40, 5000).spec.tile.cta[:2] == (64, 48) and k.choose(40, 5000).spec.tile.cluster == (4, 1, 1)
    assert k.choose(56, 5000).spec.tile.cta[:2] == (64, 64) and k.choose(56, 5000).spec.tile.cluster == (4, 1, 1)
    assert k.choose(600, 12288).spec.tile.mainloop == "pingpong" and k.choose(600, 12288).spec.tile.cta[0] == 128
    assert [k.choose(M, 1024).spec.tile.cta[:2] for M in (72, 88, 100, 120, 136, 150, 180, 200, 240)] == [
        (64, 40), (64, 48), (64, 56), (64, 64), (64, 144), (64, 80), (64, 96), (64, 112), (64, 128)]
    assert [k.choose(M, 1024).spec.tile.cluster for M in (72, 88, 100, 120, 150, 200)] == [
        (1, 2, 1), (1, 2, 1), (1, 2, 1), (1, 1, 1), (1, 2, 1), (1, 2, 1)]
    assert [k.choose(M, 4304).spec.tile.cta[:2] for M in (72, 100)] == [(64, 80), (64, 112)]
    assert [k.choose(M, 5000).spec.tile.cta[:2] for M in (88, 120, 150)] == [(64, 96), (128, 64), (64, 160)]
    assert k.choose(136, 1024).spec.tile.epilogue_tile == (64, 48)
    for M, N, width in ((72, 12288, 80), (100, 12520, 112), (150, 13000, 160), (200, 13000, 208), (250, 13000, 256)):
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == ((128, width), (4, 1, 1), True,
                                                                             "cooperative"), M
    for M, N, width in ((72, 9304, 40), (88, 9304, 48), (104, 11000, 56), (120, 11000, 64), (150, 12520, 80),
                        (170, 12520, 88), (200, 12520, 104)):
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == ((192, width), (1, 2, 1), True,
                                                                             "pingpong"), M
    for M, N, cta, mainloop in ((240, 9304, (128, 160), "cooperative"), (235, 12520, (128, 192), "cooperative"),
                                (250, 12520, (128, 192), "cooperative"), (216, 8704, (128, 144), "cooperative"),
                                (120, 9304, (64, 160), "pingpong")):
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (2, 1, 1), False, mainloop), M
    for M, N, cta in ((150, 8704, (64, 224)), (170, 9304, (64, 224)), (185, 10008, (192, 80))):
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (1, 1, 1), False, "pingpong"), M
    assert not k.choose(240, 5000).spec.tile.swap_ab
    for M, N, cta in ((110, 8192, (128, 56)), (140, 8192, (128, 72)), (150, 7200, (128, 80)),
                      (180, 8192, (128, 96)), (210, 5000, (128, 112))):
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (1, 2, 1), True, "cooperative"), M
    for M, N, K in shapes:
        assert k.choose(M, N).spec.tile == (shape_tile(spec, M, N) or spec.tile), (M, N)
        a, b, bias = _inputs(M=M, N=N, K=K, seed=M + N)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, bias=bias, out=out)
        assert _rel(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], (M, N)


def test_fp8_per_shape_dispatch_runs_the_token_tiles(cache_dir):
    """fp8 e4m3 with per-row x per-column scales and a bias (the vLLM epilogue) over the sm90 token tiles of M
    65-256, which take 128 bytes of K for fp8, at ragged N, written into a poisoned out."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec = _fp8_scaled_spec("fp8_per_shape_dispatch")
    shapes = ([(M, 1040, 512) for M in (72, 88, 100, 120, 136, 150, 200, 240)] + [(110, 8192, 512), (140, 8192, 512)]
              + [(136, 12520, 512), (200, 12520, 512), (250, 12520, 512), (110, 9304, 512), (110, 11000, 512),
                 (216, 8704, 512)])
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    # from N = 12288 one column under 128-row weight tiles in 4x1 clusters (the promotion buffer leaves room for the
    # 192-row tiles of 8449-12672 only under 64 tokens, at 65-128 rows, from 10241 at 97-128); in that band
    # unswapped token tiles under weight tiles N / 64 wide in 2x1 clusters: 128-row ones at 225-256 rows and at
    # 209-224 to 9216, 64-row ones at 97-128 to 10240; two columns in steps of 8 at 65-80 and 97-112 rows below
    # N = 4225 and under the 128-row weight tiles (validate.n_step_of), 56 wide under the 192-row ones at 110 rows
    assert [k.choose(M, N).spec.tile.cta for M, N, _ in shapes] == [
        (64, 40, 128), (64, 48, 128), (64, 56, 128), (64, 64, 128), (64, 144, 128), (64, 80, 128), (64, 112, 128),
        (64, 128, 128), (128, 56, 128), (128, 72, 128), (128, 144, 128), (128, 208, 128), (128, 192, 128),
        (64, 160, 128), (192, 56, 128), (128, 144, 128)]
    _check_fp8_scaled_dispatch(k, spec, shapes, seed=5)


def _fp8_scaled_spec(name: str, **tile):
    import cutlassgen as cg

    return cg.GemmSpec(arch=90, name=name, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"),
                       tile=cg.Sm90Tile(**tile), epilogue=[cg.Multiply("per_row", "scale_a", "fp32"),
                                                           cg.Multiply("per_col", "scale_b", "fp32"),
                                                           cg.Add("per_col", "bias", "bf16")])


def _check_fp8_scaled_dispatch(k, spec, shapes, seed: int):
    """Each shape through the dispatching kernel k into a poisoned out, against the reference."""
    import torch

    import cutlassgen as cg
    from cutlassgen.tiles import shape_tile

    g = torch.Generator(device="cuda").manual_seed(seed)
    for M, N, K in shapes:
        assert k.choose(M, N).spec.tile == shape_tile(spec, M, N), (M, N)
        a = torch.randn(M, K, generator=g, device="cuda").to(torch.float8_e4m3fn)
        b = (torch.randn(N, K, generator=g, device="cuda") * 0.5).to(torch.float8_e4m3fn).t()
        scale_a = torch.rand(M, generator=g, device="cuda") / K ** 0.5 + 0.01
        scale_b = torch.rand(N, generator=g, device="cuda") + 0.5
        bias = torch.randn(N, generator=g, device="cuda").bfloat16()
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, scale_a=scale_a, scale_b=scale_b, bias=bias, out=out)
        want = cg.reference(spec, a, b, scale_a=scale_a, scale_b=scale_b, bias=bias)
        assert _rel(out, want) < REL_ERR["bf16"], (M, N)


def test_fp8_fast_accum_per_shape_dispatch_runs_the_8_step_token_tiles(cache_dir):
    """fp8 with fast accumulation takes token columns in steps of 8 under 192-row weight tiles (2 x 72 at 129-144
    rows, 2 x 88 at 161-176; validate.n_step_of), whose epilogue CUTLASS's builder implementation builds: at ragged
    N, the second column partly past M, into a poisoned out."""
    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel

    spec = _fp8_scaled_spec("fp8_fast_narrow_token_tiles", fp8_fast_accum=True)
    shapes = [(136, 9304, 512), (141, 12520, 512), (170, 10248, 512), (163, 11000, 512)]
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    tiles = [k.choose(M, N).spec.tile for M, N, _ in shapes]
    assert [(t.cta, t.epilogue_tile) for t in tiles] == [
        ((192, 72, 128), (64, 72)), ((192, 72, 128), (64, 72)), ((192, 88, 128), (64, 88)), ((192, 88, 128), (64, 88))]
    _check_fp8_scaled_dispatch(k, spec, shapes, seed=6)


@pytest.mark.parametrize("operands", ["int8", "tf32"])
def test_sm90_int8_and_tf32_per_shape_dispatch_run_the_token_tiles(cache_dir, operands):
    """int8 x int8 dequantized to bf16 and fp32 (tf32 math) + bias over the sm90 per-shape tiles, which take 128 bytes
    of K (128 int8, 32 fp32 elements; 64 bytes in the decode tiles of tf32): swapped decode and token tiles at
    N = 1040 (for tf32, 128x128 where a token tile is off wgmma's base N), and at N = 12520, where the last weight
    tiles run partly or wholly past N, int8's two token columns under 192-row pingpong weight tiles at 136 rows and
    its unswapped 128x192 tiles in 2x1 clusters at 250, tf32's one column under 128-row weight tiles in 4x1 clusters;
    at 110x9304 int8's 64x160 pingpong tiles in 2x1 clusters, tf32's two columns under 128-row weight tiles; at
    180x9304 int8's three 64-row token tiles under 224-wide weight tiles; into a poisoned out."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.tiles import shape_tile
    from cutlassgen.tuning import random_inputs

    if operands == "int8":
        spec = cg.GemmSpec(arch=90, name="sm90_int8_per_shape_dispatch", a=cg.Operand("int8"),
                           b=cg.Operand("int8", "column"), d=cg.Operand("bf16"),
                           epilogue=[cg.Multiply("per_row", "scale_a", "fp32"),
                                     cg.Multiply("per_col", "scale_b", "fp32")])
    else:
        spec = cg.GemmSpec(arch=90, name="sm90_tf32_per_shape_dispatch", a=cg.Operand("fp32"),
                           b=cg.Operand("fp32", "column"), d=cg.Operand("fp32"),
                           epilogue=[cg.Add("per_col", "bias", "fp32")])
    shapes = [(M, 1040, 528) for M in (8, 48, 100, 150, 200)] + [(136, 12520, 528), (250, 12520, 528),
                                                                 (110, 9304, 528), (180, 9304, 528)]
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    # tf32 takes no token tile off wgmma's base N (validation), so 128x128 stands in for 100-200 rows
    # (128 bytes of K: 128 int8 or 32 fp32 elements)
    # at N = 12520: int8 two columns under 192-row pingpong weight tiles in 1x2 clusters (136 rows) and unswapped
    # 128x192 tiles in 2x1 clusters (250), tf32 (which takes neither) one column under 128-row cooperative weight
    # tiles in 4x1 clusters; at 110x9304 int8 two 64-row token tiles in 2x1 clusters under 160-wide weight tiles,
    # tf32 two swapped token columns under 128-row weight tiles in a 1x2 cluster; at 180x9304 int8 three 64-row token
    # tiles under 224-wide weight tiles, no cluster, tf32 again two swapped columns in a 1x2 cluster
    if operands == "int8":
        out_dtype, k_main = torch.bfloat16, 128
        narrow, wide = [(64, 112), (64, 80), (64, 112)], [(192, 80), (128, 192), (64, 160), (64, 224)]
        forms = {(136, 12520): ((1, 2, 1), True, "pingpong"), (250, 12520): ((2, 1, 1), False, "cooperative"),
                 (110, 9304): ((2, 1, 1), False, "pingpong"), (180, 9304): ((1, 1, 1), False, "pingpong")}
    else:
        out_dtype, k_main = torch.float32, 32
        narrow, wide = [(128, 128)] * 3, [(128, 128), (128, 256), (128, 64), (128, 96)]
        forms = {(250, 12520): ((4, 1, 1), True, "cooperative"), (110, 9304): ((1, 2, 1), True, "cooperative"),
                 (180, 9304): ((1, 2, 1), True, "cooperative")}
    assert [k.choose(M, N).spec.tile.cta[:2] for M, N, _ in shapes] == [(64, 16), (64, 32), *narrow, *wide]
    for (M, N), form in forms.items():
        tile = k.choose(M, N).spec.tile
        assert (tile.cta[2], tile.cluster, tile.swap_ab, tile.mainloop) == (k_main, *form), M
    for M, N, K in shapes:
        assert k.choose(M, N).spec.tile == shape_tile(spec, M, N), (M, N)
        torch.manual_seed(M + N)
        (a, b), inputs = random_inputs(spec, M, N, K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=out_dtype)
        k(a, b, **inputs, out=out)
        assert _rel(out, cg.reference(spec, a, b, **inputs)) < REL_ERR[spec.d.dtype], (M, N)


def test_sm80_path_per_shape_dispatch_runs_each_buckets_tile(cache_dir):
    """The sm80 path's per-shape tiles (32x64, 64x64, 64x128, 128x128x64, and 128x256 at large M and N; compiled for
    the GPU at hand) at N and K that are not multiples of the tile, written into a poisoned out; the default kernel
    names its per-shape tile."""
    import torch

    import cutlassgen as cg
    from cutlassgen.dispatch import DispatchKernel
    from cutlassgen.jit import PerformanceWarning
    from cutlassgen.tiles import shape_tile

    spec = cg.GemmSpec(arch=80, name="sm80_per_shape_dispatch", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    shapes = [(M, 1000, 520) for M in (5, 40, 100, 200, 700)] + [(600, 4104, 520)]
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    assert [k.choose(M, N).spec.tile.threadblock[:2] for M, N, _ in shapes if M != 700] == [
        (32, 64), (64, 64), (64, 128), (128, 128), (128, 256)]
    assert k.choose(700, 1000).spec.tile == spec.tile  # above 512 rows, N below 4096: the default
    for M, N, K in shapes:
        assert k.choose(M, N).spec.tile == (shape_tile(spec, M, N) or spec.tile), M
        a, b, bias = _inputs(M=M, N=N, K=K, seed=M)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, bias=bias, out=out)
        assert _rel(out, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"], M
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

    spec = cg.GemmSpec(arch=80, name="sm80_int8_per_shape_dispatch", a=cg.Operand("int8"),
                       b=cg.Operand("int8", "column"), d=cg.Operand("bf16"),
                       epilogue=[cg.Multiply("per_row", "scale_a", "fp32"), cg.Multiply("per_col", "scale_b", "fp32")])
    shapes = [(M, 1000, 528) for M in (5, 40, 100, 200)] + [(600, 4104, 528)]  # K: int8's 16-byte alignment
    k = cg.build(spec, shapes=shapes)
    assert isinstance(k, DispatchKernel), k
    assert [k.choose(M, N).spec.tile.threadblock for M, N, _ in shapes] == [
        (32, 64, 128), (64, 64, 128), (64, 128, 128), (128, 128, 64), (128, 256, 64)]
    for M, N, K in shapes:
        torch.manual_seed(M)
        (a, b), inputs = random_inputs(spec, M, N, K)
        out = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        k(a, b, **inputs, out=out)
        assert _rel(out, cg.reference(spec, a, b, **inputs)) < REL_ERR["bf16"], M


def test_default_kernel_says_once_when_a_small_m_has_a_better_tile(cache_dir):
    import warnings

    import cutlassgen as cg
    from cutlassgen.jit import PerformanceWarning

    spec = cg.GemmSpec(arch=90, name="per_shape_dispatch", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
    k = cg.build(spec, dispatch=False)  # the default tile alone (compiled by the test above)
    a, b, bias = _inputs(M=2048, N=1024, K=512)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerformanceWarning)
        k(a, b, bias=bias)  # large M: nothing to say
    a, b, bias = _inputs(M=24, N=1024, K=512)
    with pytest.warns(PerformanceWarning, match=r"M=24, N=1024 runs the default tile.*shapes=\[\(24, 1024, 512\)"):
        got = k(a, b, bias=bias)
    assert _rel(got, cg.reference(spec, a, b, bias=bias)) < REL_ERR["bf16"]
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
    x0, w, bias = _inputs(M=M, N=N, K=N, seed=M)
    xs = [x0] + [torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16) for _ in range(steps)]

    def chain():
        for i in range(steps):
            k(xs[i], w, out=xs[i + 1], s=1.25, bias=bias)

    def check(how):
        torch.cuda.synchronize()
        for i in range(steps):
            want = cg.reference(spec, xs[i], w, s=1.25, bias=bias)
            assert _rel(xs[i + 1], want) < REL_ERR["bf16"], f"{how}: step {i + 1} of {steps}"

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
