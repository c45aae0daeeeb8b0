"""The analytics calls of the official ads SDK, as one scenario run on version 11 (in the test's
process) and on version 12 (in a fresh interpreter, see ads_v12.py). The SDK's modules are imported
inside `run`, after the caller chose the API version."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx


def run(
    client: Any,
    base_url: str,
    account_id: str,
    line_item_ids: list[str],
    promoted_tweet_ids: list[str],
    start: str,
    end: str,
) -> dict[str, Any]:
    from twitter_ads.campaign import Campaign, LineItem
    from twitter_ads.creative import PromotedTweet
    from twitter_ads.enum import GRANULARITY, METRIC_GROUP

    start_time = dt.datetime.fromisoformat(start.replace("Z", "+00:00"))
    end_time = dt.datetime.fromisoformat(end.replace("Z", "+00:00"))
    window = {"start_time": start_time, "end_time": end_time}
    groups = [METRIC_GROUP.ENGAGEMENT, METRIC_GROUP.BILLING]
    account = client.accounts(account_id)
    hourly = LineItem.all_stats(account, line_item_ids, groups, granularity=GRANULARITY.HOUR, **window)
    total = LineItem.all_stats(account, line_item_ids, groups, granularity=GRANULARITY.TOTAL, **window)
    one = account.line_items(line_item_ids[0])
    single = one.stats(groups, granularity=GRANULARITY.TOTAL, **window)
    campaign = Campaign.all_stats(account, [one.campaign_id], groups, granularity=GRANULARITY.TOTAL, **window)
    tweets = PromotedTweet.all_stats(
        account, promoted_tweet_ids, groups, granularity=GRANULARITY.TOTAL, **window
    )
    job = LineItem.queue_async_stats_job(
        account, line_item_ids, groups, granularity=GRANULARITY.HOUR, **window
    )
    queued = {"id": job.id, "status": job.status, "url": job.url}
    moved = httpx.post(base_url + "/_roost/clock", json={"advance_seconds": 5}, timeout=30)
    assert moved.status_code == 200, moved.text
    results = list(LineItem.async_stats_job_result(account, job_ids=[job.id]))
    finished = results[0]
    document = LineItem.async_stats_job_data(account, url=finished.url)
    active = LineItem.active_entities(account, start_time, end_time)
    return {
        "hourly": hourly,
        "total": total,
        "single": single,
        "campaign": campaign,
        "tweets": tweets,
        "queued": queued,
        "finished": {"id": finished.id, "status": finished.status, "url": finished.url},
        "document": document,
        "active": active,
    }
