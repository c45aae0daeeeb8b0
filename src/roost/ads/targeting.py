"""Targeting criteria rules: which values each targeting type takes, what a criterion is called, and
what a line item's existing criteria allow next. One implementation serves the single POST, the
batch endpoint (whose later items see earlier ones through the shared `Workspace` of
targeting_criteria.py) and the audience estimate.

Choices where the platform leaves room, kept in one place:
- Value and operator problems are INVALID_PARAMETER on `targeting_value` / `operator_type`; an
  unknown IAB category is INVALID_IAB_CATEGORY; a user id that names nobody INVALID_USER_ID.
- Conflicts with the line item's other criteria (a second AGE or EVENT bucket, a platform that
  overlaps a device, ENGAGEMENT_TYPE without engagement targeting, per-type limits) are
  INVALID_TARGETING_TYPE; TV shows use INVALID_TV_SHOW_LOCATIONS / TV_SHOW_OUTSIDE_MARKET.
- NE (exclusion) is accepted for keywords, CUSTOM_AUDIENCE and APP_LIST; APP_LIST takes only NE;
  NETWORK_ACTIVATION_DURATION only LT / GTE; every other type only EQ.
- Re-posting a criterion the line item already has returns the existing one instead of a twin; the
  same value with the other operator is refused.
- CUSTOM_AUDIENCE / CUSTOM_AUDIENCE_EXPANDED values are the account's own custom audiences or ones
  shared with it (custom_audiences.py): any other id is TAILORED_AUDIENCE_NOT_FOUND, and one not yet
  targetable (too small) is INVALID_PARAMETER.
- APP_LIST values are the account's app lists (app_lists.py); any other id is INVALID_PARAMETER.
- LIVE_TV_EVENT has no catalog in roost, so no value is valid.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from roost.ads import catalog, errors
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Executor, Row
from roost.storage.users import UserStore

KEYWORD_TYPES = ("BROAD_KEYWORD", "EXACT_KEYWORD", "PHRASE_KEYWORD", "UNORDERED_KEYWORD")
AUDIENCE_TYPES = ("CUSTOM_AUDIENCE", "CUSTOM_AUDIENCE_EXPANDED")
APP_STORE_TYPES = ("APP_STORE_CATEGORY", "APP_STORE_CATEGORY_LOOKALIKE")
NON_KEYWORD_TYPES = (
    "AGE", "DEVICE", "EVENT", "CAMPAIGN_ENGAGEMENT", "CAMPAIGN_ENGAGEMENT_LOOKALIKE", "CONVERSATION",
    "ENGAGEMENT_TYPE", "FOLLOWERS_OF_USER", "GENDER", "INTEREST", "LANGUAGE", "LIVE_TV_EVENT", "LOCATION",
    "NETWORK_ACTIVATION_DURATION", "NETWORK_OPERATOR", "PLATFORM", "PLATFORM_VERSION",
    "SIMILAR_TO_FOLLOWERS_OF_USER", "TV_SHOW", "USER_ENGAGEMENT", "USER_ENGAGEMENT_LOOKALIKE", "WIFI_ONLY",
)  # fmt: skip
TARGETING_TYPES = (
    *NON_KEYWORD_TYPES,
    *KEYWORD_TYPES,
    *AUDIENCE_TYPES,
    *APP_STORE_TYPES,
    "APP_LIST",
    "IAB_CATEGORY",
)
OPERATORS = ("EQ", "NE", "GTE", "LT")

# Types the audience estimate ORs together; at least one is needed there (the rest are ANDed).
PRIMARY_TYPES = frozenset(
    (*KEYWORD_TYPES, *AUDIENCE_TYPES, "FOLLOWERS_OF_USER", "SIMILAR_TO_FOLLOWERS_OF_USER", "INTEREST",
     "TV_SHOW", "CONVERSATION", "EVENT", "CAMPAIGN_ENGAGEMENT", "CAMPAIGN_ENGAGEMENT_LOOKALIKE",
     "USER_ENGAGEMENT", "USER_ENGAGEMENT_LOOKALIKE", "APP_STORE_CATEGORY", "APP_STORE_CATEGORY_LOOKALIKE")
)  # fmt: skip

_EXCLUDABLE = frozenset((*KEYWORD_TYPES, "CUSTOM_AUDIENCE", "APP_LIST"))
_USER_TYPES = (
    "FOLLOWERS_OF_USER",
    "SIMILAR_TO_FOLLOWERS_OF_USER",
    "USER_ENGAGEMENT",
    "USER_ENGAGEMENT_LOOKALIKE",
)
_ONE_PER_LINE_ITEM = ("AGE", "EVENT")
# Per line item; keyword types share one allowance.
LIMITS: dict[str, int] = {
    "INTEREST": 100,
    "SIMILAR_TO_FOLLOWERS_OF_USER": 100,
    "LOCATION": 2_000,
    "KEYWORD": 1_000,
}
_LOCATION_TYPE = {
    "COUNTRIES": "COUNTRY", "REGIONS": "REGION", "METROS": "METRO", "CITIES": "CITY",
    "POSTAL_CODES": "POSTAL_CODE",
}  # fmt: skip
_PLATFORM_OS = {"0": "iOS", "1": "Android"}
_KEYWORD_MAX = 255
_USER_ID = re.compile(r"[0-9]{1,19}")
_MAX_ID = 2**63 - 1


@dataclass
class Resolved:
    """A validated criterion: normalised value, human name and catalog details."""

    targeting_type: str
    targeting_value: str
    operator_type: str
    name: str
    location_type: str | None = None
    entry: dict[str, Any] = field(default_factory=dict)  # catalog item or other details (size, country)

    def attributes(self, line_item_id: str) -> dict[str, Any]:
        body: dict[str, Any] = {"line_item_id": line_item_id, "name": self.name}
        if self.location_type is not None:
            body["location_type"] = self.location_type
        body.update(
            targeting_type=self.targeting_type,
            targeting_value=self.targeting_value,
            operator_type=self.operator_type,
        )
        return body


Made = Callable[..., Resolved]  # builds a Resolved of the criterion being checked


def printable(text: str) -> bool:
    """No control characters: they name nothing and some databases refuse them in queries."""
    return not any(ord(char) < 32 or ord(char) == 127 for char in text)


def is_user_id(text: str) -> bool:
    return _USER_ID.fullmatch(text) is not None and int(text) <= _MAX_ID


def _invalid_value(targeting_type: str, value: str) -> errors.AdsError:
    return errors.bad_request(
        "INVALID_PARAMETER",
        f'Invalid targeting_value "{value}" for targeting_type {targeting_type}',
        "targeting_value",
    )


def _conflict(message: str) -> errors.AdsError:
    return errors.bad_request("INVALID_TARGETING_TYPE", message, "targeting_type")


def check_operator(targeting_type: str, operator_type: str) -> None:
    if targeting_type == "NETWORK_ACTIVATION_DURATION":
        allowed: tuple[str, ...] = ("LT", "GTE")
    elif targeting_type == "APP_LIST":
        allowed = ("NE",)
    elif targeting_type in _EXCLUDABLE:
        allowed = ("EQ", "NE")
    else:
        allowed = ("EQ",)
    if operator_type not in allowed:
        raise errors.bad_request(
            "INVALID_PARAMETER",
            f"operator_type {operator_type} is not supported for targeting_type {targeting_type}; "
            f"expected {' or '.join(allowed)}",
            "operator_type",
        )


class Resolver:
    """Checks one criterion's operator and value against the catalogs, the account's campaigns and
    promotable users, and the users roost holds."""

    def __init__(self, store: AdsStore, users: UserStore) -> None:
        self._store = store
        self._users = users

    async def resolve(
        self,
        account_id: str,
        targeting_type: str,
        raw_value: str,
        operator_type: str,
        reader: Executor | None = None,
    ) -> Resolved:
        """Check the operator and the value of one criterion; raises the platform's 400/404."""
        check_operator(targeting_type, operator_type)
        if not printable(str(raw_value)):
            raise _invalid_value(targeting_type, repr(str(raw_value))[1:-1])
        value = " ".join(str(raw_value).split())  # keywords: inner whitespace collapsed
        if not value:
            raise errors.missing_parameter("targeting_value")

        def made(normalised: str, name: str, **extra: Any) -> Resolved:
            return Resolved(targeting_type, normalised, operator_type, name, **extra)

        if targeting_type == "IAB_CATEGORY":
            return _iab(value, made)
        if targeting_type in catalog.CATALOG_TARGETING_TYPES:
            entry = catalog.targeting_entry(targeting_type, value)
            if entry is None:
                raise _invalid_value(targeting_type, value)
            location_type = (
                _LOCATION_TYPE.get(entry.get("location_type", "")) if targeting_type == "LOCATION" else None
            )
            return made(
                str(entry["targeting_value"]), str(entry["name"]), location_type=location_type, entry=entry
            )
        if targeting_type in KEYWORD_TYPES:
            if len(value) > _KEYWORD_MAX:
                raise errors.bad_request(
                    "INVALID_PARAMETER",
                    f"Maximum length of {_KEYWORD_MAX} exceeded for targeting_value",
                    "targeting_value",
                )
            return made(value, value)
        if targeting_type in AUDIENCE_TYPES:
            return await self._audience(account_id, value, made, reader)
        if targeting_type in _USER_TYPES:
            return await self._user(account_id, targeting_type, value, made, reader)
        if targeting_type in ("CAMPAIGN_ENGAGEMENT", "CAMPAIGN_ENGAGEMENT_LOOKALIKE"):
            row = await self._store.entity(value.lower(), reader)
            if row is None or row["kind"] != "campaign" or row["account_id"] != account_id or row["deleted"]:
                raise errors.bad_request(
                    "INVALID_PARAMETER",
                    f"Campaign {value} was not found for Account {account_id}",
                    "targeting_value",
                )
            return made(row["body"]["id"], str(row["body"].get("name") or row["body"]["id"]))
        if targeting_type == "NETWORK_ACTIVATION_DURATION":
            if not value.isdigit() or not 1 <= int(value) <= 120:
                raise _invalid_value(targeting_type, value)
            months = int(value)
            label = f"Less than {months} months" if operator_type == "LT" else f"{months} months or more"
            return made(str(months), label)
        if targeting_type == "WIFI_ONLY":
            if value.lower() not in ("true", "1"):
                raise _invalid_value(targeting_type, value)
            return made("true", "WiFi-Only")
        if targeting_type == "APP_LIST":
            app_list = await self._store.entity(value.lower(), reader)
            if not _live_in(app_list, "app_list", account_id):
                raise errors.bad_request(
                    "INVALID_PARAMETER",
                    f"App list {value} was not found for Account {account_id}",
                    "targeting_value",
                )
            return made(value.lower(), "App list exclusion")
        raise _invalid_value(targeting_type, value)  # LIVE_TV_EVENT: no catalog of live events

    async def _audience(self, account_id: str, value: str, made: Made, reader: Executor | None) -> Resolved:
        """The account's own custom audience or one shared with it, targetable."""
        row = await self._store.entity(value.lower(), reader)
        if row is None or not await self._audience_reachable(row, account_id, reader):
            raise errors.AdsError(
                404,
                [
                    errors.item(
                        "TAILORED_AUDIENCE_NOT_FOUND",
                        f"Custom audience {value} was not found",
                        "targeting_value",
                    )
                ],
            )
        audience = row["body"]
        if not audience.get("targetable"):
            raise errors.bad_request(
                "INVALID_PARAMETER", f"Custom audience {value} is not targetable", "targeting_value"
            )
        return made(audience["id"], "Custom audience targeting", entry={"size": audience["audience_size"]})

    async def _audience_reachable(self, row: Row, account_id: str, reader: Executor | None) -> bool:
        if row["kind"] != "custom_audience" or row["deleted"]:
            return False
        if row["account_id"] == account_id:
            return True
        shared = EntityQuery("custom_audience_share", account_id, parent_ids=[row["id"]])
        return bool((await self._store.entities(shared, reader))[0])

    async def _user(
        self, account_id: str, targeting_type: str, value: str, made: Made, reader: Executor | None
    ) -> Resolved:
        user = await self._users.get(int(value)) if is_user_id(value) else None
        if user is None:
            raise errors.bad_request("INVALID_USER_ID", f"User {value} does not exist", "targeting_value")
        if targeting_type.startswith("USER_ENGAGEMENT"):
            # Engagement retargeting works on the account's own promotable users only.
            rows, _ = await self._store.entities(EntityQuery("promotable_user", account_id), reader)
            if not any(str(row["body"].get("user_id")) == value for row in rows):
                raise errors.bad_request(
                    "INVALID_PARAMETER",
                    f"User {value} is not a promotable user of Account {account_id}",
                    "targeting_value",
                )
        return made(
            value, f"@{user['username']}", entry={"followers_count": int(user["followers_count"] or 0)}
        )


def _iab(value: str, made: Made) -> Resolved:
    entry = catalog.iab_category(value)
    if entry is None:
        content = catalog.content_category(value)
        hint = f"; content category {value} is targeted with its IAB categories" if content else ""
        raise errors.AdsError(
            404,
            [errors.item("INVALID_IAB_CATEGORY", f"Invalid IAB category {value}{hint}", "targeting_value")],
        )
    return made(entry["id"], entry["name"], entry=entry)


def _live_in(row: Row | None, kind: str, account_id: str) -> bool:
    return row is not None and row["kind"] == kind and row["account_id"] == account_id and not row["deleted"]


# ---- the line item's other criteria -----------------------------------------------------------


def check_line_item(current: list[dict[str, Any]], new: Resolved) -> dict[str, Any] | None:
    """Raise if the line item cannot take `new`; return the existing twin when it already has it."""
    kind = new.targeting_type
    for criterion in current:
        if criterion["targeting_type"] == kind and criterion["targeting_value"] == new.targeting_value:
            if criterion["operator_type"] == new.operator_type:
                return criterion
            raise errors.bad_request(
                "INVALID_PARAMETER",
                f"{kind} {new.targeting_value} is already targeted with operator_type "
                f"{criterion['operator_type']}",
                "operator_type",
            )
    same = [c for c in current if c["targeting_type"] == kind]
    if kind in _ONE_PER_LINE_ITEM and same:
        raise _conflict(f"Only one {kind} targeting criterion is allowed per line item")
    group = "KEYWORD" if kind in KEYWORD_TYPES else kind
    limit = LIMITS.get(group)
    if limit is not None:
        count = (
            len([c for c in current if c["targeting_type"] in KEYWORD_TYPES])
            if group == "KEYWORD"
            else len(same)
        )
        if count >= limit:
            raise _conflict(f"A line item can have at most {limit} {group} targeting criteria")
    if kind == "ENGAGEMENT_TYPE" and not any(
        c["targeting_type"] in ("CAMPAIGN_ENGAGEMENT", "USER_ENGAGEMENT") for c in current
    ):
        raise _conflict(
            "ENGAGEMENT_TYPE needs a CAMPAIGN_ENGAGEMENT or USER_ENGAGEMENT criterion on the line item"
        )
    if kind in ("PLATFORM", "DEVICE"):
        _check_overlap(current, new)
    if kind == "TV_SHOW":
        _check_tv_show(current, new)
    if kind == "LOCATION" and new.operator_type == "EQ":
        _check_location_market(current, new)
    return None


def _device_os(criterion: dict[str, Any] | Resolved) -> str | None:
    if isinstance(criterion, Resolved):
        kind, value = criterion.targeting_type, criterion.targeting_value
    else:
        kind, value = criterion["targeting_type"], criterion["targeting_value"]
    if kind == "PLATFORM":
        return _PLATFORM_OS.get(value)
    entry = catalog.targeting_entry("DEVICE", value)
    return str(entry["os_type"]) if entry else None


def _check_overlap(current: list[dict[str, Any]], new: Resolved) -> None:
    """Platforms and devices may be combined only when they do not overlap (iOS and an iPad)."""
    other = "DEVICE" if new.targeting_type == "PLATFORM" else "PLATFORM"
    os_type = _device_os(new)
    for criterion in current:
        if criterion["targeting_type"] == other and os_type is not None and _device_os(criterion) == os_type:
            raise _conflict(
                f"{new.targeting_type} {new.name} overlaps {other} {criterion['name']} "
                "already on the line item"
            )


def _locations(current: list[dict[str, Any]]) -> set[str]:
    countries = set()
    for criterion in current:
        if criterion["targeting_type"] == "LOCATION" and criterion["operator_type"] == "EQ":
            country = catalog.country_of(criterion["targeting_value"])
            if country:
                countries.add(country)
    return countries


def _show_countries(value: str) -> set[str]:
    return {locale.split("-")[1] for locale in catalog.show_locales(value)}


def _check_tv_show(current: list[dict[str, Any]], new: Resolved) -> None:
    countries = _locations(current)
    if not countries:
        raise errors.bad_request(
            "INVALID_TV_SHOW_LOCATIONS",
            "TV_SHOW targeting needs a LOCATION criterion on the line item first",
            "targeting_value",
        )
    if len(countries) > 1:
        raise errors.bad_request(
            "INVALID_TV_SHOW_LOCATIONS",
            "TV_SHOW targeting needs the line item's locations in a single TV market",
            "targeting_value",
        )
    markets = _show_countries(new.targeting_value)
    if not countries <= markets:
        raise errors.bad_request(
            "TV_SHOW_OUTSIDE_MARKET",
            f"TV show {new.name} does not air in the market of the line item's locations",
            "targeting_value",
        )


def _check_location_market(current: list[dict[str, Any]], new: Resolved) -> None:
    """A location added after TV shows must stay inside their market."""
    shows = [c for c in current if c["targeting_type"] == "TV_SHOW"]
    if not shows:
        return
    country = catalog.country_of(new.targeting_value)
    allowed = _locations(current) or set.intersection(*(_show_countries(s["targeting_value"]) for s in shows))
    if country not in allowed:
        raise errors.bad_request(
            "TV_SHOW_OUTSIDE_MARKET",
            f"Location {new.name} is outside the TV market of the line item's TV_SHOW criteria",
            "targeting_value",
        )


def check_content_categories(current: list[dict[str, Any]]) -> None:
    """IAB_CATEGORY criteria must add up to whole content categories: each content category is
    targeted with every IAB category it maps to."""
    chosen = {c["targeting_value"] for c in current if c["targeting_type"] == "IAB_CATEGORY"}
    if not chosen:
        return
    categories = catalog.content_categories()
    covered: set[str] = set()
    for category in categories:
        ids = set(category["iab_categories"])
        if ids <= chosen:
            covered |= ids
    for value in sorted(chosen - covered):
        owners = [c for c in categories if value in c["iab_categories"]]
        if not owners:
            message = f"IAB category {value} does not belong to any content category"
        else:
            owner = owners[0]
            missing = [i for i in owner["iab_categories"] if i not in chosen]
            message = (
                f"Content category {owner['name']} ({owner['id']}) must be targeted with all of its IAB "
                f"categories; missing {', '.join(missing)}"
            )
        raise errors.bad_request("INVALID_PARAMETER", message, "targeting_value")


def localized(body: dict[str, Any], lang: str | None) -> dict[str, Any]:
    """The criterion with `localized_name` when a language was asked for."""
    if not lang:
        return body
    name = catalog.localized_name(body["targeting_type"], body["targeting_value"], lang)
    out = dict(body)
    out["localized_name"] = name if name is not None else body.get("name")
    # Keep the platform's key order: timestamps and `deleted` last.
    for key in ("created_at", "updated_at", "deleted"):
        if key in out:
            out[key] = out.pop(key)
    return out
