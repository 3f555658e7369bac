// A vector broadcast along the kernel's D, one value per row (AlongN = false: the bias under swap_ab, a per-row
// scale) or per column (AlongN = true: the bias of an unswapped kernel), whose slice for a tile is copied into shared
// memory by the epilogue's load warp while the mainloop still runs.
//
// CUTLASS's Sm90ColBroadcast reads the slice from global memory when the tile's epilogue begins, after the last MMA,
// and converts it at once, so every CTA waits out one global load between its mainloop and its stores (its
// Sm90RowBroadcast likewise, through shared memory and a barrier). A decode kernel runs one tile per CTA and nothing
// hides that wait: on the H200 the bias alone cost our decode kernels 1-3% against the same tile without it
// (bench/tile_probe.py epiparts, probe run 26), while prefetching the vector into L2 did not help (runs 24-25).
// Here the load warp issues one bulk copy (cp.async.bulk, completing on the epilogue load pipeline's barrier) per
// tile as soon as the tile is scheduled, and the consumer reads the slice from shared memory in its first previsit,
// after the pipeline says the copy landed.
//
// The bulk copy needs a 16-byte aligned source and a length in multiples of 16 bytes. The host checks both (the
// vector's address, its length and batch stride); when they do not hold the node falls back to a per-thread global
// load, so every input stays correct.
//
// Measured on the H200 (bench/results/h200_tile_probe.log runs 27, 28 and 33): the column form is faster for swap_ab
// decode tiles and slower for the per-row scales of unswapped fp8 tiles, the row form slower for unswapped tiles
// (0.5-3%), so lower.py uses it for swap_ab kernels only and the row form is a study setting
// (lower.BULK_ROW_BROADCAST, bench/tile_probe.py bulkrow). Why the unswapped tiles lose is not known: giving the
// epilogue load pipeline one stage per subtile instead of the builder's min(subtiles, 4) did not change it (run 33).
#pragma once
#include <cstdint>

#include "cute/arch/copy_sm90_tma.hpp"
#include "cute/tensor.hpp"
#include "cutlass/arch/barrier.h"
#include "cutlass/cutlass.h"
#include "cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp"
#include "cutlassgen/no_workspace.hpp"

namespace cutlassgen {

template <int Stages, class CtaTileShapeMNK, class ElementInput_, class ElementCompute, bool AlongN>
struct BulkBroadcast : NoWorkspace {
  using ElementInput = ElementInput_;
  using StrideMNL = cute::conditional_t<AlongN, cute::Stride<cute::_0, cute::_1, int64_t>,
                                        cute::Stride<cute::_1, cute::_0, int64_t>>;
  static constexpr int CtaM = cute::size<0>(CtaTileShapeMNK{});
  static constexpr int CtaN = cute::size<1>(CtaTileShapeMNK{});
  static constexpr int Slice = AlongN ? CtaN : CtaM;  // the vector's elements one tile reads
  static constexpr int SliceBytes = Slice * int(sizeof(ElementInput));
  static_assert(Stages > 0, "one slice per stage of the epilogue load pipeline");
  static_assert(SliceBytes % 16 == 0, "bulk copies move multiples of 16 bytes");

  struct SharedStorage {
    alignas(128) cute::array<ElementInput, Stages * Slice> slices;  // slot s holds the tile loaded at pipeline stage s
  };

  struct Arguments {  // as Sm90ColBroadcast's and Sm90RowBroadcast's, so the generated argument lists do not change
    ElementInput const* ptr = nullptr;
    ElementInput null_default = ElementInput(0);
    StrideMNL dVec = {};
  };

  struct Params {
    ElementInput const* ptr = nullptr;
    ElementCompute null_default = ElementCompute(0);
    StrideMNL dVec = {};
    bool bulk = false;  // every tile's slice can be bulk-copied (see the file comment)
  };

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const& problem_shape, Arguments const& args, void*) {
    auto [M, N, K, L] = cute::append<4>(problem_shape, 1);
    int64_t const elem = int64_t(sizeof(ElementInput)), extent = AlongN ? int64_t(N) : int64_t(M);
    bool const bulk = args.ptr != nullptr && reinterpret_cast<uintptr_t>(args.ptr) % 16 == 0 &&
                      (extent * elem) % 16 == 0 && (int64_t(L) == 1 || (cute::get<2>(args.dVec) * elem) % 16 == 0);
    return {args.ptr, ElementCompute(args.null_default), args.dVec, bulk};
  }

  CUTLASS_HOST_DEVICE BulkBroadcast() {}

  CUTLASS_HOST_DEVICE BulkBroadcast(Params const& params, SharedStorage const& shared_storage)
      : params(params), slices(const_cast<ElementInput*>(shared_storage.slices.data())) {}

  Params params;
  ElementInput* slices = nullptr;

  CUTLASS_DEVICE bool is_producer_load_needed() const { return params.bulk; }
  CUTLASS_DEVICE bool is_C_load_needed() const { return false; }
  CUTLASS_DEVICE bool is_zero() const {
    return params.ptr == nullptr && params.null_default == ElementCompute(0);
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
        cute::SM90_BULK_COPY_G2S::copy(gmem_slice, full_mbarrier_ptr, slices + (load_iteration % Stages) * Slice,
                                       bytes);
      }
    }
  };

  template <class... Args>
  CUTLASS_DEVICE auto get_producer_load_callbacks(cutlass::epilogue::fusion::ProducerLoadArgs<Args...> const& args) {
    auto [M, N, K, L] = args.problem_shape_mnkl;
    auto [m, n, k, l] = args.tile_coord_mnkl;
    int64_t const first = AlongN ? int64_t(n) * CtaN : int64_t(m) * CtaM;
    int64_t const count = cute::min(int64_t(Slice), (AlongN ? int64_t(N) : int64_t(M)) - first);
    ElementInput const* gmem_slice =
        params.ptr == nullptr ? nullptr : params.ptr + first + int64_t(l) * cute::get<2>(params.dVec);
    return ProducerLoadCallbacks(gmem_slice, int(cute::max(count, int64_t(0)) * int64_t(sizeof(ElementInput))),
                                 slices, params.bulk);
  }

  template <class GTensor, class STensor, class RTensor, class CTensor, class ThrResidue>
  struct ConsumerStoreCallbacks : cutlass::epilogue::fusion::EmptyConsumerStoreCallbacks {
    GTensor tCgVec;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N): the fallback's global source
    STensor tCsVec;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N,PIPE): the slots in shared memory
    RTensor tCrVec;  // (CPY,CPY_M,CPY_N,EPI_M,EPI_N): the whole tile's values, converted
    CTensor tCcVec;
    ThrResidue residue_tCcVec;
    Params const& params;
    bool loaded = false;

    CUTLASS_DEVICE ConsumerStoreCallbacks(GTensor tCgVec, STensor tCsVec, RTensor tCrVec, CTensor tCcVec,
                                          ThrResidue residue_tCcVec, Params const& params)
        : tCgVec(tCgVec), tCsVec(tCsVec), tCrVec(tCrVec), tCcVec(tCcVec), residue_tCcVec(residue_tCcVec),
          params(params) {}

    // Fallback: the per-thread global load, when the vector is missing or cannot be bulk-copied.
    CUTLASS_DEVICE void begin() {
      if (params.bulk) return;
      using namespace cute;
      Tensor values = filter_zeros(tCrVec);
      if (params.ptr == nullptr) {
        fill(values, params.null_default);
        return;
      }
      Tensor src = filter_zeros(tCgVec);
      Tensor coords = filter_zeros(tCcVec, tCgVec.stride());
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(values); ++i) {
        values(i) = elem_less(coords(i), residue_tCcVec) ? ElementCompute(src(i)) : ElementCompute(0);
      }
    }

    // First subtile: the pipeline has waited for this stage, so the slice is in its slot.
    CUTLASS_DEVICE void previsit(int, int, int load_iteration, bool) {
      if (!params.bulk || loaded) return;
      loaded = true;
      using namespace cute;
      Tensor src = filter_zeros(tCsVec(_, _, _, _, _, load_iteration % Stages));
      Tensor values = filter_zeros(tCrVec);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(values); ++i) {
        values(i) = ElementCompute(src(i));
      }
    }

    template <typename ElementAccumulator, int FragmentSize>
    CUTLASS_DEVICE cutlass::Array<ElementCompute, FragmentSize> visit(
        cutlass::Array<ElementAccumulator, FragmentSize> const&, int epi_v, int epi_m, int epi_n) {
      cutlass::Array<ElementCompute, FragmentSize> out;
      auto tile = tCrVec(cute::_, cute::_, cute::_, epi_m, epi_n);
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
    Tensor mVec = make_tensor(make_gmem_ptr(params.ptr), make_layout(make_shape(M, N, L), params.dVec));
    Tensor tCgVec = sm90_partition_for_epilogue<ReferenceSrc>(mVec, args.tile_shape_mnk, args.tile_coord_mnkl,
                                                              args.epi_tile, args.tiled_copy, args.thread_idx);
    auto slot_stride = cute::conditional_return<AlongN>(make_stride(_0{}, _1{}, Int<Slice>{}),
                                                        make_stride(_1{}, _0{}, Int<Slice>{}));
    Tensor sVec = make_tensor(make_smem_ptr(slices),
                              make_layout(make_shape(Int<CtaM>{}, Int<CtaN>{}, Int<Stages>{}), slot_stride));
    Tensor tCsVec = sm90_partition_for_epilogue<ReferenceSrc>(sVec, args.epi_tile, args.tiled_copy, args.thread_idx);
    Tensor tCrVec = make_tensor_like<ElementCompute>(tCgVec);
    return ConsumerStoreCallbacks<decltype(tCgVec), decltype(tCsVec), decltype(tCrVec), decltype(args.tCcD),
                                  decltype(args.residue_tCcD)>(tCgVec, tCsVec, tCrVec, args.tCcD,
                                                               args.residue_tCcD, params);
  }
};

}  // namespace cutlassgen
