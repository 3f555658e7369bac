"""The two exception types of the public contract, and the small checks and wordings that raising them uses."""
from __future__ import annotations

import difflib
import os
import sys


class SpecError(ValueError):
    """An invalid spec, found before any compiler runs. Names the field, the value, the rule and a fix."""

    def __init__(self, field: str, value, rule: str, fix: str | None = None):
        self.field, self.value, self.rule, self.fix = field, value, rule, fix
        msg = f"{field}={value!r}: {rule}"
        if fix:
            msg += f"; {fix}"
        super().__init__(msg)


def is_int(value) -> bool:
    """An int that is not a bool (bool subclasses int: True would otherwise pass as 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value) -> bool:
    """An int or float that is not a bool."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def caller_stacklevel() -> int:
    """warnings.warn's stacklevel, from the function that calls it, for the first caller outside cutlassgen: a warning
    points at the user's line that asked for the build or made the call, however deep in here it arose."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


def did_you_mean(value, choices) -> str:
    close = difflib.get_close_matches(str(value), [str(c) for c in choices], n=1, cutoff=0.5)
    listing = ", ".join(str(c) for c in choices)
    return (f"did you mean {close[0]!r}? " if close else "") + f"choose one of: {listing}"


def choose(field: str, value, choices, aliases: dict | None = None):
    """Normalize a name against a closed set, or raise SpecError with a did-you-mean."""
    if isinstance(value, str):
        key = value.strip().lower()
        if aliases and key in aliases:
            key = aliases[key]
        if key in choices:
            return key
    raise SpecError(field, value, "unknown name", did_you_mean(value, sorted(choices)))


class BuildError(RuntimeError):
    """The compiler failed. Carries the first error lines, the exact command, and where the source and log are."""

    def __init__(self, summary: str, command: str, source_path: str, log_path: str, first_errors: list[str]):
        self.command, self.source_path, self.log_path, self.first_errors = command, source_path, log_path, first_errors
        lines = [summary, *("  " + e for e in first_errors),
                 *(f"{what}: {value}" for what, value in (("command", command), ("source", source_path),
                                                          ("full log", log_path)) if value)]
        super().__init__("\n".join(lines))
