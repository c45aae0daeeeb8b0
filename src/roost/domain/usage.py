"""Post usage and usage caps: posts delivered by the post streams (and returned by search) count
against the project's monthly cap; `GET /2/usage/tweets` reports them.

`Usage` is the server's service (`Domain.usage`). For another operation that counts posts (search):
`await usage.ensure_under_cap(project_id, package)` before answering and
`await usage.record(project_id, len(posts), app_id)` after.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass
from typing import Any

from roost.config import Settings
from roost.core import errors
from roost.core.clock import Clock, iso_ms
from roost.domain.packages import PACKAGES
from roost.storage.streams import StreamStore

DAY_MS = 86_400_000
PRODUCT_NAME = "standard-basic"
DEFAULT_REPORT_FIELDS = frozenset({"cap_reset_day", "project_cap", "project_id", "project_usage"})


@dataclass(frozen=True, slots=True)
class Caps:
    monthly: int
    daily: int | None  # None: no daily cap
    reset_day: int  # the day of the month the monthly count starts again (1..28)


def caps(settings: Settings, package: str) -> Caps:
    """The caps of a project whose app has `package` (the setting, when set, holds for every app)."""
    daily = settings.whole("usage_daily_cap", 0)
    reset_day = min(max(settings.whole("usage_cap_reset_day", 1, positive=True), 1), 28)
    by_package = PACKAGES[package].monthly_post_cap
    return Caps(
        monthly=settings.whole("usage_monthly_cap", by_package, positive=True),
        daily=daily if daily > 0 else None,
        reset_day=reset_day,
    )


def day_start(at_ms: int) -> int:
    return at_ms - at_ms % DAY_MS


def period_start(at_ms: int, reset_day: int) -> int:
    """00:00 UTC of the latest `reset_day` of a month at or before `at_ms`."""
    now = time.gmtime(at_ms // 1000)
    year, month = now.tm_year, now.tm_mon
    if now.tm_mday < reset_day:
        year, month = (year - 1, 12) if month == 1 else (year, month - 1)
    return calendar.timegm((year, month, reset_day, 0, 0, 0)) * 1000


class Usage:
    """The project's post usage: counting, the caps, and the usage report."""

    def __init__(self, store: StreamStore, clock: Clock, settings: Settings) -> None:
        self._store = store
        self._clock = clock
        self._settings = settings  # read live: the caps are feature settings

    def caps(self, package: str) -> Caps:
        return caps(self._settings, package)

    async def used(self, project_id: int, package: str) -> tuple[int, int]:
        """Posts counted this billing month and today."""
        now = self._clock.now_ms()
        month = await self._store.project_total(project_id, period_start(now, self.caps(package).reset_day))
        today = await self._store.project_total(project_id, day_start(now))
        return month, today

    async def allowance(self, project_id: int, package: str) -> int:
        """How many more posts the project may receive now (0 once a cap is reached)."""
        limits = self.caps(package)
        month, today = await self.used(project_id, package)
        left = limits.monthly - month
        if limits.daily is not None:
            left = min(left, limits.daily - today)
        return max(left, 0)

    async def cap_problem(self, project_id: int, package: str) -> errors.ApiError | None:
        """The `usage-capped` problem when a cap is reached: the daily (Account) cap first, then the
        monthly (Product) cap."""
        limits = self.caps(package)
        month, today = await self.used(project_id, package)
        if limits.daily is not None and today >= limits.daily:
            return errors.usage_capped("Daily", "Account", project_id, PRODUCT_NAME)
        if month >= limits.monthly:
            return errors.usage_capped("Monthly", "Product", project_id, PRODUCT_NAME)
        return None

    async def ensure_under_cap(self, project_id: int, package: str) -> None:
        problem = await self.cap_problem(project_id, package)
        if problem is not None:
            raise problem

    async def record(self, project_id: int, count: int, app_id: int = 0) -> None:
        """Count `count` posts delivered to the project (by the app) today."""
        if count <= 0:
            return
        await self._store.record_usage(project_id, app_id, day_start(self._clock.now_ms()), count)

    async def report(
        self, project_id: int, app_id: int, package: str, days: int, fields: frozenset[str] | None
    ) -> dict[str, Any]:
        """`GET /2/usage/tweets`: the default fields, or exactly the named ones, over `days` days; the
        cap is the one of the asking app's package."""
        fields = fields or DEFAULT_REPORT_FIELDS
        limits = self.caps(package)
        today = day_start(self._clock.now_ms())
        first = today - (days - 1) * DAY_MS
        data: dict[str, Any] = {}
        if "project_id" in fields:
            data["project_id"] = str(project_id)
        if "project_cap" in fields:
            data["project_cap"] = str(limits.monthly)
        if "project_usage" in fields:
            data["project_usage"] = str((await self.used(project_id, package))[0])
        if "cap_reset_day" in fields:
            data["cap_reset_day"] = limits.reset_day
        if fields & {"daily_project_usage", "daily_client_app_usage"}:
            per_app: dict[int, dict[int, int]] = {app_id: {}}
            for some_app, day, posts in await self._store.daily_by_app(project_id, first):
                per_app.setdefault(some_app, {})[day] = per_app.get(some_app, {}).get(day, 0) + posts
            day_list = [first + i * DAY_MS for i in range(days)]
            if "daily_project_usage" in fields:
                totals = {d: sum(app.get(d, 0) for app in per_app.values()) for d in day_list}
                data["daily_project_usage"] = {
                    "project_id": str(project_id),
                    "usage": [{"date": iso_ms(d), "usage": str(totals[d])} for d in day_list],
                }
            if "daily_client_app_usage" in fields:
                data["daily_client_app_usage"] = [
                    {
                        "client_app_id": str(some_app),
                        "usage": [{"date": iso_ms(d), "usage": str(counts.get(d, 0))} for d in day_list],
                        "usage_result_count": days,
                    }
                    for some_app, counts in sorted(per_app.items())
                    if some_app  # 0: usage recorded without an app
                ]
        return {"data": data}
