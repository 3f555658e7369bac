// Kernel parameters of recent calls, reused by a later call that passes the same problem on the same device.
// Encoding them (CuTe builds each TMA descriptor: A, B, C, D, aux, the fitted last token box, through
// cuTensorMapEncodeTiled; the scheduler's and the epilogue's parameters) cost a call +1.14 us of host time over
// launching cached ones on the H200 machine (bench/host_overhead.py, session 52). An inference loop calls a kernel
// with the same few (pointers, shape, scalars) over and over, so those calls launch what the first one encoded.
// The key holds everything the parameters are made of: every field of the problem the caller passed (pointers,
// extents, leading dimensions, the epilogue's pointers and scalar values, the workspace) and the device, whose SM
// and co-resident cluster counts the scheduler sizes its grid by. A hit therefore launches exactly what a miss would
// have encoded; the data behind the pointers is read on the GPU.
#pragma once
#include <cstdint>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "cutlassgen/abi.h"

namespace cutlassgen {

// cg_problem's fields, but for the stream (launch-time only) and the two arrays' pointers (their contents join).
static_assert(sizeof(cg_problem) == 152, "a field added to cg_problem must join ParamsKey too");

struct ParamsKey {
  static constexpr int kMaxPtrs = 16, kMaxScalars = 16;  // a chain with more is not cached (none in the suite has)
  int64_t device, n_ptrs, n_scalars;
  int64_t m, n, k, lda, ldb, ldc, ldd, aux_ld, a_rows_readable;
  uint64_t a, b, c, d, workspace, workspace_bytes;
  uint64_t ptrs[kMaxPtrs];
  float scalars[kMaxScalars];

  // False when the problem does not fit the key (then the call encodes its parameters and caches nothing).
  bool assign(cg_problem const& p, int dev) {
    std::memset(this, 0, sizeof *this);  // padding and unused slots compare equal
    if (p.n_ptrs < 0 || p.n_ptrs > kMaxPtrs || p.n_scalars < 0 || p.n_scalars > kMaxScalars) return false;
    device = dev;
    n_ptrs = p.n_ptrs;
    n_scalars = p.n_scalars;
    m = p.m; n = p.n; k = p.k;
    lda = p.lda; ldb = p.ldb; ldc = p.ldc; ldd = p.ldd;
    aux_ld = p.aux_ld;
    a_rows_readable = p.a_rows_readable;
    a = reinterpret_cast<uintptr_t>(p.a);
    b = reinterpret_cast<uintptr_t>(p.b);
    c = reinterpret_cast<uintptr_t>(p.c);
    d = reinterpret_cast<uintptr_t>(p.d);
    workspace = reinterpret_cast<uintptr_t>(p.workspace);
    workspace_bytes = p.workspace_bytes;
    for (int i = 0; i < p.n_ptrs; ++i) ptrs[i] = reinterpret_cast<uintptr_t>(p.ptrs[i]);
    if (p.n_scalars) std::memcpy(scalars, p.scalars, sizeof(float) * p.n_scalars);  // bit patterns: -0.0 != 0.0
    return true;
  }
  bool operator==(ParamsKey const& o) const { return std::memcmp(this, &o, sizeof *this) == 0; }
};
static_assert(sizeof(ParamsKey) % sizeof(uint64_t) == 0, "ParamsKey hashes as 64-bit words");

struct ParamsKeyHash {
  size_t operator()(ParamsKey const& key) const {
    uint64_t words[sizeof(ParamsKey) / sizeof(uint64_t)];
    std::memcpy(words, &key, sizeof words);
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint64_t w : words) h = (h ^ w) * 0x100000001b3ull + (h >> 29);
    return static_cast<size_t>(h);
  }
};

struct ParamsCacheStats {
  uint64_t hits = 0, misses = 0, entries = 0, capacity = 0;
};

// One per kernel (each generated module holds one). Bounded: when kCapacity keys are held the next new key empties
// it, so a caller cycling through more problems than that pays one lookup per call over encoding each call, no more.
template <class Params>
class ParamsCache {
 public:
  static constexpr size_t kCapacity = 256;

  template <class Encode>
  Params get(cg_problem const& p, int device, Encode&& encode) {
    ParamsKey key;
    if (!key.assign(p, device)) {
      count_miss();
      return encode();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto found = map_.find(key);
      if (found != map_.end()) {
        ++stats_.hits;
        return found->second;
      }
    }
    Params params = encode();  // outside the lock; two threads encoding one key insert equal values
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.misses;
    if (map_.size() >= kCapacity) map_.clear();
    map_.emplace(key, params);
    return params;
  }

  ParamsCacheStats stats() {
    std::lock_guard<std::mutex> lock(mutex_);
    ParamsCacheStats s = stats_;
    s.entries = map_.size();
    s.capacity = kCapacity;
    return s;
  }

 private:
  void count_miss() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++stats_.misses;
  }

  std::mutex mutex_;
  std::unordered_map<ParamsKey, Params, ParamsKeyHash> map_;
  ParamsCacheStats stats_;
};

}  // namespace cutlassgen
