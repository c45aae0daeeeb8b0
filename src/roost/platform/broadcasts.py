"""Broadcasts: scheduled live-video broadcasts and their chat (the rules, the roost clock's moves and
the events: `domain/broadcasts.py`)."""

from __future__ import annotations

from typing import Any, ClassVar

from roost.core.errors import ParamError
from roost.core.params import Boolean, IntRange, Kind, Param, Token
from roost.platform.operations import USER_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call
from roost.platform.spaces import SpaceId

READ = ("broadcast.read",)
WRITE = ("broadcast.read", "broadcast.write")
# No limit is documented for these operations; roost counts them per user like the Spaces reads.
LIMIT = RateLimit(user=300)
BROADCAST_ID = Param("id", SpaceId(), required=True, in_path=True)  # the same 13-character ids


class EpochMs(Kind):
    """A time as Unix epoch milliseconds (the scheduled-broadcast list's start-time window)."""

    openapi: ClassVar[dict[str, Any]] = {"type": "string"}

    def parse(self, name: str, raw: str) -> int:
        if not (0 < len(raw) <= 19 and raw.isascii() and raw.isdigit()) or int(raw) >= 2**63:
            raise ParamError(
                f"The `{name}` query parameter value [{raw}] is not a valid time in epoch milliseconds"
            )
        return int(raw)


def _me(call: Call) -> int:
    assert call.principal.user_id is not None  # user-context operations only
    return call.principal.user_id


async def list_scheduled(call: Call) -> dict[str, Any]:
    params = call.params
    return await call.domain.broadcasts.listing(
        _me(call),
        params["max_results"],
        params.get("oldest_start_time"),
        params.get("newest_start_time"),
        params.get("pagination_token"),
    )


async def create_scheduled(call: Call) -> dict[str, Any]:
    return await call.domain.broadcasts.create(_me(call), call.body)


async def get_scheduled(call: Call) -> dict[str, Any]:
    return await call.domain.broadcasts.get(_me(call), call.params["id"])


async def update_scheduled(call: Call) -> dict[str, Any]:
    return await call.domain.broadcasts.update(_me(call), call.params["id"], call.body)


async def delete_scheduled(call: Call) -> dict[str, Any]:
    params = call.params
    return await call.domain.broadcasts.delete(_me(call), params["id"], params["roll_forward"])


async def go_live(call: Call) -> dict[str, Any]:
    return await call.domain.broadcasts.go_live(_me(call), call.params["id"])


async def send_chat(call: Call) -> dict[str, Any]:
    return await call.domain.broadcasts.chat(_me(call), call.params["id"], call.body)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "listScheduledBroadcasts",
        "GET",
        "/2/broadcasts/scheduled",
        list_scheduled,
        USER_AUTH,
        READ,
        params=(
            Param("max_results", IntRange(1, 100), default=20),
            Param("oldest_start_time", EpochMs()),
            Param("newest_start_time", EpochMs()),
            Param("pagination_token", Token()),
        ),
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="List scheduled broadcasts",
    ),
    Operation(
        "createScheduledBroadcast",
        "POST",
        "/2/broadcasts/scheduled",
        create_scheduled,
        USER_AUTH,
        WRITE,
        write=True,
        body=True,
        rate_limit=LIMIT,
        status=201,
        tag="Broadcasts",
        summary="Create a scheduled broadcast",
    ),
    Operation(
        "getScheduledBroadcast",
        "GET",
        "/2/broadcasts/scheduled/{id}",
        get_scheduled,
        USER_AUTH,
        READ,
        params=(BROADCAST_ID,),
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="Get a scheduled broadcast",
    ),
    Operation(
        "updateScheduledBroadcast",
        "PUT",
        "/2/broadcasts/scheduled/{id}",
        update_scheduled,
        USER_AUTH,
        WRITE,
        write=True,
        params=(BROADCAST_ID,),
        body=True,
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="Update a scheduled broadcast",
    ),
    Operation(
        "deleteScheduledBroadcast",
        "DELETE",
        "/2/broadcasts/scheduled/{id}",
        delete_scheduled,
        USER_AUTH,
        WRITE,
        write=True,
        params=(BROADCAST_ID, Param("roll_forward", Boolean(), default=False)),
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="Delete a scheduled broadcast",
    ),
    Operation(
        "goLiveScheduledBroadcast",
        "POST",
        "/2/broadcasts/scheduled/{id}/live",
        go_live,
        USER_AUTH,
        WRITE,
        write=True,
        params=(BROADCAST_ID,),
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="Go live on a scheduled broadcast",
    ),
    Operation(
        "sendBroadcastChat",
        "POST",
        "/2/broadcasts/{id}/chat",
        send_chat,
        USER_AUTH,
        WRITE,
        write=True,
        params=(BROADCAST_ID,),
        body=True,
        rate_limit=LIMIT,
        tag="Broadcasts",
        summary="Send a chat message to a live broadcast",
    ),
)
