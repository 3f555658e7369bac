// How many accumulator values a thread holds in one stmatrix tile of an sm90 CTA, by CTA N: size<0>(tRS_rAcc) in
// CUTLASS 4.2's TMA warp-specialized epilogue (sm90_epilogue_tma_warpspecialized.hpp), computed on the host with the
// same CuTe calls. The epilogue's builder visits a thread's whole subtile at once (FragmentSize = subtile N / 2 per
// 64 rows) and asserts that this divides the count ("Fragment size does not vectorize properly").
//
// As cutlassgen builds its kernels (wgmma's extended shapes enabled where CTA N needs them, cutlassgen/arch.py
// WGMMA_BASE_N) the count is CTA N / 2 for every CTA N, so every subtile that divides CTA N vectorizes. Without the
// define below CuTe splits CTA N = 80, 112, 144, ... into m64n16k16 instructions, the count falls to 8 there, and only
// 16-wide subtiles compiled (session 21's "Fragment size" failures at 64x80 and 64x112 subtiles).
//
// Build and run (no GPU needed; about 2-3 minutes on 2 cores):
//   INC=$(python -c "import cutlass_library, os; print(os.path.dirname(cutlass_library.__file__))")/source/include
//   nvcc -std=c++17 -I$INC -o /tmp/epilogue_fragment bench/epilogue_fragment.cu && /tmp/epilogue_fragment
#include <cstdio>

// cutlassgen defines this for every CTA N outside wgmma's base shapes; the others pick the same instruction either way.
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED

#include <cute/tensor.hpp>  // first: the CUDA typedefs the atoms below need
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/copy_traits_sm90.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/bfloat16.h>
#include <cutlass/float8.h>
#include <cutlass/half.h>

using namespace cute;

// The epilogue's retile of the accumulators for a CTA of CtaM x CtaN (K = 64, bf16 operands), Coop: two consumer
// warpgroups split M; ElementD: the output; MMajorD: the output stored M-major (swap_ab's D^T).
template <int CtaM, int CtaN, bool Coop, class ElementD, bool MMajorD>
int stsm_tile_values() {
  using AtomLayout = conditional_t<Coop, Layout<Shape<_2, _1, _1>>, Layout<Shape<_1, _1, _1>>>;
  constexpr int AtomM = Coop ? CtaM / 2 : CtaM;
  auto tiled_mma = make_tiled_mma(GMMA::ss_op_selector<cutlass::bfloat16_t, cutlass::bfloat16_t, float,
                                                       Shape<Int<AtomM>, Int<CtaN>, _64>, GMMA::Major::K,
                                                       GMMA::Major::K>(),
                                  AtomLayout{});
  // The builder's choices (epilogue/collective/builders/sm90_builder.inl, sm90_common.inl) for a subtile N that is
  // a multiple of 16, which the builder requires.
  using CopyAtomC = Copy_Atom<SM90_U32x4_STSM_N, cutlass::half_t>;
  using CopyOpR2S = conditional_t<sizeof(ElementD) != 2, AutoVectorizingCopyWithAssumedAlignment<128>,
                                  conditional_t<MMajorD, SM90_U16x8_STSM_T, SM90_U32x4_STSM_N>>;
  auto tiled_copy_c = make_tiled_copy_C_atom(CopyAtomC{}, tiled_mma);
  auto tiled_r2s = make_tiled_copy_S(Copy_Atom<CopyOpR2S, ElementD>{}, tiled_copy_c);
  auto accumulators = partition_fragment_C(tiled_mma, Shape<Int<CtaM>, Int<CtaN>>{});
  return int(size<0>(tiled_r2s.get_slice(0).retile_S(accumulators)));
}

template <int CtaN>
void row() {
  int const v[] = {stsm_tile_values<64, CtaN, false, cutlass::bfloat16_t, false>(),
                   stsm_tile_values<64, CtaN, false, cutlass::bfloat16_t, true>(),
                   stsm_tile_values<128, CtaN, true, cutlass::bfloat16_t, true>(),
                   stsm_tile_values<256, CtaN, true, float, false>(),
                   stsm_tile_values<128, CtaN, false, cutlass::float_e4m3_t, false>()};
  bool same = true;
  for (int x : v) same = same && x == v[0];
  std::printf("CTA N %3d: %3d%s\n", CtaN, v[0], same ? "" : "  (differs between CTA M, schedule or output!)");
}

template <int... I>
void rows(std::integer_sequence<int, I...>) { (row<16 * (I + 1)>(), ...); }

int main() {
  std::printf("values a thread holds in one stmatrix tile (64-row pingpong bf16 N- and M-major, 128-row cooperative "
              "bf16 M-major, 256-row cooperative fp32 and 128-row pingpong fp8 agree unless marked)\n");
  rows(std::make_integer_sequence<int, 16>{});
}
