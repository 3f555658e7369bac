// The C ABI between a generated kernel translation unit and the shared pybind11 binding (csrc/binding.cpp).
// Keeping pybind11 out of the kernel TU lets ninja compile the two in parallel and keeps nvcc's work small.
#pragma once
#include <cstddef>
#include <cstdint>

extern "C" {

struct cg_problem {
  int64_t m, n, k;
  int64_t lda, ldb, ldc, ldd;   // leading dimensions (the non-unit stride) of A, B, C, D
  const void* a;
  const void* b;
  const void* c;                // nullptr when the spec has no C
  void* d;
  const void* const* ptrs;      // epilogue tensors in the slot order lowering chose
  const float* scalars;         // epilogue scalars given as numbers, same slot order
  int n_ptrs, n_scalars;
  int64_t aux_ld;               // leading dimension of the aux output, if any
  void* workspace;
  size_t workspace_bytes;
  void* stream;                 // cudaStream_t
  int64_t a_rows_readable;      // rows of A the caller's buffer holds from its start, >= m (sm90 loads may read up to
                                // the last M tile's end there instead of past A's end); 0 or m: only A's m rows
};

// Status codes; the message buffer says more.
enum { CG_OK = 0, CG_INVALID = 1, CG_LAUNCH_FAILED = 2, CG_WRONG_ARCH = 3 };

int cg_run(const cg_problem* p, char* msg, size_t msg_len);
int cg_can_implement(const cg_problem* p, char* msg, size_t msg_len);
size_t cg_workspace_size(const cg_problem* p);
const char* cg_spec_json();
int cg_target_arch();   // e.g. 90 for sm_90a, 80 for sm_80
// What the compiled kernel fixed that the spec leaves to CUTLASS: the dynamic shared memory a CTA launches with and
// the pipeline depths, as JSON ({"smem_bytes", "mainloop_stages"[, "epilogue_stages_c", "epilogue_stages_d"]}).
const char* cg_pipeline_json();
// The kernel-parameter cache of a 3.x kernel (params_cache.hpp): calls that reused an earlier call's parameters,
// calls that encoded their own, the problems held now and at most; all 0 for a 2.x kernel, which caches none.
void cg_params_cache_stats(uint64_t* hits, uint64_t* misses, uint64_t* entries, uint64_t* capacity);
}
