// The C ABI (abi.h) implemented over a generated translation unit's `Gemm` adapter and `make_arguments`.
// Included at the end of each generated source, after CUTLASSGEN_TARGET_ARCH and CUTLASSGEN_SPEC_JSON are defined.
#include <cstdio>
#include <string>
#include <type_traits>

#include "cutlassgen/driver_shim.inl"
#include "cutlassgen/params_cache.hpp"

namespace cutlassgen {

// The helpers below are templates over the kernel so that `if constexpr` discards the 3.x-only code for 2.x kernels.
template <class Kernel>
constexpr bool is_cutlass3 = cutlass::gemm::detail::IsCutlass3GemmKernel<Kernel>::value;

#if defined(CUTLASSGEN_SPLIT_DEVICE)
// Split build (sm90): the kernel was compiled alone into a cubin (device_part.inl) that the build embeds in this
// module (cubin_embed.S); this translation unit holds only host code, so nvcc's host passes run beside the device
// compile instead of after it. The cubin loads once per process as a context-independent CUDA library.
extern "C" __attribute__((visibility("hidden"))) const char cutlassgen_cubin_start[];

inline cudaError_t kernel_handle(void const** fn) {
  static cudaKernel_t kernel = nullptr;
  static cudaError_t status = [] {
    cudaLibrary_t library = nullptr;
    cudaError_t err = cudaLibraryLoadData(&library, cutlassgen_cubin_start, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if (err == cudaSuccess) err = cudaLibraryGetKernel(&kernel, library, "cutlassgen_gemm_kernel");
    if (err != cudaSuccess) cudaGetLastError();
    return err;
  }();
  *fn = reinterpret_cast<void const*>(kernel);
  return status;
}
#else
template <class Kernel>
cudaError_t kernel_handle_of(void const** fn) {
  *fn = reinterpret_cast<void const*>(cutlass::device_kernel<Kernel>);
  return cudaSuccess;
}
#endif

// The launch attribute for a 3.x kernel's cluster shape: the occupancy query and the launch must agree on it.
template <class Kernel>
cudaLaunchAttribute cluster_dim_attribute() {
  using Cluster = typename Kernel::DispatchPolicy::ClusterShape;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = cute::size<0>(Cluster{});
  attr.val.clusterDim.y = cute::size<1>(Cluster{});
  attr.val.clusterDim.z = cute::size<2>(Cluster{});
  return attr;
}

// One-time, per-device set-up of a 3.x kernel: allow its dynamic shared memory (the adapter would call
// cudaFuncSetAttribute on every launch) and ask how many of its clusters fit on the device at once, so that the
// persistent scheduler sizes its grid to one wave of co-resident clusters.
struct DeviceSetup {
  int status = -1;  // -1: not yet done; else the cudaError_t of the set-up
  int max_active_clusters = 0;
  void const* kernel = nullptr;  // what cudaLaunchKernelExC launches (3.x kernels)
};

template <class Kernel>
DeviceSetup const& device_setup(int dev) {
  static DeviceSetup per_device[64];
  static DeviceSetup out_of_range;
  DeviceSetup& s = (dev >= 0 && dev < 64) ? per_device[dev] : out_of_range;
  if (s.status >= 0) return s;
  if constexpr (is_cutlass3<Kernel>) {
    void const* fn = nullptr;
#if defined(CUTLASSGEN_SPLIT_DEVICE)
    cudaError_t err = kernel_handle(&fn);
#else
    cudaError_t err = kernel_handle_of<Kernel>(&fn);
#endif
    s.kernel = fn;
    int smem = Kernel::SharedStorageSize;
    if (err == cudaSuccess && smem >= (48 << 10))
      err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (err == cudaSuccess) {
      cudaLaunchAttribute attr[1] = {cluster_dim_attribute<Kernel>()};
      cudaLaunchConfig_t cfg{};
      cfg.gridDim = dim3(attr[0].val.clusterDim.x, attr[0].val.clusterDim.y, attr[0].val.clusterDim.z);
      cfg.blockDim = dim3(Kernel::MaxThreadsPerBlock, 1, 1);
      cfg.dynamicSmemBytes = smem;
      cfg.attrs = attr;
      cfg.numAttrs = 1;
      int clusters = 0;
      // A failed query only loses the tighter grid: the scheduler falls back to its own estimate.
      if (cudaOccupancyMaxActiveClusters(&clusters, fn, &cfg) != cudaSuccess) {
        cudaGetLastError();
        clusters = 0;
      }
      s.max_active_clusters = clusters;
    } else {
      cudaGetLastError();  // clear it, so that the next CUDA call does not report it
    }
    s.status = static_cast<int>(err);
  } else {
    s.status = 0;  // the 2.x adapter caches its own per-device attributes
  }
  return s;
}

inline int current_device() {
  int dev = 0;
  cudaGetDevice(&dev);
  return dev;
}

// make_arguments plus what the device set-up learned. Every entry point uses it, so that the workspace size asked
// before a call is the one the call needs.
template <class Kernel, class Args>
void add_device_setup(Args& args) {
  if constexpr (is_cutlass3<Kernel>)
    args.hw_info.max_active_clusters = device_setup<Kernel>(current_device()).max_active_clusters;
}

template <class Kernel>
auto arguments_for(cg_problem const& p) {
  auto args = make_arguments(p);
  add_device_setup<Kernel>(args);
  return args;
}

// The kernel's parameters for one call: what the adapter's initialize() encodes.
template <class Kernel, class Args>
typename Kernel::Params encode_params(Args const& args, cg_problem const& p) {
  auto params = Kernel::to_underlying_arguments(args, p.workspace);
#ifdef CUTLASSGEN_MAINLOOP_EXTENT
  // Rows of A past M that the caller's buffer holds: the mainloop's descriptors span them (the sm90 template says
  // why); the epilogue's and the scheduler's parameters stay the problem's.
  if (p.a_rows_readable > p.m)
    params.mainloop = Kernel::CollectiveMainloop::to_underlying_arguments(CUTLASSGEN_MAINLOOP_EXTENT(p),
                                                                          args.mainloop, p.workspace);
#endif
  return params;
}

template <class Kernel>
ParamsCache<typename Kernel::Params>& params_cache() {
  static ParamsCache<typename Kernel::Params> cache;
  return cache;
}

// The adapter's initialize() and run(), minus the per-call cudaFuncSetAttribute for 3.x kernels (done once above).
template <class Kernel, class Adapter, class Args>
cutlass::Status launch(Args const& args, cg_problem const& p, char* msg, size_t len, int* code) {
  auto stream = static_cast<cudaStream_t>(p.stream);
  if constexpr (is_cutlass3<Kernel>) {
    int const device = current_device();
    DeviceSetup const& setup = device_setup<Kernel>(device);
    if (setup.status) {
      *code = report(msg, len, CG_LAUNCH_FAILED, "cannot load the kernel or set its shared memory size: %s",
                     cudaGetErrorString(static_cast<cudaError_t>(setup.status)));
      return cutlass::Status::kErrorInternal;
    }
    // Per call, hit or miss: stream-K's and split-K's workspace must be reset before every launch.
    cutlass::Status st = Kernel::initialize_workspace(args, p.workspace, stream, nullptr);
    if (st != cutlass::Status::kSuccess) return st;
    auto params = params_cache<Kernel>().get(p, device, [&] { return encode_params<Kernel>(args, p); });
    // The launch the adapter's run() makes, through the handle set up above (the cubin's kernel when split).
    cudaLaunchAttribute attr[2];
    unsigned n_attrs = 0;
    if (cute::size(typename Kernel::DispatchPolicy::ClusterShape{}) > 1)
      attr[n_attrs++] = cluster_dim_attribute<Kernel>();
#ifdef CUTLASS_ENABLE_GDC_FOR_SM90
    // Sm90Tile.pdl: the kernel waits on the previous grid itself (griddepcontrol.wait), so it may be scheduled early.
    attr[n_attrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[n_attrs].val.programmaticStreamSerializationAllowed = 1;
    ++n_attrs;
#endif
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = Kernel::get_grid_shape(params);
    cfg.blockDim = Kernel::get_block_shape();
    cfg.dynamicSmemBytes = Kernel::SharedStorageSize;
    cfg.stream = stream;
    cfg.attrs = attr;
    cfg.numAttrs = n_attrs;
    void* kernel_args[] = {&params};
    cudaError_t err = cudaLaunchKernelExC(&cfg, setup.kernel, kernel_args);
    if (err != cudaSuccess) {
      cudaGetLastError();
      *code = report(msg, len, CG_LAUNCH_FAILED, "kernel launch failed: %s", cudaGetErrorString(err));
      return cutlass::Status::kErrorInternal;
    }
    return cutlass::Status::kSuccess;
  } else {
    Adapter gemm;
    return gemm(args, p.workspace, stream);
  }
}

// The epilogue's C and D buffer stages, where its dispatch policy has them (the TMA epilogues; 0 otherwise).
template <class Policy, class = void>
struct epilogue_stages {
  static constexpr int c = 0, d = 0;
};
template <class Policy>
struct epilogue_stages<Policy, std::void_t<decltype(Policy::StagesC), decltype(Policy::StagesD)>> {
  static constexpr int c = Policy::StagesC, d = Policy::StagesD;
};

template <class Kernel>
std::string pipeline_json() {
  char buf[160];
  if constexpr (is_cutlass3<Kernel>) {
    using Epilogue = epilogue_stages<typename Kernel::CollectiveEpilogue::DispatchPolicy>;
    std::snprintf(buf, sizeof buf,
                  "{\"smem_bytes\": %d, \"mainloop_stages\": %d, \"epilogue_stages_c\": %d, \"epilogue_stages_d\": %d}",
                  static_cast<int>(Kernel::SharedStorageSize), static_cast<int>(Kernel::DispatchPolicy::Stages),
                  Epilogue::c, Epilogue::d);
  } else {  // 2.x: the mainloop's and the epilogue's shared memory are a union
    std::snprintf(buf, sizeof buf, "{\"smem_bytes\": %d, \"mainloop_stages\": %d}",
                  static_cast<int>(sizeof(typename Kernel::SharedStorage)), static_cast<int>(Kernel::Mma::kStages));
  }
  return buf;
}

}  // namespace cutlassgen

extern "C" {

int cg_target_arch() { return CUTLASSGEN_TARGET_ARCH; }
const char* cg_spec_json() { return CUTLASSGEN_SPEC_JSON; }
const char* cg_pipeline_json() {
  static const std::string json = cutlassgen::pipeline_json<GemmKernel>();
  return json.c_str();
}

size_t cg_workspace_size(const cg_problem* p) {
  return Gemm::get_workspace_size(cutlassgen::arguments_for<GemmKernel>(*p));
}

int cg_can_implement(const cg_problem* p, char* msg, size_t len) {
  cutlass::Status st = Gemm::can_implement(cutlassgen::arguments_for<GemmKernel>(*p));
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_INVALID, "CUTLASS cannot run this problem: %s", cutlassGetStatusString(st));
  return CG_OK;
}

void cg_params_cache_stats(uint64_t* hits, uint64_t* misses, uint64_t* entries, uint64_t* capacity) {
  cutlassgen::ParamsCacheStats s;
  if constexpr (cutlassgen::is_cutlass3<GemmKernel>) s = cutlassgen::params_cache<GemmKernel>().stats();
  *hits = s.hits;
  *misses = s.misses;
  *entries = s.entries;
  *capacity = s.capacity;
}

int cg_run(const cg_problem* p, char* msg, size_t len) {
  if (int rc = cutlassgen::check_device_arch(CUTLASSGEN_TARGET_ARCH, msg, len)) return rc;
  auto args = cutlassgen::arguments_for<GemmKernel>(*p);
  cutlass::Status st = Gemm::can_implement(args);
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_INVALID, "CUTLASS cannot run this problem: %s", cutlassGetStatusString(st));
  if (Gemm::get_workspace_size(args) > p->workspace_bytes)
    return cutlassgen::report(msg, len, CG_INVALID, "%s", "workspace smaller than workspace_size()");
  int code = CG_OK;
  st = cutlassgen::launch<GemmKernel, Gemm>(args, *p, msg, len, &code);
  if (code != CG_OK) return code;
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_LAUNCH_FAILED, "kernel launch failed: %s", cutlassGetStatusString(st));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return cutlassgen::report(msg, len, CG_LAUNCH_FAILED, "kernel launch failed: %s", cudaGetErrorString(err));
  return CG_OK;
}

}  // extern "C"
