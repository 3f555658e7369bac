"""Which k tiles each stream-K unit of CUTLASS 4.2's sm90 scheduler computes, modelled on the CPU: whether a
decomposition leaves a unit with no k tile. Such a unit reads as no work (WorkTileInfo::is_valid), so its CTA leaves
the scheduler's loop, and any data-parallel tiles queued behind it on that CTA are never computed.

The model follows PersistentTileSchedulerSm90StreamK::get_current_work_iter_start_possible_update_work_tile_k_remaining
for one group of units, 1x1 clusters and no split-K: the stream-K k tiles are shared out evenly (the first units take
one more), then each unit's start and end move to whole runs of at least 8 k tiles per output tile (its
min_iters_per_sk_unit_). Session 64 used it to explain the NaN that lower.STREAM_K_TAIL (branch
experiment/tail-stream-k) left at 2048x8200x1280: 116 split tiles of 10 k tiles over 132 units leave 16 units empty.
CUTLASS's own decompositions give no empty unit wherever data-parallel tiles follow (132-263 split tiles over 132
units, 9-128 k tiles a tile); with every tile split and fewer tiles than units some units are empty, harmlessly
(bench/results/h200_setting_check.log, session 64 call 4).

Run: python bench/streamk_units.py SPLIT_TILES K_TILES_PER_TILE UNITS   (one decomposition)
     python bench/streamk_units.py --scan                               (the two scans above)
"""
import argparse

MIN_K_TILES_PER_UNIT = 8  # CUTLASS 4.2's min_iters_per_sk_unit_


def unit_ranges(split_tiles: int, k_tiles: int, units: int, min_k: int = MIN_K_TILES_PER_UNIT) -> list:
    """(first k tile, k tile count) of each unit, in the k tiles of all split tiles laid end to end."""
    total = split_tiles * k_tiles
    per_unit, big = divmod(total, units)
    ranges = []
    for u in range(units):
        start = per_unit * u + min(u, big)
        count = per_unit + (u < big)
        into = start % k_tiles
        if into < min_k:  # another unit would compute fewer than min_k here: take them
            start, count = start - into, count + into
        elif into > k_tiles - min_k:  # this unit would: leave them to the next
            start, count = start + (k_tiles - into), count - (k_tiles - into)
        end_into = (start + count) % k_tiles
        if end_into < min_k:
            count -= end_into
        elif end_into > k_tiles - min_k:
            count += k_tiles - end_into
        ranges.append((start, count))
    return ranges


def empty_units(split_tiles: int, k_tiles: int, units: int) -> int:
    return sum(count <= 0 for _, count in unit_ranges(split_tiles, k_tiles, units))


def covers_each_k_tile_once(split_tiles: int, k_tiles: int, units: int) -> bool:
    seen = [0] * (split_tiles * k_tiles)
    for start, count in unit_ranges(split_tiles, k_tiles, units):
        for k in range(start, start + max(count, 0)):
            seen[k] += 1
    return all(n == 1 for n in seen)


def units_for(split_tiles: int, k_tiles: int, ctas: int = 132) -> int:
    """CUTLASS's unit count for a decomposition: one wave of CTAs, fewer where units would be under min_k k tiles."""
    return min(ctas, split_tiles * k_tiles // MIN_K_TILES_PER_UNIT)


def scan() -> None:
    both = [(t, k) for t in range(132, 264) for k in range(9, 129) if empty_units(t, k, units_for(t, k))]
    print(f"CUTLASS's StreamK split before data-parallel tiles (132-263 split tiles, 9-128 k tiles): "
          f"{len(both)} decompositions with an empty unit")
    tail = [(t, k) for t in range(1, 132) for k in range(9, 129)
            if units_for(t, k) > t and empty_units(t, k, units_for(t, k))]
    print(f"the part-filled last wave split alone (1-131 split tiles, 9-128 k tiles, more units than tiles): "
          f"{len(tail)} with an empty unit, e.g. {tail[:4]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("shape", nargs="*", type=int, help="SPLIT_TILES K_TILES_PER_TILE UNITS")
    ap.add_argument("--scan", action="store_true")
    args = ap.parse_args()
    if args.scan:
        scan()
        return
    if len(args.shape) != 3:
        ap.error("give SPLIT_TILES K_TILES_PER_TILE UNITS, or --scan")
    tiles, k, units = args.shape
    print(f"{units} units over {tiles} tiles of {k} k tiles: {empty_units(tiles, k, units)} empty, every k tile "
          f"computed once: {covers_each_k_tile_once(tiles, k, units)}")


if __name__ == "__main__":
    main()
