"""`GET /_roost/snapshot` (the whole state as one document, streamed) and `POST /_roost/snapshot` (put
it back exactly): `docs/snapshots.md`. The body of a POST is capped by `snapshot_max_bytes`
(`core/body_cap.py`)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse
from roost.control.state import ServerState
from roost.core import errors
from roost.core.wire import Receive, Scope, Send


class _Streamed:
    """A response written piece by piece. The pieces' generator is closed as soon as the client is
    gone (its read transaction ends then, not whenever the generator is collected)."""

    def __init__(self, pieces: AsyncIterator[bytes], filename: str) -> None:
        self._pieces = pieces
        self._headers = [
            (b"content-type", b"application/json"),
            (b"content-disposition", b'attachment; filename="%s"' % filename.encode()),
        ]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async with aclosing(self._pieces) as pieces:  # type: ignore[type-var]  # an async generator
            started = False
            async for piece in pieces:
                if not started:  # the transaction opened: a failure before this is still a clean answer
                    await send({"type": "http.response.start", "status": 200, "headers": self._headers})
                    started = True
                await send({"type": "http.response.body", "body": piece, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})


def snapshot_routes(state: ServerState) -> list[BaseRoute]:
    domain = state.domain

    async def snapshot(request: Request) -> Response | _Streamed:
        if request.method == "GET":
            return _Streamed(domain.snapshots.document(), "roost-snapshot.json")
        body = await request.body()
        if not body or body.isspace():  # (no copy of a large body)
            raise errors.invalid_body(
                "snapshot: the body is empty (expected a document from GET /_roost/snapshot)"
            )
        # As around a reset: background workers keep cursors in the database, so none may write an
        # old one back over the restored rows.
        for worker in state.workers:
            await worker.stop()
        try:
            restored = await domain.snapshots.restore(body)
        finally:
            for worker in state.workers:
                worker.start()
        return OrjsonResponse({"restored": True, "rows": restored})

    return [Route("/_roost/snapshot", snapshot, methods=["GET", "POST"])]
