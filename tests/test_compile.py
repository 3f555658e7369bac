"""Real nvcc compiles (no GPU): every node on both arch paths, warning-clean, and each module is its own."""
import json
import re

import pytest

import cutlassgen as cg
from ci_specs import SM80_ALL, SM90_ALL

pytestmark = pytest.mark.compile


def test_every_node_compiles_on_both_paths_without_performance_warnings(ci_kernels):
    for name in ("sm80", "sm90", "sm90_swap", "sm90_fp8_narrow", "sm90_fp8_exact"):
        info = ci_kernels[name].build_info
        assert info["warnings"] == [], f"{name}: {info['warnings']}"
        assert "-DNDEBUG" in info["key_parts"]["flags"]
    ops = {n.op for n in SM90_ALL.epilogue}
    assert ops == {"linear_combination", "add", "multiply", "store_aux", "activation", "amax", "quantize"}
    fns = {n.fn for n in SM90_ALL.epilogue if n.op == "activation"}
    assert fns == set(cg.epilogue.ACTIVATIONS)
    assert {n.fn for n in SM80_ALL.epilogue if n.op == "activation"} == fns
    assert {n.op for n in SM80_ALL.epilogue} == ops  # quantize included: 8-bit outputs on the sm80 path too


def test_fp8_token_tile_in_steps_of_8_builds_through_the_epilogue_builders_implementation(ci_kernels):
    k = ci_kernels["sm90_fp8_narrow"]
    assert "detail::Sm90TmaBuilderImpl<" in k.source and "using EpilogueTile = Shape<_64, _72>;" in k.source
    assert "narrow_tma.hpp" not in k.source  # 8-bit operands compile with CUTLASS's own TMA set-up
    assert k.build_info["resources"]["spill_store_bytes"] == 0


def test_exact_fp8_builds_through_the_full_promotion_mainloop(ci_kernels):
    # its 128x128x128 c1x1 cooperative tile holds both k-tile loops (lower.BOTH_LOOPS_TILE), the hidden one too
    k = ci_kernels["sm90_fp8_exact"]
    assert "using CollectiveMainloop = cutlassgen::MainloopFullPromotion<BuiltMainloop, 8>;" in k.source
    assert k.build_info["resources"]["spill_store_bytes"] == 0  # CUTLASS's registers: nothing spills


def test_bf16_token_tile_in_steps_of_8_builds_through_the_narrow_tma_mainloop(ci_kernels):
    k = ci_kernels["sm90_swap"]
    assert "using NarrowMainloop = cutlassgen::MainloopNarrowTma<BuiltMainloop>;" in k.source
    assert "detail::Sm90TmaBuilderImpl<" in k.source and "using EpilogueTile = Shape<_128, _72>;" in k.source
    # its weights (the kernel's A) EVICT_FIRST: Sm90Tile.weights_evict_first
    assert re.search(r"MainloopLoadHints<NarrowMainloop, cute::TMA::CacheHintSm90::EVICT_FIRST,", k.source)
    assert k.build_info["resources"]["spill_store_bytes"] == 0


def test_sm90_kernel_targets_sm90a(ci_kernels):
    k = ci_kernels["sm90"]
    assert k._mod.target_arch() == 90
    assert "arch=compute_90a,code=sm_90a" in " ".join(k.build_info["key_parts"]["flags"])


def test_each_loaded_kernel_is_its_own_module(ci_kernels):
    a, b = ci_kernels["sm80"], ci_kernels["sm90"]
    assert a._mod is not b._mod
    assert json.loads(a._mod.spec_json()) == SM80_ALL.to_dict()
    assert json.loads(b._mod.spec_json()) == SM90_ALL.to_dict()


def test_kernel_introspection(ci_kernels):
    k = ci_kernels["sm90"]
    assert k.spec == SM90_ALL
    assert k.source == cg.render(SM90_ALL, k.target_arch)
    assert k.binary_path.is_file()
    assert k.build_info["compile_seconds"] > 0
    res = k.build_info["resources"]  # ptxas -v of the GEMM kernel (the tile study reports these)
    assert 0 < res["registers"] <= 255 and res["spill_store_bytes"] == 0
    assert res["function"] == "cutlassgen_gemm_kernel"  # the split build's device part
    sm80 = ci_kernels["sm80"].build_info["resources"]
    assert 0 < sm80["registers"] <= 255 and "Kernel" in sm80["function"]  # cutlass::Kernel2<...>
    assert set(k.inputs) == {"alpha", "bias", "token_scale", "shift", "out_scale"}
    assert k.Result._fields == ("d", "pre_act", "amax")


def test_modules_report_their_parameter_cache_before_any_call(ci_kernels):
    """Kernel.params_cache_stats() reaches the module's cache (csrc/cutlassgen/params_cache.hpp) without a GPU: an
    sm90 module holds one, empty until a call; the sm80 path has none (all 0). GPU tests check its hits."""
    empty = {"hits": 0, "misses": 0, "entries": 0}
    for name in ("sm90", "sm90_swap", "sm90_fp8_narrow", "sm90_fp8_exact"):
        assert ci_kernels[name].params_cache_stats() == {**empty, "capacity": 256}, name
    assert ci_kernels["sm80"].params_cache_stats() == {**empty, "capacity": 0}


def test_pipeline_is_what_the_compiled_kernel_holds_and_what_validation_sized(ci_kernels):
    """kernel.pipeline comes from the module (no GPU needed); the stage count that validation and tiles.resolve
    size shared memory by is the one CUTLASS compiled, and the sm90 epilogue's buffer stages follow its builder's
    rule (D: one per subtile up to 2, C: up to 4)."""
    from cutlassgen.arch import ARCHS
    from cutlassgen.tiles import operand_bytes, resolve

    sm80 = ci_kernels["sm80"]
    cfg = resolve(sm80.spec)
    assert sm80.pipeline == {"smem_bytes": cfg.smem_bytes, "mainloop_stages": cfg.stages}
    for name in ("sm90", "sm90_swap", "sm90_fp8_narrow", "sm90_fp8_exact"):
        k = ci_kernels[name]
        pipe, cfg = k.pipeline, resolve(k.spec)
        assert pipe["mainloop_stages"] == cfg.mainloop_stages >= 2, name
        m, n, k_elems = cfg.cta
        per_stage = (m * operand_bytes(k.spec)[0] + n * operand_bytes(k.spec)[1]) * k_elems
        assert pipe["mainloop_stages"] * per_stage < pipe["smem_bytes"] <= ARCHS[90].smem_per_block, name
        subtiles = (cfg.cta[0] // cfg.epilogue_tile[0]) * (cfg.cta[1] // cfg.epilogue_tile[1])
        assert pipe["epilogue_stages_d"] == min(subtiles, 2), name
        assert min(subtiles, 4) <= pipe["epilogue_stages_c"] <= 4, name
    assert [ci_kernels[n].pipeline["epilogue_stages_d"] for n in ("sm90", "sm90_swap")] == [2, 1]


def test_compile_seconds_are_each_kernels_own(ci_kernels):
    """The tile study reports compile time per configuration: each kernel's span in ninja's log, not the batch's."""
    infos = [ci_kernels[name].build_info for name in ("sm80", "sm90")]
    for info in infos:
        assert 0 < info["compile_seconds"] <= info["build_seconds"] + 0.01
    if infos[0]["build_seconds"] == infos[1]["build_seconds"]:  # built together (not one of them from the cache)
        assert min(info["compile_seconds"] for info in infos) < infos[0]["build_seconds"] - 0.5


def _program_header_flags(data: bytes, p_type: int):
    """p_flags of every program header of type p_type in a little-endian ELF64 image."""
    import struct

    phoff, = struct.unpack_from("<Q", data, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    return [struct.unpack_from("<II", data, phoff + i * phentsize)[1] for i in range(phnum)
            if struct.unpack_from("<I", data, phoff + i * phentsize)[0] == p_type]


def test_split_sm90_module_embeds_its_kernel(ci_kernels):
    """The sm90 build compiles the kernel alone into a cubin and embeds it: the module holds a second ELF image with
    the kernel's fixed name, exports nothing but its init function, and asks for no executable stack (which some
    loaders refuse)."""
    k = ci_kernels["sm90"]
    assert "-DCUTLASSGEN_DEVICE_PART -cubin" in k.build_info["nvcc_command"]
    data = k.binary_path.read_bytes()
    assert data.find(b"\x7fELF", 1) > 0 and b"cutlassgen_gemm_kernel" in data
    pt_gnu_stack, pf_x = 0x6474E551, 1
    assert all(not flags & pf_x for flags in _program_header_flags(data, pt_gnu_stack))
    import ctypes

    module = ctypes.CDLL(str(k.binary_path))  # already loaded: the same handle
    assert hasattr(module, "PyInit_cutlassgen_kernel")
    with pytest.raises(AttributeError):
        module.cutlassgen_cubin_start  # hidden: two loaded kernels cannot see each other's cubin
    sm80 = ci_kernels["sm80"]  # the sm80 path stays one translation unit
    assert "-cubin" not in sm80.build_info["nvcc_command"]
