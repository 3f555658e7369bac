"""The DSL: construction, normalization, dict/TOML round trip, canonical JSON and hash stability."""
import glob
import json
import pathlib
import subprocess
import sys
import tomllib

import pytest

import cutlassgen as cg
from cutlassgen import Activation, Add, Amax, GemmSpec, LinearCombination, Multiply, Operand, Quantize, StoreAux

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted(glob.glob(str(ROOT / "examples/specs/*.toml")))


def full_chain_spec(arch=90):
    return GemmSpec(arch=arch, a=Operand("bf16"), b=Operand("bf16", "column"), c=Operand("bf16"), d=Operand("e4m3"),
                    epilogue=[LinearCombination(alpha="runtime", beta=0.5), Add("per_col", "bias", "bf16"),
                              Multiply("per_row", "gate", "fp32"), StoreAux("pre", "bf16"), Activation("gelu"),
                              Amax(), Quantize("e4m3", "per_tensor", "scale")])


def test_examples_exist_and_load():
    assert len(EXAMPLES) >= 4
    for path in EXAMPLES:
        assert isinstance(cg.load_spec(path), GemmSpec)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: pathlib.Path(p).stem)
def test_dict_and_toml_round_trip(path):
    spec = cg.load_spec(path)
    assert GemmSpec.from_dict(spec.to_dict()) == spec
    assert GemmSpec.from_dict(tomllib.loads(cg.dump_toml(spec))) == spec
    assert GemmSpec.from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: pathlib.Path(p).stem)
def test_every_example_renders_deterministically(path):
    spec = cg.load_spec(path)
    source = cg.render(spec)
    assert source == cg.render(cg.load_spec(path))
    assert f"from spec {spec.key}" in source and '#include "cutlassgen/entry_points.inl"' in source
    assert ("CollectiveBuilder" in source) == (spec.resolved_path == "sm90")
    assert ("DefaultGemmWithVisitor" in source) == (spec.resolved_path == "sm80")


def test_round_trip_of_every_node_type():
    spec = full_chain_spec()
    again = GemmSpec.from_dict(tomllib.loads(cg.dump_toml(spec)))
    assert again == spec and again.key == spec.key
    assert {n.op for n in spec.epilogue} == {"linear_combination", "add", "multiply", "store_aux", "activation",
                                             "amax", "quantize"}


def test_specs_are_frozen_and_hashable():
    spec = full_chain_spec()
    import dataclasses

    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.arch = 80
    assert len({spec, full_chain_spec()}) == 1


def test_spellings_normalize_to_one_key():
    a = GemmSpec(arch=80, a=Operand("float16"), b=Operand("half", "col"), d="fp16")
    b = GemmSpec(arch=80, a=Operand("fp16", "row"), b=Operand("fp16", "column"), d=Operand("fp16"))
    assert a == b and a.key == b.key


def test_irrelevant_activation_parameters_do_not_change_the_key():
    a = GemmSpec(arch=80, a="fp16", b="fp16", d="fp16", epilogue=[Activation("relu", slope=0.3)])
    b = GemmSpec(arch=80, a="fp16", b="fp16", d="fp16", epilogue=[Activation("relu")])
    assert a.key == b.key


def test_a_real_difference_changes_the_key():
    base = full_chain_spec()
    assert base.replace(arch=90).key == base.key
    other = GemmSpec.from_dict({**base.to_dict(), "tile": {"cta": [128, 128, 64]}})
    assert other.key != base.key


def test_tile_fields_added_later_keep_old_keys_at_their_default():
    # Sm90Tile.epilogue_tile, .pdl, .opaque_pipeline, .weights_evict_first and .fitted_tail came after specs were
    # keyed: at their defaults they are not in the key, so every cache entry and tuning record made before them is
    # still found; set, each changes the key like any other field.
    spec = GemmSpec(arch=90, a=Operand("bf16"), b=Operand("bf16", "column"), d=Operand("bf16"))
    later = {"epilogue_tile", "pdl", "opaque_pipeline", "weights_evict_first", "fitted_tail"}
    assert not later & set(json.loads(spec.canonical_json())["tile"])
    assert spec.key == "4da53df6efe2d91a2b68"  # its key before the fields existed
    fp8 = spec.replace(a=Operand("e4m3"), b=Operand("e4m3", "column"))
    for base, change in ((spec, {"epilogue_tile": [128, 64]}), (spec, {"pdl": True}),
                         (fp8, {"opaque_pipeline": True}), (spec, {"weights_evict_first": True}),
                         (spec, {"fitted_tail": True})):
        changed = base.replace(tile=change)
        assert changed.key != base.key and GemmSpec.from_dict(changed.to_dict()) == changed, change


def test_hash_is_stable_across_processes():
    code = ("import sys; sys.path.insert(0, %r); from test_spec import full_chain_spec; "
            "print(full_chain_spec().key)" % str(pathlib.Path(__file__).parent))
    keys = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(seed), "PATH": "/usr/bin:/bin",
                                "PYTHONPATH": str(ROOT)}).stdout.strip() for seed in (1, 2, 3)}
    assert keys == {full_chain_spec().key}


def test_canonical_json_is_sorted_and_complete():
    spec = full_chain_spec()
    text = spec.canonical_json()
    assert json.loads(text) == spec.to_dict()
    assert text == json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"))


def test_a_name_is_one_printable_line():
    """A newline in a spec's name broke the build's ninja file (a lexing error reported as a failed nvcc, for every
    kernel of that build); '$' in it read as a ninja variable. Printable names of any characters are kept."""
    spec = GemmSpec(arch=90, a="bf16", b=Operand("bf16", "column"), d="bf16")
    for bad in ("two\nlines", "tab\there", "nul\x00", "\x1b[31mred"):
        with pytest.raises(cg.SpecError, match="one line of printable characters"):
            spec.replace(name=bad)
    for good in ("a$b c:d", 'q"uote )cgspec"', "ünï", ""):
        assert GemmSpec.from_dict(spec.replace(name=good).to_dict()).name == good
        assert "CUTLASSGEN_SPEC_JSON" in cg.render(spec.replace(name=good))


def test_load_spec_reports_bad_toml(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text("arch = [")
    with pytest.raises(cg.SpecError, match="not valid TOML"):
        cg.load_spec(p)
