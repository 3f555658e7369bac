"""Make the GPU at hand look like a smaller one to the kernels timed inside `limited_sms(...)`: fewer SMs and less
shared memory per SM.

The sm80 path's tile rules (cutlassgen.tiles.SM80_TILES) are about waves and residency: how many CTAs an A100's 108
SMs hold at once with 164 KiB of shared memory each. An H200 has 132 SMs with 228 KiB, so its timings alone cannot
say which tile an A100 wants where the two differ. Inside the context, kernels on side streams hold the rest:
1. (SMs - target SMs) CTAs of a block's most shared memory fill one SM each, which then takes no other CTA;
2. one CTA on each of the other SMs takes (SM's shared memory - target) bytes, leaving the target.
The second is checked by the SM ids the holding CTAs report (one per free SM, or the context raises); `python
bench/sm_limit.py` checks that grids launched inside run on the free SMs only, two half-target CTAs at a time each.
Only the current stream may be synchronized inside (torch.cuda.synchronize() would wait for the holders). What stays
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
    # Non-blocking streams, one per holding grid (a stream runs its grids one after another): the timed kernels on
    # the current stream run beside them.
    sides = torch.cuda.Stream(), torch.cuda.Stream()
    timeout_ns = int(timeout_s * 1e9)
    try:
        # First whole SMs: a CTA of the most shared memory a block may take fills its SM, so each lands alone.
        held = []
        if sms < total:
            module.hold(release.data_ptr(), smids.data_ptr(), 0, total - sms, have - _RESERVED,
                        sides[0].cuda_stream, timeout_ns)
            held = _wait_reported(smids, total - sms)
        # Then the rest of the shared memory on each free SM. The scheduler spreads a grid's CTAs over the SMs
        # with room (seen on an H200), so one lands on each; checked below.
        pad = have - smem_per_sm - _RESERVED
        if pad > 0:
            module.hold(release.data_ptr(), smids.data_ptr(), total, sms, pad, sides[1].cuda_stream, timeout_ns)
            padded = _wait_reported(smids[total:], sms)
            if len(set(padded)) != sms or set(padded) & set(held):
                raise RuntimeError(f"the shared-memory holders did not land one per free SM: {sorted(padded)}")
        yield set(held)
    finally:
        release[0] = 1
        for side in sides:
            side.synchronize()


def probe(smids, never, smem_bytes: int, hold_s: float) -> tuple[list[int], float]:
    """Launch len(smids) CTAs of smem_bytes of shared memory on the current stream, each staying hold_s seconds: the
    SM each ran on and the seconds the grid took (hold_s per wave of CTAs that fit at once). smids, never: pinned
    int32 (the device reads and writes them), allocated before the holders start; never holds 0. Synchronizes the
    current stream only: the holders run on."""
    stream = torch.cuda.current_stream()
    stream.synchronize()
    start = time.perf_counter()
    _holder().hold(never.data_ptr(), smids.data_ptr(), 0, len(smids), smem_bytes, stream.cuda_stream,
                   int(hold_s * 1e9))
    stream.synchronize()
    return [int(s) - 1 for s in smids], time.perf_counter() - start


def main():
    """Check the emulation on this GPU: grids launched inside run on the free SMs only, all of them, two CTAs of
    half the target's shared memory at a time on each, and one of a byte more."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sms", type=int, default=108)
    ap.add_argument("--smem-kib", type=int, default=164)
    args = ap.parse_args()
    half = args.smem_kib * 1024 // 2 - _RESERVED  # two fit on a free SM, with the runtime's share each
    hold = 0.05
    buffers = [torch.zeros(2 * args.sms, dtype=torch.int32, pin_memory=True) for _ in range(2)]
    never = torch.zeros(1, dtype=torch.int32, pin_memory=True)
    _holder()
    with limited_sms(args.sms, args.smem_kib * 1024, timeout_s=30) as held:
        pairs, t_pairs = probe(buffers[0], never, half, hold)
        singles, t_singles = probe(buffers[1], never, half + 1024, hold)
    print(f"{torch.cuda.get_device_name()}: {len(held)} SMs held whole. {2 * args.sms} CTAs of {half} bytes ran on "
          f"{len(set(pairs))} SMs in {t_pairs * 1e3:.0f} ms; of {half + 1024} bytes on {len(set(singles))} SMs in "
          f"{t_singles * 1e3:.0f} ms (each CTA stays {hold * 1e3:.0f} ms)")
    leaks = sorted((set(pairs) | set(singles)) & held)
    if leaks or len(set(pairs)) != args.sms or not (t_pairs < 1.5 * hold < t_singles):
        raise SystemExit("the emulation does not hold: " + (f"CTAs ran on held SMs {leaks}" if leaks else
                         "not every free SM ran CTAs, or not two at a time of half the shared memory"))
    print("the emulation holds")


if __name__ == "__main__":
    main()
