"""The bodies of `/2/broadcasts/scheduled*` and `/2/broadcasts/{id}/chat`, checked as the platform's
schema validator words its refusals (`$.name: …`), and the scheduled-broadcast object they answer.

Times are epoch milliseconds as decimal strings; numeric ids (chat option, telecast, thumbnail media,
the scheduler id) are strings of 1 to 19 digits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from roost.core import errors, jsonio
from roost.core.records import Row

DIGITS_PATTERN = "^[0-9]{1,19}$"
_DIGITS = re.compile(r"[0-9]{1,19}")
CHAT_TEXT_MAX = 140
FREQUENCIES = ("Daily", "Weekly")
FREQUENCY_MS = {"Daily": 86_400_000, "Weekly": 7 * 86_400_000}
# Texts roost keeps for a broadcast (the schema sets no bound; a bound keeps rows small).
TEXT_MAX = 1000

_CREATE_STRINGS = ("title", "description", "locale", "source_id")
_CREATE_NUMERIC = (
    "chat_option",
    "telecast_id",
    "thumbnail_media_id",
    "scheduled_start_ms",
    "scheduled_end_ms",
)
_FLAGS = ("available_for_replay", "is_locked", "manual_publish")
CREATE_FIELDS = frozenset((*_CREATE_STRINGS, *_CREATE_NUMERIC, *_FLAGS, "recurrence"))
CREATE_REQUIRED = ("source_id", "scheduled_start_ms", "scheduled_end_ms")
_UPDATE_NUMERIC = (
    "chat_option",
    "thumbnail_media_id",
    "scheduled_start_ms",
    "scheduled_end_ms",
    "scheduled_broadcast_id",
)
UPDATE_FIELDS = frozenset((*_CREATE_STRINGS, *_UPDATE_NUMERIC, *_FLAGS, "roll_forward"))
UPDATE_REQUIRED = ("scheduled_broadcast_id", "scheduled_start_ms", "scheduled_end_ms")
RECURRENCE_FIELDS = frozenset(("frequency", "repeats"))


@dataclass(frozen=True, slots=True)
class Schedule:
    """A checked create or update body: the columns it sets, and what the service acts on."""

    columns: dict[str, Any]
    start: int
    end: int
    frequency: str | None = None
    repeats: int = 0
    scheduled_id: int | None = None  # the update body's scheduler id
    roll_forward: bool = False


def _object(body: Any, path: str = "$") -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body(f"{path}: {jsonio.type_name(body)} found, object expected")
    return body


def _members(body: dict[str, Any], allowed: frozenset[str], required: tuple[str, ...], path: str) -> None:
    extra = sorted(set(body) - allowed)
    if extra:
        raise errors.invalid_body(
            f"{path}.{extra[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )
    for name in required:
        if name not in body:
            raise errors.invalid_body(f"{path}.{name}: is missing but it is required")


def _string(body: dict[str, Any], name: str, path: str = "$") -> str | None:
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, str):
        raise errors.invalid_body(f"{path}.{name}: {jsonio.type_name(value)} found, string expected")
    if len(value) > TEXT_MAX:
        raise errors.invalid_body(f"{path}.{name}: may only be {TEXT_MAX} characters long")
    return value


def _numeric(body: dict[str, Any], name: str, path: str = "$") -> str | None:
    value = _string(body, name, path)
    if value is not None and _DIGITS.fullmatch(value) is None:
        raise errors.invalid_body(f"{path}.{name}: does not match the regex pattern {DIGITS_PATTERN}")
    return value


def _flag(body: dict[str, Any], name: str) -> bool | None:
    if name not in body:
        return None
    value = body[name]
    if not isinstance(value, bool):
        raise errors.invalid_body(f"$.{name}: {jsonio.type_name(value)} found, boolean expected")
    return value


def _columns(body: dict[str, Any], numeric: tuple[str, ...]) -> dict[str, Any]:
    """The optional fields as columns: a field left out is cleared (updates replace the whole schedule)."""
    columns: dict[str, Any] = {name: _string(body, name) for name in ("title", "description", "locale")}
    for name in numeric:
        if name in ("chat_option", "telecast_id", "thumbnail_media_id"):
            columns[name] = _numeric(body, name)
    for name in _FLAGS:
        columns[name] = int(bool(_flag(body, name)))
    return columns


def _times(body: dict[str, Any]) -> tuple[int, int]:
    start = _numeric(body, "scheduled_start_ms")
    end = _numeric(body, "scheduled_end_ms")
    assert start is not None and end is not None  # required, checked before
    return int(start), int(end)


def create_schedule(body: Any) -> Schedule:
    body = _object(body)
    _members(body, CREATE_FIELDS, CREATE_REQUIRED, "$")
    source = _string(body, "source_id")
    if not source:
        raise errors.invalid_body("$.source_id: must be at least 1 characters long")
    columns = _columns(body, _CREATE_NUMERIC)
    columns["source_id"] = source
    start, end = _times(body)
    frequency, repeats = None, 0
    if "recurrence" in body:
        recurrence = _object(body["recurrence"], "$.recurrence")
        _members(recurrence, RECURRENCE_FIELDS, ("frequency", "repeats"), "$.recurrence")
        frequency = _string(recurrence, "frequency", "$.recurrence")
        if frequency not in FREQUENCIES:
            raise errors.invalid_body(
                f"$.recurrence.frequency: does not have a value in the enumeration [{', '.join(FREQUENCIES)}]"
            )
        repeats = int(_numeric(recurrence, "repeats", "$.recurrence") or 0)
    return Schedule(columns, start, end, frequency, repeats)


def update_schedule(body: Any) -> Schedule:
    body = _object(body)
    _members(body, UPDATE_FIELDS, UPDATE_REQUIRED, "$")
    columns = _columns(body, _UPDATE_NUMERIC)
    source = _string(body, "source_id")
    if source is not None:  # the source stays bound unless another is named
        if not source:
            raise errors.invalid_body("$.source_id: must be at least 1 characters long")
        columns["source_id"] = source
    start, end = _times(body)
    scheduled_id = int(_numeric(body, "scheduled_broadcast_id") or 0)
    return Schedule(
        columns, start, end, scheduled_id=scheduled_id, roll_forward=bool(_flag(body, "roll_forward"))
    )


def chat_text(body: Any) -> str:
    body = _object(body)
    _members(body, frozenset(("text",)), ("text",), "$")
    text = body["text"]
    if not isinstance(text, str):
        raise errors.invalid_body(f"$.text: {jsonio.type_name(text)} found, string expected")
    if not text:
        raise errors.invalid_body("$.text: must be at least 1 characters long")
    if len(text) > CHAT_TEXT_MAX:
        raise errors.invalid_body(f"$.text: may only be {CHAT_TEXT_MAX} characters long")
    return text


def scheduled_view(row: Row) -> dict[str, Any]:
    """The scheduled-broadcast object of every answer (absent optional fields left out)."""
    view: dict[str, Any] = {
        "broadcast_id": row["id"],
        "scheduled_broadcast_id": str(row["scheduled_id"]),
        "source_id": row["source_id"],
        "state": row["state"],
        "scheduled_start_ms": str(row["scheduled_start"]),
    }
    if row["scheduled_end"] is not None:
        view["scheduled_end_ms"] = str(row["scheduled_end"])
    for name in ("title", "description", "locale", "chat_option", "telecast_id", "thumbnail_media_id"):
        if row[name] is not None:
            view[name] = row[name]
    view["available_for_replay"] = bool(row["available_for_replay"])
    view["manual_publish"] = bool(row["manual_publish"])
    if row["series_id"] is not None:
        view["recurring_schedule_id"] = str(row["series_id"])
    return view
