#pragma once
// An sm90 mainloop collective whose TMA loads of A and B carry L2 eviction policies.
//
// CUTLASS 4.2's warp-specialized mainloops (MainloopSm90TmaGmmaWarpSpecialized and its FP8 form) issue every tile load
// with CuTe's default policy, EVICT_NORMAL, and take no policy from outside. MainloopLoadHints<Base, HintA, HintB> is
// the builder's collective with one member replaced: the producer warp's load(), which issues the same loads in the
// same order on the same pipeline, with HintA on A's and HintB on B's. Everything else (shared storage, Params, the
// consumer's mma(), load_tail()) is Base's, so the kernel is the builder's kernel apart from that one operand.
// Which operand gets which policy is decided in Python (cutlassgen/lower.py, LOAD_HINTS).
#include "cute/arch/copy_sm90_desc.hpp"
#include "cute/arch/copy_sm90_tma.hpp"
#include "cute/tensor.hpp"

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

template <class Base, cute::TMA::CacheHintSm90 HintA, cute::TMA::CacheHintSm90 HintB>
struct MainloopLoadHints : Base {
  static_assert(kHintableMainloop<typename Base::DispatchPolicy>,
                "load hints: the builder chose a mainloop whose producer load() this header does not know");

  // The signature the warp-specialized kernels call (the producer warp, one elected thread issues).
  template <class TensorA, class TensorB, class KTileIterator, class BlockCoord>
  CUTLASS_DEVICE void load(typename Base::Params const& params, typename Base::MainloopPipeline pipeline,
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

    CUTLASS_PRAGMA_NO_UNROLL
    for (; k_tile_count > 0; --k_tile_count, ++k_tile_iter, ++write_state) {
      pipeline.producer_acquire(write_state);  // wait until the consumers have released this stage
      auto* barrier = pipeline.producer_get_barrier(write_state);
      int const stage = write_state.index();
      copy(with_policy<HintA>(params.tma_load_a.with(*barrier, mcast_a, HintA)), src_a(_, _, _, *k_tile_iter),
           dst_a(_, _, _, stage));
      copy(with_policy<HintB>(params.tma_load_b.with(*barrier, mcast_b, HintB)), src_b(_, _, _, *k_tile_iter),
           dst_b(_, _, _, stage));
    }
  }
};

}  // namespace cutlassgen
