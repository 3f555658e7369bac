"""Tuned dispatch without a GPU: records, buckets, the choice by M, and the fallback on another GPU."""
import dataclasses
import json
import types

import pytest

import cutlassgen as cg
from cutlassgen import dispatch

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
