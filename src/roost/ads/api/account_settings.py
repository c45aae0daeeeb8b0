"""Account settings and records: tax settings, the calling user's settings, account apps and the
account history beta. The rules and the settings document are roost/ads/account_settings.py's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from roost.ads import errors
from roost.ads.account_settings import (
    ADDRESS_PARTS,
    BILL_TO,
    BUSINESS_RELATIONSHIPS,
    HISTORY_ENTITY_TYPES,
    INVOICE_JURISDICTIONS,
    TAX_CATEGORIES,
)
from roost.ads.accounts import PERMISSIONS
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ACCOUNT_READ, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Kind, Long, Parsed, Raw, Text, Time
from roost.ads.params import Enum as EnumKind

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


# ---- handlers ----------------------------------------------------------------------------------


async def get_tax_settings(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return call.ads.settings.tax(call.account)


async def update_tax_settings(call: AdsCall) -> dict[str, Any]:
    return await call.ads.settings.update_tax(call.account_id, call.params)


async def get_user_settings(call: AdsCall) -> dict[str, Any]:
    assert call.account is not None
    return call.ads.settings.user_settings(call.account, call.params["user_id"], call.user_id)


async def update_user_settings(call: AdsCall) -> dict[str, Any]:
    return await call.ads.settings.update_user_settings(
        call.account_id, call.params["user_id"], call.user_id, call.params
    )


async def list_account_apps(call: AdsCall) -> AdsResult:
    return await call.ads.entities.page("account_app", call.account_id, call.params)


async def account_history(call: AdsCall) -> AdsResult:
    assert call.account is not None
    return await call.ads.settings.history(call.account, call.params)


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
