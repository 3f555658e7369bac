"""Does the L2 promotion of the TMA descriptors change how fast a decode GEMM streams its weights?

CuTe builds every TMA descriptor with CU_TENSOR_MAP_L2_PROMOTION_L2_128B (cute/atom/copy_traits_sm90_tma.hpp). A
decode tile's weight box is 64 rows of 256 bytes (K = 128 bf16), so with 256-byte promotion each row would come from
DRAM as one request instead of two. This builds the same tiles twice, once against the installed CUTLASS and once
against a temporary copy of its headers with 256-byte promotion (in a subprocess with CUTLASS_PATH; the specs carry
different names, so the two builds have different cache keys), then times both with cuBLAS in one process, in
shuffled interleaved rounds on the same inputs, each checked against float64 first.

Run: python bench/l2_promotion.py [--rounds N]   (needs an sm90 GPU; CUTLASSGEN_CACHE_DIR keeps both builds)
"""
import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import torch

import cutlassgen as cg
from cutlassgen.jit.toolchain import find_cutlass
from cutlassgen.timing import interleaved_median_ms
from tile_probe import bias_gelu, bias_gelu_contenders, named

TILES = named("swap 64x16x128 pingpong", "swap 64x32x128 pingpong", "swap 64x64x128 c4x1 pingpong",
              "swap 128x32x128 c1x2 coop", "128x128x64 c1x1 coop")
SHAPES = [(16, 8192, 8192), (32, 8192, 8192), (64, 8192, 8192), (32, 14336, 4096), (64, 6144, 4096),
          (256, 8192, 8192)]
PROMOTION = "CU_TENSOR_MAP_L2_PROMOTION_L2_"


def specs(size: int) -> dict:
    return {name: bias_gelu(tile).replace(name=f"l2_promotion_{size}") for name, tile in TILES.items()}


def headers_with_promotion(size: int) -> pathlib.Path:
    """A copy of the CUTLASS headers in use whose TMA descriptors promote L2 fills to `size` bytes."""
    include, util = map(pathlib.Path, find_cutlass().include_dirs)
    root = pathlib.Path(tempfile.mkdtemp(prefix=f"cutlass-l2-{size}-"))
    shutil.copytree(include, root / "include")
    shutil.copytree(util, root / "tools/util/include")
    traits = root / "include/cute/atom/copy_traits_sm90_tma.hpp"
    text = traits.read_text()
    assert text.count(PROMOTION + "128B") == 1, "CuTe's descriptor code changed; update this probe"
    traits.write_text(text.replace(PROMOTION + "128B", f"{PROMOTION}{size}B"))
    return root


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build_only:  # the subprocess: build the 256-byte specs against the patched headers
        print("256-byte promotion: building against", find_cutlass().include_dirs[0], flush=True)
        cg.build_many(list(specs(256).values()))
        return
    patched = headers_with_promotion(256)
    try:
        env = {**os.environ, "CUTLASS_PATH": str(patched)}
        child = subprocess.Popen([sys.executable, __file__, "--build-only"], env=env, cwd=pathlib.Path(__file__).parent)
        try:
            base = cg.build_many(list(specs(128).values()))  # both builds run side by side
        finally:
            child_rc = child.wait()
        if child_rc != 0:
            raise SystemExit("the 256-byte build failed")
        promoted = cg.build_many(list(specs(256).values()))  # cache hits: built by the subprocess
    finally:
        shutil.rmtree(patched, ignore_errors=True)
    kernels = {**{f"{n} L2 128B": k for n, k in zip(TILES, base)},
               **{f"{n} L2 256B": k for n, k in zip(TILES, promoted)}}
    print(f"TFLOP/s on {torch.cuda.get_device_name()}, torch {torch.__version__}, median of {args.rounds} shuffled "
          "interleaved rounds of 20 runs")
    for M, N, K in SHAPES:
        ms = interleaved_median_ms(bias_gelu_contenders(kernels, M, N, K), rounds=args.rounds, seed=M + N)
        tf = {n: 2 * M * N * K / t / 1e9 for n, t in ms.items()}
        print(f"{M}x{N}x{K}: " + ", ".join(f"{n} {v:.0f}" for n, v in tf.items()), flush=True)


if __name__ == "__main__":
    main()
