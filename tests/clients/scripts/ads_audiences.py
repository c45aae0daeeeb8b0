"""Audience and app scenarios with the official ads SDK's resource classes, run by
tests/clients/test_twitter_ads_audiences.py in the test process (API version 11, the SDK's own) and
in a fresh interpreter on version 12 (tests/clients/ads_v12.py). Each returns what it saw; the test
asserts on it. Import this module only after `twitter_ads.API_VERSION` is set."""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
from typing import Any

import twitter_ads
from twitter_ads.account import Account
from twitter_ads.audience import CustomAudience, CustomAudiencePermission
from twitter_ads.campaign import AppList, Campaign, LineItem, LineItemApps, TargetingCriteria
from twitter_ads.client import Client
from twitter_ads.error import BadRequest, NotFound
from twitter_ads.http import Request

_names = itertools.count(1)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def new_account(client: Client) -> Account:
    created = Request(client, "post", f"/{twitter_ads.API_VERSION}/accounts").perform()
    return Account.load(client, created.body["data"][0]["id"])


def new_line_item(account: Account) -> LineItem:
    campaign = Campaign(account)
    campaign.funding_instrument_id = account.funding_instruments().first.id
    campaign.name = "audience campaign"
    campaign.daily_budget_amount_local_micro = 10_000_000
    campaign.entity_status = "PAUSED"
    campaign.save()
    line_item = LineItem(account)
    line_item.campaign_id = campaign.id
    line_item.name = "audience line item"
    line_item.objective = "ENGAGEMENTS"
    line_item.product_type = "PROMOTED_TWEETS"
    line_item.placements = ["ALL_ON_TWITTER"]
    line_item.bid_strategy = "MAX"
    line_item.bid_amount_local_micro = 500_000
    line_item.start_time = (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(
        minute=0, second=0, microsecond=0
    )
    line_item.entity_status = "PAUSED"
    line_item.save()
    return line_item


def audiences(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = {"collection": CustomAudience.RESOURCE_COLLECTION}
    account = new_account(client)
    audience = CustomAudience.create(account, f"sdk audience {next(_names)}")  # POST, then GET
    seen["created"] = {
        "targetable": audience.targetable,
        "reasons": audience.reasons_not_targetable,
        "size": audience.audience_size,
        "owner": audience.owner_account_id == account.id,
    }
    try:
        CustomAudience.create(account, audience.name)
        seen["duplicate"] = None
    except BadRequest as error:
        seen["duplicate"] = [e["code"] for e in error.details]
    batch = [
        {
            "operation_type": "Update",
            "params": {"users": [{"device_id": [_sha(f"d{i}")]} for i in range(70)]},
        },
        {
            "operation_type": "Update",
            "params": {
                "effective_at": "2020-01-01T00:00:00Z",
                "users": [
                    {"email": [_sha(f"user{i}@example.com")], "partner_user_id": [f"p{i}"]} for i in range(30)
                ],
            },
        },
    ]
    seen["counts"] = list(audience.users(batch))
    try:
        audience.users(
            [{"operation_type": "Update", "params": {"users": [{"email": ["plain@example.com"]}]}}]
        )
        seen["bad_hash"] = None
    except BadRequest as error:
        seen["bad_hash"] = error.response.body["operation_errors"]
    audience.reload()
    seen["loaded"] = {
        "targetable": audience.targetable,
        "reasons": audience.reasons_not_targetable,
        "size": audience.audience_size,
    }
    seen["listed"] = [a.id for a in account.custom_audiences()] == [audience.id]
    seen["one"] = account.custom_audiences(audience.id).name == audience.name
    renamed = Request(
        client,
        "put",
        CustomAudience.RESOURCE.format(account_id=account.id, id=audience.id),
        params={"name": "renamed", "description": "from the sdk"},
    ).perform()
    seen["renamed"] = [renamed.body["data"]["name"], renamed.body["data"]["description"]]

    other = new_account(client)
    permission = CustomAudiencePermission(account)
    permission.custom_audience_id = audience.id
    permission.granted_account_id = other.id
    permission.permission_level = "READ_ONLY"
    permission.save()
    seen["permission"] = [permission.granted_account_id == other.id, permission.permission_level]
    seen["permissions"] = [p.id == permission.id for p in audience.permissions()]
    shared = CustomAudience.all(other, permission_scope="SHARED")
    seen["shared"] = [a.id == audience.id for a in shared]

    line_item = new_line_item(account)
    criterion = TargetingCriteria(account)
    criterion.line_item_id = line_item.id
    criterion.targeting_type = "CUSTOM_AUDIENCE"
    criterion.targeting_value = audience.id
    criterion.operator_type = "EQ"
    criterion.save()
    seen["criterion"] = [criterion.targeting_value == audience.id, criterion.name]
    targeted = audience.targeted(with_active=False)
    seen["targeted"] = [
        {
            "campaign": t.campaign_id == line_item.campaign_id,
            "line_items": [li["id"] == line_item.id for li in t.line_items],
        }
        for t in targeted
    ]
    permission.delete()
    seen["revoked"] = permission.deleted
    seen["permissions_after"] = [p.id for p in audience.permissions()]
    audience.delete()
    seen["deleted"] = audience.deleted
    try:
        CustomAudience.load(account, audience.id)
        seen["after_delete"] = None
    except NotFound as error:
        seen["after_delete"] = [e["code"] for e in error.details]
    return seen


def app_lists(client: Client) -> dict[str, Any]:
    seen: dict[str, Any] = {"collection": AppList.RESOURCE_COLLECTION}
    account = new_account(client)
    made = AppList.create(account, name="rivals", app_store_identifiers=["com.rival.app", "333903271"])
    seen["created"] = made.apps  # a property: resource_property shadows the apps() method
    listed = list(account.app_lists())
    seen["listed"] = [[a.id == made.id, a.name] for a in listed]
    seen["listed_apps"] = listed[0].apps  # the list shows {id, name} only
    seen["loaded_apps"] = account.app_lists(made.id).apps
    line_item = new_line_item(account)
    criterion = TargetingCriteria(account)
    criterion.line_item_id = line_item.id
    criterion.targeting_type = "APP_LIST"
    criterion.targeting_value = made.id
    criterion.operator_type = "NE"
    criterion.save()
    seen["criterion"] = criterion.operator_type
    app = LineItemApps.create(
        account, line_item_id=line_item.id, os_type="ANDROID", app_store_identifier="com.rival.app"
    )
    seen["line_item_app"] = [app.line_item_id == line_item.id, app.app_store_identifier, app.os_type]
    seen["line_item_apps"] = [a.id == app.id for a in LineItemApps.all(account, line_item_ids=line_item.id)]
    seen["line_item_app_loaded"] = LineItemApps.load(account, app.id).app_store_identifier
    app.delete()
    seen["line_item_app_deleted"] = app.deleted
    made.delete()  # AppList has no `deleted` attribute: look it up again instead
    try:
        AppList.load(account, made.id)
        seen["deleted"] = None
    except NotFound as error:
        seen["deleted"] = [e["code"] for e in error.details]
    return seen


def behaviors(client: Client) -> dict[str, Any]:
    account = new_account(client)
    taxonomies = list(TargetingCriteria.behavior_taxonomies(account, parent_behavior_taxonomy_ids="null"))
    british = list(TargetingCriteria.behaviors(account, country_code="GB", count=5))
    return {
        "path": TargetingCriteria.RESOURCE_OPTIONS,
        "roots": [t["parent_id"] for t in taxonomies],
        "countries": sorted({b["country_code"] for b in british}),
        "count": len(british),
        "types": sorted({b["targeting_type"] for b in british}),
    }
