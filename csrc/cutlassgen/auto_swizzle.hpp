// The sm90 persistent scheduler's swizzle when a spec leaves it "auto"; no CUDA or CUTLASS, so a CPU test compiles
// it alone (tests/test_lower.py).
#pragma once
#include <cstdint>

namespace cutlassgen {

// swizzle "auto" (sm90): the persistent scheduler walks the output in strips of this many tiles. Strips of 1 make a
// wave of 132 tiles span all of one operand (at 8192^3: 1.8x the DRAM bytes of strips of 8, hence more power and a
// lower clock at the power cap). CUTLASS pads the tile grid on both axes to a multiple of swizzle x cluster and runs
// the padded tiles' mainloops too (M = 256 with a 2x1 cluster ran 2.6x slower at swizzle 8), so take the widest
// strip, up to 8, whose padding adds at most max_pad_pct percent to the grid (rounded to the cluster): with 0 it pads
// nothing, and an odd tile count on either axis leaves strips of 1.
inline int auto_swizzle(int64_t m, int64_t n, int tile_m, int tile_n, int cluster_m, int cluster_n,
                        int max_pad_pct = 0) {
  int64_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
  tiles_m = (tiles_m + cluster_m - 1) / cluster_m * cluster_m;
  tiles_n = (tiles_n + cluster_n - 1) / cluster_n * cluster_n;
  for (int s = 8; s > 1; s /= 2) {
    int64_t const strip_m = s * cluster_m, strip_n = s * cluster_n;
    int64_t const padded_m = (tiles_m + strip_m - 1) / strip_m * strip_m;
    int64_t const padded = padded_m * ((tiles_n + strip_n - 1) / strip_n * strip_n);
    if ((padded - tiles_m * tiles_n) * 100 <= tiles_m * tiles_n * max_pad_pct) return s;
  }
  return 1;
}

}  // namespace cutlassgen
