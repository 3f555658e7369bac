"""Render a spec's lowered context through the Jinja templates. Deterministic: the output depends on the spec
and the templates only (compiled templates are cached on disk, which changes speed, not output)."""
from __future__ import annotations

import functools
import pathlib

import jinja2

from .lower import lower
from .spec import GemmSpec

PACKAGE_DIR = pathlib.Path(__file__).resolve().parent


def templates_dir() -> pathlib.Path:
    # Installed wheels carry templates inside the package; a source checkout keeps them at the top level.
    inside = PACKAGE_DIR / "templates"
    return inside if inside.is_dir() else PACKAGE_DIR.parent / "templates"


class _BestEffortBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's on-disk cache of compiled templates, whose failure to write costs speed, never a render: a cache
    folder that this user cannot write (a read-only image's shared cache) or a full disk renders as without it."""

    def dump_bytecode(self, bucket):
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def _bytecode_cache():
    """Jinja's compiled templates, kept beside the kernel cache: compiling them costs a new process ~0.1 s.

    Jinja keys each entry by the template's name and source checksum, so an edited template is never stale."""
    from .jit.cache import cache_root

    directory = cache_root() / "jinja"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None  # a read-only cache location: render without it
    return _BestEffortBytecodeCache(str(directory))


@functools.lru_cache(maxsize=None)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(str(templates_dir())), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, autoescape=False, bytecode_cache=_bytecode_cache())


def render(spec: GemmSpec, target_arch: int | None = None) -> str:
    """The CUTLASS C++ translation unit for spec (compiled for target_arch, default spec.arch)."""
    if not isinstance(spec, GemmSpec):
        raise TypeError(f"render() takes a GemmSpec, not {type(spec).__name__}")
    ctx = lower(spec, target_arch)
    name = "sm90_gemm.cu.j2" if ctx["path"] == "sm90" else "sm80_gemm.cu.j2"
    return _environment().get_template(name).render(**ctx)
