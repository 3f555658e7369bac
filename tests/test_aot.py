"""AOT: a wheel built from a two-spec manifest (sm80 and sm90a) serves both kernels with JIT forbidden and no nvcc;
a spec outside the manifest gets a clear error. The kernels come from the session's JIT cache (same keys), so the
wheel build compiles nothing that the other tests already compiled."""
import os
import pathlib
import subprocess
import sys
import time

import pytest

import cutlassgen as cg
from ci_specs import SM80_ALL, SM90_ALL, small_sm80

pytestmark = pytest.mark.compile
ROOT = pathlib.Path(__file__).resolve().parents[1]

CHECK = """
import json, sys
import cutlassgen as cg
sm80, sm90, other = (cg.load_spec(p) for p in sys.argv[1:4])
k80 = cg.build(sm80, arch=80)
k90 = cg.build(sm90, arch=90)
for k, spec in ((k80, sm80), (k90, sm90)):
    assert "prebuilt" in str(k.binary_path) and "site-packages" in str(k.binary_path), k.binary_path
    assert json.loads(k._mod.spec_json()) == spec.to_dict()
try:
    cg.build(other, arch=80)
except cg.BuildError as e:
    print("MISS:", e)
else:
    raise SystemExit("a spec outside the manifest was served")
print("OK", k80.binary_path, k90.binary_path)
"""


def test_wheel_from_manifest_serves_prebuilt_kernels_without_jit(ci_kernels, tmp_path):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "sm80.toml").write_text(cg.dump_toml(SM80_ALL))
    (specs / "sm90.toml").write_text(cg.dump_toml(SM90_ALL))
    (specs / "other.toml").write_text(cg.dump_toml(small_sm80("not_in_manifest")))
    manifest = tmp_path / "manifest.toml"
    manifest.write_text('archs = [80, 90]\n[[spec]]\nfile = "specs/sm80.toml"\narchs = [80]\n'
                        '[[spec]]\nfile = "specs/sm90.toml"\narchs = [90]\n')
    wheels = tmp_path / "wheels"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(wheels)], check=True, env=dict(os.environ, CUTLASSGEN_MANIFEST=str(manifest)),
                   cwd=tmp_path)
    (wheel,) = wheels.glob("cutlassgen-*.whl")
    print(f"wheel {wheel.name}: {wheel.stat().st_size / 2**20:.1f} MiB in {time.monotonic() - started:.0f} s")

    import zipfile

    names = zipfile.ZipFile(wheel).namelist()
    assert sum(n.endswith(".so") for n in names) == 2, "exactly the manifest's kernels, nothing from earlier builds"

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True)
    subprocess.run([py, "-m", "pip", "install", "-q", "jinja2", "filelock"], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CUTLASSGEN_NO_JIT": "1",
           "CUTLASSGEN_NVCC": "/nonexistent/nvcc",  # any attempt to compile would fail loudly
           "CUTLASSGEN_CACHE_DIR": str(tmp_path / "empty-cache")}
    out = subprocess.run([py, "-c", CHECK, *(str(specs / f) for f in ("sm80.toml", "sm90.toml", "other.toml"))],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "OK" in out.stdout
    assert "no prebuilt kernel" in out.stdout and "CUTLASSGEN_NO_JIT" in out.stdout
    assert not (tmp_path / "empty-cache").exists() or not any((tmp_path / "empty-cache").rglob("*.so"))


def test_prebuilt_directory_from_the_cli(ci_kernels, tmp_path, monkeypatch):
    from cutlassgen import prebuilt
    from cutlassgen.cli import main

    (tmp_path / "sm90.toml").write_text(cg.dump_toml(SM90_ALL))
    manifest = tmp_path / "m.toml"
    manifest.write_text('archs = [90]\n[[spec]]\nfile = "sm90.toml"\n')
    assert main(["aot", str(manifest), "--out", str(tmp_path / "out")]) == 0
    index = prebuilt._read_index.__wrapped__(str(tmp_path / "out"))
    assert len(index) == 1 and all((tmp_path / "out" / rel).is_file() for rel in index.values())
    monkeypatch.setenv("CUTLASSGEN_PREBUILT_DIRS", str(tmp_path / "out"))
    job = cg.jit.plan(SM90_ALL, 90)
    assert prebuilt.find_prebuilt(job.source_key, 90) == tmp_path / "out" / next(iter(index.values()))


def test_manifest_errors_are_clear(tmp_path):
    from cutlassgen.aot import read_manifest

    bad = tmp_path / "m.toml"
    bad.write_text("archs = [90]\n")
    with pytest.raises(cg.SpecError, match="lists no specs"):
        read_manifest(bad)
    (tmp_path / "s.toml").write_text(cg.dump_toml(SM90_ALL))
    bad.write_text('archs = [80]\n[[spec]]\nfile = "s.toml"\n')
    with pytest.raises(cg.SpecError, match="list 90 for sm90-path specs"):
        read_manifest(bad)


@pytest.mark.parametrize("text, field", [
    ('archs = [80]\nspec = "s80.toml"\n', "manifest.spec='s80.toml': must be [[spec]] tables"),
    ("archs = [80]\nmatrix = [1]\n", "manifest.matrix=[1]: must be [[matrix]] tables"),
    ('archs = [80]\n[[spec]]\nfile = "s80.toml"\narchs = "80"\n', "manifest.spec[0].archs='80': must be a list"),
    ('archs = [80]\n[[spec]]\nfile = "s80.toml"\nshapes = [[1, 2]]\n', "shapes=[[1, 2]]: must be a non-empty list"),
    ('archs = [80]\n[[matrix]]\nfile = "s90.toml"\nvary = {"name" = ["a", "b"]}\n',
     "manifest.matrix[0].archs=[80]: none of these can run a"),
])
def test_a_malformed_manifest_is_a_spec_error_not_a_crash_or_a_silent_skip(tmp_path, text, field):
    # each was a ValueError or TypeError, an ignored shapes list, or matrix specs built for no arch at all
    from cutlassgen.aot import read_manifest

    (tmp_path / "s80.toml").write_text(cg.dump_toml(SM80_ALL))
    (tmp_path / "s90.toml").write_text(cg.dump_toml(SM90_ALL))
    (tmp_path / "m.toml").write_text(text)
    with pytest.raises(cg.SpecError) as info:
        read_manifest(tmp_path / "m.toml")
    assert field in str(info.value)


def test_manifest_matrix_crosses_a_template(tmp_path):
    from cutlassgen.aot import read_manifest

    (tmp_path / "base.toml").write_text(cg.dump_toml(SM90_ALL.replace(name="base")))
    m = tmp_path / "m.toml"
    m.write_text('archs = [90]\n[[matrix]]\nfile = "base.toml"\n'
                 'vary = {"tile.cta" = [[128, 128, 64], [128, 256, 64]], "tile.cluster" = [[1, 1, 1], [2, 1, 1]]}\n')
    entries = read_manifest(m)
    assert len(entries) == 4 and all(archs == [90] for _, archs in entries)
    assert {(s.tile.cta, s.tile.cluster) for s, _ in entries} == {
        (cta, cl) for cta in ((128, 128, 64), (128, 256, 64)) for cl in ((1, 1, 1), (2, 1, 1))}
    m.write_text('archs = [90]\n[[matrix]]\nfile = "base.toml"\nvary = {"tile.cta" = [[128, 128, 48]]}\n')
    with pytest.raises(cg.SpecError, match="CTA K"):
        read_manifest(m)


@pytest.mark.parametrize("text", ['["not", "a", "table"]', '{"k@sm90": 3, "j@sm90": null}', '"x"', "{"])
def test_a_malformed_prebuilt_index_is_no_entry_not_a_crash(tmp_path, monkeypatch, text):
    # a list was an AttributeError on .get, a number a TypeError on the path join, at every build() of any spec
    from cutlassgen import prebuilt

    (tmp_path / prebuilt.INDEX).write_text(text)
    monkeypatch.setenv("CUTLASSGEN_PREBUILT_DIRS", str(tmp_path))
    prebuilt._read_index.cache_clear()
    try:
        assert prebuilt.find_prebuilt("k", 90) is None and prebuilt.find_prebuilt("j", 90) is None
    finally:
        prebuilt._read_index.cache_clear()
