"""Every bench/ script imports on a machine without a GPU: a name a script takes from another (tile_probe's tile
helpers, cutlassgen's API) that was renamed or removed fails here, not on the next GPU session."""
import importlib
import math
import os
import pathlib
import re

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))


def bench_script(monkeypatch, name):
    """Import bench/NAME.py as a module, with bench/ on sys.path only for this test."""
    monkeypatch.syspath_prepend(str(BENCH))
    return importlib.import_module(name)


def test_the_bench_folder_has_its_scripts():
    assert {"bench_anchors", "tile_probe", "anchor_history", "power_clock"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_bench_script_imports(name, monkeypatch):
    module = bench_script(monkeypatch, name)
    assert callable(getattr(module, "main", None)), f"bench/{name}.py has no main()"


def test_bench_anchors_takes_the_hbm_roof_of_the_device_it_runs_on(monkeypatch):
    """The decode table's shares are of the card's own datasheet roof: an H100's 3.35 TB/s, not the H200's 4.8, and
    none (TB/s alone) for a card without one."""
    bench_anchors = bench_script(monkeypatch, "bench_anchors")
    roofs = {name: bench_anchors.hbm_tbps(name) for name in ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe",
                                                             "NVIDIA H100 NVL", "NVIDIA GH200 480GB", "NVIDIA A100")}
    assert roofs == {"NVIDIA H200": 4.8, "NVIDIA H100 80GB HBM3": 3.35, "NVIDIA H100 PCIe": 2.0,
                     "NVIDIA H100 NVL": 3.9, "NVIDIA GH200 480GB": None, "NVIDIA A100": None}
    # 64x6144x4096 at 188 / 144 TFLOP/s moves its bytes at 3.01 / 2.31 TB/s
    row = {"shape": "64x6144x4096", "cublas_mm": 144.0, "cublaslt_fused": 133.0, "ours_best": 188.0,
           "ours_best_tile": "auto+shapes", "ours auto+shapes": 188.0}
    on_h100 = bench_anchors.decode_table([row], 3.35)
    assert "of the 3.35 TB/s HBM roof" in on_h100[1]
    assert on_h100[-1].endswith("| 2.31 (69%) | 3.01 (90%) |"), on_h100[-1]
    unknown = bench_anchors.decode_table([row], None)
    assert "no datasheet HBM roof" in unknown[1] and unknown[-1].endswith("| 2.31 | 3.01 |"), unknown[-1]


def test_k_fit_recovers_fixed_and_per_k_cost(monkeypatch):
    k_fit = bench_script(monkeypatch, "k_fit")
    # a contender taking 7 us + 5 us per 1024 of K at M = 256, N = 8192, written as tile_probe prints it
    lines = []
    for K in (512, 1024, 2048, 4096, 8192):
        us = 7.0 + 5.0 * K / 1024
        lines.append(f"bf16 bias+gelu 256x8192x{K}: lib {2 * 256 * 8192 * K / us / 1e6:.3f} | best ours ...")
    points = k_fit.times_us(lines)[("bf16 bias+gelu", 256, 8192, "lib")]
    fixed, per_k = k_fit.fit(points)
    assert fixed == pytest.approx(7.0, abs=0.01) and per_k == pytest.approx(5.0, abs=0.01)
    # a line that also prints microseconds (calls under 50 us): those are read, not the whole-number TFLOP/s
    line = ("bf16 plain 104x4096x64: cuBLAS mm 11, ours 11 | best ours ours 0.96x cuBLAS mm (...) "
            "| us: cuBLAS mm 4.96, ours 5.18\n")
    assert k_fit.times_us([line]) == {("bf16 plain", 104, 4096, "cuBLAS mm"): {64: 4.96},
                                      ("bf16 plain", 104, 4096, "ours"): {64: 5.18}}
    # a case with two groups of one kind repeats each contender's K: the second group is a series of its own
    twice = [f"fp8 scaled 256x8192x{K}: lib 1 | best ... | us: lib {us:.2f}\n"
             for us, K in ((10.0, 1024), (15.0, 2048), (20.0, 1024), (30.0, 2048))]
    assert k_fit.times_us(twice) == {("fp8 scaled", 256, 8192, "lib"): {1024: 10.0, 2048: 15.0},
                                     ("fp8 scaled", 256, 8192, "lib #2"): {1024: 20.0, 2048: 30.0}}


def test_ncu_source_summary_reads_kernels_and_samples(tmp_path, monkeypatch):
    summary = bench_script(monkeypatch, "ncu_source_summary")
    csv_text = ('"Kernel Name","k1",\n'
                '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
                '"0x10","HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4], R24","7","100"\n'
                '"0x20","@P0 BRA 0x10","3","100"\n'
                '"Kernel Name","k2",\n'
                '"Address","Source","Warp Stall Sampling (All Samples)","Instructions Executed"\n'
                '"0x10","EXIT","1","4"\n')
    (tmp_path / "source_sass.csv").write_text(csv_text)
    kernels = summary.kernels_of(tmp_path / "source_sass.csv")
    assert [k["name"] for k in kernels] == ["k1", "k2"]
    ins = summary.instructions(kernels[0])
    assert [(n, s) for _, n, s, _ in ins] == [(100, 7), (100, 3)]
    assert summary.opcode(ins[1][3]) == "BRA" and summary.opcode(ins[0][3]).startswith("HGMMA")


def _ncu_table_rows(tmp_path, monkeypatch, log_text: str):
    """bench/ncu_table.py and its rows of a log holding log_text."""
    ncu_table = bench_script(monkeypatch, "ncu_table")
    log = tmp_path / "ncu.log"
    log.write_text(log_text)
    return ncu_table, ncu_table.read(log)


def test_ncu_table_pairs_probe_labels_with_reports(tmp_path, monkeypatch):
    ncu_table, rows = _ncu_table_rows(
        tmp_path, monkeypatch,
        '==PROF== Profiling "nvjet..." - 0: 0%....100% - 5 passes\n'
        "ncu: 2048x8192x8192 cuBLASLt fused\n"
        '==PROF== Profiling "cutlassgen_gemm_kernel" - 1: 0%....100% - 5 passes\n'
        "ncu: 2048x8192x8192 256x128x64 c1x2 coop\n"
        "  nvjet_sm90_tst_256x128 (2, 66, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    lts__t_requests_srcunit_tex_op_read.sum          request   13,052,100\n"
        "    gpu__time_duration.sum                                us       345.18\n"
        "  cutlassgen_gemm_kernel (66, 2, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    lts__t_requests_srcunit_tex_op_read.sum          request   15,190,000\n"
        "    gpu__time_duration.sum                                us       346.62\n")
    assert [label for label, _ in rows] == ["2048x8192x8192 cuBLASLt fused", "2048x8192x8192 256x128x64 c1x2 coop"]
    assert rows[1][1]["lts__t_requests_srcunit_tex_op_read.sum"] == (15190000.0, "request")
    text = ncu_table.table(rows, ["tex"])
    assert "| 2048x8192x8192 256x128x64 c1x2 coop | 15.19 M |" in text and "duration" not in text


def test_ncu_table_keeps_a_templated_kernel_apart_and_scales_bytes(tmp_path, monkeypatch):
    # cuBLAS's split-K reduction is a "void ...<...>(...)" report; its metrics once overwrote its GEMM's
    ncu_table, rows = _ncu_table_rows(
        tmp_path, monkeypatch,
        "ncu: 104x2048x4096 cuBLAS mm\n"
        "  nvjet_sm90_tst_64x56_splitK_TNT (2, 64, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    dram__bytes_read.sum                         Kbyte         4.47\n"
        "    gpu__time_duration.sum                          us         7.81\n"
        "  void cublasLt::splitKreduce_kernel<32, 16, int>(cublasLt::cublasSplitKParams<T6>, const T4 *) "
        "(64, 7, 1)x(32, 16, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    dram__bytes_read.sum                         Mbyte         1.71\n"
        "    gpu__time_duration.sum                          us         3.30\n")
    assert [label for label, _ in rows] == ["nvjet_sm90_tst_64x56_splitK_TNT grid (2, 64, 1)",
                                            "void cublasLt::splitKreduce_kernel grid (64, 7, 1)"]
    assert rows[0][1]["gpu__time_duration.sum"] == (7.81, "us")
    text = ncu_table.table(rows)
    assert "| 0.00 MB | 7.8 us |" in text and "| 1.71 MB | 3.3 us |" in text


def test_ncu_table_reads_section_rows_and_the_l1tex_stall_sentence(tmp_path, monkeypatch):
    ncu_table, rows = _ncu_table_rows(
        tmp_path, monkeypatch,
        "ncu: 136x2048x4096 swap 64x64x128 c1x1 pingpong\n"
        "  cutlassgen_gemm_kernel (1, 96, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
        "    Section: GPU Speed Of Light Throughput\n"
        "    Duration                         us        17.41\n"
        "    SM Active Cycles              cycle    16,580.92\n"
        "    Issued Warp Per Scheduler                        0.17\n"
        "    OPT   Est. Speedup: 58.58%\n"
        "          On average, each warp of this workload spends 5.7 cycles being stalled waiting for a scoreboard "
        "dependency on \n"
        "          a L1TEX (local, global, surface, texture) operation. Find the instruction producing the data\n")
    assert rows[0][1] == {"Duration": (17.41, "us"), "SM Active Cycles": (16580.92, "cycle"),
                          "Issued Warp Per Scheduler": (0.17, ""), "L1TEX scoreboard stall": (5.7, "cycle")}
    assert "| 136x2048x4096 swap 64x64x128 c1x1 pingpong | 17.4 us | 0.17 | 5.7 | 16580.9 |" in ncu_table.table(rows)


def test_narrow_token_tiles_swaps_in_cutlass_own_epilogue_builder_and_tma_set_up(monkeypatch):
    # the script's findings (validate.n_step_of) rest on these substitutions matching the template's lines
    narrow_tiles = bench_script(monkeypatch, "narrow_token_tiles")
    from cutlassgen import emit

    bf16_72, fp8_72, bf16_80 = ("bf16:swap 192x72x64 c1x2 pingpong epi64x72", "fp8:swap 192x72x128 c1x2 pingpong",
                                "bf16:swap 192x80x64 c1x2 pingpong epi64x80")
    narrow = narrow_tiles.rendered(bf16_72)
    assert narrow == emit.render(narrow_tiles.bias_gelu(narrow_tiles.tile_named(bf16_72.split(":")[1])), 90)
    builder = "epilogue::collective::CollectiveBuilder<"
    via_builder = narrow_tiles.with_builder(narrow)
    assert builder not in narrow and builder in via_builder and "Sm90TmaBuilderImpl<" not in via_builder
    sliced = narrow_tiles.with_sliced_stage(narrow)
    assert "MainloopLoadHints<NarrowMainloop," in narrow and "MainloopLoadHints<BuiltMainloop," in sliced
    assert sliced.replace("MainloopLoadHints<BuiltMainloop,", "") == narrow.replace("MainloopLoadHints<NarrowMainloop,",
                                                                                  "")
    assert narrow_tiles.variants_of(bf16_72) == ["rendered", "builder epilogue", "sliced stage"]
    assert narrow_tiles.variants_of(fp8_72) == ["rendered", "builder epilogue"]  # fp8 needs no narrow TMA set-up
    assert narrow_tiles.variants_of(bf16_80) == ["rendered"]
    wide = narrow_tiles.rendered(bf16_80)
    assert narrow_tiles.with_builder(wide) == wide
    log = ('x.hpp(1077): error: static assertion failed with "Stride Divisibility Condition"\n'
           '  instantiation of class "cutlass::gemm::collective::CollectiveMma<A, B>::Params [with X=1]" at line 3\n')
    assert narrow_tiles.summarize(log) == ("fails: Stride Divisibility Condition (in cutlass::gemm::collective::"
                                           "CollectiveMma)")


def test_tile_probe_docstring_lists_every_case(monkeypatch):
    """The Run: line's case list is how a GPU session finds a case's name (sessions 69-70 added seven it missed)."""
    probe = bench_script(monkeypatch, "tile_probe")
    listed = probe.__doc__.split("Cases:")[1].split("(CASES at the end")[0].split()
    assert sorted(listed) == sorted(probe.CASES)


def test_no_dict_literal_repeats_a_key():
    """A repeated key in a dict literal drops the first entry silently: in session 88 a new tile_probe.py case took
    an existing case's name, and a GPU call ran the old case (pyflakes reports it; CI does not run pyflakes)."""
    import ast

    root = BENCH.parent
    repeated = []
    for path in sorted([*BENCH.glob("*.py"), *(root / "cutlassgen").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Dict):
                keys = [k.value for k in node.keys if isinstance(k, ast.Constant)]
                repeated += [f"{path.relative_to(root)}:{node.lineno} {k!r}" for k in set(keys) if keys.count(k) > 1]
    assert not repeated


def test_every_tile_probe_tile_renders_and_every_shape_meets_its_alignment(monkeypatch):
    """A probe case is run on a GPU session's short budget: a tile its spec cannot take, or a shape off an operand's
    alignment (which the kernel refuses at the call; a GPU test of session 29 lost a call to N = 4300), fails here."""
    from cutlassgen.emit import render
    from cutlassgen.tuning import label
    from cutlassgen.validate import check_problem_shape

    probe = bench_script(monkeypatch, "tile_probe")
    rendered, checked = 0, 0
    for case, groups in probe.CASES.items():
        for what, make, tiles, shapes, *_ in groups:
            specs = [make(tile) for tile in tiles.values() if tile is not probe.PLAN]
            for spec in specs:
                cta = ", ".join(f"_{x}" for x in spec.tile.cta)
                assert f"using TileShape = Shape<{cta}>;" in render(spec), (case, label(spec))
                rendered += 1
            for M, N, K in shapes:  # a SpecError names the case's tensor and extent; a plan-only group's all-auto spec
                check_problem_shape(specs[0] if specs else make(probe.Sm90Tile()), M, N, K)
                checked += 1
    assert rendered > 500 and checked > 500  # every case's tiles and shapes, not an empty walk


def test_plan_waves_counts_ctas_by_cluster_and_split_and_flags_the_tails(monkeypatch):
    waves = bench_script(monkeypatch, "plan_waves")
    from cutlassgen import Sm90Tile

    one = (1, 1, 1)
    swapped = Sm90Tile(cta=(64, 96, 128), swap_ab=True, mainloop="pingpong", cluster=one)
    assert waves.ctas_of(swapped, 168, 4352) == 68 * 2  # 4352 / 64 weight tiles, 168 tokens in two 96-wide ones
    # 140 tokens make two 72-wide columns, the 1x2 cluster's pair; 145 make three, launched as two pairs
    clustered = Sm90Tile(cta=(64, 72, 128), swap_ab=True, mainloop="pingpong", cluster=(1, 2, 1))
    assert waves.ctas_of(clustered, 140, 4096) == 128 and waves.ctas_of(clustered, 145, 4096) == 256
    # unswapped, 2x1 cluster: 1000 rows in 8 tiles of 128, 1100 in 9 launched as 10; 4100 columns in 17 of 256
    assert waves.ctas_of(Sm90Tile(cta=(128, 256, 64), cluster=(2, 1, 1)), 1100, 4100) == 10 * 17
    split = Sm90Tile(cta=(128, 256, 64), cluster=(2, 1, 1), split_k=2, scheduler="stream_k")
    assert waves.ctas_of(split, 1000, 4100) == 8 * 17 * 2
    assert waves.flag(136, 132, 0.25, 0.6) == "just past a wave" and waves.flag(68, 132, 0.25, 0.6) == "under one wave"
    assert waves.flag(128, 132, 0.25, 0.6) is None and waves.flag(200, 132, 0.25, 0.6) is None
    found = waves.walk(waves.spec_of("bf16"), range(97, 113, 8), range(4352, 4353), 132, 0.25, 0.6)
    # the plan's two 56-wide columns under 128-row weight tiles there: 2 x 34 CTAs, about half a wave
    assert found == {("swap 128x56x64 c1x1 cooperative", "under one wave"): [(97, 4352, 68), (105, 4352, 68)]}
    # three columns at 161-192 rows: 3 x 34 CTAs, neither flag
    assert waves.walk(waves.spec_of("bf16"), range(161, 193, 8), range(4352, 4353), 132, 0.25, 0.6) == {}
    # the last token tile's fill: 136 rows in three 64-wide columns hold 8 of the last one's 64 rows, 192 fill it;
    # unswapped, 1000 rows in 128-row tiles leave 104 in the last
    assert waves.token_fill(Sm90Tile(cta=(64, 64, 128), swap_ab=True, mainloop="pingpong", cluster=one), 136) == 0.125
    assert waves.token_fill(Sm90Tile(cta=(64, 64, 128), swap_ab=True, mainloop="pingpong", cluster=one), 192) == 1.0
    assert waves.token_fill(Sm90Tile(cta=(128, 256, 64), cluster=(2, 1, 1)), 1000) == 104 / 128
    # 161-176 rows' three 64-wide columns at N = 2048 (FILL_BUCKETS gives 161-168 three 56-wide ones): 169 fills
    # 41 of 64, 177 (three 64-wide, 49 of 64) passes 0.7
    found = waves.walk(waves.spec_of("bf16"), (165, 169, 177), range(2048, 2049), 132, 0.25, 0.6, fill=0.7)
    assert found == {("swap 64x64x128 c1x1 pingpong", waves.FILL_FLAG): [(169, 2048, 96)]}
    # the last weight tile's fill: 9216 columns in 224-wide tiles leave 32 in the last; 192-row swapped tiles divide
    # 9216; at 177 rows the plan keeps the three unswapped tiles there (161-176 take the 192-row ones)
    assert waves.weight_fill(Sm90Tile(cta=(64, 224, 64), mainloop="pingpong", cluster=one), 9216) == 32 / 224
    assert waves.weight_fill(Sm90Tile(cta=(192, 88, 64), swap_ab=True, mainloop="pingpong", cluster=(1, 2, 1)),
                             9216) == 1.0
    found = waves.walk(waves.spec_of("bf16"), (170, 177), (9216, 9600), 132, 0, 0, weight_fill_under=0.3)
    assert found == {("64x224x64 c1x1 pingpong", waves.WEIGHT_FILL_FLAG): [(177, 9216, 126)]}
    # exact fp8's 128x192 above 2048 rows at N >= 12288: 2100 rows make 17 row tiles, 75 columns at 14336 (1275
    # CTAs, 9.66 waves) and 64 at 12288 (1088, 8.24: just past a wave); 2048 rows keep the default, not walked
    found = waves.walk(waves.spec_of("e4m3-exact"), (2048, 2100), (12288, 14336), 132, 0.25, 0.6)
    assert found == {("128x192x128 c1x1 cooperative epi128x64", "just past a wave"): [(2100, 12288, 1088)]}


def test_plan_diff_groups_each_run_of_m_that_moved_between_the_same_tiles(monkeypatch):
    plan_diff = bench_script(monkeypatch, "plan_diff")
    ms = [*range(111, 120), 2048, 2049, 4096]
    before = {("bf16", m, n, k): "128x64" for m in ms for n in (5000, 6000) for k in (2048, "any")}
    after = dict(before)
    # a different tile (115) breaks a run, and so does an unmoved M (117); N = 6000 is a run of its own, and so is
    # each K; the runs follow ms' order, not M's steps (2049-4096 is one run)
    after.update({("bf16", m, 5000, "any"): "64x80" for m in (113, 114, 116, 118)})
    after.update({("bf16", 115, 5000, "any"): "64x88", ("bf16", 113, 6000, "any"): "64x96"})
    after.update({("bf16", m, 5000, 2048): "128x192" for m in (2049, 4096)})
    assert plan_diff.moved(before, after, ms) == [("bf16", 5000, 2048, 2049, 4096, "128x64", "128x192"),
                                                  ("bf16", 5000, "any", 113, 114, "128x64", "64x80"),
                                                  ("bf16", 5000, "any", 115, 115, "128x64", "64x88"),
                                                  ("bf16", 5000, "any", 116, 116, "128x64", "64x80"),
                                                  ("bf16", 5000, "any", 118, 118, "128x64", "64x80"),
                                                  ("bf16", 6000, "any", 113, 113, "128x64", "64x96")]
    assert plan_diff.moved(before, before, ms) == []


def test_plan_diff_imports_the_tree_it_is_given_over_an_editable_install(monkeypatch, tmp_path):
    # scripts/dev's .venv installs cutlassgen editable, whose import finder had made every revision compare equal to
    # the working tree (0 points moved, session 44)
    plan_diff = bench_script(monkeypatch, "plan_diff")
    (tmp_path / "cutlassgen").mkdir()
    (tmp_path / "cutlassgen" / "__init__.py").write_text("")
    (tmp_path / "cutlassgen" / "tiles.py").write_text("WHERE = 'the given tree'\n")
    script = "import json\nfrom cutlassgen import tiles\nprint(json.dumps(tiles.WHERE))\n"
    assert plan_diff._run_in(tmp_path, script) == "the given tree"


def test_plan_diff_grid_holds_every_bound_of_the_plan_and_the_point_past_it(monkeypatch):
    # the hand-kept grid had missed new thresholds twice (N = 1537 in session 41, 9857 and 10561 before), and it
    # stopped at M = 1000 and held no K, so session 69's EXACT_WIDE_M (M > 2048) and the opaque tile's K <= 2048
    # could not show
    plan_diff = bench_script(monkeypatch, "plan_diff")
    from cutlassgen import tiles

    ms, ns, ks = (set(values) for values in plan_diff.grid(BENCH.parent))
    thresholds = {n for table in (tiles._N_THRESHOLDS, tiles._SM80_N_THRESHOLDS) for t in table.values() for n in t
                  if n > 0}
    assert {1537, 2561, 9857} <= thresholds and all({n, n - 1} <= ns for n in thresholds)
    assert set(plan_diff.N_VALUES) <= ns and set(plan_diff.M_VALUES) <= ms
    assert all({m, m + 1} <= ms for m in tiles.BUCKET_UPPER if m is not None) and {2048, 2049} <= ms
    assert ks == {tiles.OPAQUE_PIPELINE_MAX_K, tiles.OPAQUE_PIPELINE_MAX_K + 1, *plan_diff.K_VALUES, "any"}
    # the weights' size decides weights_evict_first: the grid holds a point at its bound (9216 x 4096 8-bit or
    # 4608 x 4096 16-bit weights, 36 MiB, not over it) and points past it (9217 and 4609, x 8192)
    assert {4608, 4609, 9216, 9217} <= ns and {4096, 8192} <= ks and 9216 * 4096 == tiles.WEIGHTS_FIRST_MIN_BYTES


def test_plan_diff_loads_labels_a_point_by_what_its_kernel_loads(monkeypatch):
    # --loads: the tile without its weights_evict_first flag plus its kernel's weights policy, so that session 82's
    # move of the swapped tiles' EVICT_FIRST from lower.LOAD_HINTS to the flag shows where the loads changed (the
    # swapped tiles at 40 MiB or less) and not where only the flag came (172,048 points of the same code)
    plan_diff = bench_script(monkeypatch, "plan_diff")
    grid = ([64, 256], [4096, 8192], [4096, 8192])
    tiles, loads = plan_diff.plans_of(BENCH.parent, *grid), plan_diff.plans_of(BENCH.parent, *grid, loads=True)
    big, small = ("bf16", 64, 8192, 8192), ("bf16", 64, 4096, 4096)  # 128 and 32 MiB of weights
    assert tiles[big].startswith("swap ") and tiles[big].endswith(" weights-first")
    assert loads[big] == tiles[big].removesuffix(" weights-first") + ", weights EVICT_FIRST"
    assert tiles[small].startswith("swap ") and loads[small] == tiles[small]
    unswapped = ("e4m3 fast", 256, 8192, 8192)  # 97-256 rows, 64 MiB
    assert loads[unswapped] == tiles[unswapped].removesuffix(" weights-first") + ", weights EVICT_FIRST"
    assert all(loads[p] == tiles[p] for p in tiles if p[0].startswith("sm80"))
    assert sum(label.endswith("EVICT_FIRST") for label in loads.values()) == \
        sum(label.endswith("weights-first") for label in tiles.values()) > 0


def test_sass_summary_counts_mma_forms_and_where_spills_are(monkeypatch):
    sass_summary = bench_script(monkeypatch, "sass_summary")
    sass = "\n".join([
        "        /*0010*/                   STL [R1+0x4], R5 ;",
        "        /*0020*/                   WARPGROUP.ARRIVE ;",
        "        /*0030*/                   QGMMA.64x64x32.F32.E4M3.E4M3 R88, gdesc[UR20], RZ, !UPT ;",
        "        /*0040*/                   LDL.LU R5, [R1+0x4] ;",
        "        /*0050*/              @!P0 QGMMA.64x64x32.F32.E4M3.E4M3 R88, R24, gdesc[UR20], R88, gsb0 ;",
        "        /*0060*/                   WARPGROUP.DEPBAR.LE gsb0, 0x0 ;",
        "        /*0070*/                   LDL R6, [R1+0x8] ;",
        "        /*0080*/                   EXIT ;"])
    got = sass_summary.summary(sass)
    assert got["instructions"] == 8
    assert got["mma forms"] == {"QGMMA.64x64x32.F32.E4M3.E4M3 SS": 1, "QGMMA.64x64x32.F32.E4M3.E4M3 RS": 1}
    assert (got["waits"], got["arrives"]) == (1, 1)
    assert got["spill stores in / outside the mainloop"] == (0, 1)
    assert got["spill loads in / outside the mainloop"] == (1, 1)
    assert sass_summary.setting("OVERLAPPED_PROMOTION=False") == ("OVERLAPPED_PROMOTION", False)
    assert sass_summary.setting("TAIL_LOADS=all") == ("TAIL_LOADS", "all")


def test_sass_summary_finds_the_k_tile_loop_and_the_tile_loop_around_it(monkeypatch):
    sass_summary = bench_script(monkeypatch, "sass_summary")
    lines = ["/*0000*/ S2R R0, SR_TID.X ;",
             "/*0010*/ @P0 BRA 0x90 ;",                    # forward: no loop
             "/*0020*/ S2UR UR8, SR_CgaCtaId ;",            # the tile loop's top: per tile, before the k-tile loop
             "/*0030*/ CS2R R24, SRZ ;",
             "/*0040*/ SYNCS.PHASECHK.TRANS64.TRYWAIT P1, [R25+URZ], R24 ;",   # the k-tile loop's top
             "/*0050*/ QGMMA.64x128x32.F32.E4M3.E4M3 R24, gdesc[UR8], RZ, !UPT ;",
             "/*0060*/ WARPGROUP.DEPBAR.LE gsb0, 0x0 ;",
             "/*0070*/ @!P1 BRA 0x40 ;",
             "/*0080*/ @P2 BRA 0x20 ;",
             "/*0090*/ @P3 BRA 0x0 ;",                      # around the tile loop: not the shortest
             "/*00a0*/ EXIT ;"]
    found = sass_summary.loops("\n".join("        " + line for line in lines))
    assert (found["k loop"], found["tile loop"]) == ((0x40, 0x70), (0x20, 0x80))
    assert found["before k loop"] == ["S2UR UR8, SR_CgaCtaId", "CS2R R24, SRZ"]
    assert found["k loop code"][0].startswith("SYNCS.PHASECHK") and found["k loop code"][-1] == "@!P1 BRA 0x40"
    sizes = sass_summary.loop_sizes("\n".join(lines))
    assert sizes == {"k-tile loop instructions": 4, "tile loop instructions": 7, "per tile before the k-tile loop": 2}
    assert sass_summary.loops("/*0000*/ EXIT ;")["k loop"] is None  # no MMA, no loop


def test_setting_check_reads_settings_as_literals_or_words(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import argparse

    from setting_check import parse_setting
    assert parse_setting("EPI_STORE_STAGES=3") == ("EPI_STORE_STAGES", 3)
    assert parse_setting("OVERLAPPED_PROMOTION=False") == ("OVERLAPPED_PROMOTION", False)
    assert parse_setting("EPI_STORE_STAGES=None") == ("EPI_STORE_STAGES", None)
    assert parse_setting("PROMOTION_SCHEDULE=halves") == ("PROMOTION_SCHEDULE", "halves")
    for bad in ("PROMOTION_SCHEDULE", "=halves"):
        with pytest.raises(argparse.ArgumentTypeError):
            parse_setting(bad)


@pytest.mark.parametrize("argv", [["--peak", "0"], ["--peak", "nan"], ["--peak-bandwidth", "4.8"],
                                  ["--peak", "790", "--peak-bandwidth", "-1"]])
def test_replot_study_refuses_a_bad_peak_as_a_usage_error_and_keeps_the_report(argv, tmp_path, monkeypatch, capsys):
    replot_study = bench_script(monkeypatch, "replot_study")
    (tmp_path / "study.csv").write_text("kept\n")
    monkeypatch.setattr("sys.argv", ["replot_study.py", str(tmp_path), "no-spec.toml", *argv])
    with pytest.raises(SystemExit) as stop:
        replot_study.main()
    assert stop.value.code == 2 and "--peak" in capsys.readouterr().err
    assert (tmp_path / "study.csv").read_text() == "kept\n"


def test_power_clock_sampler_keeps_every_sample_of_a_long_run(tmp_path, monkeypatch):
    """nvidia-smi's samples went into a pipe read only at the end: past its 64 KiB (about 30 s at 20 ms) the sampler
    blocked and later windows had no samples. A stand-in nvidia-smi writes 4000 lines (about 190 KiB) and exits."""
    import tempfile

    power_clock = bench_script(monkeypatch, "power_clock")
    fake = tmp_path / "nvidia-smi"
    line = "2026/12/06 09:12:0$((i % 10)).500, 1410, 690.5, 5$((i % 10))"
    fake.write_text(f'#!/bin/sh\nfor i in $(seq 1 4000); do echo "{line}"; done\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    with tempfile.TemporaryFile("w+") as log:
        smi = power_clock.sampler(log)
        assert smi.wait(timeout=30) == 0
        log.seek(0)
        samples = power_clock.samples_of(log.read())
    assert len(samples) == 4000 and samples[-1][1:3] == (1410.0, 690.5)


def test_bench_scripts_read_shapes_or_say_what_is_wrong(monkeypatch):
    """tile_probe.parse_shapes, the --shapes reader of tile_probe.py, setting_check.py, library_kernels.py and the
    others: a bad list is an argparse error naming it, not a traceback."""
    monkeypatch.syspath_prepend(str(BENCH))
    import argparse

    from tile_probe import parse_shapes
    assert parse_shapes("256x8192x8192,8192X8192X1024") == [(256, 8192, 8192), (8192, 8192, 1024)]
    for bad in ("", "256x8192", "256x8192x8192,", "0x8192x8192", "256x8192xK", "256x8192x8192x1"):
        with pytest.raises(argparse.ArgumentTypeError, match="MxNxK"):
            parse_shapes(bad)


def test_tile_probe_clone_builds_the_same_source_under_another_cache_key(monkeypatch):
    """{CLONE: n} in a probe's builds: the kernel's own source plus a trailing comment, so a second module of identical
    code is timed beside the first (opaqueclone's control for the spread between identical kernels)."""
    monkeypatch.syspath_prepend(str(BENCH))
    import cutlassgen.runtime
    from cutlassgen import jit
    import tile_probe

    compiled = []
    monkeypatch.setattr(jit, "_compile_missing", lambda jobs, *rest: compiled.extend(jobs) or [None] * len(jobs))
    monkeypatch.setattr(cutlassgen.runtime, "Kernel", lambda spec, path, arch, source: source)
    group = tile_probe.CASES["opaqueclone"][0]
    spec = group[1](tile_probe.tile_named("128x128x128 c1x1 coop"))
    builds = tile_probe.builds_of(group)
    assert [name for name, _ in builds] == [" opaque_pipeline=False", " opaque_pipeline=False clone=1",
                                            " opaque_pipeline=8", " opaque_pipeline=8 clone=1"]
    sources = tile_probe.build_variants([(spec, settings) for _, settings in builds])
    assert sources[1].startswith(sources[0]) and sources[1] != sources[0]  # the same code, a comment added
    assert sources[3].startswith(sources[2]) and sources[2] != sources[0]  # the setting still applies under a clone
    assert len({job.key for job in compiled}) == 4  # four cache entries: none of them served for another
    assert builds[1][1] == {"OPAQUE_PIPELINE": False, tile_probe.CLONE: 1}  # build_variants took a copy


def test_setting_check_tiles_name_the_plan_per_shape(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    from cutlassgen import Sm90Tile
    from cutlassgen.tiles import shape_tile
    from setting_check import EXTRA_TILES, tiles_at
    from tile_probe import fp8_scaled, tile_named

    planned = {(M, K): shape_tile(fp8_scaled(Sm90Tile()), M, 8192, K) for M in (32, 232, 256) for K in (1024, 4096)}
    assert planned[32, 4096] != planned[232, 4096]  # the plan's tile moves with the shape, and "plan" with it
    assert planned[256, 1024] != planned[256, 4096]  # and with K (Sm90Tile.opaque_pipeline)
    for (M, K), tile in planned.items():
        named = tile_named("128x128x128 c1x1 coop")
        assert tiles_at(fp8_scaled, M, 8192, K, "plan,128x128x128 c1x1 coop") == [tile, named]
        assert tiles_at(fp8_scaled, M, 8192, K, None) == [tile, *EXTRA_TILES]


def test_setting_check_finds_one_wrong_element_that_a_norm_would_pass(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    import torch

    from cutlassgen.golden import rel_error
    from setting_check import worst_element_error
    ref = torch.linspace(-2.0, 2.0, 65536, dtype=torch.float64).reshape(256, 256)
    out = ref.clone().bfloat16()
    assert worst_element_error(out, ref) < 2 ** -8  # bf16 rounding only
    out[3, 5] = 0.0  # one element of 65536 lost: a norm barely moves, the worst element does
    assert rel_error(out, ref) < 2e-2
    assert worst_element_error(out, ref) == pytest.approx(abs(ref[3, 5].item()) / 2.0)
    out[7, 7] = float("nan")  # an element left unwritten in a NaN-poisoned output
    assert math.isnan(worst_element_error(out, ref))


def test_streamk_units_finds_the_empty_units_that_lost_tiles_and_none_in_cutlass_own(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    from streamk_units import covers_each_k_tile_once, empty_units, unit_ranges, units_for
    # session 64's failing tail split: 116 tiles of 10 k tiles over 132 units
    assert empty_units(116, 10, 132) == 16
    assert covers_each_k_tile_once(116, 10, 132)
    # an even split with units a tile's divisor long: 8 units per 64-k-tile tile, nothing moved
    assert unit_ranges(4, 64, 32)[:3] == [(0, 8), (8, 8), (16, 8)]
    assert empty_units(4, 64, 32) == 0
    # CUTLASS's own split of a wave and its tail, with data-parallel tiles after it: never an empty unit
    assert all(empty_units(t, k, units_for(t, k)) == 0 for t in (132, 136, 200, 263) for k in (9, 10, 16, 64))


def test_launch_gap_splits_a_chain_per_call_and_measures_the_gaps_between(monkeypatch):
    launch_gap = bench_script(monkeypatch, "launch_gap")
    # a profiler trace of a spin and three calls of two kernels each (us): 10 + 2 long, the next call 1 us after
    # (the first two calls) or 0.5 us before (the third: it started early) the previous one's last kernel ended
    trace = [{"name": "spin_kernel", "ts": 0.0, "dur": 2000.0}]
    for start in (2000.0, 2013.0, 2024.5):
        trace += [{"name": "gemm", "ts": start, "dur": 10.0}, {"name": "epilogue", "ts": start + 10.0, "dur": 2.0}]
    trace[-1]["dur"] = 3.0  # the last call's second kernel is longer: its call takes 13 us
    monkeypatch.setattr(launch_gap, "kernel_events", lambda run: trace)
    median, first, gap = launch_gap.in_chain_ms(lambda: None, calls=3)
    assert (median, first) == pytest.approx((0.012, 0.012))
    assert gap == pytest.approx((1.0 + -0.5) / 2 / 1000)  # the median of the two gaps, in ms
    # a call that launched one kernel fewer: the trace cannot be split into calls
    monkeypatch.setattr(launch_gap, "kernel_events", lambda run: trace[:-1])
    with pytest.raises(RuntimeError, match="5 kernels in 3 calls"):
        launch_gap.in_chain_ms(lambda: None, calls=3)


def test_ncu_table_median_merges_the_repeats_of_a_label_across_units(tmp_path, monkeypatch):
    report = ("  cutlassgen_gemm_kernel (128, 1, 1)x(384, 1, 1), Context 1, Stream 7, Device 0, CC 9.0\n"
              "    dram__bytes_read.sum                         {}\n"
              "    sm__cycles_elapsed.avg                    cycle    {}\n")
    ncu_table, rows = _ncu_table_rows(
        tmp_path, monkeypatch,
        "".join(f"ncu: 256x8192x8192 {name}\n" + report.format(read, cycles) for name, read, cycles in (
            ("ours", "Mbyte 68.20", "47,757"), ("nvjet", "Mbyte 68.26", "46,449"),
            ("ours", "Kbyte 999.00", "46,850"), ("nvjet", "Mbyte 68.30", "48,505"),
            ("ours", "Mbyte 1.01", "48,417"))))
    merged = ncu_table.medians(rows)
    assert [label for label, _ in merged] == ["256x8192x8192 ours (median of 3)", "256x8192x8192 nvjet (median of 2)"]
    ours, nvjet = (metrics for _, metrics in merged)
    assert ours["sm__cycles_elapsed.avg"] == (47757.0, "cycle")
    assert ours["dram__bytes_read.sum"] == (pytest.approx(1.01), "Mbyte")  # 999 Kbyte < 1.01 MB < 68.2 MB
    assert nvjet["sm__cycles_elapsed.avg"] == (pytest.approx(47477.0), "cycle")


def test_clock_probe_reads_the_clock_inside_the_window_only(monkeypatch):
    clock_probe = bench_script(monkeypatch, "clock_probe")
    # 1.5 cycles per ns until 10,000 ns, then 2.0: a window inside the second part reads 2.0 GHz
    samples, cycles = [], 0.0
    for t in range(0, 20_000, 200):
        samples.append((t, cycles))
        cycles += 200 * (1.5 if t < 10_000 else 2.0)
    assert clock_probe.window_clock(samples, 12_000, 18_000) == (6_000, pytest.approx(2.0))
    assert clock_probe.window_clock(samples, 0, 10_000)[1] == pytest.approx(1.5)
    # fewer than two samples inside (the probe ended before the work did): no reading
    assert clock_probe.window_clock(samples, 19_900, 25_000) is None


def test_built_beside_plans_compiles_tiles_and_plans_in_one_run_and_builds_each_plan(monkeypatch):
    tile_probe = bench_script(monkeypatch, "tile_probe")
    import cutlassgen as cg

    runs, builds = [], []
    monkeypatch.setattr(cg, "build_many", lambda specs: runs.append(list(specs)) or [("kernel", s) for s in specs])
    monkeypatch.setattr(cg, "build", lambda spec, shapes: builds.append((spec, shapes)) or ("plan", spec))
    tile = tile_probe.fp8_scaled(tile_probe.tile_named("128x128x128 c2x1 coop"))
    plan = tile_probe.fp8_scaled_fast(cg.Sm90Tile())
    shapes = [(256, 8192, 8192)]
    tiles, plans = tile_probe.built_beside_plans([tile], [plan], shapes)
    # one ninja run: the tile, the plan's default and its per-shape variants; then build() once per plan
    assert runs == [[tile, *cg.dispatch.with_shape_variants([plan], shapes)]] and len(runs[0]) > 2
    assert tiles == [("kernel", tile)] and plans == [("plan", plan)] and builds == [(plan, shapes)]


def test_the_seed_holds_what_warm_weights_policy_builds(monkeypatch):
    """seed_device_parts.py --what warm_weights compiles ahead the very jobs warm_weights_policy.py's main() builds
    (the plan's tile at each default shape, under each LOAD_HINTS variant): a key that differs would leave the GPU
    session compiling those cubins itself."""
    monkeypatch.syspath_prepend(str(BENCH))
    from cutlassgen import jit
    import seed_device_parts
    import tile_probe
    import warm_weights_policy

    compiled = []
    monkeypatch.setattr(jit, "_compile_missing", lambda jobs, *rest: compiled.extend(jobs) or [None] * len(jobs))
    import cutlassgen.runtime
    monkeypatch.setattr(cutlassgen.runtime, "Kernel", lambda spec, path, arch, source: source)
    entries = warm_weights_policy.variant_entries()
    sources = tile_probe.build_variants(entries)
    seeded = seed_device_parts.wanted_jobs({"warm_weights"})
    assert {job.key for job in seeded} == {job.key for job in compiled}
    assert len(seeded) == len(entries) == 2 * len({spec for spec, _ in entries})  # two policies per tile
    by_tile = {}
    for (spec, _), source in zip(entries, sources):
        by_tile.setdefault(spec, set()).add(source)
    assert all(len(s) == 2 for s in by_tile.values())  # each policy renders its own source


def test_the_seed_holds_a_probe_case_s_plan_kernels_too(monkeypatch):
    """seed_device_parts.py --what CASE compiles ahead, besides the case's named tiles, what tile_probe.py builds for
    its "auto+shapes" entries: each group's all-auto spec and its per-shape plan's variants at the group's shapes
    (before, the GPU session compiled those itself)."""
    monkeypatch.syspath_prepend(str(BENCH))
    from cutlassgen import Sm90Tile, dispatch, jit
    import seed_device_parts
    import tile_probe

    seeded = {job.key for job in seed_device_parts.wanted_jobs({"strips1"})}
    groups = tile_probe.CASES["strips1"]
    planned, named = set(), set()
    for group in groups:
        assert tile_probe.PLAN in group[2].values()
        for spec in dispatch.with_shape_variants([group[1](Sm90Tile())], group[3]):
            planned.add(jit.plan(spec, 90).with_cache_key().key)
        named |= {jit.plan(group[1](t), 90).with_cache_key().key for t in group[2].values() if t is not tile_probe.PLAN}
    assert planned - named, "the plans run no kernel the named tiles do not: this test would check nothing"
    assert seeded == planned | named


def test_seed_device_parts_leaves_in_its_seed_only_whole_parts(tmp_path):
    """The seed folder travels to the GPU machine and is copied into its cache: a seeding killed mid-compile had left
    its staging folders (half-written outputs) in it."""
    import signal
    import subprocess
    import sys
    import time

    from fake_toolchain import write_fake_tool

    out, log, hang = tmp_path / "seed", tmp_path / "steps.log", tmp_path / "hang"
    hang.touch()
    staging = tmp_path / "staging"  # the kill leaves its staging folders here, not in the machine's /tmp
    staging.mkdir()
    env = {**os.environ, "CUTLASSGEN_NVCC": str(write_fake_tool(tmp_path / "nvcc", slow="")),
           "FAKE_LOG": str(log), "FAKE_SLOW": str(hang), "PYTHONPATH": str(BENCH.parent), "TMPDIR": str(staging)}
    cmd = [sys.executable, str(BENCH / "seed_device_parts.py"), "--out", str(out), "--what", "oobrow", "--jobs", "2"]
    seeding = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 120
    while not (log.exists() and log.read_text().count("\n") >= 2):  # both compiles are in flight, half written
        assert seeding.poll() is None and time.time() < deadline, seeding.stdout.read()
        time.sleep(0.05)
    os.killpg(seeding.pid, signal.SIGKILL)
    seeding.wait()
    assert {p.name for p in out.iterdir()} <= {"jinja"}  # the renderer's template cache, nothing staged
    assert len(list(staging.iterdir())) == 2  # the two compiles in flight were staged
    hang.unlink()
    again = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "8 kept, 0 failed" in again.stdout, again.stdout + again.stderr
    assert {p.name for p in out.iterdir()} <= {"jinja", "device", "host"}
    parts = [p.read_text() for kind in ("device/sm90/*/kernel.cubin", "host/sm90/*/kernel.o") for p in out.glob(kind)]
    assert parts == ["part of it and the rest"] * 8

def test_rules_off_check_cases_are_refused_as_shipped_and_valid_with_their_rules_off(monkeypatch):
    """bench/rules_off_check.py runs on a GPU what validate refuses from CUTLASS's arithmetic alone: each case must
    stay refused (else it tests nothing) and validate with exactly its rules switched off (else a renamed rule, or
    another rule, would stop the GPU session's run)."""
    check = bench_script(monkeypatch, "rules_off_check")
    for rules, _, make in check.CASES:
        assert check.refused(make), make.__name__
        for rule in rules:  # each rule of the case is needed: with the others alone off it is still refused
            with check.rules_off(set(rules) - {rule}):
                assert check.refused(make), (make.__name__, rule)
        with check.rules_off(rules):
            make()
    assert check.refused(check.CASES[0][2])  # the rules are back on after the block


def test_rotated_contenders_cycle_through_enough_input_sets(monkeypatch):
    """tile_probe.rotated: each call goes to the next input set, and the sets together hold ROTATE_MIB (so no call
    finds its operands in L2), at least two of them; the name says it rotates (the probe's header lists such groups)."""
    probe = bench_script(monkeypatch, "tile_probe")
    made = []

    def fake_contenders(kernels, M, N, K):
        made.append(len(made))
        me = made[-1]
        return {"lib": lambda: ("lib", me), "ours": lambda: ("ours", me)}

    rotating = probe.rotated(fake_contenders, lambda M, N, K: 2 * M * N * K)
    assert rotating.__name__ == "fake_rotated_contenders"
    fns = rotating({}, 16, 1024, 1024)  # 32 MiB a set: 8 sets for 256 MiB
    assert len(made) == probe.ROTATE_MIB // 32
    assert [fns["ours"]() for _ in range(10)] == [("ours", i % 8) for i in range(10)]
    assert fns["lib"]() == ("lib", 0)
    made.clear()
    probe.rotated(fake_contenders, lambda M, N, K: 2**30)({}, 1, 1, 1)
    assert len(made) == 2
    assert {probe.bias_gelu_rotated_contenders, probe.plain_rotated_contenders} <= probe.ROTATING


def test_seed_device_parts_names_what_it_does_not_know(monkeypatch):
    """A misspelt --what name stopped seed_device_parts.py with a KeyError, and a misspelt --per-shape case (or
    device_session.sh PER_SHAPE_CASES name) built nothing without a word: both are now errors that name the bad name
    and the valid ones."""
    monkeypatch.syspath_prepend(str(BENCH))
    import seed_device_parts

    assert seed_device_parts.unknown_names({"suite", "per_shape", "decode5120rot"}, "bf16,sm80_int8") == []
    assert seed_device_parts.unknown_names({"anchors"}, "no_such_case") == []  # --per-shape read only with per_shape
    bad_case, = seed_device_parts.unknown_names({"suite", "decode512rot"}, "all")
    assert "decode512rot" in bad_case and "warm_weights" in bad_case
    bad_per_shape, = seed_device_parts.unknown_names({"per_shape"}, "bf16,fp9")
    assert "fp9" in bad_per_shape and "sm90_tf32" in bad_per_shape
    import suite_specs  # device_session.sh's PER_SHAPE_CASES goes through prebuild_specs: the same refusal there

    with pytest.raises(ValueError, match="no per-shape case fp9"):
        suite_specs.prebuild_specs(suite=False, per_shape="bf16,fp9")


@pytest.mark.compile
def test_sass_same_tells_a_code_change_from_the_names_a_compile_folder_gives(tmp_path, monkeypatch):
    """Every key includes csrc/'s digest; sass_same.py says whether a csrc/ change left the kernels' code as it was.
    Two compiles of one source in two folders differ in bytes (nvcc names internal symbols by a hash of the path) but
    not in code; another constant is another code."""
    monkeypatch.syspath_prepend(str(BENCH))
    import subprocess

    import sass_same
    from cutlassgen.jit import toolchain

    def cubin(folder: str, scale: str) -> pathlib.Path:
        where = tmp_path / folder
        where.mkdir()
        (where / "kernel.cu").write_text(f"namespace {{ __device__ float scale = {scale}; }}\n"
                                         "__global__ void k(float* x) { x[threadIdx.x] *= scale; }\n")
        subprocess.run([str(toolchain.find_nvcc()), "-arch=sm_90a", "-cubin", str(where / "kernel.cu"), "-o",
                        str(where / "kernel.cubin")], check=True)
        return where / "kernel.cubin"

    first, again, other = cubin("a", "2.0f"), cubin("b", "2.0f"), cubin("c", "3.0f")
    assert first.read_bytes() != again.read_bytes()
    sections = sass_same.code_sections(first)
    assert ".text._Z1kPf" in sections and ".strtab" not in sections
    assert sections == sass_same.code_sections(again) and sections != sass_same.code_sections(other)


def test_probe_ratio_divides_two_contenders_per_shape(monkeypatch):
    probe_ratio = bench_script(monkeypatch, "probe_ratio")
    lines = ["bf16 bias+gelu 1024x14336x4096: cuBLASLt fused 730, def 600, pp 660 | best ours pp 0.90x ...\n",
             "bf16 bias+gelu 6144x14336x4096: cuBLASLt fused 700, def 700, pp 560 | best ours def 1.00x ...\n",
             "bf16 bias+gelu 8192x14336x4096: cuBLASLt fused 700, def 650 | best ours def ...\n"]
    r = probe_ratio.ratios(lines, "pp", "def")
    # the third shape lacks pp: left out; TFLOP/s are whole numbers, so the ratios hold to their rounding
    assert set(r) == {("bf16 bias+gelu", 1024, 14336, 4096), ("bf16 bias+gelu", 6144, 14336, 4096)}
    assert r[("bf16 bias+gelu", 1024, 14336, 4096)] == pytest.approx(1.1, rel=1e-3)
    assert r[("bf16 bias+gelu", 6144, 14336, 4096)] == pytest.approx(0.8, rel=1e-3)
    assert probe_ratio.geomean(r.values()) == pytest.approx(math.sqrt(1.1 * 0.8), rel=1e-3)


def test_probe_ratio_pairs_a_settings_builds_in_one_section_of_a_results_log(monkeypatch):
    """"{}" pairs each tile's two builds of a lower setting; --section keeps one "## ..." part of a results log (the
    cold and warm runs of a case repeat its shapes); padded-activation variants ("... | padded 700") are contenders."""
    probe_ratio = bench_script(monkeypatch, "probe_ratio")
    log = ["# header\n", "## probe_cold.log (case --cold)\n",
           "stages: t1 swizzle_pad=0 6 (1 B)\n",
           "fp8 scaled 8000x8192x8192: base 1000, t1 swizzle_pad=0 800, t1 swizzle_pad=5 1200, "
           "t2 swizzle_pad=0 900, t2 swizzle_pad=5 900, t2 swizzle_pad=0 | padded 450 | best ours t1 1.20x\n",
           "## probe_warm.log (case)\n",
           "fp8 scaled 8000x8192x8192: base 1000, t1 swizzle_pad=0 500, t1 swizzle_pad=5 1000 | best ours t1 1.0x\n"]
    cold = probe_ratio.ratios(probe_ratio.section(log, "probe_cold.log (case"), "{} swizzle_pad=5", "{} swizzle_pad=0")
    assert cold == {("fp8 scaled", 8000, 8192, 8192, "t1"): pytest.approx(1.5, rel=1e-3),
                    ("fp8 scaled", 8000, 8192, 8192, "t2"): pytest.approx(1.0, rel=1e-3)}
    warm = probe_ratio.ratios(probe_ratio.section(log, "probe_warm.log"), "{} swizzle_pad=5", "{} swizzle_pad=0")
    assert warm == {("fp8 scaled", 8000, 8192, 8192, "t1"): pytest.approx(2.0, rel=1e-3)}
    padded = probe_ratio.ratios(probe_ratio.section(log, "probe_cold"), "t2 swizzle_pad=0 | padded", "base")
    assert padded == {("fp8 scaled", 8000, 8192, 8192): pytest.approx(0.45, rel=1e-3)}


def test_wave_fill_check_times_the_tile_the_rule_runs_against_the_plan(monkeypatch):
    check = bench_script(monkeypatch, "wave_fill_check")
    lines = ["bf16 bias+gelu 768x14336x4096: cuBLASLt fused 700, 128x224x64 c1x1 coop 770, auto+shapes 660 | ...\n",
             "bf16 bias+gelu 896x14336x4096: cuBLASLt fused 700, 128x224x64 c1x1 coop 600, auto+shapes 760 | ...\n",
             "bf16 bias+gelu 704x14336x4096: cuBLASLt fused 700, auto+shapes 650 | ...\n"]
    rows = {r[:2]: r[3:] for r in check.rule_rows(lines, 132)}
    # 768 rows: 128x224 fills 2.91 waves against 5.09; 896: 128x128 fills its 5.94; 704 (ragged): 128x224, not timed
    assert rows[(768, 14336)][0] == "128x224x64 c1x1 coop"
    assert rows[(768, 14336)][1:] == pytest.approx((770 / 660, 1.1), rel=1e-3)
    assert rows[(896, 14336)] == ("auto+shapes", 1.0, pytest.approx(760 / 700, rel=1e-3))
    assert rows[(704, 14336)] == ("128x224x64 c1x1 coop", None, None)
    # on 114 SMs 672 128x128 tiles fill 5.89 waves: the plan's tile stands
    assert check.rule_rows(lines, 114)[1][3] == "auto+shapes"


def _device_call(tmp_path, **env):
    """bench/device_call.sh run from the repo root with python3 and nvidia-smi stubbed (the stub python3 logs its
    arguments and fails where they hold FAIL_ON); its stdout."""
    import subprocess

    stubs = tmp_path / "bin"
    stubs.mkdir(exist_ok=True)
    (stubs / "python3").write_text('#!/bin/sh\necho "$*" >> "$CALLS"\ncase "$*" in *"$FAIL_ON"*) exit 1;; esac\n')
    (stubs / "nvidia-smi").write_text("#!/bin/sh\necho 'NVIDIA Stub, 1980 MHz'\n")
    for stub in stubs.iterdir():
        stub.chmod(0o755)
    env = {"PATH": f"{stubs}:{os.environ['PATH']}", "OUT": str(tmp_path / "out"), "MARKS": str(tmp_path / "marks"),
           "WHEELS": str(tmp_path / "no-wheels"), "SEEDS": str(tmp_path / "no-seeds"),
           "CUTLASSGEN_CACHE_DIR": str(tmp_path / "cache"), "CALLS": str(tmp_path / "calls"),
           "FAIL_ON": "never-in-an-argument", **env}
    run = subprocess.run(["bash", str(BENCH / "device_call.sh")], cwd=BENCH.parent, env=env, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_device_call_goes_on_where_an_earlier_call_stopped(tmp_path):
    """A stage that ended well is not run again on the same machine; one that failed is; one that does not fit in
    what is left of the guard is skipped with a word, not started."""
    first = _device_call(tmp_path, PROBE="raggedwide", MODES="cold warm", NO_TESTS="1", FAIL_ON="--cold")
    assert "NVIDIA Stub" in first
    # the commit the machine's .git names (and, in a tree with uncommitted changes, how the files differ from it)
    assert re.search(r"^tree [0-9a-f]{7,} ", first, re.M), first
    calls = (tmp_path / "calls").read_text().splitlines()
    assert calls == ["bench/tile_probe.py raggedwide --build-only", "bench/tile_probe.py raggedwide --rounds 9 --cold",
                     "bench/tile_probe.py raggedwide --rounds 9"]
    assert sorted(p.name for p in (tmp_path / "marks").iterdir()) == ["probe_build", "probe_warm", "seeded"]
    second = _device_call(tmp_path, PROBE="raggedwide", MODES="cold warm", NO_TESTS="1")
    assert "probe_build: done in an earlier call" in second and "probe_warm: done in an earlier call" in second
    assert (tmp_path / "calls").read_text().splitlines()[3:] == ["bench/tile_probe.py raggedwide --rounds 9 --cold"]
    # the tests' stages at a guard of 150 s: the per-shape prebuild (needs 330) and the rest of the suite (180) skip
    third = _device_call(tmp_path, GUARD_S="150", PER_SHAPE_K="test_one")
    assert "per_shape_prebuild: SKIPPED" in third and "others: SKIPPED" in third and "reference (" in third
    assert "-m gpu -p no:cacheprovider -o faulthandler_timeout=300 tests -k test_one" in \
        (tmp_path / "calls").read_text().splitlines()[4]
    # with the guard to spare, "others" runs every GPU test but the per-shape stage's (however PER_SHAPE_K names them:
    # in session 108 a word added there ran its test twice) and the reference's
    fourth = _device_call(tmp_path, GUARD_S="400", PER_SHAPE_K="test_one or test_two")
    assert "others: SKIPPED" not in fourth
    others = (tmp_path / "calls").read_text().splitlines()[-1]
    assert others.endswith('tests -k not (test_one or test_two) and not test_matches_reference and not direct_store')
    # SKIP leaves the stages it names for a later call: not run, not marked done
    fifth = _device_call(tmp_path, GUARD_S="400", MARKS=str(tmp_path / "marks5"), SKIP="per_shape_prebuild reference")
    assert "per_shape_prebuild: SKIPPED (SKIP names it)" in fifth and "reference: SKIPPED (SKIP names it)" in fifth
    assert not (tmp_path / "marks5" / "reference").exists()
    assert (tmp_path / "marks5" / "per_shape_tests").exists()
