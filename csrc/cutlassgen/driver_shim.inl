// The few CUDA driver functions CUTLASS calls directly (TMA descriptor encoding; stream-K's workspace memset),
// resolved once through the runtime's driver entry point instead of linking libcuda. So a module loads on a machine
// without a driver (CI, build hosts), and a call pays no symbol look-up (CUTLASS's default wrapper looks the
// function up on every call). Included once per generated translation unit; hidden, so nothing outside sees them.
#include <cuda.h>

namespace cutlassgen::driver {
template <class Fn>
Fn resolve(const char* name, int version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &status) != cudaSuccess ||
      status != cudaDriverEntryPointSuccess)
    return nullptr;
  return reinterpret_cast<Fn>(fn);
}
}  // namespace cutlassgen::driver

#define CUTLASSGEN_DRIVER_FORWARD(NAME, VERSION, PARAMS, ARGS)                                       \
  extern "C" CUresult NAME PARAMS {                                                                  \
    static auto fn = cutlassgen::driver::resolve<decltype(&::NAME)>(#NAME, VERSION);        \
    return fn ? fn ARGS : CUDA_ERROR_NOT_FOUND;                                                      \
  }

CUTLASSGEN_DRIVER_FORWARD(cuTensorMapEncodeTiled, 12000,
    (CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* addr, const cuuint64_t* dim,
     const cuuint64_t* strides, const cuuint32_t* box, const cuuint32_t* elem_strides, CUtensorMapInterleave il,
     CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob),
    (map, type, rank, addr, dim, strides, box, elem_strides, il, sw, l2, oob))
CUTLASSGEN_DRIVER_FORWARD(cuMemsetD8Async, 3020, (CUdeviceptr d, unsigned char v, size_t n, CUstream s), (d, v, n, s))
CUTLASSGEN_DRIVER_FORWARD(cuMemsetD16Async, 3020, (CUdeviceptr d, unsigned short v, size_t n, CUstream s), (d, v, n, s))
CUTLASSGEN_DRIVER_FORWARD(cuMemsetD32Async, 3020, (CUdeviceptr d, unsigned int v, size_t n, CUstream s), (d, v, n, s))
CUTLASSGEN_DRIVER_FORWARD(cuGetErrorString, 6000, (CUresult e, const char** s), (e, s))

#undef CUTLASSGEN_DRIVER_FORWARD
