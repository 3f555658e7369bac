// The pybind11 face of every generated kernel: the same file for all of them, linked beside the kernel's object.
// Arguments arrive as integers (device pointers, strides) that the Python runtime checked; this layer only
// translates the C ABI's status codes into Python exceptions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cutlassgen/abi.h"

namespace py = pybind11;

namespace {

cg_problem make_problem(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc, int64_t ldd,
                        uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, const std::vector<uintptr_t>& ptrs,
                        const std::vector<float>& scalars, int64_t aux_ld, uintptr_t workspace,
                        size_t workspace_bytes, uintptr_t stream, int64_t a_rows_readable = 0) {
  cg_problem p{};
  p.m = m; p.n = n; p.k = k; p.lda = lda; p.ldb = ldb; p.ldc = ldc; p.ldd = ldd;
  p.a = reinterpret_cast<const void*>(a);
  p.b = reinterpret_cast<const void*>(b);
  p.c = reinterpret_cast<const void*>(c);
  p.d = reinterpret_cast<void*>(d);
  p.ptrs = reinterpret_cast<const void* const*>(ptrs.data());
  p.scalars = scalars.data();
  p.n_ptrs = static_cast<int>(ptrs.size());
  p.n_scalars = static_cast<int>(scalars.size());
  p.aux_ld = aux_ld;
  p.workspace = reinterpret_cast<void*>(workspace);
  p.workspace_bytes = workspace_bytes;
  p.stream = reinterpret_cast<void*>(stream);
  p.a_rows_readable = a_rows_readable;
  return p;
}

void raise_for(int code, const char* msg) {
  if (code == CG_OK) return;
  if (code == CG_INVALID || code == CG_WRONG_ARCH) throw py::value_error(msg);
  throw std::runtime_error(msg);
}

}  // namespace

PYBIND11_MODULE(CUTLASSGEN_MODULE_NAME, m) {
  m.doc() = "A cutlassgen kernel. Call it through cutlassgen.build(spec), which checks the arguments.";
  m.def("run",
        [](int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc, int64_t ldd, uintptr_t a,
           uintptr_t b, uintptr_t c, uintptr_t d, const std::vector<uintptr_t>& ptrs,
           const std::vector<float>& scalars, int64_t aux_ld, uintptr_t workspace, size_t workspace_bytes,
           uintptr_t stream, int64_t a_rows_readable) {
          cg_problem p = make_problem(M, N, K, lda, ldb, ldc, ldd, a, b, c, d, ptrs, scalars, aux_ld, workspace,
                                      workspace_bytes, stream, a_rows_readable);
          char msg[512] = {0};
          int code;
          {
            py::gil_scoped_release release;
            code = cg_run(&p, msg, sizeof msg);
          }
          raise_for(code, msg);
        });
  // Both take the call's epilogue pointers and scalars: the arguments CUTLASS builds read them.
  m.def("can_implement", [](int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc, int64_t ldd,
                            const std::vector<uintptr_t>& ptrs, const std::vector<float>& scalars) {
    cg_problem p = make_problem(M, N, K, lda, ldb, ldc, ldd, 0, 0, 0, 0, ptrs, scalars, 0, 0, 0, 0);
    char msg[512] = {0};
    int code = cg_can_implement(&p, msg, sizeof msg);
    return code == CG_OK ? std::string() : std::string(msg);
  });
  m.def("workspace_size", [](int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb, int64_t ldc, int64_t ldd,
                             const std::vector<uintptr_t>& ptrs, const std::vector<float>& scalars) {
    cg_problem p = make_problem(M, N, K, lda, ldb, ldc, ldd, 0, 0, 0, 0, ptrs, scalars, 0, 0, 0, 0);
    return cg_workspace_size(&p);
  });
  m.def("spec_json", []() { return std::string(cg_spec_json()); });
  m.def("target_arch", []() { return cg_target_arch(); });
  m.def("pipeline_json", []() { return std::string(cg_pipeline_json()); });
  m.def("params_cache_stats", []() {
    uint64_t hits = 0, misses = 0, entries = 0, capacity = 0;
    cg_params_cache_stats(&hits, &misses, &entries, &capacity);
    return py::dict(py::arg("hits") = hits, py::arg("misses") = misses, py::arg("entries") = entries,
                    py::arg("capacity") = capacity);
  });
}
