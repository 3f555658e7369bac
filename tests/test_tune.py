"""Tile study: the enumeration holds only valid, distinct configurations; the report is written from rows.
Timing itself needs a GPU (test marked gpu)."""
import csv
import dataclasses
import importlib.util
import json
import pathlib

import pytest

import cutlassgen as cg
from cutlassgen.golden import rel_error
from cutlassgen.spec import AUTO
from cutlassgen.tuning import Row, candidates, configs, label, read_report, write_report

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", ["linear_bias_gelu_fp8_sm90", "fp8_per_token_channel_sm90", "fp16_bias_relu_sm80",
                                  "int8_dequant_sm80"])
def test_configs_are_valid_distinct_and_keep_the_epilogue(name):
    spec = cg.load_spec(ROOT / f"examples/specs/{name}.toml")
    variants = configs(spec)
    assert len(variants) >= 20
    assert len({v.key for v in variants}) == len(variants)
    assert len({label(v) for v in variants}) == len(variants)
    for v in variants:
        assert v.epilogue == spec.epilogue and v.a == spec.a and v.d == spec.d
        assert isinstance(v, cg.GemmSpec)  # constructed, hence validated
    assert len(configs(spec, limit=5)) == 5


def test_sm90_space_has_both_schedules_and_stream_k():
    spec = cg.load_spec(ROOT / "examples/specs/linear_bias_gelu_fp8_sm90.toml")
    tiles = [v.tile for v in configs(spec)]
    assert {t.mainloop for t in tiles} == {"cooperative", "pingpong"}
    assert any(t.scheduler == "stream_k" for t in tiles)
    assert all(t.mainloop == "cooperative" for t in tiles if t.scheduler == "stream_k")


def test_sm80_decode_space_adds_small_threadblocks_with_deep_pipelines():
    from cutlassgen.tuning import wants_decode_space

    spec = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")
    main, both = configs(spec), configs(spec, decode=wants_decode_space([(16, 8192, 8192)]))
    extra = [v.tile for v in both[len(main):]]
    assert both[:len(main)] == main and len(extra) >= 8
    assert {t.threadblock[:2] for t in extra} == {(32, 64), (64, 64), (64, 32), (16, 64)}
    assert max(t.stages for t in extra) == 8 and all(t.threadblock[2] * 2 == 128 for t in extra)  # 128 B of K
    assert all(v.tile.threadblock[0] >= 64 for v in main)  # the main space has none of them


def test_a_set_epilogue_tile_is_studied_where_it_fits():
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml").replace(tile={"epilogue_tile": [128, 64]})
    variants = configs(spec)
    assert len(variants) >= 10
    assert all(v.tile.epilogue_tile == (128, 64) and v.tile.mainloop == "cooperative" for v in variants)
    assert all(label(v).endswith(" epi128x64") for v in variants)


def test_decode_space_swaps_and_splits_only_when_asked():
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    plain, decode = configs(spec), configs(spec, decode=True)
    assert not any(v.tile.swap_ab or v.tile.split_k > 1 for v in plain)
    extra = decode[len(plain):]
    assert decode[:len(plain)] == plain and len(extra) == 42
    assert all(v.tile.swap_ab for v in extra) and {v.tile.split_k for v in extra} == {1, 2, 4}
    assert all(v.tile.scheduler == "stream_k" for v in extra if v.tile.split_k > 1)
    assert len(configs(spec, limit=5, decode=True)) == 5 + 42  # the limit caps the main space only
    from cutlassgen.tiles import shape_tile
    # the per-shape tiles, as the space has them: with CUTLASS's loads (candidates() adds the plan's own tile at each
    # shape, weights_evict_first where it sets it)
    for M, N in ((8, 8192), (32, 8192), (32, 14336), (48, 4096), (48, 6144), (48, 8192), (48, 14336)):
        tile = dataclasses.replace(shape_tile(spec, M, N), weights_evict_first=False)
        assert label(spec.replace(tile=tile)) in [label(v) for v in extra], (M, N)
    assert shape_tile(spec, 8, 8192).weights_evict_first  # K unknown: deep
    assert spec.replace(tile=shape_tile(spec, 8, 8192, 8192)) in candidates(spec, [(8, 8192, 8192)])
    assert label(extra[-1]) == "swap 128x64x128 c1x1 cooperative stream-K split4"


def test_decode_space_takes_the_41_48_row_subtile_from_the_plan():
    """The plan's M 41-48 tile from N = 4608 stores D in one 64x48 subtile for 16-bit operands only (tiles.py); the
    decode space holds that tile as the plan has it for each operand width, and the subtile form nowhere else."""
    from cutlassgen.tiles import shape_tile

    bf16 = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    for spec, subtile in ((bf16, (64, 48)), (bf16.replace(a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column")), AUTO),
                          (bf16.replace(a=cg.Operand("fp32"), b=cg.Operand("fp32", "column"),
                                        d=cg.Operand("fp32"), epilogue=[]), AUTO)):
        planned = dataclasses.replace(shape_tile(spec, 48, 6144), weights_evict_first=False)
        extra = configs(spec, decode=True)[len(configs(spec)):]
        assert planned.epilogue_tile == subtile, spec.a.dtype
        assert spec.replace(tile=planned) in extra, spec.a.dtype
        assert [v.tile.cta[:2] for v in extra if v.tile.epilogue_tile != AUTO] == [(64, 48)] * (2 if subtile != AUTO
                                                                                                 else 0)


def test_ptxas_report_is_parsed_for_the_largest_kernel():
    from cutlassgen.jit import ptxas_resources

    log = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z6helperv' for 'sm_90a'
ptxas info    : Function properties for _Z6helperv
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 1 barriers, 256 bytes smem
ptxas info    : Compiling entry function 'cutlassgen_gemm_kernel' for 'sm_90a'
ptxas info    : Function properties for cutlassgen_gemm_kernel
    32 bytes stack frame, 28 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 168 registers, used 16 barriers
"""
    assert ptxas_resources(log) == {"function": "cutlassgen_gemm_kernel", "registers": 168, "stack_bytes": 32,
                                    "spill_store_bytes": 28, "spill_load_bytes": 24, "static_smem_bytes": 0}
    assert ptxas_resources("nvcc warning : something else") is None


def test_only_ptxas_and_wgmma_serialization_warnings_are_performance_warnings():
    from cutlassgen.jit import performance_warnings

    log = """/cache/spill/build-x/kernel.cu(25): warning #177-D: variable "AlignmentD" was declared but never referenced
ptxas warning : Registers are spilled to local memory in function 'k', 28 bytes spill stores, 28 bytes spill loads
ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized due to insufficient
ptxas info    : Used 168 registers, used 16 barriers
"""
    got = performance_warnings(log)
    assert [w.split(":")[1].split()[0] for w in got] == ["Registers", "(C7511)"]
    # the sm80 path's kernel name runs to ~900 characters mangled: the warning names it short
    sm80 = ("ptxas warning : Registers are spilled to local memory in function '_ZN7cutlass7Kernel2INS_4gemm6kernel22"
            "DefaultGemmWithVisitorIaNS_6layout8RowMajorELNS_16ComplexTransformE0ELi16EEEEvNT_6ParamsE', 52 bytes "
            "spill stores, 52 bytes spill loads\nptxas warning : Local memory used for function '_Z3fooi', size of "
            "stack frame: 8 bytes")
    assert performance_warnings(sm80) == [
        "ptxas warning : Registers are spilled to local memory in function 'cutlass::Kernel2<...>', 52 bytes spill "
        "stores, 52 bytes spill loads", "ptxas warning : Local memory used for function 'foo', size of stack frame: "
        "8 bytes"]


def test_arithmetic_intensity_counts_each_operand_once():
    from cutlassgen.tuning import arithmetic_intensity

    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")  # bf16 A, B, D
    moved = 2 * (32 * 8192 + 8192 * 8192 + 32 * 8192)  # bytes of A, B and D in bf16
    assert arithmetic_intensity(spec, 32, 8192, 8192) == 2 * 32 * 8192 * 8192 / moved


def test_report_files(tmp_path):
    rows = [Row("128x256x64 c2x1 cooperative", "8192x8192x8192", 1.6, 687.0, 1e-3, 50.0, 0, "k1"),
            Row("128x128x64 c1x2 cooperative", "8192x8192x8192", 1.8, 610.0, 1e-3, 48.0, 0, "k2"),
            Row("64x128x64 c1x1 pingpong", "32x8192x8192", 0.07, 58.0, 1e-3, 45.0, 1, "k3")]
    rows.append(Row("swap 64x32x64 c1x1 pingpong", "32x8192x8192", 0.05, 98.0, 1e-3, 45.0, 0, "k4", 90, 0, 200704, 9))
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    paths = write_report(rows, tmp_path, peak_tflops=790, spec=spec, peak_tbps=4.8)
    with open(tmp_path / "study.csv") as f:
        got = list(csv.DictReader(f))
    assert [r["config"] for r in got] == [r.config for r in rows]
    assert (got[3]["registers"], got[3]["spill_bytes"], got[3]["smem_bytes"], got[3]["stages"]) == (
        "90", "0", "200704", "9")
    assert got[0]["registers"] == got[0]["stages"] == ""  # not recorded: left empty, not invented
    assert read_report(tmp_path) == rows
    # a study.csv from before the stages column reads back with stages unknown
    old = tmp_path / "old"
    old.mkdir()
    with open(tmp_path / "study.csv") as f, open(old / "study.csv", "w") as g:
        g.writelines(line.rsplit(",", 1)[0] + "\n" for line in f.read().splitlines())
    assert read_report(old) == [dataclasses.replace(r, stages=None) for r in rows]
    best = json.loads((tmp_path / "study.json").read_text())["best"]
    assert best["8192x8192x8192"]["config"] == "128x256x64 c2x1 cooperative"
    if importlib.util.find_spec("matplotlib") is None:
        assert len(paths) == 2
    else:
        assert (tmp_path / "study.png").stat().st_size > 1000


@pytest.mark.parametrize("peaks", [(0, None), (-790, None), (float("nan"), None), (float("inf"), 4.8), ("790", None),
                                   (True, None), (790, 0), (790, float("nan")), (None, 4.8)])
def test_report_refuses_a_bad_peak_before_writing_anything(tmp_path, peaks):
    rows = [Row("128x256x64 c2x1 cooperative", "8192x8192x8192", 1.6, 687.0, 1e-3, 50.0, 0, "k1")]
    with pytest.raises(ValueError, match="peak_t"):
        write_report(rows, tmp_path / "report", peaks[0], peak_tbps=peaks[1])
    assert not (tmp_path / "report").exists()


def test_cli_lists_configurations(capsys):
    from cutlassgen.cli import main

    assert main(["tune", str(ROOT / "examples/specs/fp16_bias_relu_sm80.toml"), "--list", "--limit", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    # its own tile (128x128x32 w64x64 s4) is also the space's second configuration: listed once, each with the
    # pipeline validation sized (on the sm80 path the tile's stages of A and B tiles)
    assert out[0].startswith("3 valid configurations") and [line.split() for line in out[1:]] == [
        ["128x128x32", "w64x64", "s4", "4", "stages,", str(4 * 128 * 32 * 2 * 2), "bytes", "of", "shared", "memory"],
        ["128x128x32", "w64x64", "s3", "3", "stages,", str(3 * 128 * 32 * 2 * 2), "bytes", "of", "shared", "memory"],
        ["128x128x64", "w64x64", "s3", "3", "stages,", str(3 * 128 * 64 * 2 * 2), "bytes", "of", "shared", "memory"]]


def test_bad_shapes_limits_and_reps_are_clear_errors_before_any_build(capsys):
    from cutlassgen.cli import main

    spec_file = str(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    for bad in ("32x8192", "0x8192x8192", "32x8192x8192x1", "32xNx8192"):
        assert main(["tune", spec_file, "--list", "--shape", bad]) == 2, bad
        err = capsys.readouterr().err
        assert "three positive integers" in err and "Traceback" not in err, bad
    for option, value in (("--limit", "0"), ("--reps", "-1")):
        with pytest.raises(SystemExit) as exit_:
            main(["tune", spec_file, "--list", option, value])
        assert exit_.value.code == 2 and "must be at least 1" in capsys.readouterr().err, option
    spec = cg.load_spec(spec_file)
    with pytest.raises(cg.SpecError, match="limit"):
        configs(spec, limit=0)
    pytest.importorskip("torch")
    from cutlassgen.tuning import study, tune

    with pytest.raises(cg.SpecError, match="shapes"):
        tune(spec, [(32, 8192)])
    for run in (tune, study):  # a shape every configuration's kernel would refuse, before the 64 compiles
        with pytest.raises(cg.SpecError, match=r"N = 8190 is d's contiguous extent"):
            run(spec, [(32, 8192, 8192), (32, 8190, 8192)])
    with pytest.raises(cg.SpecError, match="reps"):
        study(spec, [(32, 8192, 8192)], reps=0)
    for bad in (dict(limit="8"), dict(limit=2.5), dict(limit=True), dict(reps="20"), dict(reps=1.5)):
        with pytest.raises(cg.SpecError, match=next(iter(bad))):
            tune(spec, [(32, 8192, 8192)], **bad)


def test_tune_without_a_gpu_says_so_before_compiling(monkeypatch):
    """On a machine without a CUDA GPU, tune() compiled its candidates for a minute or more and then failed inside
    torch ("Torch not compiled with CUDA enabled"); now it stops first, naming the cause."""
    torch = pytest.importorskip("torch")
    from cutlassgen import jit
    from cutlassgen.tuning import study, tune

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(jit, "build_many", lambda *a, **k: pytest.fail("compiled without a GPU to time on"))
    spec = cg.load_spec(ROOT / "examples" / "specs" / "bias_gelu_bf16_sm90.toml")
    for run in (tune, study):
        with pytest.raises(RuntimeError, match="needs a CUDA GPU, and torch sees none.*nothing was compiled"):
            run(spec, [(128, 4096, 4096)], limit=2)


def test_tune_that_could_not_keep_its_record_says_so_before_timing(tmp_path, monkeypatch):
    """tune(save=True) writes its record into the cache after minutes of compiling and timing; a cache it cannot
    write there (here one under a file) is a ToolchainError before any of that, and save=False still studies."""
    from cutlassgen import tuning
    from cutlassgen.jit.toolchain import ToolchainError

    (tmp_path / "file").write_text("")
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "file" / "cache"))
    studied = []
    monkeypatch.setattr(tuning, "study", lambda spec, shapes, **kw: studied.append(spec) or [])
    spec = cg.load_spec(ROOT / "examples" / "specs" / "bias_gelu_bf16_sm90.toml")
    with pytest.raises(ToolchainError, match=r"the tuning record .*file/cache/tuning/.* cannot be written.*--no-save"):
        tuning.tune(spec, [(128, 4096, 4096)], limit=2)
    assert studied == []
    with pytest.raises(RuntimeError, match="no configuration .* matched the reference"):  # the fake study's no rows
        tuning.tune(spec, [(128, 4096, 4096)], limit=2, save=False)
    assert studied == [spec]


def test_tune_times_the_default_and_the_per_shape_heuristics_tiles_first():
    """A tuned record replaces the per-shape heuristic in build(spec), so tune must time the heuristic's tiles too:
    the sm80 path's 33-64 bucket tile (64x64, 5 stages) is outside its decode space (4, 6 and 8 stages)."""
    from cutlassgen.tiles import shape_tile

    spec = cg.load_spec(ROOT / "examples/specs/int8_dequant_sm80.toml")
    shapes = [(48, 8192, 8192), (200, 8192, 8192), (300, 8192, 8192)]
    got = candidates(spec, shapes, limit=2)
    heuristic = [spec.replace(tile=shape_tile(spec, 48, 8192)), spec.replace(tile=shape_tile(spec, 200, 8192))]
    assert [label(v) for v in got[:3]] == ["default (auto)", "64x64x128 w32x32 s5", "128x128x64 w64x64 s5"]
    assert [v.key for v in got[1:3]] == [v.key for v in heuristic]  # M = 300 keeps the default: nothing added
    rest = configs(spec, limit=2, decode=True)
    assert heuristic[0].key not in {v.key for v in rest} and len({v.key for v in got}) == len(got)
    assert {v.key for v in got} == {v.key for v in [spec, *heuristic, *rest]}
    fixed = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")  # a set tile: no heuristic applies
    assert candidates(fixed, shapes, limit=2)[0] == fixed


def test_tune_times_the_tile_h100s_run_in_place_of_the_wide_n_pingpong_one():
    """build(spec, shapes=...) on an H100 runs the wide-N pingpong tile with strips of 4 (tiles.instead_on), and up to
    1536 rows 128x224 cooperative at ragged M or where it fills the waves better (tiles.wave_fill_tiles): tune times
    them beside the plan's own, on every GPU, so a tuned record never loses to what the plan runs there."""
    from cutlassgen.tiles import shape_tile

    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    got = candidates(spec, [(4096, 14336, 4096)], limit=2)
    plan = shape_tile(spec, 4096, 14336, 4096)
    assert [v.tile for v in got[1:3]] == [plan, dataclasses.replace(plan, swizzle=4)]
    # and the wave-fill tile up to tiles.WAVE_FILL_MAX_M rows
    assert [label(v) for v in got[1:4]] == ["128x128x64 c1x1 pingpong", "128x128x64 c1x1 pingpong swizzle4",
                                            "128x224x64 c1x1 cooperative"]
    assert len(candidates(spec, [(4096, 8192, 4096)], limit=2)) == len(got) - 3  # no per-shape tile below WIDE_N


def test_m_65_to_256_adds_swapped_tiles_fitted_to_the_tokens():
    from cutlassgen.tuning import tokens_space

    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    assert tokens_space([(64, 8192, 8192), (65, 1, 1), (200, 1, 1), (200, 2, 2), (257, 1, 1)]) == (65, 200)
    added = configs(spec, limit=3, token_rows=(200,))[3:]
    # one column of 208 tokens or two of 112 (steps of 16) or 104 (steps of 8, which bf16 takes), 64 or 128 elements
    # of K, with and without a 2x1 cluster; the two columns also in a 1x2 cluster (sharing their weight tile), and
    # under one 128-row weight tile; the one column under a 128-row weight tile in a 4x1 cluster (sharing the
    # tokens); the two columns under a 192-row pingpong weight tile in a 1x2 cluster; three columns of 72 or 80
    # tokens under a 128-row weight tile, no cluster; and unswapped, two 128-row token tiles under weight tiles
    # 144-192 wide in a 2x1 cluster (at 65-128 rows two 64-row pingpong ones)
    fitted = [((128, w, 64), (2, 1, 1), "cooperative") for w in (144, 160, 176, 192)]
    assert sorted({(v.tile.cta, v.tile.cluster, v.tile.mainloop) for v in added}) == sorted(
        [((64, n, k), c, "pingpong") for n in (104, 112, 208) for k in (64, 128) for c in ((1, 1, 1), (2, 1, 1))]
        + [((64, n, k), (1, 2, 1), "pingpong") for n in (104, 112) for k in (64, 128)]
        + [((128, n, k), (1, 2, 1), "cooperative") for n in (104, 112) for k in (64, 128)]
        + [((128, n, k), (1, 1, 1), "cooperative") for n in (72, 80) for k in (64, 128)]
        + [((128, 208, k), (4, 1, 1), "cooperative") for k in (64, 128)]
        + [((192, n, k), (1, 2, 1), "pingpong") for n in (104, 112) for k in (64, 128)] + fitted)
    assert all(v.tile.swap_ab == ((v.tile.cta, v.tile.cluster, v.tile.mainloop) not in fitted) for v in added)
    assert {(v.tile.cta[:2], v.tile.mainloop) for v in configs(spec, limit=3, token_rows=(120,))[3:]
            if not v.tile.swap_ab} == {((64, w), "pingpong") for w in (144, 160, 176, 192)}
    # at 129-192 rows also three 64-row token tiles under 208-240-wide weight tiles and one 192-row token tile under
    # 80- or 96-wide ones, no cluster
    assert {(v.tile.cta[:2], v.tile.cluster, v.tile.mainloop) for v in configs(spec, limit=3, token_rows=(170,))[3:]
            if not v.tile.swap_ab} == ({((128, w), (2, 1, 1), "cooperative") for w in (144, 160, 176, 192)}
                                       | {(cta, (1, 1, 1), "pingpong")
                                          for cta in ((64, 208), (64, 224), (64, 240), (192, 80), (192, 96))})
    got = candidates(spec, [(200, 8192, 4096)], limit=3)
    assert {v.key for v in added} <= {v.key for v in got} and len({v.key for v in got}) == len(got)
    assert not any(v.tile.swap_ab for v in candidates(spec, [(300, 8192, 4096)], limit=3))  # above 256 rows: none
    sm80 = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")
    assert configs(sm80, limit=3, token_rows=(200,)) == configs(sm80, limit=3)  # the sm80 path: none


@pytest.mark.gpu
def test_study_times_and_checks_on_the_gpu(cache_dir, tmp_path):
    from cutlassgen.tuning import study

    spec = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")
    rows = study(spec, [(512, 512, 512)], limit=2, reps=5)
    assert len(rows) == 2
    assert all(r.ms > 0 and r.tflops > 0 and r.rel_err < 5e-3 for r in rows)
    # the sm80 path's stages are the tile's own; shared memory as the compiled kernel launches with it
    variants = configs(spec, limit=2)
    assert [r.stages for r in rows] == [v.tile.stages for v in variants]
    assert all(0 < r.smem_bytes <= 227 * 1024 for r in rows)


@pytest.mark.gpu
def test_study_of_an_auto_sm90_spec_at_small_m_raises_no_default_tile_warning(cache_dir):
    """A study at M = 32 runs each variant as itself: no "runs the default tile" warning. (Its name avoids
    "per_shape", which device_session.sh's SUITE_K="not per_shape" would leave out.)"""
    import warnings

    from cutlassgen.jit import PerformanceWarning
    from cutlassgen.tuning import study

    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    variants = [spec, spec.replace(tile={"cta": (64, 32, 128), "mainloop": "pingpong", "swap_ab": True})]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*runs the default tile", category=PerformanceWarning)
        rows = study(spec, [(32, 1024, 1024)], variants=variants, reps=3)
    assert len(rows) == 2 and all(r.rel_err < 1e-2 for r in rows)
    assert all(r.stages >= 2 and 0 < r.smem_bytes <= 227 * 1024 for r in rows)


def test_configs_keep_the_fields_the_study_does_not_vary():
    spec = cg.load_spec(ROOT / "examples/specs/fp8_per_token_channel_sm90.toml")
    fast = cg.GemmSpec.from_dict({**spec.to_dict(), "tile": {"fp8_fast_accum": True, "raster": "along_n"}})
    variants = configs(fast, limit=10)
    assert variants and all(v.tile.fp8_fast_accum and v.tile.raster == "along_n" for v in variants)


@pytest.mark.gpu
def test_tune_records_winners_and_build_dispatches_by_m(cache_dir):
    import torch

    from cutlassgen.dispatch import DispatchKernel, read_record
    from cutlassgen.tuning import tune

    spec = cg.GemmSpec(arch=80, name="tune_dispatch_test", a=cg.Operand("fp16"), b=cg.Operand("fp16", "column"),
                       d=cg.Operand("fp16"), epilogue=[cg.Add("per_col", "bias", "fp16"), cg.Activation("relu")])
    shapes = [(64, 1024, 1024), (2048, 1024, 1024)]
    result = tune(spec, shapes, limit=3, reps=5)
    # the default, the 33-64 bucket's tile, 3 of the main space and (M = 64) the decode space, at two shapes
    variants = candidates(spec, shapes, limit=3)
    assert len(variants) > 3 + 2 and len(result.rows) == 2 * len(variants)
    assert [w["shape"][0] for w in result.winners] == [64, 2048]
    record = read_record(spec, result.winners and torch.cuda.get_device_capability()[0] * 10
                         + torch.cuda.get_device_capability()[1])
    assert record["gpu"] == torch.cuda.get_device_name() and len(record["winners"]) == 2
    kernel = cg.build(spec)
    assert isinstance(kernel, DispatchKernel)
    assert kernel.choose(64).spec.tile == cg.GemmSpec.from_dict(
        {**spec.to_dict(), "tile": record["winners"][0]["tile"]}).tile
    assert kernel.choose(100000).spec.tile == cg.GemmSpec.from_dict(
        {**spec.to_dict(), "tile": record["winners"][1]["tile"]}).tile
    assert not isinstance(cg.build(spec, dispatch=False), DispatchKernel)
    for M in (5, 64, 700, 2048):
        a = torch.randn(M, 1024, device="cuda").half()
        w = (torch.randn(1024, 1024, device="cuda") / 32).half()
        bias = torch.randn(1024, device="cuda").half()
        got = kernel(a, w.t(), bias=bias)
        want = cg.reference(spec, a, w.t(), bias=bias)
        assert rel_error(got, want) < 5e-3


def test_cli_tune_without_a_gpu_says_so(capsys, monkeypatch):
    torch = pytest.importorskip("torch")
    from cutlassgen.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["tune", str(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml"), "--shape", "32x8192x8192"]) == 1
    assert "no CUDA GPU" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["a file", "under a file"])
def test_cli_tune_names_a_report_folder_it_cannot_write_before_the_study(where, tmp_path, capsys, monkeypatch):
    """The report was written after minutes of compiling and timing, so an --out that is a file (or lies under one)
    lost the study's rows; now it is named first (exit 2) and nothing is compiled or timed."""
    torch = pytest.importorskip("torch")
    from cutlassgen import tuning
    from cutlassgen.cli import main

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(tuning, "tune", lambda *a, **k: pytest.fail("studied with nowhere to write the report"))
    (tmp_path / "taken").write_text("a file\n")
    out = tmp_path / "taken" if where == "a file" else tmp_path / "taken" / "report"
    spec = str(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    assert main(["tune", spec, "--shape", "32x8192x8192", "--out", str(out), "--no-save"]) == 2
    assert "taken" in capsys.readouterr().err
    assert (tmp_path / "taken").read_text() == "a file\n"


def test_cli_tune_writes_the_report_when_no_configuration_matches_the_reference(tmp_path, capsys, monkeypatch):
    """tune() raised after its study when no configuration matched the reference at a shape, and the CLI wrote no
    report: the rows whose rel_err says which kernels were wrong, and by how much, were lost. Now they are written,
    the error names the closest error and the bound, and no record is kept (exit 1)."""
    torch = pytest.importorskip("torch")
    from cutlassgen import dispatch, tuning
    from cutlassgen.cli import main

    rows = [Row("128x256x64 c2x1 cooperative", "128x4096x4096", 0.01, 400.0, 0.5, 50.0, 0, "k1"),
            Row("128x128x64 c1x2 cooperative", "128x4096x4096", 0.02, 300.0, 0.25, 48.0, 0, "k2")]
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(tuning, "study", lambda spec, shapes, **kw: rows)
    monkeypatch.setattr(dispatch, "write_record", lambda *a: pytest.fail("kept a record"))
    spec = str(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    assert main(["tune", spec, "--shape", "128x4096x4096", "--limit", "2", "--out", str(tmp_path), "--no-save"]) == 1
    err = capsys.readouterr().err
    assert "no configuration of bias_gelu_bf16 matched the reference at 128x4096x4096" in err
    assert "closest 0.25 of 2" in err and "no tuning record written" in err
    assert read_report(tmp_path) == rows


def test_spread_shares_configurations_across_worker_processes():
    """The multi-GPU plumbing without GPUs: round-robin shares, one spawned process each, every (shape, config)
    timed exactly once. (The real run on two GPUs: bench/results/h200x2_spread_check/.)"""
    from fake_tune_worker import worker

    from cutlassgen.tuning import spread

    spec = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")
    variants = [cg.GemmSpec.from_dict({**v.to_dict(), "name": f"v{i}"}) for i, v in enumerate(configs(spec, 7))]
    shapes = [(64, 64, 64), (128, 64, 32)]
    timed = spread(variants, shapes, 3, n_gpus=3, worker=worker)
    assert sorted((si, vi) for si, vi, _ in timed) == [(si, vi) for si in range(2) for vi in range(7)]
    assert {row.config.split("@")[1] for _, _, row in timed} == {"gpu0", "gpu1", "gpu2"}
    assert all(row.spec_key == f"v{vi}" for _, vi, row in timed)  # each worker got its own share's specs
    assert len({row.tflops for _, _, row in timed}) == 3  # three processes


def test_tune_is_a_function_of_the_package_even_after_its_module_is_imported():
    tuning = importlib.import_module("cutlassgen.tuning")  # a submodule named `tune` would replace the function here

    assert cg.tune is tuning.tune  # the stage's own function (its signature and docstring), not a wrapper


def test_match_keeps_the_configurations_whose_label_matches():
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    got = [label(v) for v in configs(spec, match=r"^128x(128|256)x64 c(1x1|2x1) cooperative")]
    assert len(got) == 8 and all(g.startswith(("128x128x64 c", "128x256x64 c")) for g in got)
    assert [label(v) for v in configs(spec, limit=2, match="stream-K")] == [
        label(v) for v in configs(spec, match="stream-K")][:2]  # the limit applies after the filter
    assert configs(spec, match="no such tile") == []
    with pytest.raises(cg.SpecError, match="regular expression"):
        configs(spec, match="(")


def test_schedules_vary_the_raster_order_and_swizzle_of_each_configuration():
    """--schedules: the sm90 scheduler's raster orders x swizzles (15) and the sm80 path's threadblock swizzles (4),
    each a distinct kernel and label; without it a study keeps the spec's (test above)."""
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    pingpong = r"^128x128x64 c1x1 pingpong( along_[mn])?( swizzle\d)?$"
    assert [label(v) for v in configs(spec, match=pingpong)] == ["128x128x64 c1x1 pingpong"]
    swept = configs(spec, match=pingpong, schedules=True)
    assert len({v.key for v in swept}) == len({label(v) for v in swept}) == 15
    assert {(v.tile.raster, v.tile.swizzle) for v in swept} == {
        (r, s) for r in ("auto", "along_m", "along_n") for s in (AUTO, 1, 2, 4, 8)}
    assert label(swept[0]) == "128x128x64 c1x1 pingpong" and "128x128x64 c1x1 pingpong along_n swizzle2" in {
        label(v) for v in swept}
    assert len(configs(spec, limit=4, schedules=True)) == 4  # the limit counts the variants
    from cutlassgen.dispatch import tile_from_dict, tile_to_dict

    assert all(tile_from_dict(tile_to_dict(v.tile)) == v.tile for v in swept)  # as a tuning record keeps a winner
    sm80 = cg.load_spec(ROOT / "examples/specs/fp16_bias_relu_sm80.toml")
    swept = configs(sm80, match=r"^128x256x64 w64x64 s3", schedules=True)
    assert [(label(v), v.tile.swizzle) for v in swept] == [
        ("128x256x64 w64x64 s3", 1), *((f"128x256x64 w64x64 s3 swizzle{s}", s) for s in (2, 4, 8))]


def test_schedules_sweep_the_per_shape_tiles_outside_the_space_too():
    """Exact fp8's plan at M > 2048, N >= 12288 is 128x192 cooperative with 128x64 epilogue subtiles, which the study's
    space has not (no set epilogue tile): --schedules adds its raster orders and swizzles beside the plan's own."""
    spec = cg.load_spec(ROOT / "examples/specs/fp8_per_token_channel_sm90.toml").replace(tile={})  # exact, auto
    shape = [(4096, 14336, 4096)]
    assert [label(v) for v in candidates(spec, shape, match="epi128x64")] == [
        "default (auto)", "128x192x128 c1x1 cooperative epi128x64"]
    assert configs(spec, match="epi128x64", schedules=True) == []
    got = [label(v) for v in candidates(spec, shape, match="epi128x64", schedules=True)]
    assert got[:2] == ["default (auto)", "128x192x128 c1x1 cooperative epi128x64"] and len(got) == 16
    assert "128x192x128 c1x1 cooperative epi128x64 along_m swizzle4" in got
    with pytest.raises(cg.SpecError, match="regular expression"):
        candidates(spec, shape, match="(", schedules=True)


def test_cli_tune_lists_the_schedules_of_the_matched_configurations(capsys):
    from cutlassgen.cli import main

    spec = str(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    matched = "^128x256x64 c2x1 cooperative($| along| swizzle)"  # not its stream-K form
    assert main(["tune", spec, "--list", "--schedules", "--match", matched]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("16 valid configurations")  # the spec's own, then 15 of the matched tile
    assert [line.split(" stages")[0].rsplit(maxsplit=1)[0] for line in out[1:4]] == [
        "default (auto)", "128x256x64 c2x1 cooperative", "128x256x64 c2x1 cooperative swizzle1"]


def test_labels_name_a_set_raster_order_and_swizzle():
    spec = cg.load_spec(ROOT / "examples/specs/bias_gelu_bf16_sm90.toml")
    assert label(spec) == "default (auto)"
    assert label(spec.replace(tile={"swizzle": 2})) == "default (auto) swizzle2"  # the plan keeps them (tiles.py)
    tile = {"cta": [128, 128, 64], "cluster": [1, 1, 1], "mainloop": "pingpong", "raster": "along_m"}
    assert label(spec.replace(tile=tile)) == "128x128x64 c1x1 pingpong along_m"
