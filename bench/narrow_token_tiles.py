"""Why CTA N stays a multiple of 16 on sm90: compile token tiles 8 rows wider than a multiple of 16 (cuBLAS runs
nvjet 192x72 and 192x88 at 136-168 rows, 64x40 at M = 40) with validation bypassed, once as cutlassgen renders them
and once with the epilogue built by CUTLASS's builder implementation directly (the builder's static_assert on an
explicit subtile N % 16 skipped). Compile only (nvcc -cubin of the device part), no GPU; prints each variant's
CUTLASS / CuTe static_assert messages and the class whose instantiation raised them.

Run: python bench/narrow_token_tiles.py [KIND:TILE ...] [--jobs N]
     (KIND bf16 (bias+gelu) or fp8 (scaled, fast accumulation); TILE as tile_probe.py names it)
"""
import argparse
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import tempfile
from unittest import mock

from cutlassgen import emit, validate
from cutlassgen.jit import flags, toolchain

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tile_probe import bias_gelu, fp8_scaled_fast, tile_named  # noqa: E402

SPECS = {"bf16": bias_gelu, "fp8": fp8_scaled_fast}
DEFAULT_TILES = ("bf16:swap 192x72x64 c1x2 pingpong epi64x72",  # cuBLAS's form at 136-144 rows
                 "bf16:swap 192x72x32 c1x2 pingpong epi64x72",  # 64 bytes of K: the builder's 64-byte swizzle instead
                 "bf16:swap 192x88x64 c1x2 pingpong epi64x88",  # cuBLAS's at 168x9728x8192
                 "bf16:swap 64x40x128 pingpong epi64x40",  # cuBLAS's decode tile at M = 40, its token tiles at 72x4096^2
                 "bf16:swap 64x56x128 pingpong epi64x56",  # and at 104x4096^2
                 "bf16:swap 192x80x64 c1x2 pingpong epi64x80",  # control: a shipped width through the same substitution
                 # fp8 operands: these compile once the epilogue comes from the builder's implementation
                 "fp8:swap 192x72x128 c1x2 pingpong epi64x72",
                 "fp8:swap 64x40x128 pingpong epi64x40")

BUILDER = re.compile(r"using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\s*"
                     r"cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, EpilogueTile,"
                     r"(?P<args>[^;]*?)\s*EpilogueSchedule, FusionCallbacks>::CollectiveOp;")


def builder_impl(source: str) -> str:
    """The source with the epilogue from detail::Sm90TmaBuilderImpl, given the types the builder would pass it (as
    cutlassgen renders it itself where validation takes a subtile N that is not a multiple of 16)."""
    if "detail::Sm90TmaBuilderImpl<" in source:
        return source
    new, n = BUILDER.subn(lambda m: "using CollectiveEpilogue = typename cutlass::epilogue::collective::detail::"
                          f"Sm90TmaBuilderImpl<TileShape, EpilogueTile,{m['args']} FusionCallbacks, "
                          "EpiDispatch>::CollectiveOp;", source)
    if n != 1:
        raise SystemExit("the template's epilogue builder line changed; update BUILDER")
    return new


def compile_device_part(source: str, work: pathlib.Path) -> str:
    src = work / "kernel.cu"
    src.write_text(source)
    includes = [str(toolchain.CSRC), *toolchain.find_cutlass().include_dirs]
    cmd = [toolchain.find_nvcc(), *flags.nvcc_flags(90), *(f"-I{p}" for p in includes), flags.DEVICE_PART, "-cubin",
           str(src), "-o", str(work / "kernel.cubin")]
    done = subprocess.run(cmd, capture_output=True, text=True)
    return "compiles" if done.returncode == 0 else summarize(done.stdout + done.stderr)


def summarize(log: str) -> str:
    asserts = sorted(set(re.findall(r'static assertion failed with "([^"]+)"', log)))
    where = sorted(set(re.findall(r"instantiation of class \"(cutlass::[a-z:]*(?:CollectiveMma|CollectiveEpilogue|"
                                  r"Sm90TmaBuilderImpl|sm90_compute_tile_shape_or_override)[^<]*)", log)))
    where += sorted(set(re.findall(r"(sm90_compute_tile_shape_or_override)", log)))
    return f"fails: {'; '.join(asserts) or log[-400:]} (in {', '.join(where) or 'see log'})"


def one(kind_tile: str, impl: bool) -> str:
    kind, tile = kind_tile.split(":", 1)
    with mock.patch.object(validate, "_sm90_tile", lambda spec: None):  # the N % 16 rule is what is under test
        source = emit.render(SPECS[kind](tile_named(tile)), 90)
    with tempfile.TemporaryDirectory() as tmp:
        return compile_device_part(builder_impl(source) if impl else source, pathlib.Path(tmp))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tiles", nargs="*", default=DEFAULT_TILES)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    runs = [(t, impl) for t in args.tiles for impl in (False, True)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (tile, impl), result in zip(runs, pool.map(lambda r: one(*r), runs)):
            print(f"{tile:47s} {'builder impl' if impl else 'as rendered':12s} {result}", flush=True)


if __name__ == "__main__":
    main()
