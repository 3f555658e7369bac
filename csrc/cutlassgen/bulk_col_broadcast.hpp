// A column-vector broadcast (one value per row of the kernel's D: the bias under swap_ab, a per-row scale) whose
// slice for a tile is copied into shared memory by the epilogue's load warp, while the mainloop still runs.
//
// CUTLASS's Sm90ColBroadcast reads the slice from global memory when the tile's epilogue begins, after the last MMA,
// and converts it at once, so every CTA waits out one global load between its mainloop and its stores. A decode
// kernel runs one tile per CTA and nothing hides that wait: on the H200 the bias alone cost our decode kernels 1-3%
// against the same tile without it (bench/tile_probe.py epiparts, probe run 26), while prefetching the vector into
// L2 did not help (runs 24-25). Here the load warp issues one bulk copy (cp.async.bulk, completing on the epilogue
// load pipeline's barrier) per tile as soon as the tile is scheduled, and the consumer reads the slice from shared
// memory in its first previsit, after the pipeline says the copy landed.
//
// The bulk copy needs a 16-byte aligned source and a length in multiples of 16 bytes. The host checks both (the
// vector's address, its length and batch stride); when they do not hold the node falls back to the per-thread global
// load of CUTLASS's node, so every input stays correct.
#pragma once
#include <cstdint>

#include "cute/arch/copy_sm90_tma.hpp"
#include "cute/tensor.hpp"
#include "cutlass/arch/barrier.h"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp"

namespace cutlassgen {

template <int Stages, class CtaTileShapeMNK, class ElementInput_, class ElementCompute, int Alignment>
struct BulkColBroadcast {
  using ElementInput = ElementInput_;
  using StrideMNL = cute::Stride<cute::_1, cute::_0, int64_t>;
  static constexpr int CtaM = cute::size<0>(CtaTileShapeMNK{});
  static constexpr int CtaN = cute::size<1>(CtaTileShapeMNK{});
  static constexpr int SliceBytes = CtaM * int(sizeof(ElementInput));
  static_assert(Stages > 0, "one slice per stage of the epilogue load pipeline");
  static_assert(SliceBytes % 16 == 0, "bulk copies move multiples of 16 bytes");

  struct SharedStorage {
    alignas(128) cute::array<ElementInput, Stages * CtaM> slices;  // slot s holds the tile loaded at pipeline stage s
  };

  struct Arguments {  // as Sm90ColBroadcast's, so the generated argument lists do not change
    ElementInput const* ptr_col = nullptr;
    ElementInput null_default = ElementInput(0);
    StrideMNL dCol = {};
  };

  struct Params {
    ElementInput const* ptr_col = nullptr;
    ElementCompute null_default = ElementCompute(0);
    StrideMNL dCol = {};
    bool bulk = false;  // every tile's slice can be bulk-copied (see the file comment)
  };

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const& problem_shape, Arguments const& args, void*) {
    auto [M, N, K, L] = cute::append<4>(problem_shape, 1);
    int64_t const elem = int64_t(sizeof(ElementInput));
    bool const bulk = args.ptr_col != nullptr && reinterpret_cast<uintptr_t>(args.ptr_col) % 16 == 0 &&
                      (int64_t(M) * elem) % 16 == 0 && (int64_t(L) == 1 || (cute::get<2>(args.dCol) * elem) % 16 == 0);
    return {args.ptr_col, ElementCompute(args.null_default), args.dCol, bulk};
  }

  template <class ProblemShape>
  static bool can_implement(ProblemShape const&, Arguments const&) {
    return true;
  }

  template <class ProblemShape>
  static size_t get_workspace_size(ProblemShape const&, Arguments const&) {
    return 0;
  }

  template <class ProblemShape>
  static cutlass::Status initialize_workspace(ProblemShape const&, Arguments const&, void*, cudaStream_t,
                                             cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }

  CUTLASS_HOST_DEVICE BulkColBroadcast() {}

  CUTLASS_HOST_DEVICE BulkColBroadcast(Params const& params, SharedStorage const& shared_storage)
      : params(params), slices(const_cast<ElementInput*>(shared_storage.slices.data())) {}

  Params params;
  ElementInput* slices = nullptr;

  CUTLASS_DEVICE bool is_producer_load_needed() const { return params.bulk; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return false; }
  CUTLASS_DEVICE bool is_zero() const {
    return params.ptr_col == nullptr && params.null_default == ElementCompute(0);
  }

  // Load warp, once per tile: the first subtile's step copies the tile's slice into that stage's slot.
  struct ProducerLoadCallbacks : cutlass::epilogue::fusion::EmptyProducerLoadCallbacks {
    ElementInput const* gmem_slice;
    int bytes;
    ElementInput* slices;
    bool pending;

    CUTLASS_DEVICE ProducerLoadCallbacks(ElementInput const* gmem_slice, int bytes, ElementInput* slices, bool active)
        : gmem_slice(gmem_slice), bytes(bytes), slices(slices), pending(active) {}

    CUTLASS_DEVICE void step(uint64_t* full_mbarrier_ptr, int, int, int load_iteration, bool issue_tma_load) {
      if (!pending) return;
      pending = false;
      if (issue_tma_load && bytes > 0) {
        // The expected bytes are added before the copy and before the collective's producer_commit arrives, so the
        // stage cannot complete until the slice has landed.
        cutlass::arch::ClusterTransactionBarrier::expect_transaction(full_mbarrier_ptr, uint32_t(bytes));
        cute::SM90_BULK_COPY_G2S::copy(gmem_slice, full_mbarrier_ptr, slices + (load_iteration % Stages) * CtaM,
                                       bytes);
      }
    }
  };

  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(cutlass::epilogue::fusion::ProducerLoadArgs<Args...> const& args) {
    auto [M, N, K, L] = args.problem_shape_mnkl;
    auto [m, n, k, l] = args.tile_coord_mnkl;
    int64_t const first_row = int64_t(m) * CtaM;
    int64_t const rows = cute::min(int64_t(CtaM), int64_t(M) - first_row);
    ElementInput const* gmem_slice =
        params.ptr_col == nullptr ? nullptr : params.ptr_col + first_row + int64_t(l) * cute::get<2>(params.dCol);
    return ProducerLoadCallbacks(gmem_slice, int(cute::max(rows, int64_t(0)) * int64_t(sizeof(ElementInput))),
                                 slices, params.bulk);
  }

  template <class GTensor, class STensor, class RTensor, class CTensor, class ThrResidue>
  struct ConsumerStoreCallbacks : cutlass::epilogue::fusion::EmptyConsumerStoreCallbacks {
    GTensor tCgCol;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N): the fallback's global source
    STensor tCsCol;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N,PIPE): the slots in shared memory
    RTensor tCrCol;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N): the whole tile's values, converted
    CTensor tCcCol;
    ThrResidue residue_tCcCol;
    Params const& params;
    bool loaded = false;

    CUTLASS_DEVICE ConsumerStoreCallbacks(GTensor tCgCol, STensor tCsCol, RTensor tCrCol, CTensor tCcCol,
                                          ThrResidue residue_tCcCol, Params const& params)
        : tCgCol(tCgCol), tCsCol(tCsCol), tCrCol(tCrCol), tCcCol(tCcCol), residue_tCcCol(residue_tCcCol),
          params(params) {}

    // Fallback: the per-thread global load, when the vector is missing or cannot be bulk-copied.
    CUTLASS_DEVICE void begin() {
      if (params.bulk) return;
      using namespace cute;
      Tensor rows = filter_zeros(tCrCol);
      if (params.ptr_col == nullptr) {
        fill(rows, params.null_default);
        return;
      }
      Tensor src = filter_zeros(tCgCol);
      Tensor coords = filter_zeros(tCcCol, tCgCol.stride());
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(rows); ++i) {
        rows(i) = elem_less(coords(i), residue_tCcCol) ? ElementCompute(src(i)) : ElementCompute(0);
      }
    }

    // First subtile: the pipeline has waited for this stage, so the slice is in its slot.
    CUTLASS_DEVICE void previsit(int, int, int load_iteration, bool) {
      if (!params.bulk || loaded) return;
      loaded = true;
      using namespace cute;
      Tensor src = filter_zeros(tCsCol(_, _, _, _, _, load_iteration % Stages));
      Tensor rows = filter_zeros(tCrCol);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(rows); ++i) {
        rows(i) = ElementCompute(src(i));
      }
    }

    template <typename ElementAccumulator, int FragmentSize>
    CUTLASS_DEVICE cutlass::Array<ElementCompute, FragmentSize> visit(
        cutlass::Array<ElementAccumulator, FragmentSize> const&, int epi_v, int epi_m, int epi_n) {
      cutlass::Array<ElementCompute, FragmentSize> out;
      auto tile = tCrCol(cute::_, cute::_, cute::_, epi_m, epi_n);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < FragmentSize; ++i) {
        out[i] = tile(epi_v * FragmentSize + i);
      }
      return out;
    }
  };

  template <bool ReferenceSrc, class... Args>
  CUTLASS_DEVICE auto get_consumer_store_callbacks(
      cutlass::epilogue::fusion::ConsumerStoreArgs<Args...> const& args) {
    using namespace cute;
    using cutlass::epilogue::fusion::sm90_partition_for_epilogue;
    auto [M, N, K, L] = args.problem_shape_mnkl;
    Tensor mCol = make_tensor(make_gmem_ptr(params.ptr_col), make_layout(make_shape(M, N, L), params.dCol));
    Tensor tCgCol = sm90_partition_for_epilogue<ReferenceSrc>(mCol, args.tile_shape_mnk, args.tile_coord_mnkl,
                                                              args.epi_tile, args.tiled_copy, args.thread_idx);
    Tensor sCol = make_tensor(make_smem_ptr(slices),
                              make_layout(make_shape(Int<CtaM>{}, Int<CtaN>{}, Int<Stages>{}),
                                          make_stride(_1{}, _0{}, Int<CtaM>{})));
    Tensor tCsCol = sm90_partition_for_epilogue<ReferenceSrc>(sCol, args.epi_tile, args.tiled_copy, args.thread_idx);
    Tensor tCrCol = make_tensor_like<ElementCompute>(tCgCol);
    return ConsumerStoreCallbacks<decltype(tCgCol), decltype(tCsCol), decltype(tCrCol), decltype(args.tCcD),
                                  decltype(args.residue_tCcD)>(tCgCol, tCsCol, tCrCol, args.tCcD,
                                                               args.residue_tCcD, params);
  }
};

}  // namespace cutlassgen
