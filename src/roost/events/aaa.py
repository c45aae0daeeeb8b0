"""Account-activity fan-out: event-log rows → v1.1-shaped envelopes for each subscribed user's webhooks."""

from __future__ import annotations

import time
from typing import Any

from roost.core import jsonio
from roost.events.outgoing import Outgoing
from roost.services import Services
from roost.storage.db import Row
from roost.storage.deliveries import DeliveryStore


def v1_time(epoch_ms: int) -> str:
    """v1.1 timestamps: `Mon Mar 26 16:33:26 +0000 2018`."""
    return time.strftime("%a %b %d %H:%M:%S +0000 %Y", time.gmtime(epoch_ms // 1000))


def v1_status(post: Row, author: Row | None) -> dict[str, Any]:
    author_id = int(post["author_id"])
    user: dict[str, Any] = {"id": author_id, "id_str": str(author_id)}
    if author is not None:
        user.update(name=author["name"], screen_name=author["username"])
    return {
        "created_at": v1_time(int(post["created_at"])),
        "id": int(post["id"]),
        "id_str": str(post["id"]),
        "text": post["text"],
        "user": user,
    }


async def aaa_outgoing(services: Services, event: Row) -> list[Outgoing]:
    kind = event["kind"]
    if kind not in ("post.create", "post.delete"):
        return []
    payload = jsonio.loads(event["payload"])
    author_id = int(payload["author_id"])
    targets = await DeliveryStore(services.db).targets(author_id)
    if not targets:
        return []
    envelope = await _envelope(services, kind, int(payload["post_id"]), author_id, event)
    body = jsonio.dumps(envelope)
    return [Outgoing(int(target["id"]), f"aaa:{author_id}", body, author_id) for target in targets]


async def _envelope(
    services: Services, kind: str, post_id: int, author_id: int, event: Row
) -> dict[str, Any]:
    if kind == "post.delete":
        status = {"id": str(post_id), "user_id": str(author_id)}
        deleted = {"status": status, "timestamp_ms": str(event["created_at"])}
        return {"for_user_id": str(author_id), "tweet_delete_events": [deleted]}
    post = await services.posts.get(post_id)
    if post is None:
        fallback = {"id": post_id, "id_str": str(post_id), "text": "", "author_id": author_id}
        post = {**fallback, "created_at": int(event["created_at"])}
    author = await services.users.get(author_id)
    return {"for_user_id": str(author_id), "tweet_create_events": [v1_status(post, author)]}
