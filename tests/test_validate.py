"""Validation, rule by rule: a valid spec passes and an invalid one raises SpecError naming field, rule and fix."""
import itertools
import pathlib

import pytest

import cutlassgen as cg
from cutlassgen import (Activation, Add, Amax, GemmSpec, LinearCombination, Multiply, Operand, Quantize, Sm80Tile,
                        Sm90Tile, StoreAux)
from cutlassgen.dtypes import DTYPES

BF16 = Operand("bf16")
BF16_COL = Operand("bf16", "column")


def sm90(**kw):
    base = dict(arch=90, a=BF16, b=BF16_COL, d=BF16)
    base.update(kw)
    return GemmSpec(**base)


def fp8(**kw):
    return sm90(**{"a": Operand("e4m3"), "b": Operand("e4m3", "column"), **kw})


def sm80(**kw):
    base = dict(arch=80, a=Operand("fp16"), b=Operand("fp16", "column"), d=Operand("fp16"))
    base.update(kw)
    return GemmSpec(**base)


# (description, valid builder, invalid builder, fragments the message must contain)
RULES = [
    ("arch must be supported", lambda: sm80(arch=86), lambda: sm80(arch=75), ["arch=75", "80, 86, 89, 90"]),
    ("sm90 path needs arch 90", lambda: sm90(), lambda: sm80(path="sm90"), ["path", "arch 90"]),
    ("fp8 operands need sm89+", lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", "column"),
                                                 d=Operand("bf16")),
     lambda: GemmSpec(arch=80, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=Operand("bf16")),
     ["a.dtype='e4m3'", "arch 89 or 90"]),
    ("A and B types match", lambda: sm80(), lambda: sm80(b=Operand("bf16", "column")), ["b.dtype", "must equal"]),
    ("fp8 may mix on sm90", lambda: sm90(a=Operand("e4m3"), b=Operand("e5m2", "column")),
     lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e5m2", "column"), d=BF16), ["b.dtype", "fp8"]),
    ("accumulator follows operands", lambda: sm80(accumulator="fp32"), lambda: sm80(accumulator="int32"),
     ["accumulator", "fp32"]),
    ("int32 output is the raw int8 GEMM", lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d="int32"),
     lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d="int32", epilogue=[Activation("relu")]),
     ["d.dtype", "int32"]),
    ("wgmma reads 8-bit operands K-major", lambda: sm90(a=Operand("e4m3"), b=Operand("e4m3", "column")),
     lambda: sm90(a=Operand("e4m3"), b=Operand("e4m3", "row")), ["b.layout", "K-major"]),
    # (the sm80-path rules below this one were found by compiling random valid specs: nvcc stopped at a static_assert)
    ("mma.sync reads 8-bit operands K-major", lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d="int32"),
     lambda: sm80(a=Operand("int8", "column"), b=Operand("int8", "column"), d="int32"),
     ["a.layout='column'", "mma.sync", "K-major", "sm80 path"]),
    ("mma.sync reads fp8 K-major too",
     lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=BF16),
     lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", "row"), d=BF16), ["b.layout='row'", "K-major"]),
    ("the sm80 path takes tf32 in any layout", lambda: sm80(a=Operand("tf32", "column"), b=Operand("tf32", "row"),
                                                            d=Operand("fp32")),
     lambda: sm90(a=Operand("tf32", "column"), b=Operand("tf32", "column"), d=Operand("fp32")),
     ["a.layout='column'", "wgmma"]),
    ("sm80 int32 accumulators to 16-bit D 8 at a time",
     lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d=Operand("bf16", alignment=8),
                  epilogue=[Multiply("scalar", "dequant")]),
     lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d=Operand("bf16", alignment=4),
                  epilogue=[Multiply("scalar", "dequant")]), ["d.alignment=4", "8 elements", "d.alignment=8"]),
    ("sm80 8-bit D at least 4 at a time",
     lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d=Operand("int8", alignment=4),
                  epilogue=[Quantize("int8", "per_tensor")]),
     lambda: sm80(a=Operand("int8"), b=Operand("int8", "column"), d=Operand("int8", alignment=2),
                  epilogue=[Quantize("int8", "per_tensor")]), ["d.alignment=2", "4, 8 or 16"]),
    ("sm80 fp8 D at least 4 at a time",
     lambda: GemmSpec(arch=89, a=BF16, b=BF16_COL, d=Operand("e4m3", alignment=4), epilogue=[Quantize("e4m3")]),
     lambda: GemmSpec(arch=89, a=BF16, b=BF16_COL, d=Operand("e4m3", alignment=2), epilogue=[Quantize("e4m3")]),
     ["d.alignment=2", "e4m3 output"]),
    ("sm80 operand tiles give every thread a copy",
     lambda: sm80(a=BF16, b=BF16_COL, d=BF16, tile=Sm80Tile(threadblock=(64, 256, 32), warp=(64, 32, 32))),
     lambda: sm80(a=BF16, b=BF16_COL, d=BF16, tile=Sm80Tile(threadblock=(32, 256, 32), warp=(32, 32, 32))),
     ["tile.threadblock=(32, 256, 32)", "A tile of 32x32 is 128 16-byte copies", "256 threads"]),
    ("sm80 tf32 M-major A needs a threadblock M of at least 32",
     lambda: sm80(a=Operand("tf32", "column"), b=Operand("tf32", "column"),
                  tile=Sm80Tile(threadblock=(32, 64, 32), warp=(16, 32, 32))),
     lambda: sm80(a=Operand("tf32", "column"), b=Operand("tf32", "column"),
                  tile=Sm80Tile(threadblock=(16, 64, 32), warp=(16, 32, 32))),
     ["tile.threadblock=(16, 64, 32)", "a is column-major (M-contiguous) tf32", "at least 32 for 32-bit operands, "
      "not 16"]),
    ("sm80 operand copy: its thread map must divide an N-major B tile (a compile error)",
     lambda: sm80(b=Operand("fp16", "row"), tile=Sm80Tile(threadblock=(64, 64, 64), warp=(32, 32, 64))),
     lambda: sm80(b=Operand("fp16", "row"), tile=Sm80Tile(threadblock=(64, 96, 64), warp=(32, 48, 64))),
     ["B tile (96x64, row-major)", "lays 8 threads of a warp along its 12 accesses", "ShapeInAccesses"]),
    ("sm80 operand copy: warps must divide a K-major A tile (it compiled, leaving rows unloaded)",
     lambda: sm80(tile=Sm80Tile(threadblock=(64, 128, 32), warp=(64, 32, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(48, 128, 32), warp=(48, 32, 32))),
     ["A tile (48x32, row-major)", "they load 32 of its 48 rows and 32 of its 32 K", "wrong result",
      "16, 32 or a multiple of 64"]),
    ("sm80 epilogue thread map",
     lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=BF16,
                      tile=Sm80Tile(warp=(64, 32, 64))),
     lambda: GemmSpec(arch=89, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=BF16,
                      tile=Sm80Tile(warp=(128, 16, 64))),
     ["tile.warp=(128, 16, 64)", "epilogue's thread map", "2 rows to store", "4 rows deep"]),
    ("sm80 epilogue thread map stores every row and column",
     lambda: sm80(tile=Sm80Tile(threadblock=(16, 64, 32), warp=(16, 64, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(16, 48, 32), warp=(16, 48, 32))),  # compiled with the rule off
     ["tile.warp=(16, 48, 32)", "6 accesses wide and 5 rows deep over 8 rows", "part of D would never be written"]),
    ("sm80 epilogue thread map places every lane (threadblock N of 16 with a 16-bit D left half unplaced)",
     lambda: sm80(tile=Sm80Tile(threadblock=(64, 32, 32), warp=(32, 32, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(64, 16, 32), warp=(32, 16, 32))),
     ["tile.threadblock=(64, 16, 32)", "16 of a warp's 32 lanes", "places for 32 of its 64 threads",
      "e.g. threadblock=(64, 32, 32)"]),
    ("sm80 int32 accumulators not to fp8",
     lambda: GemmSpec(arch=90, a=Operand("int8"), b=Operand("int8", "column"), d=Operand("e4m3"),
                      epilogue=[Quantize("e4m3")]),
     lambda: GemmSpec(arch=89, a=Operand("int8"), b=Operand("int8", "column"), d=Operand("e4m3"),
                      epilogue=[Quantize("e4m3")]), ["d.dtype='e4m3'", "int32 accumulators"]),
    ("sm90 needs 16-byte alignment", lambda: sm90(a=Operand("bf16", alignment=8)),
     lambda: sm90(a=Operand("bf16", alignment=4)), ["a.alignment=4", "TMA"]),
    ("alignment divides 128 bits", lambda: sm80(a=Operand("fp16", alignment=4)),
     lambda: sm80(a=Operand("fp16", alignment=3)), ["a.alignment=3", "divide 8"]),
    ("cp.async needs 4 bytes", lambda: sm80(a=Operand("fp16", alignment=2)),
     lambda: sm80(a=Operand("fp16", alignment=1)), ["a.alignment=1", "cp.async"]),
    ("sm80 stores row-major D", lambda: sm80(), lambda: sm80(d=Operand("fp16", "column")), ["d.layout", "row"]),
    ("C layout matches D", lambda: sm90(c=BF16, epilogue=[LinearCombination(beta=1.0)]),
     lambda: sm90(c=Operand("bf16", "column"), epilogue=[LinearCombination(beta=1.0)]), ["c.layout", "d.layout"]),
    ("beta needs C", lambda: sm90(c=BF16, epilogue=[LinearCombination(beta=1.0)]),
     lambda: sm90(epilogue=[LinearCombination(beta=1.0)]), ["c=None", "reads C"]),
    ("C must be read", lambda: sm90(c=BF16, epilogue=[Add("tensor")]), lambda: sm90(c=BF16),
     ["c=", "no epilogue step"]),
    ("8-bit output needs quantize", lambda: sm90(d=Operand("e4m3"), epilogue=[Quantize("e4m3")]),
     lambda: sm90(d=Operand("e4m3")), ["d.dtype='e4m3'", "quantize"]),
    ("quantize matches D", lambda: sm90(d=Operand("e4m3"), epilogue=[Quantize("e4m3")]),
     lambda: sm90(d=Operand("e5m2"), epilogue=[Quantize("e4m3")]), ["quantize must produce", "d.dtype"]),
    ("quantize is last", lambda: sm90(d=Operand("int8"), epilogue=[Amax(), Quantize("int8")]),
     lambda: sm90(d=Operand("int8"), epilogue=[Quantize("int8"), Amax()]), ["nothing may follow quantize"]),
    ("one aux store", lambda: sm90(epilogue=[StoreAux("x")]),
     lambda: sm90(epilogue=[StoreAux("x"), StoreAux("y")]), ["at most one store_aux"]),
    ("names unique", lambda: sm90(epilogue=[Add(name="bias"), Multiply(name="gate")]),
     lambda: sm90(epilogue=[Add(name="bias"), Multiply(name="bias")]), ["bias", "share this name"]),
    ("names not reserved", lambda: sm90(epilogue=[Add(name="bias")]), lambda: sm90(epilogue=[Add(name="out")]),
     ["out", "taken"]),
    ("vectors are 16/32-bit floats", lambda: sm90(epilogue=[Add(dtype="fp32")]),
     lambda: sm90(epilogue=[Add(dtype="int8")]), ["dtype", "fp16, bf16 or fp32"]),
    ("warp divides threadblock", lambda: sm80(tile=Sm80Tile(threadblock=(128, 128, 32), warp=(64, 64, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(128, 128, 32), warp=(48, 64, 32))), ["tile.warp", "divide"]),
    ("instruction divides warp", lambda: sm80(tile=Sm80Tile(threadblock=(64, 64, 32), warp=(32, 32, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(64, 72, 32), warp=(32, 36, 32))), ["instruction", "divide"]),
    ("instruction matches dtype", lambda: sm80(tile=Sm80Tile(instruction=(16, 8, 16))),
     lambda: sm80(tile=Sm80Tile(instruction=(16, 8, 8))), ["mma.sync", "(16, 8, 16)"]),
    ("warp count", lambda: sm80(tile=Sm80Tile(threadblock=(256, 128, 32), warp=(64, 64, 32))),
     lambda: sm80(tile=Sm80Tile(threadblock=(256, 256, 32), warp=(32, 32, 32))), ["warps"]),
    ("shared memory per arch", lambda: sm80(arch=80, tile=Sm80Tile(threadblock=(256, 128, 64), warp=(64, 64, 64),
                                                                   stages=3)),
     lambda: sm80(arch=86, tile=Sm80Tile(threadblock=(256, 128, 64), warp=(64, 64, 64), stages=3)),
     ["shared memory", "sm86"]),
    # K-major operands keep one stage's K row in a 128-byte line (CUTLASS static_asserts it, a minute into nvcc);
    # MN-major ones, as the valid case here, take 256 bytes (compiled: 64x64x128 with A column- and B row-major)
    ("sm80 K-major K per stage", lambda: sm80(a=Operand("fp16", "column"), b=Operand("fp16", "row"),
                                              tile=Sm80Tile(threadblock=(64, 64, 128), warp=(32, 32, 128))),
     lambda: sm80(tile=Sm80Tile(threadblock=(64, 64, 128), warp=(32, 32, 128))),
     ["tile.threadblock", "256 bytes", "K-major a and b", "K=64"]),
    ("sm80 split-K", lambda: sm80(tile=Sm80Tile(split_k=1)), lambda: sm80(tile=Sm80Tile(split_k=4)),
     ["split_k", "stream_k"]),
    ("cooperative needs M=128", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), mainloop="cooperative")),
     lambda: sm90(tile=Sm90Tile(cta=(64, 128, 64), mainloop="cooperative")), ["tile.cta", "cooperative"]),
    ("CTA M 192 with pingpong", lambda: sm90(tile=Sm90Tile(cta=(192, 112, 64), mainloop="pingpong")),
     lambda: sm90(tile=Sm90Tile(cta=(192, 112, 64), mainloop="cooperative")), ["tile.cta", "M must be 128 or 256"]),
    ("CTA M in wgmma rows", lambda: sm90(tile=Sm90Tile(cta=(192, 96, 64))),  # auto: pingpong
     lambda: sm90(tile=Sm90Tile(cta=(320, 64, 64), mainloop="pingpong")), ["CTA M must be 64, 128 or 256", "192"]),
    ("wgmma N", lambda: sm90(tile=Sm90Tile(cta=(128, 192, 64))), lambda: sm90(tile=Sm90Tile(cta=(128, 264, 64))),
     ["CTA N"]),
    # wgmma would take N = 40; CUTLASS 4.2 compiles it for 16-bit and fp8 operands only (bench/narrow_token_tiles.py's
    # log), not for int8 ones
    ("int8 CTA N in steps of 16",
     lambda: sm90(a=Operand("int8"), b=Operand("int8", "column"),
                  tile=Sm90Tile(cta=(64, 48, 128), mainloop="pingpong")),
     lambda: sm90(a=Operand("int8"), b=Operand("int8", "column"),
                  tile=Sm90Tile(cta=(64, 40, 128), mainloop="pingpong")),
     ["CTA N", "multiple of 16", "int8 operand", "16-bit and fp8"]),
    ("16-bit CTA N in steps of 8", lambda: sm90(tile=Sm90Tile(cta=(64, 40, 64), mainloop="pingpong")),
     lambda: sm90(tile=Sm90Tile(cta=(64, 44, 64), mainloop="pingpong")), ["CTA N", "multiple of 8", "wgmma"]),
    ("fp8 CTA N in steps of 8", lambda: fp8(tile=Sm90Tile(cta=(192, 72, 128), mainloop="pingpong", swap_ab=True,
                                                         fp8_fast_accum=True)),
     lambda: fp8(tile=Sm90Tile(cta=(192, 76, 128), mainloop="pingpong", swap_ab=True, fp8_fast_accum=True)),
     ["CTA N", "multiple of 8"]),
    # unswapped, a row-major D is stored along N: an 8-bit one in 8-wide steps failed to compile (CuTe's K-major
    # 8-bit layouts); swapped it is stored along M and compiled
    ("8-bit outputs along N keep steps of 16",
     lambda: fp8(d=Operand("e4m3"), tile=Sm90Tile(cta=(192, 72, 128), mainloop="pingpong", swap_ab=True,
                                                  fp8_fast_accum=True), epilogue=[Quantize("e4m3", "per_tensor", "s")]),
     lambda: fp8(d=Operand("e4m3"), tile=Sm90Tile(cta=(128, 72, 128), cluster=(1, 1, 1), fp8_fast_accum=True),
                 epilogue=[Quantize("e4m3", "per_tensor", "s")]), ["CTA N", "multiple of 16", "8-bit outputs"]),
    ("epilogue subtile N in the CTA N's step",
     lambda: fp8(tile=Sm90Tile(cta=(192, 72, 128), mainloop="pingpong", swap_ab=True, fp8_fast_accum=True,
                               epilogue_tile=(64, 24))),
     lambda: fp8(tile=Sm90Tile(cta=(192, 72, 128), mainloop="pingpong", swap_ab=True, fp8_fast_accum=True,
                               epilogue_tile=(64, 36))), ["epilogue_tile", "multiple of 8"]),
    ("tf32 takes wgmma's base N only", lambda: sm90(a=Operand("fp32"), b=Operand("fp32", "column"), d=Operand("fp32"),
                                                   tile=Sm90Tile(cta=(128, 96, 32))),
     lambda: sm90(a=Operand("fp32"), b=Operand("fp32", "column"), d=Operand("fp32"), tile=Sm90Tile(cta=(128, 112, 32))),
     ["CTA N", "tf32", "base N"]),
    ("CTA K bytes", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 128))), lambda: sm90(tile=Sm90Tile(cta=(128, 128, 16))),
     ["CTA K"]),
    ("CTA K at most 512 bytes", lambda: sm90(tile=Sm90Tile(cta=(64, 32, 256), mainloop="pingpong")),
     lambda: sm90(tile=Sm90Tile(cta=(64, 32, 512), mainloop="pingpong")), ["CTA K is 1024 bytes", "up to 512"]),
    # 208 accumulators a thread compiled without spills for bias+gelu, 224 spilled 704 bytes (ptxas -v, nvcc 13.0)
    ("accumulators per thread", lambda: sm90(tile=Sm90Tile(cta=(256, 208, 64), cluster=(1, 2, 1))),
     lambda: sm90(tile=Sm90Tile(cta=(256, 224, 64), cluster=(1, 2, 1))), ["224 fp32 accumulator registers", "208"]),
    ("accumulators per pingpong thread", lambda: sm90(tile=Sm90Tile(cta=(128, 192, 64), mainloop="pingpong")),
     lambda: sm90(tile=Sm90Tile(cta=(128, 256, 64), mainloop="pingpong")), ["256 fp32 accumulator", "pingpong"]),
    ("fp8 promotion doubles accumulators", lambda: sm90(a=Operand("e4m3"), b=Operand("e4m3", "column"),
                                                         tile=Sm90Tile(cta=(128, 256, 128), fp8_fast_accum=True)),
     lambda: sm90(a=Operand("e4m3"), b=Operand("e4m3", "column"), tile=Sm90Tile(cta=(128, 256, 128))),
     ["fp8 promotion", "fp8_fast_accum"]),
    ("cluster size", lambda: sm90(tile=Sm90Tile(cluster=(2, 2, 1))), lambda: sm90(tile=Sm90Tile(cluster=(4, 4, 1))),
     ["tile.cluster", "at most 8"]),
    ("cluster K", lambda: sm90(tile=Sm90Tile(cluster=(2, 1, 1))), lambda: sm90(tile=Sm90Tile(cluster=(1, 1, 2))),
     ["cluster K"]),
    ("stream-K is cooperative", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), scheduler="stream_k")),
     lambda: sm90(tile=Sm90Tile(cta=(64, 128, 64), mainloop="pingpong", scheduler="stream_k")),
     ["stream_k", "cooperative"]),
    ("sm90 split-K goes through stream-K",
     lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k", split_k=4)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), split_k=4)), ["tile.split_k=4", "scheduler='stream_k'"]),
    ("stream-K always is cooperative", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), scheduler="stream_k_always")),
     lambda: sm90(tile=Sm90Tile(cta=(64, 128, 64), mainloop="pingpong", scheduler="stream_k_always")),
     ["stream_k_always", "cooperative"]),
    ("split-K is not stream-K always",
     lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k", split_k=2)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k_always", split_k=2)),
     ["tile.split_k=2", "scheduler='stream_k'"]),
    ("pdl needs the persistent scheduler", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), pdl=True)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), scheduler="stream_k", pdl=True)),
     ["tile.pdl", "stream-K", "scheduler='persistent'"]),
    ("pdl is true or false", lambda: sm90(tile=Sm90Tile(pdl=True)), lambda: sm90(tile=Sm90Tile(pdl="yes")),
     ["tile.pdl", "true or false"]),
    # the fitted last box (validate.tail_box_why): a K-major activation of 8 or 16 bits, whole 128-byte columns of K,
    # no multicast of the activation tile
    ("fitted_tail needs a K-major activation", lambda: sm90(tile=Sm90Tile(fitted_tail=True)),
     lambda: sm90(a=Operand("bf16", "column"), tile=Sm90Tile(fitted_tail=True)),
     ["tile.fitted_tail=True", "row-major 8- or 16-bit activation", "column-major bf16", "remove it"]),
    ("fitted_tail takes no 32-bit activation", lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), fitted_tail=True)),
     lambda: sm90(a=Operand("fp32"), b=Operand("fp32", "column"), tile=Sm90Tile(cta=(128, 128, 32),
                                                                                 fitted_tail=True)),
     ["tile.fitted_tail", "8- or 16-bit"]),
    ("fitted_tail loads whole 128-byte columns of K",
     lambda: fp8(tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), fitted_tail=True)),
     lambda: fp8(tile=Sm90Tile(cta=(128, 128, 64), cluster=(1, 1, 1), fitted_tail=True)),
     ["tile.fitted_tail", "CTA K 64 is 64 bytes"]),
    ("fitted_tail does not multicast the activation",
     lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), cluster=(2, 1, 1), fitted_tail=True)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 128, 64), cluster=(1, 2, 1), fitted_tail=True)),
     ["tile.fitted_tail", "does not multicast", "(1, 2, 1)"]),
    ("fitted_tail of a swapped tile: B's cluster", lambda: sm90(tile=Sm90Tile(
        cta=(64, 32, 64), cluster=(1, 2, 1), mainloop="pingpong", swap_ab=True, fitted_tail=True)),
     lambda: sm90(tile=Sm90Tile(cta=(64, 32, 64), cluster=(2, 1, 1), mainloop="pingpong", swap_ab=True,
                                fitted_tail=True)), ["tile.fitted_tail", "does not multicast"]),
    ("fitted_tail is true or false", lambda: sm90(tile=Sm90Tile(fitted_tail=False)),
     lambda: sm90(tile=Sm90Tile(fitted_tail="yes")), ["tile.fitted_tail", "true or false"]),
    ("opaque_pipeline is for exact fp8", lambda: fp8(tile=Sm90Tile(cta=(128, 128, 128), opaque_pipeline=True)),
     lambda: fp8(tile=Sm90Tile(cta=(128, 128, 128), fp8_fast_accum=True, opaque_pipeline=True)),
     ["tile.opaque_pipeline=True", "exact-fp8 mainloop", "remove it"]),
    ("opaque_pipeline needs CTA K 128", lambda: fp8(tile=Sm90Tile(opaque_pipeline=True)),
     lambda: fp8(tile=Sm90Tile(cta=(128, 128, 64), opaque_pipeline=True)), ["tile.opaque_pipeline", "CTA K 128"]),
    ("opaque_pipeline is not for 16-bit operands", lambda: fp8(tile=Sm90Tile(opaque_pipeline=True)),
     lambda: sm90(tile=Sm90Tile(opaque_pipeline=True)), ["tile.opaque_pipeline", "fp8 operands"]),
    ("opaque_pipeline is true or false", lambda: fp8(tile=Sm90Tile(opaque_pipeline=False)),
     lambda: fp8(tile=Sm90Tile(opaque_pipeline=1)), ["tile.opaque_pipeline", "true or false"]),
    ("sm90 split-K count", lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k", split_k=16)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k", split_k=32)), ["split_k=32", "at most 16"]),
    ("sm90 swizzle", lambda: sm90(tile=Sm90Tile(swizzle="auto")), lambda: sm90(tile=Sm90Tile(swizzle=3)),
     ["tile.swizzle=3", "1, 2, 4 or 8", "'auto'"]),
    ("sm90 epilogue tile rows", lambda: sm90(tile=Sm90Tile(epilogue_tile=(128, 64))),
     lambda: sm90(tile=Sm90Tile(epilogue_tile=(64, 64))), ["tile.epilogue_tile=(64, 64)", "128 rows", "(128, 64)"]),
    ("sm90 pingpong epilogue tile rows",
     lambda: sm90(tile=Sm90Tile(cta=(64, 128, 64), mainloop="pingpong", epilogue_tile=(64, 64))),
     lambda: sm90(tile=Sm90Tile(cta=(64, 128, 64), mainloop="pingpong", epilogue_tile=(128, 64))),
     ["pingpong epilogue stores 64 rows", "(64, 64)"]),
    ("sm90 epilogue tile N", lambda: sm90(tile=Sm90Tile(cta=(128, 192, 64), epilogue_tile=(128, 48))),
     lambda: sm90(tile=Sm90Tile(cta=(128, 256, 64), epilogue_tile=(128, 48))),
     ["tile.epilogue_tile=(128, 48)", "divides CTA N (256)"]),
    ("sm90 epilogue tile shape", lambda: sm90(tile=Sm90Tile(epilogue_tile="auto")),
     lambda: sm90(tile=Sm90Tile(epilogue_tile=(128,))), ["tile.epilogue_tile", "2 positive integers"]),
    ("sm90 stages fit", lambda: sm90(tile=Sm90Tile(cta=(128, 256, 64), stages=4)),
     lambda: sm90(tile=Sm90Tile(cta=(128, 256, 64), stages=8)), ["tile.stages=8", "shared memory"]),
    ("clamp bounds", lambda: sm80(epilogue=[Activation("clamp", lo=-1, hi=1)]),
     lambda: sm80(epilogue=[Activation("clamp", lo=1, hi=-1)]), ["lo < hi"]),
    # constants are baked in as float32 literals: NaN renders as none (and makes the spec unequal to itself), a value
    # past float32's range would compile to infinity
    ("alpha not NaN", lambda: sm80(epilogue=[LinearCombination(alpha=3e38)]),
     lambda: sm80(epilogue=[LinearCombination(alpha=float("nan"))]), ["alpha=nan", "float32", "finite"]),
    ("beta in float32", lambda: sm80(c=Operand("fp16"), epilogue=[LinearCombination(beta=-3e38)]),
     lambda: sm80(c=Operand("fp16"), epilogue=[LinearCombination(beta=-1e39)]), ["beta=-1e+39", "float32"]),
    ("leaky slope finite", lambda: sm80(epilogue=[Activation("leaky_relu", slope=0.2)]),
     lambda: sm80(epilogue=[Activation("leaky_relu", slope=float("inf"))]), ["slope=inf", "finite"]),
    ("clamp bound may be infinite, not NaN", lambda: sm80(epilogue=[Activation("clamp", lo=float("-inf"), hi=6)]),
     lambda: sm80(epilogue=[Activation("clamp", lo=float("nan"), hi=6)]), ["lo=nan", "not NaN"]),
    ("clamp needs a bound", lambda: sm80(epilogue=[Activation("clamp", hi=6)]),
     lambda: sm80(epilogue=[Activation("clamp")]), ["finite lo or hi"]),
    # names: keyword arguments of the kernel's call and fields of its result tuple (Result(d, *outputs))
    ("output not named d", lambda: sm80(epilogue=[StoreAux("d_pre")]), lambda: sm80(epilogue=[StoreAux("d")]),
     ["'d'", "taken by the kernel's own arguments"]),
    ("input not named self", lambda: sm80(epilogue=[Add("per_col", "self_bias")]),
     lambda: sm80(epilogue=[Add("per_col", "self")]), ["'self'", "taken"]),
    ("name not a keyword", lambda: sm80(epilogue=[Multiply("scalar", "lambda_")]),
     lambda: sm80(epilogue=[Multiply("scalar", "lambda")]), ["name='lambda'", "not a keyword"]),
    ("output name without a leading underscore", lambda: sm80(epilogue=[Amax("amax_")]),
     lambda: sm80(epilogue=[Amax("_amax")]), ["name='_amax'", "start with '_'"]),
]


@pytest.mark.parametrize("rule", RULES, ids=[r[0] for r in RULES])
def test_rule(rule):
    _, valid, invalid, fragments = rule
    assert isinstance(valid(), GemmSpec)
    with pytest.raises(cg.SpecError) as info:
        invalid()
    msg = str(info.value)
    for frag in fragments:
        assert frag in msg, f"{frag!r} not in {msg!r}"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("make, fragments", [
    (lambda: sm80(a=Operand("fp61")), ["a.dtype='fp61'", "did you mean 'fp16'"]),
    (lambda: sm80(epilogue=[Activation("gleu")]), ["gleu", "did you mean 'gelu'"]),
    (lambda: sm90(tile=Sm90Tile(mainloop="pingpnog")), ["did you mean 'pingpong'"]),
    (lambda: sm80(epilogue=[{"op": "activaton", "fn": "relu"}]), ["did you mean 'activation'"]),
    (lambda: sm80(epilogue=[{"op": "add", "sorce": "per_col"}]), ["sorce", "did you mean 'source'"]),
    (lambda: GemmSpec.from_dict({"arch": 80, "a": "fp16", "b": "fp16", "d": "fp16", "tiel": {}}),
     ["tiel", "did you mean 'tile'"]),
    (lambda: sm80(epilogue=[Add("per_colum")]), ["did you mean 'per_col'"]),
    (lambda: sm90(tile=Sm90Tile(cluster=(2, 1))), ["tile.cluster=(2, 1)", "e.g. (2, 1, 1)"]),
])
def test_unknown_names_suggest_the_closest(make, fragments):
    with pytest.raises(cg.SpecError) as info:
        make()
    for frag in fragments:
        assert frag in str(info.value)


def test_auto_resolves_to_a_valid_config_on_every_arch():
    from cutlassgen.tiles import resolve

    for arch in (80, 86, 89):
        for dt in ("fp16", "bf16", "fp32", "int8"):
            col = Operand(dt, "column")
            spec = GemmSpec(arch=arch, a=Operand(dt), b=col, d="bf16" if dt != "int8" else "int32")
            cfg = resolve(spec)
            assert cfg.stages >= 2 and cfg.smem_bytes <= 163 * 1024
    for dt in ("fp16", "bf16", "fp32", "int8", "e4m3"):
        spec = GemmSpec(arch=90, a=Operand(dt), b=Operand(dt, "column"), d="bf16" if dt != "int8" else "int32")
        assert resolve(spec).cta[0] == 128


def test_exact_fp8_cooperative_tiles_store_128x64_subtiles_where_every_stage_stays():
    """Exact fp8's unswapped cooperative tiles take 128x64 epilogue subtiles (tiles.resolve_sm90: half CUTLASS's
    store steps) only where the wider buffers keep every mainloop stage and the tile still stores in two steps or
    more; fast accumulation, swapped tiles and a spec's own subtile keep theirs."""
    from cutlassgen.tiles import resolve

    scales = [Multiply("per_row", "scale_a", "fp32"), Multiply("per_col", "scale_b", "fp32"),
              Add("per_col", "bias", "bf16")]

    def fp8(c=None, **tile):
        return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), c=c, d=Operand("bf16"),
                        tile=Sm90Tile(**{"cta": (128, 128, 128), "cluster": (1, 1, 1), "mainloop": "cooperative",
                                         **tile}), epilogue=scales if c is None else [LinearCombination(beta=1.0)])

    narrow = fp8(epilogue_tile=(128, 32))
    exact = resolve(fp8())
    assert exact.epilogue_tile == (128, 64)
    assert exact.mainloop_stages == resolve(narrow).mainloop_stages == 6
    assert exact.smem_bytes <= 227 * 1024
    all_auto = GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), d="bf16")
    assert resolve(all_auto).epilogue_tile == (128, 64)
    assert resolve(fp8(fp8_fast_accum=True)).epilogue_tile == (128, 32)
    assert resolve(fp8(mainloop="pingpong", cta=(64, 128, 128))).epilogue_tile == (64, 32)
    assert resolve(fp8(swap_ab=True, cluster=(1, 2, 1))).epilogue_tile == (128, 32)
    assert resolve(fp8(cta=(128, 96, 128))).epilogue_tile == (128, 32)  # no 64-wide step
    assert resolve(fp8(cta=(128, 64, 128))).epilogue_tile == (128, 32)  # it would store in one step
    assert resolve(narrow).epilogue_tile == (128, 32)
    # a bf16 C: 128x64 C buffers would cost a mainloop stage, so the 128x32 subtile stays
    with_c = fp8(Operand("bf16"))
    assert resolve(with_c).epilogue_tile == (128, 32)
    assert resolve(with_c.replace(tile={**with_c.to_dict()["tile"], "epilogue_tile": (128, 64)})).mainloop_stages < \
        resolve(with_c).mainloop_stages


def test_fast_fp8_defaults_to_128x128_pingpong_and_keeps_what_the_spec_sets():
    """fp8 with fp8_fast_accum and an "auto" CTA and mainloop resolves to 128x128 pingpong with no cluster (faster
    than the 128x256 c2x1 cooperative default of 16-bit operands in every anchors run); exact fp8 keeps its 128x128
    cooperative tile, bf16 the 128x256 one, and a spec that sets the mainloop, the CTA or stream-K keeps the old
    rule."""
    from cutlassgen.tiles import resolve

    def spec(a="e4m3", **tile):
        return GemmSpec(arch=90, a=Operand(a), b=Operand(a, "column"), d=Operand("bf16"), tile=Sm90Tile(**tile))

    def form(s):
        c = resolve(s)
        return c.cta, c.cluster, c.mainloop

    assert form(spec(fp8_fast_accum=True)) == ((128, 128, 128), (1, 1, 1), "pingpong")
    assert form(spec(a="e5m2", fp8_fast_accum=True)) == ((128, 128, 128), (1, 1, 1), "pingpong")
    assert form(spec(fp8_fast_accum=True, cluster=(2, 1, 1))) == ((128, 128, 128), (2, 1, 1), "pingpong")
    assert form(spec()) == ((128, 128, 128), (1, 1, 1), "cooperative")
    assert form(spec(a="bf16")) == ((128, 256, 64), (2, 1, 1), "cooperative")
    assert form(spec(fp8_fast_accum=True, mainloop="cooperative")) == ((128, 256, 128), (2, 1, 1), "cooperative")
    assert form(spec(fp8_fast_accum=True, mainloop="pingpong")) == ((64, 256, 128), (1, 1, 1), "pingpong")
    assert form(spec(fp8_fast_accum=True, cta=(128, 128, 128))) == ((128, 128, 128), (1, 1, 1), "cooperative")
    # stream-K (and split-K through it) runs cooperative only, and so does a 128-row epilogue subtile: such specs keep
    # the 128x256 tile and stay valid
    assert form(spec(fp8_fast_accum=True, epilogue_tile=(64, 64))) == ((128, 128, 128), (1, 1, 1), "pingpong")
    for tile in ({"scheduler": "stream_k"}, {"scheduler": "stream_k", "split_k": 2}, {"epilogue_tile": (128, 64)}):
        s = spec(fp8_fast_accum=True, **tile)  # GemmSpec validates as it is made
        assert form(s) == ((128, 256, 128), (2, 1, 1), "cooperative")


def test_no_compiler_runs_for_an_invalid_spec(monkeypatch):
    import subprocess

    def boom(*a, **k):
        raise AssertionError("a compiler ran")

    monkeypatch.setattr(subprocess, "run", boom)
    monkeypatch.setattr(subprocess, "Popen", boom)
    with pytest.raises(cg.SpecError):
        sm90(tile=Sm90Tile(cta=(256, 256, 64)))


def _sm80_epilogue_tiles():
    """(tb_m, tb_n, warp_m, warp_n, D bits, elements an access) whose epilogue thread map the port says compiles."""
    from cutlassgen.validate import _sm80_epilogue_map_error

    return [(tm, tn, wm, wn, bits, per) for tm, tn, wm, wn, bits, per in itertools.product(
        (16, 64, 256), (16, 32, 48, 64, 96, 128, 256), (16, 64), (16, 32, 48, 64, 128), (8, 16, 32), (1, 2, 4, 8))
        if bits * per <= 128 and not tm % wm and not tn % wn and (tm // wm) * (tn // wn) <= 16
        and _sm80_epilogue_map_error((tm, tn, 32), (wm, wn, 32), per, bits) is None]


# dtype: (CUTLASS element, accumulator, instruction K, operator, D)
_COPY_TYPES = {"fp16": ("cutlass::half_t", "float", 16, "cutlass::arch::OpMultiplyAdd", "fp16"),
               "tf32": ("cutlass::tfloat32_t", "float", 8, "cutlass::arch::OpMultiplyAdd", "fp32"),
               "int8": ("int8_t", "int32_t", 32, "cutlass::arch::OpMultiplyAddSaturate", "int8")}


def _sm80_copy_tiles(rules_off_check):
    """(dtype, a row-major, b column-major, threadblock, warp) of sm80-path specs that validate with the operand-copy
    rule off and whose copies the port says compile: every tile the rule refuses for an uneven copy among them, and
    an even spread of the rest. rules_off_check: bench/rules_off_check.py, for its refused() and rules_off()."""
    from cutlassgen.validate import sm80_operand_copy

    refused = rules_off_check.refused
    uneven, even = [], []
    for dtype, tm, tn, (wm, wn), k, a_row, b_col in itertools.product(
            _COPY_TYPES, (16, 32, 48, 64, 96, 128, 256), (16, 32, 48, 64, 96, 128, 256),
            [(16, 16), (16, 32), (32, 32), (48, 32), (32, 48), (64, 32), (32, 64), (64, 64), (48, 48)], (1, 2),
            (True, False), (True, False)):
        k = k * 256 // DTYPES[dtype].bits  # 16 or 32 bytes of K a row, twice that
        tile = Sm80Tile(threadblock=(tm, tn, k), warp=(wm, wn, k))

        def make():
            d = _COPY_TYPES[dtype][4]
            return GemmSpec(arch=80, a=Operand(dtype, "row" if a_row else "column"),
                            b=Operand(dtype, "column" if b_col else "row"), d=Operand(d), tile=tile,
                            epilogue=[Quantize("int8", "per_tensor", "scale")] if d == "int8" else [])

        threads = (tm // wm) * (tn // wn) * 32 if not (tm % wm or tn % wn) else 0
        if not threads or any(isinstance(sm80_operand_copy(rows, k, DTYPES[dtype].bits, k_major, threads), str)
                              for rows, k_major in ((tm, a_row), (tn, b_col))):
            continue
        if not refused(make):
            even.append((dtype, a_row, b_col, tile.threadblock, tile.warp))
            continue
        with rules_off_check.rules_off(("_sm80_operand_copy_error",)):
            if not refused(make):  # refused for its copy alone: an uneven one (the port said it compiles)
                uneven.append((dtype, a_row, b_col, tile.threadblock, tile.warp))
    return uneven + even[::max(1, len(even) // 120)]


@pytest.mark.compile
def test_the_sm80_thread_map_ports_are_cutlass_s_own_arithmetic(tmp_path, monkeypatch):
    """validate's ports of CUTLASS 2.x's thread maps, held to CUTLASS's own constants (tests/sm80_thread_map_check.cu,
    compiled on the host by nvcc):
    - sm80_epilogue_lanes (how the epilogue lays a warp's lanes) over every tile its static_asserts pass among
      threadblock and warp extents of 16-256 (48 and 96 included), 8-, 16- and 32-bit D and 1-8 elements an access.
      Where fewer than 32 lanes are laid, the EVT's thread layout has places for fewer threads than it runs (its
      coordinates wrap, so D takes other threads' values): validate refuses exactly those.
    - sm80_operand_copy (how DefaultMmaCore copies each operand tile into shared memory) over fp16, tf32 and int8
      specs of every layout that validate with the copy rule off: its lanes, warps and the rows and K its iterations
      load, where a shortfall is what the rule refuses (48 rows over 4 warps: 32)."""
    import subprocess

    from cutlassgen.jit import toolchain
    from cutlassgen.validate import sm80_epilogue_lanes, sm80_operand_copy

    element = {8: "int8_t", 16: "cutlass::bfloat16_t", 32: "float"}
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).resolve().parents[1] / "bench"))
    import rules_off_check

    epilogue_tiles, copy_tiles = _sm80_epilogue_tiles(), _sm80_copy_tiles(rules_off_check)
    lines = [f"EPILOGUE({tm}, {tn}, {wm}, {wn}, {element[bits]}, {per})"
             for tm, tn, wm, wn, bits, per in epilogue_tiles]
    for dtype, a_row, b_col, tb, warp in copy_tiles:
        cutlass_type, acc, inst_k, operator, _ = _COPY_TYPES[dtype]
        lines.append(f"COPY({', '.join(map(str, (*tb, *warp[:2])))}, {cutlass_type}, {acc}, "
                     f"cutlass::layout::{'RowMajor' if a_row else 'ColumnMajor'}, "
                     f"cutlass::layout::{'ColumnMajor' if b_col else 'RowMajor'}, {inst_k}, {operator})")
    (tmp_path / "tiles.inc").write_text("\n".join(lines) + "\n")
    exe = tmp_path / "sm80_thread_map_check"
    includes = [f"-I{d}" for d in (*toolchain.find_cutlass().include_dirs, tmp_path)]
    built = subprocess.run([str(toolchain.find_nvcc()), "-std=c++17", "--expt-relaxed-constexpr", *includes, "-x",
                            "cu", str(pathlib.Path(__file__).with_name("sm80_thread_map_check.cu")), "-o", str(exe)],
                           capture_output=True, text=True)
    # a tile the port accepts that CUTLASS's static_asserts stop fails here, with nvcc's words
    assert built.returncode == 0, built.stderr[-4000:]
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout.splitlines()
    assert len(out) == len(lines) and len(epilogue_tiles) > 600 and len(copy_tiles) > 100

    unplaced, by_this_rule = 0, 0
    for line, (tm, tn, wm, wn, bits, per) in zip(out, epilogue_tiles):
        theirs = tuple(map(int, line.replace("|", " ").split()[1:]))
        width, rows, places, threads = theirs[6:]
        assert theirs[:6] == (tm, tn, wm, wn, bits, per)
        assert sm80_epilogue_lanes((tm, tn, 32), (wm, wn, 32), per, bits) == (width, rows), line
        assert places == threads * width * rows // 32, line
        unplaced += places < threads
        if places < threads and bits == 16 and per == 8:  # a spec with such a tile is refused (by some rule)
            with pytest.raises(cg.SpecError) as refused:
                sm80(a=BF16, b=BF16_COL, d=BF16, tile=Sm80Tile(threadblock=(tm, tn, 32), warp=(wm, wn, 32)))
            by_this_rule += "places for" in str(refused.value)
    assert unplaced and by_this_rule  # the tiles the rule is for are among them

    short = 0
    for line, (dtype, a_row, b_col, tb, warp) in zip(out[len(epilogue_tiles):], copy_tiles):
        head, *operands = line.split("|")
        assert tuple(map(int, head.split()[1:])) == (*tb, *warp[:2], DTYPES[dtype].bits), line
        threads = (tb[0] // warp[0]) * (tb[1] // warp[1]) * 32
        for text, rows, k_major in zip(operands, (tb[0], tb[1]), (a_row, b_col)):
            lanes, warps_c, warps_s, loaded_c, loaded_s = map(int, text.split(":")[1].split())
            loaded_rows, loaded_k = (loaded_s, loaded_c) if k_major else (loaded_c, loaded_s)
            port = sm80_operand_copy(rows, tb[2], DTYPES[dtype].bits, k_major, threads)
            assert port == (lanes, warps_c, warps_s, loaded_rows, loaded_k), (line, port)
            short += (loaded_rows, loaded_k) != (rows, tb[2])
    assert short  # the uneven copies the rule refuses are among them
