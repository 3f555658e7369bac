#pragma once
// The step the exact-fp8 promotion mainloops (full_promotion.hpp, overlapped_promotion.hpp) share.
#include "cute/tensor.hpp"

namespace cutlassgen {

// One k tile's MMAs, its wgmma k-blocks from one stage's fragments (MMA,MMA_M,MMA_K) of A and B, into partial (zeroed
// by the first), committed as one batch and left in flight.
template <class TiledMma, class FragA, class FragB, class Partial>
CUTLASS_DEVICE void issue_k_tile(TiledMma& tiled_mma, FragA const& tCrA, FragB const& tCrB, Partial& partial) {
  using namespace cute;
  tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
  warpgroup_fence_operand(partial);
  warpgroup_arrive();
  CUTLASS_PRAGMA_UNROLL
  for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
    cute::gemm(tiled_mma, tCrA(_, _, k_block), tCrB(_, _, k_block), partial);
    tiled_mma.accumulate_ = GMMA::ScaleOut::One;
  }
  warpgroup_commit_batch();
}

// The same from pipeline stage `stage` of the whole buffers' fragments (MMA,MMA_M,MMA_K,PIPE).
template <class TiledMma, class FragA, class FragB, class Partial>
CUTLASS_DEVICE void issue_k_tile(TiledMma& tiled_mma, FragA const& tCrA, FragB const& tCrB, int stage,
                                 Partial& partial) {
  using namespace cute;
  issue_k_tile(tiled_mma, tCrA(_, _, _, stage), tCrB(_, _, _, stage), partial);
}

}  // namespace cutlassgen
