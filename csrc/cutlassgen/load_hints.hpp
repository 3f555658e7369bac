#pragma once
// An sm90 mainloop collective whose TMA loads of A and B carry L2 eviction policies.
//
// CUTLASS 4.2's warp-specialized mainloops (MainloopSm90TmaGmmaWarpSpecialized and its FP8 form) issue every tile load
// with CuTe's default policy, EVICT_NORMAL, and take no policy from outside. MainloopLoadHints<Base, HintA, HintB> is
// the builder's collective with one member replaced: the producer warp's load(), which issues the same loads in the
// same order on the same pipeline, with HintA on A's and HintB on B's. Everything else (shared storage, the
// consumer's mma(), load_tail(), and Params but for the tail loads below) is Base's, so the kernel is the builder's
// kernel apart from that one member.
// Which operand gets which policy is decided in Python (cutlassgen/lower.py, LOAD_HINTS).
//
// With TailOperand 0 or 1 (kernel A or B: the operand that holds the tokens), the last token tile, where the rows end
// inside it, is loaded in one box fitted to the rows that remain instead of one box of the tile's rows: a box lying
// partly past the operand's end made whole calls up to 1.5x slower on the H200 (bench/NOTES.md, runs 131-132, 143 and
// 145), while a buffer holding rows past M ran at the full tile's time, and boxes of 8 rows were slower still (run
// 144); the fitted box runs at the padded time (run 148). It is a second TMA descriptor, encoded per problem; the bytes
// it does not bring are counted off the stage's transaction barrier by the producer. The stage's rows past the box
// keep what an earlier tile left there: they are rows past M, whose accumulators the epilogue neither writes nor
// reduces. Python decides where this applies (cutlassgen/lower.py, TAIL_LOADS).
// A tile lying wholly past the token rows loads no token operand at all and counts its bytes off the barrier: the
// persistent scheduler pads its walk to whole strips (auto_swizzle.hpp) and runs the padded tiles' mainloops, whose
// TMA boxes lie wholly past a bare operand's end; on an H100 a padded row of 128x128 pingpong tiles cost 549-578
// TFLOP/s at 8064x14336 against 657-717 with the same loads inside the buffer (bench/NOTES.md, session 110, oobrow).
// A cluster's spare CTA, where the token tiles are fewer than its width, is such a tile too.
//
// With KeepMiB > 0, an operand whose Hint is EVICT_FIRST loads its first KeepMiB (its tiles in order along its rows,
// each over the whole K) with CuTe's EVICT_NORMAL instead. Weights larger than L2 keeps, all loaded at one priority,
// replace each other from one call to the next (EVICT_FIRST or not, a call finds almost none of them there); this
// keeps a fixed part of them, the same part every call, at the priority CUTLASS loads everything with, while the rest
// streams past it EVICT_FIRST. Python decides where and how much (cutlassgen/lower.py, WEIGHTS_KEEP_MIB).
#include "cute/arch/copy_sm90_desc.hpp"
#include "cute/arch/copy_sm90_tma.hpp"
#include "cute/tensor.hpp"

#include "cutlass/arch/barrier.h"
#include "cutlass/gemm/dispatch_policy.hpp"

namespace cutlassgen {

// CuTe's EVICT_NORMAL (0x1000000000000000) is not the policy createpolicy.fractional.L2::evict_normal makes
// (0x16F0000000000000 on an H200, bench/cache_policy_bits.py): its priority field reads evict_unchanged. This is the
// evict_normal policy as an operand (a probe option: far slower than CuTe's at M = 256 and decode shapes, while a load
// with no policy operand, kNoL2Policy below, runs as fast as CuTe's; cutlassgen/lower.py L2_POLICY).
inline constexpr auto kL2EvictNormal = static_cast<cute::TMA::CacheHintSm90>(0x16F0000000000000ull);

// A policy value no createpolicy makes (bench/results/h200_cache_policy_bits.log): the loads given it are issued
// without the .L2::cache_hint operand at all, as cuBLAS's nvjet kernels issue theirs (their SASS,
// bench/ncu_source_summary.py).
inline constexpr auto kNoL2Policy = static_cast<cute::TMA::CacheHintSm90>(0);

// CuTe's SM90_TMA_LOAD(_MULTICAST) copies with the policy operand dropped; the signatures are CuTe's, so the atom
// calls them the same way, and the policy argument is ignored.
template <bool Multicast>
struct TmaLoadWithoutPolicy {
  template <class... Coord>
  CUTE_HOST_DEVICE static void copy(void const* desc, uint64_t* mbar, uint16_t mask, uint64_t /*policy*/,
                                    void* smem, Coord const&... coord) {
    copy_impl(desc, mbar, mask, smem, coord...);
  }
  template <class... Coord>
  CUTE_HOST_DEVICE static void copy(void const* desc, uint64_t* mbar, uint64_t /*policy*/, void* smem,
                                    Coord const&... coord) {
    copy_impl(desc, mbar, uint16_t(0), smem, coord...);
  }

 private:
  template <class... Coord>
  CUTE_HOST_DEVICE static void copy_impl(void const* desc, uint64_t* mbar, uint16_t mask, void* smem,
                                         Coord const&... coord) {
#if defined(CUTE_ARCH_TMA_SM90_ENABLED)
    constexpr int rank = sizeof...(Coord);
    static_assert(rank >= 2 && rank <= 5, "TMA loads of rank 2 to 5");
    uint64_t const gdesc = reinterpret_cast<uint64_t>(desc);
    uint32_t const bar = cute::cast_smem_ptr_to_uint(mbar);
    uint32_t const dst = cute::cast_smem_ptr_to_uint(smem);
    int32_t const c[5] = {int32_t(coord)...};
// One instruction per rank; MCAST is empty or the multicast qualifier, and %3 the mask (unused without it).
#define CUTLASSGEN_TMA(DIMS, MCAST, COORDS, MASK)                                                                      \
  asm volatile("cp.async.bulk.tensor." DIMS ".shared::cluster.global.mbarrier::complete_tx::bytes" MCAST               \
               " [%0], [%1, {" COORDS "}], [%2]" MASK ";"                                                              \
               :                                                                                                       \
               : "r"(dst), "l"(gdesc), "r"(bar), "h"(mask), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4])      \
               : "memory")
    if constexpr (Multicast) {
      if constexpr (rank == 2) CUTLASSGEN_TMA("2d", ".multicast::cluster", "%4, %5", ", %3");
      if constexpr (rank == 3) CUTLASSGEN_TMA("3d", ".multicast::cluster", "%4, %5, %6", ", %3");
      if constexpr (rank == 4) CUTLASSGEN_TMA("4d", ".multicast::cluster", "%4, %5, %6, %7", ", %3");
      if constexpr (rank == 5) CUTLASSGEN_TMA("5d", ".multicast::cluster", "%4, %5, %6, %7, %8", ", %3");
    } else {
      if constexpr (rank == 2) CUTLASSGEN_TMA("2d", "", "%4, %5", "");
      if constexpr (rank == 3) CUTLASSGEN_TMA("3d", "", "%4, %5, %6", "");
      if constexpr (rank == 4) CUTLASSGEN_TMA("4d", "", "%4, %5, %6, %7", "");
      if constexpr (rank == 5) CUTLASSGEN_TMA("5d", "", "%4, %5, %6, %7, %8", "");
    }
#undef CUTLASSGEN_TMA
#else
    CUTE_INVALID_CONTROL_PATH("TMA loads need CUTE_ARCH_TMA_SM90_ENABLED");
#endif
  }
};

}  // namespace cutlassgen

namespace cute {
// The executable atoms of those copies: CuTe's TMA_LOAD_Unpack turns the tensor coordinates into the call.
template <bool Multicast, class NumBits>
struct Copy_Traits<cutlassgen::TmaLoadWithoutPolicy<Multicast>, NumBits>
    : TMA_LOAD_Unpack<cutlassgen::TmaLoadWithoutPolicy<Multicast>, NumBits> {
  using ThrID = Layout<_1>;
  using SrcLayout = Layout<Shape<_1, NumBits>>;
  using DstLayout = Layout<Shape<_1, NumBits>>;
  using RefLayout = SrcLayout;
  using Args = conditional_t<Multicast, tuple<TmaDescriptor const*, uint64_t*, uint16_t, uint64_t>,
                             tuple<TmaDescriptor const*, uint64_t*, uint64_t>>;
  Args const opargs_;
  CUTE_HOST_DEVICE explicit Copy_Traits(Args const& args) : opargs_(args) {}
  CUTE_HOST_DEVICE constexpr TmaDescriptor const* get_tma_descriptor() const { return get<0>(opargs_); }
};
}  // namespace cute

namespace cutlassgen {

// An executable TMA load atom (what .with() returns) as the same load without a policy operand.
template <class NumBits, class Value>
CUTE_HOST_DEVICE auto without_policy(
    cute::Copy_Atom<cute::Copy_Traits<cute::SM90_TMA_LOAD_OP, NumBits>, Value> const& atom) {
  using Traits = cute::Copy_Traits<TmaLoadWithoutPolicy<false>, NumBits>;
  return cute::Copy_Atom<Traits, Value>{Traits{atom.opargs_}};
}
template <class NumBits, class Value>
CUTE_HOST_DEVICE auto without_policy(
    cute::Copy_Atom<cute::Copy_Traits<cute::SM90_TMA_LOAD_MULTICAST_OP, NumBits>, Value> const& atom) {
  using Traits = cute::Copy_Traits<TmaLoadWithoutPolicy<true>, NumBits>;
  return cute::Copy_Atom<Traits, Value>{Traits{atom.opargs_}};
}

// A TMA load with policy Hint, or with none for kNoL2Policy.
template <cute::TMA::CacheHintSm90 Hint, class Atom>
CUTE_HOST_DEVICE auto with_policy(Atom const& atom) {
  if constexpr (Hint == kNoL2Policy) {
    return without_policy(atom);
  } else {
    return atom;
  }
}

// The two mainloops whose load() this replaces (checked against CUTLASS 4.2's); any other fails to compile here.
template <class Policy>
inline constexpr bool kHintableMainloop = false;
template <int Stages, class Cluster, class Schedule>
inline constexpr bool kHintableMainloop<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized<Stages, Cluster, Schedule>> =
    true;
template <int Stages, class Cluster, class Schedule>
inline constexpr bool
    kHintableMainloop<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecializedFP8<Stages, Cluster, Schedule>> = true;

// A 2-D TMA load of one box with policy Hint (none for kNoL2Policy), coordinates innermost first.
template <cute::TMA::CacheHintSm90 Hint>
CUTE_DEVICE void load_box_2d(void const* desc, uint64_t* barrier, void* smem, int32_t inner, int32_t outer) {
  if constexpr (Hint == kNoL2Policy) {
    TmaLoadWithoutPolicy<false>::copy(desc, barrier, uint64_t(0), smem, inner, outer);
  } else {
    cute::SM90_TMA_LOAD_2D::copy(desc, barrier, static_cast<uint64_t>(Hint), smem, inner, outer);
  }
}

inline constexpr int kNoTailOperand = -1;

template <class Base, cute::TMA::CacheHintSm90 HintA, cute::TMA::CacheHintSm90 HintB,
          int TailOperand = kNoTailOperand, int KeepMiB = 0>
struct MainloopLoadHints : Base {
  static_assert(kHintableMainloop<typename Base::DispatchPolicy>,
                "load hints: the builder chose a mainloop whose producer load() this header does not know");

  // The token operand's tile in shared memory: its rows, its K, and the K of one 128-byte swizzle row (the fitted box
  // is one column of 128-byte rows; a tile of more K loads one such box per column).
  static constexpr bool kTail = TailOperand != kNoTailOperand;
  static constexpr bool kTailOnA = TailOperand == 0;
  using TailElement =
      std::conditional_t<kTailOnA, typename Base::TiledMma::ValTypeA, typename Base::TiledMma::ValTypeB>;
  using TailAtom = std::conditional_t<kTailOnA, typename Base::SmemLayoutAtomA, typename Base::SmemLayoutAtomB>;
  static constexpr int kTailRows = cute::size<kTailOnA ? 0 : 1>(typename Base::TileShape{});
  static constexpr int kTileK = cute::size<2>(typename Base::TileShape{});
  static constexpr int kAtomK = 128 / sizeof(TailElement);

  struct TailParams : Base::Params {
    cute::TmaDescriptor tail_desc;  // the token operand in boxes of (its rows % kTailRows) x kAtomK
    int tail_extent = 0;            // its rows; 0 where they fill the last tile (no box reaches past the end)
    int token_rows = 0;             // its rows (as its descriptors span them), whatever the last tile holds
  };
  using Params = std::conditional_t<kTail, TailParams, typename Base::Params>;

  template <class ProblemShape>
  static Params to_underlying_arguments(ProblemShape const& problem_shape, typename Base::Arguments const& args,
                                        void* workspace) {
    if constexpr (!kTail) {
      return Base::to_underlying_arguments(problem_shape, args, workspace);
    } else {
      static_assert(cute::sizeof_bits_v<TailElement> == 8 || cute::sizeof_bits_v<TailElement> == 16,
                    "tail loads: 8- and 16-bit token operands");
      static_assert(std::is_same_v<TailAtom, cute::GMMA::Layout_K_SW128_Atom<TailElement>>,
                    "tail loads: a K-major token operand in 128-byte swizzle atoms");
      static_assert(std::is_same_v<std::conditional_t<kTailOnA, typename Base::GmemTiledCopyA,
                                                      typename Base::GmemTiledCopyB>, cute::SM90_TMA_LOAD>,
                    "tail loads: a token operand that is not multicast");
      static_assert(kTileK % kAtomK == 0 && kTailRows <= 256,
                    "tail loads: whole swizzle columns, a box of <= 256 rows");
      TailParams p;
      static_cast<typename Base::Params&>(p) = Base::to_underlying_arguments(problem_shape, args, workspace);
      auto [M, N, K, L] = cute::append<4>(problem_shape, 1);
      int const rows = kTailOnA ? M : N;
      p.token_rows = rows;
      // A last tile that is full needs no second box.
      if (rows % kTailRows == 0 || L != 1) return p;
      void const* ptr = kTailOnA ? static_cast<void const*>(args.ptr_A) : static_cast<void const*>(args.ptr_B);
      int64_t const ld = kTailOnA ? cute::get<0>(args.dA) : cute::get<0>(args.dB);
      cuuint64_t dims[2] = {cuuint64_t(K), cuuint64_t(rows)};
      cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(TailElement)};
      cuuint32_t box[2] = {cuuint32_t(kAtomK), cuuint32_t(rows % kTailRows)};
      cuuint32_t unit[2] = {1, 1};
      // CuTe's settings for the mainloop's own descriptors: 128-byte L2 promotion, zero fill
      CUresult rc = cuTensorMapEncodeTiled(
          reinterpret_cast<CUtensorMap*>(&p.tail_desc),
          cute::TMA::to_CUtensorMapDataType<cute::uint_bit_t<cute::sizeof_bits_v<TailElement>>>(), 2,
          const_cast<void*>(ptr), dims, strides, box, unit, CU_TENSOR_MAP_INTERLEAVE_NONE,
          CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
      if (rc == CUDA_SUCCESS) p.tail_extent = rows;  // else every tile loads as CuTe does
      return p;
    }
  }

  CUTLASS_DEVICE static void prefetch_tma_descriptors(Params const& params) {
    Base::prefetch_tma_descriptors(params);
    if constexpr (kTail) {
      if (params.tail_extent) cute::prefetch_tma_descriptor(&params.tail_desc);
    }
  }

  // The signature the warp-specialized kernels call (the producer warp, one elected thread issues).
  template <class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(Params const& params, typename Base::MainloopPipeline pipeline,
                           typename Base::PipelineState write_state, cute::tuple<TensorA, TensorB> const& load_inputs,
                           BlockCoord const& blk_coord, KTileIterator k_tile_iter, int k_tile_count,
                           int /*thread_idx*/, uint32_t block_rank_in_cluster,
                           typename Base::TensorStorage& shared_tensors) {
    using namespace cute;
    if (!elect_one_sync()) return;
    using Cluster = typename Base::DispatchPolicy::ClusterShape;
    auto cluster_layout = Layout<Cluster>{};  // (m, n) in the cluster -> rank
    // This CTA's place in its cluster. The CTAs of one cluster row (same m) share A's tile, those of one column B's:
    // A is multicast along n, so its TMA slice is chosen by n, and B's by m.
    uint32_t const in_m = block_rank_in_cluster % size<0>(cluster_layout);
    uint32_t const in_n = block_rank_in_cluster / size<0>(cluster_layout);
    auto tma_a = params.tma_load_a.get_slice(in_n);
    auto tma_b = params.tma_load_b.get_slice(in_m);

    auto [m, n, k, l] = blk_coord;
    auto const hint_a = kept_hint<HintA, typename Base::ElementA>(get<0>(load_inputs), int(m), int(l));
    auto const hint_b = kept_hint<HintB, typename Base::ElementB>(get<1>(load_inputs), int(n), int(l));
    Tensor src_a = tma_a.partition_S(get<0>(load_inputs)(_, _, m, _, l));  // (TMA, TMA_M, TMA_K, k)
    Tensor src_b = tma_b.partition_S(get<1>(load_inputs)(_, _, n, _, l));  // (TMA, TMA_N, TMA_K, k)
    Tensor dst_a = tma_a.partition_D(
        make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), typename Base::SmemLayoutA{}));  // (..., PIPE)
    Tensor dst_b = tma_b.partition_D(
        make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), typename Base::SmemLayoutB{}));

    uint16_t mcast_a = 0, mcast_b = 0;  // the CTAs each load lands in (0: this one only)
    if constexpr (is_same_v<typename Base::GmemTiledCopyA, SM90_TMA_LOAD_MULTICAST>) {
      for (int j = 0; j < size<1>(cluster_layout); ++j) mcast_a |= uint16_t(1) << cluster_layout(in_m, j, Int<0>{});
    }
    if constexpr (is_same_v<typename Base::GmemTiledCopyB, SM90_TMA_LOAD_MULTICAST>) {
      for (int i = 0; i < size<0>(cluster_layout); ++i) mcast_b |= uint16_t(1) << cluster_layout(i, in_n, Int<0>{});
    }

    // With TailOperand, the last token tile loads its token operand in fitted boxes instead (load_fitted_tail), and a
    // tile wholly past the token rows none at all (skip_token_tile).
    int first_row = 0;
    bool fitted = false, past = false;
    if constexpr (kTail) {
      first_row = (kTailOnA ? int(m) : int(n)) * kTailRows;
      past = first_row >= params.token_rows;
      fitted = !past && first_row + kTailRows > params.tail_extent && params.tail_extent;
    }
    bool const own_tokens = fitted || past;  // the token operand's loads are this function's, not CuTe's
    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);  // wait until the consumers have released this stage
      auto* barrier = pipeline.producer_get_barrier(write_state);
      int const stage = write_state.index();
      if constexpr (kTail) {
        if (fitted) load_fitted_tail(params, barrier, stage, int(*k_tile_iter), first_row, shared_tensors);
        if (past) skip_token_tile(barrier);
      }
      if (!(own_tokens && kTailOnA)) {
        copy(with_policy<HintA>(params.tma_load_a.with(*barrier, mcast_a, hint_a)), src_a(_, _, _, *k_tile_iter),
             dst_a(_, _, _, stage));
      }
      if (!(own_tokens && !kTailOnA)) {
        copy(with_policy<HintB>(params.tma_load_b.with(*barrier, mcast_b, hint_b)), src_b(_, _, _, *k_tile_iter),
             dst_b(_, _, _, stage));
      }
    }
  }

 private:
  // Hint, or CuTe's EVICT_NORMAL where Hint is EVICT_FIRST and tile (of batch) lies within the operand's first KeepMiB.
  // tiles: the operand's tiles as load_init makes them, (rows, K of a tile, tiles, k tiles, batches) of Element.
  template <cute::TMA::CacheHintSm90 Hint, class Element, class Tiles>
  CUTE_DEVICE static cute::TMA::CacheHintSm90 kept_hint(Tiles const& tiles, int tile, int batch) {
    using cute::size;
    if constexpr (KeepMiB == 0 || Hint != cute::TMA::CacheHintSm90::EVICT_FIRST) {
      return Hint;
    } else {
      int64_t const tile_bytes = int64_t(size<0>(tiles)) * size<1>(tiles) * size<3>(tiles) *
                                 cute::sizeof_bits_v<Element> / 8;
      int64_t const through = (int64_t(batch) * size<2>(tiles) + tile + 1) * tile_bytes;
      return through <= (int64_t(KeepMiB) << 20) ? cute::TMA::CacheHintSm90::EVICT_NORMAL : Hint;
    }
  }

  // One stage of a tile wholly past the token rows: its token operand's bytes, which the producer's arrive expects,
  // are counted off the barrier and nothing is loaded. The stage keeps what an earlier tile left there; every row
  // of this tile is past the end, so the epilogue neither writes nor reduces its accumulators.
  CUTLASS_DEVICE static void skip_token_tile(uint64_t* barrier) {
    constexpr uint32_t kTileBytes = uint32_t(kTailRows) * kTileK * sizeof(TailElement);
    cutlass::arch::ClusterTransactionBarrier::complete_transaction(barrier, cute::block_rank_in_cluster(), kTileBytes);
  }

  // One stage of the last token tile's token operand: its rows from first_row to the operand's end, one box per
  // 128-byte column. The stage's transaction count was set for whole tiles by the producer's arrive; the bytes the
  // boxes do not bring are counted off it here.
  CUTLASS_DEVICE static void load_fitted_tail(Params const& params, uint64_t* barrier, int stage, int k_tile,
                                              int first_row, typename Base::TensorStorage& shared_tensors) {
    using namespace cute;
    // The token operand's stages, unswizzled: the TMA unit swizzles by the shared-memory address itself, so a box is
    // given its column's plain address. (CuTe's swizzled pointer into a stage differs from it wherever the operand
    // does not start on a 1024-byte boundary, which the epilogue's storage before it decides: probe run 148's
    // misaligned-address faults.)
    TailElement* const stages = [&] {
      if constexpr (kTailOnA)
        return shared_tensors.smem_A.data();
      else
        return shared_tensors.smem_B.data();
    }();
    auto const stage_layout =
        get_nonswizzle_portion(std::conditional_t<kTailOnA, typename Base::SmemLayoutA, typename Base::SmemLayoutB>{});
    uint32_t const unloaded = uint32_t(first_row + kTailRows - params.tail_extent) * 128 * (kTileK / kAtomK);
    cutlass::arch::ClusterTransactionBarrier::complete_transaction(barrier, block_rank_in_cluster(), unloaded);
    CUTLASS_PRAGMA_UNROLL
    for (int kk = 0; kk < kTileK / kAtomK; ++kk)
      load_box_2d<kTailOnA ? HintA : HintB>(&params.tail_desc, barrier, stages + stage_layout(0, kk * kAtomK, stage),
                                            k_tile * kTileK + kk * kAtomK, first_row);
  }
};

}  // namespace cutlassgen
