// The sm90 persistent scheduler's swizzle when a spec leaves it "auto"; no CUDA or CUTLASS, so a CPU test compiles
// it alone (tests/test_lower.py).
#pragma once
#include <cstdint>

namespace cutlassgen {

// The widest strip, up to 8, whose multiple (times the cluster) pads the grid of tiles_m x tiles_n (cluster-rounded)
// by at most max_pad_pct percent of its tiles.
inline int widest_strip(int64_t tiles_m, int64_t tiles_n, int cluster_m, int cluster_n, int max_pad_pct) {
  for (int s = 8; s > 1; s /= 2) {
    int64_t const strip_m = s * cluster_m, strip_n = s * cluster_n;
    int64_t const padded_m = (tiles_m + strip_m - 1) / strip_m * strip_m;
    int64_t const padded = padded_m * ((tiles_n + strip_n - 1) / strip_n * strip_n);
    if ((padded - tiles_m * tiles_n) * 100 <= tiles_m * tiles_n * max_pad_pct) return s;
  }
  return 1;
}

// L2 of the GH100 (H100, H200): 50 MiB.
constexpr int64_t kL2Bytes = int64_t(50) << 20;

// What the padding rule of auto_swizzle needs beyond the grid (lower.py SWIZZLE_PAD): the most padding in percent of
// the tiles (0: none), K, the kernel's A and B element bytes, and the raster option (0 CUTLASS's heuristic, 1 along
// M, 2 along N).
struct SwizzlePad {
  int max_pct = 0;
  int64_t k = 0;
  int a_bytes = 0, b_bytes = 0, raster = 0;
};

// swizzle "auto" (sm90): the persistent scheduler walks the output in strips of this many tiles. Strips of 1 make a
// wave of 132 tiles span all of one operand (at 8192^3: 1.8x the DRAM bytes of strips of 8, hence more power and a
// lower clock at the power cap). CUTLASS pads the tile grid on both axes to a multiple of swizzle x cluster and runs
// the padded tiles' mainloops too, at several times a real tile's cost (M = 256 with a 2x1 cluster ran 2.6x slower at
// swizzle 8; on an H100 a 7.7% padding cost 21%, bench/results/h100_session108.log swizzlepad), so take the widest
// strip, up to 8, that pads nothing beyond the cluster rounding. Only where the operand that the walk sweeps whole
// (A along M, B along N) is larger than L2 may a strip pad the grid, by up to pad.max_pct percent of its tiles: there
// narrow strips stream it from DRAM again for each strip (128x128 tiles at 8000x8192x8192, 63 row tiles: strips of 1
// 460 TFLOP/s bf16 and 1011 fp8, strips of 8 over 64 rows 671 and 1336; swizzlepad).
inline int auto_swizzle(int64_t m, int64_t n, int tile_m, int tile_n, int cluster_m, int cluster_n,
                        SwizzlePad const& pad = {}) {
  int64_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (n + tile_n - 1) / tile_n;
  tiles_m = (tiles_m + cluster_m - 1) / cluster_m * cluster_m;
  tiles_n = (tiles_n + cluster_n - 1) / cluster_n * cluster_n;
  int const unpadded = widest_strip(tiles_m, tiles_n, cluster_m, cluster_n, 0);
  if (pad.max_pct <= 0 || unpadded == 8) return unpadded;
  // CUTLASS's heuristic walks along M where the grid has more columns than rows
  bool const along_m = pad.raster == 1 || (pad.raster == 0 && tiles_n > tiles_m);
  int64_t const swept_bytes = along_m ? m * pad.k * pad.a_bytes : n * pad.k * pad.b_bytes;
  return swept_bytes > kL2Bytes ? widest_strip(tiles_m, tiles_n, cluster_m, cluster_n, pad.max_pct) : unpadded;
}

}  // namespace cutlassgen
