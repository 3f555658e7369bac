"""Random specs, mostly near-valid with a few wrong fields: each must be refused with a SpecError or be a spec that
round-trips, renders, and runs the float64 reference with the outputs the kernel would return. (Rounds of this
search found a NaN alpha that rendered as no C++ literal, a clamp with no bound and an output named 'd' that crashed
the reference; compiling its valid specs found the sm80 path's K-major and epilogue-access rules in validate.py.)"""
import collections
import tomllib

import pytest

import cutlassgen as cg
from cutlassgen import epilogue as epi
from cutlassgen.dtypes import storage
from random_specs import RandomSpecs, reference_inputs

torch = pytest.importorskip("torch")

N_SPECS = 20000


@pytest.fixture(scope="module")
def outcomes():
    """(valid specs, refusal messages) over N_SPECS random spec dicts; any other exception fails here."""
    gen = RandomSpecs(seed=5)
    valid, refused = {}, []
    for _ in range(N_SPECS):
        d = gen.spec()
        try:
            spec = cg.GemmSpec.from_dict(d)
        except cg.SpecError as e:
            refused.append(str(e))
            continue
        valid[spec.key] = spec
    return list(valid.values()), refused


def test_random_specs_are_refused_with_a_named_field_or_are_valid_on_both_paths(outcomes):
    valid, refused = outcomes
    assert len(valid) > N_SPECS // 40, "the generator should make valid specs too"
    assert {s.resolved_path for s in valid} == {"sm80", "sm90"}
    assert {s.a.dtype for s in valid} >= {"bf16", "fp16", "e4m3", "int8", "tf32"}
    # each refusal names the field and the value, then the rule: "field=value: rule[; fix]"
    fields = collections.Counter(m.split("=", 1)[0] for m in refused)
    assert all("=" in m and ": " in m for m in refused)
    assert {"a.layout", "d.alignment", "epilogue.activation.slope", "tile.stages"} <= set(fields)


def test_valid_random_specs_round_trip_render_and_keep_their_key(outcomes):
    valid, _ = outcomes
    for spec in valid:
        assert spec == spec and hash(spec) == hash(cg.GemmSpec.from_dict(spec.to_dict()))
        assert cg.GemmSpec.from_dict(spec.to_dict()) == spec
        again = cg.GemmSpec.from_dict(tomllib.loads(cg.dump_toml(spec)))
        assert again == spec and again.key == spec.key
        assert "#define CUTLASSGEN_SPEC_JSON" in cg.render(spec)


def test_valid_random_specs_run_the_reference_with_the_kernels_outputs(outcomes):
    valid, _ = outcomes
    gen = torch.Generator().manual_seed(0)
    for spec in valid[:400]:
        a, b, c, inputs = reference_inputs(spec, gen)
        res = cg.reference(spec, a, b, c, **inputs)
        extras = [name for name, _, _ in epi.extra_outputs_of(spec.epilogue)]
        d = res.d if extras else res
        if extras:
            assert res._fields == ("d", *extras)
        assert d.shape == (a.shape[0], b.shape[1]) and d.dtype == getattr(torch, storage(spec.d.dtype).torch)


def test_the_compile_sweep_picks_a_varied_sample_of_them(outcomes):
    """scripts/compile_random_specs.py (run by hand: it compiles) spends its compiles on specs that differ."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "compile_random_specs.py"
    module_spec = importlib.util.spec_from_file_location("compile_random_specs", path)
    sweep = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(sweep)
    valid, _ = outcomes
    sample = sweep.varied_sample(valid, 12)
    assert len({s.key for s in sample}) == 12 and {s.resolved_path for s in sample} == {"sm80", "sm90"}
    covered = set().union(*(sweep.features(s) for s in sample))
    assert len(covered) > 3 * max(len(sweep.features(s)) for s in sample)
    # --plans: the tiles build(spec, shapes=...) adds, at random shapes, for an all-"auto" spec
    import random

    from cutlassgen.dispatch import tile_is_auto

    auto = cg.GemmSpec(arch=90, a="bf16", b=cg.Operand("bf16", "column"), d="bf16")
    plans = [v for seed in range(4) for v in sweep.plan_variants(auto, random.Random(seed))]
    assert plans and all(isinstance(v, cg.GemmSpec) and not tile_is_auto(v) for v in plans)
    # --configs: what `cutlassgen tune` enumerates for it, its own default tile first
    configs = sweep.tune_variants(auto, random.Random(0))
    assert configs[0] == auto and len(configs) > 50 and not any(tile_is_auto(v) for v in configs[1:])


N_MANIFESTS = 3000


def test_random_manifests_are_refused_naming_their_entry_or_list_specs_each_target_can_build(tmp_path):
    """AOT manifests (cutlassgen.aot.manifest_specs over random parsed TOML): a SpecError whose field starts at the
    manifest, or specs each with archs its path can be compiled for. (Before: a file = 3 or a missing file was a
    TypeError or FileNotFoundError, a typo beside file = ... such as `shape` was skipped without a word, and archs
    = [91] reached the compiler.)"""
    from cutlassgen.aot import manifest_specs
    from cutlassgen.arch import ARCHS
    from cutlassgen.validate import check_target
    from random_specs import RandomManifests

    from ci_specs import SM80_ALL

    (tmp_path / "sm80.toml").write_text(cg.dump_toml(SM80_ALL))
    (tmp_path / "sm90_auto.toml").write_text(cg.dump_toml(cg.GemmSpec(arch=90, a="bf16", b=cg.Operand("bf16", "column"),
                                                                      d="bf16")))
    (tmp_path / "not_toml.toml").write_text("arch = [90\n")
    (tmp_path / "invalid_spec.toml").write_text('arch = 90\na = {dtype = "bf16"}\nb = {dtype = "bf16"}\n')
    gen, built, refused = RandomManifests(seed=7), [], collections.Counter()
    for _ in range(N_MANIFESTS):
        try:
            pairs = manifest_specs(gen.manifest(), tmp_path)
        except cg.SpecError as e:
            assert str(e).startswith("manifest"), e
            refused[str(e).split("=", 1)[0].split("]", 1)[-1].split(" (", 1)[0] or str(e)[:20]] += 1
            continue
        assert pairs
        for spec, archs in pairs:
            assert isinstance(spec, cg.GemmSpec) and archs and len(set(archs)) == len(archs)
            for arch in archs:
                assert arch in ARCHS
                check_target(spec, arch)
        built.append(pairs)
    assert len(built) > N_MANIFESTS // 20, "the generator should make buildable manifests too"
    assert any(len(pairs) > 1 and not cg.dispatch.tile_is_auto(pairs[1][0]) for pairs in built), "no shape variants"
    # the entry's own fields and the spec fields inside it are both named
    assert {".archs", ".file", ".shapes", ".vary", ".shape"} <= set(refused), refused
