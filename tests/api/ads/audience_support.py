"""Custom audiences and app lists made through the API for tests that target them."""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from tests.api.ads.helpers import AdsClient

_names = itertools.count(1)


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def device_users(count: int, tag: str = "dev") -> list[dict[str, list[str]]]:
    return [{"device_id": [sha(f"{tag}-{i}")]} for i in range(count)]


def make_audience(client: AdsClient, account_id: str, name: str | None = None) -> dict[str, Any]:
    response = client.post(
        f"/accounts/{account_id}/custom_audiences", {"name": name or f"audience {next(_names)}"}
    )
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()["data"]
    return created


def upload(client: AdsClient, account_id: str, audience_id: str, body: Any) -> Any:
    return client.post(f"/accounts/{account_id}/custom_audiences/{audience_id}/users", json=body)


def make_targetable_audience(client: AdsClient, account_id: str, size: int = 100) -> dict[str, Any]:
    audience = make_audience(client, account_id)
    response = upload(
        client,
        account_id,
        audience["id"],
        [{"operation_type": "Update", "params": {"users": device_users(size)}}],
    )
    assert response.status_code == 200, response.text
    loaded = client.get(f"/accounts/{account_id}/custom_audiences/{audience['id']}").json()["data"]
    assert loaded["targetable"] is True
    return dict(loaded)


def make_app_list(client: AdsClient, account_id: str, *identifiers: str) -> dict[str, Any]:
    response = client.post(
        f"/accounts/{account_id}/app_lists",
        {"name": f"apps {next(_names)}", "app_store_identifiers": list(identifiers or ("com.example.app",))},
    )
    assert response.status_code == 200, response.text
    created: dict[str, Any] = response.json()["data"]
    return created
