#pragma once
// An sm90 fp8 mainloop collective whose two consumer warpgroups take turns issuing each k tile's MMAs, so that one
// warpgroup's promotion to fp32 runs while the other's MMAs keep the tensor cores busy.
//
// Exact fp8 accumulation: CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecializedFP8 sums each 128-wide k tile (4 wgmma
// k-blocks, its default mma_promotion_interval) into a partial accumulator, waits for the warpgroup's MMAs, and adds
// the partial sum to the fp32 accumulator. Its two warpgroups issue their k tile's MMAs at about the same time, the
// tensor cores interleave them, both finish together and both add while the tensor cores idle. cuBLASLt's exact
// kernel (nvjet 128x128_128x6 coopA, ncu source page in bench/results/h200_ncu_source.log, session 56) adds the same
// way, with the same full-width MMAs, and runs 1.15x faster.
//
// MainloopAlternatingPromotion<Base> is Base with mma() replaced: the second warpgroup issues k tile t after the first
// has, and the first issues k tile t + 1 after the second issued k tile t (two named barriers), so the tensor cores
// run the warpgroups' k tiles in turn and each warpgroup's add overlaps the other's MMAs. The MMAs, the partial sums
// and the order of the adds are Base's: the output is the same bit for bit (bench/promotion_check.py). Registers too:
// one full-width partial accumulator. mma() releases every stage it reads, so mma_tail() releases none. Python
// decides where it applies (cutlassgen/lower.py, PROMOTION_SCHEDULE).
#include "cute/tensor.hpp"

#include "cutlass/arch/barrier.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlassgen/kernel_common.hpp"

namespace cutlassgen {

template <class Base>
struct MainloopAlternatingPromotion : Base {
  static_assert(kIsPolicy<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedFP8, typename Base::DispatchPolicy>,
                "alternating promotion: only CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecializedFP8 promotes");
  using typename Base::MainloopPipeline;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TileShape;
  using typename Base::TiledMma;

  static constexpr int kMmaWarpGroups = cute::size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
  static_assert(kMmaWarpGroups == 2, "two consumer warpgroups on one tile take turns (the cooperative kernel's)");
  // User named barriers (CUTLASS numbers them after its reserved ones): "the first's turn", "the second's turn".
  static constexpr uint32_t kFirstTurn = 0;
  static constexpr uint32_t kSecondTurn = 1;
  static constexpr uint32_t kTurnThreads = 2 * cutlass::NumThreadsPerWarpGroup;

  // Params: whatever the kernel's mainloop passes (Base's, or load_hints.hpp's over it); the interval is fixed here.
  template <class FrgTensorC, class Params>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum,
                          int k_tile_count, int thread_idx, TensorStorage& shared_tensors, Params const&) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)

    TiledMma tiled_mma;
    auto warp_group_thread_layout = make_layout(Int<kMmaWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    int warp_group_idx = __shfl_sync(0xFFFFFFFF, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    auto thread_mma = tiled_mma.get_slice(warp_group_thread_layout(warp_group_idx));
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA,MMA_M,MMA_K,PIPE)
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));  // (MMA,MMA_N,MMA_K,PIPE)
    static_assert(size<2>(decltype(tCrA){}) == 4,
                  "one k tile must be CUTLASS's promotion interval, 4 wgmma k-blocks (CTA K = 128 for fp8)");
    Tensor partial = partition_fragment_C(tiled_mma, take<0, 2>(TileShape{}));
    static_assert(size(decltype(partial){}) == size(FrgTensorC{}), "the partial sum is the accumulator's shape");

    bool first = warp_group_idx == 0;
    clear(accum);
    CUTLASS_PRAGMA_NO_UNROLL
    for (int k_tile = 0; k_tile < k_tile_count; ++k_tile) {
      auto barrier_token = pipeline.consumer_try_wait(smem_pipe_read);
      pipeline.consumer_wait(smem_pipe_read, barrier_token);
      int read_stage = smem_pipe_read.index();
      // Wait for the turn: the second warpgroup for the first's k tile, the first for the second's previous one.
      if (!first) {
        cutlass::arch::NamedBarrier::sync(kTurnThreads, kSecondTurn);
      } else if (k_tile > 0) {
        cutlass::arch::NamedBarrier::sync(kTurnThreads, kFirstTurn);
      }
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      warpgroup_fence_operand(partial);
      warpgroup_arrive();
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, read_stage), tCrB(_, _, k_block, read_stage), partial);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      // Pass the turn (the second's last k tile has no first's k tile after it to wait for it).
      if (first) {
        cutlass::arch::NamedBarrier::arrive(kTurnThreads, kSecondTurn);
      } else if (k_tile + 1 < k_tile_count) {
        cutlass::arch::NamedBarrier::arrive(kTurnThreads, kFirstTurn);
      }
      warpgroup_wait<0>();
      warpgroup_fence_operand(partial);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(partial); ++i) {
        accum(i) += partial(i);
      }
      pipeline.consumer_release(smem_pipe_read);
      ++smem_pipe_read;
    }
    warpgroup_fence_operand(accum);
  }

  // mma() has released every stage it read; Base's would leave the last to this.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) {}
};

}  // namespace cutlassgen
