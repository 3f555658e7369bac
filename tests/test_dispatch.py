"""Tuned dispatch without a GPU: records, buckets, the choice by M, and the fallback on another GPU."""
import dataclasses
import inspect
import json
import math
import pathlib
import types

import pytest

import cutlassgen as cg
from cutlassgen import dispatch

import per_shape_cases

SPEC = cg.GemmSpec(arch=90, name="dispatch_unit", a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"),
                   d=cg.Operand("bf16"), epilogue=[cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")])
SMALL = cg.Sm90Tile(cta=(64, 128, 64), cluster=(1, 1, 1), mainloop="pingpong")
LARGE = cg.Sm90Tile(cta=(128, 256, 64), cluster=(2, 1, 1), mainloop="cooperative")


def _winners():
    return [{"shape": [4096, 8192, 8192], "tile": dispatch.tile_to_dict(LARGE), "label": "large", "tflops": 690.0,
             "default_tflops": 680.0},
            {"shape": [32, 8192, 8192], "tile": dispatch.tile_to_dict(SMALL), "label": "small", "tflops": 60.0,
             "default_tflops": 50.0}]


def _fake_kernel(spec):
    return types.SimpleNamespace(spec=spec, target_arch=90, calls=[])


@pytest.fixture(autouse=True)
def _no_torch_op(monkeypatch):
    """A DispatchKernel registers its torch op when made; the fake kernels here have none to build it from."""
    monkeypatch.setattr(dispatch.DispatchKernel, "op", None)


def _fake_dispatch(spec, rec):
    """What build(spec, shapes=...) returns for the heuristic record rec, over fake kernels (nothing compiled)."""
    return dispatch.with_heuristic(_fake_kernel(spec), rec,
                                   [_fake_kernel(v) for v in dispatch.heuristic_variants(spec, rec)])


def test_tile_dict_round_trip_and_auto_detection():
    for tile in (SMALL, LARGE, cg.Sm80Tile(threadblock=(128, 64, 32), warp=(64, 32, 32), stages=3)):
        assert dispatch.tile_from_dict(json.loads(json.dumps(dispatch.tile_to_dict(tile)))) == tile
    assert dispatch.tile_is_auto(SPEC)
    assert dispatch.tile_is_auto(dataclasses.replace(SPEC, tile=cg.Sm90Tile(fp8_fast_accum=False, swizzle=2)))
    assert not dispatch.tile_is_auto(dataclasses.replace(SPEC, tile=SMALL))


def test_buckets_split_at_the_geometric_mean():
    assert dispatch.bucket_limits([32, 2048]) == [256.0, float("inf")]
    assert dispatch.bucket_limits([64]) == [float("inf")]


def test_record_round_trip_sorted_by_m(cache_dir):
    path = dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
    assert path.parent.name == "tuning" and SPEC.key in path.name
    rec = dispatch.read_record(SPEC, 90)
    assert [w["shape"][0] for w in rec["winners"]] == [32, 4096]
    assert dispatch.read_record(SPEC, 80) is None
    path.write_text("{not json")
    with pytest.warns(UserWarning, match="unreadable tuning record"):
        assert dispatch.read_record(SPEC, 90) is None
    path.unlink()


@pytest.mark.parametrize("damage", [
    lambda r: [], lambda r: {**r, "winners": [1]}, lambda r: {k: v for k, v in r.items() if k != "gpu"},
    lambda r: {**r, "winners": [{**r["winners"][0], "shape": [32]}]},
    lambda r: {**r, "winners": [{k: v for k, v in r["winners"][0].items() if k != "shape"}]},
    lambda r: {**r, "winners": [{**r["winners"][0], "shape": ["32", 8192, 8192]}]},
    lambda r: {**r, "limits": ["x"]},
], ids=["a list", "a winner not a table", "no gpu", "a short shape", "no shape", "a shape of strings", "limits"])
def test_a_malformed_record_is_ignored_with_a_warning_not_a_crash(cache_dir, damage):
    # (a JSON list crashed read_record, a short or missing shape crashed build(), a string in a shape or limits only
    # the first call on a GPU whose name matched)
    path = dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
    path.write_text(json.dumps(damage(json.loads(path.read_text()))))
    default = _fake_kernel(SPEC)
    with pytest.warns(UserWarning, match="malformed tuning record"):
        assert dispatch.tuned(default, 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs]) is default
    path.unlink()


def test_a_record_tuned_before_swizzle_auto_still_applies(tmp_path, monkeypatch):
    """Specs were keyed with swizzle 1 until "auto" became the default: their records (the committed H200 study's
    among them) are found through that key, and a record under the current key wins."""
    example = cg.load_spec(pathlib.Path(__file__).parents[1] / "examples/specs/bias_gelu_bf16_sm90.toml")
    study = pathlib.Path(__file__).parents[1] / "bench/results/h200_study_bias_gelu"
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))  # not the shared test cache: GPU tests build this spec
    (tmp_path / "tuning").mkdir()
    for record in study.glob("tuning_record_*.json"):
        (tmp_path / "tuning" / record.name.removeprefix("tuning_record_")).write_text(record.read_text())
    rec = dispatch.read_record(example, 90)
    assert rec is not None and rec["gpu"] == "NVIDIA H200"
    assert [w["shape"][0] for w in rec["winners"]] == [32, 256, 8192]
    assert dispatch.read_record(example.replace(tile={"swizzle": 2}), 90) is None  # an explicit swizzle: its own key
    dispatch.write_record(example, 90, "NVIDIA H200", _winners())
    assert [w["label"] for w in dispatch.read_record(example, 90)["winners"]] == ["small", "large"]


def test_tuned_wraps_and_chooses_by_m(cache_dir, monkeypatch):
    dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
    built = []

    def fake_build_many(specs, arch=None):
        built.extend(specs)
        return [_fake_kernel(s) for s in specs]

    k = dispatch.tuned(_fake_kernel(SPEC), 90, fake_build_many)
    assert isinstance(k, dispatch.DispatchKernel)
    assert [s.tile for s in built] == [SMALL, LARGE]
    k._gpu_checked = True  # as if on the record's GPU
    assert k.choose(1).spec.tile == SMALL and k.choose(362).spec.tile == SMALL
    assert k.choose(363).spec.tile == LARGE and k.choose(10**6).spec.tile == LARGE
    assert k.spec is SPEC and k.target_arch == 90  # everything else is the default kernel's
    assert "M<=362: small" in repr(k)
    # A spec with a fixed tile never dispatches, record or not.
    fixed = dataclasses.replace(SPEC, tile=SMALL)
    assert dispatch.tuned(_fake_kernel(fixed), 90, fake_build_many).spec is fixed
    dispatch.record_path(SPEC, 90).unlink()
    assert not isinstance(dispatch.tuned(_fake_kernel(SPEC), 90, fake_build_many), dispatch.DispatchKernel)


def test_a_tuned_record_of_sm80_tiles_dispatches(tmp_path, monkeypatch):
    """An sm80 spec's record holds Sm80Tiles, which have no ragged-M tiles: build() wraps them (session 110's H100 run
    of test_tune's GPU test crashed here: tuned_ragged_tiles read an Sm80Tile's cta)."""
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    spec = cg.GemmSpec(arch=80, name="dispatch_sm80", a=cg.Operand("fp16"), b=cg.Operand("fp16", "column"),
                       d=cg.Operand("fp16"), epilogue=[cg.Add("per_col", "bias", "fp16")])
    small = cg.Sm80Tile(threadblock=(16, 64, 64), warp=(16, 32, 64), stages=6)
    large = cg.Sm80Tile(threadblock=(128, 128, 32), warp=(64, 64, 32), stages=3)
    dispatch.write_record(spec, 80, "NVIDIA H100 80GB HBM3", [
        {"shape": [M, 1024, 1024], "tile": dispatch.tile_to_dict(t), "label": label, "tflops": 1.0,
         "default_tflops": 1.0} for M, t, label in ((64, small, "small"), (2048, large, "large"))])
    built = []

    def build_many(specs, arch=None):
        built.append([s.tile for s in specs])
        return [_fake_kernel(s) for s in specs]

    k = dispatch.tuned(_fake_kernel(spec), 80, build_many)
    assert built == [[small, large]]  # the winners alone: no ragged-M tiles
    k._gpu_checked = True
    assert k.choose(64).spec.tile == small and k.choose(2000).spec.tile == large


def test_shapes_tuned_at_one_m_and_several_n_split_by_n(cache_dir):
    """A model's layers tuned at one batch size: each N keeps its own winner (split at the geometric mean of
    neighbouring N's), whatever order the shapes were tuned in."""
    wide = cg.Sm90Tile(cta=(64, 32, 128), cluster=(2, 1, 1), mainloop="pingpong", swap_ab=True)
    winners = [{"shape": [32, 4096, 14336], "tile": dispatch.tile_to_dict(SMALL), "label": "narrow"},
               {"shape": [4096, 4096, 4096], "tile": dispatch.tile_to_dict(LARGE), "label": "large"},
               {"shape": [32, 14336, 4096], "tile": dispatch.tile_to_dict(wide), "label": "wide"}]
    entries = dispatch.tuned_entries(winners)
    assert [(winners[i]["label"], round(lim, 3), round(n), k) for i, lim, n, k in entries] == [
        ("wide", 362.039, 7663, 0), ("narrow", 362.039, 0, 0), ("large", float("inf"), 0, 0)]
    dispatch.write_record(SPEC, 90, "NVIDIA H200", winners)
    k = dispatch.tuned(_fake_kernel(SPEC), 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs])
    k._gpu_checked = True
    assert k.choose(32, 14336).spec.tile == wide and k.choose(16, 8192).spec.tile == wide
    assert k.choose(32, 4096).spec.tile == SMALL and k.choose(32, 7000).spec.tile == SMALL
    assert k.choose(32).spec.tile == SMALL  # N unknown: the entry without an n_min
    assert k.choose(4096, 14336).spec.tile == LARGE and k.choose(4096, 1024).spec.tile == LARGE
    assert "M<=362 N>=7663: wide" in repr(k)
    dispatch.record_path(SPEC, 90).unlink()


def test_shapes_tuned_at_one_m_and_n_and_several_k_split_by_k(cache_dir):
    """One layer tuned at several K (exact fp8's winner may be an opaque_pipeline tile at K <= 2048 and not above):
    each K keeps its own winner, split at the geometric mean of neighbouring K's; K unknown takes the deepest."""
    opaque = cg.Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative", opaque_pipeline=True)
    plain = dataclasses.replace(opaque, opaque_pipeline=False)
    winners = [{"shape": [4096, 8192, 8192], "tile": dispatch.tile_to_dict(plain), "label": "plain"},
               {"shape": [4096, 8192, 1024], "tile": dispatch.tile_to_dict(opaque), "label": "opaque"},
               {"shape": [32, 8192, 1024], "tile": dispatch.tile_to_dict(SMALL), "label": "small"}]
    entries = dispatch.tuned_entries(winners)
    assert [(winners[i]["label"], n, round(k)) for i, _, n, k in entries] == [
        ("small", 0, 0), ("opaque", 0, 2896), ("plain", 0, 0)]
    dispatch.write_record(FP8_EXACT, 90, "NVIDIA H200", winners)
    k = dispatch.tuned(_fake_kernel(FP8_EXACT), 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs])
    k._gpu_checked = True
    assert k.choose(4096, 8192, 1024).spec.tile == opaque and k.choose(2048, 8192, 2896).spec.tile == opaque
    assert k.choose(4096, 8192, 2912).spec.tile == plain and k.choose(4096, 8192).spec.tile == plain
    assert k.choose(32, 8192, 8192).spec.tile == SMALL  # one K tuned at that M: every K
    assert "M<=inf K<=2896: opaque" in repr(k)
    dispatch.record_path(FP8_EXACT, 90).unlink()


def test_a_record_from_another_gpu_falls_back_to_the_default(cache_dir, monkeypatch):
    import torch

    dispatch.write_record(SPEC, 90, "Some Other GPU", _winners())
    default = _fake_kernel(SPEC)
    k = dispatch.tuned(default, 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs])
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H200")
    with pytest.warns(UserWarning, match="made on Some Other GPU"):
        assert k.choose(32) is default
    assert k.choose(4096) is default
    dispatch.record_path(SPEC, 90).unlink()


def test_a_record_is_checked_against_the_gpu_when_the_dispatch_kernel_is_made(cache_dir, monkeypatch):
    """The GPU check ran on the first call, which in a compiled model was inside torch.compile's trace: its device
    query and warning stopped a fullgraph compile (dynamo: "Attempted to call function marked as skipped",
    sys._getframe of the warning's stacklevel). It now runs when the DispatchKernel is made where torch sees a GPU
    (and a compiled call chooses inside its op, when it runs); made where none is seen, on the first call."""
    import torch

    dispatch.write_record(SPEC, 90, "Some Other GPU", _winners())
    default = _fake_kernel(SPEC)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: "NVIDIA H200")
    with pytest.warns(UserWarning, match="made on Some Other GPU"):
        k = dispatch.tuned(default, 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs])
    assert k.choose(32) is default  # checked: no second warning, the default tile

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # made where no GPU is seen: checked on a call
    k = dispatch.tuned(default, 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs])
    with pytest.warns(UserWarning, match="made on Some Other GPU"):
        assert k.choose(32) is default
    dispatch.record_path(SPEC, 90).unlink()


def test_tune_refuses_to_record_a_fixed_tile():
    from cutlassgen.tuning import tune

    with pytest.raises(cg.SpecError, match="tile"):
        tune(dataclasses.replace(SPEC, tile=SMALL), [(32, 8192, 8192)])


def test_a_record_whose_tiles_do_not_build_falls_back_to_the_default(cache_dir):
    default = _fake_kernel(SPEC)
    bad = _winners()
    bad[0]["tile"]["cta"] = [128, 256, 48]  # not a valid CTA K: SpecError when the variant is made
    dispatch.write_record(SPEC, 90, "NVIDIA H200", bad)
    with pytest.warns(UserWarning, match="do not build here"):
        assert dispatch.tuned(default, 90, lambda specs, arch=None: [_fake_kernel(s) for s in specs]) is default

    def failing_build(specs, arch=None):
        raise cg.BuildError("nvcc failed to compile x", "nvcc ...", "k.cu", "build.log", ["error: boom"])

    dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
    with pytest.warns(UserWarning, match="BuildError"):
        assert dispatch.tuned(default, 90, failing_build) is default
    dispatch.record_path(SPEC, 90).unlink()


def test_swap_and_split_tiles_round_trip_and_old_records_default_them():
    tile = cg.Sm90Tile(cta=(128, 32, 128), cluster=(1, 1, 1), scheduler="stream_k", split_k=2, swap_ab=True)
    assert dispatch.tile_from_dict(json.loads(json.dumps(dispatch.tile_to_dict(tile)))) == tile
    old = {k: v for k, v in dispatch.tile_to_dict(SMALL).items() if k not in ("split_k", "swap_ab")}
    assert dispatch.tile_from_dict(old) == SMALL  # a record written before these fields existed


def test_forget_built_drops_only_that_specs_memo():
    from cutlassgen import jit

    other = SPEC.replace(name="other")
    jit._built.update({(SPEC, 90, True): "a", (SPEC, 90, False): "b", (other, 90, True): "c"})
    try:
        jit.forget_built(SPEC)
        assert (SPEC, 90, True) not in jit._built and (SPEC, 90, False) not in jit._built
        assert jit._built[(other, 90, True)] == "c"
    finally:
        jit.forget_built(other)


# --- the built-in per-shape heuristic: build(spec, shapes=...) without a tuning record ---

def test_shape_tiles_follow_the_buckets():
    from cutlassgen.tiles import BUCKET_UPPER, TWO_64_COLUMNS_END_N, TWO_COLUMNS_MULTICAST_N, shape_bucket, shape_tile

    want = {1: (64, 16, 128), 16: (64, 16, 128), 17: (64, 32, 128), 32: (64, 32, 128), 33: (64, 32, 128),
            40: (64, 32, 128), 41: (64, 32, 128), 64: (64, 32, 128), 65: (64, 40, 128), 80: (64, 40, 128),
            81: (64, 24, 128), 96: (64, 24, 128),
            97: (64, 32, 128), 112: (64, 32, 128), 113: (64, 32, 128), 128: (64, 32, 128), 129: (64, 24, 128),
            144: (64, 24, 128), 145: (64, 40, 128), 160: (64, 40, 128), 161: (64, 24, 128), 176: (64, 32, 128),
            177: (64, 32, 128), 192: (64, 32, 128), 193: (64, 40, 64), 208: (64, 40, 64), 209: (64, 56, 64),
            224: (64, 56, 64), 225: (64, 128, 64), 240: (64, 128, 64), 241: (64, 128, 64),
            256: (64, 128, 64)}  # N unknown: each bucket's narrowest N (16-bit at 81-224 rows: runs 115-116's
    # narrow token columns, 4-6 of them)
    # from N = 1025 three columns (four at 121-128) to the N each was timed ahead to, then the bucket's own tiles
    # (runs 115-118; at 209-224 the four 56-wide columns run to FOUR_56_COLUMNS_END_N = 2049); where the last column
    # fills better (runs 126-127, tiles.FILL_BUCKETS): three 40-wide at 113-120, seven 24-wide then three 56-wide at
    # 161-168
    wider = {96: ((1025, 32), (2304, 32), (2305, 48)), 112: ((1025, 40), (2048, 40), (2049, 56)),
             120: ((1024, 32), (1025, 40), (2048, 40), (2049, 64)),
             128: ((2048, 32), (2049, 64)), 144: ((1025, 48), (2560, 48)), 160: ((1025, 56), (2304, 56), (2305, 80)),
             168: ((1024, 24), (1025, 56), (2560, 56), (2561, 96)), 176: ((1025, 64), (2560, 64), (2561, 96)),
             192: ((1025, 64), (2560, 64), (2561, 96)), 208: ((1025, 72), (2816, 72))}
    for M, cta in want.items():
        tile = shape_tile(SPEC, M)
        assert tile.cta == cta and shape_tile(SPEC, M, 1024) == tile, M
        assert tile.swap_ab and tile.scheduler == "persistent" and tile.mainloop == "pingpong", M
        # token columns that share their weight tile: the decode tiles' 64x32. 16-bit from 65 rows at the bucket's
        # narrowest N with no cluster (runs 112, 115-116; 193-224 rows' three and four columns, runs 108, 115-116);
        # 40- to 80-wide ones at 65-160 rows in a 1x2 cluster from TWO_COLUMNS_MULTICAST_N, as 8-bit operands at
        # every N (runs 65, 83 and 86)
        assert tile.cluster == ((1, 2, 1) if 33 <= M <= 64 else (1, 1, 1)), M
        assert tile.epilogue_tile == "auto", M
        for n, width in wider.get(BUCKET_UPPER[shape_bucket(M)], ()):
            assert (shape_tile(SPEC, M, n).cta, shape_tile(SPEC, M, n).cluster) == ((64, width, cta[2]), (1, 1, 1)), M
        if 65 <= M <= 112 or 129 <= M <= 160:
            below, at = shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N - 1), shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N)
            assert at.cluster == (1, 2, 1) and at.cta[1] == (below.cta[1] if M < 129 or M > 144 else 72), M
            assert shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1) == at, M
    # fp8 takes the same narrow columns with 128 of K (runs 120-121), then the two columns in a 1x2 cluster, 72-wide
    # at 129-144 rows (run 87; with no cluster they timed level, run 112: not taken), at 193-208 rows after three
    # 72-wide no-cluster columns (run 122); int8 (token tiles in steps of 16) its own narrow columns, no cluster
    # (tiles.INT8_NARROW_COLUMNS, run 123), then the tiles it had: at 129-144 rows one 144-wide column with 48-wide
    # subtiles, measured faster than CUTLASS's own subtile pick (h200_tile_probe.log run 60)
    # (fp8's FILL_BUCKETS: 113-120 rows keep 121-128's four 32-wide columns, 161-168 take six 32-wide ones below 1025)
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    fp8_wider = {**wider, 120: wider[128], 168: ((1024, 32), *wider[168][1:])}
    for M, cta in {**want, 161: (64, 32, 128)}.items():
        if 81 <= M <= 208:
            assert (shape_tile(fp8, M).cta, shape_tile(fp8, M).cluster) == ((64, cta[1], 128), (1, 1, 1)), M
            for n, width in fp8_wider.get(BUCKET_UPPER[shape_bucket(M)], ()) if M <= 192 else ():
                assert shape_tile(fp8, M, n).cta == (64, width, 128), M
    assert (shape_tile(fp8, 136, 2561).cta, shape_tile(fp8, 136, 2561).cluster) == ((64, 72, 128), (1, 2, 1))
    assert shape_tile(fp8, 104, 2049).cluster == (1, 2, 1) and shape_tile(fp8, 200, 1025).cta == (64, 72, 128)
    int8 = cg.GemmSpec(arch=90, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("bf16"))
    # 161-168 rows' three 56-wide columns from N = 4225 (run 128) with fp8 too, not with int8, whose columns go in 16s
    for spec, M, width in ((fp8, 164, 56), (fp8, 172, 64), (int8, 164, 64)):
        tile = shape_tile(spec, M, 4400)
        assert (tile.cta, tile.cluster, tile.swap_ab) == ((128, width, 128), (1, 1, 1), True), (spec.a.dtype, M)
    # M -> (N, token column width, cluster N) from that N on
    int8_columns = {88: ((1024, 32, 1), (2560, 32, 1), (2561, 48, 2)), 104: ((1024, 32, 1), (1025, 64, 1),
                                                                            (2561, 112, 1)),
                    120: ((1024, 32, 1), (2048, 32, 1), (2049, 64, 1)), 136: ((1536, 32, 1), (1537, 48, 1),
                                                                              (2561, 144, 1)),
                    152: ((1536, 32, 1), (1537, 80, 2)), 168: ((1024, 32, 1), (1025, 64, 1), (2561, 96, 1)),
                    184: ((1024, 32, 1), (2560, 64, 1), (2561, 96, 1)), 200: ((1536, 48, 1), (1537, 112, 2)),
                    216: ((1536, 48, 1), (1537, 80, 1), (2049, 112, 2))}
    for M, columns in int8_columns.items():
        for n, width, cluster_n in columns:
            tile = shape_tile(int8, M, n)
            assert (tile.cta, tile.cluster, tile.swap_ab) == ((64, width, 128), (1, cluster_n, 1), True), (M, n)
    assert shape_tile(int8, 136, 2561).epilogue_tile == shape_tile(int8, 136, 1537).epilogue_tile == (64, 48)
    assert shape_tile(SPEC, 257) is None and shape_tile(SPEC, 10**6) is None  # the default tile
    assert [shape_bucket(M) for M in (1, 16, 17, 32, 33, 40, 41, 48, 49, 64, 65, 80, 81, 96, 97, 112, 113, 120, 121,
                                      128, 129, 144, 145, 160, 161, 168, 169, 176, 177, 192, 193, 208, 209, 224, 225,
                                      240, 241, 256, 257, 512, 513, 2048, 2049)] == [
        0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16,
        16, 17, 17, 18, 18, 19, 19, 20, 20, 21]
    # neighbouring buckets with one tile (161-176 and 177-192 below LARGE_N) make one entry
    plan = dispatch.heuristic_record(SPEC, [(170, 4096, 8192), (190, 4096, 8192), (250, 4096, 8192)])
    assert [w["shape"][0] for w in plan["winners"]] == [170, 250] and plan["limits"] == [192, math.inf]
    # the sm80 path gives 65-96 and 97-128 one tile, and 129-256 another: one entry each
    sm80 = SPEC.replace(arch=80, tile=cg.Sm80Tile())
    plan = dispatch.heuristic_record(sm80, [(80, 8192, 8192), (128, 8192, 8192), (200, 8192, 8192)])
    assert [w["shape"][0] for w in plan["winners"]] == [80, 200] and plan["limits"] == [128, math.inf]
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"),
                      tile=cg.Sm90Tile(fp8_fast_accum=True))
    assert shape_tile(fp8, 256, 8192).cta == (128, 128, 128) and shape_tile(fp8, 256, 8192).fp8_fast_accum  # kept


def test_sm80_path_shape_tiles_shrink_with_m_and_fill_half_an_sm():
    from cutlassgen.arch import ARCHS
    from cutlassgen.tiles import BUCKET_UPPER, SM80_WIDE_N, resolve, shape_class, shape_tile

    sm80 = cg.GemmSpec(arch=80, a=cg.Operand("fp16"), b=cg.Operand("fp16", "column"), d=cg.Operand("fp16"))
    want = {1: ((32, 64, 64), (32, 32, 64)), 32: ((32, 64, 64), (32, 32, 64)), 33: ((64, 64, 64), (32, 32, 64)),
            64: ((64, 64, 64), (32, 32, 64)), 65: ((64, 128, 64), (32, 64, 64)), 96: ((64, 128, 64), (32, 64, 64)),
            97: ((64, 128, 64), (32, 64, 64)), 128: ((64, 128, 64), (32, 64, 64)),
            129: ((128, 128, 32), (64, 64, 32)), 256: ((128, 128, 32), (64, 64, 32))}
    for arch in (80, 86, 89):
        spec = sm80.replace(arch=arch)
        for M, (tb, warp) in want.items():
            tile = shape_tile(spec, M, 8192)
            assert (tile.threadblock, tile.warp) == (tb, warp), (arch, M)
            smem = resolve(spec.replace(tile=tile)).smem_bytes
            assert 3 <= tile.stages <= 8 and smem <= ARCHS[arch].smem_per_block, (arch, M)
            if 3 < tile.stages < 8:  # two CTAs share an SM, one more stage not
                assert 2 * (smem + 1024) <= ARCHS[arch].smem_per_sm < 2 * (smem + smem // tile.stages + 1024)
        assert shape_tile(spec, 257, 8192) is None and shape_tile(spec, 4096) is None  # the default tile
        assert shape_tile(spec, 4096, SM80_WIDE_N - 1) is None
        # 128x256 replaces two default CTAs per SM: an A100 holds two (164 KiB), sm86/89 (100 KiB) one
        wide = shape_tile(spec, 513, SM80_WIDE_N)
        if arch == 80:
            assert (wide.threadblock, wide.warp, wide.stages) == ((128, 256, 32), (64, 64, 32), 4)
        else:
            assert wide is None, arch
    assert [shape_tile(sm80, M).stages for M in (32, 64, 128, 256)] == [6, 5, 3, 5]  # on an A100's 164 KiB per SM
    assert shape_class(32, 14336, "sm80") == (1, 0) and shape_class(600, 14336, "sm80") == (
        BUCKET_UPPER.index(None) - 1, SM80_WIDE_N) and shape_class(4096, 14336, "sm80") == (
        BUCKET_UPPER.index(None), SM80_WIDE_N)
    # one 128x256 tile over M > 512: the two sm90 buckets there make one plan entry
    plan = dispatch.heuristic_record(sm80, [(600, 14336, 4096), (4096, 14336, 4096)])
    assert len(plan["winners"]) == 1 and plan["limits"] == [math.inf]
    narrow = sm80.replace(a=cg.Operand("fp16", alignment=2))  # its small copies took a stack frame: not timed
    assert shape_tile(narrow, 32) is None and shape_tile(sm80.replace(b=cg.Operand("fp16", "column", alignment=4)),
                                                         32) is None
    # int8: the same tiles in bytes of K (twice the elements), so the same shared memory and stages per arch
    int8 = cg.GemmSpec(arch=80, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("bf16"),
                       epilogue=[cg.Multiply("per_row", "scale_a", "fp32"), cg.Multiply("per_col", "scale_b", "fp32")])
    for arch in (80, 86, 89):
        for M in (*want, 513):
            tile16, tile8 = shape_tile(sm80.replace(arch=arch), M, 8192), shape_tile(int8.replace(arch=arch), M, 8192)
            assert (tile16 is None) == (tile8 is None), (arch, M)
            if tile8 is not None:
                assert tile8.threadblock == (*tile16.threadblock[:2], 2 * tile16.threadblock[2]), (arch, M)
                assert (tile8.warp[2], tile8.stages) == (2 * tile16.warp[2], tile16.stages), (arch, M)
                assert resolve(int8.replace(arch=arch, tile=tile8)).smem_bytes == resolve(
                    sm80.replace(arch=arch, tile=tile16)).smem_bytes, (arch, M)
    assert shape_tile(int8.replace(a=cg.Operand("int8", alignment=8)), 32) is None  # 8 bytes: not timed
    tf32 = cg.GemmSpec(arch=80, a=cg.Operand("tf32"), b=cg.Operand("tf32", "column"), d=cg.Operand("fp32"))
    fp8 = cg.GemmSpec(arch=89, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    assert shape_tile(tf32, 32) is None and shape_tile(fp8, 32) is None  # not timed: the default
    rec = dispatch.heuristic_record(sm80, [(16, 8192, 8192), (32, 14336, 4096), (256, 8192, 8192),
                                           (4096, 8192, 8192)])
    assert [w["label"] for w in rec["winners"]] == ["32x64x64 w32x32 s6", "128x128x32 w64x64 s5",
                                                    "128x256x32 w64x64 s4"]
    assert rec["limits"] == [32, 256, math.inf]  # 33-128 and 257-512 go to the next larger bucket given
    k = _fake_dispatch(sm80, rec)
    assert k.choose(16, 14336).spec.tile.threadblock == (32, 64, 64)
    assert k.choose(4096, 8192).spec.tile.threadblock == (128, 256, 32)
    assert "32x64x64 w32x32 s6" in dispatch.per_shape_hint(sm80, 16, 8192, 8192)
    assert "128x256x32 w64x64 s4" in dispatch.per_shape_hint(sm80, 4096, 8192, 8192)
    assert dispatch.per_shape_hint(sm80, 4096, 1024, 8192) is None
    assert dispatch.per_shape_hint(sm80, 300, 8192, 8192) is None


def test_wide_weights_at_m_up_to_32_take_a_2x1_cluster():
    from cutlassgen.tiles import TALL_N, THREE_COLUMNS_END_N, WIDE_N, shape_class, shape_tile

    for M in (17, 32):
        assert shape_tile(SPEC, M, 14336).cluster == (2, 1, 1) and shape_tile(SPEC, M, 14336).cta == (64, 32, 128)
        assert shape_tile(SPEC, M, WIDE_N - 1).cluster == (1, 1, 1) and shape_tile(SPEC, M).cluster == (1, 1, 1)
    # no wide-N tile measured better there: M = 16 keeps its tile whatever N (M = 200 one tile from where its three
    # columns end up to TALL_N)
    assert shape_tile(SPEC, 16, 14336) == shape_tile(SPEC, 16)
    assert shape_tile(SPEC, 200, TALL_N - 1) == shape_tile(SPEC, 200, THREE_COLUMNS_END_N)
    assert shape_class(32, 14336) == (1, WIDE_N) and shape_class(16, 14336) == (0, 0)
    assert shape_class(32, 8192) == (1, 0) and shape_class(32) == (1, 0)


def test_m_65_to_256_tiles_fit_the_token_tile_to_m():
    from cutlassgen.tiles import (FOUR_56_COLUMNS_END_N, LARGE_N, MID_N, ONE_COLUMN_N, ONE_TOKEN_TILE_END_N,
                                  SHORT_LAST_WEIGHT_TILE_N, TALL_N, THREE_64_COLUMNS_END_N, THREE_COLUMNS_END_N,
                                  THREE_TILES_END_N, TWO_64_COLUMNS_END_N, TWO_COLUMNS_MULTICAST_N, WIDE_N, shape_class,
                                  shape_tile)

    for M, width in ((65, 80), (80, 80), (81, 96), (96, 96)):  # all the tokens in one swapped tile (from MID_N at
        narrow = shape_tile(SPEC, M, TALL_N - 1)  # 81-96)
        assert (narrow.cta, narrow.mainloop, narrow.cluster, narrow.swap_ab) == ((64, width, 128), "pingpong",
                                                                                 (1, 1, 1), True), M
    # one swapped column of all the tokens, fitted in steps of 16, under a 128-row weight tile, the token tile
    # multicast over a 4x1 cluster (cuBLAS's form there; probe runs 67-68): from WIDE_N at 65-128, from ONE_COLUMN_N
    # (where two columns of 192-row weight tiles pass one wave) at 129-256
    subtiles = {80: (128, 80), 112: (128, 112), 240: (128, 48)}  # as measured; elsewhere CUTLASS's pick
    for M in (65, 72, 80, 81, 96, 100, 112, 113, 128, 129, 144, 150, 160, 161, 168, 176, 177, 192, 193, 200, 208, 209,
              224, 225, 240, 241, 250, 256):
        width = -(-M // 16) * 16
        for n in (WIDE_N if M <= 128 else ONE_COLUMN_N, 14336, 28672):
            wide = shape_tile(SPEC, M, n)
            assert (wide.cta, wide.mainloop, wide.cluster, wide.swap_ab) == ((128, width, 64), "cooperative",
                                                                             (4, 1, 1), True), (M, n)
            assert wide.epilogue_tile == subtiles.get(width, "auto"), (M, n)
        assert shape_class(M, WIDE_N)[1] == WIDE_N and shape_class(M, WIDE_N - 1)[1] < WIDE_N, M
    two_columns = ("cooperative", True, (1, 2, 1))  # under one 128-row weight tile, multicast over a 1x2 cluster
    no_cluster = ("cooperative", True, (1, 1, 1))  # swapped token columns under 128-row weight tiles
    # at 97-112 rows two 56-wide columns with no cluster from TWO_64_COLUMNS_END_N (runs 95-96), then one 112-wide
    # token tile; at 113-128 (from MID_N) two 64-row token tiles in a 2x1 cluster under weight tiles ceil(N / 64) wide
    # in steps of 8 (runs 101-103), 8-bit operands twice the CTAs of 128x128; then two columns, 56 wide at 97-112
    # rows (cuBLAS's steps of 8, validate.n_step_of; tile_probe.py narrowcols, run 84)
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    for M in (97, 112, 113, 128):
        narrow, large = shape_tile(SPEC, M, MID_N), shape_tile(SPEC, M, LARGE_N)
        if M <= 112:  # token columns, then 128x128
            assert (narrow.cta, narrow.mainloop, narrow.swap_ab, narrow.cluster) == ((128, 56, 64), *no_cluster), M
            assert shape_tile(SPEC, M, TWO_64_COLUMNS_END_N) == narrow == shape_tile(SPEC, M, THREE_COLUMNS_END_N - 1)
            one = shape_tile(SPEC, M, THREE_COLUMNS_END_N)
            assert (one.cta, one.mainloop, one.swap_ab) == ((64, 112, 128), "pingpong", True), M
        else:
            for n, width in ((MID_N, 72), (MID_N + 1, 80), (5120, 80), (5121, 88), (6144, 96), (LARGE_N - 1, 112)):
                fitted = shape_tile(SPEC, M, n)
                assert (fitted.cta, fitted.mainloop, fitted.swap_ab, fitted.cluster) == ((64, width, 64), "pingpong",
                                                                                         False, (2, 1, 1)), (M, n)
            for n in (MID_N, LARGE_N - 1):
                coop = shape_tile(fp8, M, n)
                assert (coop.cta, coop.mainloop, coop.swap_ab) == ((128, 64, 128), "cooperative", False), (M, n)
        assert (large.cta, large.mainloop, large.swap_ab, large.cluster) == ((128, 56 if M <= 112 else 64, 64),
                                                                             *two_columns), M
        assert shape_tile(SPEC, M, TALL_N - 1) == large, M
    assert shape_class(96, 14336) == (6, WIDE_N) and shape_class(97, 14336) == (7, WIDE_N)
    # 129-192 rows from TWO_64_COLUMNS_END_N to THREE_COLUMNS_END_N: three 48-, 56- or 64-wide columns with no
    # cluster (runs 95-96); then two 72-, 80-, 88- or 96-wide columns in a 1x2 cluster (runs 86-87)
    for M, width in ((129, 144), (144, 144), (145, 160), (160, 160)):
        three, large = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N), shape_tile(SPEC, M, LARGE_N)
        assert three == shape_tile(SPEC, M, MID_N) == shape_tile(SPEC, M, THREE_COLUMNS_END_N - 1), M
        assert (three.cta, three.mainloop, three.swap_ab, three.cluster) == ((128, 48 if M <= 144 else 56, 64),
                                                                             *no_cluster), M
        assert shape_tile(SPEC, M, THREE_COLUMNS_END_N) == large, M
        assert (large.cta, large.mainloop, large.swap_ab, large.cluster) == ((128, width // 2, 64), *two_columns), M
        assert large.epilogue_tile == ("auto" if M <= 144 else (128, 80)), M
        assert shape_tile(SPEC, M, TALL_N - 1) == large, M
    for M in (161, 168, 169, 176, 177, 192):  # two 96-wide token tiles under 64-row weight tiles below
        narrow, large = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1), shape_tile(SPEC, M, LARGE_N)
        assert (narrow.cta, narrow.swap_ab, narrow.cluster) == ((64, 96, 128), True, (1, 1, 1)), M
        # TWO_64_COLUMNS_END_N, then three 64-wide (161-168 rows: 56-wide, run 128) under 128-row weight tiles,
        # then from THREE_COLUMNS_END_N two 88- or 96-wide ones in a 1x2 cluster
        three = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N)
        assert three == shape_tile(SPEC, M, THREE_COLUMNS_END_N - 1), M
        assert (three.cta, three.mainloop, three.swap_ab, three.cluster) == ((128, 56 if M <= 168 else 64, 64),
                                                                             *no_cluster), M
        assert shape_tile(SPEC, M, THREE_COLUMNS_END_N) == large, M
        assert (large.cta, large.mainloop, large.swap_ab, large.cluster) == ((128, 88 if M <= 176 else 96, 64),
                                                                             *two_columns), M
        assert shape_tile(SPEC, M, TALL_N - 1) == large, M
    for M in (193, 208, 209, 224):  # two swapped 104- or 112-wide token columns, under a 128-row weight tile from
        tiles = {shape_tile(SPEC, M, n) for n in (THREE_COLUMNS_END_N, LARGE_N, TALL_N - 1)}  # THREE_COLUMNS_END_N
        assert len(tiles) == 1, M
        (tile,) = tiles
        assert (tile.cta, tile.mainloop, tile.swap_ab, tile.cluster) == ((128, 104 if M <= 208 else 112, 64),
                                                                         *two_columns), M
        assert tile.epilogue_tile == ("auto" if M <= 208 else (128, 112)), M
    # where N / 64 weight tiles leave half the SMs idle, the tokens split into two columns under 64-row weight tiles
    # (N / 32 CTAs), each weight tile loaded once for both by a 1x2 cluster but at 113-128 (run 65), while those fit
    # one wave; from TWO_64_COLUMNS_END_N the tile of MID_N (run 85), but at 81-96 and 113-128 rows (below) and
    # 145-160 (above)
    # (at 193-224 rows 16-bit operands take 64 of K, and 104-wide columns at 193-208; runs 98-99)
    for M, width, cluster in ((81, 48, (1, 2, 1)), (96, 48, (1, 2, 1)), (113, 64, (1, 1, 1)), (128, 64, (1, 1, 1)),
                              (145, 80, (1, 2, 1)), (160, 80, (1, 2, 1)), (193, 104, (1, 2, 1)),
                              (224, 112, (1, 2, 1))):
        tile = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1)
        assert (tile.cta[:2], tile.mainloop, tile.swap_ab, tile.cluster) == ((64, width), "pingpong", True,
                                                                             cluster), M
        if M < 193:  # 193-224 (16-bit): three columns with no cluster to N = 2816 / 2048 (below); the two columns
            # with no cluster just below TWO_COLUMNS_MULTICAST_N (run 112; narrower columns further below, runs 115-118)
            assert shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N) == tile, M
            assert shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N - 1) == dataclasses.replace(tile, cluster=(1, 1, 1)), M
        if not (81 <= M <= 96 or 113 <= M <= 160):
            assert shape_tile(SPEC, M, TWO_64_COLUMNS_END_N) == shape_tile(SPEC, M, MID_N), M
    for M in (81, 96):  # 16-bit, from TWO_64_COLUMNS_END_N to LARGE_N: the 96-wide column with 64 elements of K in
        for n in (TWO_64_COLUMNS_END_N, MID_N, LARGE_N - 1):  # a 4x1 cluster (runs 88-89), 128 and none from LARGE_N
            tile = shape_tile(SPEC, M, n)
            assert (tile.cta, tile.swap_ab, tile.cluster) == ((64, 96, 64), True, (4, 1, 1)), (M, n)
        tile = shape_tile(SPEC, M, LARGE_N)
        assert (tile.cta, tile.swap_ab, tile.cluster) == ((64, 96, 128), True, (1, 1, 1)), M
    for M in (113, 128):  # 16-bit, from TWO_64_COLUMNS_END_N to MID_N: two 64-row token tiles in a 2x1 cluster under
        for n in (TWO_64_COLUMNS_END_N, MID_N - 1):  # 80-wide weight tiles, unswapped (run 86)
            tile = shape_tile(SPEC, M, n)
            assert (tile.cta, tile.mainloop, tile.swap_ab, tile.cluster) == ((64, 80, 64), "pingpong", False,
                                                                             (2, 1, 1)), (M, n)
    # at 65-80 and 97-112 rows two 40- or 56-wide columns in a 1x2 cluster while their N / 32 CTAs fit one wave, then
    # the one column (runs 83-84; at 97-112 rows, 16-bit, from THREE_COLUMNS_END_N, two 56-wide columns with no
    # cluster under 128-row weight tiles before, above)
    assert TWO_64_COLUMNS_END_N == 4225
    for M, width in ((65, 40), (80, 40), (97, 56), (112, 56)):
        tile = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1)
        assert (tile.cta[:2], tile.mainloop, tile.swap_ab, tile.cluster) == ((64, width), "pingpong", True,
                                                                             (1, 2, 1)), M
        assert shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N) == tile, M  # with no cluster below it (run 112)
        assert shape_tile(SPEC, M, TWO_COLUMNS_MULTICAST_N - 1) == dataclasses.replace(tile, cluster=(1, 1, 1)), M
        assert shape_tile(SPEC, M, 1024) == shape_tile(SPEC, M), M  # (at 97-112 rows 4 x 32 below 1025, run 116)
        one_from = TWO_64_COLUMNS_END_N if M <= 80 else THREE_COLUMNS_END_N
        assert shape_tile(SPEC, M, one_from).cta[:2] == (64, 2 * width), M
    assert THREE_COLUMNS_END_N == 5633  # 3 * ceil(N / 128) > 132 SMs from here
    for M in (225, 240, 241, 256):  # two swapped 128-wide token tiles below TWO_64_COLUMNS_END_N; from there three
        narrow = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1)  # swapped 80- or 88-wide token columns under 128-row
        three = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N)  # weight tiles, no cluster (runs 88-91), 128x128
        wide = shape_tile(SPEC, M, THREE_COLUMNS_END_N)  # cooperative from THREE_COLUMNS_END_N (8-bit: MID_N); at
        # 225-240 rows, 16-bit, two swapped 120-wide token columns in a 1x2 cluster there instead (run 155)
        assert shape_tile(SPEC, M, MID_N) == shape_tile(SPEC, M, THREE_COLUMNS_END_N - 1) == three, M
        assert (three.cta, three.swap_ab, three.mainloop, three.cluster) == ((128, 80 if M <= 240 else 88, 64), True,
                                                                             "cooperative", (1, 1, 1)), M
        assert (narrow.cta, narrow.swap_ab, narrow.mainloop) == ((64, 128, 64), True, "pingpong"), M
        assert (wide.cta, wide.swap_ab, wide.mainloop, wide.cluster) == (
            ((128, 120, 64), True, "cooperative", (1, 2, 1)) if M <= 240 else
            ((128, 128, 64), False, "cooperative", (1, 1, 1))), M
        assert shape_tile(SPEC, M, TALL_N - 1) == wide, M
        assert shape_tile(SPEC, M, TALL_N) != wide, M  # the fitted tiles from there
    # 193-224 rows, 16-bit, below N = 4225: three 72-wide columns under 64-row weight tiles, no cluster (run 108), at
    # 193-208 from N = 1025 (six 40-wide ones below it) to where 3 x N / 64 CTAs pass a wave, at 209-224 four 56-wide
    # ones to N = 2048 (runs 115-116, in place of run 108's three 80-wide), then two 104- or 112-wide columns in a 1x2
    # cluster; fp8 operands take the same no-cluster columns with 128 of K (runs 121-122; 112-wide from the ends, not
    # 104), int8 its own narrow columns (tiles.INT8_NARROW_COLUMNS: five 48-wide at N = 1024), then the two columns
    assert (THREE_64_COLUMNS_END_N, FOUR_56_COLUMNS_END_N) == (2817, 2049)
    for M in (193, 208, 209, 224):
        width, two_width, end = (72, 104, THREE_64_COLUMNS_END_N) if M <= 208 else (56, 112, FOUR_56_COLUMNS_END_N)
        for N in (512, 1024):
            assert shape_tile(SPEC, M, N).cta == (64, 40 if M <= 208 else 56, 64), (M, N)
        for N in (1025, end - 1):
            tile = shape_tile(SPEC, M, N)
            assert (tile.cta, tile.swap_ab, tile.mainloop, tile.cluster) == ((64, width, 64), True, "pingpong",
                                                                             (1, 1, 1)), (M, N)
        tile = shape_tile(SPEC, M, end)
        assert (tile.cta, tile.swap_ab, tile.cluster) == ((64, two_width, 64), True, (1, 2, 1)), M
        fp8 = SPEC.replace(a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"))
        for N in (1025, end - 1):
            assert (shape_tile(fp8, M, N).cta, shape_tile(fp8, M, N).cluster) == ((64, width, 128), (1, 1, 1)), M
        assert (shape_tile(fp8, M, end).cta, shape_tile(fp8, M, end).cluster) == ((64, 112, 128), (1, 2, 1)), M
        int8 = cg.GemmSpec(arch=90, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("bf16"))
        assert (shape_tile(int8, M, 1024).cta, shape_tile(int8, M, 1024).cluster) == ((64, 48, 128), (1, 1, 1)), M
        assert (shape_tile(int8, M, 2049).cta, shape_tile(int8, M, 2049).cluster) == ((64, 112, 128), (1, 2, 1)), M
    for M in (193, 208, 209, 224):  # three 72- or 80-wide columns, no cluster (runs 93-94), then from
        two = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N - 1)  # THREE_COLUMNS_END_N two 104- or 112-wide ones under a
        three = shape_tile(SPEC, M, TWO_64_COLUMNS_END_N)  # 128-row weight tile in a 1x2 cluster, as from
        wide = shape_tile(SPEC, M, THREE_COLUMNS_END_N)  # TWO_64_COLUMNS_END_N before; 8-bit too, int8 80 wide
        assert shape_tile(SPEC, M, MID_N) == shape_tile(SPEC, M, THREE_COLUMNS_END_N - 1) == three, M
        width = 72 if M <= 208 else 80
        assert (three.cta, three.swap_ab, three.mainloop, three.cluster) == ((128, width, 64), True, "cooperative",
                                                                             (1, 1, 1)), M
        assert (two.cta, two.cluster) == ((64, 104 if M <= 208 else 112, 64), (1, 2, 1)), M
        assert (wide.cta, wide.swap_ab, wide.cluster) == ((128, 104 if M <= 208 else 112, 64), True, (1, 2, 1)), M
        assert shape_tile(SPEC, M, TALL_N - 1) == wide, M
        for operands, eight_bit_width in (("e4m3", width), ("int8", 80)):
            spec = SPEC.replace(a=cg.Operand(operands), b=cg.Operand(operands, "column"),
                                accumulator="int32" if operands == "int8" else "fp32")
            tile = shape_tile(spec, M, THREE_COLUMNS_END_N - 1)
            assert (tile.cta, tile.swap_ab, tile.cluster) == ((128, eight_bit_width, 128), True, (1, 1, 1)), M
            assert shape_tile(spec, M, THREE_COLUMNS_END_N).cluster == (1, 2, 1), M
    # from TALL_N, where two columns under 128-row weight tiles pass one wave of the H200's SMs, to ONE_COLUMN_N:
    # two columns under 192-row weight tiles in a 1x2 cluster, pingpong (cuBLAS's form at N = 12288; probe runs
    # 70-71), the columns fitted in steps of 8 (runs 83-84)
    # (65-128 rows up to WIDE_N only: the one column led from there, run 70; where they make too few CTAs, below
    # 10241 at 97-128 rows, 9217 at 209-224, 9857 at 161-176 and 10561 at 177-192, the unswapped forms below stand
    # in, runs 74-77; not at 145-160 since runs 133-135)
    assert (TALL_N, ONE_COLUMN_N) == (8449, 12673)  # 2 * ceil(N / 128), 2 * ceil(N / 192) > 132 SMs from here
    for M in (65, 80, 81, 96, 97, 112, 113, 128, 129, 136, 144, 145, 160, 161, 176, 177, 192, 193, 208, 209, 224):
        width = -(-M // 16) * 8
        tall_from = (10241 if 97 <= M <= 128 else 9217 if M > 208 else TALL_N if M > 192 or M <= 160
                     else ONE_TOKEN_TILE_END_N if M > 176 else THREE_TILES_END_N)
        for n in (tall_from, 10240, 11008, WIDE_N - 1) + ((WIDE_N, ONE_COLUMN_N - 1) if M > 128 else ()):
            if n < tall_from:
                continue
            tall = shape_tile(SPEC, M, n)
            assert (tall.cta, tall.mainloop, tall.cluster, tall.swap_ab) == ((192, width, 64), "pingpong",
                                                                             (1, 2, 1), True), (M, n)
            # measured so (runs 70-71, 82-84); 80 wide CUTLASS's subtile since runs 137-139 (16-bit operands)
            full_width = width % 16 or width in (48, 112)
            assert tall.epilogue_tile == ((64, width) if full_width else "auto"), (M, n)
        assert shape_class(M, TALL_N)[1] == TALL_N and shape_class(M, tall_from)[1] == tall_from, M
        assert shape_class(M, ONE_COLUMN_N)[1] == (ONE_COLUMN_N if M > 128 else WIDE_N), M
    # in the same band, unswapped: the tokens in two 128-row (64-row at 97-128) tiles sharing each weight tile over a
    # 2x1 cluster, the weight tile N / 64 wide in steps of 16 (cuBLAS's form at 225-256 rows and 120x9216; probe runs
    # 73-75): at 225-256 rows over the whole band, at 97-128 to N = 10240, at 209-224 to 9216
    fitted = ((TALL_N, 144), (9216, 144), (9217, 160), (10240, 160), (10241, 176), (11264, 176), (11265, 192),
              (WIDE_N, 192), (ONE_COLUMN_N - 1, 192))
    for rows, mainloop, Ms, below in ((128, "cooperative", (225, 240, 241, 256), ONE_COLUMN_N),
                                      (64, "pingpong", (97, 100, 112, 113, 128), 10241),
                                      (128, "cooperative", (209, 224), 9217)):
        for M in Ms:
            for n, width in fitted:
                if n < below:
                    tile = shape_tile(SPEC, M, n)
                    assert (tile.cta, tile.mainloop, tile.cluster, tile.swap_ab) == ((rows, width, 64), mainloop,
                                                                                     (2, 1, 1), False), (M, n)
    # at 161-192 rows, unswapped with no cluster: three 64-row token tiles under 224-wide weight tiles while
    # 3 x ceil(N / 224) CTAs fit the 132 SMs, then at 177-192 rows one 192-row token tile under 80-wide ones while
    # ceil(N / 80) do (probe runs 76-77); at 145-160 rows the 192-row weight tiles above (runs 133-135), at 161-176
    # also where the 224-wide weight tiles' last is short, 9185-9248 (16-bit operands, runs 136-139; fp8 with fast
    # accumulation, run 142)
    assert (THREE_TILES_END_N, ONE_TOKEN_TILE_END_N, SHORT_LAST_WEIGHT_TILE_N) == (9857, 10561, (9185, 9249))
    for M in (161, 176):
        for n in (9192, 9216, 9248):
            tall = shape_tile(SPEC, M, n)
            assert (tall.cta, tall.cluster, tall.swap_ab, tall.epilogue_tile) == ((192, 88, 64), (1, 2, 1), True,
                                                                                  (64, 88)), (M, n)
        assert (shape_class(M, 9216)[1], shape_class(M, 9256)[1]) == (9185, 9249), M
        fp8 = SPEC.replace(a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"))
        fast = fp8.replace(tile={"fp8_fast_accum": True})
        assert shape_tile(fast, M, 9216).cta == (192, 88, 128) and shape_tile(fast, M, 9184).cta == (64, 224, 128)
        # without fast accumulation fp8 holds neither the 192-row tile nor the three: what it has at 9184; int8's
        # 192-row tile (192x96) ran level with the three there (run 142): it keeps them
        assert shape_tile(fp8, M, 9216) == shape_tile(fp8, M, 9184), M
        int8 = fp8.replace(a=cg.Operand("int8"), b=cg.Operand("int8", "column"), accumulator="int32")
        assert shape_tile(int8, M, 9216) == shape_tile(int8, M, 9184) and shape_tile(int8, M, 9216).cta[1] == 224
    for M in (161, 176, 177, 192):
        forms = [(n, (64, 224, 64)) for n in (TALL_N, 9184, 9256, THREE_TILES_END_N - 1)]
        forms += [(9216, (64, 224, 64))] if M > 176 else []
        forms += [(n, (192, 80, 64)) for n in (THREE_TILES_END_N, 10240, ONE_TOKEN_TILE_END_N - 1) if M > 176]
        for n, cta in forms:
            tile = shape_tile(SPEC, M, n)
            assert (tile.cta, tile.mainloop, tile.cluster, tile.swap_ab) == (cta, "pingpong", (1, 1, 1), False), (M, n)
        assert shape_class(M, THREE_TILES_END_N)[1] == THREE_TILES_END_N, M
        assert shape_class(M, ONE_TOKEN_TILE_END_N)[1] == (ONE_TOKEN_TILE_END_N if M > 176 else THREE_TILES_END_N), M
    # a bucket's subtile that does not fit beside a residual and an aux store gives way to CUTLASS's pick: with fp32
    # ones (bf16's fit: one subtile of D, C in two that D reuses, one of the aux store; tiles.sm90_epilogue_smem)
    def heavy(dtype):
        return SPEC.replace(d=cg.Operand(dtype), c=cg.Operand(dtype), epilogue=[
            cg.Add("tensor", "res"), cg.StoreAux("pre", dtype), cg.Add("per_col", "bias", "bf16")])
    assert shape_tile(heavy("fp32"), 220, 8192).cta == (128, 112, 64)
    assert shape_tile(heavy("fp32"), 220, 8192).epilogue_tile == "auto"
    assert shape_tile(heavy("bf16"), 220, 8192).epilogue_tile == (128, 112)
    rec = dispatch.heuristic_record(SPEC, [(80, 8192, 4096), (80, 14336, 4096), (120, 8192, 4096)])
    k = _fake_dispatch(SPEC, rec)
    assert k.choose(75, 14336).spec.tile.cluster == (4, 1, 1) and k.choose(75, 8192).spec.tile.cluster == (1, 1, 1)
    assert k.choose(120, 8192).spec.tile.cta == (128, 64, 64)
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    # 128 bytes of K; from the narrow columns' last end (tiles.NARROW_COLUMNS; at 193-208 rows the three 72-wide
    # columns') the buckets' own tiles
    assert shape_tile(fp8, 96, 2305).cta == (64, 48, 128) and shape_tile(fp8, 128, 2049).cta == (64, 64, 128)
    assert shape_tile(fp8, 96, MID_N).cta == (64, 96, 128) and shape_tile(fp8, 128, MID_N).cta == (128, 64, 128)
    assert shape_tile(fp8, 136, 2561).cta == (64, 72, 128) and shape_tile(fp8, 200, 2817).cta == (64, 112, 128)
    assert shape_tile(fp8, 200, MID_N).cta == (128, 72, 128)  # three columns (run 94), 104 wide from 5633
    assert shape_tile(fp8, 200, THREE_COLUMNS_END_N).cta == (128, 104, 128)
    # from TWO_64_COLUMNS_END_N, at 129-192 rows three 48-, 56- or 64-wide columns with no cluster (run 96), from
    # THREE_COLUMNS_END_N run 86's forms, timed with fp8 in run 87 (two 80-wide ones at 145-160, run 89); at 113-128
    # rows fp8 keeps 128x64; at 225-256 the three token columns to MID_N (run 89), 16-bit's to THREE_COLUMNS_END_N;
    # from there at 225-240 rows two swapped 120-wide columns to TALL_N (runs 157-158), 128x128 at 241-256
    fp8_tiles = [(t.cta, t.cluster) for t in (shape_tile(fp8, M, N) for M, N in (
        (136, 4096), (120, 4400), (136, 5000), (150, 4400), (150, 5000), (170, 5000), (185, 5000), (240, 4400),
        (256, MID_N - 1), (256, MID_N), (136, 5633), (150, 5633), (170, 5633), (185, 5633)))]
    assert fp8_tiles == [((64, 72, 128), (1, 2, 1)), ((128, 64, 128), (1, 1, 1)), ((128, 48, 128), (1, 1, 1)),
                         ((128, 56, 128), (1, 1, 1)), ((128, 56, 128), (1, 1, 1)), ((128, 64, 128), (1, 1, 1)),
                         ((128, 64, 128), (1, 1, 1)), ((128, 80, 128), (1, 1, 1)), ((128, 88, 128), (1, 1, 1)),
                         ((128, 128, 128), (1, 1, 1)), ((128, 72, 128), (1, 2, 1)), ((128, 80, 128), (1, 2, 1)),
                         ((128, 88, 128), (1, 2, 1)), ((128, 96, 128), (1, 2, 1))]
    swapped_120 = ((128, 120, 128), (1, 2, 1), True)
    assert [(t.cta, t.cluster, t.swap_ab) for t in (shape_tile(fp8, M, N) for M, N in (
        (225, MID_N), (240, TALL_N - 1), (240, TALL_N)))] == [swapped_120, swapped_120,
                                                             ((128, 144, 128), (2, 1, 1), False)]
    # int8's columns go in 16s: 128x128 stands in
    int8 = fp8.replace(a=cg.Operand("int8"), b=cg.Operand("int8", "column"), accumulator="int32")
    assert (shape_tile(int8, 240, MID_N).cta, shape_tile(int8, 240, MID_N).swap_ab) == ((128, 128, 128), False)
    assert shape_tile(fp8, 96, 4400).cluster == (1, 1, 1)  # the 96-wide column's 4x1 cluster is 16-bit's only
    # a set cooperative epilogue subtile (128 rows) does not fit the swapped pingpong tiles: 128x128 stands in
    coop_epilogue = SPEC.replace(tile={"epilogue_tile": (128, 32)})
    assert shape_tile(SPEC, 80, 8192).mainloop == "pingpong"
    assert shape_tile(coop_epilogue, 80, 8192).cta == (128, 128, 64) and not shape_tile(coop_epilogue, 80).swap_ab
    assert shape_tile(coop_epilogue, 120, MID_N).cta == (128, 64, 64)  # the N class's own tile takes it
    assert shape_tile(coop_epilogue, 120, 4096).cta == (128, 128, 64)  # the bucket's swapped pingpong tile does not


def test_a_class_tile_the_spec_refuses_falls_back_to_the_next_valid_one():
    from cutlassgen.arch import WGMMA_BASE_N
    from cutlassgen.tiles import (ONE_COLUMN_N, ONE_TOKEN_TILE_END_N, SHORT_LAST_WEIGHT_TILE_N, TALL_N,
                                  THREE_TILES_END_N, WIDE_N, shape_tile)

    # fp8's promotion buffer refuses the one 224-wide column (224 accumulators a thread): the class of N below it
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    tile = shape_tile(fp8, 216, 14336)
    assert (tile.cta, tile.cluster, tile.swap_ab) == ((128, 112, 128), (1, 2, 1), True)
    assert shape_tile(fp8, 200, 14336).cta == (128, 208, 128)  # 208 accumulators: allowed
    # nor the 192-row weight tiles from TALL_N (three 64-row wgmmas of 112 tokens: 336 accumulators a thread): below
    # WIDE_N the two 128-row columns of before (104 wide at 193-208 rows), from it the one column
    assert shape_tile(fp8, 200, 10240).cta == (128, 104, 128) and shape_tile(fp8, 200, 12288).cta == (128, 208, 128)
    fast = fp8.replace(tile={"fp8_fast_accum": True})
    int8 = cg.GemmSpec(arch=90, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("bf16"))
    # int8 takes no column off steps of 16 (validate.n_step_of): the 112-wide one where fp8 takes 104
    assert shape_tile(fast, 200, 12288).cta == (192, 104, 128) and shape_tile(int8, 200, 12288).cta == (192, 112, 128)
    # nor three 88-wide columns at 241-256 rows (N 4225-4607): 128x128, not the bucket's own two 128-wide columns
    # under 64-row weight tiles, which pass a wave there
    assert shape_tile(int8, 250, 4400).cta == (128, 128, 128) and shape_tile(fast, 250, 4400).cta == (128, 88, 128)
    # 8-bit operands take the three 64-row token tiles from 161 rows only (fp8 lost at 160x8704, run 77); without
    # fast accumulation fp8 holds neither unswapped form nor the 192-row tile: the two 128-row columns of before
    assert shape_tile(fast, 150, 9216).cta == (192, 80, 128) and shape_tile(fast, 170, 9600).cta == (64, 224, 128)
    assert shape_tile(fp8, 170, 9216).cta == (128, 88, 128) and shape_tile(fp8, 190, 10240).cta == (128, 96, 128)
    # tf32 takes no tile off wgmma's base N: the narrower class's tile, the bucket's own, else 128x128
    tf32 = cg.GemmSpec(arch=90, a=cg.Operand("fp32"), b=cg.Operand("fp32", "column"), d=cg.Operand("fp32"))
    assert (shape_tile(tf32, 40, 5000).cta, shape_tile(tf32, 40, 5000).cluster) == ((64, 32, 64), (1, 2, 1))
    assert (shape_tile(tf32, 100, 12520).cta, shape_tile(tf32, 100, 12520).cluster) == ((128, 64, 32), (1, 2, 1))
    assert shape_tile(tf32, 72, 12520).cta == (128, 128, 32) and not shape_tile(tf32, 72, 12520).swap_ab
    assert shape_tile(tf32, 250, 12520).cta == (128, 256, 32)  # a base N: the one column itself (no tall tiles)
    # whatever falls back, the 192-row and the N / 64-wide tiles stay inside their band of N, where they fill one wave
    for spec in (SPEC, fp8, fast, int8, tf32):
        for M in range(1, 300, 7):
            for N in (None, 1024, TALL_N - 1, TALL_N, 9216, 9217, THREE_TILES_END_N - 1, THREE_TILES_END_N, 10240,
                      10241, ONE_TOKEN_TILE_END_N - 1, ONE_TOKEN_TILE_END_N, 12288, ONE_COLUMN_N - 1, ONE_COLUMN_N,
                      14336, 28672):
                tile = shape_tile(spec, M, N)
                unswapped = tile is not None and not tile.swap_ab
                tall = tile is not None and tile.cta[0] == 192 and tile.swap_ab
                fitted = unswapped and tile.cta[1] in (144, 160, 176, 192)
                three = unswapped and tile.cta[:2] == (64, 224)
                one_token = unswapped and tile.cta[:2] == (192, 80)
                in_band = N is not None and TALL_N <= N < (WIDE_N if M <= 128 else ONE_COLUMN_N)
                # the unswapped tiles where the 192-row ones leave SMs idle; fp8's promotion buffer holds none of the
                # 145-192-row ones
                fitted_band = in_band and (224 < M <= 256 or (96 < M <= 128 and N < 10241)
                                           or (208 < M <= 224 and N < 9217))
                holds = spec is not tf32 and spec is not fp8
                # at 161-176 rows the 192-row tile where the last 224-wide weight tile is short (16-bit operands,
                # fp8 with fast accumulation)
                short_last = spec in (SPEC, fast) and M <= 176 and N in range(*SHORT_LAST_WEIGHT_TILE_N)
                three_band = holds and in_band and N < THREE_TILES_END_N and 160 < M <= 192 and not short_last
                one_token_band = holds and in_band and THREE_TILES_END_N <= N < ONE_TOKEN_TILE_END_N and 176 < M <= 192
                # fp8's promotion buffer leaves room for the 48- and 64-wide columns of 65-128 rows only
                assert tall == (spec is not tf32 and (spec is not fp8 or M <= 128) and 64 < M <= 224 and in_band
                                and not fitted_band and not three_band and not one_token_band), (spec.a.dtype, M, N,
                                                                                                 tile)
                assert fitted == (spec is not tf32 and fitted_band), (spec.a.dtype, M, N, tile)
                assert three == three_band and one_token == one_token_band, (spec.a.dtype, M, N, tile)
    # fp8 without fast accumulation at 241-256 rows past the band: 128x128 as before, not a band's tile
    assert shape_tile(fp8, 256, 14336).cta == (128, 128, 128)
    for M in range(1, 260, 3):
        for N in (None, 1024, 5000, 8192, 12520):
            tile = shape_tile(tf32, M, N)
            assert tile is None or tile.cta[1] in WGMMA_BASE_N, (M, N, tile)


def test_every_operand_width_classes_at_the_thresholds_shape_class_knows():
    from cutlassgen.tiles import _N_THRESHOLDS, BUCKET_UPPER, OPERAND_KINDS, _n_classes

    # shape_class (and so a dispatch plan's classes) knows the thresholds of every kind of operands; a class at an N
    # it lacks would never be reached
    assert (1, True) in OPERAND_KINDS and (2, False) in OPERAND_KINDS
    for k_bytes, fp8 in OPERAND_KINDS:
        for upper, classes in _n_classes(k_bytes, fp8).items():
            assert {n for n, _ in classes} <= set(_N_THRESHOLDS[BUCKET_UPPER.index(upper)]), (k_bytes, fp8, upper)


def test_large_m_with_wide_weights_takes_128x128_pingpong():
    from cutlassgen.tiles import BUCKET_UPPER, WIDE_N, shape_class, shape_tile

    for M in (513, 4096):
        wide = shape_tile(SPEC, M, WIDE_N)
        assert (wide.cta, wide.cluster, wide.mainloop, wide.scheduler) == ((128, 128, 64), (1, 1, 1), "pingpong",
                                                                           "persistent"), M
        assert not wide.swap_ab
        assert shape_tile(SPEC, M, WIDE_N - 1) is None and shape_tile(SPEC, M) is None, M  # the default tile
    last = BUCKET_UPPER.index(None)
    assert shape_class(4096, 14336) == (last, WIDE_N) and shape_class(4096, 8192) == (last, 0)
    assert shape_tile(SPEC, 512, 14336) is None and shape_class(512, 14336) == (last - 2, 0)  # measured slower at 512
    assert shape_class(2048, 14336) == (last - 1, WIDE_N)  # exact fp8's EXACT_WIDE_M; one entry for bf16, below
    fp8 = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    # the promotion buffer turns 128x128 pingpong away (128x128 accumulators twice per warpgroup): the default up to
    # EXACT_WIDE_M rows, 128x192 cooperative above them
    assert shape_tile(fp8, 2048, 14336) is None and shape_tile(fp8, 600, 14336) is None
    # cooperative there: two warpgroups share them (one 128x256 column with the buffer: 256 accumulators a thread)
    assert shape_tile(fp8, 256, 14336).cta == (128, 128, 128)
    fast = fp8.replace(tile={"fp8_fast_accum": True})
    tile = shape_tile(fast, 4096, 14336)
    assert (tile.cta, tile.mainloop) == ((128, 128, 128), "pingpong") and tile.fp8_fast_accum
    rec = dispatch.heuristic_record(SPEC, [(4096, 8192, 8192), (4096, 14336, 4096)])
    assert [w.get("n_min", 0) for w in rec["winners"]] == [WIDE_N, 0] and rec["winners"][1]["tile"] is None
    k = _fake_dispatch(SPEC, rec)
    assert k.choose(1024, 14336).spec.tile.mainloop == "pingpong" and k.choose(8192, 8192).spec is SPEC
    assert k.choose(8192).spec is SPEC  # N unknown: the default
    # no shape off the spec's own tile: no record, no variants, the default kernel itself (exact fp8 above 256 rows)
    exact = fp8.replace(tile=cg.Sm90Tile())
    assert dispatch.heuristic_record(exact, [(8192, 8192, 8192), (2048, 14336, 4096)]) is None
    assert dispatch.heuristic_variants(exact, None) == []
    default = _fake_kernel(exact)
    assert dispatch.with_heuristic(default, None, []) is default


@pytest.mark.parametrize("gpu, strips", [("NVIDIA H200", "auto"), ("NVIDIA H100 80GB HBM3", 4), ("NVIDIA H100 PCIe", 4),
                                          ("NVIDIA GH200 480GB", "auto"), (None, "auto")])
def test_the_wide_n_pingpong_entry_runs_strips_of_4_on_h100s(gpu, strips, monkeypatch):
    """The M > 512, N >= WIDE_N pingpong tile of 16-bit floats was chosen on the H200 with "auto"'s strips of 8; H100s
    run it with strips of 4 (session 100). Its entry in the plan names the models and their tile (instead_on), both
    tiles are compiled, and a DispatchKernel made or first called on an H100 runs the strips-of-4 kernel there; the
    other entries, and other GPUs, keep the plan. The per-shape hint names the tile this GPU runs."""
    import torch

    from cutlassgen import tiles

    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu is not None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: gpu)
    monkeypatch.setattr(dispatch, "sm_count", lambda: None if gpu is None else 132)
    wide = dispatch.heuristic_record(SPEC, [(4096, 14336, 4096), (4096, 8192, 8192), (32, 8192, 8192)])
    strips_of_4 = dispatch.tile_to_dict(dataclasses.replace(tiles.shape_tile(SPEC, 4096, 14336, 4096), swizzle=4))
    # the 32-row entry, then M > 512 at N >= WIDE_N, then below
    assert [w.get("instead_on") for w in wide["winners"]] == [None, {"H100": strips_of_4}, None]
    variants = dispatch.heuristic_variants(SPEC, wide)
    assert [v.tile.swizzle for v in variants if v.tile.mainloop == "pingpong" and not v.tile.swap_ab
            and v.tile.cta[:2] == (128, 128)] == ["auto", 4]
    k = _fake_dispatch(SPEC, wide)
    chosen = k.choose(4096, 14336, 4096)
    assert (chosen.spec.tile.mainloop, chosen.spec.tile.cta[:2], chosen.spec.tile.swizzle) == (
        "pingpong", (128, 128), strips)
    assert chosen.spec in variants and k.choose(2048, 28672, 4096) is chosen
    if strips == 4:
        assert f"pingpong swizzle4 in place of 128x128x64 c1x1 pingpong on {gpu}" in repr(k)
    else:
        assert "swizzle4" not in repr(k)
    assert k.choose(32, 8192, 8192).spec.tile.swap_ab and k.choose(4096, 8192, 8192) is k.default  # untouched
    assert "pingpong" + (" swizzle4" if strips == 4 else " for it") in dispatch.per_shape_hint(SPEC, 4096, 14336, 4096)
    assert dispatch.planned_tile(SPEC, 4096, 14336, 4096, gpu) == chosen.spec.tile
    # a pickle carries both kernels and checks its own GPU
    again = k.__reduce__()[0](*k.__reduce__()[1])
    assert again.choose(4096, 14336, 4096) is chosen


def test_only_the_16_bit_wide_n_pingpong_tile_has_another_on_h100s_and_a_set_swizzle_stands(monkeypatch):
    from cutlassgen import tiles

    fast = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"),
                       tile=cg.Sm90Tile(fp8_fast_accum=True))
    # fp8 with fast accumulation ran strips of 4 0.97-1.03x "auto" on an H100: it keeps its pingpong tile everywhere
    assert tiles.instead_on(fast, 4096, tiles.WIDE_N, tiles.shape_tile(fast, 4096, tiles.WIDE_N)) == {}
    for M in (513, 4096, 8192):
        plan = tiles.shape_tile(SPEC, M, tiles.WIDE_N, 4096)
        assert plan.swizzle == "auto" and tiles.instead_on(SPEC, M, tiles.WIDE_N, plan) == {
            "H100": dataclasses.replace(plan, swizzle=4)}, M
    assert tiles.shape_tile(SPEC, 4096, tiles.WIDE_N - 1) is None  # the default already
    assert tiles.instead_on(SPEC, 256, tiles.WIDE_N, tiles.shape_tile(SPEC, 256, tiles.WIDE_N)) == {}
    fp16 = SPEC.replace(a=cg.Operand("fp16"), b=cg.Operand("fp16", "column"), d=cg.Operand("fp16"),
                        epilogue=[cg.Add("per_col", "bias", "fp16")])
    assert tiles.instead_on(fp16, 4096, 14336, tiles.shape_tile(fp16, 4096, 14336))["H100"].swizzle == 4
    # a spec's own swizzle stands on every GPU: no other tile, and the plan's keeps it
    own = SPEC.replace(tile={"swizzle": 2})
    assert tiles.shape_tile(own, 4096, 14336).swizzle == 2
    assert tiles.instead_on(own, 4096, 14336, tiles.shape_tile(own, 4096, 14336)) == {}
    assert "instead_on" not in dispatch.heuristic_record(own, [(4096, 14336, 4096)])["winners"][-1]
    # a table entry of None runs the spec's default there (the H100 rule from 08248a9 to session 100)
    monkeypatch.setattr(cg.tiles, "WIDE_PINGPONG_INSTEAD_ON", {"H100": None})
    rec = dispatch.heuristic_record(SPEC, [(4096, 14336, 4096)])
    assert rec["winners"][-1]["instead_on"] == {"H100": None}
    assert dispatch.heuristic_variants(SPEC, rec)[0] == SPEC.replace(tile=tiles.shape_tile(SPEC, 4096, 14336, 4096))
    k = _fake_dispatch(SPEC, rec)
    monkeypatch.setattr(dispatch, "gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(dispatch, "sm_count", lambda: 132)
    k._check_gpu()
    assert k.choose(4096, 14336, 4096) is k.default and "default (auto) in place of" in repr(k)
    # wave fill was measured against the plan's tile: where the default runs in its place, so does it at 768 rows
    assert k.choose(768, 14336, 4096) is k.default


def test_wave_fill_runs_the_tile_whose_tiles_fill_the_waves_better_or_at_ragged_m():
    """Above 512 rows the wide-N pingpong entry runs 128x224 cooperative where M is ragged in 128-row tiles, and up
    to WAVE_FILL_MAX_M rows where its tiles fill the waves of the GPU's SMs better by WAVE_FILL_MARGIN
    (tiles.wave_fill_choice, h100_session103.log, h100_session105.log and h100_session107.log): at 768x14336 128x128
    tiles make 5.09 waves of 132 SMs, 128x224 2.91; at 896x14336 and 1024 rows 128x128 fills its waves already;
    960x18432 (7.5 rows of tiles) and 2000x14336 are ragged."""
    from cutlassgen import tiles

    ctas = [(128, 128), (128, 224)]
    assert tiles.wave_fill(768, 14336, (128, 128), 132) == pytest.approx(672 / 792)
    assert tiles.wave_fill(768, 12288, (128, 112), 132) == 1.0  # 660 tiles, five full waves
    choices = {(M, N): tiles.wave_fill_choice(M, N, ctas, 132) for M, N in (
        (768, 14336), (896, 12288), (768, 28672), (1280, 14336), (640, 14336), (768, 12288),
        (896, 14336), (640, 12288), (768, 16384), (1024, 14336), (1024, 28672), (896, 28672),
        (960, 18432), (576, 13824), (1100, 14336), (1535, 12288), (1408, 13824), (1152, 18432))}
    assert choices == {(768, 14336): 1, (896, 12288): 1, (768, 28672): 1, (1280, 14336): 1, (640, 14336): 0,
                       (768, 12288): 0, (896, 14336): 0, (640, 12288): 0, (768, 16384): 0, (1024, 14336): 0,
                       (1024, 28672): 0, (896, 28672): 0, (960, 18432): 1, (576, 13824): 1, (1100, 14336): 1,
                       (1535, 12288): 1, (1408, 13824): 0, (1152, 18432): 0}
    # the first tile that fills better wins, where there are several
    assert tiles.wave_fill_choice(768, 14336, [*ctas, (128, 112)], 132) == 1
    assert tiles.wave_fill_choice(640, 14336, [*ctas, (128, 112)], 132) == 2
    # ragged M above 1536 rows too, but not the fill by waves there; at 512 rows or fewer, without an SM count, or with
    # nothing to choose from: the plan's tile
    assert [tiles.wave_fill_choice(M, 14336, ctas, 132) for M in (1537, 2000, 4000, 4097, 16001)] == [1] * 5
    # 1792x12288: 128x224's 448 tiles would fill their waves 0.972, 128x128's 1344 0.926
    assert [tiles.wave_fill_choice(M, N, ctas, 132) for M, N in ((1792, 12288), (3072, 12288), (4096, 14336))] == [
        0] * 3
    assert [tiles.wave_fill_choice(M, 14336, ctas, 132) for M in (512, 500, 384)] == [0] * 3
    assert tiles.wave_fill_choice(768, 14336, ctas, None) == tiles.wave_fill_choice(700, 14336, ctas, None) == 0
    assert tiles.wave_fill_choice(700, 14336, ctas[:1], 132) == 0
    # the SM count decides: 114 SMs (H100 PCIe) hold 672 128x128 tiles in 5.89 waves; ragged M goes by rows alone
    assert tiles.wave_fill_choice(768, 14336, ctas, 114) == 0 and tiles.wave_fill_choice(700, 14336, ctas, 114) == 1
    # of the 16-bit tiles only the wide-N pingpong one has them (fp8 fast's twin: the test below); a spec's own
    # swizzle carries over
    plan = tiles.shape_tile(SPEC, 768, 14336, 4096)
    assert [(t.cta, t.mainloop) for t in tiles.wave_fill_tiles(SPEC, 768, 14336, plan)] == [
        ((128, 224, 64), "cooperative")]
    own = SPEC.replace(tile={"swizzle": 2})
    assert {t.swizzle for t in tiles.wave_fill_tiles(own, 768, 14336, tiles.shape_tile(own, 768, 14336))} == {2}
    assert tiles.wave_fill_tiles(SPEC, 256, 14336, tiles.shape_tile(SPEC, 256, 14336)) == []
    assert tiles.wave_fill_tiles(SPEC, 2000, 8192, tiles.shape_tile(SPEC, 2000, 8192)) == []  # the default, coop


FAST = cg.GemmSpec(arch=90, name="dispatch_fast", a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"),
                   d=cg.Operand("bf16"), tile=cg.Sm90Tile(fp8_fast_accum=True))


def test_fp8_fast_pingpong_has_a_fitted_twin_for_ragged_m_only():
    """fp8 fast accumulation's 128x128 pingpong above 512 rows (its default, and the plan's tile at N >= WIDE_N) has
    a twin loading the last token tile in a box fitted to its rows (Sm90Tile.fitted_tail; raggedother,
    h100_session108.log: 1.05-1.38x at ragged M, 0.3-3.5% behind where M fills its tiles): the same resolved tile, run
    at ragged M only and at any N; not at 512 rows or fewer, not for another tile, cluster or exact fp8."""
    from cutlassgen import tiles

    for M, N in ((513, 8192), (2000, 8192), (768, 14336), (8000, 4096)):
        plan = tiles.shape_tile(FAST, M, N)
        own = tiles.resolve(FAST if plan is None else FAST.replace(tile=plan))
        twins = tiles.wave_fill_tiles(FAST, M, N, plan)
        assert [(t.cta, t.cluster, t.mainloop, t.fitted_tail) for t in twins] == [
            (own.cta, own.cluster, "pingpong", True)], (M, N)
        assert dataclasses.replace(twins[0], fitted_tail=False, cta=own.cta) == dataclasses.replace(
            plan or dataclasses.replace(FAST.tile, cta=own.cta, cluster=own.cluster, mainloop="pingpong"),
            cta=own.cta), (M, N)  # nothing else changes
    assert tiles.wave_fill_tiles(FAST, 512, 8192, tiles.shape_tile(FAST, 512, 8192)) == []
    exact = FAST.replace(tile={})
    assert tiles.wave_fill_tiles(exact, 2000, 8192, tiles.shape_tile(exact, 2000, 8192)) == []
    coop = cg.Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative", fp8_fast_accum=True)
    assert tiles.wave_fill_tiles(FAST, 2000, 8192, coop) == []
    in_cluster = cg.Sm90Tile(cta=(128, 128, 128), cluster=(1, 2, 1), mainloop="pingpong", fp8_fast_accum=True)
    assert tiles.wave_fill_tiles(FAST, 2000, 8192, in_cluster) == []
    # the twin runs at ragged M only, and at any N (its CTA tile is the plan's); without an SM count never
    same = [(128, 128, 128), (128, 128, 128)]
    assert [tiles.wave_fill_choice(M, N, same, 132) for M, N in (
        (2000, 8192), (700, 4096), (513, 14336), (2048, 8192), (768, 14336), (512, 8192), (500, 8192))] == [
        1, 1, 1, 0, 0, 0, 0]
    assert tiles.wave_fill_choice(2000, 8192, same, None) == 0
    # a tuned winner of that tile, timed where M fills its tiles, runs its own twin (its swizzle kept) at ragged M
    tuned = cg.Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="pingpong", fp8_fast_accum=True, swizzle=4)
    assert [(t.fitted_tail, t.swizzle, t.cta) for t in tiles.tuned_ragged_tiles(FAST, 4096, 8192, 4096, tuned)] == [
        (True, 4, (128, 128, 128))]
    assert tiles.tuned_ragged_tiles(FAST, 2000, 8192, 4096, tuned) == []  # timed at ragged M: against its own loads
    assert tiles.tuned_ragged_tiles(FAST, 4096, 8192, 4096, coop) == []


@pytest.mark.parametrize("sms", [132, None])
def test_a_fp8_fast_dispatch_kernel_runs_the_fitted_twin_at_ragged_m(sms, monkeypatch):
    """fp8 fast's plan above 512 rows is its default tile (and at N >= WIDE_N the same tile named), yet the record
    carries the twin for both entries, compiled once (one key), and choose() runs it at ragged M on a GPU; repr,
    planned_tile and a pickle agree. At M a multiple of 128 the entry's own kernel."""
    monkeypatch.setattr(dispatch, "sm_count", lambda: sms)
    rec = dispatch.heuristic_record(FAST, [(2000, 8192, 4096), (4096, 14336, 4096)])
    assert rec is not None and [w["tile"] is None for w in rec["winners"]] == [False, True]
    assert [[t["fitted_tail"] for t in w["wave_fill"]] for w in rec["winners"]] == [[True], [True]]
    variants = dispatch.heuristic_variants(FAST, rec)
    assert len({v.key for v in variants if v.tile.fitted_tail}) == 1
    k = _fake_dispatch(FAST, rec)
    for M, N in ((2000, 8192), (700, 14336), (2048, 8192), (4096, 14336), (300, 8192)):
        chosen = k.choose(M, N, 4096)
        ragged = M > 512 and M % 128 != 0
        assert chosen.spec.tile.fitted_tail == bool(ragged and sms), (M, N)
        assert (dispatch.planned_tile(FAST, M, N, 4096, None, sms) or FAST.tile) == chosen.spec.tile, (M, N)
    assert k.choose(2048, 8192, 4096) is k.default
    assert "(where M is ragged or the walk pads rows past M: 128x128x128 c1x1 pingpong fitted-tail)" in (
        repr(k))
    again = k.__reduce__()[0](*k.__reduce__()[1])
    assert again.choose(2000, 8192, 4096).spec == k.choose(2000, 8192, 4096).spec
    # the default kernel alone (build(spec)) says once that the twin would run such a call, where a GPU is seen
    hint = dispatch.per_shape_hint(FAST, 2000, 8192, 4096)
    assert (hint is not None and "the per-shape tile 128x128x128 c1x1 pingpong fitted-tail" in hint) == bool(sms)
    assert dispatch.per_shape_hint(FAST, 2048, 8192, 4096) is None
    # bf16's default above 512 rows (128x256 c2x1 cooperative) has no twin: no record at N below WIDE_N
    assert dispatch.heuristic_record(SPEC, [(2000, 8192, 4096)]) is None


@pytest.mark.parametrize("sms", [132, None])
def test_the_fitted_twin_runs_at_aligned_m_where_the_walk_runs_tiles_wholly_past_it(sms, monkeypatch):
    """Where the scheduler's strips pad the grid's tile rows (the swept A outgrows L2: tiles.walk_rows_past_m) the
    plan's fp8 fast call runs the twin at M a multiple of 128 too, whose tiles wholly past M load no activation
    (load_hints.hpp; pastrows, h100_session111.log: 1.22x cold at 8064x14336x8192); where nothing pads, or K is not
    known, or no GPU is seen, the entry's own kernel. A tuning record's twin stays at ragged M."""
    from cutlassgen import tiles

    monkeypatch.setattr(dispatch, "sm_count", lambda: sms)
    rec = dispatch.heuristic_record(FAST, [(8064, 14336, 8192), (8000, 8192, 8192)])
    k = _fake_dispatch(FAST, rec)
    cases = {(8064, 14336, 8192): 1, (8000, 8192, 8192): 1, (8064, 8192, 8192): 1, (8192, 14336, 8192): 0,
             (8064, 14336, 4096): 0, (8064, 4096, 8192): 0, (4032, 14336, 8192): 0}
    for (M, N, K), past in cases.items():
        own = tiles.shape_tile(FAST, M, N, K)
        assert tiles.walk_rows_past_m(FAST if own is None else FAST.replace(tile=own), M, N, K) == past, (M, N, K)
        chosen = k.choose(M, N, K)
        assert chosen.spec.tile.fitted_tail == bool(sms and (past or M % 128)), (M, N, K)
        assert (dispatch.planned_tile(FAST, M, N, K, None, sms) or FAST.tile) == chosen.spec.tile, (M, N, K)
    assert not k.choose(8064, 14336).spec.tile.fitted_tail  # without K the walk is not known
    assert k.choose(8064, 14336, 8192) is k.choose(8064, 14336, 8192)  # kept per shape, same answer
    same = [(128, 128, 128), (128, 128, 128)]

    def unasked():
        raise AssertionError("rows_past asked where the rule does not need it")
    assert tiles.wave_fill_choice(8064, 14336, same, 132, rows_past=lambda: 1) == 1
    assert tiles.wave_fill_choice(8064, 14336, same, 132, by_waves=False, rows_past=unasked) == 0
    assert tiles.wave_fill_choice(8000, 14336, same, 132, rows_past=unasked) == 1  # ragged: the twin anyway
    assert tiles.wave_fill_choice(512, 14336, same, 132, rows_past=unasked) == 0
    assert tiles.wave_fill_choice(8192, 14336, [(128, 128, 64), (128, 224, 64)], 132, by_waves=False,
                                  rows_past=unasked) == 0


def test_a_dispatch_kernel_keeps_the_walk_of_its_most_recently_called_shapes(monkeypatch):
    """choose() works out tiles.walk_rows_past_m once per shape and keeps ROWS_PAST_KEPT shapes, dropping the least
    recently called first (a serving loop's few shapes stay however many others pass)."""
    from cutlassgen import tiles

    monkeypatch.setattr(dispatch, "sm_count", lambda: 132)
    monkeypatch.setattr(dispatch, "ROWS_PAST_KEPT", 2)
    worked = []
    walk = tiles.walk_rows_past_m
    monkeypatch.setattr(tiles, "walk_rows_past_m", lambda spec, M, N, K: worked.append(M) or walk(spec, M, N, K))
    k = _fake_dispatch(FAST, dispatch.heuristic_record(FAST, [(8064, 14336, 8192)]))
    for M in (8064, 7936, 8064, 7808, 8064, 7936):  # 7808 drops 7936, not the more recent 8064
        assert k.choose(M, 14336, 8192).spec.tile.fitted_tail == bool(walk(FAST.replace(
            tile=tiles.shape_tile(FAST, M, 14336, 8192)), M, 14336, 8192))
    assert worked == [8064, 7936, 7808, 7936]


@pytest.mark.parametrize("gpu", ["NVIDIA H100 80GB HBM3", "NVIDIA H200", None])
def test_on_h100s_the_wide_n_plan_runs_its_fill_tile_at_aligned_m_where_the_walk_runs_tiles_wholly_past_it(
        gpu, monkeypatch):
    """Above WAVE_FILL_MAX_M, at M a multiple of 128, the plan's 16-bit wide-N call on an H100 runs 128x224
    cooperative where the scheduler's strips pad the grid with rows of tiles wholly past M (tiles.walk_rows_past_m;
    big14k, h100_session111.log: 128x128 pingpong 565 vs 128x224 683 TFLOP/s cold at 8064x14336x8192); where nothing
    pads or K is not known, its own tile (the H100s' swizzle-4 one, which pads alike); other GPUs
    (tiles.PADDED_WALK_FILL_ON: not measured there) and none keep the entry's tile; at M <= WAVE_FILL_MAX_M the waves
    decide, as before. planned_tile agrees with choose()."""
    import torch

    from cutlassgen import tiles

    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu is not None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: gpu)
    monkeypatch.setattr(dispatch, "sm_count", lambda: None if gpu is None else 132)
    rec = dispatch.heuristic_record(SPEC, [(8064, 14336, 8192)])
    k = _fake_dispatch(SPEC, rec)
    h100 = gpu is not None and "H100" in gpu
    cases = {(8064, 14336, 8192): 1, (8064, 14336, 4096): 1, (8064, 12288, 4096): 1, (16256, 14336, 4096): 1,
             (8192, 14336, 8192): 0, (2048, 14336, 4096): 0, (8064, 14336, 2048): 0}
    for (M, N, K), past in cases.items():
        own = tiles.shape_tile(SPEC, M, N, K)
        assert own.cta[:2] == (128, 128) and own.mainloop == "pingpong", (M, N, K)
        strips_of_4 = tiles.instead_on(SPEC, M, N, own)["H100"]
        for tile in (own, strips_of_4):
            assert tiles.walk_rows_past_m(SPEC.replace(tile=tile), M, N, K) == past, (M, N, K)
        chosen = k.choose(M, N, K).spec.tile
        expected = ((128, 224), "auto") if past and h100 else ((128, 128), 4 if h100 else "auto")
        assert (chosen.cta[:2], chosen.swizzle) == expected, (M, N, K)
        assert dispatch.planned_tile(SPEC, M, N, K, gpu, None if gpu is None else 132) == chosen, (M, N, K)
    assert k.choose(8064, 14336).spec.tile.cta[:2] == (128, 128)  # without K the walk is not known
    assert "or M>1536 on an H100 and the walk pads rows past M" in repr(k) and "128x224x64 c1x1 cooperative" in repr(k)

    def unasked():
        raise AssertionError("rows_past asked where it does not decide")
    # at 513-1536 rows the waves alone decide (1408 rows: the plan's tiles fill 0.93 of their last wave, 128x224's 0.89)
    assert tiles.wave_fill_choice(1408, 14336, [(128, 128, 64), (128, 224, 64)], 132, rows_past=unasked,
                                  walk_fill=True) == 0
    assert tiles.wave_fill_choice(8064, 14336, [(128, 128, 64), (128, 224, 64)], 132, rows_past=unasked) == 0


@pytest.mark.parametrize("sms", [132, None])
def test_a_dispatch_kernel_runs_the_wave_fill_tile_by_the_calls_shape(sms, monkeypatch):
    """The plan's entry carries its wave-fill tiles, all are compiled, and choose() picks among them per call by the
    GPU's SM count, read once (none without a GPU: the entry's own tile); repr, planned_tile and a pickle agree."""
    monkeypatch.setattr(dispatch, "sm_count", lambda: sms)
    rec = dispatch.heuristic_record(SPEC, [(768, 14336, 4096), (4096, 8192, 8192)])
    wide = rec["winners"][0]
    assert [(tuple(t["cta"]), t["mainloop"]) for t in wide["wave_fill"]] == [((128, 224, 64), "cooperative")]
    variants = dispatch.heuristic_variants(SPEC, rec)
    # the entry's own, the H100s' (tiles.instead_on), then the wave-fill tiles
    assert [v.tile.cta[:2] for v in variants] == [(128, 128), (128, 128), (128, 224)]
    k = _fake_dispatch(SPEC, rec)
    own = k.choose(4096, 14336, 4096)
    assert own.spec.tile.cta[:2] == (128, 128) and k.choose(896, 14336, 4096) is own
    picked = [k.choose(M, 14336, 4096).spec.tile.cta[:2] for M in (768, 700, 640)]
    assert picked == ([(128, 224), (128, 224), (128, 128)] if sms else [(128, 128)] * 3)
    assert k.choose(768, None, None) is k.default  # N unknown: no N class, so no wave fill either
    assert k.choose(768, 8192, 8192) is k.default  # below WIDE_N
    for M in (640, 700, 768, 896):
        assert dispatch.planned_tile(SPEC, M, 14336, 4096, None, sms) == k.choose(M, 14336, 4096).spec.tile
    assert ("where M is ragged, or M>1536 on an H100 and the walk pads rows past M, or M<=1536 and it fills the waves "
            "better: 128x224x64 c1x1 cooperative)") in repr(k)
    again = k.__reduce__()[0](*k.__reduce__()[1])
    assert again.choose(768, 14336, 4096) is k.choose(768, 14336, 4096)


def test_a_tuned_wide_pingpong_tile_runs_the_ragged_m_tile_where_its_tuning_did_not_see_ragged_m(tmp_path,
                                                                                                   monkeypatch):
    """A tuning record whose winner is the wide-N 128x128 pingpong tile, timed at M a multiple of 128, runs the plan's
    128x224 cooperative at ragged M above 512 rows (tiles.tuned_ragged_tiles; h100_session107.log: 0.70x vs
    0.94-0.96x cuBLASLt fused), but never by waves: the tuning timed both at its shape. A winner timed at ragged M, one
    in a cluster and other tiles keep their own. A fill tile that does not build leaves the tuned tiles running."""
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))  # SPEC's records stay out of the shared test cache
    monkeypatch.setattr(dispatch, "sm_count", lambda: 132)
    monkeypatch.setattr(dispatch, "gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    pingpong = cg.Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1), mainloop="pingpong", swizzle=4)
    pingpong_c2 = dataclasses.replace(pingpong, cluster=(2, 1, 1))

    def record(*winners):
        dispatch.write_record(SPEC, 90, "NVIDIA H100 80GB HBM3", [
            {"shape": list(shape), "tile": dispatch.tile_to_dict(tile), "label": label, "tflops": 700.0,
             "default_tflops": 690.0} for shape, tile, label in winners])

    built = []

    def build_many(specs, arch=None):
        built.append([s.tile for s in specs])
        return [_fake_kernel(s) for s in specs]

    record(((768, 14336, 4096), pingpong, "pp"), ((4096, 14336, 4096), pingpong, "pp"), ((200, 14336, 4096), SMALL,
                                                                                          "small"))
    k = dispatch.tuned(_fake_kernel(SPEC), 90, build_many)
    assert [[(t.cta[:2], t.mainloop, t.swizzle) for t in b] for b in built[1:]] == [
        [((128, 224), "cooperative", "auto")] * 2]  # one for each pingpong entry, the plan's (auto swizzle)
    chosen = {M: (k.choose(M, 14336, 4096).spec.tile.cta[:2]) for M in (700, 768, 2000, 4000, 4096, 200, 250)}
    assert chosen == {700: (128, 224), 768: (128, 128), 2000: (128, 224), 4000: (128, 224), 4096: (128, 128),
                      200: (64, 128), 250: (64, 128)}  # 768: 128x224 fills the waves better, but the tuning timed it
    assert k.choose(4000, 8192, 4096).spec.tile.cta[:2] == (128, 128)  # below WIDE_N: the tuned tile
    assert "4096: pp (where M is ragged: 128x224x64 c1x1 cooperative)" in repr(k).replace("M<=inf", "4096")
    again = k.__reduce__()[0](*k.__reduce__()[1])
    assert again.choose(4000, 14336, 4096).spec.tile.cta[:2] == (128, 224)
    # tuned at ragged M, or in a cluster: no fill tile is built
    built.clear()
    record(((4000, 14336, 4096), pingpong, "pp"), ((8192, 14336, 4096), pingpong_c2, "pp c2"))
    k = dispatch.tuned(_fake_kernel(SPEC), 90, build_many)
    assert len(built) == 1 and k.choose(4001, 14336, 4096).spec.tile == pingpong
    assert k.choose(8000, 14336, 4096).spec.tile == pingpong_c2
    # the fill tile fails to build: a warning, and the tuned tiles run
    record(((4096, 14336, 4096), pingpong, "pp"))

    def fill_fails(specs, arch=None):
        if specs[0].tile.cta[1] == 224:
            raise cg.BuildError("nvcc failed", "nvcc ...", "k.cu", "build.log", ["error: boom"])
        return [_fake_kernel(s) for s in specs]

    with pytest.warns(UserWarning, match="ragged-M tile .* does not build here"):
        k = dispatch.tuned(_fake_kernel(SPEC), 90, fill_fails)
    assert k.choose(4000, 14336, 4096).spec.tile == pingpong


def test_a_model_that_runs_the_default_drops_the_wave_fill_only_in_its_own_process(monkeypatch):
    """Where a GPU model runs the default in place of the wide entry (instead_on None), that entry's wave fill goes,
    as it was measured against the entry's own tile; a pickle made there still carries the fill tiles for other GPUs."""
    monkeypatch.setattr(cg.tiles, "WIDE_PINGPONG_INSTEAD_ON", {"H100": None})
    monkeypatch.setattr(dispatch, "sm_count", lambda: 132)
    rec = dispatch.heuristic_record(SPEC, [(768, 14336, 4096)])
    k = _fake_dispatch(SPEC, rec)
    monkeypatch.setattr(dispatch, "gpu_name", lambda: "NVIDIA H100 80GB HBM3")
    assert k.choose(768, 14336, 4096) is k.default and "fills the last wave" not in repr(k)
    monkeypatch.setattr(dispatch, "gpu_name", lambda: "NVIDIA H200")
    again = k.__reduce__()[0](*k.__reduce__()[1])
    assert again.choose(768, 14336, 4096).spec.tile.cta[:2] == (128, 224)


def test_exact_fp8_above_2048_rows_with_wide_weights_takes_128x192():
    from cutlassgen.tiles import EXACT_WIDE_M, OPAQUE_PIPELINE_MAX_K, WIDE_N, shape_tile

    exact = cg.GemmSpec(arch=90, a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"), d=cg.Operand("bf16"))
    for M, N, K in ((EXACT_WIDE_M + 1, WIDE_N, 4096), (4096, 14336, 4096), (8192, 28672, 8192), (4096, 14336, 1024)):
        tile = shape_tile(exact, M, N, K)
        assert (tile.cta, tile.cluster, tile.mainloop, tile.scheduler, tile.epilogue_tile) == (
            (128, 192, 128), (1, 1, 1), "cooperative", "persistent", (128, 64)), (M, N, K)
        assert not tile.swap_ab and not tile.fp8_fast_accum and not tile.opaque_pipeline, (M, N, K)
    # fewer rows (fewer waves, where the wider tile's last wave costs more) and narrower weights keep the default;
    # below EXACT_WIDE_M a shallow K keeps the opaque 128x128 tile
    assert shape_tile(exact, EXACT_WIDE_M, 14336, 4096) is None and shape_tile(exact, 4096, WIDE_N - 1, 4096) is None
    assert shape_tile(exact, EXACT_WIDE_M, 14336, OPAQUE_PIPELINE_MAX_K).opaque_pipeline
    # one plan entry per side of EXACT_WIDE_M at N >= WIDE_N, dispatched by M
    rec = dispatch.heuristic_record(exact, [(1024, 14336, 4096), (4096, 14336, 4096), (4096, 8192, 4096)])
    assert [(w["shape"][0], w["tile"] and w["tile"]["cta"]) for w in rec["winners"]] == [
        (1024, None), (4096, [128, 192, 128]), (4096, None)]
    k = _fake_dispatch(exact, rec)
    assert k.choose(2049, 14336, 4096).spec.tile.cta == (128, 192, 128) and k.choose(2048, 14336, 4096).spec is exact
    assert k.choose(4096, 8192, 4096).spec is exact and k.choose(600, 12288, 8192).spec is exact
    # the split is exact fp8's alone: other specs' plans keep one bucket above 512 rows, so a call at rows between
    # two planned shapes takes its N class's tile as before the split (bf16 at 1024x14336: 128x128 pingpong)
    for other in (SPEC, exact.replace(tile={"fp8_fast_accum": True})):
        rec = dispatch.heuristic_record(other, [(2048, 8192, 8192), (4096, 14336, 4096)])
        assert [w.get("n_min", 0) for w in rec["winners"]] == [WIDE_N, 0] and rec["limits"] == [math.inf] * 2
        k = _fake_dispatch(other, rec)
        for M, N in ((1024, 14336), (600, 12288), (4096, 14336)):
            assert k.choose(M, N, 4096).spec.tile.mainloop == "pingpong", (other.a.dtype, M, N)
        assert k.choose(2048, 8192, 4096).spec is other


def test_m_33_to_64_tiles_follow_four_n_classes():
    from cutlassgen.tiles import LARGE_N, MID_N, WIDE_N, resolve, shape_class, shape_tile

    for M in (41, 48, 49, 64):
        narrow, mid, large, wide = (shape_tile(SPEC, M, n) for n in (4096, 6144, 8192, 28672))
        # one wave of 64-row tiles at N = 4096 (the 1x2 cluster multicasts the weights over the two token columns)
        assert (narrow.cta, narrow.mainloop, narrow.cluster) == ((64, 32, 128), "pingpong", (1, 2, 1))
        # all the tokens in one 64x48 or 64x64 CTA, their tile multicast over four weight tiles
        assert (mid.cta, mid.mainloop, mid.cluster) == ((64, 48 if M <= 48 else 64, 128), "pingpong", (4, 1, 1))
        assert (large.cta, large.mainloop, large.cluster) == ((128, 32, 128), "cooperative", (1, 2, 1))
        assert (wide.cta, wide.cluster) == ((128, 64, 128), (1, 1, 1))  # one CTA column for all the tokens
        tiles = (narrow, mid, large, wide)
        assert {t.scheduler for t in tiles} == {"persistent"} and all(t.swap_ab for t in tiles)
        assert shape_tile(SPEC, M) == narrow and shape_tile(SPEC, M, MID_N - 1) == narrow, M  # N unknown or below
        assert shape_tile(SPEC, M, MID_N) == mid and shape_tile(SPEC, M, LARGE_N - 1) == mid, M
        assert shape_tile(SPEC, M, LARGE_N) == large and shape_tile(SPEC, M, WIDE_N - 1) == large, M
    assert [shape_class(48, n)[1] for n in (None, 4096, MID_N, 6144, LARGE_N, 8192, WIDE_N, 28672)] == [
        0, 0, MID_N, MID_N, LARGE_N, LARGE_N, WIDE_N, WIDE_N]
    # 33-40 rows from N = 4096: one 40-wide token tile in 4x1 clusters, 2x1 from LARGE_N (runs 82-83); below 4096
    # the 33-48 rows' two 32-wide columns; int8 (steps of 16) keeps the 33-48 rows' tiles at every N
    int8 = cg.GemmSpec(arch=90, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("bf16"))
    for M in (33, 40):
        assert shape_tile(SPEC, M, 4095) == shape_tile(SPEC, 48, 4095), M
        for n, cluster in ((4096, (4, 1, 1)), (MID_N, (4, 1, 1)), (LARGE_N - 1, (4, 1, 1)), (LARGE_N, (2, 1, 1)),
                           (WIDE_N, (2, 1, 1)), (28672, (2, 1, 1))):
            tile = shape_tile(SPEC, M, n)
            assert (tile.cta, tile.cluster, tile.mainloop, tile.swap_ab) == ((64, 40, 128), cluster, "pingpong",
                                                                             True), (M, n)
            assert resolve(SPEC.replace(tile=tile)).epilogue_tile == (64, 40), (M, n)  # full width
            assert shape_tile(int8, M, n) == shape_tile(int8, 48, n), (M, n)
    assert [shape_class(40, n)[1] for n in (None, 4095, 4096, MID_N, LARGE_N, WIDE_N)] == [
        0, 0, 4096, MID_N, LARGE_N, WIDE_N]


def test_heuristic_record_orders_four_n_classes_widest_first():
    from cutlassgen.tiles import LARGE_N, MID_N, WIDE_N

    shapes = [(64, 4096, 14336), (64, 6144, 4096), (64, 8192, 8192), (64, 14336, 4096)]
    rec = dispatch.heuristic_record(SPEC, shapes)
    assert [w.get("n_min", 0) for w in rec["winners"]] == [WIDE_N, LARGE_N, MID_N, 0]
    k = _fake_dispatch(SPEC, rec)
    assert [k.choose(48, n).spec.tile.cta[:2] for n in (14336, 8192, 6144, 4096)] == [(128, 64), (128, 32), (64, 64),
                                                                                      (64, 32)]
    assert k.choose(48).spec.tile.cta[:2] == (64, 32)  # N unknown: the entry without an n_min


def test_heuristic_record_puts_the_wide_n_entry_first_in_its_bucket():
    from cutlassgen.tiles import WIDE_N

    shapes = [(32, 4096, 14336), (32, 14336, 4096), (4096, 4096, 4096)]
    rec = dispatch.heuristic_record(SPEC, shapes)
    assert [w.get("n_min", 0) for w in rec["winners"]] == [WIDE_N, 0, 0]
    assert [w["tile"]["cluster"] if w["tile"] else None for w in rec["winners"]] == [[2, 1, 1], [1, 1, 1], None]
    assert rec["limits"] == [32, 32, float("inf")]
    k = _fake_dispatch(SPEC, rec)
    assert k.choose(32, 14336).spec.tile.cluster == (2, 1, 1) and k.choose(20, WIDE_N).spec.tile.cluster == (2, 1, 1)
    assert k.choose(32, 4096).spec.tile.cluster == (1, 1, 1) and k.choose(32).spec.tile.cluster == (1, 1, 1)
    assert k.choose(4096, 14336).spec is SPEC and k.choose(33, 4096).spec is SPEC
    assert "M<=32 N>=12288: swap 64x32x128 c2x1 pingpong" in repr(k)
    # Only the wide shape declared: a narrow N at that M has no entry of its own and goes to the next one up.
    only_wide = dispatch.heuristic_record(SPEC, [(32, 14336, 4096), (4096, 4096, 4096)])
    k = _fake_dispatch(SPEC, only_wide)
    assert k.choose(32, 14336).spec.tile.swap_ab and k.choose(32, 4096).spec is SPEC


def test_shape_tiles_keep_pdl_and_are_all_persistent():
    from cutlassgen.tiles import shape_tile

    pdl = SPEC.replace(tile={"pdl": True})
    for M in (8, 32, 48, 200):
        for N in (None, 8192, 28672):
            tile = shape_tile(pdl, M, N)
            assert tile.pdl and tile.scheduler == "persistent", M  # stream-K would not compile with PDL
            assert tile.cta == shape_tile(SPEC, M, N).cta, M


def test_heuristic_record_merges_buckets_and_sends_gaps_up():
    rec = dispatch.heuristic_record(SPEC, [(8192, 8192, 8192), (32, 8192, 8192), (20, 4096, 8192)])
    assert rec["gpu"] is None and rec["source"] == "heuristic"
    assert [w["shape"][0] for w in rec["winners"]] == [32, 8192]  # one entry per bucket: 20 and 32 share one
    assert rec["limits"] == [32, float("inf")]
    # but not weights of 36 MiB or less and larger ones (tiles.WEIGHTS_FIRST_MIN_BYTES): a class each, small first
    split = dispatch.heuristic_record(SPEC, [(8192, 8192, 8192), (32, 8192, 8192), (20, 1024, 1024)])
    assert [(w["shape"][0], w.get("weights_max", 0)) for w in split["winners"]] == [(20, 36 * 2**20), (32, 0),
                                                                                     (8192, 0)]
    assert rec["winners"][1]["tile"] is None and rec["winners"][1]["label"] == "default (auto)"
    assert dispatch.heuristic_record(SPEC, [(4096, 8, 8), (8192, 8, 8)]) is None  # nothing but the default
    variants = dispatch.heuristic_variants(SPEC, rec)
    assert [v.tile.cta for v in variants] == [(64, 32, 128)]
    k = _fake_dispatch(SPEC, rec)
    assert k.choose(1).spec.tile.cta == (64, 32, 128) and k.choose(32).spec.tile.cta == (64, 32, 128)
    assert k.choose(33).spec is SPEC and k.choose(256).spec is SPEC  # no kernel for those buckets: the next one up
    assert "M<=32: swap 64x32x128" in repr(k)


FP8_EXACT = cg.GemmSpec(arch=90, name="dispatch_fp8", a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"),
                        d=cg.Operand("bf16"), epilogue=[cg.Multiply("per_row", "scale_a", "fp32"),
                                                        cg.Multiply("per_col", "scale_b", "fp32")])


def test_exact_fp8_takes_the_opaque_loop_on_its_128x128_tiles_up_to_k_2048():
    """tiles.OPAQUE_PIPELINE_MAX_K (probe runs 235-236): the default 128x128 cooperative tile of exact fp8, made
    explicit, with opaque_pipeline set; never for fast accumulation, other operands or the swapped token tiles."""
    from cutlassgen.tiles import OPAQUE_PIPELINE_MAX_K, resolve, shape_tile
    from cutlassgen.tuning import label

    default = resolve(FP8_EXACT)
    tile = shape_tile(FP8_EXACT, 4096, 8192, OPAQUE_PIPELINE_MAX_K)
    assert tile.opaque_pipeline and (tile.cta, tile.cluster, tile.mainloop) == (default.cta, default.cluster,
                                                                                  "cooperative")
    # the same kernel but for the loop: the config resolves the same, the rendered source differs
    assert resolve(FP8_EXACT.replace(tile=tile)) == default
    assert shape_tile(FP8_EXACT, 4096, 8192, OPAQUE_PIPELINE_MAX_K + 16) is None  # the default kernel
    assert shape_tile(FP8_EXACT, 4096, 8192) is None  # K unknown: as deep
    assert shape_tile(FP8_EXACT, 250, 6000, 1024).opaque_pipeline  # the plan's own 128x128 tile at 241-256 rows
    assert not shape_tile(FP8_EXACT, 64, 8192, 1024).opaque_pipeline  # a swapped token tile keeps the loop
    fast = FP8_EXACT.replace(tile=cg.Sm90Tile(fp8_fast_accum=True))
    assert shape_tile(fast, 4096, 8192, 1024) is None and shape_tile(SPEC, 4096, 8192, 1024) is None
    assert not shape_tile(fast, 250, 6000, 1024).opaque_pipeline
    assert "opaque" in label(FP8_EXACT.replace(tile=tile))


def test_the_plan_loads_weights_over_36_mib_evict_first_on_swapped_tiles_and_unswapped_ones_at_97_to_256_rows():
    """tiles.WEIGHTS_FIRST_ROWS (probe runs 268-285, warm_weights_policy.py): 16-bit float, fp8 (exact and fast) and
    int8 specs set weights_evict_first on the plan's unswapped tiles at 97-256 rows where the weights take more than
    WEIGHTS_FIRST_MIN_BYTES (K unknown: as large), cooperative and pingpong alike, but for exact fp8's hidden-loop tile
    (K <= OPAQUE_PIPELINE_MAX_K); on its swapped tiles at any row count (tf32 too); not on smaller weights, unswapped
    tf32, or above 256 rows."""
    from cutlassgen.lower import lower
    from cutlassgen.tiles import (OPAQUE_PIPELINE_MAX_K, WEIGHTS_FIRST_MIN_BYTES, WEIGHTS_FIRST_ROWS, resolve,
                                  shape_tile, weights_bytes)
    from cutlassgen.tuning import label

    fast = FP8_EXACT.replace(tile=cg.Sm90Tile(fp8_fast_accum=True))
    fp16 = SPEC.replace(a=cg.Operand("fp16"), b=cg.Operand("fp16", "column"), d=cg.Operand("fp16"),
                        epilogue=[cg.Activation("gelu_tanh")])
    int8 = FP8_EXACT.replace(a=cg.Operand("int8"), b=cg.Operand("int8", "column"), accumulator="int32")
    taken = [(fast, 256, 8192, 8192, (128, 128), "cooperative"), (fast, 250, 8448, 32768, (128, 128), "cooperative"),
             (fast, 256, 6000, None, (128, 128), "cooperative"), (fast, 240, 9216, 8192, (128, 144), "cooperative"),
             (fast, 128, 10240, 8192, (64, 160), "pingpong"), (fast, 184, 10240, 8192, (192, 80), "pingpong"),
             (fast, 184, 9304, 8192, (64, 224), "pingpong"), (fast, 128, 6144, 8192, (128, 64), "cooperative"),
             (FP8_EXACT, 256, 8192, 8192, (128, 128), "cooperative"),
             (FP8_EXACT, 256, 28672, 4096, (128, 128), "cooperative"),
             (FP8_EXACT, 256, 12288, 4096, (128, 192), "cooperative"),
             (FP8_EXACT, 97, 10240, 8192, (64, 160), "pingpong"), (SPEC, 256, 8192, 8192, (128, 128), "cooperative"),
             (SPEC, 256, 10240, 4096, (128, 160), "cooperative"), (SPEC, 128, 6144, 4096, (64, 96), "pingpong"),
             (SPEC, 192, 10240, 4096, (192, 80), "pingpong"), (fp16, 256, 12288, 4096, (128, 192), "cooperative"),
             (int8, 256, 8192, 8192, (128, 128), "cooperative"), (int8, 128, 10240, 8192, (64, 160), "pingpong"),
             # 40 MiB, over the bound since session 93 (weights-first with 16 MiB kept 1.2-9.7% faster warm, an H200)
             (fast, 256, 10240, 4096, (128, 160), "cooperative"), (fast, 128, 10240, 4096, (64, 160), "pingpong"),
             (SPEC, 128, 5120, 4096, (64, 80), "pingpong"), (int8, 128, 10240, 4096, (64, 160), "pingpong")]
    for spec, M, N, K, cta, mainloop in taken:
        tile = shape_tile(spec, M, N, K)
        cfg = resolve(spec.replace(tile=tile))
        assert tile.weights_evict_first and (cfg.cta[:2], cfg.mainloop, cfg.swap_ab) == (cta, mainloop, False), (
            spec.name, M, N, K)
    assert label(FP8_EXACT.replace(tile=shape_tile(FP8_EXACT, 256, 8192, 8192))) == \
        "128x128x128 c1x1 cooperative weights-first"
    tf32 = SPEC.replace(a=cg.Operand("tf32"), b=cg.Operand("tf32", "column"), d=cg.Operand("fp32"), epilogue=[])
    # the swapped tiles, decode to 256 rows: 48 MiB 2-5% faster warm with it (session 82), and 40 MiB since the first
    # 16 MiB are kept (session 93; 6-13% slower without)
    swapped = [(SPEC, 64, 6144, 4096, (64, 64)), (SPEC, 64, 8192, 8192, (128, 32)), (SPEC, 16, 8192, 8192, (64, 16)),
               (SPEC, 160, 6144, 4096, (128, 80)), (fast, 64, 10240, 4160, (128, 32)),
               (fast, 232, 8192, 8192, (128, 120)),
               (fast, 96, 10240, 8192, (192, 48)), (fast, 256, 14336, 4096, (128, 256)),
               (tf32, 64, 8192, 4096, (128, 32)), (SPEC, 64, 5120, 4096, (64, 64)), (SPEC, 160, 5120, 4096, (128, 56)),
               (fast, 64, 10240, 4096, (128, 32)), (tf32, 64, 4096, 2560, (64, 32))]
    for spec, M, N, K, cta in swapped:
        tile = shape_tile(spec, M, N, K)
        assert tile.weights_evict_first and resolve(spec.replace(tile=tile)).swap_ab and tile.cta[:2] == cta, (
            spec.name, M, N, K)
        assert lower(spec.replace(tile=tile))["load_hints"] == ("EVICT_FIRST", "EVICT_NORMAL")  # kernel A: B
    for spec, M, N, K in [(SPEC, 64, 4608, 4096), (SPEC, 48, 4608, 4096), (SPEC, 64, 4096, 4096),
                          (SPEC, 160, 4608, 4096), (fast, 64, 9216, 4096), (tf32, 64, 4096, 2304)]:
        tile = shape_tile(spec, M, N, K)
        assert resolve(spec.replace(tile=tile)).swap_ab and not tile.weights_evict_first, (spec.name, M, N, K)
        # CUTLASS's own loads (both EVICT_NORMAL where the fitted last token box takes the hinted mainloop)
        assert lower(spec.replace(tile=tile))["load_hints"] in (None, ("EVICT_NORMAL", "EVICT_NORMAL"))
        assert shape_tile(spec, M, N) == dataclasses.replace(tile, weights_evict_first=True)  # K unknown: large
    # the same tiles at 36 MiB of weights or less: measured level or slower with it (without the kept 16 MiB up to
    # 15% at 10-40 MiB; with them level warm at 36 MiB, 1% slower cold at 48x4608x4096)
    small = [(fast, 256, 8192, 4096), (fast, 256, 9216, 4096), (fast, 128, 9216, 4096), (SPEC, 128, 4608, 4096),
             (SPEC, 256, 8192, 2048), (int8, 256, 8192, 4096), (int8, 192, 9216, 4096), (FP8_EXACT, 256, 6144, 4096)]
    for spec, M, N, K in small:
        assert weights_bytes(spec, N, K) <= WEIGHTS_FIRST_MIN_BYTES
        tile = shape_tile(spec, M, N, K)
        assert not resolve(spec.replace(tile=tile)).swap_ab and not tile.weights_evict_first, (spec.name, M, N, K)
        assert shape_tile(spec, M, N) == dataclasses.replace(tile, weights_evict_first=True)  # K unknown: large
    left = [(FP8_EXACT, 256, 28672, OPAQUE_PIPELINE_MAX_K), (fast, WEIGHTS_FIRST_ROWS[1] + 1, 8192, 8192),
            (tf32, 256, 8192, 8192)]
    for spec, M, N, K in left:
        tile = shape_tile(spec, M, N, K)
        assert tile is None or not tile.weights_evict_first, (spec.name, M, N, K)
    assert shape_tile(FP8_EXACT, 256, 28672, OPAQUE_PIPELINE_MAX_K).opaque_pipeline
    # a user's tile with the field set is a chosen tile: the plan and tune leave it as given
    assert not dispatch.tile_is_auto(fast.replace(tile=cg.Sm90Tile(fp8_fast_accum=True, weights_evict_first=True)))


def test_heuristic_record_splits_a_class_by_the_weights_size_and_dispatches_on_it():
    """Within one M bucket and N class, shapes whose weights take up to WEIGHTS_FIRST_MIN_BYTES get an entry of their
    own (weights_max), ahead of the weights-first tile's; a call chooses by its own N x K."""
    from cutlassgen.tiles import WEIGHTS_FIRST_MIN_BYTES

    fast = FP8_EXACT.replace(tile=cg.Sm90Tile(fp8_fast_accum=True))
    rec = dispatch.heuristic_record(fast, [(256, 8192, 8192), (250, 8192, 4096), (4096, 8192, 8192)])
    assert [(w.get("weights_max", 0), w["tile"] and w["tile"].get("weights_evict_first", False))
            for w in rec["winners"]] == [(WEIGHTS_FIRST_MIN_BYTES, False), (0, True), (0, None)]
    k = _fake_dispatch(fast, rec)
    assert not k.choose(256, 8192, 4096).spec.tile.weights_evict_first  # 32 MiB
    assert k.choose(256, 8192, 5200).spec.tile.weights_evict_first  # 40.6 MiB
    assert k.choose(256, 9216, 4096).spec.tile.weights_evict_first is False  # 36 MiB: not over
    assert k.choose(256, 10240, 4096).spec.tile.weights_evict_first  # 40 MiB
    assert k.choose(256, 8192).spec.tile.weights_evict_first  # K unknown: as large
    assert "M<=256 N>=5633 weights<=36MiB: 128x128x128 c1x1 cooperative, M<=256 N>=5633: 128x128x128 c1x1 " \
           "cooperative weights-first" in repr(k)
    # only small weights declared: a larger call goes up to the next bucket's entry, as a K past a k_max does
    small = _fake_dispatch(fast, dispatch.heuristic_record(fast, [(250, 8192, 4096), (4096, 8192, 8192)]))
    assert small.choose(256, 8192, 8192).spec is fast


def test_heuristic_record_splits_a_bucket_by_k_and_dispatches_on_it():
    shapes = [(4096, 8192, 1024), (4096, 8192, 8192), (250, 6000, 2048)]
    rec = dispatch.heuristic_record(FP8_EXACT, shapes)
    # the 241-256 rows' entry for K <= 2048 only, then the large-M bucket's, the one for K <= 2048 first
    assert [(w.get("k_max", 0), w["tile"] and w["tile"].get("opaque_pipeline", False)) for w in rec["winners"]] == [
        (2048, True), (2048, True), (0, None)]
    assert rec["limits"] == [256, float("inf"), float("inf")]
    k = _fake_dispatch(FP8_EXACT, rec)
    assert k.choose(4096, 8192, 1024).spec.tile.opaque_pipeline
    assert k.choose(4096, 8192, 2064).spec is FP8_EXACT and k.choose(4096, 8192).spec is FP8_EXACT  # K unknown: deep
    # 241-256 rows have no entry for deeper K: those calls go up to the next bucket's, as an undeclared N would
    assert k.choose(250, 6000, 8192).spec is FP8_EXACT and k.choose(250, 6000).spec is FP8_EXACT
    assert "M<=inf K<=2048: 128x128x128 c1x1 cooperative opaque" in repr(k)
    # only a shallow shape declared: deeper K finds the default kernel
    shallow = dispatch.heuristic_record(FP8_EXACT, [(384, 8192, 1024)])
    assert [w.get("k_max", 0) for w in shallow["winners"]] == [2048]
    k = _fake_dispatch(FP8_EXACT, shallow)
    assert k.choose(384, 8192, 1024).spec.tile.opaque_pipeline and k.choose(384, 8192, 4096).spec is FP8_EXACT
    # the call takes K from a's columns
    seen = []
    k.choose = lambda M, N=None, K=None: seen.append((M, N, K)) or (lambda *a, **kw: None)
    k(types.SimpleNamespace(shape=(4096, 1024)), types.SimpleNamespace(shape=(1024, 8192)))
    assert seen == [(4096, 8192, 1024)]


def test_the_build_memo_and_the_hint_tell_k_classes_apart():
    from cutlassgen.jit import _buckets_of

    assert _buckets_of(FP8_EXACT, [(4096, 8192, 1024)]) != _buckets_of(FP8_EXACT, [(4096, 8192, 4096)])
    assert _buckets_of(SPEC, [(4096, 8192, 1024)]) == _buckets_of(SPEC, [(4096, 8192, 4096)])
    msg = dispatch.per_shape_hint(FP8_EXACT, 4096, 8192, 1024)
    assert "M=4096, N=8192, K=1024 runs the default tile" in msg and "128x128x128 c1x1 cooperative opaque" in msg
    assert dispatch.per_shape_hint(FP8_EXACT, 4096, 8192, 4096) is None


def test_an_opaque_tile_is_a_chosen_tile_and_labels_name_auto_fields():
    from cutlassgen.tuning import label

    opaque = FP8_EXACT.replace(tile=cg.Sm90Tile(opaque_pipeline=True))
    assert not dispatch.tile_is_auto(opaque)  # the plan and tune leave it as given
    assert label(opaque) == "auto cluster auto auto opaque"
    assert label(SPEC.replace(tile=cg.Sm90Tile(stages=4))) == "auto cluster auto auto"


@pytest.mark.parametrize("bad", [[], [(0, 8192, 8192)], [(32, 8192)], ["32x8192x8192"], None, [(32.5, "a", 1)]])
def test_bad_shapes_are_spec_errors(bad):
    with pytest.raises(cg.SpecError, match="shapes"):
        dispatch.check_shapes(bad)


def test_shapes_a_kernel_would_refuse_are_spec_errors_before_any_compile(monkeypatch, tmp_path, capsys):
    """An (M, N, K) whose extent along a tensor's contiguous dimension is off that tensor's alignment could never be
    called: build(spec, shapes=...), the CLI and tune say so before compiling anything for it."""
    from cutlassgen import jit
    from cutlassgen.cli import main
    from cutlassgen.validate import check_problem_shape

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled for a shape the kernel would refuse")

    monkeypatch.setattr(jit, "build_many", no_compile)
    with pytest.raises(cg.SpecError, match=r"N = 4300 is d's contiguous extent .* 8 elements.*pad N to 4304"):
        jit.build(SPEC, shapes=[(72, 4096, 512), (72, 4300, 512)])
    with pytest.raises(cg.SpecError, match=r"K = 500 is a's contiguous extent"):
        jit.build(SPEC, shapes=[(72, 4096, 500)])
    spec_file = tmp_path / "s.toml"
    spec_file.write_text(cg.dump_toml(SPEC))
    assert main(["build", str(spec_file), "--shape", "72x4300x512"]) == 2
    err = capsys.readouterr().err
    assert "N = 4300" in err and "Traceback" not in err
    # column-major operands make M or K the contiguous extent; aux outputs take 16-byte rows of their own dtype
    sm80 = cg.GemmSpec(arch=80, a=cg.Operand("bf16", "column"), b=cg.Operand("bf16", "row"), d=cg.Operand("bf16"))
    with pytest.raises(cg.SpecError, match=r"M = 100 is a's contiguous extent \(column-major bf16\)"):
        check_problem_shape(sm80, 100, 64, 64)
    with pytest.raises(cg.SpecError, match=r"N = 60 is b's contiguous extent \(row-major bf16\)"):
        check_problem_shape(sm80, 104, 60, 64)
    narrow = dataclasses.replace(sm80, a=cg.Operand("bf16", "column", alignment=2),
                                 b=cg.Operand("bf16", "row", alignment=2), d=cg.Operand("bf16", alignment=4))
    check_problem_shape(narrow, 100, 60, 64)  # the sm80 path's smaller alignments take them
    aux = SPEC.replace(epilogue=[cg.StoreAux("pre", "e4m3"), cg.Activation("relu")])
    check_problem_shape(aux, 8, 32, 64)
    with pytest.raises(cg.SpecError, match=r"aux output pre's contiguous extent \(row-major e4m3\).* 16 elements"):
        check_problem_shape(aux, 8, 24, 64)


def test_build_with_shapes_compiles_the_variants_in_one_run(cache_dir, monkeypatch):
    from cutlassgen import jit

    runs = []

    def fake_build_many(specs, arch=None, verbose=None, jobs=None):
        runs.append(list(specs))
        return [_fake_kernel(s) for s in specs]

    monkeypatch.setattr(jit, "build_many", fake_build_many)
    monkeypatch.setattr(jit, "default_target_arch", lambda spec: 90)
    shapes = [(16, 8192, 8192), (256, 8192, 8192), (4096, 8192, 8192)]
    try:
        k = jit.build(SPEC, shapes=shapes)
        assert len(runs) == 1 and [s.tile.cta for s in runs[0][1:]] == [(64, 16, 128), (128, 128, 64)]
        assert runs[0][0] is SPEC and k.choose(16).spec.tile.swap_ab and k.choose(5000).spec is SPEC
        # same buckets, N classes and weights classes: memo
        assert jit.build(SPEC, shapes=[(8, 6000, 8192), (250, 6000, 8192), (9000, 8, 8)]) is k
        # the same bucket with weights of 36 MiB or less: a class of its own (tiles.WEIGHTS_FIRST_MIN_BYTES)
        assert jit.build(SPEC, shapes=[(8, 6000, 8192), (250, 6000, 8), (9000, 8, 8)]) is not k
        assert jit.build(SPEC, shapes=[(8, 6000, 8), (250, 6000, 8192), (9000, 8, 8)]) is not k  # swapped too
        assert jit.build(SPEC, shapes=[(32, 14336, 8)]) is not jit.build(SPEC, shapes=[(32, 4096, 8)])  # wide N
        assert not isinstance(jit.build(SPEC), dispatch.DispatchKernel)  # no shapes, no record: the default
        assert jit.build(dataclasses.replace(SPEC, tile=SMALL), shapes=shapes).spec.tile == SMALL  # fixed tile
        # A tuning record made on the GPU wins over the heuristic.
        dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
        jit.forget_built(SPEC)
        tuned = jit.build(SPEC, shapes=shapes)
        assert tuned.record["gpu"] == "NVIDIA H200" and [s.tile for s in runs[-1]] == [SMALL, LARGE]
    finally:
        jit.forget_built(SPEC)
        if dispatch.record_path(SPEC, 90).exists():
            dispatch.record_path(SPEC, 90).unlink()


def test_build_many_with_shapes_builds_every_specs_plan_in_one_run(cache_dir, monkeypatch):
    """build_many(specs, shapes=[...one list per spec...]): each kernel is what build(spec, shapes=...) returns, and
    every spec's default and per-shape tiles go to one compile (a model's layers: one ninja run, not one each)."""
    from cutlassgen import jit

    real_build_many, runs = jit.build_many, []

    def compile_fake(specs, arch=None, *, verbose=None, jobs=None, shapes=None):
        if shapes is not None:  # the public entry under test
            return real_build_many(specs, arch, verbose=verbose, jobs=jobs, shapes=shapes)
        runs.append(list(specs))
        return [_fake_kernel(s) for s in specs]

    monkeypatch.setattr(jit, "build_many", compile_fake)
    qkv = SPEC.replace(name="dispatch_unit_qkv")
    fixed = SPEC.replace(name="dispatch_unit_fixed", tile=SMALL)
    decode_and_prefill = [(16, 8192, 8192), (4096, 8192, 8192)]
    narrow = [(32, 6144, 4096)]
    kernels = jit.build_many([SPEC, qkv, fixed], shapes=[decode_and_prefill, narrow, None])
    assert len(runs) == 1, runs
    want = [SPEC, *dispatch.heuristic_variants(SPEC, dispatch.heuristic_record(SPEC, decode_and_prefill)),
            qkv, *dispatch.heuristic_variants(qkv, dispatch.heuristic_record(qkv, narrow)), fixed]
    assert runs[0] == want and len(want) > 3
    assert kernels[0].record == dispatch.heuristic_record(SPEC, decode_and_prefill)
    assert kernels[0].choose(16).spec.tile.swap_ab and kernels[0].choose(4096).spec is SPEC
    assert kernels[1].record == dispatch.heuristic_record(qkv, narrow) and kernels[1].choose(32).spec.tile.swap_ab
    assert kernels[2].spec is fixed and not isinstance(kernels[2], dispatch.DispatchKernel)
    # what it refuses, before anything compiles
    with pytest.raises(cg.SpecError, match=r"one list of \(M, N, K\) per spec \(2 here\)"):
        jit.build_many([SPEC, qkv], shapes=[(16, 8192, 8192), (32, 6144, 4096)])  # one flat list of problems
    with pytest.raises(cg.SpecError, match=r"per spec \(2 here\)"):
        jit.build_many([SPEC, qkv], shapes=[narrow])
    with pytest.raises(cg.SpecError, match=r"shapes\[1\] \(dispatch_unit_qkv\): shapes=\[\]: must be a non-empty"):
        jit.build_many([SPEC, qkv], shapes=[narrow, []])
    with pytest.raises(cg.SpecError, match=r"shapes\[0\] \(dispatch_unit\)"):
        jit.build_many([SPEC, qkv], shapes=[[(16, 8192, 8190)], None])  # K off the operands' alignment
    with pytest.raises(ValueError, match="neither root nor load=False"):
        real_build_many([SPEC], shapes=[narrow], load=False)
    assert len(runs) == 1


def test_cli_build_and_manifests_take_the_shapes(tmp_path, monkeypatch, capsys):
    from cutlassgen import aot, jit
    from cutlassgen.cli import main

    spec_file = tmp_path / "s.toml"
    spec_file.write_text(cg.dump_toml(SPEC))
    seen = []
    monkeypatch.setattr(jit, "build_many", lambda specs, **kw: seen.append(list(specs)) or ["p"] * len(specs))
    assert main(["build", str(spec_file), "--shape", "32x8192x8192", "--shape", "256x8192x8192"]) == 0
    assert [s.tile.cta for s in seen[0][1:]] == [(64, 32, 128), (128, 128, 64)]
    assert "[per-shape tile swap 64x32x128 c1x1 pingpong weights-first]: p" in capsys.readouterr().out
    assert main(["build", str(spec_file), "--shape", "32x8192"]) == 2  # a clear error, no build
    manifest = tmp_path / "m.toml"
    manifest.write_text('archs = [90]\n[[spec]]\nfile = "s.toml"\nshapes = [[32, 8192, 8192]]\n')
    pairs = aot.read_manifest(manifest)
    assert [(s.tile.cta, archs) for s, archs in pairs] == [(SPEC.tile.cta, [90]), ((64, 32, 128), [90])]


def test_per_shape_hint_names_the_per_shape_tile_and_the_fix():
    msg = dispatch.per_shape_hint(SPEC, 32, 8192, 4096)
    assert "M=32, N=8192 runs the default tile" in msg and "shapes=[(32, 8192, 4096), ...]" in msg
    assert "swap 64x32x128 c1x1 pingpong" in msg and "cutlassgen tune" in msg
    assert dispatch.per_shape_hint(SPEC, 4096, 8192, 4096) is None  # the default is the large-M tile
    wide = dispatch.per_shape_hint(SPEC, 4096, 14336, 4096)  # ... below N = 12288
    assert "M=4096, N=14336 runs the default tile" in wide and "128x128x64 c1x1 pingpong" in wide
    assert dispatch.per_shape_hint(dataclasses.replace(SPEC, tile=SMALL), 32, 8192, 4096) is None  # chosen by hand
    tf32 = cg.GemmSpec(arch=80, a=cg.Operand("tf32"), b=cg.Operand("tf32", "column"), d=cg.Operand("fp32"))
    assert dispatch.per_shape_hint(tf32, 32, 8192, 4096) is None  # no sm80 per-shape tiles for tf32
    int8 = cg.GemmSpec(arch=80, a=cg.Operand("int8"), b=cg.Operand("int8", "column"), d=cg.Operand("int32"))
    assert "32x64x128 w32x32 s6" in dispatch.per_shape_hint(int8, 32, 8192, 4096)


def test_a_kernel_warns_once_for_the_first_small_m(monkeypatch):
    """Kernel._hint_per_shape, which the call runs at the first call of each (M, N, K) (the call itself needs a GPU:
    tests/test_gpu_integration.py)."""
    import warnings

    from cutlassgen.jit import PerformanceWarning
    from cutlassgen.runtime import Kernel

    fake = types.SimpleNamespace(spec=SPEC, _hint_pending=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Kernel._hint_per_shape(fake, 4096, 8192, 4096)  # large M: silent, and the hint stays pending
    assert fake._hint_pending
    with pytest.warns(PerformanceWarning, match="M=16, N=8192 runs the default tile") as seen:
        Kernel._hint_per_shape(fake, 16, 8192, 4096)
    assert not fake._hint_pending  # the call site checks this flag: once per kernel
    assert seen[0].filename == __file__  # the caller's line, not one inside cutlassgen (errors.caller_stacklevel)


def test_warnings_point_at_the_callers_line_however_deep_they_arise(cache_dir):
    """A malformed tuning record is found three calls deep in cutlassgen (tuned -> read_record -> _read_record_of);
    its warning names this file's line, as a build's PerformanceWarning names the line that asked for the build."""
    path = dispatch.write_record(SPEC, 90, "NVIDIA H200", _winners())
    path.write_text(json.dumps([]))
    with pytest.warns(UserWarning, match="malformed tuning record") as seen:
        line = inspect.currentframe().f_lineno + 1
        dispatch.tuned(_fake_kernel(SPEC), 90, lambda specs, arch=None: [])
    path.unlink()
    assert [(w.filename, w.lineno) for w in seen] == [(__file__, line)]


@pytest.mark.parametrize("gpu", [None, "NVIDIA H200", "NVIDIA H100 80GB HBM3"])
@pytest.mark.parametrize("name", sorted(per_shape_cases.cases()))
def test_the_per_shape_gpu_tests_plans_and_shapes_hold_without_a_gpu(name, gpu, monkeypatch):
    """What each per-shape GPU test (tests/test_gpu_integration.py) expects the plan to pick at its shapes, asked of
    tiles.shape_tile here, as on each GPU model the plan tells apart (tiles.instead_on; torch's device name faked);
    every shape one its kernels take (validate.check_problem_shape), every tile of the plan one that renders: a plan
    change or a bad test shape fails here, not in a GPU call."""
    import torch

    from cutlassgen.emit import render

    monkeypatch.setattr(torch.cuda, "is_available", lambda: gpu is not None)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda *a: gpu)
    monkeypatch.setattr(dispatch, "sm_count", lambda: None if gpu is None else 132)
    spec, shapes, expect = per_shape_cases.cases()[name]
    assert dispatch.check_shapes(shapes, spec) == shapes
    expect(lambda M, N, K=None: per_shape_cases.planned_tile(spec, M, N, K) or spec.tile)
    record = dispatch.heuristic_record(spec, shapes)
    # and as the GPU test asks it, of the dispatching kernel build(spec, shapes=shapes) returns (fake kernels here)
    expect(per_shape_cases.tile_of_dispatch(_fake_dispatch(spec, record), shapes))
    variants = dispatch.heuristic_variants(spec, record)
    assert variants  # each test runs per-shape tiles besides the default
    for variant in variants:
        t = variant.tile
        shape = (f"using TileShape = Shape<{', '.join(f'_{x}' for x in t.cta)}>;" if variant.resolved_path == "sm90"
                 else f"using ThreadblockShape = cutlass::gemm::GemmShape<{', '.join(map(str, t.threadblock))}>;")
        assert shape in render(variant), t
