"""Kept simulations give exactly the figures of a simulation from the start, and are not kept
across a change of the entities' history."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from roost.ads.stats_memo import SimulationMemo
from roost.ads.stats_model import HOUR_MS, CampaignPlan, Delivery, LineItemPlan, Version, simulate

LA = ZoneInfo("America/Los_Angeles")
T0 = int(dt.datetime(2026, 3, 2, 8, 0, tzinfo=dt.UTC).timestamp() * 1000)
DAY = 24 * HOUR_MS


def _line_item(ident: str, **body: object) -> LineItemPlan:
    state = {
        "id": ident,
        "entity_status": "ACTIVE",
        "pay_by": "ENGAGEMENT",
        "bid_amount_local_micro": 100_000,
        "daily_budget_amount_local_micro": 12_000_000,
        "total_budget_amount_local_micro": 50_000_000,
        "placements": ["ALL_ON_TWITTER"],
        **body,
    }
    return LineItemPlan(
        ident, [Version(T0, state)], {f"{ident}-pt": [(T0, T0 + 30 * DAY)]}, [(T0, T0 + 30 * DAY)], 10**7
    )


def _campaign(*line_items: LineItemPlan, budget: int = 20_000_000) -> CampaignPlan:
    body = {"id": "c1", "entity_status": "ACTIVE", "daily_budget_amount_local_micro": budget}
    return CampaignPlan("c1", [Version(T0, body)], list(line_items))


def _figures(deliveries: dict[str, Delivery]) -> dict[str, object]:
    return {key: (d.hours, d.serving) for key, d in deliveries.items()}


def test_kept_hours_give_the_figures_of_a_whole_simulation() -> None:
    campaign = _campaign(_line_item("a"), _line_item("b", daily_budget_amount_local_micro=30_000_000))
    memo = SimulationMemo()
    for until in (
        T0 + 5 * DAY + 17 * 60_000,
        T0 + 5 * DAY + 42 * 60_000,
        T0 + 5 * DAY + HOUR_MS,
        T0 + 9 * DAY + 1,
    ):
        assert _figures(memo.simulate(campaign, until, LA)) == _figures(simulate(campaign, until, LA))
    # The first two asked for the same whole hours: one simulation kept for both.
    assert len(memo._kept) == 3


def test_a_changed_history_is_simulated_again() -> None:
    memo = SimulationMemo()
    before = _campaign(_line_item("a"))
    until = T0 + 3 * DAY + 30 * 60_000
    memo.simulate(before, until, LA)
    paused = _line_item("a")
    paused.timeline.append(Version(T0 + DAY, {**paused.timeline[0].body, "entity_status": "PAUSED"}))
    after = _campaign(paused)
    assert _figures(memo.simulate(after, until, LA)) == _figures(simulate(after, until, LA))
    assert max(memo.simulate(after, until, LA)["a"].hours) < T0 + DAY
    assert len(memo._kept) == 2


def test_the_memory_is_bounded() -> None:
    memo = SimulationMemo(kept_hours=100)
    campaign = _campaign(_line_item("a"))
    for day in range(1, 4):
        memo.simulate(campaign, T0 + day * DAY, LA)
    assert memo._hours <= 100
