// Broadcast vectors (bias, per-row / per-column scales) prefetched into L2 when the kernel starts.
//
// CUTLASS's Sm90RowBroadcast and Sm90ColBroadcast read their slice of the vector from global memory when a tile's
// epilogue begins, after its last MMA. A CTA that runs one tile (decode, M = 256: one wave) waits out that load
// with nothing to overlap it, and while the other CTAs still stream operands it is a DRAM miss under load. The
// wrapper below issues L2 prefetches for the whole vector when the epilogue's visitors are constructed, i.e. at
// kernel start, before the mainloop, so the epilogue's read hits L2. The vectors are small (N elements), and each
// 128-byte line is prefetched by exactly one thread of the grid.
#pragma once
#include <cstdint>

#include "cutlass/cutlass.h"
#include "cute/tensor.hpp"

namespace cutlassgen {

// evict_last: the mainloop streams the operands through L2 (decode: the whole weight matrix, several times L2's
// size) with normal priority; a line prefetched with normal priority would be gone by the epilogue.
enum class L2Priority { EvictNormal, EvictLast };

template <L2Priority Priority>
CUTLASS_HOST_DEVICE void prefetch_to_l2(void const* ptr, int64_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (ptr == nullptr || bytes <= 0) return;
  constexpr int64_t kLine = 128;
  auto const begin = reinterpret_cast<uintptr_t>(ptr);
  auto const first_line = begin & ~uintptr_t(kLine - 1);
  int64_t const lines = (int64_t(begin + bytes - first_line) + kLine - 1) / kLine;
  int64_t const block_threads = int64_t(blockDim.x) * blockDim.y * blockDim.z;
  int64_t const block = blockIdx.x + int64_t(gridDim.x) * (blockIdx.y + int64_t(gridDim.y) * blockIdx.z);
  int64_t const thread = threadIdx.x + int64_t(blockDim.x) * (threadIdx.y + int64_t(blockDim.y) * threadIdx.z);
  int64_t const grid_threads = block_threads * gridDim.x * gridDim.y * gridDim.z;
  for (int64_t line = block * block_threads + thread; line < lines; line += grid_threads) {
    // Every address lies inside the vector (the first line starts at ptr), so no prefetch touches another buffer.
    uintptr_t const at = cute::max(first_line + uintptr_t(line * kLine), begin);
    if constexpr (Priority == L2Priority::EvictLast) {
      asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(at));
    } else {
      asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
    }
  }
#endif
}

// Broadcast is Sm90RowBroadcast (AlongN: the vector runs along the kernel's N) or Sm90ColBroadcast (along M).
// Only construction changes: Params gains the vector's length in bytes, known from the problem shape.
template <class Broadcast, bool AlongN, L2Priority Priority>
struct L2PrefetchedBroadcast : Broadcast {
  using Arguments = typename Broadcast::Arguments;
  using SharedStorage = typename Broadcast::SharedStorage;
  struct Params {
    typename Broadcast::Params base;
    int64_t bytes = 0;
  };

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const& problem_shape, Arguments const& args,
                                                  void* workspace) {
    auto mnkl = cute::append<4>(problem_shape, 1);
    int64_t const extent = AlongN ? int64_t(cute::get<1>(mnkl)) : int64_t(cute::get<0>(mnkl));
    return {Broadcast::to_underlying_arguments(problem_shape, args, workspace),
            extent * int64_t(sizeof(typename Broadcast::ElementInput))};
  }

  CUTLASS_HOST_DEVICE L2PrefetchedBroadcast() {}

  CUTLASS_HOST_DEVICE L2PrefetchedBroadcast(Params const& params, SharedStorage const& shared_storage)
      : Broadcast(params.base, shared_storage) {
    if constexpr (AlongN) {
      prefetch_to_l2<Priority>(params.base.ptr_row, params.bytes);
    } else {
      prefetch_to_l2<Priority>(params.base.ptr_col, params.bytes);
    }
  }
};

}  // namespace cutlassgen
