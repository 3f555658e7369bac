"""The SASS of cuBLAS's nvjet kernels beside ours, at the tiles where they run the same tile, stages and cluster and
still win by 0.3-1.4% (bf16 bias+gelu at 2048x8192^2 and 256x8192^2, fp8 scaled at M = 256; the kernel names come
from bench/results/h200_library_kernels.log). The question is what their mainloop does differently: which wgmma
shapes, how many wgmma batches stay in flight (WARPGROUP.DEPBAR.LE gsb0, N), how the pipeline barriers are waited on,
how many registers. Every disassembly is written to OUT/sass/ to read offline; a summary per kernel is printed.

Run: python bench/library_sass.py [--out DIR]   (needs an sm90 GPU for our kernels' build, and cuobjdump)
"""
import argparse
import collections
import pathlib
import re
import subprocess

import torch

import cutlassgen as cg
from sass_opcodes import embedded_cubin
from tile_probe import bias_gelu, fp8_scaled, tile_named

# nvjet kernels by name (cuBLAS's choice at the shapes in the comment), and ours of the same tile.
LIBRARY_KERNELS = [
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_gelubias_TNT",  # cuBLASLt fused, 2048x8192^2 and 4096x14336x4096
    "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT",  # cuBLAS mm there
    "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_gelubias_TNT",  # cuBLASLt fused, 256x8192^2
    "nvjet_sm90_tst_128x128_64x6_2x1_v_bz_TNT",  # cuBLAS mm, 256x8192^2
    "nvjet_sm90_qqtst_128x128_128x6_1x1_h_bz_coopA_algo2_ovscale_bias_TNT",  # _scaled_mm, 256x8192^2
    "nvjet_sm90_tst_64x16_64x16_2x1_v_bz_TNT",  # cuBLAS mm, 16x8192^2
]
OURS = {
    "ours 256x128x64 c1x2 coop bias+gelu": bias_gelu(tile_named("256x128x64 c1x2 coop")),
    "ours 128x128x64 c1x1 coop bias+gelu": bias_gelu(tile_named("128x128x64 c1x1 coop")),
    "ours 128x128x64 c2x1 pingpong bias+gelu": bias_gelu(tile_named("128x128x64 c2x1 pingpong")),
    "ours 128x128x128 c2x1 pingpong fp8 scaled": fp8_scaled(tile_named("128x128x128 c2x1 pingpong",
                                                                       fp8_fast_accum=True)),
    "ours swap 64x16x128 pingpong bias+gelu": bias_gelu(tile_named("swap 64x16x128 pingpong")),
}
# The instruction families whose counts and forms say how a mainloop is built.
FAMILIES = ("HGMMA", "QGMMA", "WARPGROUP", "SYNCS", "UTMALDG", "UTMASTG", "UTMAPF", "UBLKCP", "USETMAXREG", "BAR",
            "MUFU", "STSM", "LDSM", "FENCE", "ELECT", "UCGABAR", "MEMBAR", "CCTL")


def cublaslt_path() -> str:
    """The libcublasLt this process loaded (a matmul first, so that it is mapped)."""
    a = torch.randn(64, 64, device="cuda", dtype=torch.bfloat16)
    torch._addmm_activation(a[0], a, a.t(), use_gelu=True)
    torch.cuda.synchronize()
    for line in pathlib.Path("/proc/self/maps").read_text().splitlines():
        if "libcublasLt" in line:
            return line.split()[-1]
    raise SystemExit("libcublasLt is not mapped into this process")


def split_functions(sass: str) -> dict:
    """cuobjdump -sass text -> {function name: its text}."""
    out, name = {}, None
    for line in sass.splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            name = m.group(1)
            out[name] = []
        if name:
            out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def instructions(sass: str) -> list:
    """Each instruction's text without its address, predicate kept, e.g. 'HGMMA.64x128x16.F32.BF16 R24, gdesc[UR4]...'."""
    return [m.group(1).strip() for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+([^;]*);", sass)]


def summary(name: str, sass: str) -> str:
    ins = instructions(sass)
    ops = collections.Counter(i.split()[0] if not i.startswith("@") else i.split()[1] for i in ins)
    lines = [f"{name}: {len(ins)} instructions"]
    for fam in FAMILIES:
        forms = {op: n for op, n in sorted(ops.items()) if op.split(".")[0] == fam}
        if forms:
            lines.append(f"  {fam}: " + ", ".join(f"{op} x{n}" for op, n in forms.items()))
    # The wgmma wait depths: how many batches a warpgroup lets run while it goes on.
    depbar = collections.Counter(re.sub(r"\s+", " ", i) for i in ins if "WARPGROUP.DEPBAR" in i)
    if depbar:
        lines.append("  depbar forms: " + ", ".join(f"{k} x{n}" for k, n in depbar.items()))
    return "\n".join(lines)


def cuobjdump(args: list, timeout: int) -> str:
    return subprocess.run(["cuobjdump", *args], capture_output=True, text=True, timeout=timeout).stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="device-out")
    args = p.parse_args()
    outdir = pathlib.Path(args.out) / "sass"
    outdir.mkdir(parents=True, exist_ok=True)

    lib = cublaslt_path()
    print(f"library: {lib}")
    sass = cuobjdump(["-arch", "sm_90", "-sass", "-fun", ",".join(LIBRARY_KERNELS), lib], timeout=400)
    res = cuobjdump(["-arch", "sm_90", "-res-usage", "-fun", ",".join(LIBRARY_KERNELS), lib], timeout=400)
    (outdir / "library_res_usage.txt").write_text(res)
    found = split_functions(sass)
    for name in LIBRARY_KERNELS:  # in case this cuobjdump takes one name per -fun
        if name not in found:
            found.update(split_functions(cuobjdump(["-arch", "sm_90", "-sass", "-fun", name, lib], timeout=200)))
    for name in LIBRARY_KERNELS:
        if name not in found:
            print(f"{name}: not found by cuobjdump -fun")
            continue
        (outdir / f"{name}.sass").write_text(found[name])
        print(summary(name, found[name]))
    print("resource usage (library):")
    print("\n".join(l for l in res.splitlines() if "REG" in l or "Function" in l))

    built = dict(zip(OURS, cg.build_many(list(OURS.values()))))
    for label, kernel in built.items():
        cubin = outdir / (label.replace(" ", "_").replace("+", "_") + ".cubin")
        cubin.write_bytes(embedded_cubin(kernel.binary_path.read_bytes()))
        text = cuobjdump(["-sass", str(cubin)], timeout=120)
        (outdir / cubin.name.replace(".cubin", ".sass")).write_text(text)
        print(summary(label, text))
        print("  " + " ".join(l.strip() for l in cuobjdump(["-res-usage", str(cubin)], timeout=60).splitlines()
                              if "REG" in l))
        cubin.unlink()


if __name__ == "__main__":
    main()
