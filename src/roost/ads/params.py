"""Ads parameter kinds: raw query/form strings (or JSON values in batch bodies) to typed values.

Each kind returns the typed value handlers use and the value echoed under `request.params`
(lists as arrays, numbers as numbers, times normalised to `YYYY-MM-DDTHH:MM:SSZ`). Problems raise
`ParamProblem` with the platform's message templates (`Expected Long, got "x" for tweet_ids`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from roost.ads import errors

Raw = str | int | float | bool | list[Any] | None

MAX_IDS = 200
_LONG = re.compile(r"-?[0-9]{1,19}")
# Nineteen digits can exceed a signed 64-bit integer; such values must be refused here, since the
# databases cannot bind them (a tweet id of 9999999999999999999 was a 500 on lookup).
_INT64 = range(-(2**63), 2**63)
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})$")


@dataclass(frozen=True, slots=True)
class Parsed:
    value: Any
    echo: Any


class Kind:
    openapi_type = "string"

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw)
        return Parsed(text, text)


def _scalar(name: str, raw: Raw) -> str:
    """One value: repeated keys keep the last, as form decoders do; JSON values become text."""
    if isinstance(raw, list):
        raw = raw[-1] if raw else ""
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return "" if raw is None else str(raw)


def _items(raw: Raw) -> list[str]:
    """A list given comma-joined, as repeated keys, or as a JSON array (batch bodies)."""
    values = raw if isinstance(raw, list) else [raw]
    out: list[str] = []
    for value in values:
        if value is None:
            continue
        if isinstance(value, bool):
            out.append("true" if value else "false")
        elif isinstance(value, str):
            out.extend(part.strip() for part in value.split(",") if part.strip())
        else:
            out.append(str(value))
    return out


def _too_few(minimum: int, name: str) -> str:
    return f"A minimum of {minimum} items must be provided for {name}"


def _too_many(maximum: int, name: str) -> str:
    return f"A maximum of {maximum} items can be provided for {name}"


@dataclass(frozen=True, slots=True)
class Text(Kind):
    max_length: int | None = None
    min_length: int = 0

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw)
        if len(text) < self.min_length:
            raise errors.invalid_value(name, f"Minimum length of {self.min_length} not met for {name}")
        if self.max_length is not None and len(text) > self.max_length:
            raise errors.invalid_value(name, f"Maximum length of {self.max_length} exceeded for {name}")
        return Parsed(text, text)


@dataclass(frozen=True, slots=True)
class Long(Kind):
    low: int | None = None
    high: int | None = None
    type_name: str = "Long"

    def parse(self, name: str, raw: Raw) -> Parsed:
        if isinstance(raw, int) and not isinstance(raw, bool):
            value = raw
        else:
            text = _scalar(name, raw).strip()
            if _LONG.fullmatch(text) is None:
                raise errors.expected(self.type_name, raw, name)
            value = int(text)
        if value not in _INT64:
            raise errors.expected(self.type_name, raw, name)
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            raise errors.invalid_value(
                name,
                f'Expected {self.type_name} between {self.low} and {self.high}, got "{value}" for {name}'
                if self.high is not None
                else f'Expected {self.type_name} of at least {self.low}, got "{value}" for {name}',
            )
        return Parsed(value, value)


def Int(low: int | None = None, high: int | None = None) -> Long:
    return Long(low, high, "Int")


@dataclass(frozen=True, slots=True)
class Bool(Kind):
    def parse(self, name: str, raw: Raw) -> Parsed:
        if isinstance(raw, bool):
            return Parsed(raw, raw)
        text = _scalar(name, raw).strip().lower()  # clients send True/true/1
        if text in ("true", "1"):
            return Parsed(True, True)
        if text in ("false", "0"):
            return Parsed(False, False)
        raise errors.expected("Boolean", raw, name)


@dataclass(frozen=True, slots=True)
class Enum(Kind):
    values: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()  # (accepted spelling, canonical value)

    def canonical(self, name: str, text: str, raw: Raw) -> str:
        if text in self.values:
            return text
        for alias, value in self.aliases:
            if text == alias:
                return value
        raise errors.expected_one_of(self.values, raw, name)

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw).strip()
        value = self.canonical(name, text, raw)
        return Parsed(value, value)


@dataclass(frozen=True, slots=True)
class EnumList(Kind):
    values: tuple[str, ...]
    aliases: tuple[tuple[str, str], ...] = ()
    max_items: int | None = None

    def parse(self, name: str, raw: Raw) -> Parsed:
        single = Enum(self.values, self.aliases)
        items = _items(raw)
        if not items:
            raise errors.invalid_value(name, f"A minimum of 1 items must be provided for {name}")
        if self.max_items is not None and len(items) > self.max_items:
            raise errors.invalid_value(name, _too_many(self.max_items, name))
        values = [single.canonical(name, item, item) for item in items]
        return Parsed(values, values)


@dataclass(frozen=True, slots=True)
class TextList(Kind):
    max_items: int = MAX_IDS
    min_items: int = 1
    pattern: str | None = None  # e.g. two-letter country codes

    def parse(self, name: str, raw: Raw) -> Parsed:
        items = _items(raw)
        if len(items) < self.min_items:
            raise errors.invalid_value(name, _too_few(self.min_items, name))
        if len(items) > self.max_items:
            raise errors.invalid_value(name, _too_many(self.max_items, name))
        if self.pattern is not None:
            for item in items:
                if re.fullmatch(self.pattern, item) is None:
                    raise errors.expected("String matching " + self.pattern, item, name)
        return Parsed(items, items)


def Ids(max_items: int = MAX_IDS) -> TextList:
    """An id filter: comma-separated ads ids, at most 200."""
    return TextList(max_items=max_items)


@dataclass(frozen=True, slots=True)
class LongList(Kind):
    max_items: int = MAX_IDS

    def parse(self, name: str, raw: Raw) -> Parsed:
        items = _items(raw)
        if not items:
            raise errors.invalid_value(name, f"A minimum of 1 items must be provided for {name}")
        if len(items) > self.max_items:
            raise errors.invalid_value(name, _too_many(self.max_items, name))
        values = []
        for item in items:
            if _LONG.fullmatch(item) is None or int(item) not in _INT64:
                raise errors.expected("Long", item, name)
            values.append(int(item))
        return Parsed(values, values)


@dataclass(frozen=True, slots=True)
class Time(Kind):
    """ISO 8601 date or date-time; the value is epoch milliseconds, the echo `YYYY-MM-DDTHH:MM:SSZ`."""

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw).strip()
        moment = parse_time(text)
        if moment is None:
            raise errors.expected("time", raw, name)
        return Parsed(moment, format_time(moment))


def parse_time(text: str) -> int | None:
    if not text:
        return None
    try:
        date = _DATE.match(text)
        if date:
            parsed = dt.datetime(int(date[1]), int(date[2]), int(date[3]), tzinfo=dt.UTC)
        else:
            parsed = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
            if parsed.tzinfo is None:
                parsed = parsed.replace(tzinfo=dt.UTC)
    except ValueError:
        return None
    return int(parsed.timestamp() * 1000)


def format_time(ms: int | None) -> str | None:
    """`YYYY-MM-DDTHH:MM:SSZ`, second precision, as the ads API writes every timestamp."""
    if ms is None:
        return None
    return dt.datetime.fromtimestamp(ms / 1000, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class SortBy(Kind):
    """`<attribute>-asc|-desc`; the value is (attribute, descending), the echo an array."""

    attributes: tuple[str, ...]

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = _scalar(name, raw).strip()
        attribute, _, direction = text.rpartition("-")
        if attribute not in self.attributes or direction not in ("asc", "desc"):
            options = [f"{a}-{d}" for a in self.attributes for d in ("asc", "desc")]
            raise errors.expected_one_of(options, raw, name)
        return Parsed((attribute, direction == "desc"), [text])


@dataclass(frozen=True)
class AdsParam:
    name: str
    kind: Kind = field(default_factory=Kind)
    required: bool = False
    in_path: bool = False
    # An empty value un-sets an optional field on update (`end_time=`): the handler sees None.
    nullable: bool = False
    default: Any = None


def parse_all(
    declared: Sequence[AdsParam], raw: dict[str, Raw], path: dict[str, str]
) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """Typed values (defaults filled in), the echo (only what was sent) and the problems found."""
    values: dict[str, Any] = {}
    echo: dict[str, Any] = {}
    problems: list[dict[str, Any]] = []
    for param in declared:
        if param.in_path:
            values[param.name] = echo[param.name] = path[param.name]
            continue
        given = raw.get(param.name)
        if isinstance(given, list):
            # JSON nulls in an array (batch bodies) are values not given, never the text "None".
            given = [value for value in given if value is not None]
        if _has_nul(given):
            # Text databases refuse NUL characters; no valid value of any parameter holds one.
            problems.append(errors.expected("String", given, param.name).item)
            continue
        if given is None or given == []:
            if param.required:
                problems.append(errors.missing(param.name).item)
            elif param.default is not None:
                values[param.name] = param.default
            continue
        blank = given == "" or given == [""]
        if blank and param.nullable and not param.required:
            values[param.name] = None
            echo[param.name] = ""
            continue
        try:
            parsed = param.kind.parse(param.name, given)
        except errors.ParamProblem as problem:
            problems.append(problem.item)
            continue
        if blank and param.required:
            problems.append(errors.missing(param.name).item)
            continue
        values[param.name] = parsed.value
        echo[param.name] = parsed.echo
    return values, echo, problems


def _has_nul(raw: Raw) -> bool:
    if isinstance(raw, str):
        return "\x00" in raw
    if isinstance(raw, list):
        return any(isinstance(value, str) and "\x00" in value for value in raw)
    return False
