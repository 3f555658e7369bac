"""Every bench/ script imports on a machine without a GPU: a name a script takes from another (tile_probe's tile
helpers, cutlassgen's API) that was renamed or removed fails here, not on the next GPU session."""
import importlib
import pathlib
import sys

import pytest

BENCH = pathlib.Path(__file__).resolve().parents[1] / "bench"
SCRIPTS = sorted(p.stem for p in BENCH.glob("*.py"))


def test_the_bench_folder_has_its_scripts():
    assert {"bench_anchors", "tile_probe", "anchor_history", "power_clock"} <= set(SCRIPTS)


@pytest.mark.parametrize("name", SCRIPTS)
def test_bench_script_imports(name, monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))
    module = importlib.import_module(name)
    assert callable(getattr(module, "main", None)), f"bench/{name}.py has no main()"
