"""bench/anchor_history.py reads the per-round ratio tables of the committed anchors runs."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("anchor_history", ROOT / "bench" / "anchor_history.py")
anchor_history = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anchor_history)

SAMPLE = """\
## Run 2 (later, cold)

TFLOP/s on NVIDIA H200, L2 flushed before every timed run; command: python bench/bench_anchors.py --cold

| target | M x N x K | ours (tile) | anchor | median | quartiles | rounds ours >= |
|---|---|---|---|---|---|---|
| bf16 bias+gelu | 8192x8192x8192 | 256x128x64 c1x2 coop | cublaslt_fused | 1.012 | 0.954-1.036 | 9 of 15 |
| decode bias+gelu | 64x6144x4096 | auto+shapes | cublas_mm | 0.972 | 0.967-0.978 | 0 of 15 |

## Run 1 (earlier, warm)

TFLOP/s on NVIDIA H200, torch 2.11.0+cu130; command: python bench/bench_anchors.py

| bf16 bias+gelu | 8192x8192x8192 | 128x256x64 c2x1 coop | cublaslt_fused | 0.974 | 0.950-1.001 | 6 of 15 |
| decode bias+gelu | 64x6144x4096 | auto+shapes | cublas_mm | 0.978 | 0.970-0.990 | 5 of 15 |
| decode bias+gelu | 16x8192x8192 | auto+shapes | cublas_mm | 1.002 | 0.990-1.010 | 8 of 15 |

## Run 0 (no ratio table)

| M x N x K | cuBLAS mm |
"""


def test_parse_reads_each_runs_medians_and_whether_it_was_cold():
    runs = anchor_history.parse_runs(SAMPLE)
    assert sorted(runs) == [1, 2]  # run 0 has no per-round table
    assert runs[2]["cold"] and not runs[1]["cold"]
    assert runs[2]["ratios"][("decode bias+gelu", "64x6144x4096", "cublas_mm")] == (0.972, 0, 15)
    assert runs[1]["ratios"][("bf16 bias+gelu", "8192x8192x8192", "cublaslt_fused")] == (0.974, 6, 15)


def test_history_orders_runs_oldest_first_and_classifies_each_target():
    rows = {(r["target"], r["shape"]): r for r in anchor_history.history(anchor_history.parse_runs(SAMPLE))}
    prefill = rows[("bf16 bias+gelu", "8192x8192x8192")]
    assert [n for n, _, _ in prefill["runs"]] == [1, 2]
    assert anchor_history.verdict(prefill) == "moves around 1.0 (1 of 2 runs at or above)"
    decode = rows[("decode bias+gelu", "64x6144x4096")]
    assert (decode["low"], decode["high"]) == (0.972, 0.978)
    assert anchor_history.verdict(decode) == "short in every run (by 2.2% to 2.8%)"
    only_old = rows[("decode bias+gelu", "16x8192x8192")]  # a shape the newest run lacks still gets its row
    assert anchor_history.verdict(only_old) == "met in every run"


def test_the_committed_anchors_log_parses():
    runs = anchor_history.parse_runs(anchor_history.DEFAULT_FILE.read_text())
    assert {12, 17, 18} <= set(runs)  # the runs that printed per-round ratios
    assert runs[18]["cold"] and not runs[17]["cold"]
    assert runs[18]["ratios"][("decode bias+gelu", "64x6144x4096", "cublas_mm")] == (0.972, 0, 15)
    assert len(runs[18]["ratios"]) == 28


def test_a_target_only_older_runs_have_gets_one_row():
    # run 37 renamed "fp8 scaled" (fast tiles against an exact _scaled_mm) to two targets: the old one's rows, in
    # every run before it, must come out once each
    newest = ("## Run 3 (newest, warm)\n\n"
              "| fp8 scaled fast | 8192x8192x8192 | t | scaled_mm_fast | 0.980 | 0.950-1.010 | 7 of 15 |\n\n")
    rows = [(r["target"], r["shape"]) for r in anchor_history.history(anchor_history.parse_runs(newest + SAMPLE))]
    assert rows[0] == ("fp8 scaled fast", "8192x8192x8192")  # the newest run's targets first
    assert rows.count(("bf16 bias+gelu", "8192x8192x8192")) == 1  # in runs 1 and 2, not in run 3
    assert len(rows) == len(set(rows)) == 4
