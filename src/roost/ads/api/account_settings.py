"""Account settings and records: tax settings, the calling user's settings, account apps and the
account history beta.

Tax settings and user settings live in the account's settings JSON document (the `tax_settings`
column): tax fields at the top level, each user's settings under `user_settings` by user id, so
neither needs a table of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from roost.ads import entities, errors
from roost.ads.accounts import PERMISSIONS
from roost.ads.call import AdsCall
from roost.ads.operations import (
    ACCOUNT_HISTORY,
    ACCOUNT_ID,
    ACCOUNT_READ,
    WRITE,
    AdsOperation,
    list_params,
    path_param,
)
from roost.ads.paging import AdsResult, page_of
from roost.ads.params import AdsParam, Kind, Long, Parsed, Raw, Text, Time, format_time
from roost.ads.params import Enum as EnumKind
from roost.storage.ads import EntityQuery

# ---- tax settings ------------------------------------------------------------------------------

ADDRESS_PARTS = (
    "city",
    "country",
    "email",
    "first_name",
    "last_name",
    "company",
    "postal_code",
    "region",
    "street1",
    "street2",
)
BILL_TO = ("ADVERTISER", "AGENCY")
BUSINESS_RELATIONSHIPS = ("AGENCY", "SELF")
INVOICE_JURISDICTIONS = ("LOI_SAPIN", "NONE", "NOT_SET")
TAX_CATEGORIES = ("BUSINESS_NO_VAT", "BUSINESS_WITH_VAT", "INDIVIDUAL")
# What an account shows before anyone set its tax settings.
TAX_DEFAULTS: dict[str, Any] = {
    "tax_id": None,
    "tax_exemption_id": None,
    "tax_category": None,
    "business_relationship": "SELF",
    "bill_to": "NOT_SET",
    "invoice_jurisdiction": "NOT_SET",
}
USER_SETTINGS_KEY = "user_settings"
USER_SETTINGS_FIELDS = ("notification_email", "contact_phone", "contact_phone_extension")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_PHONE = re.compile(r"\+?[0-9][0-9 ().-]{3,30}")
_EXTENSION = re.compile(r"[0-9]{1,10}")


@dataclass(frozen=True, slots=True)
class Country(Kind):
    """A two-letter country code, stored upper-case."""

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = Text().parse(name, raw).value.strip()
        if re.fullmatch(r"[A-Za-z]{2}", text) is None:
            raise errors.expected("two-letter country code", raw, name)
        return Parsed(text.upper(), text.upper())


@dataclass(frozen=True, slots=True)
class Pattern(Kind):
    """Text that must match a pattern (email addresses, phone numbers)."""

    pattern: re.Pattern[str]
    type_name: str
    max_length: int = 255

    def parse(self, name: str, raw: Raw) -> Parsed:
        text = Text(max_length=self.max_length).parse(name, raw).value.strip()
        if self.pattern.fullmatch(text) is None:
            raise errors.expected(self.type_name, raw, name)
        return Parsed(text, text)


EMAIL = Pattern(_EMAIL, "email address")


def _address_params(prefix: str) -> list[AdsParam]:
    """One address: `address_*` (the account owner) or `client_address_*` (the advertiser an agency
    works for). `*_name` is the documented input name of the company, `*_company` the output name;
    both are accepted."""
    kinds: dict[str, Kind] = {"country": Country(), "email": EMAIL, "postal_code": Text(max_length=32)}
    return [
        AdsParam(f"{prefix}{part}", kinds.get(part, Text(max_length=255)), nullable=True)
        for part in (*ADDRESS_PARTS, "name")
    ]


TAX_PARAMS = (
    ACCOUNT_ID,
    *_address_params("address_"),
    *_address_params("client_address_"),
    # NOT_SET is what GET shows before a choice was made; taking it back lets a client save what it
    # loaded without editing it.
    AdsParam("bill_to", EnumKind((*BILL_TO, "NOT_SET")), nullable=True),
    AdsParam("business_relationship", EnumKind(BUSINESS_RELATIONSHIPS), nullable=True),
    AdsParam("invoice_jurisdiction", EnumKind(INVOICE_JURISDICTIONS), nullable=True),
    AdsParam("tax_category", EnumKind(TAX_CATEGORIES), nullable=True),
    AdsParam("tax_exemption_id", Text(max_length=64), nullable=True),
    AdsParam("tax_id", Text(max_length=64), nullable=True),
)


def tax_body(document: dict[str, Any]) -> dict[str, Any]:
    """The API object: tax fields, then the owner's address; the advertiser's address only when the
    account is run by an agency for someone else."""
    body = {name: document.get(name, default) for name, default in TAX_DEFAULTS.items()}
    body.update((f"address_{part}", document.get(f"address_{part}")) for part in ADDRESS_PARTS)
    if body["business_relationship"] == "AGENCY":
        body.update(
            (f"client_address_{part}", document.get(f"client_address_{part}")) for part in ADDRESS_PARTS
        )
    return body


def _tax_changes(params: dict[str, Any]) -> dict[str, Any]:
    changes = {name: value for name, value in params.items() if name != "account_id"}
    for prefix in ("address_", "client_address_"):
        alias, canonical = f"{prefix}name", f"{prefix}company"
        if alias in changes:
            if canonical in changes:
                raise errors.exclusive(alias, canonical)
            changes[canonical] = changes.pop(alias)
    return changes


async def get_tax_settings(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return tax_body(call.account["tax_settings"])


async def update_tax_settings(call: AdsCall) -> dict[str, Any]:
    changes = _tax_changes(call.params)
    async with call.services.db.transaction() as tx:
        # Read again inside the transaction: user settings share the document.
        account = await call.services.ads.account(call.account_id, tx)
        assert account is not None
        document = dict(account["tax_settings"])
        for name, value in changes.items():
            if value is None:
                document.pop(name, None)  # an empty value un-sets the field
            else:
                document[name] = value
        await call.services.ads.set_account_json(tx, call.account_id, "tax_settings", document)
    return tax_body(document)


# ---- user settings (the calling user's only) ------------------------------------------------------


def _own_user_id(call: AdsCall) -> str:
    raw = call.params["user_id"]
    if re.fullmatch(r"[0-9]{1,19}", raw) is None:
        raise errors.invalid_parameter("user_id", f'Expected Long, got "{raw}" for user_id')
    if int(raw) != call.user_id:
        raise errors.AdsError(
            403,
            [
                errors.item(
                    "ACTION_NOT_ALLOWED",
                    f"User settings of user {raw} can only be read or changed by that user",
                    "user_id",
                )
            ],
        )
    return str(int(raw))


def _user_settings(document: dict[str, Any], user_id: str) -> dict[str, Any]:
    stored = document.get(USER_SETTINGS_KEY, {}).get(user_id, {})
    return {name: stored.get(name) for name in USER_SETTINGS_FIELDS}


async def get_user_settings(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return _user_settings(call.account["tax_settings"], _own_user_id(call))


async def update_user_settings(call: AdsCall) -> dict[str, Any]:
    user_id = _own_user_id(call)
    changes = {name: call.params[name] for name in USER_SETTINGS_FIELDS if name in call.params}
    async with call.services.db.transaction() as tx:
        account = await call.services.ads.account(call.account_id, tx)
        assert account is not None
        document = dict(account["tax_settings"])
        users = dict(document.get(USER_SETTINGS_KEY, {}))
        mine = {**users.get(user_id, {}), **changes}
        users[user_id] = {name: value for name, value in mine.items() if value is not None}
        document[USER_SETTINGS_KEY] = users
        await call.services.ads.set_account_json(tx, call.account_id, "tax_settings", document)
    return _user_settings(document, user_id)


# ---- account apps -------------------------------------------------------------------------------


async def list_account_apps(call: AdsCall) -> AdsResult:
    return await entities.list_page(call.services, EntityQuery("account_app", call.account_id), call.params)


# ---- account history (allow-listed beta) ----------------------------------------------------------

HISTORY_ENTITY_TYPES = ("CAMPAIGN", "LINE_ITEM", "PROMOTED_TWEET", "TARGETING_CRITERIA", "PROMOTED_ACCOUNT")
_HOUR_MS = 3_600_000


def _whole_hour(name: str, value: int) -> None:
    if value % _HOUR_MS:
        raise errors.invalid_parameter(
            name, f'Expected a time in whole hours, got "{format_time(value)}" for {name}'
        )


def history_item(row: dict[str, Any]) -> dict[str, Any]:
    body = row["body"]
    user_id = row["user_id"]
    return {
        "change_by": {"user_id": None if user_id is None else str(user_id), "platform": "API_OTHER"},
        "changes": body.get("changes", {}),
        "change_time": format_time(row["change_time"]),
        "entity_id": row["entity_id"],
        "entity": row["entity_type"],
        "entity_data": body.get("entity_data"),
        "change_type": row["change_type"],
    }


async def account_history(call: AdsCall) -> AdsResult:
    assert call.account is not None
    if ACCOUNT_HISTORY not in call.account["allowlist"]:
        raise errors.not_allowlisted(
            f"Account {call.account_id} is not allowlisted for the account history beta"
        )
    params = call.params
    start, end = params["start_time"], params["end_time"]
    _whole_hour("start_time", start)
    _whole_hour("end_time", end)
    if end <= start:
        raise errors.bad_request("INVALID_TIME_WINDOW", "end_time must be after start_time", "end_time")
    rows = await call.services.ads.history(
        call.account_id, params["entity_type"], params["entity_id"], (start, end), params.get("user_id")
    )
    return page_of([history_item(row) for row in rows], params)


OPERATIONS = [
    AdsOperation(
        "getTaxSettings",
        "GET",
        "/accounts/{account_id}/tax_settings",
        get_tax_settings,
        params=(ACCOUNT_ID,),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "updateTaxSettings",
        "PUT",
        "/accounts/{account_id}/tax_settings",
        update_tax_settings,
        params=TAX_PARAMS,
        category=WRITE,
        write=True,
        roles=("ACCOUNT_ADMIN",),  # billing details are the account administrator's
    ),
    AdsOperation(
        "getUserSettings",
        "GET",
        "/accounts/{account_id}/user_settings/{user_id}",
        get_user_settings,
        params=(ACCOUNT_ID, path_param("user_id")),
        category=ACCOUNT_READ,
    ),
    AdsOperation(
        "updateUserSettings",
        "PUT",
        "/accounts/{account_id}/user_settings/{user_id}",
        update_user_settings,
        params=(
            ACCOUNT_ID,
            path_param("user_id"),
            AdsParam("notification_email", EMAIL, nullable=True),
            AdsParam("contact_phone", Pattern(_PHONE, "phone number", 32), nullable=True),
            AdsParam("contact_phone_extension", Pattern(_EXTENSION, "Long", 10), nullable=True),
        ),
        category=WRITE,
        write=True,
        roles=PERMISSIONS,  # everyone with access keeps their own contact details
    ),
    AdsOperation(
        "listAccountApps",
        "GET",
        "/accounts/{account_id}/account_apps",
        list_account_apps,
        params=(ACCOUNT_ID, *list_params(sort=("created_at", "updated_at", "deleted"))),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "getAccountHistory",
        "GET",
        "/accounts/{account_id}/account_history",
        account_history,
        params=(
            ACCOUNT_ID,
            AdsParam("entity_type", EnumKind(HISTORY_ENTITY_TYPES), required=True),
            AdsParam("entity_id", Text(min_length=1, max_length=64), required=True),
            AdsParam("start_time", Time(), required=True),
            AdsParam("end_time", Time(), required=True),
            AdsParam("user_id", Long(low=1)),
            *list_params(total=False, deleted=False),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
]
