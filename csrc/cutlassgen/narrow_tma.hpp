#pragma once
// An sm90 mainloop collective for 16-bit operands whose tile holds an odd number of 8-row groups (CTA N = 40, 56, 72,
// 88, ...: the token columns cuBLAS fits to M in steps of 8).
//
// CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecialized builds its TMA descriptors from SmemLayout(_,_,0), the first
// pipeline stage sliced out of the swizzled shared-memory layout. CuTe's slice of a swizzled layout composes the
// swizzle's bit ranges with the layout and static_asserts ("Shape / Stride Divisibility Condition") unless the 8-row
// groups of a 16-bit K-major operand come in pairs, although the layout, the TMA box and the wgmma descriptors are
// all valid for any multiple of 8 rows (8-bit operands, whose strides are twice as long in elements, pass the same
// check at the same N). MainloopNarrowTma<Base> is the builder's collective with the stage taken instead (the same
// layout function: stage 0 starts at offset 0), so only the descriptors' construction differs: shared storage, the
// pipeline and the consumer's mma() are Base's. Base's producer load() takes Base's Params, so the kernel's loads come
// from MainloopLoadHints (load_hints.hpp) on top of this one, whose load() takes these (cutlassgen/lower.py).
#include "cute/tensor.hpp"

#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlassgen/kernel_common.hpp"

namespace cutlassgen {

// The stage-0 layout of a (rows, K, stages) swizzled shared-memory layout, without CuTe's slice.
template <class SmemLayout>
using StageZeroLayout = decltype(cute::make_composed_layout(SmemLayout{}.layout_a(), SmemLayout{}.offset(),
                                                            cute::take<0, 2>(SmemLayout{}.layout_b())));

template <class Base>
struct MainloopNarrowTma : Base {
  // The FP8 mainloop's mma() reads its Params (the promotion interval); this one's does not, which is what lets
  // mma() below pass Base's without Base::Params ever being defined.
  static_assert(kIsPolicy<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized, typename Base::DispatchPolicy>,
                "narrow TMA: only CUTLASS 4.2's MainloopSm90TmaGmmaWarpSpecialized (8-bit operands do not need it)");
  using typename Base::Arguments;
  using typename Base::TileShape;
  using ClusterShape = typename Base::DispatchPolicy::ClusterShape;

  struct Params {  // Base::Params' members, in its order (the kernels read tma_transaction_bytes by name)
    using TMA_A = decltype(make_tma_copy_A_sm90(
        typename Base::GmemTiledCopyA{},
        cute::make_tensor(static_cast<typename Base::InternalElementA const*>(nullptr),
                          cute::repeat_like(typename Base::StrideA{}, int32_t(0)), typename Base::StrideA{}),
        StageZeroLayout<typename Base::SmemLayoutA>{}, TileShape{}, ClusterShape{}));
    using TMA_B = decltype(make_tma_copy_B_sm90(
        typename Base::GmemTiledCopyB{},
        cute::make_tensor(static_cast<typename Base::InternalElementB const*>(nullptr),
                          cute::repeat_like(typename Base::StrideB{}, int32_t(0)), typename Base::StrideB{}),
        StageZeroLayout<typename Base::SmemLayoutB>{}, TileShape{}, ClusterShape{}));
    TMA_A tma_load_a;
    TMA_B tma_load_b;
    uint32_t tma_transaction_bytes = Base::TmaTransactionBytes;
    uint32_t tma_transaction_bytes_mk = Base::TmaTransactionBytesMK;
    uint32_t tma_transaction_bytes_nk = Base::TmaTransactionBytesNK;
  };

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const& problem_shape, Arguments const& args,
                                                  void* /*workspace*/) {
    using namespace cute;
    auto [M, N, K, L] = append<4>(problem_shape, 1);
    Tensor a = make_tensor(reinterpret_cast<typename Base::InternalElementA const*>(args.ptr_A),
                           make_layout(make_shape(M, K, L), args.dA));
    Tensor b = make_tensor(reinterpret_cast<typename Base::InternalElementB const*>(args.ptr_B),
                           make_layout(make_shape(N, K, L), args.dB));
    return {make_tma_copy_A_sm90(typename Base::GmemTiledCopyA{}, a, StageZeroLayout<typename Base::SmemLayoutA>{},
                                 TileShape{}, ClusterShape{}),
            make_tma_copy_B_sm90(typename Base::GmemTiledCopyB{}, b, StageZeroLayout<typename Base::SmemLayoutB>{},
                                 TileShape{}, ClusterShape{})};
  }

  CUTLASS_DEVICE static void prefetch_tma_descriptors(Params const& params) {
    cute::prefetch_tma_descriptor(params.tma_load_a.get_tma_descriptor());
    cute::prefetch_tma_descriptor(params.tma_load_b.get_tma_descriptor());
  }

  // The kernels' contract: A and B as TMA tensors tiled (BLK, BLK_K, m or n, k, l).
  template <class ProblemShape_MNKL>
  CUTLASS_DEVICE auto load_init(ProblemShape_MNKL const& problem_shape_MNKL, Params const& params) const {
    using namespace cute;
    auto [M, N, K, L] = problem_shape_MNKL;
    Tensor a = params.tma_load_a.get_tma_tensor(make_shape(M, K, L));
    Tensor b = params.tma_load_b.get_tma_tensor(make_shape(N, K, L));
    return make_tuple(local_tile(a, TileShape{}, make_coord(_, _, _), Step<_1, Underscore, _1>{}),
                      local_tile(b, TileShape{}, make_coord(_, _, _), Step<Underscore, _1, _1>{}));
  }

  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(typename Base::MainloopPipeline pipeline, typename Base::PipelineState read_state,
                          FrgTensorC& accum, int k_tile_count, int thread_idx,
                          typename Base::TensorStorage& shared_tensors, Params const& params) {
    // Base's mma() takes its Params and does not read them (checked against CUTLASS 4.2); a reference to the
    // incomplete type is all it is passed.
    Base::mma(pipeline, read_state, accum, k_tile_count, thread_idx, shared_tensors,
              *reinterpret_cast<typename Base::Params const*>(&params));
  }
};

}  // namespace cutlassgen
