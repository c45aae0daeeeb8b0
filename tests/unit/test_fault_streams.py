"""A stalled stream (fault rule `{"stream": {"after_lines": N, "stall": true}}`) sends N lines and then
nothing at all until the client leaves; leaving closes the stream underneath."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from roost.core.faults import Faults, wrap_stream
from roost.core.wire import Stream


class Source:
    def __init__(self) -> None:
        self.taken = 0
        self.closed = False

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        self.taken += 1
        return b'{"data":{}}\r\n'

    async def aclose(self) -> None:
        self.closed = True


def test_a_stall_after_two_lines_takes_nothing_more_and_closes_on_leave() -> None:
    async def scenario() -> None:
        rule = Faults().add({"path": "/2/tweets/search/stream", "stream": {"after_lines": 2, "stall": True}})
        source = Source()
        stream = wrap_stream(rule, Stream(source))
        chunks = stream.chunks.__aiter__()
        assert await chunks.__anext__() == b'{"data":{}}\r\n'
        assert await chunks.__anext__() == b'{"data":{}}\r\n'
        waiting = asyncio.ensure_future(chunks.__anext__())
        for _ in range(20):  # nothing can wake it: the stall waits on an event nobody sets
            await asyncio.sleep(0)
        assert not waiting.done() and source.taken == 2
        waiting.cancel()  # the client went away: send_stream cancels the pending step, then closes
        await asyncio.gather(waiting, return_exceptions=True)
        await chunks.aclose()  # type: ignore[attr-defined]
        assert source.closed

    asyncio.run(scenario())


def test_probability_draws_from_the_seeded_source() -> None:
    def hits(seed: int) -> list[bool]:
        faults = Faults(seed)
        faults.add({"path": "/2/*", "status": 503, "probability": 0.5})
        return [faults.match("GET", "/2/x") is not None for _ in range(40)]

    assert hits(7) == hits(7)
    assert 0 < sum(hits(7)) < 40
