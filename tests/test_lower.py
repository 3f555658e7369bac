"""Lowering decisions the templates only spell: swap_ab (D^T = B^T A^T), split-K, stream-K and PDL, checked on the
context and the rendered source (their numerics are checked on the GPU: tests/gpu_specs.py's sm90_swap_* kernels)."""
import dataclasses
import re

import pytest

import cutlassgen as cg
from cutlassgen import Activation, Add, GemmSpec, Multiply, Operand, Sm90Tile, StoreAux
from cutlassgen.lower import lower
from cutlassgen.tiles import resolve


def spec(**tile):
    return GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), c=Operand("bf16"), d=Operand("bf16"),
                    tile=Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), mainloop="pingpong", **tile),
                    epilogue=[Multiply("per_row", "sa", "fp32"), Add("per_col", "bias", "bf16"), Add("tensor", "res"),
                              StoreAux("pre", "bf16"), Activation("relu")])


def bcast_kinds(ctx):
    return {n["slot"].name: n["kind"] for n in ctx["epi_nodes"] if n["kind"] in ("row_bcast", "col_bcast")}


def test_plain_lowering_keeps_the_problem_as_is():
    ctx = lower(spec())
    assert (ctx["kernel_m"], ctx["kernel_n"], ctx["kernel_a"], ctx["kernel_b"]) == ("m", "n", "a", "b")
    assert (ctx["layout_a"], ctx["layout_b"], ctx["layout_d"]) == (
        "cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor", "cutlass::layout::RowMajor")
    assert bcast_kinds(ctx) == {"sa": "col_bcast", "bias": "row_bcast"}


def test_swap_ab_exchanges_operands_flips_layouts_and_vectors():
    ctx = lower(spec(swap_ab=True))
    assert (ctx["kernel_m"], ctx["kernel_n"], ctx["kernel_a"], ctx["kernel_b"]) == ("n", "m", "b", "a")
    # A' = B^T of a K-major B is K-major (row), B' = A^T column, D^T of a row-major D is column-major.
    assert (ctx["layout_a"], ctx["layout_b"], ctx["layout_d"]) == (
        "cutlass::layout::RowMajor", "cutlass::layout::ColumnMajor", "cutlass::layout::ColumnMajor")
    assert bcast_kinds(ctx) == {"sa": "row_bcast", "bias": "col_bcast"}  # per-row of D is per-column of D^T
    src = cg.render(spec(swap_ab=True))
    assert "{static_cast<int>(p.n), static_cast<int>(p.m), static_cast<int>(p.k), 1}" in src
    assert "static_cast<ElementA const*>(p.b), cutlassgen::make_stride_ld<StrideA>(p.ldb)" in src
    assert "using LayoutC = LayoutD;" in src  # C and the aux output follow D's flipped layout


def test_only_swap_ab_kernels_bulk_copy_their_column_broadcasts():
    # Measured on the H200 (bench/results/h200_tile_probe.log run 27): faster for swapped decode tiles, slower for
    # the per-row scales of unswapped fp8 tiles, which keep CUTLASS's Sm90ColBroadcast.
    swapped, plain = cg.render(spec(swap_ab=True)), cg.render(spec())
    assert ("using Epi3 = cutlassgen::BulkBroadcast<EpiDispatch::StagesC, TileShape, cutlass::bfloat16_t, float, "
            "/*AlongN=*/false>") in swapped
    assert '#include "cutlassgen/bulk_broadcast.hpp"' in swapped and "Sm90ColBroadcast" not in swapped
    assert "using Epi1 = Sm90RowBroadcast<" in swapped  # row broadcasts keep CUTLASS's node by default
    assert "Sm90ColBroadcast<0, TileShape, float, float" in plain and "BulkBroadcast" not in plain


def test_direct_store_writes_d_from_each_threads_accumulators_and_refuses_what_it_cannot_evaluate():
    # lower.DIRECT_STORE (a study setting, bench/tile_probe.py directstore): csrc/cutlassgen/direct_store.hpp instead
    # of CUTLASS's TMA epilogue; the tree becomes one expression per element, a per-column vector of D (per-row of
    # the swapped kernel's D^T) read at the kernel's row.
    def bias_gelu(swap_ab):
        return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"),
                        tile=Sm90Tile(cta=(64, 64, 128), cluster=(4, 1, 1) if swap_ab else (1, 1, 1),
                                      mainloop="pingpong", swap_ab=swap_ab),
                        epilogue=[Add("per_col", "bias", "bf16"), Activation("gelu_tanh")])

    default, default_unswapped = cg.render(bias_gelu(True)), cg.render(bias_gelu(False))
    with cg.lower.settings(DIRECT_STORE="swap_ab"):
        ctx, src = lower(bias_gelu(True)), cg.render(bias_gelu(True))
        unswapped_src = cg.render(bias_gelu(False))
    assert ctx["direct_store"] == {"members": [{"element": "cutlass::bfloat16_t", "ptr": 0}]}
    assert not ctx["bulk_col_broadcast"]  # the expression reads the vector itself
    assert ("cutlassgen::apply_unary<cutlassgen::epi::GeluTanh<cutlass::Array<float, 1>>>(cutlass::plus<float>{}(acc, "
            "static_cast<float>(in0[row])))") in src
    assert "cutlassgen::DirectStoreEpilogue<StrideD, ElementD, DirectEpilogue>" in src
    assert "{{static_cast<cutlass::bfloat16_t const*>(p.ptrs[0])}," in src
    assert "Sm90EVT" not in src and "BulkBroadcast" not in src and "DirectEpilogue" not in default
    assert unswapped_src == default_unswapped  # "swap_ab" leaves unswapped kernels to the TMA epilogue
    with cg.lower.settings(DIRECT_STORE="always"):
        assert "in0[col]" in cg.render(bias_gelu(False))  # unswapped, the bias runs along the kernel's columns
        plain = cg.render(bias_gelu(True).replace(epilogue=[]))
        assert "return cutlassgen::apply_unary<cutlassgen::epi::Identity<cutlass::Array<float, 1>>>(acc);" in plain
        # spec()'s epilogue has a C source and an aux store: a message, not a C++ error a minute later
        with pytest.raises(ValueError, match="DIRECT_STORE.*not"):
            lower(spec(swap_ab=True))
    with cg.lower.settings(DIRECT_STORE="swapab"), pytest.raises(ValueError, match="one of never, swap_ab, always"):
        lower(bias_gelu(True))


def test_exact_fp8_takes_the_promotion_schedule_on_every_tile_of_its_interval(monkeypatch):
    # csrc/cutlassgen/full_promotion.hpp (the default schedule): faster than CUTLASS's FP8 mainloop on the 128x128x128
    # cooperative tile (probe run 168) and on the plan's other tiles, swapped, ping-pong and 192-row ones (runs
    # 169-170); overlapped_promotion.hpp's halves (probe runs 161-162) spilled on tiles but that one.
    def overlapped(s):
        return lower(s)["overlapped_promotion"]

    def tile(cta, a="e4m3", **kw):
        return spec().replace(a=Operand(a), b=Operand(a, "column"),
                              tile=Sm90Tile(cta=cta, **{"cluster": (1, 1, 1), "mainloop": "cooperative", **kw}))

    assert overlapped(tile((128, 128, 128))) == "full" == overlapped(tile((128, 128, 128), cluster=(2, 1, 1)))
    src = cg.render(tile((128, 128, 128), cluster=(2, 1, 1)))
    assert '#include "cutlassgen/full_promotion.hpp"' in src and "overlapped_promotion.hpp" not in src
    assert "using CollectiveMainloop = cutlassgen::MainloopFullPromotion<BuiltMainloop>;" in src
    assert overlapped(tile((128, 192, 128))) == "full" == overlapped(tile((192, 48, 128), mainloop="pingpong"))
    swapped = tile((64, 40, 128), mainloop="pingpong", swap_ab=True)
    assert overlapped(swapped) == "full"  # under load_hints.hpp's weight loads, which take it as their Base
    assert "cutlassgen::MainloopLoadHints<PromotingMainloop, " in cg.render(swapped)
    assert not overlapped(tile((128, 128, 128), fp8_fast_accum=True))  # no promotion at all
    assert not overlapped(tile((128, 128, 64)))  # two k tiles per promotion: CUTLASS's mainloop
    assert not overlapped(tile((128, 128, 64), a="bf16"))
    # PROMOTION_TILES "coop128": only the unswapped 128x128x128 cooperative tile (the rule until session 58)
    with cg.lower.settings(PROMOTION_TILES="coop128"):
        assert overlapped(tile((128, 128, 128))) == "full"
        assert not overlapped(tile((128, 128, 128), swap_ab=True))
        assert not overlapped(tile((128, 192, 128)))
        assert not overlapped(tile((64, 128, 128), mainloop="pingpong"))
    with cg.lower.settings(PROMOTION_SCHEDULE="halves"):  # the halves need two wgmma N of 8
        assert overlapped(tile((128, 96, 128))) == "halves" and not overlapped(tile((128, 120, 128)))
    monkeypatch.setattr(cg.lower, "PROMOTION_TILES", "every")
    with pytest.raises(ValueError, match="PROMOTION_TILES = 'every': one of coop128, all"):
        overlapped(tile((128, 128, 128)))
    monkeypatch.setattr(cg.lower, "PROMOTION_TILES", "all")
    # under load_hints.hpp's loads (here the fitted last token box of every unswapped tile) it is their Base
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "all")
    hinted = cg.render(tile((128, 128, 128)))
    assert "using PromotingMainloop = cutlassgen::MainloopFullPromotion<BuiltMainloop, 8>;" in hinted
    assert "cutlassgen::MainloopLoadHints<PromotingMainloop, " in hinted
    monkeypatch.setattr(cg.lower, "PROMOTION_SCHEDULE", "halves")
    halves = cg.render(tile((128, 128, 128)))
    assert overlapped(tile((128, 128, 128))) == "halves" and "full_promotion" not in halves
    assert '#include "cutlassgen/overlapped_promotion.hpp"' in halves
    assert "using PromotingMainloop = cutlassgen::MainloopOverlappedPromotion<BuiltMainloop>;" in halves
    monkeypatch.setattr(cg.lower, "PROMOTION_SCHEDULE", "overlapped")  # a typo is an error, not the default
    with pytest.raises(ValueError, match="PROMOTION_SCHEDULE = 'overlapped': one of full, halves"):
        overlapped(tile((128, 128, 128)))
    monkeypatch.setattr(cg.lower, "PROMOTION_SCHEDULE", "full")
    monkeypatch.setattr(cg.lower, "OVERLAPPED_PROMOTION", False)
    assert not overlapped(tile((128, 128, 128)))
    assert "_promotion" not in cg.render(tile((128, 128, 128)))


def test_opaque_pipeline_setting_renders_only_into_the_full_promotion_mainloop():
    # lower.OPAQUE_PIPELINE (a study setting, off: probe runs 229-232) hides the pipeline object of "full" from ptxas,
    # always or up to a k tile count; off, the source is as before, so the cache keys of kernels built before it hold.
    fp8 = spec().replace(a=Operand("e4m3"), b=Operand("e4m3", "column"),
                         tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative"))
    fast = fp8.replace(tile=dataclasses.replace(fp8.tile, fp8_fast_accum=True))  # no promotion, nothing to hide
    k64 = fp8.replace(tile=dataclasses.replace(fp8.tile, cta=(128, 128, 64)))  # CUTLASS's own FP8 mainloop
    others = [fast, k64, k64.replace(a=Operand("bf16"), b=Operand("bf16", "column"))]
    with cg.lower.settings(OPAQUE_PIPELINE=False):  # the plain loop alone, every tile's before session 68
        shipped = cg.render(fp8)
    assert "using CollectiveMainloop = cutlassgen::MainloopFullPromotion<BuiltMainloop>;" in shipped
    assert "OPAQUE_PIPELINE" not in shipped
    with cg.lower.settings(OPAQUE_PIPELINE=True):
        opaque = cg.render(fp8)
        assert ("using CollectiveMainloop = cutlassgen::MainloopFullPromotion<BuiltMainloop, "
                "cutlassgen::kAlwaysOpaque>;") in opaque
        assert opaque != shipped
        with cg.lower.settings(PROMOTION_SCHEDULE="halves"):  # the halves' mainloop takes no such parameter
            assert "MainloopOverlappedPromotion<BuiltMainloop>;" in cg.render(fp8)
        opaque_others = [cg.render(s) for s in others]
    # kernels without the full promotion mainloop render the same source under the setting
    assert opaque_others == [cg.render(s) for s in others]
    # a k tile count: both loops built, the hidden one for tiles of at most that many k tiles (K <= 1024 here)
    with cg.lower.settings(OPAQUE_PIPELINE=8):
        assert lower(fp8)["opaque_pipeline"] == "8"
        assert "cutlassgen::MainloopFullPromotion<BuiltMainloop, 8>;" in cg.render(fp8)
    for wrong in (0, -1, 2**31 - 1, "yes", 1.5, "None"):  # a typo must not pass for one of the loops
        with cg.lower.settings(OPAQUE_PIPELINE=wrong), pytest.raises(ValueError, match="OPAQUE_PIPELINE = "):
            lower(fp8)


def test_exact_fp8s_c1x1_128x128_tile_builds_both_loops_and_no_other_tile_does():
    # lower.BOTH_LOOPS_TILE (session 68, runs 245-246): the default OPAQUE_PIPELINE (None) builds the exact-fp8
    # default tile, 128x128x128 c1x1 cooperative persistent unswapped, as OPAQUE_PIPELINE = 8 does; its neighbours
    # (c2x1, where that form ran behind; ping-pong; stream-K; swapped) keep the plain loop alone
    tile = Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative")
    fp8 = spec().replace(a=Operand("e4m3"), b=Operand("e4m3", "column"), tile=tile)
    assert cg.lower.OPAQUE_PIPELINE is None and lower(fp8)["opaque_pipeline"] == "8"
    assert "cutlassgen::MainloopFullPromotion<BuiltMainloop, 8>;" in cg.render(fp8)
    auto = fp8.replace(tile=Sm90Tile())  # the spec's default tile, resolved: the same kernel
    assert resolve(auto).cta == (128, 128, 128) and lower(auto)["opaque_pipeline"] == "8"
    for other in (dict(cluster=(2, 1, 1)), dict(mainloop="pingpong", cta=(64, 128, 128)), dict(scheduler="stream_k"),
                  dict(swap_ab=True, mainloop="pingpong", cta=(64, 128, 128)), dict(cta=(128, 192, 128))):
        neighbour = fp8.replace(tile=dataclasses.replace(tile, **other))
        assert lower(neighbour)["opaque_pipeline"] is None, other
    with cg.lower.settings(OPAQUE_PIPELINE=False):
        assert lower(fp8)["opaque_pipeline"] is None
    fast = fp8.replace(tile=dataclasses.replace(tile, fp8_fast_accum=True))  # no promotion mainloop to build it into
    assert "MainloopFullPromotion" not in cg.render(fast)


def test_an_opaque_pipeline_tile_renders_the_hidden_loop_and_nothing_else():
    # Sm90Tile.opaque_pipeline, what the per-shape plan sets for exact fp8 at K <= 2048: the setting's "always" form
    # for that tile alone; its source differs from the shipped tile's in that line only
    fp8 = spec().replace(a=Operand("e4m3"), b=Operand("e4m3", "column"),
                         tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative"))
    opaque = fp8.replace(tile=dataclasses.replace(fp8.tile, opaque_pipeline=True))
    assert lower(opaque)["opaque_pipeline"] == "cutlassgen::kAlwaysOpaque"
    with cg.lower.settings(OPAQUE_PIPELINE=True):
        as_setting = cg.render(fp8)
    differ = [(x, y) for x, y in zip(cg.render(opaque).splitlines(), as_setting.splitlines()) if x != y]
    assert differ and all(opaque.key in x or "cgspec" in x for x, _ in differ), differ  # the spec it names, embeds
    with cg.lower.settings(PROMOTION_SCHEDULE="halves"), pytest.raises(ValueError, match="opaque_pipeline=True"):
        lower(opaque)  # only a study setting can take "full" away from such a tile


def swapped_weights_evict_first() -> dict:
    """LOAD_HINTS with the swapped tiles' weights (the problem's B, their kernel's A) EVICT_FIRST: the setting every
    swapped kernel rendered under until session 82, and the probes' way to load them so without the flag."""
    return {"a": cg.lower.LOAD_HINTS["a"], "b": {**cg.lower.LOAD_HINTS["b"], "swap_ab": "EVICT_FIRST"}}


def test_a_weights_evict_first_tile_loads_only_its_weights_evict_first():
    # Sm90Tile.weights_evict_first (what the per-shape plan sets where the weights take over 36 MiB, on swapped tiles
    # and on unswapped ones at 97-256 rows): the problem's B EVICT_FIRST, A as LOAD_HINTS has it; the same tile
    # without it keeps CUTLASS's mainloop as built; a swapped tile alike, its kernel's A being the weights
    fast = spec().replace(a=Operand("e4m3"), b=Operand("e4m3", "column"),
                          tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative",
                                        fp8_fast_accum=True))
    first = fast.replace(tile=dataclasses.replace(fast.tile, weights_evict_first=True))
    assert lower(first)["load_hints"] == ("EVICT_NORMAL", "EVICT_FIRST") and lower(fast)["load_hints"] is None
    hinted = ("MainloopLoadHints<BuiltMainloop, cute::TMA::CacheHintSm90::EVICT_NORMAL,\n"
              "                                                         cute::TMA::CacheHintSm90::EVICT_FIRST")
    assert hinted + f", cutlassgen::kNoTailOperand, {cg.lower.WEIGHTS_KEEP_MIB}>" in cg.render(first)  # the part kept
    with cg.lower.settings(WEIGHTS_KEEP_MIB=0):
        assert hinted + ">" in cg.render(first)
    assert "load_hints.hpp" not in cg.render(fast)
    assert first.key != fast.key and "weights_evict_first" not in str(fast.to_dict())  # old keys hold
    # exact fp8 (its promotion mainloop under the hints), bf16, and an int8 pingpong tile take it alike
    exact = first.replace(tile=dataclasses.replace(first.tile, fp8_fast_accum=False))
    bf16 = spec().replace(a=Operand("bf16"), b=Operand("bf16", "column"),
                          tile=Sm90Tile(cta=(128, 192, 64), cluster=(2, 1, 1), mainloop="cooperative",
                                        weights_evict_first=True))
    int8 = spec().replace(a=Operand("int8"), b=Operand("int8", "column"), accumulator="int32",
                          tile=Sm90Tile(cta=(64, 160, 128), cluster=(2, 1, 1), mainloop="pingpong",
                                        weights_evict_first=True))
    for other in (exact, bf16, int8):
        assert lower(other)["load_hints"] == ("EVICT_NORMAL", "EVICT_FIRST"), other.tile
        # (the pingpong tile's last token tile in a box of its own: a third parameter)
        assert re.search(r"MainloopLoadHints<\w+, cute::TMA::CacheHintSm90::EVICT_NORMAL,\s+"
                         r"cute::TMA::CacheHintSm90::EVICT_FIRST(, 0|, cutlassgen::kNoTailOperand), "
                         rf"{cg.lower.WEIGHTS_KEEP_MIB}>", cg.render(other)), other.tile
    assert "full_promotion.hpp" in cg.render(exact)
    swapped = spec(swap_ab=True).replace(tile=Sm90Tile(swap_ab=True, weights_evict_first=True))
    assert lower(swapped)["load_hints"] == ("EVICT_FIRST", "EVICT_NORMAL") and swapped.key != spec(swap_ab=True).key
    assert re.search(r"MainloopLoadHints<\w+, cute::TMA::CacheHintSm90::EVICT_FIRST,\s+"
                     rf"cute::TMA::CacheHintSm90::EVICT_NORMAL, 1, {cg.lower.WEIGHTS_KEEP_MIB}>", cg.render(swapped))
    # with nothing kept, the flag is the setting that every swapped kernel rendered under until session 82, and
    # nothing more: the same source but the spec it names and embeds (so the flagged kernels run the code the GPU
    # suite ran then)
    unflagged = swapped.replace(tile=dataclasses.replace(swapped.tile, weights_evict_first=False))
    with cg.lower.settings(LOAD_HINTS=swapped_weights_evict_first()):
        as_setting = cg.render(unflagged).splitlines()
    with cg.lower.settings(WEIGHTS_KEEP_MIB=0):
        flagged = cg.render(swapped).splitlines()
    differ = [(x, y) for x, y in zip(flagged, as_setting) if x != y]
    assert len(flagged) == len(as_setting) and differ, differ
    assert all(swapped.key in x or "cgspec" in x for x, _ in differ), differ


def test_weights_keep_mib_keeps_the_first_mib_of_a_weights_first_tiles_weights_only():
    # lower.WEIGHTS_KEEP_MIB (16 since session 92, bench/tile_probe.py keepweights): a weights-first tile's first MiB
    # of weights load EVICT_NORMAL (load_hints.hpp's KeepMiB); a kernel without the flag renders as before, one whose
    # weights LOAD_HINTS makes EVICT_FIRST (the probes' setting) too
    assert cg.lower.WEIGHTS_KEEP_MIB == 16
    swapped = spec(swap_ab=True).replace(tile=Sm90Tile(swap_ab=True, weights_evict_first=True))
    plain = spec(swap_ab=True)
    first, cutlass_loads = cg.render(swapped), cg.render(plain)
    evict_first_setting = swapped_weights_evict_first()
    with cg.lower.settings(LOAD_HINTS=evict_first_setting):
        as_setting = cg.render(plain)
    with cg.lower.settings(WEIGHTS_KEEP_MIB=24):
        kept = cg.render(swapped)
        assert cg.render(plain) == cutlass_loads
        with cg.lower.settings(LOAD_HINTS=evict_first_setting):
            assert cg.render(plain) == as_setting and "MiB load EVICT_NORMAL" not in as_setting
    assert re.search(r"CacheHintSm90::EVICT_NORMAL, (1|cutlassgen::kNoTailOperand), 24>;", kept), kept
    assert "first 24 MiB load EVICT_NORMAL" in kept and "first 16 MiB load EVICT_NORMAL" in first
    assert cg.render(swapped) == first  # restored after the block
    for bad in (-1, 1.5, "24", True):
        with cg.lower.settings(WEIGHTS_KEEP_MIB=bad), pytest.raises(ValueError, match="WEIGHTS_KEEP_MIB"):
            lower(swapped)


def test_kernels_load_as_cutlass_does_unless_a_setting_or_the_tile_says_otherwise(monkeypatch):
    # No policy helped every tile at every weights size on the H200 (tiles.WEIGHTS_FIRST_MIN_BYTES): swapped and
    # unswapped kernels keep CUTLASS's mainloop as built; LOAD_HINTS (the probes' setting) and the tile's
    # weights_evict_first wrap it. (The fitted last token box, which also takes the hinted mainloop, has a test of its
    # own below.)
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "never")
    monkeypatch.setattr(cg.lower, "OVERLAPPED_PROMOTION", False)  # tested above; it wraps the mainloop too
    swapped, plain = lower(spec(swap_ab=True)), lower(spec())
    assert swapped["load_hints"] is None and plain["load_hints"] is None
    assert "load_hints.hpp" not in cg.render(spec(swap_ab=True))
    monkeypatch.setattr(cg.lower, "LOAD_HINTS", {"a": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_NORMAL"},
                                                 "b": {"swap_ab": "EVICT_FIRST", "plain": "EVICT_NORMAL"}})
    assert lower(spec(swap_ab=True))["load_hints"] == ("EVICT_FIRST", "EVICT_NORMAL")  # the kernel's A: the weights
    src = cg.render(spec(swap_ab=True))
    assert '#include "cutlassgen/load_hints.hpp"' in src
    assert ("using CollectiveMainloop = cutlassgen::MainloopLoadHints<BuiltMainloop, "
            "cute::TMA::CacheHintSm90::EVICT_FIRST,") in src
    assert "GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop," in src
    assert "load_hints.hpp" not in cg.render(spec()) and "BuiltMainloop" not in cg.render(spec())
    # the setting names the problem's operands: B (the weights) is the kernel's B when unswapped
    monkeypatch.setattr(cg.lower, "LOAD_HINTS", {"a": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_LAST"},
                                                 "b": {"swap_ab": "EVICT_NORMAL", "plain": "EVICT_FIRST"}})
    assert lower(spec())["load_hints"] == ("EVICT_LAST", "EVICT_FIRST")
    assert lower(spec(swap_ab=True))["load_hints"] is None
    # evict_normal as a policy operand (CuTe's EVICT_NORMAL reads evict_unchanged) renders as cutlassgen's constant
    monkeypatch.setattr(cg.lower, "LOAD_HINTS", {"a": {"swap_ab": "L2_EVICT_NORMAL", "plain": "L2_EVICT_NORMAL"},
                                                 "b": {"swap_ab": "EVICT_FIRST", "plain": "EVICT_NORMAL"}})
    assert lower(spec())["load_hint_exprs"] == ["cutlassgen::kL2EvictNormal", "cute::TMA::CacheHintSm90::EVICT_NORMAL"]
    assert ("MainloopLoadHints<BuiltMainloop, cute::TMA::CacheHintSm90::EVICT_FIRST,\n"
            "                                                         cutlassgen::kL2EvictNormal>") in cg.render(
        spec(swap_ab=True))
    # no policy operand at all: the header's sentinel, which load() turns into loads without .L2::cache_hint
    monkeypatch.setattr(cg.lower, "LOAD_HINTS", {"a": {"swap_ab": "NO_POLICY", "plain": "NO_POLICY"},
                                                 "b": {"swap_ab": "NO_POLICY", "plain": "NO_POLICY"}})
    assert lower(spec())["load_hint_exprs"] == ["cutlassgen::kNoL2Policy"] * 2


def token_spec(dtype="bf16", cta=(64, 32, 64), cluster=(1, 1, 1), swap_ab=True, a_layout="row", d="bf16"):
    return GemmSpec(arch=90, a=Operand(dtype, a_layout), b=Operand(dtype, "column"), d=Operand(d),
                    tile=Sm90Tile(cta=cta, cluster=cluster, mainloop="pingpong", swap_ab=swap_ab))


def test_the_last_token_tile_loads_one_box_fitted_to_its_rows_where_the_setting_and_the_operand_allow(monkeypatch):
    # A box partly past a bare activation tensor's end cost up to 1.4x the call on the H200 (bench/NOTES.md session
    # 48): the token operand (the kernel's B when swapped, else its A) of the last token tile loads a fitted box.
    # On by default for swapped tiles and unswapped ones of 64 token rows ("swap_ab+m64"); "all" takes every unswapped
    # tile, "swap_ab" none (CUTLASS's mainloop for them).
    assert cg.lower.TAIL_LOADS == "swap_ab+m64"
    swapped = lower(token_spec())
    assert swapped["tail_operand"] == 1 and swapped["load_hints"] == ("EVICT_NORMAL", "EVICT_NORMAL")
    assert "cute::TMA::CacheHintSm90::EVICT_NORMAL, 1>;" in cg.render(token_spec())
    assert lower(token_spec("int8", cta=(64, 32, 128)))["tail_operand"] == 1  # 8-bit: 128 of K is one column
    unswapped = token_spec(cta=(64, 128, 64), swap_ab=False)
    assert lower(unswapped)["tail_operand"] == 0 and lower(unswapped)["load_hints"] == ("EVICT_NORMAL",) * 2
    assert "cute::TMA::CacheHintSm90::EVICT_NORMAL, 0>;" in cg.render(unswapped)
    tall = token_spec(cta=(128, 128, 64), cluster=(2, 1, 1), swap_ab=False)  # B multicast: A takes the box
    assert lower(tall)["tail_operand"] is None and lower(tall)["load_hints"] is None  # 128 token rows: CuTe's loads
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "all")
    assert lower(tall)["tail_operand"] == 0 and lower(unswapped)["tail_operand"] == 0
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "swap_ab")
    assert lower(unswapped)["tail_operand"] is None and lower(unswapped)["load_hints"] is None
    assert lower(token_spec())["tail_operand"] == 1
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "all")
    # where the box cannot be fitted: a token tile multicast over the cluster (each CTA loads a slice of it), tf32
    # tokens, 64 bytes of K (half a 128-byte swizzle column), column-major activations
    for refused in (token_spec(cluster=(2, 1, 1)), token_spec(cta=(64, 128, 64), cluster=(1, 2, 1), swap_ab=False),
                    token_spec("fp32", cta=(64, 32, 32), d="fp32"), token_spec("e4m3"), token_spec(a_layout="column")):
        assert lower(refused)["tail_operand"] is None
        assert not cg.render(refused).count(", 1>;") + cg.render(refused).count(", 0>;")
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "never")
    assert lower(token_spec())["tail_operand"] is None and lower(unswapped)["load_hints"] is None
    assert lower(token_spec())["load_hints"] is None and "load_hints.hpp" not in cg.render(token_spec())
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "al")  # a typo is refused, not taken for "all"
    with pytest.raises(ValueError, match="'al': one of never, swap_ab, swap_ab\\+m64, all"):
        lower(token_spec())


def test_a_fitted_tail_tile_renders_the_fitted_box_whatever_tail_loads_says_and_nothing_else(monkeypatch):
    """Sm90Tile.fitted_tail (the per-shape plan's ragged-M twin of fp8 fast's 128x128 pingpong, tiles.fitted_twin):
    the tile's source is its twin's with the token operand's fitted last box (load_hints.hpp's producer), under any
    TAIL_LOADS, and the same as TAIL_LOADS "all" renders for the tile without it."""
    fast = GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=Operand("bf16"),
                    tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="pingpong", fp8_fast_accum=True))
    twin = fast.replace(tile=dataclasses.replace(fast.tile, fitted_tail=True))
    assert lower(fast)["tail_operand"] is None and "load_hints.hpp" not in cg.render(fast)
    assert lower(twin)["tail_operand"] == 0 and lower(twin)["load_hints"] == ("EVICT_NORMAL",) * 2

    def body(spec):  # the source but for the lines that name the spec (its key, its JSON)
        return [line for line in cg.render(spec).splitlines()
                if not line.startswith(("// Generated by cutlassgen", "#define CUTLASSGEN_SPEC_JSON"))]

    with cg.lower.settings(TAIL_LOADS="all"):
        as_all = body(fast)
    for mode in cg.lower.TAIL_LOAD_MODES:
        with cg.lower.settings(TAIL_LOADS=mode):
            assert body(twin) == as_all, mode
    # against the tile's CuTe loads: the mainloop wrapped in load_hints.hpp's, nothing else
    changed = set(as_all) ^ set(body(fast))
    words = ("load_hints.hpp", "Mainloop", "token operand", "EVICT_NORMAL", "fitted")
    assert changed and all(any(word in line for word in words) for line in changed), changed


def test_settings_hold_for_the_block_and_refuse_a_name_that_is_not_one():
    unswapped = token_spec(cta=(64, 128, 64), swap_ab=False)
    with cg.lower.settings(TAIL_LOADS="never", STREAM_K_REDUCTION="Nondeterministic"):
        assert lower(unswapped)["tail_operand"] is None and cg.lower.STREAM_K_REDUCTION == "Nondeterministic"
    assert lower(unswapped)["tail_operand"] == 0 and cg.lower.STREAM_K_REDUCTION == "Deterministic"
    with pytest.raises(RuntimeError), cg.lower.settings(TAIL_LOADS="never"):
        raise RuntimeError  # restored on the way out of a failed block too
    assert cg.lower.TAIL_LOADS == "swap_ab+m64"
    with pytest.raises(ValueError, match="no setting TAIL_LOAD; settings: BULK_COL_BROADCAST"):
        with cg.lower.settings(TAIL_LOAD="never"):
            pass
    assert cg.lower.TAIL_LOADS == "swap_ab+m64"


def test_epi_store_stages_sets_the_d_buffers_and_renders_nothing_at_its_default():
    exact = GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e4m3", "column"), d=Operand("bf16"),
                     tile=Sm90Tile(cta=(128, 128, 128), cluster=(1, 1, 1), mainloop="cooperative",
                                   epilogue_tile=(128, 32)))
    default = cg.render(exact)
    assert "CutlassEpiDispatch" not in default and "Sm90TmaBuilderImpl" not in default
    with cg.lower.settings(EPI_STORE_STAGES=4):
        src = cg.render(exact)
    # CUTLASS's own policy but for D's buffer count, which only the builder's implementation takes
    assert "cutlass::epilogue::Sm90TmaWarpSpecialized<CutlassEpiDispatch::StagesC, 4," in src
    assert "Sm90TmaBuilderImpl<" in src and "FusionCallbacks, EpiDispatch>::CollectiveOp" in src
    assert cg.render(exact) == default


def test_swap_ab_with_mixed_fp8_puts_b_type_first():
    s = GemmSpec(arch=90, a=Operand("e4m3"), b=Operand("e5m2", "column"), d=Operand("bf16"),
                 tile=Sm90Tile(cta=(64, 32, 128), cluster=(1, 1, 1), mainloop="pingpong", swap_ab=True))
    ctx = lower(s)
    assert (ctx["element_a"], ctx["element_b"]) == ("cutlass::float_e5m2_t", "cutlass::float_e4m3_t")


def test_split_k_sets_the_scheduler_splits_only_when_asked():
    tile = dict(cta=(128, 64, 64), cluster=(1, 1, 1), scheduler="stream_k")
    base = GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"))
    assert "args.scheduler.splits" not in cg.render(base.replace(tile=tile))
    src = cg.render(base.replace(tile={**tile, "split_k": 3}))
    assert "args.scheduler.splits = 3;" in src and "cutlass::gemm::StreamKScheduler" in src


def test_stream_k_always_forces_the_stream_k_decomposition():
    tile = dict(cta=(128, 64, 64), cluster=(1, 1, 1))
    base = GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"))
    forced = "decomposition_mode = decltype(args.scheduler.decomposition_mode)::StreamK;"
    assert forced not in cg.render(base.replace(tile={**tile, "scheduler": "stream_k"}))  # CUTLASS's heuristic
    src = cg.render(base.replace(tile={**tile, "scheduler": "stream_k_always"}))
    assert forced in src and "cutlass::gemm::StreamKScheduler" in src


def test_stream_k_reduction_setting_renders_only_off_cutlass_default(monkeypatch):
    from cutlassgen import lower

    base = GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"),
                    tile=Sm90Tile(cta=(128, 64, 64), scheduler="stream_k", split_k=4))
    concurrent = "reduction_mode = decltype(args.scheduler.reduction_mode)::Nondeterministic;"
    turnstile = cg.render(base)
    assert "reduction_mode" not in turnstile  # CUTLASS's default: the source, and so the cache key, as before
    monkeypatch.setattr(lower, "STREAM_K_REDUCTION", "Nondeterministic")
    assert concurrent in cg.render(base)
    assert "reduction_mode" not in cg.render(base.replace(tile={"scheduler": "persistent", "split_k": 1}))


def test_pdl_turns_on_cutlass_grid_dependency_control_only_when_asked():
    define = "#define CUTLASS_ENABLE_GDC_FOR_SM90 1"
    src = cg.render(spec(pdl=True))
    assert define in src and src.index(define) < src.index('#include "cutlassgen/kernel_common.hpp"')
    assert define not in cg.render(spec())


def test_swizzle_auto_is_chosen_per_call_from_the_kernels_tile_grid():
    src = cg.render(spec())  # swizzle left "auto"
    assert "max_swizzle_size = cutlassgen::auto_swizzle(p.m, p.n, 64, 32,\n" in src
    swapped = cg.render(spec(swap_ab=True))  # the kernel's M is the problem's N
    assert "max_swizzle_size = cutlassgen::auto_swizzle(p.n, p.m, 64, 32," in swapped
    assert "max_swizzle_size = 1;" in cg.render(spec(swizzle=1)) and "auto_swizzle(" not in cg.render(spec(swizzle=1))


def test_epilogue_tile_is_rendered_as_given_or_as_cutlass_would_pick_it():
    assert "using EpilogueTile = Shape<_64, _32>;" in cg.render(spec())  # pingpong 64x32 CTA: CUTLASS's own pick
    wide = spec().replace(tile={"cta": [128, 128, 128], "cluster": [1, 1, 1], "mainloop": "cooperative",
                                "epilogue_tile": [128, 64]})
    assert "using EpilogueTile = Shape<_128, _64>;" in cg.render(wide)


def test_wgmma_extended_shapes_only_where_the_cta_n_needs_them():
    """CuTe's wgmma selector offers N = 8, 16, 32, 64, 96, 128, 192 and 256 unless its extended shapes are enabled,
    and splits any other CTA N into narrower instructions (80: five m64n16k16). The define costs compile time, so a
    kernel gets it only where its CTA N is not a base shape."""
    def tile(cta, epi="auto"):
        return spec().replace(tile={"cta": list(cta), "cluster": [1, 1, 1], "mainloop": "pingpong",
                                    "epilogue_tile": epi if epi == "auto" else list(epi)})

    for n in (80, 112, 144, 160, 208):  # not 224: spec() is fp8 with a promotion buffer, 2 x 112 accumulators
        src = cg.render(tile((64, n, 128)))
        assert "#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED 1" in src, n
        assert src.index("CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED") < src.index("#include"), n  # before CuTe is read
    for n in (16, 32, 64, 96, 128, 192):
        assert "CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED" not in cg.render(tile((64, n, 64))), n
    assert "using EpilogueTile = Shape<_64, _80>;" in cg.render(tile((64, 80, 128), (64, 80)))


def test_subtiles_in_steps_of_8_bypass_the_epilogue_builders_n_check():
    """CUTLASS's epilogue builder static_asserts an explicit subtile N % 16; the implementation it forwards to stores
    8-wide steps, so fp8 tiles whose CTA N is an odd multiple of 8 call that directly, and only they."""
    def tile(n, epi="auto"):
        return spec().replace(tile={"cta": [192, n, 128], "cluster": [1, 2, 1], "mainloop": "pingpong",
                                    "swap_ab": True, "fp8_fast_accum": True,
                                    "epilogue_tile": epi if epi == "auto" else list(epi)})

    narrow = cg.render(tile(72))
    assert "using EpilogueTile = Shape<_64, _72>;" in narrow  # auto: the full width, not CUTLASS's gcd(32, 72) = 8
    assert "detail::Sm90TmaBuilderImpl<" in narrow and "epilogue::collective::CollectiveBuilder<" not in narrow
    assert "CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED" in narrow
    assert "using EpilogueTile = Shape<_64, _8>;" in cg.render(tile(72, (64, 8)))
    for n, epi in ((80, "auto"), (80, (64, 80)), (96, "auto")):
        src = cg.render(tile(n, epi))
        assert "detail::Sm90TmaBuilderImpl<" not in src and "epilogue::collective::CollectiveBuilder<" in src, n


def test_16_bit_tiles_of_odd_8_row_groups_take_the_narrow_tma_mainloop(monkeypatch):
    """A 16-bit operand tile of 40, 56, 72, ... rows: CUTLASS's mainloop cannot build its TMA descriptors (CuTe's
    slice of the swizzled stage), so the builder's collective is wrapped in csrc/cutlassgen/narrow_tma.hpp, under
    load_hints.hpp's loads (whose load() takes its Params), policies or not; fp8 and 16-row multiples keep the
    builder's."""
    def bf16(cta, swap_ab, **extra):
        return GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"),
                        tile=Sm90Tile(cta=cta, cluster=(1, 1, 1), mainloop="pingpong", swap_ab=swap_ab, **extra),
                        epilogue=[Add("per_col", "bias", "bf16")])

    swapped, plain = lower(bf16((64, 40, 128), True)), lower(bf16((64, 72, 64), False))
    assert swapped["narrow_tma"] and swapped["load_hints"] == ("EVICT_NORMAL", "EVICT_NORMAL")
    first = lower(bf16((64, 40, 128), True, weights_evict_first=True))
    assert first["narrow_tma"] and first["load_hints"] == ("EVICT_FIRST", "EVICT_NORMAL")
    assert plain["narrow_tma"] and plain["load_hints"] == ("EVICT_NORMAL", "EVICT_NORMAL")
    for s in (bf16((64, 40, 128), True), bf16((64, 72, 64), False)):
        src = cg.render(s)
        assert '#include "cutlassgen/narrow_tma.hpp"' in src
        assert "using NarrowMainloop = cutlassgen::MainloopNarrowTma<BuiltMainloop>;" in src
        assert "using CollectiveMainloop = cutlassgen::MainloopLoadHints<NarrowMainloop, " in src
    for s in (bf16((64, 48, 128), True), bf16((64, 80, 64), False), spec(swap_ab=True).replace(
            tile={"cta": [64, 40, 128], "cluster": [1, 1, 1], "mainloop": "pingpong", "swap_ab": True})):
        assert not lower(s)["narrow_tma"] and "narrow_tma.hpp" not in cg.render(s), s.tile.cta
    assert lower(bf16((64, 80, 64), False))["tail_operand"] == 0  # wrapped for the fitted last token box only
    monkeypatch.setattr(cg.lower, "TAIL_LOADS", "swap_ab")
    assert lower(bf16((64, 80, 64), False))["load_hints"] is None


def run_cpp(tmp_path, body: str) -> list[int]:
    """The integers a C++ main of body prints, compiled against csrc/ with the host's compiler (no CUDA)."""
    import shutil
    import subprocess

    from cutlassgen.jit.toolchain import CSRC

    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler on PATH")
    main = tmp_path / "main.cpp"
    main.write_text(f'#include "cutlassgen/auto_swizzle.hpp"\n#include <cstdio>\n{body}\n')
    subprocess.run([cxx, "-std=c++17", f"-I{CSRC}", str(main), "-o", str(tmp_path / "main")], check=True)
    return [int(g) for g in subprocess.run([str(tmp_path / "main")], capture_output=True, text=True,
                                           check=True).stdout.split()]


def test_auto_swizzle_pads_no_tile(tmp_path):
    """csrc/cutlassgen/auto_swizzle.hpp, compiled alone: the widest strip up to 8 whose multiple (times the cluster)
    divides the tile grid, since CUTLASS pads the grid to it and runs the padded tiles."""
    cases = [  # m, n, tile_m, tile_n, cluster_m, cluster_n, expected
        (8192, 8192, 128, 256, 2, 1, 8),  # 64 x 32 tiles: strips of 8 (DRAM bytes as cuBLASLt's, h200_ncu_8192.log)
        (256, 8192, 128, 128, 2, 1, 1),  # 2 tiles along M = one cluster: any strip would pad M to 4, 8 or 16 tiles
        (256, 8192, 128, 128, 1, 1, 2),
        (1000, 4096, 128, 256, 2, 1, 4),  # 8 x 16 tiles: 8 would pad M to 16
        (8192, 32, 64, 32, 1, 1, 1),  # swap_ab decode: one tile along N
        (4096, 14336, 128, 256, 2, 1, 8),  # 32 x 56 tiles
        (4096, 14336, 128, 256, 1, 2, 4),  # 56 tiles along N is no multiple of 8 x 2
    ]
    got = run_cpp(tmp_path, "int main() {\n" + "".join(
        f'  std::printf("%d\\n", cutlassgen::auto_swizzle({m}, {n}, {tm}, {tn}, {cm}, {cn}));\n'
        for m, n, tm, tn, cm, cn, _ in cases) + "}")
    assert got == [c[-1] for c in cases]


def test_auto_swizzle_pads_only_where_the_swept_operand_outgrows_l2(tmp_path):
    """SwizzlePad (lower.SWIZZLE_PAD): where the operand that CUTLASS's walk sweeps whole (A along M, B along N) is
    larger than L2 (50 MiB), the widest strip up to 8 whose padding adds at most max_pct percent of the
    cluster-rounded grid; elsewhere, or with max_pct 0, the unpadded rule above."""
    cases = [  # m, n, k, tile_m, tile_n, cluster_m, cluster_n, (max_pct, a_bytes, b_bytes, raster), expected
        (8000, 8192, 8192, 128, 128, 1, 1, (5, 2, 2, 0), 8),  # 63 x 64 tiles, along M: A 131 MB; 64 rows 1.6% more
        (8000, 8192, 8192, 128, 128, 1, 1, (0, 2, 2, 0), 1),  # no padding allowed: an odd axis leaves strips of 1
        (8000, 8192, 8192, 128, 128, 1, 1, (1, 2, 2, 0), 1),
        (8000, 8192, 1024, 128, 128, 1, 1, (5, 2, 2, 0), 1),  # A 16 MB fits in L2
        (8000, 8192, 8192, 128, 128, 1, 1, (5, 1, 1, 0), 8),  # fp8: A 66 MB
        (6000, 8192, 8192, 128, 128, 1, 1, (5, 1, 1, 0), 1),  # fp8: A 49 MB
        (1664, 14336, 65536, 128, 128, 1, 1, (5, 2, 2, 0), 1),  # 13 row tiles: 14 is 7.7% more
        (12000, 16384, 4096, 128, 224, 1, 1, (5, 2, 2, 0), 4),  # 94 x 74, along N: B 134 MB; 96 x 76 4.9% more
        (12000, 16384, 4096, 128, 224, 1, 1, (4, 2, 2, 0), 2),
        (3000, 18432, 4096, 128, 224, 1, 1, (5, 2, 2, 0), 1),  # 24 x 83, along M: A 25 MB
        (3000, 18432, 4096, 128, 224, 1, 1, (5, 2, 2, 2), 4),  # along N asked: B 151 MB; 84 columns 1.2% more
        (256, 8192, 1 << 20, 128, 128, 2, 1, (50, 2, 2, 0), 1),  # one 2x1 cluster of rows: 2 pads it 100%
        # test_gpu_correctness.py PADDED_WALKS, run at lower.SWIZZLE_PAD's value
        (8000, 8192, 8192, 128, 128, 1, 1, (cg.lower.SWIZZLE_PAD, 2, 2, 0), 8),
        (4096, 11008, 8192, 128, 256, 2, 1, (cg.lower.SWIZZLE_PAD, 2, 2, 0), 4),  # 32 x 43, A 67 MB; 44 2.3% more
        # gpu_specs.py PAST_ROW_WALKS' second: 63 row tiles, which the 2x1 cluster rounds to 64, take strips of 8
        (8064, 8192, 8192, 128, 256, 2, 1, (cg.lower.SWIZZLE_PAD, 2, 2, 0), 8),
    ]
    got = run_cpp(tmp_path, "int main() {\n" + "".join(
        f'  std::printf("%d\\n", cutlassgen::auto_swizzle({m}, {n}, {tm}, {tn}, {cm}, {cn}, '
        f'{{{pct}, {k}, {ab}, {bb}, {raster}}}));\n'
        for m, n, k, tm, tn, cm, cn, (pct, ab, bb, raster), _ in cases) + "}")
    assert got == [c[-1] for c in cases]


def test_the_plan_s_strip_rule_is_auto_swizzle_s(tmp_path):
    """tiles.scheduler_strip, the Python form of auto_swizzle that the plan reads the scheduler's walk by, gives the
    C++ rule's strip over a grid of problems: ragged and aligned M, both rasters, 8- and 16-bit operands, swept
    operands either side of L2, clusters on either axis, padding allowed or not; and both take the same L2 size."""
    import itertools

    from cutlassgen.tiles import L2_BYTES, scheduler_strip

    cases = [(m, n, k, cta, cluster, nbytes, raster, pct)
             for m, n, k in [(8000, 8192, 8192), (8064, 14336, 8192), (8064, 14336, 4096), (12000, 16384, 4096),
                             (3000, 18432, 4096), (640, 8192, 65536), (256, 8192, 1 << 20), (1000, 4096, 4096)]
             for cta, cluster in [((128, 128), (1, 1)), ((128, 256), (2, 1)), ((128, 224), (1, 1)),
                                  ((256, 128), (1, 2))]
             for nbytes, raster, pct in itertools.product((1, 2), (0, 1, 2), (0, 5))]
    rasters = ("auto", "along_m", "along_n")
    got = run_cpp(tmp_path, "int main() {\n" + "".join(
        f'  std::printf("%d\\n", cutlassgen::auto_swizzle({m}, {n}, {cta[0]}, {cta[1]}, {cl[0]}, {cl[1]}, '
        f'{{{pct}, {k}, {nb}, {nb}, {raster}}}));\n'
        for m, n, k, cta, cl, nb, raster, pct in cases)
        + '  std::printf("%lld\\n", (long long)cutlassgen::kL2Bytes);\n}')
    want = [scheduler_strip(m, n, k, cta, cl, nb, nb, rasters[raster], pct)
            for m, n, k, cta, cl, nb, raster, pct in cases]
    *got, l2_bytes = got
    assert l2_bytes == L2_BYTES
    assert got == want
    assert {8, 4, 2, 1} <= set(got)  # the grid reaches every strip


@pytest.mark.parametrize("M, N, K, tile, dtype, past", [
    (8064, 14336, 8192, {}, "bf16", 1),  # 63 row tiles in strips of 8: A 132 MB sweeps past L2
    (8192, 14336, 8192, {}, "bf16", 0),
    (8000, 8192, 8192, {}, "bf16", 1),
    (8064, 14336, 4096, {}, "e4m3", 0),  # A 33 MB fits in L2: strips of 1 pad nothing
    (8064, 14336, 8192, {"swizzle": 4}, "bf16", 1),
    (8064, 14336, 8192, {"swizzle": 1}, "bf16", 0),
    (8064, 8192, 8192, {"cta": (128, 256, 64), "cluster": (2, 1, 1), "mainloop": "cooperative"}, "bf16", 1),
    (640, 8192, 65536, {}, "bf16", 0),  # 5 row tiles: any strip pads 20% or more
    (4864, 512, 65536, {}, "bf16", 0),  # 38 x 4 tiles along N (B 64 MB): strips of 2, which 38 rows fill
    (8064, 14336, 8192, {"swap_ab": True, "cta": (128, 64, 64)}, "bf16", 0),  # the tokens are the kernel's N
])
def test_the_plan_counts_the_rows_of_tiles_the_walk_runs_wholly_past_m(M, N, K, tile, dtype, past):
    from cutlassgen.tiles import walk_rows_past_m

    fields = {"cta": (128, 128, 64), "cluster": (1, 1, 1), "mainloop": "pingpong", **tile}
    if dtype == "e4m3":
        fields["cta"] = (128, 128, 128)
    s = GemmSpec(arch=90, a=Operand(dtype), b=Operand(dtype, "column"), d=Operand("bf16"),
                 tile=Sm90Tile(fp8_fast_accum=dtype == "e4m3", **fields))
    assert walk_rows_past_m(s, M, N, K) == past


def test_a_swizzle_pad_reaches_both_scheduler_setups_and_none_renders_nothing():
    """SWIZZLE_PAD 0 renders the call as before it was a setting; otherwise it, K, the kernel's element bytes and
    the raster option go to both the "auto" strip and the cap on an explicit one."""
    with cg.lower.settings(SWIZZLE_PAD=0):
        assert re.search(r"auto_swizzle\(p\.m, p\.n, 64, 32,\s+1, 1\);", cg.render(spec()))
    with cg.lower.settings(SWIZZLE_PAD=3):
        for sw in ("auto", 4):
            src = cg.render(spec(swizzle=sw))
            assert re.search(r"auto_swizzle\(p\.m, p\.n, 64, 32,\s+1, 1, \{3, p\.k, 1, 1, 0\}\);", src), src
        assert "1, 1, {3, p.k, 1, 1, 2});" in cg.render(spec(raster="along_n"))


def test_an_explicit_swizzle_is_the_widest_strip_up_to_it_that_pads_no_tile(tmp_path):
    """Strips of 8 over 12 row tiles (1536 rows of 128) padded the grid to 16 and ran 2.5x slower on an H100
    (h100_session99.log), and a tuned swizzle serves every M of its bucket. The rendered scheduler set-up, run for
    the kernel's 64x32 tiles: 2, 4 or 8 is the most, narrower where it would pad; 1 stays 1."""
    def scheduler_setup(swizzle, swap_ab=False) -> str:
        src = cg.render(spec(swizzle=swizzle, swap_ab=swap_ab))
        start = src.index("args.scheduler.raster_order")
        return src[src.index("\n", start) + 1:src.index("return args;", start)]

    problems = [(512, 4096), (384, 4096), (320, 4096), (4096, 96)]  # 8, 6, 5 and 64 row tiles (4096: 3 columns)
    calls = [(sw, swap) for sw in (8, 4, 2, 1) for swap in (False, True)]
    body = "struct Problem { long m, n, k; };\nstruct Arguments { struct { int max_swizzle_size; } scheduler; };\n"
    body += "".join(f"int strip_{sw}_{int(swap)}(Problem p) {{\n  Arguments args;\n{scheduler_setup(sw, swap)}"
                    "  return args.scheduler.max_swizzle_size;\n}\n" for sw, swap in calls)
    body += "int main() {\n" + "".join(f'  std::printf("%d\\n", strip_{sw}_{int(swap)}({{{m}, {n}, 4096}}));\n'
                                        for sw, swap in calls for m, n in problems) + "}"
    got = iter(run_cpp(tmp_path, body))
    strips = {(sw, swap, m, n): next(got) for sw, swap in calls for m, n in problems}
    assert [strips[8, False, m, n] for m, n in problems] == [8, 2, 1, 1]  # 4096 x 96: 3 columns take no strip
    assert [strips[4, False, m, n] for m, n in problems] == [4, 2, 1, 1]
    assert [strips[2, False, m, n] for m, n in problems] == [2, 2, 1, 1]
    assert all(strips[1, swap, m, n] == 1 for swap in (False, True) for m, n in problems)
    # swap_ab: the kernel tiles the problem's N by 64 and its M by 32 (64 x 16, 12, 10 tiles; 2 x 128)
    assert [strips[8, True, m, n] for m, n in problems] == [8, 4, 2, 2]
