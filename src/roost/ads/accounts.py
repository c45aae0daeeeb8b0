"""Ads accounts: creation (sandbox and demo), the API object, access and features."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from roost.ads import entities
from roost.ads.ids import entity_id
from roost.ads.params import format_time
from roost.storage.db import Executor

if TYPE_CHECKING:
    from roost.services import Services

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


async def create_account(
    services: Services,
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
        sequence = await services.ads.next_sequence(tx, "sandbox_account" if sandbox else "account")
        account_id = entity_id("sandbox_account" if sandbox else "account", sequence)
    body = account_body(account_id, name or ("Sandbox account" if sandbox else "Advertiser account"), now_ms)
    await services.ads.insert_account(
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
    await services.ads.grant(tx, account_id, owner_user_id, ["ACCOUNT_ADMIN", "TWEET_COMPOSER"])
    await entities.create(
        services,
        tx,
        "funding_instrument",
        account_id,
        funding_instrument_attributes(
            account_id, "CREDIT_CARD", currency, now_ms, credit_limit_micro=SANDBOX_CARD_LIMIT_MICRO
        ),
        now_ms=now_ms,
        user_id=owner_user_id,
    )
    await entities.create(
        services,
        tx,
        "promotable_user",
        account_id,
        {"user_id": str(owner_user_id), "promotable_user_type": "FULL"},
        now_ms=now_ms,
        user_id=owner_user_id,
    )
    return body


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
