"""Asynchronous analytics jobs: created PROCESSING, finished on roost's clock, their result a gzip
JSON file (the synchronous stats document) served by roost at the job's `url`.

A job takes `PROCESSING_MS` of roost's clock. At most `CONCURRENT_JOBS` of an account process at
once; later ones wait QUEUED for a slot, first come first served. The schedule is computed from the
account's jobs whenever one is read, so moving roost's clock moves the jobs along. Cancelling
(DELETE) a QUEUED or PROCESSING job frees its slot. The file is built when downloaded, from the
delivery model as of the job's completion, which the change history keeps fixed."""

from __future__ import annotations

import base64
import gzip
import heapq
import secrets
from dataclasses import dataclass
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.paging import AdsResult, page_of
from roost.ads.params import format_time
from roost.ads.stats import Stats
from roost.ads.stats_model import parse_ms
from roost.ads.stats_rules import (
    ASYNC_WINDOW_DAYS,
    SEGMENTED_WINDOW_DAYS,
    account_zone,
    check_metric_groups,
    check_segmentation,
    check_window,
    resolve_times,
)
from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database

KIND = "stats_job"
PROCESSING_MS = 3_000
CONCURRENT_JOBS = 100
EXPIRES_AFTER_MS = 2 * 24 * 3_600_000
FILE_PREFIX = "/advertiser-api-async-analytics/"
_HIDDEN = ("nonce", "cancelled_ms", "created_ms")


@dataclass(frozen=True, slots=True)
class Timing:
    start_ms: int
    finish_ms: int
    cancelled_ms: int | None


def schedule(jobs: list[dict[str, Any]]) -> dict[str, Timing]:
    """When each job starts and finishes: first come first served, `CONCURRENT_JOBS` at a time; a
    cancelled job holds its slot only until it was cancelled."""
    slots: list[int] = []  # when each occupied slot frees
    out: dict[str, Timing] = {}
    for job in sorted(jobs, key=lambda j: (j["created_ms"], int(j["id"]))):
        created, cancelled = int(job["created_ms"]), job.get("cancelled_ms")
        start = created
        if len(slots) >= CONCURRENT_JOBS:
            start = max(created, heapq.heappop(slots))
        finish = start + PROCESSING_MS
        held = finish if cancelled is None else min(finish, max(start, int(cancelled)))
        heapq.heappush(slots, held)
        out[job["id"]] = Timing(start, finish, None if cancelled is None else int(cancelled))
    return out


def status_at(timing: Timing, now_ms: int) -> str:
    if timing.cancelled_ms is not None and timing.cancelled_ms < timing.finish_ms:
        return "CANCELLED"
    if now_ms < timing.start_ms:
        return "QUEUED"
    return "PROCESSING" if now_ms < timing.finish_ms else "SUCCESS"


class StatsJobs:
    def __init__(
        self,
        db: Database,
        store: AdsStore,
        stats: Stats,
        ids: SnowflakeGenerator,
        clock: Clock,
        base_url: str,
    ) -> None:
        self._clock = clock  # the result files' downloads are not ads calls: they read it here
        self._db = db
        self._store = store
        self._stats = stats
        self._ids = ids
        self._base_url = base_url.rstrip("/")

    async def create(self, actor: Actor, params: dict[str, Any], echo: dict[str, Any]) -> AdsResult:
        account = actor.account
        zone = account_zone(account)
        start, end = resolve_times(params, echo, zone)
        segmentation = check_segmentation(params, params["entity"])
        limit = SEGMENTED_WINDOW_DAYS if segmentation else ASYNC_WINDOW_DAYS
        check_window(start, end, params["granularity"], limit, zone)
        check_metric_groups(params["entity"], params["metric_groups"])
        job_id = str(self._ids.next_id())
        stamp = format_time(actor.now_ms)
        body = {
            "start_time": format_time(start),
            "segmentation_type": segmentation,
            "url": None,
            "id_str": job_id,
            "entity_ids": list(dict.fromkeys(params["entity_ids"])),
            "end_time": format_time(end),
            "country": params.get("country"),
            "placement": params["placement"],
            "id": job_id,
            "expires_at": None,
            "account_id": actor.account_id,
            "status": "PROCESSING",
            "granularity": params["granularity"],
            "entity": params["entity"],
            "created_at": stamp,
            "platform": params.get("platform"),
            "updated_at": stamp,
            "metric_groups": params["metric_groups"],
            "nonce": secrets.token_urlsafe(24),
            "created_ms": actor.now_ms,
        }
        async with self._db.transaction() as tx:
            await self._store.insert_entity(
                tx,
                {
                    "kind": KIND,
                    "account_id": actor.account_id,
                    "created_at": actor.now_ms,
                    "updated_at": actor.now_ms,
                    "body": body,
                },
            )
        shown = await self._shown(actor.account_id, [body], actor.now_ms)
        return AdsResult(shown[0], request={"params": _without_account(echo)})

    async def page(
        self, account_id: str, params: dict[str, Any], echo: dict[str, Any], now_ms: int
    ) -> AdsResult:
        jobs = await self._jobs(account_id)
        wanted = params.get("job_ids")
        if wanted is not None:
            keep = {str(j) for j in wanted}
            jobs = [job for job in jobs if job["id"] in keep]
        jobs.sort(key=lambda j: (j["created_ms"], int(j["id"])), reverse=True)  # newest first
        result = page_of(await self._shown(account_id, jobs, now_ms), params)
        result.request = {"params": _without_account(echo)}
        return result

    async def cancel(self, actor: Actor, raw_id: str, echo: dict[str, Any]) -> AdsResult:
        job_id = raw_id.strip()
        if not job_id.isdigit() or len(job_id) > 19:
            raise errors.not_found("job", raw_id, actor.account_id, "job_id")
        echo["job_id"] = int(job_id)
        jobs = await self._jobs(actor.account_id)
        timings = schedule(jobs)
        job = next((j for j in jobs if j["id"] == job_id), None)
        if job is None:
            raise errors.not_found("job", job_id, actor.account_id, "job_id")
        if status_at(timings[job_id], actor.now_ms) in ("QUEUED", "PROCESSING"):
            job = {**job, "cancelled_ms": actor.now_ms, "updated_at": format_time(actor.now_ms)}
            row = await self._store.entity(job_id)
            assert row is not None
            async with self._db.transaction() as tx:
                await self._store.update_entity(
                    tx,
                    {
                        "parent_id": None,
                        "funding_instrument_id": None,
                        "updated_at": actor.now_ms,
                        "body": job,
                    },
                )
            jobs = [job if j["id"] == job_id else j for j in jobs]
        shown = await self._shown(actor.account_id, jobs, actor.now_ms, only=job_id)
        return AdsResult(shown[0], extra={"data_type": "job"})

    async def result_file(self, token: str) -> bytes | None:
        """The gzip JSON result of the job a file URL names, while it is ready and not expired."""
        now_ms = self._clock.now_ms()
        try:
            account_id, job_id, nonce = (
                base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode().split(".")
            )
        except (ValueError, UnicodeDecodeError):
            return None
        row = await self._store.entity(job_id)
        if row is None or row["kind"] != KIND or row["account_id"] != account_id:
            return None
        job = row["body"]
        if job.get("nonce") != nonce:
            return None
        timing = schedule(await self._jobs(account_id))[job_id]
        if status_at(timing, now_ms) != "SUCCESS" or now_ms >= timing.finish_ms + EXPIRES_AFTER_MS:
            return None
        account = await self._store.account(account_id)
        if account is None:
            return None
        params = {
            "entity": job["entity"],
            "entity_ids": job["entity_ids"],
            "placement": job["placement"],
            "granularity": job["granularity"],
            "metric_groups": job["metric_groups"],
            "segmentation_type": job["segmentation_type"],
            "country": job["country"],
            "platform": job["platform"],
        }
        start, end = _ms(job["start_time"]), _ms(job["end_time"])
        document = await self._stats.report(
            account,
            params,
            start=start,
            end=end,
            as_of=timing.finish_ms,
            segmentation=job["segmentation_type"],
        )
        return gzip.compress(jsonio.dumps(document), mtime=0)

    # ---- helpers ----------------------------------------------------------------------------

    async def _jobs(self, account_id: str) -> list[dict[str, Any]]:
        rows, _ = await self._store.entities(EntityQuery(KIND, account_id, with_deleted=True))
        return [row["body"] for row in rows]

    async def _shown(
        self, account_id: str, jobs: list[dict[str, Any]], now_ms: int, only: str | None = None
    ) -> list[dict[str, Any]]:
        timings = schedule(await self._jobs(account_id) if only is None else jobs)
        shown = []
        for job in jobs:
            if only is not None and job["id"] != only:
                continue
            timing = timings.get(job["id"]) or schedule([job])[job["id"]]
            shown.append(self._presented(job, timing, now_ms))
        return shown

    def _presented(self, job: dict[str, Any], timing: Timing, now_ms: int) -> dict[str, Any]:
        out = {k: v for k, v in job.items() if k not in _HIDDEN}
        out["id"] = int(job["id"])
        status = status_at(timing, now_ms)
        out["status"] = status
        if status == "SUCCESS":
            token = base64.urlsafe_b64encode(f"{job['account_id']}.{job['id']}.{job['nonce']}".encode())
            out["url"] = f"{self._base_url}{FILE_PREFIX}{token.decode().rstrip('=')}.json.gz"
            out["expires_at"] = format_time(timing.finish_ms + EXPIRES_AFTER_MS)
            out["updated_at"] = format_time(timing.finish_ms)
        return out


def _without_account(echo: dict[str, Any]) -> dict[str, Any]:
    """The job endpoints echo their parameters without the path's account id (the docs' examples)."""
    return {k: v for k, v in echo.items() if k != "account_id"}


def _ms(text: str) -> int:
    value = parse_ms(text)
    assert value is not None  # written by `create`
    return value
