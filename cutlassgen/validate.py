"""Every rule that nvcc (or a wrong answer at run time) would otherwise teach the user late.

validate(spec) runs at GemmSpec construction and raises SpecError(field, value, rule, fix).
"""
from __future__ import annotations

from dataclasses import replace

from . import epilogue as epi
from .arch import ACCUMULATOR, ARCHS, SM80_K_MAJOR_ONLY, SM90_K_MAJOR_ONLY, WGMMA_BASE_N, WGMMA_N_MAX
from .dtypes import DTYPES, max_alignment
from .errors import SpecError, is_int
from .spec import PDL_SCHEDULERS

FP8 = ("e4m3", "e5m2")
OUTPUT_DTYPES = ("fp16", "bf16", "fp32", "e4m3", "e5m2", "int8", "int32")
SOURCE_DTYPES = ("fp16", "bf16", "fp32")
# kernel(a, b, c, out=..., **inputs) -> d or Result(d, *outputs); cutlassgen.reference(spec, a, b, c, **inputs) and
# golden.reference's return_float64 option
RESERVED_NAMES = {"a", "b", "c", "d", "out", "stream", "self", "spec", "return_float64"}
MAX_SPLIT_K = 16
# fp32 accumulators one sm90 consumer thread may hold (CUTLASS gives a consumer warpgroup 232 registers). Compiled
# with nvcc 13.0 (ptxas -v): 256x192 cooperative and 128x192 pingpong spill nothing with every sm90 epilogue of the
# GPU suite (a 128x64 epilogue subtile with C and an aux store spilled 36 bytes); 256x208 spills nothing with
# bias+gelu, 4 bytes with bias+aux+gelu+amax+quantize; 256x224 spills 704 bytes with bias+gelu.
MAX_ACCUMULATORS_PER_THREAD = 208


def validate(spec) -> None:
    _arch(spec)
    _dtypes(spec)
    _layouts_and_alignment(spec)
    _epilogue(spec)
    if spec.resolved_path == "sm90":
        _sm90_tile(spec)
    else:
        _sm80_tile(spec)


def _arch(spec):
    if spec.arch not in ARCHS:
        raise SpecError("arch", spec.arch, "unsupported compute capability", "one of " + ", ".join(map(str, ARCHS)))
    if spec.resolved_path == "sm90" and not ARCHS[spec.arch].has_wgmma:
        raise SpecError("path", spec.path, f"the sm90 path (wgmma, TMA) needs arch 90, not {spec.arch}",
                        "use path='sm80' or arch=90")
    if spec.resolved_path == "sm90" and not hasattr(spec.tile, "cta"):
        raise SpecError("tile", type(spec.tile).__name__, "the sm90 path takes an Sm90Tile", "use Sm90Tile(cta=...)")
    if spec.resolved_path == "sm80" and not hasattr(spec.tile, "threadblock"):
        raise SpecError("tile", type(spec.tile).__name__, "the sm80 path takes an Sm80Tile",
                        "use Sm80Tile(threadblock=...) or arch=90")


def _dtypes(spec):
    info = ARCHS[spec.arch]
    # fp32 operands mean tf32 tensor-core math.
    for nm in ("a", "b"):
        op = getattr(spec, nm)
        if op.dtype == "fp32":
            object.__setattr__(spec, nm, replace(op, dtype="tf32"))
    a, b = spec.a.dtype, spec.b.dtype
    for nm, dt in (("a.dtype", a), ("b.dtype", b)):
        if dt not in info.operand_dtypes:
            need = " (fp8 needs arch 89 or 90)" if dt in FP8 else ""
            raise SpecError(nm, dt, f"not a tensor-core operand type on sm{spec.arch}{need}",
                            "one of " + ", ".join(sorted(info.operand_dtypes)))
    if a != b and not (a in FP8 and b in FP8 and spec.resolved_path == "sm90"):
        raise SpecError("b.dtype", b, f"must equal a.dtype ({a}); only fp8 e4m3/e5m2 may mix, on the sm90 path",
                        f"set b.dtype={a!r}")
    acc = ACCUMULATOR[a]
    if spec.accumulator == "auto":
        object.__setattr__(spec, "accumulator", acc)
    elif spec.accumulator != acc:
        raise SpecError("accumulator", spec.accumulator, f"{a} operands accumulate in {acc}",
                        f"set accumulator={acc!r}")
    d = spec.d.dtype
    if d not in OUTPUT_DTYPES:
        raise SpecError("d.dtype", d, "not an output type", "one of " + ", ".join(OUTPUT_DTYPES))
    if d in FP8 and spec.arch < 89:
        raise SpecError("d.dtype", d, "fp8 output needs arch 89 or 90", "use arch=89/90 or an int8/bf16 output")
    if d == "int32" and (acc != "int32" or spec.epilogue):
        raise SpecError("d.dtype", d, "an int32 output is only the raw int8 x int8 accumulator with no epilogue",
                        "use a float output with a Multiply by the dequant scales")
    if spec.c is not None and spec.c.dtype not in SOURCE_DTYPES:
        raise SpecError("c.dtype", spec.c.dtype, "not a source type", "one of " + ", ".join(SOURCE_DTYPES))


def _layouts_and_alignment(spec):
    sm90 = spec.resolved_path == "sm90"
    for nm, want in (("a", "row"), ("b", "column")):
        op = getattr(spec, nm)
        if op.dtype in (SM90_K_MAJOR_ONLY if sm90 else SM80_K_MAJOR_ONLY) and op.layout != want:
            raise SpecError(f"{nm}.layout", op.layout,
                            f"{'wgmma' if sm90 else 'mma.sync'} reads {op.dtype} only K-major, so {nm} must be "
                            f"{want}-major on the {spec.resolved_path} path",
                            f"set {nm}.layout={want!r} (pass a contiguous copy, or W.t() for an nn.Linear weight)")
    if not sm90 and spec.d.layout != "row":
        raise SpecError("d.layout", spec.d.layout, "the sm80 path's visitor epilogue stores row-major D",
                        "use d.layout='row' (D^T = B^T A^T gives the column-major result), or arch=90")
    if spec.c is not None and spec.c.layout != spec.d.layout:
        raise SpecError("c.layout", spec.c.layout, f"must match d.layout ({spec.d.layout})",
                        f"set c.layout={spec.d.layout!r}")
    for nm in ("a", "b", "c", "d"):
        op = getattr(spec, nm)
        if op is None or op.alignment == "auto":
            continue
        widest = max_alignment(op.dtype)
        if widest % op.alignment:
            raise SpecError(f"{nm}.alignment", op.alignment, f"must divide {widest} (128 bits of {op.dtype})",
                            f"use {widest} or 'auto'")
        if sm90 and op.alignment != widest:
            raise SpecError(f"{nm}.alignment", op.alignment,
                            "the sm90 path moves tiles with TMA, which needs 16-byte aligned rows",
                            f"use {widest} (or 'auto'), or path='sm80' for narrower alignment")
        if not sm90 and nm in ("a", "b") and op.alignment * DTYPES[op.dtype].bits // 8 < 4:
            raise SpecError(f"{nm}.alignment", op.alignment, "cp.async copies 4, 8 or 16 bytes",
                            f"use at least {32 // DTYPES[op.dtype].bits} elements")
    if not sm90:
        _sm80_epilogue_access(spec)


def _sm80_epilogue_access(spec):
    """The sm80 path's epilogue moves tiles.sm80_epilogue_access elements of D per access, and CUTLASS 2.x
    has its shared-memory iterators (DefaultIteratorsTensorOp) only for some (D, accumulator, access) triples: the
    rest stop the compile at a static_assert."""
    from .tiles import sm80_epilogue_access

    d, acc = spec.d.dtype, spec.accumulator
    if acc == "int32" and d in FP8:
        raise SpecError("d.dtype", d, "the sm80 path's epilogue turns int32 accumulators into int8, fp16, bf16, fp32 "
                        "or int32 only", "quantize to int8, or arch=90 (the sm90 path)")
    access = sm80_epilogue_access(spec)
    if acc == "int32" and d in ("fp16", "bf16"):
        need, why = 8, f"int32 accumulators become {d} 8 elements at a time"
    elif d in FP8 or (acc == "int32" and d == "int8"):
        need, why = 4, f"its {d} output moves 4, 8 or 16 elements at a time"
    else:
        return
    if access < need:
        raise SpecError("d.alignment", spec.d.alignment, f"on the sm80 path {why}",
                        f"use d.alignment={need} or more (or 'auto'), or arch=90")


def _epilogue(spec):
    chain = spec.epilogue
    names = {}
    quant_at = None
    counts = {"store_aux": 0, "amax": 0}
    for i, node in enumerate(chain):
        where = f"epilogue[{i}]"
        if node.op in counts:
            counts[node.op] += 1
            if counts[node.op] > 1:
                raise SpecError(f"{where}.op", node.op, f"at most one {node.op} per chain",
                                "store the value once and derive the rest in PyTorch")
        if quant_at is not None:
            raise SpecError(f"{where}.op", node.op, "nothing may follow quantize (it rounds and casts to the output)",
                            "move this step before quantize")
        if node.op == "quantize":
            quant_at = i
            if node.dtype != spec.d.dtype:
                raise SpecError(f"{where}.dtype", node.dtype,
                                f"quantize must produce the output type d.dtype={spec.d.dtype!r}",
                                f"set d.dtype={node.dtype!r}")
            if node.dtype in FP8 and spec.arch < 89:
                raise SpecError(f"{where}.dtype", node.dtype, "fp8 needs arch 89 or 90", "quantize to int8")
        if node.op == "store_aux" and node.dtype not in ("fp16", "bf16", "fp32", "e4m3", "e5m2"):
            raise SpecError(f"{where}.dtype", node.dtype, "aux outputs are fp16, bf16, fp32 or fp8",
                            "use 'bf16'")
        if node.op in ("add", "multiply") and node.source != "tensor" and node.dtype not in ("fp16", "bf16", "fp32"):
            raise SpecError(f"{where}.dtype", node.dtype, "epilogue input vectors are fp16, bf16 or fp32",
                            "use 'fp32'")
    if spec.d.dtype in ("e4m3", "e5m2", "int8") and quant_at is None:
        raise SpecError("d.dtype", spec.d.dtype,
                        "an 8-bit output needs a quantize step (scale, saturate, round) or values wrap or overflow",
                        f"end the chain with Quantize(dtype={spec.d.dtype!r})")
    for name, kind, _ in epi.inputs_of(chain) + epi.extra_outputs_of(chain):
        if name in RESERVED_NAMES:
            raise SpecError("epilogue", name, "this name is taken by the kernel's own arguments",
                            f"rename it, e.g. {name}_in")
        if name in names:
            raise SpecError("epilogue", name, "two epilogue inputs/outputs share this name",
                            f"rename one, e.g. {name}2")
        names[name] = kind
    needs_c = epi.uses_c(chain)
    if needs_c and spec.c is None:
        raise SpecError("c", None,
                        "the chain reads C (beta != 0 or add/multiply source='tensor') but no C operand is set",
                        "set c=Operand('bf16', layout=d.layout) or drop the step")
    if spec.c is not None and not needs_c:
        raise SpecError("c", spec.c.dtype, "C is set but no epilogue step reads it",
                        "add LinearCombination(beta=1.0) or Add(source='tensor'), or drop c")


def _tile_err(field, value, rule, fix=None):
    return SpecError(f"tile.{field}", value, rule, fix)


def _sm80_tile(spec):
    from .tiles import resolve_sm80

    info = ARCHS[spec.arch]
    cfg = resolve_sm80(spec, info.smem_per_block)
    tb, warp, inst = cfg.threadblock, cfg.warp, cfg.instruction
    from .arch import SM80_INSTRUCTION

    want = SM80_INSTRUCTION[spec.a.dtype]
    if inst != want:
        raise _tile_err("instruction", inst, f"mma.sync for {spec.a.dtype} is {want}", f"use {want} or 'auto'")
    for i, axis in enumerate("MNK"):
        if tb[i] % warp[i]:
            raise _tile_err("warp", warp, f"warp {axis}={warp[i]} must divide threadblock {axis}={tb[i]}",
                            f"e.g. warp=({tb[0] // 2}, {tb[1] // 2}, {tb[2]})")
        if warp[i] % inst[i]:
            raise _tile_err("warp", warp, f"instruction {axis}={inst[i]} must divide warp {axis}={warp[i]}",
                            f"use a multiple of {inst[i]}")
    k_steps = warp[2] // inst[2]
    if k_steps < 2 or k_steps % 2:
        raise _tile_err("warp", warp, f"warp K / instruction K = {k_steps}; the pipelined mainloop needs an even "
                        "number of at least 2 warp-level MMA steps", f"use K={2 * inst[2]} or {4 * inst[2]}")
    if warp[2] != tb[2]:
        raise _tile_err("warp", warp, f"warp K must equal threadblock K={tb[2]} (no sliced-K in this path)",
                        f"warp=({warp[0]}, {warp[1]}, {tb[2]})")
    warps = (tb[0] // warp[0]) * (tb[1] // warp[1])
    if warps not in (1, 2, 4, 8):
        raise _tile_err("warp", warp, f"gives {warps} warps per threadblock; 1, 2, 4 or 8 are supported",
                        f"e.g. warp=({tb[0] // 2}, {tb[1] // 2}, {tb[2]}) for 4 warps")
    if warp[0] * warp[1] > 64 * 128:  # 256 accumulators per thread
        raise _tile_err("warp", warp, "more than 8192 accumulators per warp spills registers", "use at most 64x128")
    _sm80_thread_maps(spec, tb, warp, warps)
    _sm80_mn_major(spec, tb)
    kbytes = tb[2] * DTYPES[spec.a.dtype].bits // 8
    if kbytes % 32:
        raise _tile_err("threadblock", tb, f"threadblock K of {kbytes} bytes; must be a multiple of 32 bytes",
                        f"K={32 * 8 // DTYPES[spec.a.dtype].bits * 2}")
    k_major = [name for name, op, layout in (("a", spec.a, "row"), ("b", spec.b, "column")) if op.layout == layout]
    if kbytes > 128 and k_major:
        # CUTLASS's crosswise shared-memory layout holds one K row of a stage in a 128-byte line (a static_assert
        # in tensor_op_multiplicand_sm75.h, after a minute of compiling)
        raise _tile_err("threadblock", tb, f"threadblock K of {kbytes} bytes with K-major {' and '.join(k_major)}: "
                        "the sm80 path's shared-memory layout takes at most 128 bytes of K per stage",
                        f"K={128 * 8 // DTYPES[spec.a.dtype].bits}")
    if cfg.stages < 2:
        raise _tile_err("stages", cfg.stages, "the sm80 multistage mainloop needs at least 2 stages", "use 3")
    if cfg.smem_bytes > info.smem_per_block:
        raise _tile_err("stages", cfg.stages,
                        f"{cfg.stages} stages of {tb} take {cfg.smem_bytes} bytes of shared memory, over "
                        f"sm{spec.arch}'s {info.smem_per_block}",
                        f"use stages={max(2, cfg.stages * info.smem_per_block // cfg.smem_bytes)} or a smaller "
                        "threadblock")
    if cfg.swizzle not in (1, 2, 4, 8):
        raise _tile_err("swizzle", cfg.swizzle, "threadblock swizzle is 1, 2, 4 or 8", "use 1")
    if cfg.split_k != 1:
        raise _tile_err("split_k", cfg.split_k,
                        "the sm80 path's visitor epilogue cannot reduce split-K slices (it would apply the epilogue "
                        "per slice)", "use split_k=1, or arch=90 with tile.scheduler='stream_k'")


def _sm80_mn_major(spec, tb) -> None:
    """An MN-major operand (A column-, B row-major) sits in CUTLASS 2.x's congruous shared-memory layout, whose
    crosswise width, min(128 bytes, the threadblock's M or N), must be one the warp-level tile iterators take: 32
    elements for 32-bit operands, 16, 32 or 64 for 16-bit ones (mma_tensor_op_tile_iterator.h: an incomplete type
    otherwise). Session 80, compiled on both sides: tf32 A column-major at M = 16 and B row-major at N = 16 failed, tf32
    at M = 32 and fp16 at M = 16 compiled. 8-bit operands are K-major only (_layouts_and_alignment); the copy's thread
    map is _sm80_operand_copy_error's."""
    for name, axis, op, layout, extent in (("a", "M", spec.a, "column", tb[0]), ("b", "N", spec.b, "row", tb[1])):
        bits = DTYPES[op.dtype].bits
        widths = {32: (32,), 16: (16, 32, 64)}.get(bits)
        if op.layout == layout and widths and min(1024 // bits, extent) not in widths:
            takes = "at least 32" if bits == 32 else "16, 32 or at least 64"
            raise _tile_err("threadblock", tb, f"{name} is {layout}-major ({axis}-contiguous) {op.dtype}: CUTLASS's "
                            f"sm80 shared-memory layout for it takes a threadblock {axis} of {takes} for {bits}-bit "
                            f"operands, not {extent}", f"use such a threadblock {axis}, or {name} "
                            f"{'row' if layout == 'column' else 'column'}-major")


def sm80_operand_copy(rows: int, k: int, bits: int, k_major: bool, threads: int):
    """How CUTLASS 2.x's DefaultMmaCore (sm80) copies an operand tile (rows x k a stage) into shared memory, or why it
    cannot (a str: its static_asserts, compile errors). Each operand gets a PitchLinearWarpRakedThreadMap: 16-byte
    accesses, the threads of a warp laid along the contiguous extent (K for a K-major operand: all its accesses; M or
    N for an MN-major one: at most 8), the warps along the strided extent first. Returns (lanes along the contiguous
    extent, warps along it, warps along the strided extent, rows loaded, K loaded): the last two fall short of the
    tile where its warps do not divide it evenly (e.g. 48 rows over 4 warps of 8 rows: 32), which compiles.
    Ported from pitch_linear_thread_map.h; tests/test_validate.py holds it to CUTLASS's own constants
    (tests/sm80_thread_map_check.cu)."""
    per_access = 128 // bits
    contiguous, strided = (k, rows) if k_major else (rows, k)
    if contiguous % per_access:
        return f"its contiguous extent {contiguous} is not whole 16-byte accesses"
    accesses = contiguous // per_access
    lanes = accesses if k_major else min(accesses, 8)
    if not lanes or 32 % lanes or accesses % lanes or strided % (32 // lanes):
        return (f"lays {lanes} threads of a warp along its {accesses} accesses and {32 // max(lanes, 1)} along its "
                f"{strided} {'rows' if k_major else 'K'}, which do not divide them (a compile error: 'ShapeInAccesses "
                "must be divisible by WarpThreadArrangement')")
    along_c, along_s = accesses // lanes, strided // (32 // lanes)  # a warp's accesses along each extent
    warps = threads // 32
    warps_s = warps if along_s >= warps else along_s
    warps_c = warps // warps_s if warps > along_s else 1
    if not (along_c // warps_c) * (along_s // warps_s):
        return "gives a warp no access (a compile error: 'Number of iterations must be non-zero')"
    loaded_c = (along_c // warps_c) * warps_c * lanes * per_access
    loaded_s = (along_s // warps_s) * warps_s * (32 // lanes)
    return (lanes, warps_c, warps_s, *((loaded_s, loaded_c) if k_major else (loaded_c, loaded_s)))


def _sm80_operand_copy_error(rows: int, k: int, bits: int, k_major: bool, threads: int) -> str | None:
    """Why CUTLASS 2.x's copy of an operand tile into shared memory would not compile or would not cover it (a wrong
    result no compiler reports), or None."""
    copy = sm80_operand_copy(rows, k, bits, k_major, threads)
    if isinstance(copy, str):
        return copy
    _, warps_c, warps_s, loaded_rows, loaded_k = copy
    if (loaded_rows, loaded_k) != (rows, k) or warps_c * warps_s != threads // 32:
        return (f"spreads {threads // 32} warps over it unevenly: they load {loaded_rows} of its {rows} rows and "
                f"{loaded_k} of its {k} K, the rest never (it compiles, and computes a wrong result: 48x128 over 4 "
                "warps, built without this rule, got the rows past 32 of each tile wrong on a GPU)")
    return None


def _sm80_thread_maps(spec, tb, warp, warps: int) -> None:
    """CUTLASS 2.x spreads each stage's copies and the epilogue's stores over the threadblock's threads with thread
    maps that static_assert at least one iteration per thread."""
    from .tiles import sm80_epilogue_access

    threads = 32 * warps
    for name, rows, bits in (("A", tb[0], DTYPES[spec.a.dtype].bits), ("B", tb[1], DTYPES[spec.b.dtype].bits)):
        # the mainloop copies each stage's operand tiles in 16-byte pieces, at least one per thread
        pieces = rows * tb[2] * bits // 128
        if pieces < threads:
            raise _tile_err("threadblock", tb, f"its {name} tile of {rows}x{tb[2]} is {pieces} 16-byte copies a stage, "
                            f"fewer than the {threads} threads of {warps} warps (CUTLASS's thread map: 'Number of "
                            "iterations must be non-zero')", "use larger warps (fewer of them) or a larger tile")
    for name, rows, op, k_major_layout in (("A", tb[0], spec.a, "row"), ("B", tb[1], spec.b, "column")):
        why = _sm80_operand_copy_error(rows, tb[2], DTYPES[op.dtype].bits, op.layout == k_major_layout, threads)
        if why:
            raise _tile_err("threadblock", tb, f"CUTLASS's copy of its {name} tile ({rows}x{tb[2]}, {op.layout}-major) "
                            f"into shared memory over {warps} warps {why}", "use threadblock M and N of 16, 32 or a "
                            "multiple of 64 (the warps then divide each tile)")
    per_access = sm80_epilogue_access(spec)
    why = _sm80_epilogue_map_error(tb, warp, per_access, DTYPES[spec.d.dtype].bits)
    if why:
        raise _tile_err("warp", warp, f"the epilogue's thread map of threadblock {tb[:2]} over {warps} warps {why} "
                        "(CUTLASS 2.x's OutputTileOptimalThreadMap)", "use warps of at least 32 columns, e.g. "
                        f"warp=({min(64, tb[0])}, {min(64, tb[1])}, {tb[2]})")
    why = _sm80_unplaced_lanes_error(tb, warp, per_access, DTYPES[spec.d.dtype].bits)
    if why:
        wide = max(4 * per_access, 1 << (tb[1] - 1).bit_length())
        raise _tile_err("threadblock", tb, why, f"use threadblock N of a power of two of at least {4 * per_access} "
                        f"(with warps that divide it), e.g. threadblock=({tb[0]}, {wide}, {tb[2]})")


def _sm80_unplaced_lanes_error(tb, warp, per_access: int, d_bits: int) -> str | None:
    """Why the sm80 EVT's thread layout would give some threads coordinates that are not theirs, or None. It has a
    place for each lane the thread map lays out, and fewer than 32 are laid where a row holds fewer than 4 accesses
    (threadblock N of 16 with a 16- or 8-bit D, 8 elements an access: 2 wide, 8 deep) or where the lanes' width does
    not divide 32 (N = 48 or 96 in some accesses: 12 or 24 wide)."""
    width, access_rows = sm80_epilogue_lanes(tb, warp, per_access, d_bits)
    if width * access_rows >= 32:
        return None
    lanes, warps = width * access_rows, (tb[0] // warp[0]) * (tb[1] // warp[1])
    return (f"its {tb[1]} columns are {tb[1] // per_access} of the epilogue's {per_access}-element accesses, which "
            f"its thread map lays {width} wide and {access_rows} deep: {lanes} of a warp's 32 lanes. CUTLASS 2.x's EVT "
            f"thread layout then has places for {warps * lanes} of its {warps * 32} threads, and the others get "
            "coordinates that are not theirs, so D is written with other threads' values (built without this rule, "
            "64x16 and 64x96 tiles got most of D wrong on a GPU)")


def sm80_epilogue_lanes(tb, warp, per_access: int, d_bits: int) -> tuple[int, int]:
    """How CUTLASS 2.x's epilogue thread map (DefaultThreadMapTensorOp -> OutputTileOptimalThreadMap's
    RowArrangement) lays a warp's lanes: (accesses wide, rows deep). A warp row of the output tile (8 rows of tb N
    columns per M warp) is spread over the N warps, each taking 8 / N-warps rows in accesses of per_access elements,
    256 bytes wide where it can; 8 or more N warps take one row each, 32 lanes wide. (0, 0) where nothing can be laid.
    tests/test_validate.py holds it to CUTLASS's own constants (tests/sm80_thread_map_check.cu)."""
    warps_n = tb[1] // warp[1]
    if 8 <= warps_n:
        return 32, 1
    rows = 8 // warps_n
    target_width = 256 // (per_access * d_bits // 8)
    if 32 // target_width > rows:  # target_width is 256 bytes of accesses of 1 to 32 bytes: 8 to 256
        return 32 // rows, rows
    width = min(tb[1] // per_access, 32, target_width)
    return width, (min(8, 32 // width) if width else 0)


def _sm80_epilogue_map_error(tb, warp, per_access: int, d_bits: int) -> str | None:
    """Why CUTLASS 2.x's epilogue thread map (the sm80 path's OutputTileThreadLayout) would stop nvcc at a
    static_assert for this threadblock and warp tile, or store only part of it, or None."""
    warps_n = tb[1] // warp[1]
    columns = tb[1] // per_access  # accesses across the tile
    width, access_rows = sm80_epilogue_lanes(tb, warp, per_access, d_bits)
    if 8 <= warps_n:  # one row per warp: a warp's 32 lanes must each take an access of the row
        if columns < 32:
            return f"leaves a warp fewer than 32 accesses ({columns}) of a row"
        # it stores columns // 32 passes of 32 accesses: a remainder is never stored (it compiles)
        return None if columns % 32 == 0 else (f"stores its {columns} accesses a row in passes of 32, leaving "
                                               f"{columns % 32} unstored: part of D would never be written")
    rows = 8 // warps_n
    if not width or width * per_access > tb[1] or columns // width == 0:
        return f"cannot lay {width} lanes of {per_access} elements across its {tb[1]} columns"
    if not access_rows or rows // access_rows == 0:
        return f"gives each warp {rows} rows to store but lays its lanes {access_rows} rows deep"
    # The lanes as laid (width accesses by access_rows rows) must divide the warp's rows and columns: it stores
    # rows // access_rows by columns // width passes, and a remainder is never stored. Session 80, built with the
    # rule off: N = 48 with fp16 D (6 x 5 lanes over 8 rows: 5 of them stored) compiled, N = 192 with 96-wide warps
    # failed elsewhere (cute's "Stride Divisibility Condition"). Lanes left over (width x access_rows < 32) are
    # refused by the caller.
    if rows % access_rows or columns % width:
        return (f"lays its lanes {width} accesses wide and {access_rows} rows deep over {rows} rows of {columns} "
                "accesses, which they do not divide: part of D would never be written (some such tiles compile)")
    return None


def check_target(spec, target) -> None:
    """A compile target that can run spec's kernel: the arch a render or build is for (default spec.arch)."""
    # 80.0 == 80 would pass the lookup and name the module "..._sm80.0"
    if not is_int(target) or target not in ARCHS:
        raise SpecError("arch", target, "no supported compile target", "one of " + ", ".join(map(str, ARCHS)))
    if spec.resolved_path == "sm90" and target != 90:
        raise SpecError("arch", target, "an sm90-path (wgmma) kernel runs only on sm_90a",
                        "build with arch=90, or make an sm80-path spec (arch=80) for this GPU")
    if target < spec.arch:
        raise SpecError("arch", target, f"the spec needs sm{spec.arch} features; sm_{target} lacks them",
                        f"build for arch >= {spec.arch}")


def check_problem_shape(spec, M: int, N: int, K: int) -> None:
    """An (M, N, K) problem gives each tensor's contiguous dimension an extent that must be a multiple of its
    alignment, or the kernel refuses every call of that shape (runtime.Kernel checks the tensors). Checked where
    build(spec, shapes=...), tune and study take shapes, before anything compiles for them."""
    from .tiles import alignment

    # (dimension, extent) along a row-major and a column-major tensor of each shape
    extents = {"a": (("K", K), ("M", M)), "b": (("N", N), ("K", K)), "mn": (("N", N), ("M", M))}
    tensors = [(nm, "mn" if nm in "cd" else nm, op.layout, op.dtype, alignment(op))
               for nm in "abcd" if (op := getattr(spec, nm)) is not None]
    # aux outputs are laid out as D, in 16-byte rows (runtime.Kernel.__call__)
    tensors += [(f"aux output {name}", "mn", spec.d.layout, dtype, max_alignment(dtype))
                for name, kind, dtype in epi.extra_outputs_of(spec.epilogue) if kind == "tensor"]
    for what, shape, layout, dtype, align in tensors:
        dim, extent = extents[shape][layout != "row"]
        if extent % align:
            fix = f"pad {dim} to {-(-extent // align) * align}"
            if len(what) == 1:
                fix += ", or give the spec a smaller alignment on the sm80 path"
            raise SpecError("shape", (M, N, K),
                            f"{dim} = {extent} is {what}'s contiguous extent ({layout}-major {dtype}) and must be a "
                            f"multiple of its alignment, {align} elements: the kernel would refuse every call of this "
                            "shape", fix)


def n_step_of(spec, swap_ab: bool) -> int:
    """The step of CTA N (and of the epilogue subtile's N) that CUTLASS 4.2 compiles on sm90: 8 for 16-bit and fp8
    operands, else 16 (n_step_why says why).

    A 16-bit operand tile of 40, 56, 72 or 88 rows fails CuTe's "Stride / Shape Divisibility Condition" where CUTLASS's
    mainloop slices its swizzled shared-memory layout for the TMA set-up (CollectiveMma::Params); cutlassgen builds
    those descriptors from the stage taken instead (csrc/cutlassgen/narrow_tma.hpp, lower.py), and fp8 operand tiles
    compile as they are. Their epilogue then stores subtile steps of 8, which 8-bit tensors (D, C, aux) laid out along
    N did not take (an e5m2 D of 128x72 failed in CuTe's K-major 8-bit layouts); along M, as swap_ab makes a row-major
    D, they compiled. int8 operands failed in the epilogue ("Fragment size does not vectorize properly"); tf32 keeps
    wgmma's base N (_sm90_tile). bench/narrow_token_tiles.py and its log hold the compiles this rests on."""
    return 16 if n_step_why(spec, swap_ab) else 8


def n_step_why(spec, swap_ab: bool) -> str | None:
    """Why CTA N must be a multiple of 16 for this spec, or None where steps of 8 compile (n_step_of)."""
    if not (spec.a.dtype in FP8 and spec.b.dtype in FP8) and DTYPES[spec.a.dtype].bits != 16:
        return (f"{spec.a.dtype} operand tiles off steps of 16 did not compile in CUTLASS 4.2; 16-bit and fp8 "
                "operands take steps of 8")
    kernel_d_m_major = (spec.d.layout == "row") == swap_ab  # swap_ab computes D^T: a row-major D is M-major there
    tensors = [spec.d.dtype, *([spec.c.dtype] if spec.c is not None else []),
               *(dtype for _, kind, dtype in epi.extra_outputs_of(spec.epilogue) if kind == "tensor")]
    if not kernel_d_m_major and any(DTYPES[t].bits < 16 for t in tensors):
        return ("8-bit outputs stored along N take steps of 16 (CuTe's K-major 8-bit layouts); swap_ab stores a "
                "row-major D along the kernel's M")
    return None


def tail_box_why(spec, cfg) -> str | None:
    """Why the token operand of this sm90 kernel (cfg: tiles.resolve_sm90's) cannot load its last tile's rows in one
    TMA box fitted to them (csrc/cutlassgen/load_hints.hpp, TailOperand), or None where it can: an 8- or 16-bit
    row-major activation (K-major), 128 bytes of K or a multiple in the CTA tile (whole columns of the 128-byte
    swizzle atom), not multicast (no cluster along the other operand's dimension)."""
    bits = DTYPES[spec.a.dtype].bits
    if bits not in (8, 16) or spec.a.layout != "row":
        return f"the fitted box takes a row-major 8- or 16-bit activation (a is {spec.a.layout}-major {spec.a.dtype})"
    if cfg.cta[2] * bits // 8 % 128:
        return (f"the fitted box loads whole 128-byte columns of K (CTA K {cfg.cta[2]} is "
                f"{cfg.cta[2] * bits // 8} bytes)")
    if (cfg.cluster[0] if cfg.swap_ab else cfg.cluster[1]) > 1:
        return f"the fitted box does not multicast: the cluster {tuple(cfg.cluster)} shares the activation tile"
    return None


def _sm90_tile(spec):
    from .tiles import resolve_sm90

    info = ARCHS[90]
    cfg = resolve_sm90(spec, info.smem_per_block)
    m, n, k = cfg.cta
    if cfg.mainloop == "cooperative" and m % 128:
        raise _tile_err("cta", cfg.cta, "the cooperative schedule splits M over 2 warpgroups: M must be 128 or 256",
                        "use M=128, or mainloop='pingpong' for M=64")
    # pingpong: one warpgroup computes the whole tile, 64 rows per wgmma, so 192 rows are three of them
    if m not in (64, 128, 256) and not (m == 192 and cfg.mainloop == "pingpong"):
        raise _tile_err("cta", cfg.cta, "CTA M must be 64, 128 or 256 (wgmma is 64 rows per warpgroup), or 192 "
                        "with the pingpong mainloop", "use 128")
    # wgmma itself takes N in steps of 8 (lower.py enables CuTe's extended shapes where the CTA N needs them);
    # CUTLASS 4.2 compiles an odd multiple of 8 for 16-bit and fp8 operands only (n_step_of)
    step = n_step_of(spec, cfg.swap_ab)
    if n % step or n > WGMMA_N_MAX:
        why = n_step_why(spec, cfg.swap_ab) or "wgmma takes N in steps of 8"
        raise _tile_err("cta", cfg.cta, f"CTA N must be a multiple of {step} up to 256 ({why})", "use 128 or 256")
    if DTYPES[spec.a.dtype].bits == 32 and n not in WGMMA_BASE_N:
        # tf32 on CuTe's extended wgmma shapes: CUTLASS 4.2's 32-bit shared-memory layouts fail a static_assert
        # ("Shape / Stride Divisibility Condition") a minute into the compile, for CTA N 48, 80, 112, 144 and 208
        # swapped or not (nvcc 13.0, session 24); the base shapes (96, 128, 256 tried) compile
        raise _tile_err("cta", cfg.cta, "tf32 (32-bit operands) compiles only with a CTA N that is one of wgmma's "
                        f"base N {tuple(x for x in WGMMA_BASE_N if x % 16 == 0)}: CUTLASS's tf32 layouts do not take "
                        "its extended shapes", "use 96 or 128")
    kbytes = k * DTYPES[spec.a.dtype].bits // 8
    # 512 bytes (bf16 K=256) compiled and matched the reference on the H200 (bench/results/h200_tile_probe.log)
    if kbytes % 64 or kbytes > 512:
        raise _tile_err("cta", cfg.cta, f"CTA K is {kbytes} bytes; it must be a multiple of 64 bytes up to 512 for "
                        "the swizzled shared-memory layouts", f"use K={128 * 8 // DTYPES[spec.a.dtype].bits}")
    threads = 256 if cfg.mainloop == "cooperative" else 128
    fp8 = spec.a.dtype in FP8
    if cfg.fp8_fast_accum and not fp8:
        raise _tile_err("fp8_fast_accum", True, f"applies to fp8 operands only, not {spec.a.dtype}", "remove it")
    promote = 2 if fp8 and not cfg.fp8_fast_accum else 1  # fp8 promotion keeps a second accumulator
    acc_regs = m * n // threads * promote
    if acc_regs > MAX_ACCUMULATORS_PER_THREAD:
        fix = ("use 128x128 or 128x192 cooperative, or fp8_fast_accum=True" if promote == 2 else
               "use 256x192 / 128x256 cooperative or 64x256 / 128x192 pingpong")
        raise _tile_err("cta", cfg.cta, f"{acc_regs} fp32 accumulator registers per thread ({cfg.mainloop}"
                        f"{', fp8 promotion' if promote == 2 else ''}) exceeds {MAX_ACCUMULATORS_PER_THREAD}: "
                        "the kernel would spill", fix)
    em, en = cfg.epilogue_tile
    rows = 128 if cfg.mainloop == "cooperative" else 64  # the rows one epilogue step covers (CUTLASS's builder)
    if em != rows:  # rows divides every CTA M the checks above let through
        raise _tile_err("epilogue_tile", cfg.epilogue_tile, f"the {cfg.mainloop} epilogue stores {rows} rows per step",
                        f"use ({rows}, {en})")
    if en % step or n % en:
        raise _tile_err("epilogue_tile", cfg.epilogue_tile, f"N must be a multiple of {step} that divides CTA N ({n})",
                        "use 32 or 64, or 'auto'")
    cl = cfg.cluster
    if cl[2] != 1:
        raise _tile_err("cluster", cl, "cluster K must be 1", f"use ({cl[0]}, {cl[1]}, 1)")
    if any(c not in (1, 2, 4, 8) for c in cl) or cl[0] * cl[1] > info.max_cluster_size:
        raise _tile_err("cluster", cl, f"cluster dims are powers of two with at most {info.max_cluster_size} CTAs",
                        "use (2, 1, 1) or (1, 2, 1)")
    if cfg.scheduler.startswith("stream_k") and cfg.mainloop != "cooperative":
        raise _tile_err("scheduler", cfg.scheduler, "stream-K runs with the cooperative schedule only",
                        "set mainloop='cooperative' (CTA M=128 or 256)")
    if spec.tile.pdl and cfg.scheduler not in PDL_SCHEDULERS:
        raise _tile_err("pdl", True, f"CUTLASS's stream-K scheduler does not compile with PDL ({cfg.scheduler})",
                        "use scheduler='persistent' with pdl=True, or pdl=False")
    if spec.tile.opaque_pipeline and not (fp8 and not cfg.fp8_fast_accum and k == 128):
        raise _tile_err("opaque_pipeline", True, "applies to the exact-fp8 mainloop only (fp8 operands without "
                        "fp8_fast_accum, CTA K 128), whose k-tile loop it changes", "remove it")
    if spec.tile.fitted_tail and (why := tail_box_why(spec, cfg)):
        raise _tile_err("fitted_tail", True, why, "remove it")
    if cfg.split_k > 1 and cfg.scheduler != "stream_k":
        # with stream_k_always, CUTLASS would silently drop the stream-K decomposition for split-K
        raise _tile_err("split_k", cfg.split_k, "split-K runs through the stream-K scheduler's split-K decomposition",
                        "set scheduler='stream_k' (with the cooperative mainloop)")
    if cfg.split_k > MAX_SPLIT_K:
        raise _tile_err("split_k", cfg.split_k, f"more than {MAX_SPLIT_K} K slices only adds reduction traffic",
                        f"use at most {MAX_SPLIT_K}")
    if cfg.stages != "auto" and cfg.stages < 2:
        raise _tile_err("stages", cfg.stages, "the TMA pipeline needs at least 2 stages", "use 'auto'")
    if cfg.smem_bytes > info.smem_per_block or (cfg.stages == "auto" and
                                                (info.smem_per_block - cfg.smem_bytes) < 0):
        raise _tile_err("stages", cfg.stages, f"needs about {cfg.smem_bytes} bytes of shared memory with the "
                        f"epilogue, over the {info.smem_per_block} of sm90", "use fewer stages or 'auto'")
    if cfg.stages == "auto" and cfg.mainloop_stages < 2:
        raise _tile_err("cta", cfg.cta, "fewer than 2 mainloop stages fit beside the epilogue",
                        "use a smaller CTA K or N")
    if cfg.swizzle != "auto" and cfg.swizzle not in (1, 2, 4, 8):
        raise _tile_err("swizzle", cfg.swizzle, "scheduler max swizzle is 1, 2, 4 or 8", "use 'auto'")
