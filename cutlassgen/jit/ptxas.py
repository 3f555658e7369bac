"""What ptxas's report in a build log says about the kernel: the lines that cost speed (PerformanceWarnings) and its
registers, spills and static shared memory (kernel.build_info["resources"])."""
from __future__ import annotations

import re


def performance_warnings(log: str) -> list[str]:
    """The build log's lines that cost speed: ptxas's warnings (spills, stack frames) and its "Potential Performance
    Loss" notes (C7510, C7511, C7515: serialized wgmma), which ptxas prints as "info". Front-end warnings are left
    out, even when a path in them happens to say "spill"."""
    return [_MANGLED.sub(lambda m: f"'{_short_symbol(m.group(1))}'", ln.strip()) for ln in log.splitlines()
            if "ptxas" in ln.lower() and ("warning" in ln.lower() or "Potential Performance Loss" in ln)]


_MANGLED = re.compile(r"'(_Z\w+)'")


def _short_symbol(mangled: str) -> str:
    """A mangled C++ name as its leading qualified name, template arguments elided: the sm80 path's kernel
    `_ZN7cutlass7Kernel2INS_4gemm6kernel22DefaultGemmWithVisitor...` (~900 characters) reads cutlass::Kernel2<...>.
    build.log keeps the full name."""
    parts, i = [], 3 if mangled.startswith("_ZN") else 2
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while j < len(mangled) and mangled[j].isdigit():
            j += 1
        n = int(mangled[i:j])
        parts.append(mangled[j:j + n])
        i = j + n
    if not parts:
        return mangled if len(mangled) <= 60 else mangled[:57] + "..."
    return "::".join(parts) + ("<...>" if mangled[i:i + 1] == "I" else "")


_PTXAS_ENTRY = re.compile(r"ptxas info\s*: Compiling entry function '([^']+)'")
_PTXAS_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_PTXAS_USED = re.compile(r"ptxas info\s*: Used (\d+) registers(?:.*?(\d+) bytes smem)?")


def ptxas_resources(log: str) -> dict | None:
    """The GEMM kernel's resources from ptxas -v: the entry function with the most registers (a module may also
    hold small helper kernels). None when the log has no ptxas report (an older cache entry)."""
    found, current = [], None
    for line in log.splitlines():
        if m := _PTXAS_ENTRY.search(line):
            current = {"function": m.group(1), "registers": 0, "stack_bytes": 0, "spill_store_bytes": 0,
                       "spill_load_bytes": 0, "static_smem_bytes": 0}
            found.append(current)
        elif current is not None and (m := _PTXAS_FRAME.search(line)):
            current.update(stack_bytes=int(m.group(1)), spill_store_bytes=int(m.group(2)),
                           spill_load_bytes=int(m.group(3)))
        elif current is not None and (m := _PTXAS_USED.search(line)):
            current.update(registers=int(m.group(1)), static_smem_bytes=int(m.group(2) or 0))
    return max(found, key=lambda r: r["registers"]) if found else None
