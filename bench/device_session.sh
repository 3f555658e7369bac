#!/usr/bin/env bash
# What a GPU session runs, stage by stage; every log lands in $OUT (default ./device-out), with the tuning records
# (small JSON) that a later session can be handed back through SEED_CACHE. Compiled kernels stay behind: each
# session's machine is fresh and rebuilds them (the cache is too large to bring back).
#
#   bench/device_session.sh suite   # build every GPU test's kernel (the per-shape tests' tiles too, unless SUITE_K
#                                   # says "not per_shape") in one ninja run, then the GPU tests (SUITE_K: a pytest
#                                   # -k expression, to split them); all ~150 kernels take over one call's 600 s
#   bench/device_session.sh prebuild  # that build alone (to fill a warm machine's cache for a later call);
#                                   # PER_SHAPE_CASES=bf16,fp8 builds only those per-shape cases' tiles, and with
#                                   # ONLY_PER_SHAPE=1 not the suite's other kernels (for per-shape tests alone)
#   bench/device_session.sh extras  # demo, examples, host overhead (a call of its own: the suite fills one)
#   bench/device_session.sh sweep   # `cutlassgen tune` over 64 configurations (the tile-study throughput target)
#   bench/device_session.sh probe   # bench/tile_probe.py: candidate tiles at decode shapes and M = 256
#   bench/device_session.sh profile # bench/library_kernels.py: the libraries' kernels (profiler), then ncu of each
#   bench/device_session.sh power   # bench/power_clock.py: sustained clock and power per contender at 8192^3, and ncu
#   bench/device_session.sh bench   # bench/bench_anchors.py (uses a tuning record in the cache if there is one)
#   bench/device_session.sh wheel   # an sm90a wheel from a two-spec manifest, installed and checked here
#   bench/device_session.sh roof    # bench/hbm_roof.py: what a plain streaming kernel gets from HBM (decode's roof)
#   bench/device_session.sh sm80    # bench/sm80_tiles.py: sm80-path tiles per shape, cold then warm (SM80_ARGS)
#   bench/device_session.sh hint    # bench/tma_cache_hint.py: L2 eviction hints on the mainloop's TMA loads
#                                   # (HINT_ARGS: its options; HINT_VARIANTS: its --variants, names with spaces)
#   bench/device_session.sh source  # ncu source page (SASS + stall samples per instruction): nvjet beside ours
#                                   # (SOURCE_SHAPES: library_kernels.py's cases, SOURCE_WHAT: only those of
#                                   # this kind, e.g. "fp8 scaled"; SOURCE_NCU_ARGS: more ncu options;
#                                   # SOURCE_SECONDS: the profiled run's time limit, default 400)
#   bench/device_session.sh l2      # ncu DRAM / L2 traffic, cycles and clock per contender, L2 warm then flushed
#                                   # (L2_SHAPES: library_kernels.py's cases; L2_TILES=0 skips the 2048 tiles' pass)
#   bench/device_session.sh l2src   # ncu L2 sector reads by source unit, the 2048x8192^2 tiles beside nvjet's
#                                   # (L2SRC_CASE: the tile_probe.py case, default largedefault)
#   bench/device_session.sh l2case  # ncu L2 counters with the sectors by source unit, for a tile_probe.py case
#                                   # (L2CASE) at L2CASE_SHAPES, L2 warm then flushed
#   bench/device_session.sh stalls  # for the same case and shapes: a lean counter pass, then ncu's speed-of-light,
#                                   # warp-state, memory and scheduler sections (bench/ncu_table.py reads both)
#   bench/device_session.sh clock   # bench/clock_probe.py: the SM clock and cycles per call as the bench times it
#                                   # (CLOCK_WHAT fp8|bias_gelu, CLOCK_SHAPES, CLOCK_BEFORE: its --before; work of
#                                   # fewer CTAs than SMs only)
#
# CUTLASSGEN_CACHE_DIR must be set; with SEED_CACHE=DIR its entries are copied in first (e.g. the device and host
# parts bench/seed_device_parts.py compiled on a machine without a GPU: its builds then compile only what they lack
# and link).
set -uo pipefail
OUT=${OUT:-$PWD/device-out}
mkdir -p "$OUT"
: "${CUTLASSGEN_CACHE_DIR:?set CUTLASSGEN_CACHE_DIR}"
export CUTLASSGEN_TEST_CACHE=$CUTLASSGEN_CACHE_DIR
if [ -n "${SEED_CACHE:-}" ] && [ -d "$SEED_CACHE" ]; then
  mkdir -p "$CUTLASSGEN_CACHE_DIR" && cp -r "$SEED_CACHE"/. "$CUTLASSGEN_CACHE_DIR"/
fi
PY=${PYTHON:-python3}
stamp() { echo "== $(date +%T) $*"; }
# ncu_counters SECONDS CACHE METRICS SCRIPT ARGS...: ncu's counters for each NVTX "probe" range of a bench script
# run with --ncu; CACHE none leaves L2 as the kernel's own warm-up left it, all flushes it first.
ncu_counters() {
  local seconds=$1 cache=$2 metrics=$3; shift 3
  (cd bench && timeout "$seconds" ncu --cache-control "$cache" --clock-control none --nvtx --nvtx-include "probe/" \
      --metrics "$metrics" $PY "$@")
}

# The L2's request and sector counters by source unit and node, named from ncu's own list for this chip, so that a
# name this ncu lacks cannot abort a pass.
l2_source_counters() {
  ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}' \
      | grep -E '^lts__t_(sectors|requests)_src(unit|node)_[a-z0-9]+(_op_read)?$'
}

save_cache() {  # tuning records only
  if [ -d "$CUTLASSGEN_CACHE_DIR/tuning" ]; then
    mkdir -p "$OUT/cache" && cp -r "$CUTLASSGEN_CACHE_DIR/tuning" "$OUT/cache/"
  fi
}

case "${1:-}" in
suite|prebuild)
  stamp "build all suite kernels"
  SUITE_K=${SUITE_K:-} PER_SHAPE_CASES=${PER_SHAPE_CASES:-} ONLY_PER_SHAPE=${ONLY_PER_SHAPE:-} $PY - <<'PY' 2>&1 \
      | tail -5 | tee "$OUT/prebuild.log"
import os, sys, time
sys.path.insert(0, "bench")
import cutlassgen as cg
from suite_specs import prebuild_specs
# PER_SHAPE_CASES names some per-shape cases (per_shape_cases.cases()), else all of them unless SUITE_K leaves them out
wanted = os.environ.get("PER_SHAPE_CASES") or ("" if "not per_shape" in os.environ["SUITE_K"] else "all")
specs = prebuild_specs(suite=os.environ["ONLY_PER_SHAPE"] != "1", per_shape=wanted)
t = time.time()
try:
    cg.build_many(specs, verbose=False)
except cg.BuildError as e:
    print("BUILD ERROR (the suite reports it per kernel):", e)
print(f"{len(specs)} kernels ready in {time.time() - t:.0f} s")
PY
  [ "$1" = prebuild ] && exit 0
  stamp "GPU tests"
  # A kernel that hangs stops the whole call; a test that runs past 300 s has its stack written to the log, so the
  # log names where (session 49's hang showed only pytest's dots).
  $PY -m pytest tests -q -rfs -m gpu -p no:cacheprovider -o faulthandler_timeout=300 ${SUITE_K:+-k "$SUITE_K"} \
      > "$OUT/gpu_tests_full.log" 2>&1
  tail -40 "$OUT/gpu_tests_full.log" > "$OUT/gpu_tests.log"; tail -3 "$OUT/gpu_tests.log"
  save_cache ;;
extras)
  stamp "demo"; $PY -m cutlassgen demo > "$OUT/demo.log" 2>&1; tail -4 "$OUT/demo.log"
  stamp "examples"
  for ex in examples/linear_bias_gelu_fp8.py examples/fp8_scaled_mm.py examples/residual_add.py; do
    echo "\$ python $ex"; $PY "$ex"; echo "exit $?"; done > "$OUT/examples.log" 2>&1; cat "$OUT/examples.log"
  stamp "host overhead"
  { $PY bench/host_overhead.py; $PY bench/profile_call.py; } 2>&1 | tail -18 | tee "$OUT/host_overhead.log"
  save_cache ;;
sweep)
  stamp "tile study: 64 configurations (+ the default), decode and prefill shapes"
  start=$(date +%s)
  $PY -m cutlassgen tune examples/specs/bias_gelu_bf16_sm90.toml --limit 64 --reps 20 \
      --shape 32x8192x8192 --shape 256x8192x8192 --shape 8192x8192x8192 --peak 989 --peak-bandwidth 4.8 \
      --out "$OUT/study" > "$OUT/sweep.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s (compile + time + check)" | tee -a "$OUT/sweep.log"
  tail -8 "$OUT/sweep.log"; save_cache ;;
probe)
  stamp "tile probe"; $PY bench/tile_probe.py ${PROBE_ARGS:-} > "$OUT/tile_probe.log" 2>&1
  echo "exit $?"; tail -8 "$OUT/tile_probe.log" ;;
profile)
  stamp "library kernels"; (cd bench && $PY library_kernels.py) > "$OUT/library_kernels.log" 2>&1; echo "exit $?"
  stamp "ncu"; (cd bench && timeout 240 ncu --clock-control none --nvtx --nvtx-include "probe/" \
      --section SpeedOfLight --section LaunchStats \
      --section Occupancy --section MemoryWorkloadAnalysis $PY library_kernels.py --ncu) > "$OUT/ncu.log" 2>&1
  echo "exit $?"; grep -c "Duration" "$OUT/ncu.log" ;;
power)
  stamp "power and clock at 8192^3"; (cd bench && $PY power_clock.py ${POWER_ARGS:-}) > "$OUT/power_clock.log" 2>&1
  echo "exit $?"; tail -12 "$OUT/power_clock.log"
  stamp "ncu at 8192^3"; (cd bench && timeout 200 ncu --clock-control none --nvtx --nvtx-include "probe/" \
      --section SpeedOfLight --section LaunchStats $PY power_clock.py --ncu) > "$OUT/ncu_8192.log" 2>&1
  echo "exit $?"; grep -E "^ncu:|SM Frequency|Elapsed Cycles|Duration" "$OUT/ncu_8192.log" ;;
bench)
  stamp "anchors"; $PY bench/bench_anchors.py --out "$OUT/h200_anchors.md" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1
  echo "exit $?"; tail -30 "$OUT/bench.log"; save_cache ;;
wheel)
  stamp "sm90a wheel from a two-spec manifest"
  which cmake || $PY -c "import cmake; print(cmake.__file__)"
  m=$(mktemp -d); cp examples/specs/linear_bias_gelu_fp8_sm90.toml examples/specs/fp8_per_token_channel_sm90.toml "$m"/
  printf 'archs = [90]\n[[spec]]\nfile = "%s"\n[[spec]]\nfile = "%s"\n' \
    linear_bias_gelu_fp8_sm90.toml fp8_per_token_channel_sm90.toml > "$m/manifest.toml"
  start=$(date +%s)
  CUTLASSGEN_MANIFEST=$m/manifest.toml $PY -m pip wheel . --no-deps --no-build-isolation -w "$OUT/wheel" \
    > "$OUT/wheel_build.log" 2>&1
  echo "wheel build exit $? after $(( $(date +%s) - start )) s"; ls -la "$OUT/wheel"; tail -5 "$OUT/wheel_build.log"
  $PY -m pip install -q --no-deps --target /tmp/wheelsite "$OUT"/wheel/*.whl
  repo=$PWD
  (cd /tmp && PYTHONPATH=/tmp/wheelsite:/tmp/site CUTLASSGEN_NO_JIT=1 CUTLASSGEN_CACHE_DIR=/tmp/empty-cache \
    $PY "$repo/bench/check_wheel.py" "$m/manifest.toml") 2>&1 | tee "$OUT/wheel_check.log"
  rm -f "$OUT"/wheel/*.whl ;;
roof)
  stamp "HBM roof"; $PY bench/hbm_roof.py > "$OUT/hbm_roof.log" 2>&1; echo "exit $?"; cat "$OUT/hbm_roof.log" ;;
sm80)
  stamp "sm80-path tiles, cold"; $PY bench/sm80_tiles.py ${SM80_ARGS:-} 2>&1 | tee "$OUT/sm80_tiles.log"
  stamp "sm80-path tiles, warm"; $PY bench/sm80_tiles.py --warm ${SM80_ARGS:-} 2>&1 | tee -a "$OUT/sm80_tiles.log" ;;
hint)
  stamp "TMA cache hints"
  (cd bench && $PY tma_cache_hint.py ${HINT_ARGS:-} ${HINT_VARIANTS:+--variants "$HINT_VARIANTS"}) \
    > "$OUT/tma_cache_hint.log" 2>&1
  echo "exit $?"; cat "$OUT/tma_cache_hint.log" | grep -v "^cutlassgen: built" ;;
source)
  # cuobjdump finds no nvjet kernel by name in libcublasLt's sm_90 fatbin, so their SASS comes from ncu, which
  # disassembles what actually ran. SOURCE_SHAPES picks library_kernels.py's cases.
  stamp "ncu source page"; rep="$OUT/source"
  (cd bench && timeout "${SOURCE_SECONDS:-400}" ncu --clock-control none ${SOURCE_NCU_ARGS:-} \
      --nvtx --nvtx-include "probe/" --section SourceCounters \
      --section WarpStateStats --section SchedulerStats --section SpeedOfLight -f -o "$rep" \
      $PY library_kernels.py --ncu --shapes "${SOURCE_SHAPES:-256x8192x8192,2048x8192x8192}" \
      ${SOURCE_WHAT:+--what "$SOURCE_WHAT"}) > "$OUT/source_run.log" 2>&1
  echo "exit $?"; grep "^ncu:" "$OUT/source_run.log"
  ncu -i "$rep.ncu-rep" --page details > "$OUT/source_details.txt" 2>&1; echo "details exit $?"
  ncu -i "$rep.ncu-rep" --page source --print-source sass --csv > "$OUT/source_sass.csv" 2>&1; echo "source exit $?"
  wc -l "$OUT/source_sass.csv"; head -c 600 "$OUT/source_sass.csv"; rm -f "$rep.ncu-rep" ;;
l2)
  # One pass of a few counters per kernel: with --cache-control none the kernel finds in L2 what the previous calls
  # (its own warm-up) left, as in the warm bench; with "all" ncu flushes the caches first.
  stamp "ncu L2 and DRAM traffic"
  metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_op_read.sum
  metrics=$metrics,lts__t_sectors_op_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg
  metrics=$metrics,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum
  for cc in none all; do
    ncu_counters 250 $cc $metrics library_kernels.py --ncu \
        --shapes "${L2_SHAPES:-256x8192x8192,2048x8192x8192,16x8192x8192,64x6144x4096}" \
        > "$OUT/ncu_l2_$cc.log" 2>&1; echo "cache-control $cc: exit $?"
  done
  [ "${L2_TILES:-1}" = 1 ] || exit 0  # L2_TILES=0: the library_kernels.py shapes only (this pass compiles 2048's tiles)
  ncu_counters 250 none $metrics tile_probe.py largedefault --shapes 2048x8192x8192 --ncu > "$OUT/ncu_l2_2048.log" 2>&1
  echo "2048 tiles: exit $?" ;;
l2src)
  # Which units the L2's sector reads come from (SMs, the fabric between the two L2 partitions, ...)
  stamp "ncu L2 sectors by source"
  names=$(l2_source_counters)
  echo "$names" > "$OUT/ncu_l2src_metrics.txt"
  metrics=$(echo "$names" | sed 's/$/.sum/' | paste -sd, -),lts__t_sectors_op_read.sum,gpu__time_duration.sum
  ncu_counters 300 none $metrics tile_probe.py "${L2SRC_CASE:-largedefault}" --shapes 2048x8192x8192 --ncu \
      > "$OUT/ncu_l2src_2048.log" 2>&1
  echo "2048 tiles: exit $?" ;;
l2case)
  # The l2 pass's counters with the L2 sectors read by source unit, for a tile_probe.py case: L2 warm, then flushed.
  stamp "ncu L2 counters, tile_probe.py ${L2CASE:?set L2CASE} at ${L2CASE_SHAPES:?set L2CASE_SHAPES}"
  names=$(l2_source_counters | grep -E '^lts__t_sectors_.*_op_read$')
  echo "$names" > "$OUT/ncu_l2case_metrics.txt"
  metrics=lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,gpu__time_duration.sum
  metrics=$metrics,sm__cycles_elapsed.avg,$(echo "$names" | sed 's/$/.sum/' | paste -sd, -)
  # compile first, outside ncu: under it the build crawled and the profiled process crashed (session 41)
  $PY bench/tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --build-only > "$OUT/l2case_build.log" 2>&1
  echo "build: exit $?"
  # a lean set first: with the many counters below ncu's replays ran 104x2048x4096's four 32-wide columns level with
  # three 40-wide ones (11.0 us, 1.32 M L2 sectors), where this set, and torch.profiler in the stream, had them
  # 1.26x slower with 1.52x the sectors (session 41)
  ncu_counters 150 none \
      gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum \
      tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --ncu > "$OUT/ncu_l2case_lean.log" 2>&1
  echo "lean: exit $?"
  for cc in none all; do
    ncu_counters 250 $cc "$metrics" tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --ncu \
      > "$OUT/ncu_l2case_$cc.log" 2>&1
    echo "cache-control $cc: exit $?"
  done ;;
stalls)
  # why a kernel takes longer at no more traffic (session 43: three 64-wide token columns at 136x2048x4096, the last
  # holding 8 of its 64 rows, against 192 rows): time, L2 and DRAM reads and instructions, then the stall sections
  stamp "ncu stalls, tile_probe.py ${L2CASE:?set L2CASE} at ${L2CASE_SHAPES:?set L2CASE_SHAPES}"
  $PY bench/tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --build-only > "$OUT/stalls_build.log" 2>&1
  echo "build: exit $?"
  lean=gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum
  ncu_counters 100 none "$lean,sm__cycles_active.avg,smsp__inst_executed.sum" \
      tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --ncu > "$OUT/ncu_stalls_lean.log" 2>&1
  echo "lean: exit $?"
  (cd bench && timeout 200 ncu --cache-control none --clock-control none --nvtx --nvtx-include "probe/" \
      --section SpeedOfLight --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
      --section LaunchStats $PY tile_probe.py "$L2CASE" --shapes "$L2CASE_SHAPES" --ncu) \
      > "$OUT/ncu_stalls_sections.log" 2>&1
  echo "sections: exit $?" ;;
clock)
  stamp "clock probe"
  (cd bench && TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0} $PY clock_probe.py --what "${CLOCK_WHAT:-fp8}" \
      --shapes "${CLOCK_SHAPES:-256x8192x8192,256x8192x2048,256x8192x32768}" --before "${CLOCK_BEFORE:-spin}") \
      > "$OUT/clock_probe.log" 2>&1
  echo "exit $?"; grep -v "^cutlassgen:" "$OUT/clock_probe.log" ;;
*) stages="suite|prebuild|extras|sweep|probe|profile|power|bench|wheel|roof|sm80|hint|source|l2|l2src|l2case"
   stages+="|stalls|clock"
   echo "usage: $0 $stages"
   exit 2 ;;
esac
