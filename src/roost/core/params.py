"""Parameter kinds with the platform's validation messages.

Each kind turns the raw string of one parameter into a value or raises ParamError with the exact
message the platform uses; the pipeline gathers every ParamError into one invalid-request body.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from roost.core.clock import parse_rfc3339
from roost.core.errors import ParamError
from roost.core.pagination import PageToken

SNOWFLAKE_PATTERN = "^[0-9]{1,19}$"
USERNAME_PATTERN = "^[A-Za-z0-9_]{1,15}$"
MEDIA_KEY_PATTERN = "^([0-9]+)_([0-9]+)$"
MAX_ID = (1 << 63) - 1
_USERNAME = re.compile(r"[A-Za-z0-9_]{1,15}")
_MEDIA_KEY = re.compile(r"([0-9]+)_([0-9]+)")
_ID_LIST = re.compile(r"[0-9]{1,19}(?:,[0-9]{1,19})*")  # ASCII digits only: [0-9], not \d


class Kind:
    """A parameter type. `openapi` describes it for the generated document."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string"}

    def parse(self, name: str, raw: str) -> Any:
        return raw


def _no_match(name: str, raw: str, pattern: str) -> ParamError:
    return ParamError(f"The `{name}` query parameter value [{raw}] does not match {pattern}")


class Snowflake(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": SNOWFLAKE_PATTERN}

    def parse(self, name: str, raw: str) -> int:
        # The pattern's test without a regex (ids are parsed by the hundred): 1 to 19 ASCII digits.
        if not (0 < len(raw) <= 19 and raw.isascii() and raw.isdigit()):
            raise _no_match(name, raw, SNOWFLAKE_PATTERN)
        value = int(raw)
        if value > MAX_ID:  # matches the pattern, but no 64-bit id is that large
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not valid")
        return value


class Username(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": USERNAME_PATTERN}

    def parse(self, name: str, raw: str) -> str:
        if _USERNAME.fullmatch(raw) is None:
            raise _no_match(name, raw, USERNAME_PATTERN)
        return raw


class MediaKey(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "pattern": MEDIA_KEY_PATTERN}

    def parse(self, name: str, raw: str) -> str:
        if _MEDIA_KEY.fullmatch(raw) is None:
            raise _no_match(name, raw, MEDIA_KEY_PATTERN)
        return raw


@dataclass(frozen=True)
class CsvOf(Kind):
    """A comma-separated list with a bound on its length; every item checked by `item`."""

    item: Kind
    max_items: int = 100
    min_items: int = 1

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {
            "type": "array",
            "items": self.item.openapi,
            "minItems": self.min_items,
            "maxItems": self.max_items,
        }

    def parse(self, name: str, raw: str) -> list[Any]:
        items = raw.split(",") if raw else []
        # Lists of ids come by the hundred: one pattern test for the lot; any doubt, the item loop.
        if (
            type(self.item) is Snowflake
            and self.min_items <= len(items) <= self.max_items
            and _ID_LIST.fullmatch(raw) is not None
        ):
            values = list(map(int, items))
            if max(values) <= MAX_ID:
                return values
        if not self.min_items <= len(items) <= self.max_items:
            raise ParamError(
                f"The number of values in the `{name}` query parameter list [{len(items)}] is not between "
                f"{self.min_items} and {self.max_items}"
            )
        parsed = []
        for item in items:
            try:
                parsed.append(self.item.parse(name, item))
            except ParamError as exc:
                # The platform names the offending item, not the whole list.
                raise self._item_error(name, item, exc) from None
        return parsed

    def _item_error(self, name: str, item: str, error: ParamError) -> ParamError:
        if getattr(self.item.openapi, "get", lambda _k: None)("pattern"):
            return error  # patterned kinds already name the item (pattern or range)
        return ParamError(f"The `{name}` query parameter value [{item}] is not valid")


@dataclass(frozen=True)
class IntRange(Kind):
    low: int
    high: int

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {"type": "integer", "minimum": self.low, "maximum": self.high}

    def parse(self, name: str, raw: str) -> int:
        text = raw.strip()
        digits = text[1:] if text[:1] == "-" else text
        # isascii: str.isdigit() is also true for '²' and other digits int() refuses.
        if not digits.isascii() or not digits.isdigit() or len(text) > 18:
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not a valid Int")
        value = int(text)
        if not self.low <= value <= self.high:
            raise ParamError(
                f"The `{name}` query parameter value [{raw}] is not between {self.low} and {self.high}"
            )
        return value


@dataclass(frozen=True)
class Enum(Kind):
    values: tuple[str, ...]

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {"type": "string", "enum": list(self.values)}

    def parse(self, name: str, raw: str) -> str:
        if raw not in self.values:
            raise ParamError(
                f"The `{name}` query parameter value [{raw}] is not one of [{','.join(self.values)}]"
            )
        return raw


@dataclass(frozen=True)
class EnumSet(Kind):
    """A comma-separated subset of allowed values (e.g. `exclude=retweets,replies`)."""

    values: tuple[str, ...]

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {"type": "array", "items": {"type": "string", "enum": list(self.values)}}

    def parse(self, name: str, raw: str) -> frozenset[str]:
        items = raw.split(",")
        for item in items:
            if item not in self.values:
                raise ParamError(
                    f"The `{name}` query parameter value [{item}] is not one of [{','.join(self.values)}]"
                )
        return frozenset(items)


class Boolean(Kind):
    """`true` or `false` in any case (the community notes' `test_mode`; Python clients send `True`)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "boolean"}

    def parse(self, name: str, raw: str) -> bool:
        value = raw.lower()
        if value not in ("true", "false"):
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not one of [true,false]")
        return value == "true"


@dataclass(frozen=True)
class BoundedText(Kind):
    """A free text of `low` to `high` characters (news and communities search queries)."""

    low: int
    high: int

    @property
    def openapi(self) -> dict[str, Any]:  # type: ignore[override]
        return {"type": "string", "minLength": self.low, "maxLength": self.high}

    def parse(self, name: str, raw: str) -> str:
        if not self.low <= len(raw) <= self.high:
            raise ParamError(
                f"The `{name}` query parameter value [{raw}] is not between {self.low} and {self.high} "
                "characters long"
            )
        return raw


class Timestamp(Kind):
    openapi: ClassVar[dict[str, Any]] = {"type": "string", "format": "date-time"}

    def parse(self, name: str, raw: str) -> int:
        value = parse_rfc3339(raw)
        if value is None:
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not a valid RFC3339 date-time")
        return value


class Token(Kind):
    """The pagination token of every paged operation (`pagination_token`, `next_token`): a
    `PageToken` the domain decodes for its list (`roost.core.pagination`); here only non-empty."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string", "minLength": 1}

    def parse(self, name: str, raw: str) -> PageToken:
        if not raw:
            raise ParamError(f"The `{name}` query parameter value [] is not a valid token")
        return PageToken(name, raw)


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind
    required: bool = False
    in_path: bool = False
    description: str = ""
    default: Any = None


def unknown_parameter_message(name: str, allowed: Sequence[str]) -> str:
    return f"The query parameter [{name}] is not one of [{','.join(allowed)}]"


def duplicate_parameter_message(name: str) -> str:
    return f"Duplicate parameters are not allowed: the `{name}` query parameter"


def empty_parameter_message(name: str) -> str:
    return f"The `{name}` query parameter can not be empty"
