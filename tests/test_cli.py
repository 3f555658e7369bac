"""The command line: render, build, cache, doctor, and errors as messages (exit 2), not tracebacks."""
import os
import pathlib
import subprocess
import sys

import pytest

import cutlassgen as cg
from cutlassgen.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples/specs/fp16_bias_relu_sm80.toml"


def test_render_prints_the_source(capsys):
    assert main(["render", str(EXAMPLE)]) == 0
    out = capsys.readouterr().out
    assert out == cg.render(cg.load_spec(EXAMPLE))
    assert "cutlass::gemm::kernel::DefaultGemmWithVisitor" in out


def test_render_for_another_target(capsys):
    assert main(["render", str(EXAMPLE), "--arch", "90"]) == 0
    assert "#define CUTLASSGEN_TARGET_ARCH 90" in capsys.readouterr().out


@pytest.mark.parametrize("arch, why", [("100", "no supported compile target"), ("75", "no supported compile target")])
def test_render_refuses_a_target_build_would_refuse(arch, why, capsys):
    # (render used to print source for any --arch; build refused the same target)
    assert main(["render", str(EXAMPLE), "--arch", arch]) == 2
    assert f"SpecError: arch={arch}: {why}" in capsys.readouterr().err
    sm90 = cg.GemmSpec(arch=90, a="bf16", b=cg.Operand("bf16", "column"), d="bf16")
    with pytest.raises(cg.SpecError, match="runs only on sm_90a"):
        cg.render(sm90, 89)


def test_python_dash_m_and_the_script_agree():
    out = subprocess.run([sys.executable, "-m", "cutlassgen", "render", str(EXAMPLE)], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True).stdout
    assert out == cg.render(cg.load_spec(EXAMPLE))


def test_a_reader_that_goes_away_is_not_a_traceback():
    """`cutlassgen render SPEC | head -1`: the pipe's reader is gone before the CLI writes (closed here before the
    child has even imported cutlassgen), so every write fails; the CLI stops quietly with SIGPIPE's shell status."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run([sys.executable, "-m", "cutlassgen", "render", str(EXAMPLE)], stdout=write_end,
                              stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                              timeout=120)
    finally:
        os.close(write_end)
    assert done.returncode == 141 and done.stderr == "", done.stderr


def test_invalid_spec_is_a_message_not_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(EXAMPLE.read_text().replace('fn = "relu"', 'fn = "rleu"'))
    assert main(["render", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "SpecError" in err and "did you mean 'relu'" in err and "Traceback" not in err


def test_a_missing_file_or_field_is_a_message_not_a_traceback(tmp_path, capsys):
    assert main(["render", str(tmp_path / "absent.toml")]) == 2
    err = capsys.readouterr().err
    assert "No such file or directory" in err and "absent.toml" in err and "Traceback" not in err
    partial = tmp_path / "partial.toml"
    partial.write_text('arch = 90\n[a]\ndtype = "bf16"\n')  # no b, no d
    assert main(["render", str(partial)]) == 2
    err = capsys.readouterr().err
    assert "SpecError: b=None: missing: GemmSpec needs arch, a, b, d" in err and "Traceback" not in err


@pytest.mark.parametrize("args", [["cache", "prune", "--older-than", "-1"], ["cache", "prune", "--older-than", "nan"],
                                  ["tune", str(EXAMPLE), "--limit", "0"], ["tune", str(EXAMPLE), "--peak", "-989"],
                                  ["tune", str(EXAMPLE), "--peak", "nan"], ["tune", str(EXAMPLE), "--peak", "inf"],
                                  ["tune", str(EXAMPLE), "--peak", "989", "--peak-bandwidth", "0"],
                                  ["tune", str(EXAMPLE), "--peak-bandwidth", "4.8"]])
def test_a_bad_option_value_is_a_usage_error_that_changes_nothing(args, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    (tmp_path / "sm80" / "0123456789abcdef").mkdir(parents=True)  # an incomplete entry: any prune would remove it
    with pytest.raises(SystemExit) as stop:
        main(args)
    assert stop.value.code == 2 and "error: argument" in capsys.readouterr().err
    assert (tmp_path / "sm80" / "0123456789abcdef").is_dir()


@pytest.mark.compile
def test_cache_ls_info_prune_clear(ci_kernels, tmp_path, monkeypatch, capsys):
    import shutil

    from cutlassgen.jit import cache

    src = ci_kernels["sm80"].binary_path.parent
    root = tmp_path / "c"
    shutil.copytree(src, root / src.parent.name / src.name)
    broken = root / src.parent.name / "0123456789abcdef"
    broken.mkdir()
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(root))
    (root / "tuning").mkdir(exist_ok=True)
    (root / "tuning" / "abc-sm90.json").write_text('{"gpu": "NVIDIA H200", "winners": [{"shape": [32, 8, 8], '
                                                   '"tile": {"cta": [64, 128, 64]}, '
                                                   '"label": "64x128x64 c1x1 pingpong"}]}')
    (root / "tuning" / "broken-sm90.json").write_text("{")
    # listed as BAD where build() would ignore it (dispatch.is_tuning_record), not only where it fails to parse
    (root / "tuning" / "no_tile-sm90.json").write_text('{"gpu": "NVIDIA H200", "winners": [{"shape": [32, 8, 8], '
                                                       '"label": "64x128x64 c1x1 pingpong"}]}')
    assert main(["cache", "ls"]) == 0
    out = capsys.readouterr().out
    assert "ci_sm80_all_nodes" in out and "BAD" in out
    assert "tuning/abc-sm90.json  NVIDIA H200  M=32: 64x128x64 c1x1 pingpong" in out
    assert "tuning/broken-sm90.json  BAD" in out and "tuning/no_tile-sm90.json  BAD" in out
    assert main(["cache", "info", src.name[:8]]) == 0
    assert '"compile_seconds"' in capsys.readouterr().out
    assert main(["cache", "prune"]) == 0
    assert not broken.exists() and (root / src.parent.name / src.name).exists()
    assert main(["cache", "clear"]) == 0
    assert not root.exists()
    assert cache.entries(root) == []


def test_cache_info_says_what_key_it_needs(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    (tmp_path / "sm80" / "0123456789abcdef").mkdir(parents=True)
    (tmp_path / "sm80" / "0123ffff").mkdir()
    assert main(["cache", "info"]) == 2  # (was "0 entries match None; give a longer key prefix")
    assert "needs an entry's key" in capsys.readouterr().err
    assert main(["cache", "info", "dead"]) == 1
    assert "no entry's key starts with 'dead'" in capsys.readouterr().err
    assert main(["cache", "info", "0123"]) == 1
    assert "2 entries' keys start with '0123'; give a longer prefix" in capsys.readouterr().err


def test_cache_ls_and_info_take_a_malformed_meta_json(tmp_path, monkeypatch, capsys):
    # a meta.json that is a list, or whose spec is not a table, was an AttributeError in `cache ls`
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path))
    for key, text in (("aaaa0000", "[1, 2]"), ("bbbb0000", '{"spec": "x", "spec_key": "k1"}'), ("cccc0000", "{")):
        (tmp_path / "sm90" / key).mkdir(parents=True)
        (tmp_path / "sm90" / key / "meta.json").write_text(text)
    assert main(["cache", "ls"]) == 0
    out = capsys.readouterr().out
    assert "sm90/aaaa0000  BAD  ?" in out and "sm90/bbbb0000  BAD  k1" in out and "sm90/cccc0000  BAD  ?" in out
    assert main(["cache", "info", "aaaa"]) == 0 and capsys.readouterr().out.strip() == "{}"


def test_doctor_reports_the_toolchain(capsys):
    code = main(["doctor"])
    out = capsys.readouterr().out
    assert "nvcc" in out and "CUTLASS" in out and "cache" in out
    assert code in (0, 1)
    if code == 1:
        assert "problems:" in out


def test_doctor_flags_a_cache_a_build_could_not_write(tmp_path, monkeypatch, capsys):
    """A cache path under a file (here: real, as any user) and a folder this user cannot write (os.access says no,
    as it does for another user's folder or a read-only mount) are problems; a cache that does not exist yet under a
    writable folder is not."""
    from cutlassgen import doctor

    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "new" / "cache"))
    assert not any("cache" in p for p in doctor.report()[1])
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "file" / "cache"))
    assert main(["doctor"]) == 1
    assert f"{tmp_path / 'file'} is not a folder: cached kernels load" in capsys.readouterr().out
    (tmp_path / "ro" / "locks").mkdir(parents=True)
    monkeypatch.setenv("CUTLASSGEN_CACHE_DIR", str(tmp_path / "ro"))
    monkeypatch.setattr(doctor.os, "access", lambda path, mode: pathlib.Path(path).name != "locks")
    assert main(["doctor"]) == 1
    assert f"this user cannot write {tmp_path / 'ro' / 'locks'}" in capsys.readouterr().out
    monkeypatch.setenv("CUTLASSGEN_NO_JIT", "1")  # nothing is built then: not a problem
    assert not any("cannot write" in p for p in doctor.report()[1])


def test_doctor_flags_a_cuda_home_the_search_passed_over(tmp_path, monkeypatch):
    """CUDA_HOME without bin/nvcc: the search goes on to PATH (or the pip wheel), and doctor says which nvcc compiles
    instead; a CUDA_HOME that holds one, or CUTLASSGEN_NVCC set, is no problem."""
    from cutlassgen import doctor
    from cutlassgen.jit import toolchain

    monkeypatch.delenv("CUTLASSGEN_NVCC", raising=False)
    monkeypatch.delenv("CUDA_PATH", raising=False)
    toolchain.find_nvcc.cache_clear()
    real = str(toolchain.find_nvcc())
    try:
        monkeypatch.setenv("CUDA_HOME", str(tmp_path))
        toolchain.find_nvcc.cache_clear()
        problems = doctor.report()[1]
        assert f"CUDA_HOME={tmp_path} holds no bin/nvcc, so kernels compile with {real} instead" in "".join(problems)
        monkeypatch.setenv("CUTLASSGEN_NVCC", real)
        toolchain.find_nvcc.cache_clear()
        assert not any("CUDA_HOME" in p for p in doctor.report()[1])
        monkeypatch.delenv("CUTLASSGEN_NVCC")
        monkeypatch.setenv("CUDA_HOME", str(pathlib.Path(real).parent.parent))
        toolchain.find_nvcc.cache_clear()
        assert not any("CUDA_HOME" in p for p in doctor.report()[1])
    finally:
        toolchain.find_nvcc.cache_clear()


def test_doctor_flags_a_missing_compiler(monkeypatch, capsys):
    from cutlassgen.jit import toolchain

    toolchain.find_nvcc.cache_clear()
    monkeypatch.setenv("CUTLASSGEN_NVCC", "/nonexistent/nvcc")
    try:
        assert main(["doctor"]) == 1
        assert "CUTLASSGEN_NVCC=/nonexistent/nvcc does not exist" in capsys.readouterr().out
    finally:
        toolchain.find_nvcc.cache_clear()
