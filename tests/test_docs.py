"""The README stays true to the code: the names it cites resolve, the files it points to exist, its CLI lines use
options the CLI has, its Use example builds a spec that renders, and its count of the GPU tests is pytest's. A rename
that leaves the README behind fails here (CI), not in a reader's hands."""
import ast
import contextlib
import functools
import importlib
import inspect
import io
import pathlib
import re
import subprocess
import sys

import pytest

import cutlassgen as cg
from cutlassgen import cli
from cutlassgen.runtime import Kernel

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
MODULES = sorted(p.stem for p in (ROOT / "cutlassgen").glob("*.py") if p.stem != "__init__") + ["jit"]
# Paths the README names that are not in the source tree, and why.
NOT_IN_THE_TREE = {
    "cutlassgen/prebuilt": "made by the wheel build from an AOT manifest (README: Ahead of time)",
}


# The README's names for instances: `spec.key` is a GemmSpec's, not the spec module's; `kernel.op` a built kernel's.
INSTANCES = {"spec": cg.GemmSpec, "kernel": Kernel}


def cited_names() -> set:
    """cg.X / cutlassgen.X.Y anywhere, and `module.attr` or `instance.attr` in backticks (cutlassgen's own modules,
    INSTANCES)."""
    names = set(re.findall(r"\b(?:cg|cutlassgen)(?:\.[A-Za-z_]\w*)+", README))
    names |= set(re.findall(r"`((?:%s)(?:\.[A-Za-z_]\w*)+)" % "|".join(MODULES + list(INSTANCES)), README))
    # file names: test_cited_paths checks those
    return {n for n in names if not n.endswith((".py", ".toml", ".json", ".cu", ".cubin", ".log"))}


def resolve(name: str):
    parts = name.split(".")
    if parts[0] in INSTANCES:  # a class attribute, or one its methods set on the instance (self.spec = ...)
        cls = INSTANCES[parts[0]]
        if len(parts) == 2 and re.search(rf"\bself\.{parts[1]}\s*=", inspect.getsource(cls)):
            return parts[1]
        return functools.reduce(getattr, parts[1:], cls)
    parts = ["cutlassgen"] + parts[1:] if parts[0] in ("cg", "cutlassgen") else ["cutlassgen"] + parts
    for i in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def test_every_cited_name_resolves():
    names = cited_names()
    # the scan finds them
    assert {"cg.GemmSpec", "spec.key", "kernel.build_info", "validate.MAX_ACCUMULATORS_PER_THREAD"} <= names
    unresolved = []
    for name in sorted(names):
        try:
            resolve(name)
        except (ImportError, AttributeError):
            unresolved.append(name)
    assert not unresolved, f"README names what the code does not have: {unresolved}"


def test_every_cited_path_exists():
    paths = set(re.findall(r"(?<![\w/.<-])((?:bench|cutlassgen|csrc|templates|tests|examples|scripts|\.ci)/[\w./-]*\w)",
                           README))
    assert "bench/bench_anchors.py" in paths and len(paths) > 30  # the scan finds them
    missing = sorted(p for p in paths if not (ROOT / p).exists() and p not in NOT_IN_THE_TREE)
    assert not missing, f"README points to files that are not there: {missing}"
    assert all(not (ROOT / p).exists() for p in NOT_IN_THE_TREE), "a path listed as not in the tree is there now"


def subcommand_options(sub: str) -> set:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main([sub, "--help"])
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", out.getvalue()))


def test_cli_lines_use_options_the_cli_has():
    """Each `cutlassgen <command> ...` span (backticks, possibly over lines) names a command and options it takes."""
    spans = re.findall(r"`cutlassgen ([a-z]+)([^`]*)`", README)
    assert ("tune", ) in {(cmd,) for cmd, _ in spans} and len(spans) >= 5  # the scan finds them
    commands = set(re.findall(r"\{([a-z,]+)\}", cli_help()))
    commands = set(next(iter(commands)).split(","))
    wrong = []
    for cmd, rest in spans:
        if cmd not in commands:
            wrong.append(f"cutlassgen {cmd}: no such command")
            continue
        options = subcommand_options(cmd)
        wrong += [f"cutlassgen {cmd} {opt}" for opt in re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", rest)
                  if opt not in options]
    assert not wrong, f"README's CLI lines the CLI would refuse: {wrong}"


def cli_help() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        cli.main(["--help"])
    return out.getvalue()


def test_use_example_builds_a_spec_that_renders():
    """README's Use block up to cg.build (which would compile): the spec it writes validates and renders."""
    block = re.search(r"## Use\n\n```python\n(.*?)```", README, re.S).group(1)
    tree = ast.parse(block)
    namespace = {}
    ran = 0
    for stmt in tree.body:
        if "cg.build" in ast.unparse(stmt):
            break
        exec(compile(ast.Module([stmt], []), "README.md", "exec"), namespace)
        ran += 1
    assert ran >= 3 and isinstance(namespace["spec"], cg.GemmSpec)
    assert namespace["source"] == cg.render(namespace["spec"]) and "CollectiveBuilder" in namespace["source"]


def test_the_packages_functions_carry_their_own_signature_and_docstring():
    """help(cg.build) and an editor's hints showed `build(spec, arch=None, **kwargs)` and no docstring: the package's
    names were thin wrappers. Each is now the stage's own function."""
    functions = [getattr(cg, name) for name in cg.__all__ if inspect.isfunction(getattr(cg, name))]
    assert {f.__name__ for f in functions} >= {"build", "build_many", "tune", "render", "reference", "load_spec"}
    for f in functions:
        assert f.__doc__ and f.__doc__.strip(), f.__name__
        signature = inspect.signature(f)
        assert not any(p.kind is p.VAR_KEYWORD and p.name == "kwargs" for p in signature.parameters.values()), \
            f"{f.__name__}{signature}"


def test_the_gpu_test_counts_are_pytests():
    """Testing's breakdown of the GPU tests (its total and each file's count) is what pytest collects under -m gpu: the
    breakdown had said 275 for sessions after the suite grew to 282."""
    breakdown = README[README.index("The GPU tests, "):]
    breakdown = breakdown[:breakdown.index("(log:")]
    total = int(re.match(r"The GPU tests, (\d+) in all", breakdown).group(1))
    said = {path: int(n) for n, path in re.findall(r"(\d+) in\s+`(tests/test_\w+\.py)`", breakdown)}
    listed = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "gpu", "-p",
                             "no:cacheprovider", "tests"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stdout[-2000:] + listed.stderr[-2000:]
    collected = {}
    for line in listed.stdout.splitlines():
        if "::" in line:
            path = line.split("::")[0]
            collected[path] = collected.get(path, 0) + 1
    assert len(said) >= 3 and sum(collected.values()) > 200  # the scans find them
    assert (total, said) == (sum(collected.values()), collected)
