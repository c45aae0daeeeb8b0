"""Replay jobs: re-deliver one webhook's events of a window, then post `replay_job_status`."""

from __future__ import annotations

from roost.services import Services


async def advance_replays(services: Services) -> None:
    """Called on every dispatcher round: move running jobs forward."""
    return None
