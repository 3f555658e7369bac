"""Which sm90 CTA N off a multiple of 16 compile (validate.n_step_of): token tiles 8 rows past one (cuBLAS runs
nvjet 192x72 and 192x88 at 136-168 rows, 64x40 at M = 40) with validation bypassed. Each tile as cutlassgen renders
it ("rendered"), with the epilogue from CUTLASS's CollectiveBuilder instead of the implementation it forwards to
("builder epilogue": the builder static_asserts an explicit subtile N % 16), and for 16-bit operands with CUTLASS's
own TMA set-up instead of csrc/cutlassgen/narrow_tma.hpp's ("sliced stage": CuTe's slice of the swizzled stage).
Compile only (nvcc -cubin of the device part), no GPU; prints each variant's CUTLASS / CuTe static_assert messages
and the class whose instantiation raised them.

Run: python bench/narrow_token_tiles.py [KIND:TILE ...] [--jobs N]
     (KIND: a key of SPECS; TILE as tile_probe.py names it, fast accumulation added for fp8)
"""
import argparse
import concurrent.futures
import pathlib
import re
import subprocess
import sys
import tempfile
from unittest import mock

from cutlassgen import (Activation, Add, GemmSpec, LinearCombination, Multiply, Operand, Quantize, StoreAux, emit,
                        validate)
from cutlassgen.jit import flags, toolchain

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from tile_probe import FAST, bias_gelu, fp8_scaled_fast, tile_named  # noqa: E402


def fp8_chain(tile):
    """fp8 operands under 16-bit C, aux and D: a source, vectors, an aux store, an activation."""
    return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), c=Operand("bf16"), d=Operand("bf16"),
                    tile=tile, epilogue=[LinearCombination(alpha=1.0, beta=0.5), Multiply("per_row", "sa", "fp32"),
                                         Add("per_col", "bias", "bf16"), StoreAux("pre", "bf16"), Activation("gelu")])


def fp8_mixed(tile):
    return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e5m2", "column"), d=Operand("bf16"), tile=tile,
                    epilogue=[Multiply("per_row", "sa", "fp32"), Add("per_col", "bias", "bf16")])


def fp8_to_8bit(tile):
    """An 8-bit D: stored along N unswapped, along M swapped."""
    return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=Operand("e5m2"), tile=tile,
                    epilogue=[Multiply("per_col", "sb", "fp32"), Quantize("e5m2", "per_row", "q")])


def fp16_mn_major(tile):
    return GemmSpec(arch=90, a=Operand("fp16", "column"), b=Operand("fp16", "row"), d=Operand("fp16"), tile=tile,
                    epilogue=[Add("per_col", "bias", "fp16"), Activation("silu")])


SPECS = {"bf16": bias_gelu, "fp16nn": fp16_mn_major, "fp8": fp8_scaled_fast, "fp8chain": fp8_chain,
         "fp8mixed": fp8_mixed, "fp8to8": fp8_to_8bit}
DEFAULT_TILES = ("bf16:swap 192x72x64 c1x2 pingpong epi64x72",  # cuBLAS's form at 136-144 rows
                 "bf16:swap 192x72x32 c1x2 pingpong epi64x72",  # 64 bytes of K: the builder's 64-byte swizzle instead
                 "bf16:swap 192x88x64 c1x2 pingpong epi64x88",  # cuBLAS's at 168x9728x8192
                 "bf16:swap 64x40x128 pingpong epi64x40",  # cuBLAS's at M = 40, its token tiles at 72x4096^2
                 "bf16:swap 64x56x128 c1x2 pingpong epi64x56",  # and at 104x4096^2
                 "bf16:128x72x64 coop",  # unswapped: the weights' tile 72 rows, no load policies
                 "fp16nn:128x88x64 c2x1 coop",  # N-major weights, M-major activations
                 "bf16:swap 192x80x64 c1x2 pingpong epi64x80",  # control: a shipped width through the same substitution
                 # fp8 operands: these compile once the epilogue comes from the builder's implementation
                 "fp8:swap 192x72x128 c1x2 pingpong epi64x72",
                 "fp8:swap 64x40x128 pingpong epi64x40",
                 "fp8chain:128x72x128 coop",  # unswapped, 16-bit C / aux / D along N
                 "fp8mixed:swap 192x72x128 c1x2 pingpong",
                 "fp8to8:swap 192x88x128 c1x2 pingpong",  # an 8-bit D along M
                 "fp8to8:128x72x128 coop")  # and along N: validate.n_step_of refuses it

BUILDER = re.compile(r"using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<\s*"
                     r"cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, EpilogueTile,"
                     r"(?P<args>[^;]*?)\s*EpilogueSchedule, FusionCallbacks>::CollectiveOp;")
IMPL = re.compile(r"using CollectiveEpilogue = typename cutlass::epilogue::collective::detail::Sm90TmaBuilderImpl<\s*"
                  r"TileShape, EpilogueTile,(?P<args>[^;]*?)\s*FusionCallbacks, EpiDispatch>::CollectiveOp;")


def _swap_line(source: str, pattern, make) -> str:
    new, n = pattern.subn(make, source)
    if n != 1:
        raise SystemExit("the template's epilogue declaration changed; update BUILDER / IMPL")
    return new


def with_builder(source: str) -> str:
    """The source with the epilogue from CUTLASS's CollectiveBuilder, as cutlassgen renders it where the subtile N
    is a multiple of 16 (it calls the builder's implementation, detail::Sm90TmaBuilderImpl, directly elsewhere)."""
    if BUILDER.search(source):
        return source
    return _swap_line(source, IMPL, lambda m: "using CollectiveEpilogue = typename cutlass::epilogue::collective::"
                      "CollectiveBuilder<cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, "
                      f"EpilogueTile,{m['args']} EpilogueSchedule, FusionCallbacks>::CollectiveOp;")


def with_sliced_stage(source: str) -> str:
    """The source with the mainloop's TMA descriptors built by CUTLASS's own Params (CuTe's slice of the stage), not
    narrow_tma.hpp's."""
    old = "cutlassgen::MainloopLoadHints<NarrowMainloop,"
    if old not in source:
        raise SystemExit("the template's narrow mainloop declaration changed; update with_sliced_stage")
    return source.replace(old, "cutlassgen::MainloopLoadHints<BuiltMainloop,")


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
    # the classes whose instantiation raised them, and the builder's tile function (a function, not a class)
    where = sorted(set(re.findall(r"instantiation of class \"(cutlass::[a-z:]*(?:CollectiveMma|CollectiveEpilogue|"
                                  r"Sm90TmaBuilderImpl)[^<]*)", log)))
    where += sorted(set(re.findall(r"(sm90_compute_tile_shape_or_override)", log)))
    return f"fails: {'; '.join(asserts) or log[-400:]} (in {', '.join(where) or 'see log'})"


def rendered(kind_tile: str) -> str:
    kind, tile = kind_tile.split(":", 1)
    with mock.patch.object(validate, "_sm90_tile", lambda spec: None):  # the N % 16 rule is what is under test
        return emit.render(SPECS[kind](tile_named(tile, **(FAST if kind.startswith("fp8") else {}))), 90)


VARIANTS = {"rendered": lambda source: source, "builder epilogue": with_builder, "sliced stage": with_sliced_stage}


def variants_of(kind_tile: str) -> list:
    """The variants that differ from the rendered source for this tile."""
    source = rendered(kind_tile)
    names = ["rendered"] + (["builder epilogue"] if IMPL.search(source) else [])
    return names + (["sliced stage"] if "MainloopNarrowTma" in source else [])


def one(kind_tile: str, variant: str) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        return compile_device_part(VARIANTS[variant](rendered(kind_tile)), pathlib.Path(tmp))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tiles", nargs="*", default=DEFAULT_TILES)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    runs = [(t, v) for t in args.tiles for v in variants_of(t)]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (tile, variant), result in zip(runs, pool.map(lambda r: one(*r), runs)):
            print(f"{tile:47s} {variant:16s} {result}", flush=True)


if __name__ == "__main__":
    main()
