"""The 64-bit L2 cache policies that `createpolicy` makes on this GPU, beside the constants CuTe passes to every TMA
load (cute::TMA::CacheHintSm90: EVICT_NORMAL 0x1000000000000000, EVICT_FIRST 0x12F0000000000000, EVICT_LAST
0x14F0000000000000). CUTLASS's mainloops always load with a policy operand, EVICT_NORMAL unless told otherwise
(cuBLAS's nvjet kernels load without one, per ncu's SASS, bench/device_session.sh source). Whether CuTe's EVICT_NORMAL
is what `createpolicy.fractional.L2::evict_normal` makes says whether that operand is a no-op.

Run: python bench/cache_policy_bits.py   (needs nvcc and an sm90 GPU)
"""
import pathlib
import subprocess
import tempfile

POLICIES = [  # (label, PTX qualifiers, fraction)
    ("evict_normal 1.0", "L2::evict_normal", "1.0"),
    ("evict_first 1.0", "L2::evict_first", "1.0"),
    ("evict_last 1.0", "L2::evict_last", "1.0"),
    ("evict_unchanged 1.0", "L2::evict_unchanged", "1.0"),
    ("evict_normal 0.5", "L2::evict_normal", "0.5"),
    ("evict_last 0.5, else evict_first", "L2::evict_last.L2::evict_first", "0.5"),
    ("evict_last 0.25, else evict_unchanged", "L2::evict_last.L2::evict_unchanged", "0.25"),
]
CUTE = {"CuTe EVICT_NORMAL": 0x1000000000000000, "CuTe EVICT_FIRST": 0x12F0000000000000,
        "CuTe EVICT_LAST": 0x14F0000000000000}

SOURCE = """
#include <cstdio>
#include <cstdint>
__global__ void policies(uint64_t* out) {
%s
}
int main() {
  uint64_t* d; uint64_t h[%d];
  cudaMalloc(&d, sizeof(h));
  policies<<<1, 1>>>(d);
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  for (int i = 0; i < %d; ++i) printf("%%016llx\\n", (unsigned long long)h[i]);
  return 0;
}
"""


def main():
    body = "\n".join(
        f'  {{ uint64_t p; asm volatile("createpolicy.fractional.{q}.b64 %0, {f};" : "=l"(p)); out[{i}] = p; }}'
        for i, (_, q, f) in enumerate(POLICIES))
    with tempfile.TemporaryDirectory() as tmp:
        src = pathlib.Path(tmp) / "policies.cu"
        src.write_text(SOURCE % (body, len(POLICIES), len(POLICIES)))
        subprocess.run(["nvcc", "-arch=sm_90a", "-o", f"{tmp}/policies", str(src)], check=True)
        values = subprocess.run([f"{tmp}/policies"], capture_output=True, text=True, check=True).stdout.split()
    for (label, q, f), v in zip(POLICIES, values):
        print(f"createpolicy.fractional.{q} {f:>4}: 0x{v}   ({label})")
    for label, v in CUTE.items():
        print(f"{label:>33}: 0x{v:016x}")


if __name__ == "__main__":
    main()
