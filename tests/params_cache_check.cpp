// csrc/cutlassgen/params_cache.hpp on the host alone (no CUDA): built and run by tests/test_params_cache.py.
// A stand-in Params records which problem encoded it, so a hit that hands back another problem's parameters shows.
#include <cstdio>
#include <functional>
#include <thread>
#include <vector>

#include "cutlassgen/params_cache.hpp"

namespace {

struct FakeParams {
  alignas(64) unsigned char descriptor[128];  // over-aligned, as CuTe's TMA descriptors are
  int64_t m;
  uint64_t a;
  float scalar0;
};

int failures = 0;
#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      std::printf("FAILED line %d: %s\n", __LINE__, #cond);          \
      ++failures;                                                    \
    }                                                                \
  } while (0)

const void* ptr(uintptr_t v) { return reinterpret_cast<const void*>(v); }

struct Problem {
  cg_problem p{};
  std::vector<uintptr_t> ptrs{0x1000, 0x2000};
  std::vector<float> scalars{1.0f, 0.5f};
  Problem() {
    p.m = 200; p.n = 4096; p.k = 4096;
    p.lda = 4096; p.ldb = 4096; p.ldc = 0; p.ldd = 4096;
    p.a = ptr(0xa000); p.b = ptr(0xb000); p.c = nullptr; p.d = reinterpret_cast<void*>(0xd000);
    p.aux_ld = 0; p.workspace = nullptr; p.workspace_bytes = 0; p.stream = nullptr; p.a_rows_readable = 0;
    sync();
  }
  void sync() {
    p.ptrs = reinterpret_cast<const void* const*>(ptrs.data());
    p.scalars = scalars.data();
    p.n_ptrs = static_cast<int>(ptrs.size());
    p.n_scalars = static_cast<int>(scalars.size());
  }
};

FakeParams encode_for(cg_problem const& p, int* encodes) {
  ++*encodes;
  FakeParams f{};
  f.descriptor[0] = static_cast<unsigned char>(*encodes);
  f.m = p.m;
  f.a = reinterpret_cast<uintptr_t>(p.a);
  f.scalar0 = p.n_scalars ? p.scalars[0] : 0.0f;
  return f;
}

}  // namespace

int main() {
  using Cache = cutlassgen::ParamsCache<FakeParams>;
  {
    Cache cache;
    int encodes = 0;
    Problem base;
    auto get = [&](Problem& q, int device = 0) {
      q.sync();
      return cache.get(q.p, device, [&] { return encode_for(q.p, &encodes); });
    };
    FakeParams first = get(base);
    FakeParams again = get(base);
    CHECK(encodes == 1);
    CHECK(again.descriptor[0] == first.descriptor[0] && again.m == 200);
    CHECK(reinterpret_cast<uintptr_t>(&again.descriptor) % 64 == 0);
    // The stream is not part of the parameters: another stream, same problem, still a hit.
    Problem other_stream;
    other_stream.p.stream = reinterpret_cast<void*>(0x5);
    get(other_stream);
    CHECK(encodes == 1);

    // Each field the parameters are made of, changed alone, must encode anew.
    std::vector<std::pair<const char*, std::function<void(Problem&)>>> changes = {
        {"m", [](Problem& q) { q.p.m = 201; }},
        {"n", [](Problem& q) { q.p.n = 4104; }},
        {"k", [](Problem& q) { q.p.k = 4104; }},
        {"lda", [](Problem& q) { q.p.lda = 4160; }},
        {"ldb", [](Problem& q) { q.p.ldb = 4160; }},
        {"ldc", [](Problem& q) { q.p.ldc = 4096; }},
        {"ldd", [](Problem& q) { q.p.ldd = 4160; }},
        {"a", [](Problem& q) { q.p.a = ptr(0xa100); }},
        {"b", [](Problem& q) { q.p.b = ptr(0xb100); }},
        {"c", [](Problem& q) { q.p.c = ptr(0xc000); }},
        {"d", [](Problem& q) { q.p.d = reinterpret_cast<void*>(0xd100); }},
        {"epilogue pointer", [](Problem& q) { q.ptrs[1] = 0x2100; }},
        {"one more epilogue pointer", [](Problem& q) { q.ptrs.push_back(0); }},
        {"scalar value", [](Problem& q) { q.scalars[1] = 0.25f; }},
        {"aux_ld", [](Problem& q) { q.p.aux_ld = 4096; }},
        {"workspace", [](Problem& q) { q.p.workspace = reinterpret_cast<void*>(0xe000); }},
        {"workspace_bytes", [](Problem& q) { q.p.workspace_bytes = 4096; }},
        {"a_rows_readable", [](Problem& q) { q.p.a_rows_readable = 256; }},
    };
    for (auto& [what, change] : changes) {
      Problem q;
      change(q);
      int before = encodes;
      get(q);
      if (encodes != before + 1) std::printf("FAILED: changing %s reused another problem's parameters\n", what);
      failures += encodes != before + 1;
    }
    Problem zero, negative_zero;  // scalars compare as bit patterns (equal floats, different products' signs)
    zero.scalars[1] = 0.0f;
    negative_zero.scalars[1] = -0.0f;
    get(zero);
    int before = encodes;
    get(negative_zero);
    CHECK(encodes == before + 1);
    before = encodes;
    get(base, 1);  // the same problem on another device
    CHECK(encodes == before + 1);
    Problem scaled;
    scaled.scalars[0] = 3.0f;
    CHECK(get(scaled).scalar0 == 3.0f);
    CHECK(get(base).scalar0 == 1.0f);  // and the first problem's own parameters come back (a hit)
    auto s = cache.stats();
    CHECK(s.hits == 3 && s.misses == static_cast<uint64_t>(encodes) && s.entries == s.misses);
  }
  {
    // Bounded: past kCapacity problems the cache empties and starts again, and still answers correctly.
    Cache cache;
    int encodes = 0;
    Problem q;
    for (size_t i = 0; i < Cache::kCapacity + 10; ++i) {
      q.p.m = 1 + static_cast<int64_t>(i);
      FakeParams f = cache.get(q.p, 0, [&] { return encode_for(q.p, &encodes); });
      CHECK(f.m == q.p.m);
    }
    CHECK(cache.stats().entries == 10 && cache.stats().capacity == Cache::kCapacity);
    q.p.m = 1;
    CHECK(cache.get(q.p, 0, [&] { return encode_for(q.p, &encodes); }).m == 1);
    CHECK(encodes == static_cast<int>(Cache::kCapacity) + 11);
  }
  {
    // A chain with more epilogue pointers than the key holds: encoded every call, never confused with another.
    Cache cache;
    int encodes = 0;
    Problem q;
    q.ptrs.assign(cutlassgen::ParamsKey::kMaxPtrs + 1, 0x1000);
    q.sync();
    cache.get(q.p, 0, [&] { return encode_for(q.p, &encodes); });
    cache.get(q.p, 0, [&] { return encode_for(q.p, &encodes); });
    CHECK(encodes == 2 && cache.stats().entries == 0 && cache.stats().misses == 2);
  }
  {
    // Threads calling at once (the binding releases the GIL): each gets its own problem's parameters.
    Cache cache;
    std::vector<std::thread> threads;
    int wrong[4] = {0, 0, 0, 0};
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        int encodes = 0;
        for (int i = 0; i < 2000; ++i) {
          Problem q;
          q.p.a = ptr(0x10000 * (t + 1));
          q.p.m = 1 + i % 50;
          q.sync();
          FakeParams f = cache.get(q.p, 0, [&] { return encode_for(q.p, &encodes); });
          wrong[t] += f.m != q.p.m || f.a != reinterpret_cast<uintptr_t>(q.p.a);
        }
      });
    for (auto& th : threads) th.join();
    CHECK(wrong[0] + wrong[1] + wrong[2] + wrong[3] == 0);
    auto s = cache.stats();
    CHECK(s.hits + s.misses == 8000 && s.misses == 200 && s.entries == 200);
  }
  if (failures) return 1;
  std::printf("params cache: ok\n");
  return 0;
}
