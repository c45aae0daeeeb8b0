"""A delivering advertiser for the analytics tests: a fresh production account of the demo user
(the sandbox never serves) with an ACTIVE campaign, line item and promoted post, and roost's clock
moved on so the delivery model has hours to report."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient
from tests.support.server import LiveServer

HOUR = dt.timedelta(hours=1)
DAILY_BUDGET = 24_000_000


def server_now(server: LiveServer) -> dt.datetime:
    now = httpx.get(server.base_url + "/_roost/clock", timeout=30).json()["now"]
    return dt.datetime.fromisoformat(now.replace("Z", "+00:00"))


def advance(server: LiveServer, seconds: float) -> None:
    response = httpx.post(server.base_url + "/_roost/clock", json={"advance_seconds": seconds}, timeout=30)
    assert response.status_code == 200, response.text


def stamp(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def floor_hour(moment: dt.datetime) -> dt.datetime:
    return moment.replace(minute=0, second=0, microsecond=0)


def new_production_account(server: LiveServer, credentials: dict[str, Any]) -> str:
    response = httpx.post(
        server.base_url + "/_roost/ads/accounts",
        json={"user_id": credentials["user_id"], "sandbox": False, "name": "stats advertiser"},
        timeout=30,
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def own_post(server: LiveServer, credentials: dict[str, Any], text: str) -> str:
    from tests.support.client import Api

    api = Api(server.base_url, credentials)
    try:
        response = api.post("/2/tweets", auth="oauth2", json={"text": text})
        assert response.status_code == 201, response.text
        return str(response.json()["data"]["id"])
    finally:
        api.close()


@dataclass
class Advertiser:
    account_id: str
    funding_instrument_id: str
    campaign_id: str
    line_item_ids: list[str]
    promoted_tweet_ids: list[str]
    started: dt.datetime  # when the line items began serving


def create_campaign(ads: AdsClient, account_id: str, funding_instrument_id: str, **extra: Any) -> str:
    response = ads.post(
        f"/accounts/{account_id}/campaigns",
        {
            "funding_instrument_id": funding_instrument_id,
            "name": "stats campaign",
            "daily_budget_amount_local_micro": DAILY_BUDGET * 4,
            "budget_optimization": "LINE_ITEM",
            "entity_status": "ACTIVE",
            **extra,
        },
    )
    assert response.status_code == 200, response.text
    return str(response.json()["data"]["id"])


def create_line_item(ads: AdsClient, account_id: str, campaign_id: str, **extra: Any) -> str:
    response = ads.post(
        f"/accounts/{account_id}/line_items",
        {
            "campaign_id": campaign_id,
            "objective": "ENGAGEMENTS",
            "product_type": "PROMOTED_TWEETS",
            "placements": "ALL_ON_TWITTER",
            "bid_amount_local_micro": 200_000,
            "daily_budget_amount_local_micro": DAILY_BUDGET,
            "entity_status": "ACTIVE",
            **extra,
        },
    )
    assert response.status_code == 200, response.text
    return str(response.json()["data"]["id"])


def promote(ads: AdsClient, account_id: str, line_item_id: str, tweet_ids: list[str]) -> list[str]:
    response = ads.post(
        f"/accounts/{account_id}/promoted_tweets",
        {"line_item_id": line_item_id, "tweet_ids": ",".join(tweet_ids)},
    )
    assert response.status_code == 200, response.text
    return [str(item["id"]) for item in response.json()["data"]]


def delivering_advertiser(
    server: LiveServer, credentials: dict[str, Any], ads: AdsClient, line_items: int = 2, posts: int = 2
) -> Advertiser:
    """The entities, created now; nothing has served yet (move the clock on)."""
    account_id = new_production_account(server, credentials)
    instruments = ads.get(f"/accounts/{account_id}/funding_instruments").json()["data"]
    funding_instrument_id = str(instruments[0]["id"])
    campaign_id = create_campaign(ads, account_id, funding_instrument_id)
    tweets = [own_post(server, credentials, f"stats post {account_id} {i}") for i in range(posts)]
    line_item_ids, promoted = [], []
    for _ in range(line_items):
        line_item_id = create_line_item(ads, account_id, campaign_id)
        line_item_ids.append(line_item_id)
        promoted += promote(ads, account_id, line_item_id, tweets)
    return Advertiser(
        account_id, funding_instrument_id, campaign_id, line_item_ids, promoted, server_now(server)
    )
