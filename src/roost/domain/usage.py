"""Post usage and usage caps: posts delivered by the post streams (and returned by search) count
against the project's monthly cap; `GET /2/usage/tweets` reports them.

For other operations (search): call `await ensure_under_cap(services, principal.project_id)` before
answering and `await record_usage(services, principal.project_id, len(posts), principal.app_id)` after.
"""

from __future__ import annotations

import calendar
import time
from dataclasses import dataclass

from roost.core import errors
from roost.services import Services
from roost.storage.streams import StreamStore

DAY_MS = 86_400_000
DEFAULT_MONTHLY_CAP = 500_000  # posts per month per project (filtered stream and recent search)
PRODUCT_NAME = "standard-basic"


@dataclass(frozen=True, slots=True)
class Caps:
    monthly: int
    daily: int | None  # None: no daily cap
    reset_day: int  # the day of the month the monthly count starts again (1..28)


def caps(services: Services) -> Caps:
    settings = services.settings
    daily = settings.whole("usage_daily_cap", 0)
    reset_day = min(max(settings.whole("usage_cap_reset_day", 1, positive=True), 1), 28)
    return Caps(
        monthly=settings.whole("usage_monthly_cap", DEFAULT_MONTHLY_CAP, positive=True),
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


async def used(services: Services, project_id: int) -> tuple[int, int]:
    """Posts counted this billing month and today."""
    now = services.clock.now_ms()
    store = StreamStore(services.db)
    month = await store.project_total(project_id, period_start(now, caps(services).reset_day))
    today = await store.project_total(project_id, day_start(now))
    return month, today


async def allowance(services: Services, project_id: int) -> int:
    """How many more posts the project may receive now (0 once a cap is reached)."""
    limits = caps(services)
    month, today = await used(services, project_id)
    left = limits.monthly - month
    if limits.daily is not None:
        left = min(left, limits.daily - today)
    return max(left, 0)


async def cap_problem(services: Services, project_id: int) -> errors.ApiError | None:
    """The `usage-capped` problem when a cap is reached: the daily (Account) cap first, then the
    monthly (Product) cap."""
    limits = caps(services)
    month, today = await used(services, project_id)
    if limits.daily is not None and today >= limits.daily:
        return errors.usage_capped("Daily", "Account", project_id, PRODUCT_NAME)
    if month >= limits.monthly:
        return errors.usage_capped("Monthly", "Product", project_id, PRODUCT_NAME)
    return None


async def ensure_under_cap(services: Services, project_id: int) -> None:
    problem = await cap_problem(services, project_id)
    if problem is not None:
        raise problem


async def record_usage(services: Services, project_id: int, count: int, app_id: int = 0) -> None:
    """Count `count` posts delivered to the project (by the app) today."""
    if count <= 0:
        return
    now = services.clock.now_ms()
    await StreamStore(services.db).record_usage(project_id, app_id, day_start(now), count)
