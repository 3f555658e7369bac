"""Make the GPU at hand look like a smaller one to the kernels timed inside `limited_sms(...)`: fewer SMs and less
shared memory per SM.

The sm80 path's tile rules (cutlassgen.tiles.SM80_TILES) are about waves and residency: how many CTAs an A100's 108
SMs hold at once with 164 KiB of shared memory each. An H200 has 132 SMs with 228 KiB, so its timings alone cannot
say which tile an A100 wants where the two differ. Inside the context, kernels on a side stream hold the rest:
1. one CTA on every SM takes (SM's shared memory - target) bytes, so each SM has the target left;
2. then one CTA on each of (SMs - target SMs) of them takes all of that, so those SMs take no other CTA.
Both are checked by the SM ids the holding CTAs report (distinct, one per SM, or the context raises). What stays
the H200's: DRAM bandwidth (4.8 vs 2.0 TB/s), L2 (50 vs 40 MB), clocks and mma.sync throughput per SM. So it
emulates an A100's occupancy and waves, not its speed; decode shapes, bound by DRAM, run faster than on an A100.

Kernels launched inside must fit the target's shared memory per block, or they wait for the holders (which give up
after `timeout_s`, so nothing hangs for good): cuBLAS's sm90 kernels do not fit, so do not time them inside.
"""
from __future__ import annotations

import contextlib
import time

import torch
from torch.utils.cpp_extension import load_inline

_RESERVED = 1024  # bytes of shared memory the runtime takes per CTA (sm80 and sm90)

_SOURCE = r"""
#include <cuda_runtime.h>
#include <torch/extension.h>

// One thread per CTA reports its SM, then waits (sleeping) until *release is set or timeout_ns passes.
__global__ void hold_sm(volatile int* release, volatile int* smids, int first, unsigned long long timeout_ns) {
  extern __shared__ char held[];
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  held[0] = 0;
  smids[first + blockIdx.x] = int(smid) + 1;
  __threadfence_system();
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(20000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (*release == 0 && now - start < timeout_ns);
}

void hold(int64_t release, int64_t smids, int64_t first, int64_t ctas, int64_t smem_bytes, int64_t stream,
          int64_t timeout_ns) {
  // all of the SM's unified L1 / shared memory as shared memory, so that the SMs' carveout fits every CTA after
  TORCH_CHECK(cudaFuncSetAttribute(hold_sm, cudaFuncAttributePreferredSharedMemoryCarveout, 100) == cudaSuccess &&
              cudaFuncSetAttribute(hold_sm, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes)) ==
              cudaSuccess, "shared memory attributes refused");
  hold_sm<<<int(ctas), 32, size_t(smem_bytes), reinterpret_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<int*>(release), reinterpret_cast<int*>(smids), int(first), (unsigned long long)timeout_ns);
  TORCH_CHECK(cudaGetLastError() == cudaSuccess, "launch failed");
}
"""

_module = None


def _holder():
    global _module
    if _module is None:
        _module = load_inline("cutlassgen_bench_sm_limit", cpp_sources="void hold(int64_t, int64_t, int64_t, "
                              "int64_t, int64_t, int64_t, int64_t);", cuda_sources=_SOURCE, functions=["hold"])
    return _module


def _wait_reported(smids, upto: int, deadline_s: float = 10.0) -> list[int]:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        if bool((smids[:upto] > 0).all()):
            return [int(s) - 1 for s in smids[:upto]]
        time.sleep(0.001)
    raise RuntimeError(f"only {int((smids[:upto] > 0).sum())} of {upto} holding CTAs started")


@contextlib.contextmanager
def limited_sms(sms: int, smem_per_sm: int, timeout_s: float = 600.0):
    """Inside, the current GPU has `sms` SMs free, each with smem_per_sm bytes of shared memory (runtime's share
    included, as the arch tables count it). Yields the ids of the SMs held whole."""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    total, have = props.multi_processor_count, props.shared_memory_per_multiprocessor
    if not (0 < sms <= total and 2 * _RESERVED <= smem_per_sm <= have):
        raise ValueError(f"this GPU has {total} SMs with {have} bytes of shared memory each: cannot leave {sms} "
                         f"with {smem_per_sm}")
    module = _holder()
    release = torch.zeros(1, dtype=torch.int32, pin_memory=True)  # host memory the device reads (UVA)
    smids = torch.zeros(2 * total, dtype=torch.int32, pin_memory=True)
    side = torch.cuda.Stream()  # a non-blocking stream: the timed kernels on the current stream run beside it
    timeout_ns = int(timeout_s * 1e9)
    pad = have - smem_per_sm - _RESERVED
    if pad > 0:
        module.hold(release.data_ptr(), smids.data_ptr(), 0, total, pad, side.cuda_stream, timeout_ns)
        got = _wait_reported(smids, total)
        if len(set(got)) != total:
            release[0] = 1
            side.synchronize()
            raise RuntimeError(f"the shared-memory holders did not land one per SM: {sorted(got)}")
    else:
        smids[:total] = 1
    held = []
    if sms < total:
        module.hold(release.data_ptr(), smids.data_ptr(), total, total - sms, smem_per_sm - _RESERVED,
                    side.cuda_stream, timeout_ns)
        held = _wait_reported(smids[total:], total - sms)
        if len(set(held)) != total - sms:
            release[0] = 1
            side.synchronize()
            raise RuntimeError(f"the SM holders did not land one per SM: {sorted(held)}")
    try:
        yield set(held)
    finally:
        release[0] = 1
        side.synchronize()


def landing_sms(ctas: int, smem_bytes: int) -> list[int]:
    """The SM each of `ctas` CTAs with smem_bytes of shared memory ran on (launched on the current stream; they
    return at once)."""
    done = torch.ones(1, dtype=torch.int32, pin_memory=True)
    smids = torch.zeros(ctas, dtype=torch.int32, pin_memory=True)
    _holder().hold(done.data_ptr(), smids.data_ptr(), 0, ctas, smem_bytes, torch.cuda.current_stream().cuda_stream,
                   10**9)
    torch.cuda.synchronize()
    return [int(s) - 1 for s in smids]


def main():
    """Check the emulation on this GPU: CTAs launched inside land on the free SMs, all of them, and on no held one."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sms", type=int, default=108)
    ap.add_argument("--smem-kib", type=int, default=164)
    args = ap.parse_args()
    smem = args.smem_kib * 1024
    one_per_sm = smem // 2  # two of these do not fit beside the runtime's share: at most one per free SM at a time
    with limited_sms(args.sms, smem) as held:
        landed = landing_sms(4 * args.sms, one_per_sm)
    on_held = sorted(set(landed) & held)
    print(f"{torch.cuda.get_device_name()}: {len(held)} SMs held whole; {len(landed)} CTAs of {one_per_sm} bytes "
          f"ran on {len(set(landed))} SMs, {len(on_held)} of them held ones")
    if on_held or len(set(landed)) != args.sms:
        raise SystemExit("the emulation leaks: " + (f"CTAs ran on held SMs {on_held}" if on_held else
                                                    f"{len(set(landed))} SMs ran CTAs, not {args.sms}"))


if __name__ == "__main__":
    main()
