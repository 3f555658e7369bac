"""The per-shape GPU tests' specs, shapes and the tiles the plan must pick at them (tests/test_gpu_integration.py).

Each expect_* function takes tile_of(M, N, K=None) -> the tile that runs an M x N (x K) call. The GPU tests pass
the built DispatchKernel's choice; tests/test_dispatch.py passes tiles.shape_tile on any machine, so a plan change that
moves one of these tiles, or a shape its kernel would refuse, fails there before a GPU session spends a call on it (the
GPU suite lost calls to both in sessions 24, 25 and 29).
"""
import dataclasses

import cutlassgen as cg
from cutlassgen import dispatch
from cutlassgen.tiles import WIDE_PINGPONG_INSTEAD_ON, shape_tile


def planned_tile(spec: cg.GemmSpec, M: int, N: int, K: int | None = None):
    """The tile build(spec, shapes=...) runs at M x N x K on this machine's GPU (dispatch.planned_tile; no GPU: the
    CPU checks of these cases)."""
    return dispatch.planned_tile(spec, M, N, K, dispatch.gpu_name(), dispatch.sm_count())


def bf16_bias_gelu(arch: int = 90, name: str = "per_shape_dispatch") -> cg.GemmSpec:
    return cg.GemmSpec(arch=arch, name=name, a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                       d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])


def fp8_scaled(name: str, **tile) -> cg.GemmSpec:
    """fp8 e4m3 with per-row x per-column scales and a bias (the vLLM epilogue)."""
    return cg.GemmSpec(arch=90, name=name, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"),
                       tile=cg.Sm90Tile(**tile), epilogue=[cg.Multiply("per_row", "scale_a", "fp32"),
                                                           cg.Multiply("per_col", "scale_b", "fp32"),
                                                           cg.Add("per_col", "bias", "bf16")])


def int8_dequant(arch: int, name: str) -> cg.GemmSpec:
    return cg.GemmSpec(arch=arch, name=name, a=cg.Operand("int8"), b=cg.Operand("int8", "column"),
                       d=cg.Operand("bf16"),
                       epilogue=[cg.Multiply("per_row", "scale_a", "fp32"), cg.Multiply("per_col", "scale_b", "fp32")])


def tf32_bias(name: str) -> cg.GemmSpec:
    return cg.GemmSpec(arch=90, name=name, a=cg.Operand("fp32"), b=cg.Operand("fp32", "column"), d=cg.Operand("fp32"),
                       epilogue=[cg.Add("per_col", "bias", "fp32")])


# N = 12288: the wide-weight tiles of the M <= 32 (2x1 cluster) and M <= 64 (128x64) buckets; M = 44 at N = 8192: the M
# <= 64 bucket's 128x32 tile multicasting the weights to a ragged second column of tokens; at N = 5000: 64x48 (M = 44)
# and 64x64 (M = 56) tiles in 4x1 clusters, the last cluster's 79th-80th weight tiles partly or wholly past N; M = 40:
# one 40-wide token tile in 4x1 clusters at N = 5000, 2x1 at 8192; M = 600 at N = 12288: the large-M wide-weight 128x128
# pingpong tile, its last row of tiles ragged; M 65-256: the token tiles fitted to M in steps of 16 or 8 (144 with
# 48-wide subtiles, 2x96, 2x128 wide; below N = 4225 two columns under 64-row weight tiles in 1x2 clusters, 2x40 and
# 2x56, 80 wide from there (72 rows at N = 4304), below 4608 2x48, 2x80 and 2x104 / 2x112 in 1x2 clusters (200x3072,
# 216x2560), 2x64 without, and at 193-224 rows three columns without, 3x72 to N = 2816 (200x2304, 206x2816) and 4x56
# to 2048 (216x2048); 16-bit below N = 1025 4-6 narrow columns (88-200 rows at N = 1024), three (four at 113-128) to
# 2048-2560 (N = 1536), the columns of before from there (N = 2304-2816); from
# 4608 on one 96-wide column, and at 113-128 rows to 7167 two 64-row token tiles in a 2x1 cluster under weight tiles
# ceil(N / 64) wide in steps of 8 (120x5000 80, 120x6000 96, 125x7000 112); from N = 4225 to 5632 columns with no
# cluster under 128-row weight tiles, two 56-wide at 97-112 rows (100x4304, 110x5600), three 48-, 56- and 64-wide at
# 129-192 (140x5000, 150x4400, 150x5000, 170x4400, 190x5600), three 72- or 80-wide at 193-224 (200x4400, 220x5000); two
# columns under one 128-row weight tile in a 1x2 cluster from there, 56 wide at 110 rows, 72 at 140, 80 at 150, 88 at
# 170, 96 at 180, 112 at 210, with subtiles as wide as a column) and 128x128 cooperative, at ragged M and N; one column
# of all the tokens under 128-row weight tiles in 4x1 clusters (80 to 256 wide), from N = 12288 at 65-128 rows and from
# 12673 above, the last cluster's weight tiles partly or wholly past N; from N = 8449 two token columns under 192-row
# pingpong weight tiles in 1x2 clusters, to 12287 at 65-128 rows (40 to 64 wide, at N = 9304 the last tile 88 rows deep,
# at 11000 56) and to 12672 at 129-224 (80 to 104 wide, at N = 12520 40 rows deep); in that band unswapped token tiles
# in 2x1 clusters under weight tiles N / 64 wide (160 at N = 9304, 144 at 8704, 192 at 12520; ragged last ones): 128-row
# cooperative at 225-256 rows and at 209-224 to 9216, 64-row pingpong at 97-128 to 10240; with no cluster, three 64-row
# pingpong token tiles under 224-wide weight tiles at 161-192 rows to N = 9856 (170x9304; 150x8704, where they ran
# before runs 133-135, now takes the two 80-wide columns under 192-row weight tiles) and one 192-row one under 80-wide
# weight tiles at 177-192 to 10560 (185x10008, the last weight tile 8 wide)
BF16_SHAPES = ([(M, 1024, 512) for M in (8, 24, 48, 72, 88, 100, 120, 136, 150, 180, 200, 240, 1000)]
               + [(M, 1536, 512) for M in (88, 100, 120, 136, 150, 180)]
               + [(100, 2304, 512), (120, 2304, 512), (200, 2304, 512), (88, 2560, 512), (150, 2560, 512),
                  (180, 2816, 512)]
               + [(M, 12288, 512) for M in (24, 48, 72)]
               + [(M, 12520, 520) for M in (100, 150, 170, 200, 235, 250)]
               + [(M, 13000, 520) for M in (150, 200, 250)] + [(88, 9304, 520), (120, 9304, 520), (240, 9304, 520)]
               + [(120, 11000, 520), (216, 8704, 520), (150, 8704, 520), (170, 9304, 520), (185, 10008, 520),
                  (166, 9216, 520)]
               + [(72, 9304, 520), (104, 11000, 520), (72, 4304, 512), (100, 4304, 512)]
               + [(40, 8192, 512), (40, 5000, 512), (44, 8192, 512), (44, 5000, 512), (56, 5000, 512),
                  (110, 8192, 512), (140, 8192, 512), (180, 8192, 512), (210, 6000, 512), (240, 5000, 512),
                  (640, 12288, 512), (150, 7200, 520), (88, 5000, 512), (120, 5000, 512), (150, 5000, 512),
                  (120, 4400, 512), (140, 5000, 512), (170, 4400, 512), (185, 6000, 512), (235, 4400, 512),
                  (150, 4400, 512), (250, 4400, 512), (90, 4400, 512), (90, 7000, 512), (250, 5600, 512),
                  (240, 6000, 512), (250, 6000, 512), (200, 4400, 512), (220, 5000, 512), (110, 5600, 512),
                  (190, 5600, 512), (170, 6000, 512), (216, 2048, 512), (120, 6000, 512), (125, 7000, 512),
                  (200, 3072, 512), (216, 2560, 512), (206, 2816, 520), (72, 3072, 512), (88, 2816, 512),
                  (100, 4096, 512), (136, 3072, 512), (150, 2816, 512), (116, 1280, 512), (164, 2048, 512),
                  (164, 1024, 512), (164, 4400, 512), (700, 14296, 512), (768, 14296, 512),
                  (2000, 14296, 512)])


def expect_bf16_tiles(tile_of) -> None:
    assert tile_of(24, 12288).cluster == (2, 1, 1) and tile_of(48, 12288).cta[1] == 64
    assert tile_of(44, 8192).cta[:2] == (128, 32) and tile_of(44, 8192).cluster == (1, 2, 1)
    assert tile_of(48, 1024).cta[:2] == (64, 32) and tile_of(48, 1024).cluster == (1, 2, 1)
    assert tile_of(44, 5000).cta[:2] == (64, 48) and tile_of(44, 5000).cluster == (4, 1, 1)
    assert tile_of(40, 5000).cta[:2] == (64, 40) and tile_of(40, 5000).cluster == (4, 1, 1)
    assert tile_of(40, 8192).cta[:2] == (64, 40) and tile_of(40, 8192).cluster == (2, 1, 1)
    assert tile_of(56, 5000).cta[:2] == (64, 64) and tile_of(56, 5000).cluster == (4, 1, 1)
    # 128x128 pingpong, with strips of 4 on the GPU models that run those (tiles.instead_on)
    assert tile_of(640, 12288).mainloop == "pingpong" and tile_of(640, 12288).cta[:2] == (128, 128)
    model = dispatch.model_of(WIDE_PINGPONG_INSTEAD_ON, dispatch.gpu_name())
    assert tile_of(640, 12288).swizzle == ("auto" if model is None else WIDE_PINGPONG_INSTEAD_ON[model]["swizzle"])
    # 128x224 cooperative in its place (tiles.wave_fill_choice) where M is ragged in 128-row tiles (700 and 2000 rows),
    # on any GPU, and on 132 SMs where its tiles fill the waves better (768x14296: 5.09 waves of 128x128 tiles, 2.91
    # of 128x224); 640x12288 fills 3.64 of 128x128. Without a GPU (no SM count) the plan's tile.
    sms = dispatch.sm_count()
    wide = [(t.cta[:2], t.mainloop) for t in (tile_of(M, 14296) for M in (700, 768, 2000))]
    if sms is None:
        assert wide == [((128, 128), "pingpong")] * 3
    else:
        assert wide[0] == wide[2] == ((128, 224), "cooperative")
        if sms == 132:  # another SM count: the rule's own test (tests/test_dispatch.py) covers 768 rows
            assert wide[1] == ((128, 224), "cooperative")
    # 16-bit at 81-208 rows: 4-6 narrow token columns below N = 1025, from there three (four at 113-128) to 2048-2560
    # (runs 115-118), then the buckets' two (three at 193-208) columns
    assert [tile_of(M, 1024).cta[:2] for M in (72, 88, 100, 120, 136, 150, 180, 200, 240)] == [
        (64, 40), (64, 24), (64, 32), (64, 32), (64, 24), (64, 40), (64, 32), (64, 40), (64, 128)]
    assert [tile_of(M, 1536).cta[:2] for M in (88, 100, 120, 136, 150, 180)] == [
        (64, 32), (64, 40), (64, 40), (64, 48), (64, 56), (64, 64)]
    # where the last token column fills better (runs 126-128, tiles.FILL_BUCKETS): three 40-wide columns at 113-120
    # rows from N = 1025, at 161-168 seven 24-wide below 1025 and three 56-wide from there, under 128-row weight tiles
    # from N = 4225
    assert [tile_of(M, N).cta[:2] for M, N in ((116, 1280), (164, 2048), (164, 1024), (164, 4400))] == [
        (64, 40), (64, 56), (64, 24), (128, 56)]
    after = ((100, 2304), (120, 2304), (200, 2304), (88, 2560), (150, 2560), (180, 2816))
    assert [tile_of(M, N).cta[:2] for M, N in after] == [(64, 56), (64, 64), (64, 72), (64, 48), (64, 80), (64, 96)]
    # 16-bit at 65-160 rows: the two columns with no cluster below N = 2561, in a 1x2 cluster from there (runs 112-113)
    assert [tile_of(M, N).cluster for M, N in [(M, N) for M in (72, 88, 100, 120, 136, 150, 180, 200)
                                                for N in (1024, 1536)] + list(after)] == [(1, 1, 1)] * 22
    assert [(tile_of(M, N).cta[1], tile_of(M, N).cluster) for M, N in ((72, 3072), (88, 2816), (100, 4096),
                                                                        (136, 3072), (150, 2816))] == [
        (40, (1, 2, 1)), (48, (1, 2, 1)), (56, (1, 2, 1)), (72, (1, 2, 1)), (80, (1, 2, 1))]
    # 16-bit at 193-224 rows below N = 4225, 64 elements of K (runs 98-99): no-cluster columns under 64-row weight
    # tiles, three 72 wide to N = 2816 (six 40 wide below 1025), four 56 wide to 2048 (runs 108, 115-116), two
    # columns in a 1x2 cluster above
    assert [(tile_of(M, N).cta, tile_of(M, N).cluster) for M, N in ((200, 2304), (206, 2816), (216, 2048),
                                                                      (200, 3072), (216, 2560))] == [
        ((64, 72, 64), (1, 1, 1)), ((64, 72, 64), (1, 1, 1)), ((64, 56, 64), (1, 1, 1)), ((64, 104, 64), (1, 2, 1)),
        ((64, 112, 64), (1, 2, 1))]
    # the unswapped tiles at 97-256 rows load weights over 36 MiB EVICT_FIRST (tiles.WEIGHTS_FIRST_ROWS): none of
    # these shapes' (13 MiB at most)
    assert not any(tile_of(M, N, K).weights_evict_first for M, N, K in BF16_SHAPES)
    assert [tile_of(M, 4304).cta[:2] for M in (72, 100)] == [(64, 80), (128, 56)]
    assert [tile_of(M, 5000).cta[:2] for M in (88, 120, 150)] == [(64, 96), (64, 80), (128, 56)]
    # from N = 4225, 16-bit: two 64-row token tiles in a 2x1 cluster under 80-wide weight tiles at 113-128 rows (to
    # MID_N), swapped token columns under 128-row weight tiles, no cluster, to N = 5633: two 56-wide at 97-112 rows,
    # three 48-, 56-, 64-, 72-, 80- and 88-wide at 129-256 (then two columns in a 1x2 cluster at 97-240, 120 wide at
    # 225-240 since run 155, and 128x128 at 241-256), the 96-wide column in a 4x1 cluster at 81-96 (to LARGE_N)
    no_cluster = ((1, 1, 1), True, "cooperative")
    # 113-128 rows, 16-bit, from MID_N to LARGE_N: the same form, the weight tile ceil(N / 64) wide in steps of 8
    for M, N, form in ((120, 4400, ((64, 80), (2, 1, 1), False, "pingpong")),
                       (120, 5000, ((64, 80), (2, 1, 1), False, "pingpong")),
                       (120, 6000, ((64, 96), (2, 1, 1), False, "pingpong")),
                       (125, 7000, ((64, 112), (2, 1, 1), False, "pingpong")),
                       (100, 4304, ((128, 56), *no_cluster)), (110, 5600, ((128, 56), *no_cluster)),
                       (140, 5000, ((128, 48), *no_cluster)), (150, 4400, ((128, 56), *no_cluster)),
                       (150, 5000, ((128, 56), *no_cluster)), (170, 4400, ((128, 64), *no_cluster)),
                       (190, 5600, ((128, 64), *no_cluster)),
                       (200, 4400, ((128, 72), (1, 1, 1), True, "cooperative")),
                       (220, 5000, ((128, 80), (1, 1, 1), True, "cooperative")),
                       (235, 4400, ((128, 80), (1, 1, 1), True, "cooperative")),
                       (250, 4400, ((128, 88), (1, 1, 1), True, "cooperative")),
                       (240, 5000, ((128, 80), (1, 1, 1), True, "cooperative")),
                       (250, 5600, ((128, 88), (1, 1, 1), True, "cooperative")),
                       (240, 6000, ((128, 120), (1, 2, 1), True, "cooperative")),
                       (250, 6000, ((128, 128), (1, 1, 1), False, "cooperative")),
                       (90, 4400, ((64, 96), (4, 1, 1), True, "pingpong")),
                       (88, 5000, ((64, 96), (4, 1, 1), True, "pingpong")),
                       (90, 7000, ((64, 96), (4, 1, 1), True, "pingpong"))):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == form, M
    for M, N, width in ((72, 12288, 80), (100, 12520, 112), (150, 13000, 160), (200, 13000, 208), (250, 13000, 256)):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == ((128, width), (4, 1, 1), True,
                                                                             "cooperative"), M
    for M, N, width in ((72, 9304, 40), (88, 9304, 48), (104, 11000, 56), (120, 11000, 64), (150, 12520, 80),
                        (150, 8704, 80), (170, 12520, 88), (166, 9216, 88), (200, 12520, 104)):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == ((192, width), (1, 2, 1), True,
                                                                             "pingpong"), M
    for M, N, cta, mainloop in ((240, 9304, (128, 160), "cooperative"), (235, 12520, (128, 192), "cooperative"),
                                (250, 12520, (128, 192), "cooperative"), (216, 8704, (128, 144), "cooperative"),
                                (120, 9304, (64, 160), "pingpong")):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (2, 1, 1), False, mainloop), M
    for M, N, cta in ((170, 9304, (64, 224)), (185, 10008, (192, 80))):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (1, 1, 1), False, "pingpong"), M
    for M, N, cta in ((110, 8192, (128, 56)), (140, 8192, (128, 72)), (150, 7200, (128, 80)), (180, 8192, (128, 96)),
                      (210, 6000, (128, 112)), (170, 6000, (128, 88)), (185, 6000, (128, 96))):
        tile = tile_of(M, N)
        assert (tile.cta[:2], tile.cluster, tile.swap_ab, tile.mainloop) == (cta, (1, 2, 1), True, "cooperative"), M


FP8_NARROW_SHAPES = [(88, 1008, 512), (100, 1040, 512), (120, 1536, 512), (136, 2304, 512), (150, 2048, 512),
                     (184, 2304, 512), (200, 1008, 512), (200, 2048, 512), (216, 1040, 512), (166, 1536, 512),
                     (116, 2048, 512)]
FP8_SHAPES = ([(72, 1040, 512), (200, 2832, 512), (240, 1040, 512)] + [(M, 2576, 512) for M in (88, 100, 120, 136, 150)]
              + [(110, 8192, 512), (140, 8192, 512)]
              + [(136, 12520, 512), (200, 12520, 512), (250, 12520, 512), (110, 9304, 512), (110, 11000, 512),
                 (216, 8704, 512)] + [(140, 5000, 512), (170, 4400, 512), (185, 6000, 512), (240, 4400, 512),
                                      (250, 4400, 512), (150, 5000, 512), (240, 5000, 512), (200, 4400, 512),
                                      (220, 5000, 512), (170, 6000, 512), (164, 4400, 512)] + FP8_NARROW_SHAPES)


def expect_fp8_tiles(tile_of) -> None:
    # from N = 12288 one column under 128-row weight tiles in 4x1 clusters (the promotion buffer leaves room for the
    # 192-row tiles of 8449-12672 only under 64 tokens, at 65-128 rows, from 10241 at 97-128); in that band unswapped
    # token tiles under weight tiles N / 64 wide in 2x1 clusters: 128-row ones at 225-256 rows and at 209-224 to 9216,
    # 64-row ones at 97-128 to 10240; two columns in steps of 8 at 65-80 and 97-112 rows below N = 4225 and under the
    # 128-row weight tiles (validate.n_step_of), 56 wide under the 192-row ones at 110 rows; from N = 4225 three 48-,
    # 56- and 64-wide token columns under 128-row weight tiles, no cluster, at 140, 150 and 170 rows to N = 5633 (run
    # 96), 56-wide at 161-168 (164x4400, run 130), two 88- and 96-wide ones in 1x2 clusters from there (170x6000,
    # 185x6000; run 87); at 225-256 rows three 80- or 88-wide token columns, no cluster, to MID_N (runs 89-91), from
    # there two swapped 120-wide ones in a 1x2 cluster at 225-240 (runs 157-158) and 128x128 at 241-256; at 193-224
    # three 72- or 80-wide ones, no cluster, to N = 5633 (run 94); below that tiles.NARROW_COLUMNS' (runs 120-121),
    # then at 193-224 rows three 72-wide or four 56-wide no-cluster columns (run 122), after which the buckets' own
    # tiles (N = 2576, 200x2832) and the 65-80 and 225-256-row ones (N = 1040)
    assert [tile_of(M, N).cta for M, N, _ in FP8_SHAPES] == [
        (64, 40, 128), (64, 112, 128), (64, 128, 128), (64, 48, 128), (64, 56, 128), (64, 64, 128), (64, 72, 128),
        (64, 80, 128), (128, 56, 128), (128, 72, 128), (128, 144, 128), (128, 208, 128), (128, 192, 128),
        (64, 160, 128), (192, 56, 128), (128, 144, 128), (128, 48, 128), (128, 64, 128), (128, 96, 128),
        (128, 80, 128), (128, 88, 128), (128, 56, 128), (128, 120, 128), (128, 72, 128), (128, 80, 128),
        (128, 88, 128), (128, 56, 128)] + [(64, width, 128) for width in (24, 40, 32, 48, 56, 64, 40, 72, 56, 56, 32)]
    assert [(tile_of(M, N).cluster, tile_of(M, N).swap_ab)
            for M, N in ((240, 4400), (250, 4400), (150, 5000), (200, 4400), (220, 5000), (140, 5000), (170, 4400),
                         (170, 6000), (185, 6000), (240, 5000))] == ([((1, 1, 1), True)] * 7
                                                                      + [((1, 2, 1), True)] * 3)
    # the narrow columns run with no cluster; at 129-144 rows with the 144-wide column's 64x48 subtile
    assert {(tile_of(M, N).cluster, tile_of(M, N).swap_ab) for M, N, _ in FP8_NARROW_SHAPES} == {((1, 1, 1), True)}
    assert tile_of(136, 2304).epilogue_tile == (64, 48)
    # weights over 36 MiB load EVICT_FIRST on unswapped tiles at 97-256 rows (tiles.WEIGHTS_FIRST_ROWS): none of these
    # shapes' (7 MiB at most)
    assert not any(tile_of(M, N, K).weights_evict_first for M, N, K in FP8_SHAPES)


FP8_FAST_SHAPES = [(136, 9304, 512), (141, 12520, 512), (170, 10248, 512), (163, 11000, 512), (88, 1008, 512),
                   (136, 2304, 512), (150, 2048, 512), (166, 9216, 512)]


def expect_fp8_fast_tiles(tile_of) -> None:
    # 2 x 72 under 192-row weight tiles at 129-144 rows, 2 x 88 at 161-176, full-width subtiles; below N = 2561
    # tiles.NARROW_COLUMNS' (4 x 24 at 88x1008, 3 x 48 at 136x2304 with the 144-wide column's subtile, 3 x 56);
    # 2 x 88 at 166x9216 too, inside the three 64-row token tiles' band (tiles.SHORT_LAST_WEIGHT_TILE_N)
    assert [(tile_of(M, N).cta, tile_of(M, N).epilogue_tile) for M, N, _ in FP8_FAST_SHAPES] == [
        ((192, 72, 128), (64, 72)), ((192, 72, 128), (64, 72)), ((192, 88, 128), (64, 88)), ((192, 88, 128), (64, 88)),
        ((64, 24, 128), "auto"), ((64, 48, 128), (64, 48)), ((64, 56, 128), "auto"), ((192, 88, 128), (64, 88))]


# Above 512 rows fp8 fast runs 128x128x128 pingpong (its default; at N >= 12288 the plan's tile, the same one named),
# and where M leaves its last row of tiles part-filled the twin that loads that row in a box fitted to it
# (tiles.fitted_twin): ragged 700 and 513 rows at N below 12288, 2000 at 14336; 768 and 1536 rows fill their tiles.
FP8_FAST_RAGGED_SHAPES = [(700, 8192, 512), (513, 4096, 1024), (2000, 14336, 512), (768, 8192, 512),
                          (1536, 14336, 512)]


def expect_fp8_fast_ragged_tiles(tile_of) -> None:
    tiles = [tile_of(M, N) for M, N, _ in FP8_FAST_RAGGED_SHAPES]
    assert {(t.cta, t.cluster, t.mainloop) for t in tiles if t.cta != "auto"} == {
        ((128, 128, 128), (1, 1, 1), "pingpong")}
    # ragged M runs the twin only where the GPU is seen (an SM count: dispatch.sm_count)
    twin = dispatch.sm_count() is not None
    assert [t.fitted_tail for t in tiles] == [twin, twin, twin, False, False]


SM90_INT8_TF32_SHAPES = [(M, 1040, 528) for M in (8, 48, 100, 150, 200)] + [(136, 12520, 528), (250, 12520, 528),
                                                                            (110, 9304, 528), (180, 9304, 528),
                                                                            (140, 5000, 528), (185, 5000, 528),
                                                                            (240, 4400, 528), (200, 4400, 528),
                                                                            (150, 5000, 528)]

# int8 only: tiles.INT8_NARROW_COLUMNS at 81-224 rows below N = 2561, 32 to 80 wide with no cluster
SM90_INT8_NARROW_SHAPES = [(88, 2560, 528), (104, 1008, 528), (120, 2048, 528), (136, 1536, 528),
                           (140, 2048, 528), (152, 1536, 528), (168, 2304, 528), (208, 1536, 528), (216, 2048, 528)]


def expect_sm90_int8_or_tf32_tiles(tile_of, operands: str) -> None:
    # tf32 takes no token tile off wgmma's base N (validation), so 128x128 stands in for 100-200 rows (128 bytes of
    # K: 128 int8 or 32 fp32 elements). At N = 12520: int8 two columns under 192-row pingpong weight tiles in 1x2
    # clusters (136 rows) and unswapped 128x192 tiles in 2x1 clusters (250), tf32 (which takes neither) one column
    # under 128-row cooperative weight tiles in 4x1 clusters; at 110x9304 int8 two 64-row token tiles in 2x1 clusters
    # under 160-wide weight tiles, tf32 two swapped token columns under 128-row weight tiles in a 1x2 cluster; at
    # 180x9304 int8 three 64-row token tiles under 224-wide weight tiles, no cluster, tf32 again two swapped columns
    # in a 1x2 cluster. From N = 4225 int8 follows fp8's tiles of runs 87-96 (not timed with int8): three 48- and
    # 64-wide token columns under 128-row weight tiles, no cluster, at 140 and 185 rows, two 80-wide ones in a 1x2
    # cluster at 150 (fp8's 56 is off its steps of 16), three 80-wide columns (no cluster) at 200 and 240; tf32
    # keeps its tiles there. Below N = 2561 int8's narrow columns (tiles.INT8_NARROW_COLUMNS, no cluster): at
    # N = 1040 two 64-wide at 100 rows, five 32-wide at 150, five 48-wide at 200; at SM90_INT8_NARROW_SHAPES 32 wide
    # at 88-152 rows but 140x2048 (48, with the 144-wide column's 48-wide subtiles), 64 at 168x2304, 48 at 208x1536,
    # 80 at 216x2048
    if operands == "int8":
        k_main = 128
        assert [(tile_of(M, N).cta, tile_of(M, N).cluster) for M, N, _ in SM90_INT8_NARROW_SHAPES] == [
            ((64, width, 128), (1, 1, 1)) for width in (32, 32, 32, 32, 48, 32, 64, 48, 80)]
        assert tile_of(140, 2048).epilogue_tile == (64, 48)
        narrow, wide = [(64, 64), (64, 32), (64, 48)], [(192, 80), (128, 192), (64, 160), (64, 224), (128, 48),
                                                          (128, 64), (128, 80), (128, 80), (128, 80)]
        forms = {(136, 12520): ((1, 2, 1), True, "pingpong"), (250, 12520): ((2, 1, 1), False, "cooperative"),
                 (110, 9304): ((2, 1, 1), False, "pingpong"), (180, 9304): ((1, 1, 1), False, "pingpong"),
                 (140, 5000): ((1, 1, 1), True, "cooperative"), (185, 5000): ((1, 1, 1), True, "cooperative"),
                 (240, 4400): ((1, 1, 1), True, "cooperative"), (200, 4400): ((1, 1, 1), True, "cooperative"),
                 (150, 5000): ((1, 2, 1), True, "cooperative")}
    else:
        k_main = 32
        narrow, wide = [(128, 128)] * 3, [(128, 128), (128, 256), (128, 64), (128, 96), (128, 128), (64, 96),
                                          (64, 128), (128, 128), (128, 128)]
        forms = {(250, 12520): ((4, 1, 1), True, "cooperative"), (110, 9304): ((1, 2, 1), True, "cooperative"),
                 (180, 9304): ((1, 2, 1), True, "cooperative")}
    assert [tile_of(M, N).cta[:2] for M, N, _ in SM90_INT8_TF32_SHAPES] == [(64, 16), (64, 32), *narrow, *wide]
    for (M, N), form in forms.items():
        tile = tile_of(M, N)
        assert (tile.cta[2], tile.cluster, tile.swap_ab, tile.mainloop) == (k_main, *form), M


SM80_BF16_SHAPES = [(M, 1000, 520) for M in (5, 40, 100, 200, 700)] + [(600, 4104, 520)]


def expect_sm80_bf16_tiles(tile_of, spec: cg.GemmSpec) -> None:
    assert [tile_of(M, N).threadblock[:2] for M, N, _ in SM80_BF16_SHAPES if M != 700] == [
        (32, 64), (64, 64), (64, 128), (128, 128), (128, 256)]
    assert tile_of(700, 1000) == spec.tile  # above 512 rows, N below 4096: the default


SM80_INT8_SHAPES = [(M, 1000, 528) for M in (5, 40, 100, 200)] + [(600, 4104, 528)]  # K: int8's 16-byte alignment


def expect_sm80_int8_tiles(tile_of) -> None:
    assert [tile_of(M, N).threadblock for M, N, _ in SM80_INT8_SHAPES] == [
        (32, 64, 128), (64, 64, 128), (64, 128, 128), (128, 128, 64), (128, 256, 64)]


# Exact fp8 by K: the 128x128 cooperative tiles (the default above 256 rows, and at 241-256 rows from N = 4608) with
# Sm90Tile.opaque_pipeline up to K = 2048 (tiles.OPAQUE_PIPELINE_MAX_K), without it from there; at 250 rows both K
# classes, so that the deeper one finds the bucket's own tile. Above tiles.EXACT_WIDE_M rows from N = 12288, the
# 128x192 cooperative tile with 128x64 epilogue subtiles at any K; 2100x12304 leaves both its last row of tiles and
# its last column (16 of 192) mostly past the edge.
FP8_DEEP_SHAPES = [(600, 2000, 1024), (300, 2000, 512), (1000, 3000, 4096), (250, 6000, 2048), (250, 6000, 4096),
                   (2100, 12304, 4096)]


def expect_fp8_deep_tiles(tile_of, spec: cg.GemmSpec) -> None:
    coop128 = ((128, 128, 128), (1, 1, 1), "cooperative", False)
    for M, N, K in FP8_DEEP_SHAPES + [(600, 2000, 2064)]:
        tile = tile_of(M, N, K)
        deep = K <= 2048
        if M > 2048 and N >= 12288:
            assert (tile.cta, tile.cluster, tile.mainloop, tile.epilogue_tile, tile.opaque_pipeline) == (
                (128, 192, 128), (1, 1, 1), "cooperative", (128, 64), False), (M, N, K)
            continue
        if M > 256 and not deep:
            assert tile == spec.tile, (M, N, K)  # the default kernel
            continue
        # weights over 36 MiB EVICT_FIRST at 97-256 rows (tiles.WEIGHTS_FIRST_ROWS), but not on the hidden-loop tile:
        # none of these shapes' (23 MiB at most)
        fields = (tile.cta, tile.cluster, tile.mainloop, tile.swap_ab, tile.opaque_pipeline, tile.weights_evict_first)
        assert fields == (*coop128, deep, False), (M, N, K)


# Where the weights take over 36 MiB, the swapped tiles and the unswapped ones at 97-256 rows load them EVICT_FIRST
# (Sm90Tile.weights_evict_first, tiles.WEIGHTS_FIRST_ROWS): the 128-row cooperative tiles (128x192 / 128x160 / 128x144
# in a 2x1 cluster, 128x128; 128x64 at 113-128 rows), the 64-row pingpong ones at 97-128 rows (64x160 / 64x144 /
# 64x96 / 64x80 in a 2x1 cluster), 64x224 at 161-192 and 192x80 at 177-192; in bf16, exact and fast fp8 and int8.
# Ragged M, N and K (the last token tile, column and k tile partly past the edge), each just over 40 MiB, and the last
# of each case at 36-40 MiB (over tiles.WEIGHTS_FIRST_MIN_BYTES since session 93).
FP8_FAST_WEIGHTS_FIRST_SHAPES = [(256, 8192, 5200), (243, 6000, 7200), (250, 4608, 9200), (120, 10000, 4400),
                                 (184, 9304, 4800), (128, 6000, 7408), (128, 10000, 3904)]
FP8_WEIGHTS_FIRST_SHAPES = [(250, 12520, 3600), (216, 8704, 5200), (250, 6000, 7200), (110, 9304, 4608),
                            (110, 10000, 3904)]
BF16_WEIGHTS_FIRST_SHAPES = [(235, 12520, 1800), (216, 8704, 2504), (250, 6000, 3600), (120, 10000, 2200),
                             (184, 10240, 2104), (176, 9304, 2304), (120, 5000, 4000)]
INT8_WEIGHTS_FIRST_SHAPES = [(250, 12520, 3600), (240, 8192, 5312), (120, 10000, 4400), (128, 6000, 7408),
                             (184, 10240, 4208), (120, 10000, 3904)]
# The swapped tiles take it alike, at any row count (session 82): decode 64-row pingpong tiles in 4x1 and 2x1 clusters,
# 64x16, 64x112 pingpong at 97-112 rows, the 128-row cooperative columns in 1x2 clusters, 192x72 pingpong; bf16 and
# fast fp8, each just over 40 MiB but the last of each at 36-40 MiB.
BF16_SWAPPED_WEIGHTS_FIRST_SHAPES = [(60, 5200, 4200), (16, 8200, 2704), (160, 6144, 3600), (100, 6000, 3600),
                                     (56, 5000, 4000)]
FP8_FAST_SWAPPED_WEIGHTS_FIRST_SHAPES = [(64, 10240, 4160), (40, 8192, 5408), (136, 9304, 4608), (40, 9800, 4000)]
COOPERATIVE, PINGPONG = "cooperative", "pingpong"


def expect_weights_first_tiles(shapes: list, tiles: list, swapped: bool = False):
    """expect(tile_of) of a weights-first case: at each of shapes the tile (swapped or not) of CTA (M, N) and
    mainloop tiles[i] with weights_evict_first."""
    def expect(tile_of) -> None:
        for (M, N, K), (cta, mainloop) in zip(shapes, tiles, strict=True):
            tile = tile_of(M, N, K)
            assert (tile.cta[:2], tile.mainloop, tile.swap_ab, tile.weights_evict_first) == (
                cta, mainloop, swapped, True), (M, N, K)
    return expect


def tile_of_dispatch(k, shapes) -> callable:
    """tile_of(M, N, K=None) for a case's expect, over the dispatching kernel k built for shapes: the tile k.choose
    picks, where K is not given at the K of the declared shape of that M and N, else of that M (an expect asks of
    N that no shape declares), as a call of that shape would (K unknown is taken as deep: K classes and weights
    classes (tiles.WEIGHTS_FIRST_MIN_BYTES) skip it)."""
    declared = {(M, N): K for M, N, K in shapes}
    of_m = {M: K for M, _, K in reversed(shapes)}
    return lambda M, N, K=None: k.choose(M, N, declared.get((M, N), of_m.get(M)) if K is None else K).spec.tile


def weights_first_twins(spec: cg.GemmSpec, shapes: list) -> list:
    """The tiles spec's plan runs at shapes, each without weights_evict_first (as it renders but for the loads' L2
    policy): what a weights-first case compares its kernels' output with, bit for bit."""
    tiles = {dataclasses.replace(shape_tile(spec, *shape), weights_evict_first=False): None for shape in shapes}
    return [spec.replace(tile=tile) for tile in tiles]


def cases() -> dict:
    """name -> (spec, shapes, expect(tile_of)) for every per-shape GPU test, as tests/test_dispatch.py checks them."""
    sm80_bf16 = bf16_bias_gelu(arch=80, name="sm80_per_shape_dispatch")
    fp8_deep = fp8_scaled("fp8_deep_dispatch")
    return {
        "bf16": (bf16_bias_gelu(), BF16_SHAPES, expect_bf16_tiles),
        "fp8": (fp8_scaled("fp8_per_shape_dispatch"), FP8_SHAPES, expect_fp8_tiles),
        "fp8_deep": (fp8_deep, FP8_DEEP_SHAPES, lambda tile_of: expect_fp8_deep_tiles(tile_of, fp8_deep)),
        "fp8_fast": (fp8_scaled("fp8_fast_narrow_token_tiles", fp8_fast_accum=True), FP8_FAST_SHAPES,
                     expect_fp8_fast_tiles),
        "fp8_fast_ragged": (fp8_scaled("fp8_fast_ragged_dispatch", fp8_fast_accum=True), FP8_FAST_RAGGED_SHAPES,
                            expect_fp8_fast_ragged_tiles),
        "fp8_fast_weights_first": (
            fp8_scaled("fp8_fast_weights_first", fp8_fast_accum=True), FP8_FAST_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(FP8_FAST_WEIGHTS_FIRST_SHAPES, [((128, 128), COOPERATIVE)] * 3 + [
                ((64, 160), PINGPONG), ((64, 224), PINGPONG), ((128, 64), COOPERATIVE), ((64, 160), PINGPONG)])),
        "fp8_weights_first": (
            fp8_scaled("fp8_per_shape_dispatch"), FP8_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(FP8_WEIGHTS_FIRST_SHAPES, [((128, 192), COOPERATIVE), ((128, 144), COOPERATIVE),
                                                                  ((128, 128), COOPERATIVE), ((64, 160), PINGPONG),
                                                                  ((64, 160), PINGPONG)])),
        "bf16_weights_first": (
            bf16_bias_gelu(), BF16_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(BF16_WEIGHTS_FIRST_SHAPES, [
                ((128, 192), COOPERATIVE), ((128, 144), COOPERATIVE), ((128, 128), COOPERATIVE),
                ((64, 160), PINGPONG), ((192, 80), PINGPONG), ((64, 224), PINGPONG), ((64, 80), PINGPONG)])),
        "int8_weights_first": (
            int8_dequant(90, "sm90_int8_per_shape_dispatch"), INT8_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(INT8_WEIGHTS_FIRST_SHAPES, [
                ((128, 192), COOPERATIVE), ((128, 128), COOPERATIVE), ((64, 160), PINGPONG),
                ((128, 64), COOPERATIVE), ((192, 80), PINGPONG), ((64, 160), PINGPONG)])),
        "bf16_swapped_weights_first": (
            bf16_bias_gelu(), BF16_SWAPPED_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(BF16_SWAPPED_WEIGHTS_FIRST_SHAPES, [
                ((64, 64), PINGPONG), ((64, 16), PINGPONG), ((128, 80), COOPERATIVE), ((64, 112), PINGPONG),
                ((64, 64), PINGPONG)],
                swapped=True)),
        "fp8_fast_swapped_weights_first": (
            fp8_scaled("fp8_fast_weights_first", fp8_fast_accum=True), FP8_FAST_SWAPPED_WEIGHTS_FIRST_SHAPES,
            expect_weights_first_tiles(FP8_FAST_SWAPPED_WEIGHTS_FIRST_SHAPES, [
                ((128, 32), COOPERATIVE), ((64, 40), PINGPONG), ((192, 72), PINGPONG), ((64, 40), PINGPONG)],
                swapped=True)),
        "sm90_int8": (int8_dequant(90, "sm90_int8_per_shape_dispatch"),
                      SM90_INT8_TF32_SHAPES + SM90_INT8_NARROW_SHAPES,
                      lambda tile_of: expect_sm90_int8_or_tf32_tiles(tile_of, "int8")),
        "sm90_tf32": (tf32_bias("sm90_tf32_per_shape_dispatch"), SM90_INT8_TF32_SHAPES,
                      lambda tile_of: expect_sm90_int8_or_tf32_tiles(tile_of, "tf32")),
        "sm80_bf16": (sm80_bf16, SM80_BF16_SHAPES, lambda tile_of: expect_sm80_bf16_tiles(tile_of, sm80_bf16)),
        "sm80_int8": (int8_dequant(80, "sm80_int8_per_shape_dispatch"), SM80_INT8_SHAPES, expect_sm80_int8_tiles),
    }


def planned_specs(spec: cg.GemmSpec, shapes) -> list:
    """What build(spec, shapes=shapes) compiles: the spec and its per-shape plan's variants."""
    return [spec, *dispatch.heuristic_variants(spec, dispatch.heuristic_record(spec, shapes))]
