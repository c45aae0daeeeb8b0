"""Simulations of whole hours, kept: a report asks again for the same past hours of the same
campaign (every request of a reporting loop, every bucket of an async job), and those hours cannot
change once over, unless an entity's history does, which changes the key.

A campaign's simulation up to the last whole hour is kept under a fingerprint of everything the
model reads for those hours (each entity's states before that hour, the promoted products' and
funding instruments' live intervals cut there, the audience sizes); the hour in progress is then
simulated from a copy of where the kept simulation stands. The figures are the same as a simulation
from the start (tests/unit/test_ads_stats_model.py holds them equal).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from zoneinfo import ZoneInfo

from roost.ads.stats_model import HOUR_MS, CampaignPlan, Delivery, Interval, Progress, Version, simulate

# Line-item hours kept in all (a week of 20 line items is 3,360): bounds the memory of the memo.
KEPT_HOURS = 100_000


def _states(timeline: Sequence[Version], before: int) -> tuple[tuple[int, str], ...]:
    return tuple(
        (version.at_ms, json.dumps(version.body, sort_keys=True, default=str))
        for version in timeline
        if version.at_ms < before
    )


def _cut(intervals: Sequence[Interval], before: int) -> tuple[Interval, ...]:
    return tuple((start, min(end, before)) for start, end in intervals if start < before)


def fingerprint(campaign: CampaignPlan, whole_hour: int, zone: ZoneInfo) -> Hashable:
    """Everything the hours before `whole_hour` depend on."""
    return (
        campaign.id,
        whole_hour,
        zone.key,
        _states(campaign.timeline, whole_hour),
        tuple(
            (
                li.id,
                _states(li.timeline, whole_hour),
                tuple(sorted((key, _cut(spans, whole_hour)) for key, spans in li.creatives.items())),
                _cut(li.funding, whole_hour),
                li.audience,
            )
            for li in campaign.line_items
        ),
    )


def _hours(progress: Progress) -> int:
    return sum(len(delivery.hours) for delivery in progress.deliveries.values())


class SimulationMemo:
    """The kept simulations of one server, least recently used first out."""

    def __init__(self, kept_hours: int = KEPT_HOURS) -> None:
        self._kept: OrderedDict[Hashable, Progress] = OrderedDict()
        self._limit = kept_hours
        self._hours = 0

    def simulate(self, campaign: CampaignPlan, until_ms: int, zone: ZoneInfo) -> dict[str, Delivery]:
        """The model's `simulate`, from the kept whole hours when they are kept."""
        whole = until_ms - until_ms % HOUR_MS
        key = fingerprint(campaign, whole, zone)
        done = self._kept.get(key)
        if done is None:
            done = Progress.fresh(campaign)
            simulate(campaign, whole, zone, done)
            self._keep(key, done)
        else:
            self._kept.move_to_end(key)
        return simulate(campaign, until_ms, zone, done.copy(), from_hour=whole)

    def _keep(self, key: Hashable, progress: Progress) -> None:
        size = _hours(progress)
        if size > self._limit:
            return
        self._kept[key] = progress
        self._hours += size
        while self._hours > self._limit:
            _, dropped = self._kept.popitem(last=False)
            self._hours -= _hours(dropped)
