"""The bytes of uploaded media, where their media objects' `url`, `preview_image_url` and `variants`
point (`/media/{id}.{ext}`, `/media/{id}_preview.png`): public, as the platform's media hosts are,
and streamed segment by segment from the database."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roost.core.wire import Receive, Scope, Send

if TYPE_CHECKING:
    from roost.wiring import Domain

PREFIX = "/media/"


class MediaFiles:
    def __init__(self, domain: Domain) -> None:
        self._uploads = domain.media_uploads

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        name = path[len(PREFIX) :]
        method = scope["method"]
        found = None
        if method in ("GET", "HEAD") and "/" not in name:
            found = await self._uploads.file(name)
        if found is None:
            status = 404 if method in ("GET", "HEAD") else 405
            await send(
                {"type": "http.response.start", "status": status, "headers": [(b"content-length", b"0")]}
            )
            await send({"type": "http.response.body", "body": b""})
            return
        headers = [
            (b"content-type", found.content_type.encode("latin-1")),
            (b"content-length", b"%d" % found.size),
            (b"cache-control", b"max-age=604800, must-revalidate"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        if method == "HEAD":
            await send({"type": "http.response.body", "body": b""})
            return
        async for chunk in found.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b""})
