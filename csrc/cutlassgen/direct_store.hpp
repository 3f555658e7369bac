// An sm90 epilogue without shared memory (lower.DIRECT_STORE, a study setting): each consumer thread evaluates the
// epilogue on its own accumulators and stores the results straight to global memory.
//
// Why try it: a decode tile (swap_ab, one tile per CTA, 64x5120x4096) pays a fixed part per call that cuBLAS mm's
// kernel of the same tile and cluster does not (bench/k_fit.py on tile_probe.py decode5120k, session 88), and
// CUTLASS's TMA epilogue stages every subtile through shared memory, fences, syncs the warpgroup and waits for the
// bulk store to read the buffer before the CTA may exit. Here the D tile is written with one plain store per
// element (under swap_ab the rows of D^T are D's columns, so neighbouring threads write one 16-byte run per row of D).
// Measured (tile_probe.py directstore, bench/results/h100_session88.log): slower than the TMA epilogue at every decode
// shape cold, by 0.35-0.98 us with bias+gelu, and at K = 1024 warm; so it stays a study setting.
//
// Expr is the generated epilogue: a struct of the input pointers it reads, called per element as
//   float operator()(float acc, int row, int col) const   (row, col: the kernel's, in the whole problem)
// Its value converts to ElementD with round-to-nearest, as the TMA epilogue's root node does.
#pragma once
#include "cute/tensor.hpp"
#include "cutlass/array.h"
#include "cutlass/cutlass.h"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/numeric_conversion.h"
#include "cutlassgen/no_workspace.hpp"

namespace cutlassgen {

// An elementwise functor of epilogue_ops.hpp (or CUTLASS's) applied to one float.
template <class Fn>
CUTLASS_DEVICE float apply_unary(float x) {
  cutlass::Array<float, 1> in;
  in[0] = x;
  return Fn{}(in)[0];
}

template <class StrideD_, class ElementD_, class Expr>
class DirectStoreEpilogue : public NoWorkspace {
 public:
  using EpilogueSchedule = cutlass::gemm::EpilogueDefault;
  using DispatchPolicy = EpilogueSchedule;
  using ElementC = void;  // no source tensor
  using StrideC = StrideD_;
  using ElementD = ElementD_;
  using StrideD = StrideD_;
  using GmemTiledCopyC = void;
  using GmemTiledCopyD = void;
  using ThreadEpilogueOp = Expr;  // GemmUniversalAdapter names it

  struct SharedStorage {};
  using TensorStorage = SharedStorage;

  // The TMA epilogue's argument order (fusion arguments, C, C's stride, D, D's stride), so that the host code that
  // fills them stays one form.
  struct Arguments {
    Expr thread{};
    void const* ptr_C = nullptr;
    StrideC dC{};
    ElementD* ptr_D = nullptr;
    StrideD dD{};
  };
  using Params = Arguments;

  template <class ProblemShape>
  static constexpr Params to_underlying_arguments(ProblemShape const&, Arguments const& args, void*) {
    return args;
  }

  CUTLASS_HOST_DEVICE
  DirectStoreEpilogue(Params const& params, SharedStorage const& = SharedStorage()) : params_(params) {}

  template <class ProblemShapeMNKL, class BlockShapeMNK, class BlockCoordMNKL, class FrgEngine, class FrgLayout,
            class TiledMma, class ResidueMNK>
  CUTLASS_DEVICE void operator()(ProblemShapeMNKL problem_shape_mnkl, BlockShapeMNK blk_shape_mnk,
                                 BlockCoordMNKL blk_coord_mnkl, cute::Tensor<FrgEngine, FrgLayout> const& accumulators,
                                 TiledMma tiled_mma, ResidueMNK, int thread_idx, char*) {
    using namespace cute;
    auto M = get<0>(problem_shape_mnkl);
    auto N = get<1>(problem_shape_mnkl);
    auto L = get<3>(problem_shape_mnkl);
    auto [m_coord, n_coord, k_coord, l_coord] = blk_coord_mnkl;

    Tensor mD = make_tensor(make_gmem_ptr(params_.ptr_D), make_shape(M, N, L), params_.dD);
    Tensor gD = local_tile(mD, blk_shape_mnk, make_coord(_, _, _), Step<_1, _1, X>{})(_, _, m_coord, n_coord, l_coord);
    Tensor cD = local_tile(make_identity_tensor(make_shape(M, N)), take<0, 2>(blk_shape_mnk),
                           make_coord(m_coord, n_coord));
    auto thr_mma = tiled_mma.get_thread_slice(thread_idx);
    Tensor tCgD = thr_mma.partition_C(gD);
    Tensor tCcD = thr_mma.partition_C(cD);  // each accumulator's (row, col) in the problem
    CUTE_STATIC_ASSERT_V(size(tCgD) == size(accumulators));

    // Every value first, then every store: a store between two of the epilogue's input loads could alias them, so
    // the compiler would issue the loads one round trip at a time.
    constexpr int kValues = decltype(size(accumulators))::value;
    cutlass::NumericConverter<ElementD, float, cutlass::FloatRoundStyle::round_to_nearest> to_d;
    cutlass::Array<ElementD, kValues> out;
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kValues; ++i) {
      auto [row, col] = tCcD(i);
      out[i] = (row < M && col < N) ? to_d(params_.thread(static_cast<float>(accumulators(i)), row, col)) : ElementD{};
    }
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kValues; ++i) {
      auto [row, col] = tCcD(i);
      if (row < M && col < N) tCgD(i) = out[i];
    }
  }

 private:
  Params params_;
};

}  // namespace cutlassgen
