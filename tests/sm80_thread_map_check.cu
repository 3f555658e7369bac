// The sm80 path's epilogue thread map as CUTLASS computes it, for tests/test_validate.py to hold validate.py's port
// (sm80_epilogue_lanes) to: for each TILE(...) of the generated tiles.inc, one line of
// "tb_m tb_n warp_m warp_n bits per_access | access_width access_rows places threads", where places is the size of
// the EVT's thread layout (OutputTileThreadLayout::ThreadShape), which must hold every thread. Host code only.
#include <cstdio>

#include "cutlass/cutlass.h"
#include "cutlass/numeric_types.h"
#include "cutlass/numeric_conversion.h"
#include "cutlass/gemm/gemm.h"
#include "cutlass/epilogue/threadblock/default_thread_map_tensor_op.h"
#include "cutlass/epilogue/threadblock/fusion/visitors.hpp"

template <int TM, int TN, int WM, int WN, class Element, int PerAccess>
void report() {
  using Layout = cutlass::epilogue::threadblock::OutputTileThreadLayout<
      cutlass::gemm::GemmShape<TM, TN, 32>, cutlass::gemm::GemmShape<WM, WN, 32>, Element, PerAccess, 1>;
  int const places = cute::size(typename Layout::ThreadShape{});
  std::printf("%d %d %d %d %d %d | %d %d %d %d\n", TM, TN, WM, WN, cutlass::sizeof_bits<Element>::value, PerAccess,
              Layout::Detail::kAccessWidth, Layout::Detail::kAccessRows, places, (TM / WM) * (TN / WN) * 32);
}

int main() {
#define TILE(TM, TN, WM, WN, ELEMENT, PER) report<TM, TN, WM, WN, ELEMENT, PER>();
#include "tiles.inc"
  return 0;
}
