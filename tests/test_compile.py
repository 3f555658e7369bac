"""Real nvcc compiles (no GPU): every node on both arch paths, warning-clean, and each module is its own."""
import json

import pytest

import cutlassgen as cg
from ci_specs import SM80_ALL, SM90_ALL

pytestmark = pytest.mark.compile


def test_every_node_compiles_on_both_paths_without_performance_warnings(ci_kernels):
    for name in ("sm80", "sm90"):
        info = ci_kernels[name].build_info
        assert info["warnings"] == [], f"{name}: {info['warnings']}"
        assert "-DNDEBUG" in info["key_parts"]["flags"]
    ops = {n.op for n in SM90_ALL.epilogue}
    assert ops == {"linear_combination", "add", "multiply", "store_aux", "activation", "amax", "quantize"}
    fns = {n.fn for n in SM90_ALL.epilogue if n.op == "activation"}
    assert fns == set(cg.epilogue.ACTIVATIONS)
    assert {n.fn for n in SM80_ALL.epilogue if n.op == "activation"} == fns


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
    assert set(k.inputs) == {"alpha", "bias", "token_scale", "shift", "out_scale"}
    assert k.Result._fields == ("d", "pre_act", "amax")
