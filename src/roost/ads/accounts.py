"""Ads accounts: creation (sandbox, demo and control plane), the API object, who may reach an
account, its features and its funding instruments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.ids import entity_id
from roost.ads.paging import AdsResult, page_window, stored_page
from roost.ads.params import format_time
from roost.core.records import Row
from roost.storage.ads import AccountQuery, AdsStore
from roost.storage.db import Database, Executor

# Beta programmes an account must be allow-listed for.
ACCOUNT_HISTORY = "ACCOUNT_HISTORY"
RECOMMENDATIONS = "RECOMMENDATIONS"
ADVERTISER_USER_ID = "ADVERTISER_USER_ID"
PROGRAMMES = (ACCOUNT_HISTORY, RECOMMENDATIONS, ADVERTISER_USER_ID)
INDUSTRY_TYPES = (
    "AGENCY",
    "BUSINESS_TO_BUSINESS",
    "ONLINE_SERVICES",
    "EDUCATION",
    "FINANCIAL",
    "HEALTH",
    "GOVERNMENT",
    "MEDIA",
    "MOBILE",
    "RESTAURANT",
    "RETAIL",
    "TECHNOLOGY",
    "TRAVEL",
    "OTHER",
)
PERMISSIONS = (
    "ACCOUNT_ADMIN",
    "AD_MANAGER",
    "CREATIVE_MANAGER",
    "CAMPAIGN_ANALYST",
    "ANALYST",
    "PARTNER_AUDIENCE_MANAGER",
    "TWEET_COMPOSER",
)
# TWEET_COMPOSER (nullcast posts) exists only beside these roles.
COMPOSER_ROLES = ("ACCOUNT_ADMIN", "AD_MANAGER", "CREATIVE_MANAGER")
FEATURE_KEYS = (
    "AGE_TARGETING",
    "ALLOW_SKIPPABLE_VIDEOS_FOR_PREROLL_VIEWS_OBJECTIVE",
    "AWARENESS_OBJECTIVE",
    "BRAND_TPN",
    "CHARGE_FOR_GOOD_CLICK",
    "CONVERSATION_CARD",
    "CONVERSATION_CARD_FOUR_OPTIONS",
    "CONVERSATION_CARD_UNLOCK",
    "CPI_CHARGING",
    "DIRECT_MESSAGE_CARD",
    "DR_TAP",
    "ENGAGER_RETARGETING",
    "EVENT_TARGETING",
    "INSTALLED_APP_CATEGORY_TARGETING",
    "MOBILE_CONVERSION_TRANSACTION_VALUE",
    "OPTIMIZED_ACTION_BIDDING",
    "REACH_AND_FREQUENCY_ANALYTICS",
    "REACH_FREQUENCY_CAP",
    "VALIDATED_AGE_TARGETING",
    "VIDEO_VIEWS_MIDROLL_OBJECTIVE",
    "PREROLL_VIEWS_OBJECTIVE",
    "VIDEO_APP_DOWNLOAD_CARD",
)
# GET features also accepts these as a filter.
FEATURE_FILTER_KEYS = (*FEATURE_KEYS, "WEBSITE_CLICKS_CPM_BILLING")
DEFAULT_TIMEZONE = "America/Los_Angeles"
SANDBOX_CARD_LIMIT_MICRO = 500_000_000


def account_body(
    account_id: str, name: str, now_ms: int, *, industry_type: str | None = None
) -> dict[str, Any]:
    stamp = format_time(now_ms)
    return {
        "id": account_id,
        "name": name,
        "business_name": None,
        "business_id": None,
        "timezone": DEFAULT_TIMEZONE,
        "timezone_switch_at": None,
        "industry_type": industry_type,
        "approval_status": "ACCEPTED",
        "created_at": stamp,
        "updated_at": stamp,
        "deleted": False,
    }


def funding_instrument_attributes(
    account_id: str,
    instrument_type: str,
    currency: str,
    start_ms: int,
    *,
    end_ms: int | None = None,
    credit_limit_micro: int | None = None,
    funded_amount_micro: int | None = None,
) -> dict[str, Any]:
    """A funding instrument as a new sandbox one looks: active and able to fund."""
    remaining = credit_limit_micro if instrument_type in ("CREDIT_LINE", "AGENCY_CREDIT_LINE") else None
    return {
        "account_id": account_id,
        "type": instrument_type,
        "description": "(no payment method has been set up yet)",
        "currency": currency,
        "start_time": format_time(start_ms),
        "end_time": format_time(end_ms),
        "entity_status": "ACTIVE",
        "able_to_fund": True,
        "reasons_not_able_to_fund": [],
        "io_header": None,
        "credit_limit_local_micro": credit_limit_micro,
        "credit_remaining_local_micro": remaining,
        "funded_amount_local_micro": funded_amount_micro,
    }


class Accounts:
    """Accounts and what hangs off them directly: access, features, funding instruments."""

    def __init__(self, db: Database, store: AdsStore, entities: Entities) -> None:
        self._db = db
        self._store = store
        self._entities = entities

    # ---- access -----------------------------------------------------------------------------

    async def access(
        self,
        account_id: str,
        user_id: int,
        *,
        sandbox: bool,
        deleted_ok: bool,
        write_roles: Sequence[str] | None,
    ) -> tuple[Row, list[str]]:
        """The account named in a request's path and the caller's roles on it: unknown accounts, those
        of the other environment and deleted ones (unless `deleted_ok`) are not found; an account the
        caller has no role on is not accessible; a write needs one of `write_roles`."""
        account = await self._store.account(account_id)
        if account is None or bool(account["sandbox"]) != sandbox:
            raise errors.account_not_found(account_id)
        if account["deleted"] and not deleted_ok:
            raise errors.account_not_found(account_id)
        permissions = await self._store.permissions(account_id, user_id)
        if permissions is None:
            raise errors.account_not_accessible(account_id)
        if write_roles is not None and not any(role in permissions for role in write_roles):
            raise errors.action_not_allowed(account_id)
        return account, permissions

    # ---- accounts ---------------------------------------------------------------------------

    async def page(self, user_id: int, sandbox: bool, params: dict[str, Any]) -> AdsResult:
        """The accounts the user has a role on, in this environment."""
        offset, count = page_window(params)
        rows, total = await self._store.accounts(
            AccountQuery(
                user_id=user_id,
                sandbox=sandbox,
                ids=params.get("account_ids"),
                name_prefix=params.get("q"),
                with_deleted=bool(params.get("with_deleted")),
                sort=params.get("sort_by"),
                offset=offset,
                limit=count,
                with_total=bool(params.get("with_total_count")),
            )
        )
        return stored_page([row["body"] for row in rows], offset, count, total, params)

    async def create_in(
        self,
        tx: Executor,
        *,
        owner_user_id: int,
        sandbox: bool,
        now_ms: int,
        name: str | None = None,
        account_id: str | None = None,
        currency: str = "USD",
    ) -> dict[str, Any]:
        """An account with its owner as ACCOUNT_ADMIN, a credit-card funding instrument and the owner
        as its FULL promotable user, so campaigns and line items can be created at once."""
        if account_id is None:
            sequence = await self._store.next_sequence(tx, "sandbox_account" if sandbox else "account")
            account_id = entity_id("sandbox_account" if sandbox else "account", sequence)
        body = account_body(
            account_id, name or ("Sandbox account" if sandbox else "Advertiser account"), now_ms
        )
        await self._store.insert_account(
            tx,
            {
                "id": account_id,
                "sandbox": 1 if sandbox else 0,
                "name_lower": body["name"].lower(),
                "deleted": 0,
                "created_at": now_ms,
                "updated_at": now_ms,
                "body": body,
                "features": [],
                "tax_settings": {},
                "allowlist": [],
                "limits": {},
            },
        )
        await self._store.grant(tx, account_id, owner_user_id, ["ACCOUNT_ADMIN", "TWEET_COMPOSER"])
        await self._entities.create(
            tx,
            "funding_instrument",
            account_id,
            funding_instrument_attributes(
                account_id, "CREDIT_CARD", currency, now_ms, credit_limit_micro=SANDBOX_CARD_LIMIT_MICRO
            ),
            now_ms=now_ms,
            user_id=owner_user_id,
        )
        await self._entities.create(
            tx,
            "promotable_user",
            account_id,
            {"user_id": str(owner_user_id), "promotable_user_type": "FULL"},
            now_ms=now_ms,
            user_id=owner_user_id,
        )
        return body

    async def create_sandbox(self, user_id: int, now_ms: int) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            return await self.create_in(tx, owner_user_id=user_id, sandbox=True, now_ms=now_ms)

    async def update(self, actor: Actor, changes: dict[str, Any]) -> dict[str, Any]:
        body = {**actor.account["body"], **changes}
        body["updated_at"] = format_time(actor.now_ms)
        async with self._db.transaction() as tx:
            await self._store.update_account(tx, actor.account_id, body, actor.now_ms)
        return body

    async def delete_sandbox(self, actor: Actor) -> dict[str, Any]:
        body = {**actor.account["body"], "deleted": True, "updated_at": format_time(actor.now_ms)}
        async with self._db.transaction() as tx:
            await self._store.update_account(tx, actor.account_id, body, actor.now_ms)
        return body

    # ---- features ---------------------------------------------------------------------------

    @staticmethod
    def features(account: Row, wanted: Sequence[str] | None) -> list[str]:
        """The account's features, only those asked for when `wanted` is given."""
        granted: list[str] = list(account["features"])
        return [key for key in granted if wanted is None or key in wanted]

    async def add_features(self, account: Row, keys: Sequence[str]) -> list[str]:
        features = list(account["features"])
        features.extend(key for key in keys if key not in features)
        async with self._db.transaction() as tx:
            await self._store.set_account_json(tx, str(account["id"]), "features", features)
        return features

    async def remove_features(self, account: Row, keys: Sequence[str]) -> list[str]:
        removing = set(keys)
        features = [key for key in account["features"] if key not in removing]
        async with self._db.transaction() as tx:
            await self._store.set_account_json(tx, str(account["id"]), "features", features)
        return features

    # ---- funding instruments (sandbox) ------------------------------------------------------

    async def create_funding_instrument(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        attributes = funding_instrument_attributes(
            actor.account_id,
            params["type"],
            params["currency"],
            params["start_time"],
            end_ms=params.get("end_time"),
            credit_limit_micro=params.get("credit_limit_local_micro"),
            funded_amount_micro=params.get("funded_amount_local_micro"),
        )
        async with self._db.transaction() as tx:
            return await self._entities.create(
                tx,
                "funding_instrument",
                actor.account_id,
                attributes,
                now_ms=actor.now_ms,
                user_id=actor.user_id,
            )

    async def delete_funding_instrument(self, actor: Actor, ident: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load("funding_instrument", actor.account_id, ident, reader=tx)
            return await self._entities.delete(
                tx,
                row,
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                able_to_fund=False,
                reasons_not_able_to_fund=["DELETED"],
            )
