#pragma once
// The builder's sm90 TMA epilogue with another FragmentSize: how many accumulator values the epilogue visits at once.
//
// CUTLASS 4.2's builder sets FragmentSize to all of a thread's values in one epilogue subtile, and the collective
// asserts that this divides the thread's values in one stmatrix tile of the CTA ("Fragment size does not vectorize
// properly"). At CTA N = 80, 112, 144, ... that count is 8, so the builder only compiles a 16-wide subtile there,
// and five or more subtiles per tile ran slower (bench/results/h200_tile_probe.log, run 54). The visit loop itself
// takes any FragmentSize that divides both counts; cutlassgen/tiles.py (sm90_epilogue_fragment) picks it.
#include "cutlass/epilogue/collective/collective_builder.hpp"

namespace cutlassgen {

template <class BuiltEpilogue, int FragmentSize>
struct WithFragmentSizeImpl;

template <int StagesC, int StagesD, int BuiltFragmentSize, bool ReuseSmemC, bool DelayTmaStore, class... Rest,
          int FragmentSize>
struct WithFragmentSizeImpl<
    cutlass::epilogue::collective::CollectiveEpilogue<
        cutlass::epilogue::Sm90TmaWarpSpecialized<StagesC, StagesD, BuiltFragmentSize, ReuseSmemC, DelayTmaStore>,
        Rest...>,
    FragmentSize> {
  using type = cutlass::epilogue::collective::CollectiveEpilogue<
      cutlass::epilogue::Sm90TmaWarpSpecialized<StagesC, StagesD, FragmentSize, ReuseSmemC, DelayTmaStore>, Rest...>;
};

template <class BuiltEpilogue, int FragmentSize>
using WithFragmentSize = typename WithFragmentSizeImpl<BuiltEpilogue, FragmentSize>::type;

}  // namespace cutlassgen
