"""Reference shapes: structure and types of a JSON value, written in the tests from the platform's
published samples, so a payload that drops, renames, adds or retypes a key fails by the key's path.

A shape is a type (`str`, `int`, `bool`, `float`), None (null), a string (exactly that value), a
`Text` pattern (a string of a known form), `Either` (one of several shapes), `MapOf` (an object keyed
by ids), a dict (exactly those keys; `Opt(shape)` marks a key that may be absent), a one-item list
(every item has that shape) or `Any` (anything, even null)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Opt:
    """A key the sample shows only in some cases."""

    shape: Any


@dataclass(frozen=True)
class Text:
    """A string of a known form."""

    pattern: str


@dataclass(frozen=True)
class Either:
    """One of several shapes (a nullable field: `Either(str, None)`)."""

    shapes: tuple[Any, ...]

    def __init__(self, *shapes: Any) -> None:
        object.__setattr__(self, "shapes", shapes)


@dataclass(frozen=True)
class MapOf:
    """An object keyed by ids (`users`, `apps`): every key has the form, every value the shape."""

    key: Text
    value: Any


DIGITS = Text(r"-?[0-9]+")  # ids, counts and epoch milliseconds sent as strings
ISO_MS = Text(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")


def twins(*names: str) -> dict[str, Any]:
    """Integer fields each with its `<name>_str` twin, as the activity payloads carry them."""
    out: dict[str, Any] = {}
    for name in names:
        out[name] = int
        out[f"{name}_str"] = DIGITS
    return out


def problems(value: Any, shape: Any, path: str = "$") -> list[str]:
    """Every way `value` differs from `shape`, one line per key path."""
    if shape is Any:
        return []
    if shape is None:
        return [] if value is None else [f"{path}: {value!r}, null expected"]
    if isinstance(shape, str):
        return [] if value == shape else [f"{path}: {value!r}, {shape!r} expected"]
    if isinstance(shape, Text):
        ok = isinstance(value, str) and re.fullmatch(shape.pattern, value) is not None
        return [] if ok else [f"{path}: {value!r} does not match {shape.pattern}"]
    if isinstance(shape, Either):
        found = [problems(value, option, path) for option in shape.shapes]
        return [] if any(not lines for lines in found) else [line for lines in found for line in lines]
    if isinstance(shape, type):
        ok = isinstance(value, shape) and not (shape is int and isinstance(value, bool))
        if shape is float:
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {type(value).__name__} {value!r}, {shape.__name__} expected"]
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, array expected"]
        return [line for i, item in enumerate(value) for line in problems(item, shape[0], f"{path}[{i}]")]
    if isinstance(shape, MapOf):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, object expected"]
        out = [line for key in value for line in problems(key, shape.key, f"{path} key {key!r}")]
        return out + [
            line for key, item in value.items() for line in problems(item, shape.value, f"{path}.{key}")
        ]
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, object expected"]
        out = [f"{path}.{key}: not in the reference shape" for key in value if key not in shape]
        for key, wanted in shape.items():
            if key not in value:
                if not isinstance(wanted, Opt):
                    out.append(f"{path}.{key}: missing")
                continue
            out += problems(value[key], wanted.shape if isinstance(wanted, Opt) else wanted, f"{path}.{key}")
        return out
    raise TypeError(f"not a shape: {shape!r}")


def assert_shape(value: Any, shape: Any) -> None:
    found = problems(value, shape)
    assert not found, "\n".join(found)
