"""xdk's broadcasts client against roost (in process, `base_url`), with a user's OAuth 2.0 token
holding the broadcast scopes: create, get, list, update, go live, chat and delete."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer
from xdk import Client
from xdk.broadcasts.models import (
    CreateScheduledBroadcastRequest,
    SendBroadcastChatRequest,
    UpdateScheduledBroadcastRequest,
)

pytestmark = pytest.mark.clients
SCOPES = "broadcast.read broadcast.write tweet.read users.read"
HOUR_MS = 3_600_000


def broadcaster(server: LiveServer, credentials: dict[str, Any]) -> Client:
    user = httpx.post(
        server.base_url + "/_roost/users", json={"username": f"b_{uuid.uuid4().hex[:12]}"}
    ).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={
            "consumer_key": credentials["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": SCOPES,
        },
    ).json()
    return Client(base_url=server.base_url, access_token=token["access_token"])


def server_now_ms(server: LiveServer) -> int:
    now = httpx.get(server.base_url + "/_roost/clock").json()["now"]
    return int(datetime.strptime(now, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp() * 1000)


def test_scheduled_broadcast_round_trip(server: LiveServer, credentials: dict[str, Any]) -> None:
    client = broadcaster(server, credentials)
    start = server_now_ms(server) + HOUR_MS
    created = client.broadcasts.create_scheduled_broadcast(
        CreateScheduledBroadcastRequest(
            source_id="xdk-source",
            scheduled_start_ms=str(start),
            scheduled_end_ms=str(start + HOUR_MS),
            title="xdk broadcast",
            manual_publish=True,
        )
    )
    assert created.data is not None
    broadcast_id = created.data.broadcast_id
    assert broadcast_id is not None and created.data.state == "Scheduled"
    assert created.data.title == "xdk broadcast"

    one = client.broadcasts.get_scheduled_broadcast(broadcast_id)
    assert one.data is not None and one.data.scheduled_start_ms == str(start)

    pages = list(client.broadcasts.list_scheduled(max_results=10))
    assert [b.broadcast_id for page in pages for b in (page.data or [])] == [broadcast_id]

    updated = client.broadcasts.update_scheduled_broadcast(
        broadcast_id,
        UpdateScheduledBroadcastRequest(
            scheduled_broadcast_id=str(created.data.scheduled_broadcast_id),
            scheduled_start_ms=str(start),
            scheduled_end_ms=str(start + 2 * HOUR_MS),
            title="renamed",
            manual_publish=True,
        ),
    )
    assert updated.data is not None
    assert (updated.data.title, updated.data.scheduled_end_ms) == ("renamed", str(start + 2 * HOUR_MS))

    live = client.broadcasts.go_live_scheduled_broadcast(broadcast_id)
    assert live.data is not None and live.data.state == "Running"
    sent = client.broadcasts.send_broadcast_chat(
        broadcast_id, SendBroadcastChatRequest(text="hello from xdk")
    )
    assert sent.data is not None and sent.data.success is True
    assert sent.data.timestamp is not None and sent.data.timestamp.isdigit()

    # A running broadcast cannot be deleted: xdk raises on the 400.
    with pytest.raises(Exception, match="400"):
        client.broadcasts.delete_scheduled_broadcast(broadcast_id)
    ended = httpx.post(server.base_url + f"/_roost/broadcasts/{broadcast_id}/end")
    assert ended.status_code == 200
    deleted = client.broadcasts.delete_scheduled_broadcast(broadcast_id, roll_forward=False)
    assert deleted.data is not None and deleted.data.deleted is True
