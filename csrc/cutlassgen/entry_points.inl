// The C ABI (abi.h) implemented over a generated translation unit's `Gemm` adapter and `make_arguments`.
// Included at the end of each generated source, after CUTLASSGEN_TARGET_ARCH and CUTLASSGEN_SPEC_JSON are defined.
#include "cutlassgen/driver_shim.inl"

extern "C" {

int cg_target_arch() { return CUTLASSGEN_TARGET_ARCH; }
const char* cg_spec_json() { return CUTLASSGEN_SPEC_JSON; }

size_t cg_workspace_size(const cg_problem* p) { return Gemm::get_workspace_size(make_arguments(*p)); }

int cg_can_implement(const cg_problem* p, char* msg, size_t len) {
  cutlass::Status st = Gemm::can_implement(make_arguments(*p));
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_INVALID, "CUTLASS cannot run this problem: %s", cutlassGetStatusString(st));
  return CG_OK;
}

int cg_run(const cg_problem* p, char* msg, size_t len) {
  if (int rc = cutlassgen::check_device_arch(CUTLASSGEN_TARGET_ARCH, msg, len)) return rc;
  auto args = make_arguments(*p);
  cutlass::Status st = Gemm::can_implement(args);
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_INVALID, "CUTLASS cannot run this problem: %s", cutlassGetStatusString(st));
  if (Gemm::get_workspace_size(args) > p->workspace_bytes)
    return cutlassgen::report(msg, len, CG_INVALID, "%s", "workspace smaller than workspace_size()");
  Gemm gemm;
  st = gemm(args, p->workspace, static_cast<cudaStream_t>(p->stream));
  if (st != cutlass::Status::kSuccess)
    return cutlassgen::report(msg, len, CG_LAUNCH_FAILED, "kernel launch failed: %s", cutlassGetStatusString(st));
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess)
    return cutlassgen::report(msg, len, CG_LAUNCH_FAILED, "kernel launch failed: %s", cudaGetErrorString(err));
  return CG_OK;
}

}  // extern "C"
