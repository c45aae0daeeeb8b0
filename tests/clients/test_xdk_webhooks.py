"""xdk 0.10.6 managing a webhook with user-context credentials only.

The official document allows OAuth 1.0a (`UserToken`) beside the bearer token on create, validate and
delete, and xdk signs those with OAuth 1.0a when that is what the client holds; the list is app-only.
(Holding both, xdk 0.10.6 picks the bearer token: its write-first preference compares a lower-case
method with upper-case names.)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from tests.support.receiver import Receiver
from tests.support.server import LiveServer
from xdk import Client
from xdk.oauth1_auth import OAuth1
from xdk.webhooks.models import CreateRequest, CreateResponse, DeleteResponse, ValidateResponse

pytestmark = pytest.mark.clients


@pytest.fixture()
def receiver(credentials: dict[str, Any]) -> Iterator[Receiver]:
    live = Receiver(credentials["consumer_secret"])
    yield live
    live.close()


def test_webhook_lifecycle_with_oauth1_alone(
    server: LiveServer, credentials: dict[str, Any], receiver: Receiver
) -> None:
    auth = OAuth1(
        credentials["consumer_key"],
        credentials["consumer_secret"],
        "oob",
        access_token=credentials["access_token"],
        access_token_secret=credentials["access_token_secret"],
    )
    client = Client(base_url=server.base_url, auth=auth)
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    schemes: list[tuple[str, str]] = []

    def record(response: requests.Response, *args: Any, **kwargs: Any) -> None:
        request = response.request
        schemes.append((str(request.method), request.headers.get("Authorization", "").split(" ", 1)[0]))

    client.session.hooks["response"].append(record)
    try:
        created = client.webhooks.create(CreateRequest(url=receiver.url()))
        assert isinstance(created, CreateResponse) and created.data is not None
        hook_id = created.data.id
        assert created.data.valid is True and receiver.crc_count() == 1
        assert [item.id for item in app.webhooks.get().data or []] == [hook_id]  # the app's webhook
        validated = client.webhooks.validate(hook_id)
        assert isinstance(validated, ValidateResponse) and validated.data is not None
        assert validated.data.valid is True and receiver.crc_count() == 2
        deleted = client.webhooks.delete(hook_id)
        assert isinstance(deleted, DeleteResponse) and deleted.data is not None and deleted.data.deleted
        assert app.webhooks.get().data == []  # docs/webhooks.md: no webhooks is "data":[]
    finally:
        client.session.close()
        app.session.close()
    assert schemes == [("POST", "OAuth"), ("PUT", "OAuth"), ("DELETE", "OAuth")]
