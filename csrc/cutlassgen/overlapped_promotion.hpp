#pragma once
// An sm90 fp8 mainloop collective whose promotions to fp32 overlap the MMAs.
//
// Exact fp8 accumulation (no fp8_fast_accum): the tensor cores sum fp8 products at reduced precision, so CUTLASS 4.2's
// MainloopSm90TmaGmmaWarpSpecializedFP8 sums each run of 4 wgmma k-blocks (its default mma_promotion_interval; one
// 128-wide k tile) into a partial accumulator and adds that to the fp32 accumulator. Before each add it waits for
// every MMA in flight (GmmaFP8Accumulation::promote_core, warpgroup_wait<0>), so the tensor cores idle while the
// warpgroup adds and then waits for the next stage: on the H200 its kernels ran 0.86-0.92x torch._scaled_mm's
// exactly accumulating cuBLASLt kernel at the anchor shapes, on the same tile (bench/NOTES.md, session 55).
//
// MainloopOverlappedPromotion<Base> is Base with two members replaced. mma() issues each k tile's MMAs in two halves
// of the tile's N, each into its own half-size partial accumulator: while one half's MMAs run, the other half's sum is
// added, so the tensor cores always have work but at the end of a group of k tiles. The partial sums take the registers
// of Base's one partial accumulator, and they are the same sums, added in the same order (k tile 0 first), as Base's
// with its default interval: the output is the same bit for bit (bench/promotion_check.py). On the H200 4-9% faster
// than Base's at the anchor shapes (bench/tile_probe.py overlappromo, session 55). mma() releases every stage it
// reads, so mma_tail() releases none; shared storage, the producer's load() and Params stay Base's. Python decides
// where it applies (cutlassgen/lower.py: OVERLAPPED_PROMOTION, PROMOTION_TILES), since session 57 only with
// PROMOTION_SCHEDULE "halves": full_promotion.hpp, Base in cuBLASLt's order, ran 1-4% faster (probe run 168) and is
// the default.
//
// Measured and not kept: two full-width partial accumulators taking turns by k tile need a third accumulator set;
// at 128x128 cooperative ptxas spilled 744-1268 bytes and the kernels ran 15-20% slower than Base's.
#include "cute/tensor.hpp"

#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlassgen/kernel_common.hpp"
#include "cutlassgen/promotion_mma.hpp"

namespace cutlassgen {

template <class Base>
struct MainloopOverlappedPromotion : Base {
  static_assert(kIsPolicy<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedFP8, typename Base::DispatchPolicy>,
                "overlapped promotion: only CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecializedFP8 promotes");
  using typename Base::MainloopPipeline;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TileShape;
  using typename Base::TiledMma;

  // Base's tiled MMA on half the tile's N: the same warpgroups along M, wgmma atoms half as wide.
  static constexpr int kHalfN = cute::size<1>(TileShape{}) / 2;
  static_assert(kHalfN % 8 == 0, "each half of the tile's N must be a wgmma N (a multiple of 8)");
  static constexpr int kMmaWarpGroups = cute::size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
  using HalfTileShape = cute::Shape<cute::remove_cvref_t<decltype(cute::get<0>(TileShape{}))>, cute::Int<kHalfN>,
                                    cute::remove_cvref_t<decltype(cute::get<2>(TileShape{}))>>;
  using HalfTiledMma = decltype(cute::make_tiled_mma(
      cute::GMMA::ss_op_selector<typename Base::ElementA, typename Base::ElementB, float, HalfTileShape,
                                 cute::GMMA::Major::K, cute::GMMA::Major::K>(),
      cute::Layout<cute::Shape<cute::Int<kMmaWarpGroups>, cute::_1, cute::_1>>{}));

  // Params: whatever the kernel's mainloop passes (Base's, or load_hints.hpp's over it); the interval is fixed here.
  template <class FrgTensorC, class Params>
  CUTLASS_DEVICE void mma(MainloopPipeline pipeline, PipelineState smem_pipe_read, FrgTensorC& accum,
                          int k_tile_count, int thread_idx, TensorStorage& shared_tensors, Params const&) {
    using namespace cute;
    static_assert(is_rmem<FrgTensorC>::value, "C tensor must be rmem resident.");
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), SmemLayoutA{});  // (BLK_M,BLK_K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), SmemLayoutB{});  // (BLK_N,BLK_K,PIPE)
    constexpr auto kHalfB = make_shape(Int<kHalfN>{}, size<1>(SmemLayoutB{}), size<2>(SmemLayoutB{}));

    // The warpgroup's slice, as Base::mma() takes it, of the half-width MMA; B's rows in two halves.
    HalfTiledMma tiled_mma;
    auto warp_group_thread_layout = make_layout(Int<kMmaWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    int warp_group_idx = __shfl_sync(0xFFFFFFFF, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    auto thread_mma = tiled_mma.get_slice(warp_group_thread_layout(warp_group_idx));
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));  // (MMA,MMA_M,MMA_K,PIPE)
    Tensor tCrB_lo = thread_mma.make_fragment_B(thread_mma.partition_B(local_tile(sB, kHalfB, make_coord(_0{}, _0{},
                                                                                                          _0{}))));
    Tensor tCrB_hi = thread_mma.make_fragment_B(thread_mma.partition_B(local_tile(sB, kHalfB, make_coord(_1{}, _0{},
                                                                                                          _0{}))));
    static_assert(size<2>(decltype(tCrA){}) == 4,
                  "one k tile must be CUTLASS's promotion interval, 4 wgmma k-blocks (CTA K = 128 for fp8)");

    clear(accum);
    PipelineState smem_pipe_release = smem_pipe_read;
    int read_stage = 0;

    // One k tile's MMAs on one half of the tile's N into partial (zeroed by the first), left in flight; the low half
    // first waits for the k tile's stage. No fence on partial after the commit: ptxas would take it for a read of
    // registers in flight and serialize the MMAs (C7514).
    auto issue = [&](auto& partial, auto half) {
      if constexpr (decltype(half)::value == 0) {
        auto barrier_token = pipeline.consumer_try_wait(smem_pipe_read);
        pipeline.consumer_wait(smem_pipe_read, barrier_token);
        read_stage = smem_pipe_read.index();
      }
      if constexpr (decltype(half)::value == 0) {
        issue_k_tile(tiled_mma, tCrA, tCrB_lo, read_stage, partial);
      } else {
        issue_k_tile(tiled_mma, tCrA, tCrB_hi, read_stage, partial);
        ++smem_pipe_read;
      }
    };
    // A finished half partial sum into its columns of the fp32 accumulator (Base's promote_core there, without its
    // wait); once the high half is in, the k tile's stage goes back to the producer.
    auto retire = [&](auto& partial, auto half) {
      constexpr int kGroups = kHalfN / 8;  // wgmma's accumulator: (2, 2, N / 8) values per thread for each M block
      warpgroup_fence_operand(partial);
      CUTLASS_PRAGMA_UNROLL
      for (int m = 0; m < size<1>(partial); ++m) {
        CUTLASS_PRAGMA_UNROLL
        for (int g = 0; g < kGroups; ++g) {
          CUTLASS_PRAGMA_UNROLL
          for (int v = 0; v < 4; ++v) {
            accum(make_coord(make_coord(v % 2, v / 2, g + decltype(half)::value * kGroups), m, 0)) +=
                partial(make_coord(make_coord(v % 2, v / 2, g), m, 0));
          }
        }
      }
      if constexpr (decltype(half)::value == 1) {
        pipeline.consumer_release(smem_pipe_release);
        ++smem_pipe_release;
      }
    };
    // Count k tiles (a compile-time number), each as its two halves: each half's MMAs are issued before the half
    // before it is added, and all are done at the end. The partial sums live in this scope only: one in flight across
    // a loop's back edge would be copied there by the compiler, and ptxas serializes the MMAs for such a copy (C7514).
    auto k_tiles = [&](auto count) {
      constexpr int kHalves = 2 * decltype(count)::value;
      auto lo = partition_fragment_C(tiled_mma, take<0, 2>(HalfTileShape{}));
      auto hi = partition_fragment_C(tiled_mma, take<0, 2>(HalfTileShape{}));
      static_assert(size(decltype(lo){}) * 2 == size(FrgTensorC{}), "two half partial sums make the accumulator");
      issue(lo, _0{});
      for_each(make_int_sequence<kHalves>{}, [&](auto step) {
        constexpr int kStep = decltype(step)::value;
        if constexpr (kStep % 2 == 0) {  // lo done (in flight), hi next
          issue(hi, _1{});
          warpgroup_wait<1>();
          retire(lo, _0{});
        } else {  // hi done, the next k tile's lo next
          if constexpr (kStep + 1 < kHalves) {
            issue(lo, _0{});
            warpgroup_wait<1>();
          } else {
            warpgroup_wait<0>();
          }
          retire(hi, _1{});
        }
      });
    };

    // Groups of 8 k tiles, then the rest (a group of 4, then 1-3): the MMAs wait for an add once per group instead of
    // once per k tile.
    int remaining = k_tile_count;
    CUTLASS_PRAGMA_NO_UNROLL
    for (; remaining >= 8; remaining -= 8) {
      k_tiles(Int<8>{});
    }
    if (remaining >= 4) {
      k_tiles(Int<4>{});
      remaining -= 4;
    }
    switch (remaining) {
      case 1: k_tiles(Int<1>{}); break;
      case 2: k_tiles(Int<2>{}); break;
      case 3: k_tiles(Int<3>{}); break;
      default: break;
    }
    warpgroup_fence_operand(accum);
  }

  // mma() has released every stage it read; Base's would leave the last to this.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) {}
};

}  // namespace cutlassgen
