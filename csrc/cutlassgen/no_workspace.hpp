// The host-side hooks CUTLASS's kernels call on an epilogue collective or an EVT node, for one that needs no workspace
// and can run any problem its kernel can: inherit them (bulk_broadcast.hpp, direct_store.hpp).
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cutlass/cuda_host_adapter.hpp"
#include "cutlass/cutlass.h"

namespace cutlassgen {

struct NoWorkspace {
  template <class ProblemShape, class Arguments>
  static bool can_implement(ProblemShape const&, Arguments const&) {
    return true;
  }

  template <class ProblemShape, class Arguments>
  static size_t get_workspace_size(ProblemShape const&, Arguments const&) {
    return 0;
  }

  template <class ProblemShape, class Arguments>
  static cutlass::Status initialize_workspace(ProblemShape const&, Arguments const&, void*, cudaStream_t,
                                             cutlass::CudaHostAdapter* = nullptr) {
    return cutlass::Status::kSuccess;
  }
};

}  // namespace cutlassgen
