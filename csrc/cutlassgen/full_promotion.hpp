#pragma once
// An sm90 fp8 mainloop collective: CUTLASS's exact fp8 accumulation in the order of cuBLASLt's exact kernel.
//
// Exact fp8 accumulation (no fp8_fast_accum): the tensor cores sum fp8 products at reduced precision, so CUTLASS 4.2's
// MainloopSm90TmaGmmaWarpSpecializedFP8 sums each run of 4 wgmma k-blocks (its default mma_promotion_interval; one
// 128-wide k tile) into a partial accumulator, waits for the MMAs and adds the partial sum to the fp32 accumulator.
// cuBLASLt's exact kernel (nvjet 128x128_128x6 coopA; its SASS under ncu, bench/results/h200_ncu_source.log, session
// 56) does the same with the same full-width MMAs, but in another order: it probes the next k tile's stage barrier
// while the MMAs run and releases the stage to the producer as soon as they are done, before the adds. CUTLASS's
// mainloop probes the barrier after the adds, on the critical path, and releases the stage after them.
//
// MainloopFullPromotion<Base> is Base with mma() in cuBLASLt's order: the same MMAs, partial sums, order of adds and
// registers, so the output is the same bit for bit (bench/promotion_check.py). On the H200 7-11% faster than Base's
// and 1-4% faster than overlapped_promotion.hpp's halves (tile_probe.py fullpromo, probe run 168, session 57); its
// wgmma descriptors carried from k tile to k tile (see mma()) up to 2.6% more (probe runs 195-196, session 61).
// mma() releases every stage it reads, so mma_tail() releases none; shared storage, the producer's load() and Params
// stay Base's. Python decides where it applies (cutlassgen/lower.py, OVERLAPPED_PROMOTION and PROMOTION_SCHEDULE).
//
// kOpaqueUpToKTiles (lower.OPAQUE_PIPELINE): where a tile has at most this many k tiles, its k-tile loop runs on the
// pipeline object passed through opaque_per_thread() (0: never; kAlwaysOpaque: always, and only that loop is built).
// Between the two each call branches on its k tile count, a value the whole grid shares outside stream-K, into one of
// two copies of the loop, each scheduled by ptxas on its own.
#include "cute/tensor.hpp"

#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlassgen/kernel_common.hpp"
#include "cutlassgen/promotion_mma.hpp"

namespace cutlassgen {

// value as the thread's own copy: a shuffle from its own lane, which the compiler cannot see through. Applied to the
// pipeline object, the stage barriers' base stays in a register through the k-tile loop; where ptxas sees it, how it
// schedules the loop moves with the code around it (an S2UR of SR_CgaCtaId rebuilt in the loop under session 63's
// warpgroup stores; stage indices in uniform registers around session 65's carried k tile).
template <class T>
CUTLASS_DEVICE T opaque_per_thread(T value) {
  static_assert(sizeof(T) % sizeof(uint32_t) == 0, "whole 32-bit words");
  uint32_t words[sizeof(T) / sizeof(uint32_t)];
  memcpy(words, &value, sizeof(T));
  int const lane = threadIdx.x % 32;
  CUTLASS_PRAGMA_UNROLL
  for (int i = 0; i < int(sizeof(T) / sizeof(uint32_t)); ++i) {
    words[i] = __shfl_sync(0xffffffff, words[i], lane);
  }
  memcpy(&value, words, sizeof(T));
  return value;
}

constexpr int kAlwaysOpaque = 0x7fffffff;

template <class Base, int kOpaqueUpToKTiles = 0>
struct MainloopFullPromotion : Base {
  static_assert(kIsPolicy<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedFP8, typename Base::DispatchPolicy>,
                "full promotion: only CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecializedFP8 promotes");
  using typename Base::MainloopPipeline;
  using typename Base::PipelineState;
  using typename Base::SmemLayoutA;
  using typename Base::SmemLayoutB;
  using typename Base::TensorStorage;
  using typename Base::TileShape;
  using typename Base::TiledMma;

  static constexpr int kMmaWarpGroups = cute::size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;

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

    // The wgmma descriptors are carried from k tile to k tile: stage 0's fragments, and the low descriptor words (start
    // addresses in 16-byte units) of the stage read next, a stage apart in each buffer, advanced while the MMAs run.
    // Rebuilt from the stage index (CuTe's slicing), they were made between the adds and the next MMAs, about 15
    // uniform instructions on that path in the SASS where nvjet's loop has its warpgroup arrive alone. Carried, the
    // same 1352 instructions ran level to 2.6% faster on the H200, but 0.3-0.4% slower at 4096x14336x4096 and 0.5%
    // at 256x11008x4096 cold (tile_probe.py fulldesc, probe runs 195-196).
    Tensor tCrA0 = tCrA(_, _, _, 0);
    Tensor tCrB0 = tCrB(_, _, _, 0);
    constexpr int kStages = size<3>(decltype(tCrA){});
    uint32_t const step_a = tCrA(_, _, _, 1 % kStages).data().desc_.reg32_[0] - tCrA0.data().desc_.reg32_[0];
    uint32_t const step_b = tCrB(_, _, _, 1 % kStages).data().desc_.reg32_[0] - tCrB0.data().desc_.reg32_[0];
    uint32_t desc_a = tCrA0.data().desc_.reg32_[0] + smem_pipe_read.index() * step_a;
    uint32_t desc_b = tCrB0.data().desc_.reg32_[0] + smem_pipe_read.index() * step_b;

    // The k-tile loop, on the pipeline object as passed or hidden from ptxas (see kOpaqueUpToKTiles above).
    auto k_tile_loop = [&](auto opaque) {
      if constexpr (decltype(opaque)::value) {
        pipeline = opaque_per_thread(pipeline);
      }
      clear(accum);
      auto barrier_token = pipeline.consumer_try_wait(smem_pipe_read);
      CUTLASS_PRAGMA_NO_UNROLL
      for (int k_tile = 0; k_tile < k_tile_count; ++k_tile) {
        pipeline.consumer_wait(smem_pipe_read, barrier_token);
        auto it_a = tCrA0.data();
        auto it_b = tCrB0.data();
        it_a.desc_.reg32_[0] = desc_a;
        it_b.desc_.reg32_[0] = desc_b;
        issue_k_tile(tiled_mma, make_tensor(it_a, tCrA0.layout()), make_tensor(it_b, tCrB0.layout()), partial);
        bool const wraps = smem_pipe_read.index() == kStages - 1;
        desc_a = wraps ? desc_a - (kStages - 1) * step_a : desc_a + step_a;
        desc_b = wraps ? desc_b - (kStages - 1) * step_b : desc_b + step_b;
        // While the MMAs run: probe the next k tile's stage (the wait at the top then passes at once if it is full).
        PipelineState next = smem_pipe_read;
        ++next;
        if (k_tile + 1 < k_tile_count) {
          barrier_token = pipeline.consumer_try_wait(next);
        }
        warpgroup_wait<0>();
        // The MMAs have read the stage: back to the producer before the adds.
        pipeline.consumer_release(smem_pipe_read);
        smem_pipe_read = next;
        warpgroup_fence_operand(partial);
        CUTLASS_PRAGMA_UNROLL
        for (int i = 0; i < size(partial); ++i) {
          accum(i) += partial(i);
        }
      }
      warpgroup_fence_operand(accum);
    };
    if constexpr (kOpaqueUpToKTiles == kAlwaysOpaque) {
      k_tile_loop(cute::true_type{});
    } else if constexpr (kOpaqueUpToKTiles == 0) {
      k_tile_loop(cute::false_type{});
    } else if (k_tile_count <= kOpaqueUpToKTiles) {
      k_tile_loop(cute::true_type{});
    } else {
      k_tile_loop(cute::false_type{});
    }
  }

  // mma() has released every stage it read; Base's would leave the last to this.
  CUTLASS_DEVICE void mma_tail(MainloopPipeline, PipelineState, int) {}
};

}  // namespace cutlassgen
