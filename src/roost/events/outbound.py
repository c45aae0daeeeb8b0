"""The event layer's side of `domain.outbound.Outbound`: CRC requests over HTTP (`events/crc.py`) with
the configured deadline, and the replay worker's wake-up."""

from __future__ import annotations

from roost.config import Settings
from roost.domain.outbound import CrcChallenge, CrcOutcome
from roost.events.crc import reply_limit, requestable, run_crc
from roost.events.replay import ReplayJobs


class OutboundCalls:
    def __init__(self, settings: Settings, replays: ReplayJobs) -> None:
        self._settings = settings  # read on each check: the CRC deadline is a live feature setting
        self._replays = replays

    def requestable(self, url: str) -> bool:
        return requestable(url)

    async def crc(self, url: str, consumer_secret: str, challenge: CrcChallenge) -> CrcOutcome:
        return await run_crc(url, consumer_secret, challenge, reply_limit(self._settings))

    def replay_job_created(self) -> None:
        self._replays.poke()
