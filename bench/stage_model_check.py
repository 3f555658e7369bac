"""Does validation size sm90 shared memory as CUTLASS does? For a set of varied specs, compile each kernel's host part
alone (no device code: ~15-30 s each on 2 cores, no GPU) into a small program that prints what the compiled kernel
holds (cg_pipeline_json: shared memory, mainloop and epilogue stages), and set it beside tiles.resolve's sizing.
Exits 1 if a mainloop stage count differs.

Run: python bench/stage_model_check.py [--jobs N]
"""
import argparse
import concurrent.futures
import json
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import cutlassgen as cg  # noqa: E402
from cutlassgen.jit import flags, toolchain  # noqa: E402
from cutlassgen.tiles import resolve  # noqa: E402

MAIN = """#include <cstdio>
extern "C" const char* cg_pipeline_json();
extern "C" const char cutlassgen_cubin_start[] = {0};  // the host part launches an embedded cubin; none here
int main() { std::puts(cg_pipeline_json()); }
"""


def spec(**fields) -> cg.GemmSpec:
    base = dict(arch=90, a=cg.Operand("bf16"), b=cg.Operand("bf16", "column"), d=cg.Operand("bf16"))
    return cg.GemmSpec(**{**base, **fields})


BIAS_GELU = [cg.Add("per_col", "bias", "bf16"), cg.Activation("gelu_tanh")]
FP8 = dict(a=cg.Operand("e4m3"), b=cg.Operand("e4m3", "column"))
# the epilogue's buffers vary with subtiles per tile (D 1-2 stages, C 1-4), C's width against D's (reuse), aux
# stores, and vectors along the kernel's N (CUTLASS's row broadcast) or M (swapped: our bulk column broadcast)
CASES = {
    "bf16 bias+gelu, auto tile (128x256, 128x32 subtiles)": spec(epilogue=BIAS_GELU),
    "bf16 bias+gelu, swap 128x80 c1x1, one 128x80 subtile": spec(epilogue=BIAS_GELU, tile=cg.Sm90Tile(
        cta=(128, 80, 64), swap_ab=True, mainloop="cooperative", epilogue_tile=(128, 80))),
    "bf16 bias+gelu, swap 64x48x128 pingpong": spec(epilogue=BIAS_GELU, tile=cg.Sm90Tile(
        cta=(64, 48, 128), swap_ab=True, mainloop="pingpong")),
    "fp8 per-row x per-col scales + bias, 128x128x128": spec(**FP8, tile=cg.Sm90Tile(cta=(128, 128, 128)), epilogue=[
        cg.Multiply("per_row", "sa", "fp32"), cg.Multiply("per_col", "sb", "fp32"), cg.Add("per_col", "bias", "bf16")]),
    "fp8 scales, swap 128x72x128 (per-row scale along M: bulk)": spec(**FP8, tile=cg.Sm90Tile(
        cta=(128, 72, 128), swap_ab=True, mainloop="cooperative"), epilogue=[
        cg.Multiply("per_row", "sa", "fp32"), cg.Multiply("per_col", "sb", "fp32")]),
    "fp32 C residual into bf16 D + bias": spec(c=cg.Operand("fp32"), tile=cg.Sm90Tile(cta=(128, 128, 64)),
                                              epilogue=[cg.Add("tensor", "res"), cg.Add("per_col", "bias", "bf16")]),
    "bf16 C residual, aux store, swap 128x112 one subtile": spec(
        c=cg.Operand("bf16"), tile=cg.Sm90Tile(cta=(128, 112, 64), swap_ab=True, mainloop="cooperative",
                                              cluster=(1, 2, 1), epilogue_tile=(128, 112)),
        epilogue=[cg.Add("tensor", "res"), cg.StoreAux("pre", "bf16"), cg.Add("per_col", "bias", "bf16")]),
    "fp32 D with an fp32 aux store": spec(d=cg.Operand("fp32"), tile=cg.Sm90Tile(cta=(128, 128, 64)),
                                          epilogue=[cg.StoreAux("pre", "fp32"), cg.Activation("relu")]),
    "tf32 + fp32 bias, auto tile": spec(a=cg.Operand("fp32"), b=cg.Operand("fp32", "column"), d=cg.Operand("fp32"),
                                        epilogue=[cg.Add("per_col", "bias", "fp32")]),
}


def compiled_pipeline(name: str, s: cg.GemmSpec, work: pathlib.Path) -> tuple:
    folder = work / f"case{list(CASES).index(name)}"
    folder.mkdir()
    (folder / "kernel.cu").write_text(cg.render(s, 90))
    (folder / "main.cpp").write_text(MAIN)
    includes = [str(toolchain.CSRC), *toolchain.find_cutlass().include_dirs]
    cmd = [toolchain.find_nvcc(), "-std=c++17", "-O0", "--expt-relaxed-constexpr", flags.gencode(90), flags.HOST_PART,
           *(f"-I{p}" for p in includes), str(folder / "kernel.cu"), str(folder / "main.cpp"), "-o",
           str(folder / "pipeline")]
    start = time.time()
    built = subprocess.run(cmd, capture_output=True, text=True)
    if built.returncode:
        return None, built.stderr[-2000:], time.time() - start
    out = subprocess.run([str(folder / "pipeline")], capture_output=True, text=True, check=True).stdout
    return json.loads(out), None, time.time() - start


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    differ = 0
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {name: pool.submit(compiled_pipeline, name, s, pathlib.Path(tmp)) for name, s in CASES.items()}
        for name, future in futures.items():
            pipe, err, secs = future.result()
            if err:
                print(f"{name}: compile failed\n{err}")
                differ += 1
                continue
            cfg = resolve(CASES[name])
            same = pipe["mainloop_stages"] == cfg.mainloop_stages
            differ += not same
            print(f"{name}: compiled {pipe['mainloop_stages']} stages, {pipe['smem_bytes']} B (epilogue C / D stages "
                  f"{pipe['epilogue_stages_c']} / {pipe['epilogue_stages_d']}); resolve {cfg.mainloop_stages} stages, "
                  f"{cfg.smem_bytes} B {'ok' if same else 'DIFFERENT'} ({secs:.0f} s)", flush=True)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
