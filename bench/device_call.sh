#!/usr/bin/env bash
# One call on a lent GPU machine: the stages a session needs, in order, under a time guard. Each stage that ends well
# leaves a marker in $MARKS, so a second call on the same warm machine goes on where the first stopped, and a stage
# that would not fit in what is left of GUARD_S is skipped with a word instead of being cut off by the call's limit.
#
#   OUT=... [PROBE="raggedwide ..."] [MODES="cold warm"] [NO_TESTS=1] [GUARD_S=560] [SKIP="stage ..."] \
#     bash bench/device_call.sh
#
# Stages: tile_probe.py PROBE --build-only, then one timed pass per MODES (9 rounds; cold: L2 flushed), then unless
# NO_TESTS the GPU suite as sessions 98-105 split it: the per-shape prebuild (PER_SHAPE_CASES: only those cases) and
# tests (PER_SHAPE_K: their -k), the suite's other kernels, the reference tests, the rest; SKIP names stages to leave
# for a later call (not marked done). Logs: $OUT/<stage>.log.
# Wheels in $WHEELS (default .whl/: nvidia-cutlass, for a machine without internet) go into /tmp/site first; the
# device and host parts of bench/seed_device_parts.py runs, in the folders SEEDS names (default devcalls/seed_*),
# seed the cache.
set -uo pipefail
T0=$(date +%s); GUARD_S=${GUARD_S:-560}; PROBE=${PROBE:-}; MODES=${MODES:-cold warm}
OUT=${OUT:?set OUT}; MARKS=${MARKS:-/tmp/device_call}; mkdir -p "$MARKS" "$OUT"
left() { echo $(( GUARD_S - ($(date +%s) - T0) )); }
WHEELS=${WHEELS:-.whl}
if compgen -G "$WHEELS/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --target /tmp/site "$WHEELS"/*.whl 2>&1 | tail -2
  export PYTHONPATH=/tmp/site:$PWD
fi
export CUTLASSGEN_CACHE_DIR=${CUTLASSGEN_CACHE_DIR:-/tmp/cgcache}
export CUTLASSGEN_TEST_CACHE=$CUTLASSGEN_CACHE_DIR
mkdir -p "$CUTLASSGEN_CACHE_DIR"
if [ ! -f "$MARKS/seeded" ]; then
  for s in ${SEEDS:-devcalls/seed_*}; do [ -d "$s" ] && cp -r "$s"/. "$CUTLASSGEN_CACHE_DIR"/; done
  touch "$MARKS/seeded"
fi
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv,noheader 2>&1 | tee "$OUT/device.txt"
# The lent machine's .git may be older than the files copied to it (session 107: it named d741d0c over 192008b's files),
# so the line says where the files differ from the commit it names.
changed=$(git diff --shortstat HEAD 2>/dev/null)
echo "tree $(git log -1 --format='%h %s' 2>/dev/null)${changed:+; the files differ from it:$changed}" \
  | tee -a "$OUT/device.txt"

# stage NAME NEED_S CMD...: skipped when an earlier call did it or when fewer than NEED_S seconds are left
stage() {
  local name=$1 need=$2; shift 2
  if [ -f "$MARKS/$name" ]; then echo "== $name: done in an earlier call"; return 0; fi
  case " ${SKIP:-} " in *" $name "*) echo "== $name: SKIPPED (SKIP names it)"; return 0;; esac
  if [ "$(left)" -lt "$need" ]; then echo "== $name: SKIPPED ($(left) s left, needs $need)"; return 1; fi
  echo "== $(date +%T) $name ($(left) s left)"; local t=$(date +%s) rc
  timeout "$(left)" "$@" > "$OUT/$name.log" 2>&1; rc=$?
  echo "   exit $rc after $(( $(date +%s) - t )) s"; grep -v "^cutlassgen: built" "$OUT/$name.log" | tail -"${TAIL:-6}"
  [ $rc = 0 ] && touch "$MARKS/$name"; return $rc
}

if [ -n "$PROBE" ]; then
  stage probe_build 100 python3 bench/tile_probe.py $PROBE --build-only
  for mode in $MODES; do
    flag=; [ "$mode" = cold ] && flag=--cold
    TAIL=40 stage "probe_$mode" 60 python3 bench/tile_probe.py $PROBE --rounds 9 $flag
  done
fi
[ "${NO_TESTS:-0}" = 1 ] && exit 0
GPU="python3 -m pytest -q -rfs -m gpu -p no:cacheprovider -o faulthandler_timeout=300"
PER_SHAPE_K=${PER_SHAPE_K:-per_shape or opaque_loop or evict_first}
stage per_shape_prebuild "${PREBUILD_NEED:-330}" \
  env OUT="$OUT/ds1" SUITE_K= ONLY_PER_SHAPE=1 bash bench/device_session.sh prebuild
stage per_shape_tests 60 $GPU tests -k "$PER_SHAPE_K"
stage suite_prebuild 100 env OUT="$OUT/ds2" SUITE_K="not per_shape" bash bench/device_session.sh prebuild
stage reference 60 $GPU tests/test_gpu_correctness.py -k "test_matches_reference or direct_store"
# the rest: neither the per-shape stage's tests (PER_SHAPE_K, which may name more than the default) nor the reference's
stage others 180 $GPU tests -k "not ($PER_SHAPE_K) and not test_matches_reference and not direct_store"
echo "== end, $(left) s of the guard left"
