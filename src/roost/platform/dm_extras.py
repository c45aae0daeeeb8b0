"""Direct messages: DM block and unblock, deleting a message, downloading a message's media."""

from __future__ import annotations

from typing import Any

from roost.core.params import Kind, Param, Snowflake
from roost.core.wire import Stream
from roost.platform.operations import OAUTH1, OAUTH2, USER_AUTH, DailyCap, Operation, RateLimit
from roost.platform.pipeline import Call

OCTET_STREAM = "application/octet-stream"


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # user-context operations always have a user
    return call.principal.user_id


async def block(call: Call) -> dict[str, Any]:
    await call.domain.dm_extras.block(_me(call), call.params["id"])
    return {"data": {"blocked": True}}


async def unblock(call: Call) -> dict[str, Any]:
    await call.domain.dm_extras.unblock(_me(call), call.params["id"])
    return {"data": {"blocked": False}}


async def delete_event(call: Call) -> dict[str, Any]:
    await call.domain.dm_extras.delete_event(_me(call), call.params["event_id"])
    return {"data": {"deleted": True}}


async def media(call: Call) -> Stream:
    params = call.params
    file = await call.domain.dm_extras.media(
        _me(call), params["dm_id"], params["media_id"], params["resource_id"]
    )
    # Raw bytes whatever the media's type, as the document says; streamed, so a video is never whole
    # in memory.
    return Stream(file.chunks, content_type=OCTET_STREAM, headers={"content-length": str(file.size)})


BLOCK_SCOPES = ("dm.write", "tweet.read", "users.read")
# The platform's published limits: 10 per 15 minutes and 400 a day per user, 1,000 a day per app.
BLOCK_LIMIT = RateLimit(user=10)
BLOCK_CAP = DailyCap(app=1_000, user=400)
TARGET = Param("id", Snowflake(), required=True, in_path=True)


def _block(operation_id: str, path: str, handler: Any, summary: str) -> Operation:
    return Operation(
        operation_id,
        "POST",
        path,
        handler,
        USER_AUTH,
        BLOCK_SCOPES,
        write=True,
        dm=True,
        params=(TARGET,),
        rate_limit=BLOCK_LIMIT,
        daily_cap=BLOCK_CAP,
        tag="Direct Messages",
        summary=summary,
    )


OPERATIONS: tuple[Operation, ...] = (
    _block("blockUsersDms", "/2/users/{id}/dm/block", block, "Block DMs"),
    _block("unblockUsersDms", "/2/users/{id}/dm/unblock", unblock, "Unblock DMs"),
    Operation(
        "deleteDirectMessagesEvents",
        "DELETE",
        "/2/dm_events/{event_id}",
        delete_event,
        USER_AUTH,
        ("dm.read", "dm.write"),
        write=True,
        dm=True,
        params=(Param("event_id", Snowflake(), required=True, in_path=True),),
        rate_limit=RateLimit(user=300),
        daily_cap=DailyCap(app=4_000, user=1_500),
        tag="Direct Messages",
        summary="Delete DM event",
    ),
    # OAuth 2.0 user context as the official document says, and OAuth 1.0a user context as the
    # platform's own description of DM media asks (docs/decisions.md).
    Operation(
        "dmConversationsMediaDownload",
        "GET",
        "/2/dm_conversations/media/{dm_id}/{media_id}/{resource_id}",
        media,
        (OAUTH2, OAUTH1),
        ("dm.read",),
        dm=True,
        params=(
            Param("dm_id", Kind(), required=True, in_path=True),
            Param("media_id", Kind(), required=True, in_path=True),
            Param("resource_id", Kind(), required=True, in_path=True),
        ),
        rate_limit=RateLimit(user=15),
        tag="Direct Messages",
        summary="Download DM Media",
    ),
)
