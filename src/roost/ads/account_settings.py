"""Account settings and records: tax settings, each user's own settings and the account history
beta.

Tax settings and user settings live in the account's settings JSON document (the `tax_settings`
column): tax fields at the top level, each user's settings under `user_settings` by user id, so
neither needs a table of its own.
"""

from __future__ import annotations

import re
from typing import Any

from roost.ads import errors
from roost.ads.accounts import ACCOUNT_HISTORY
from roost.ads.paging import AdsResult, page_of
from roost.ads.params import format_time
from roost.core.records import Row
from roost.storage.ads import AdsStore
from roost.storage.db import Database

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
HISTORY_ENTITY_TYPES = ("CAMPAIGN", "LINE_ITEM", "PROMOTED_TWEET", "TARGETING_CRITERIA", "PROMOTED_ACCOUNT")
_HOUR_MS = 3_600_000


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


# ---- user settings (the calling user's only) ------------------------------------------------------


def _own_user_id(raw: str, caller_id: int) -> str:
    if re.fullmatch(r"[0-9]{1,19}", raw) is None:
        raise errors.invalid_parameter("user_id", f'Expected Long, got "{raw}" for user_id')
    if int(raw) != caller_id:
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


# ---- account history (allow-listed beta) ----------------------------------------------------------


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


class AccountSettings:
    """Tax settings, user settings and the account history of one account."""

    def __init__(self, db: Database, store: AdsStore) -> None:
        self._db = db
        self._store = store

    @staticmethod
    def tax(account: Row) -> dict[str, Any]:
        return tax_body(account["tax_settings"])

    async def update_tax(self, account_id: str, params: dict[str, Any]) -> dict[str, Any]:
        changes = _tax_changes(params)
        async with self._db.transaction() as tx:
            # Read again inside the transaction: user settings share the document.
            account = await self._store.account(account_id, tx)
            assert account is not None
            document = dict(account["tax_settings"])
            for name, value in changes.items():
                if value is None:
                    document.pop(name, None)  # an empty value un-sets the field
                else:
                    document[name] = value
            await self._store.set_account_json(tx, account_id, "tax_settings", document)
        return tax_body(document)

    @staticmethod
    def user_settings(account: Row, user_id: str, caller_id: int) -> dict[str, Any]:
        """The settings of `user_id` (the path's text), who must be the caller."""
        return _user_settings(account["tax_settings"], _own_user_id(user_id, caller_id))

    async def update_user_settings(
        self, account_id: str, user_id: str, caller_id: int, params: dict[str, Any]
    ) -> dict[str, Any]:
        own = _own_user_id(user_id, caller_id)
        changes = {name: params[name] for name in USER_SETTINGS_FIELDS if name in params}
        async with self._db.transaction() as tx:
            account = await self._store.account(account_id, tx)
            assert account is not None
            document = dict(account["tax_settings"])
            users = dict(document.get(USER_SETTINGS_KEY, {}))
            mine = {**users.get(own, {}), **changes}
            users[own] = {name: value for name, value in mine.items() if value is not None}
            document[USER_SETTINGS_KEY] = users
            await self._store.set_account_json(tx, account_id, "tax_settings", document)
        return _user_settings(document, own)

    async def history(self, account: Row, params: dict[str, Any]) -> AdsResult:
        """Changes to one entity in a window of whole hours (accounts allow-listed for the beta)."""
        account_id = str(account["id"])
        if ACCOUNT_HISTORY not in account["allowlist"]:
            raise errors.not_allowlisted(
                f"Account {account_id} is not allowlisted for the account history beta"
            )
        start, end = params["start_time"], params["end_time"]
        _whole_hour("start_time", start)
        _whole_hour("end_time", end)
        if end <= start:
            raise errors.bad_request("INVALID_TIME_WINDOW", "end_time must be after start_time", "end_time")
        rows = await self._store.history(
            account_id, params["entity_type"], params["entity_id"], (start, end), params.get("user_id")
        )
        return page_of([history_item(row) for row in rows], params)
