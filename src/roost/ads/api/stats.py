"""Analytics: synchronous stats, active entities and asynchronous stats jobs."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID as ACCOUNT
from roost.ads.operations import ACCOUNT_READ, ANALYTICS, WRITE, AdsOperation, list_params, path_param
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, EnumList, Ids, LongList, Text
from roost.ads.params import Enum as EnumKind
from roost.ads.stats_rules import (
    ACTIVE_ENTITIES,
    GRANULARITIES,
    MAX_ENTITY_IDS,
    METRIC_GROUPS,
    PLACEMENTS,
    SEGMENTATION_TYPES,
    SYNC_ENTITIES,
    StatsTime,
)

# Everyone with a role on the account may read its analytics and queue jobs.
JOB_ROLES = ("ACCOUNT_ADMIN", "AD_MANAGER", "CREATIVE_MANAGER", "CAMPAIGN_ANALYST", "ANALYST")

STATS_PARAMS = (
    ACCOUNT,
    AdsParam("entity", EnumKind(SYNC_ENTITIES), required=True),
    AdsParam("entity_ids", Ids(MAX_ENTITY_IDS), required=True),
    AdsParam("start_time", StatsTime(), required=True),
    AdsParam("end_time", StatsTime(), required=True),
    AdsParam("granularity", EnumKind(GRANULARITIES), required=True),
    AdsParam("metric_groups", EnumList(METRIC_GROUPS), required=True),
    AdsParam("placement", EnumKind(PLACEMENTS), required=True),
)


async def sync_stats(call: AdsCall) -> AdsResult:
    assert call.account is not None
    return await call.ads.stats.synchronous(call.account, call.params, call.echo, call.now_ms)


async def active_entities(call: AdsCall) -> list[dict[str, Any]]:
    assert call.account is not None
    return await call.ads.stats.active_entities(call.account, call.params, call.echo, call.now_ms)


async def create_job(call: AdsCall) -> AdsResult:
    return await call.ads.stats_jobs.create(call.actor, call.params, call.echo)


async def list_jobs(call: AdsCall) -> AdsResult:
    return await call.ads.stats_jobs.page(call.account_id, call.params, call.echo, call.now_ms)


async def cancel_job(call: AdsCall) -> AdsResult:
    return await call.ads.stats_jobs.cancel(call.actor, call.params["job_id"], call.echo)


OPERATIONS = [
    AdsOperation(
        "getSynchronousStats",
        "GET",
        "/stats/accounts/{account_id}",
        sync_stats,
        params=STATS_PARAMS,
        category=ANALYTICS,
    ),
    AdsOperation(
        "getActiveEntities",
        "GET",
        "/stats/accounts/{account_id}/active_entities",
        active_entities,
        params=(
            ACCOUNT,
            AdsParam("entity", EnumKind(ACTIVE_ENTITIES), required=True),
            AdsParam("start_time", StatsTime(), required=True),
            AdsParam("end_time", StatsTime(), required=True),
            AdsParam("campaign_ids", Ids()),
            AdsParam("funding_instrument_ids", Ids()),
            AdsParam("line_item_ids", Ids()),
        ),
        category=ANALYTICS,
    ),
    AdsOperation(
        "createStatsJob",
        "POST",
        "/stats/jobs/accounts/{account_id}",
        create_job,
        params=(
            *STATS_PARAMS,
            AdsParam("segmentation_type", EnumKind(SEGMENTATION_TYPES)),
            AdsParam("country", Text(max_length=64)),
            AdsParam("platform", Text(max_length=64)),
        ),
        category=WRITE,
        write=True,
        roles=JOB_ROLES,
    ),
    AdsOperation(
        "listStatsJobs",
        "GET",
        "/stats/jobs/accounts/{account_id}",
        list_jobs,
        params=(
            ACCOUNT,
            AdsParam("job_ids", LongList()),
            *list_params(total=False, deleted=False),
        ),
        category=ACCOUNT_READ,
        paginated=True,
    ),
    AdsOperation(
        "cancelStatsJob",
        "DELETE",
        "/stats/jobs/accounts/{account_id}/{job_id}",
        cancel_job,
        params=(ACCOUNT, path_param("job_id")),
        category=WRITE,
        write=True,
        roles=JOB_ROLES,
    ),
]
