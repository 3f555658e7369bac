// Shared by every generated kernel translation unit: includes, the ABI, and small host helpers.
#pragma once
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>

// CUTLASS then calls the driver functions that driver_shim.inl defines, instead of looking them up per call.
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL 1

#include "cute/tensor.hpp"
#include "cutlass/cutlass.h"
#include "cutlass/numeric_types.h"
#include "cutlass/gemm/device/gemm_universal_adapter.h"
#include "cutlass/util/packed_stride.hpp"

#include "cutlassgen/abi.h"
#include "cutlassgen/auto_swizzle.hpp"
#include "cutlassgen/epilogue_ops.hpp"

namespace cutlassgen {

// Whether T is an instance of Policy, a mainloop dispatch policy <Stages, ClusterShape, Schedule>: the mainloop
// wrappers (narrow_tma.hpp, full_promotion.hpp, overlapped_promotion.hpp) check which CUTLASS collective the builder
// gave them.
template <template <int, class, class> class Policy, class T>
inline constexpr bool kIsPolicy = false;
template <template <int, class, class> class Policy, int Stages, class Cluster, class Schedule>
inline constexpr bool kIsPolicy<Policy, Policy<Stages, Cluster, Schedule>> = true;

// A CuTe stride for a (rows, cols, batch) matrix with one unit mode and one leading dimension:
// set whichever of the first two modes is dynamic to ld. The batch stride stays 0 (one GEMM per call).
template <class Stride>
Stride make_stride_ld(int64_t ld) {
  Stride s{};
  if constexpr (cute::is_static_v<cute::remove_cvref_t<decltype(cute::get<0>(s))>>) {
    cute::get<1>(s) = ld;
  } else {
    cute::get<0>(s) = ld;
  }
  return s;
}

inline int report(char* msg, size_t len, int code, const char* fmt, const char* detail) {
  if (msg && len) std::snprintf(msg, len, fmt, detail);
  return code;
}

// The device the caller's stream runs on must be the arch the binary holds code for.
inline int check_device_arch(int target, char* msg, size_t len) {
  static int cc_of[64] = {0};  // per device: the attribute queries cost more than the launch's own checks
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return report(msg, len, CG_LAUNCH_FAILED, "%s", "cudaGetDevice failed");
  if (dev >= 0 && dev < 64 && cc_of[dev]) {
    major = cc_of[dev] / 10;
    minor = cc_of[dev] % 10;
  } else {
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (dev >= 0 && dev < 64) cc_of[dev] = major * 10 + minor;
  }
  int cc = major * 10 + minor;
  bool ok = (target == 90) ? (cc == 90) : (major == target / 10 && minor >= target % 10);
  if (!ok) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "this kernel holds code for sm_%d%s but GPU %d is sm_%d; rebuild with arch=%d",
                  target, target == 90 ? "a" : "", dev, cc, cc);
    return report(msg, len, CG_WRONG_ARCH, "%s", buf);
  }
  return CG_OK;
}

inline int sm_count_of_current_device() {
  static int cached[64] = {0};
  int dev = 0;
  cudaGetDevice(&dev);
  if (dev < 0 || dev >= 64) return cutlass::KernelHardwareInfo::query_device_multiprocessor_count(dev);
  if (!cached[dev]) cached[dev] = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(dev);
  return cached[dev];
}

}  // namespace cutlassgen
