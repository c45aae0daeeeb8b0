"""account_history: the allow-listed beta listing an entity's creates, updates and deletes."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest
from tests.api.ads.helpers import AdsClient, error_codes

HOUR = dt.timedelta(hours=1)


def server_now(server: Any) -> dt.datetime:
    now = httpx.get(server.base_url + "/_roost/clock", timeout=30).json()["now"]
    return dt.datetime.fromisoformat(now.replace("Z", "+00:00"))


def hours_around(server: Any) -> tuple[str, str]:
    """A whole-hour window holding the server's present."""
    start = server_now(server).replace(minute=0, second=0, microsecond=0) - HOUR
    end = start + 3 * HOUR
    return start.strftime("%Y-%m-%dT%H:%M:%SZ"), end.strftime("%Y-%m-%dT%H:%M:%SZ")


def allowlist(server: Any, account_id: str, programmes: list[str]) -> None:
    response = httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account_id}/allowlist", json={"programmes": programmes}
    )
    assert response.status_code == 200, response.text


@pytest.fixture()
def listed(server: Any, account: dict[str, Any]) -> dict[str, Any]:
    """A fresh sandbox account allow-listed for account history."""
    allowlist(server, account["id"], ["ACCOUNT_HISTORY"])
    return account


def test_accounts_not_allowlisted_are_refused(
    sandbox: AdsClient, account: dict[str, Any], server: Any
) -> None:
    start, end = hours_around(server)
    response = sandbox.get(
        f"/accounts/{account['id']}/account_history",
        {"entity_type": "CAMPAIGN", "entity_id": "abc", "start_time": start, "end_time": end},
    )
    assert response.status_code == 403
    assert error_codes(response) == ["ACTION_NOT_ALLOWED"]
    assert "allowlisted" in response.json()["errors"][0]["message"]


def test_required_parameters(sandbox: AdsClient, listed: dict[str, Any]) -> None:
    response = sandbox.get(f"/accounts/{listed['id']}/account_history")
    assert response.status_code == 400
    missing = {item["parameter"]: item for item in response.json()["errors"]}
    assert set(missing) == {"entity_type", "entity_id", "start_time", "end_time"}
    assert missing["entity_type"] == {
        "code": "MISSING_PARAMETER",
        "message": '"entity_type" is a required parameter',
        "parameter": "entity_type",
    }


def test_bad_entity_type_and_times(sandbox: AdsClient, listed: dict[str, Any], server: Any) -> None:
    path = f"/accounts/{listed['id']}/account_history"
    start, end = hours_around(server)
    wrong_type = sandbox.get(
        path, {"entity_type": "ACCOUNT", "entity_id": "x", "start_time": start, "end_time": end}
    )
    assert wrong_type.status_code == 400
    assert wrong_type.json()["errors"][0]["parameter"] == "entity_type"
    assert wrong_type.json()["errors"][0]["message"].startswith("Expected a value in CAMPAIGN, LINE_ITEM")
    minutes = sandbox.get(
        path,
        {
            "entity_type": "CAMPAIGN",
            "entity_id": "x",
            "start_time": start.replace(":00:00Z", ":30:00Z"),
            "end_time": end,
        },
    )
    assert minutes.status_code == 400
    assert minutes.json()["errors"][0]["code"] == "INVALID_PARAMETER"
    assert minutes.json()["errors"][0]["parameter"] == "start_time"
    seconds = sandbox.get(
        path,
        {
            "entity_type": "CAMPAIGN",
            "entity_id": "x",
            "start_time": start,
            "end_time": end.replace(":00:00Z", ":00:15Z"),
        },
    )
    assert seconds.status_code == 400 and seconds.json()["errors"][0]["parameter"] == "end_time"
    garbage = sandbox.get(
        path, {"entity_type": "CAMPAIGN", "entity_id": "x", "start_time": "soon", "end_time": end}
    )
    assert garbage.status_code == 400
    assert garbage.json()["errors"][0]["message"] == 'Expected time, got "soon" for start_time'
    backwards = sandbox.get(
        path, {"entity_type": "CAMPAIGN", "entity_id": "x", "start_time": end, "end_time": start}
    )
    assert backwards.status_code == 400 and error_codes(backwards) == ["INVALID_TIME_WINDOW"]
    bad_user = sandbox.get(
        path,
        {"entity_type": "CAMPAIGN", "entity_id": "x", "start_time": start, "end_time": end, "user_id": "me"},
    )
    assert bad_user.status_code == 400 and bad_user.json()["errors"][0]["parameter"] == "user_id"
    too_big = sandbox.get(
        path,
        {
            "entity_type": "CAMPAIGN",
            "entity_id": "x",
            "start_time": start,
            "end_time": end,
            "user_id": "9" * 19,
        },
    )
    assert too_big.status_code == 400  # beyond a signed 64-bit integer: refused, not a database error
    assert too_big.json()["errors"][0]["message"] == f'Expected Long, got "{"9" * 19}" for user_id'


def test_unknown_entity_has_an_empty_history(sandbox: AdsClient, listed: dict[str, Any], server: Any) -> None:
    start, end = hours_around(server)
    response = sandbox.get(
        f"/accounts/{listed['id']}/account_history",
        {"entity_type": "LINE_ITEM", "entity_id": "nothing", "start_time": start, "end_time": end},
    )
    assert response.status_code == 200
    body = response.json()
    assert body["data"] == [] and body["next_cursor"] is None
    assert body["request"]["params"] == {
        "account_id": listed["id"],
        "entity_type": "LINE_ITEM",
        "entity_id": "nothing",
        "start_time": start,
        "end_time": end,
    }


def test_campaign_lifecycle_is_recorded(sandbox: AdsClient, listed: dict[str, Any], server: Any) -> None:
    account_id = listed["id"]
    created = sandbox.post(
        f"/accounts/{account_id}/campaigns",
        {
            "funding_instrument_id": listed["funding_instrument_id"],
            "name": "history",
            "daily_budget_amount_local_micro": 10_000_000,
            "entity_status": "PAUSED",
        },
    )
    assert created.status_code == 200, created.text
    campaign_id = created.json()["data"]["id"]
    assert (
        sandbox.put(f"/accounts/{account_id}/campaigns/{campaign_id}", {"name": "renamed"}).status_code == 200
    )
    assert sandbox.delete(f"/accounts/{account_id}/campaigns/{campaign_id}").status_code == 200
    me = sandbox.get(f"/accounts/{account_id}/authenticated_user_access").json()["data"]["user_id"]
    start, end = hours_around(server)
    query = {"entity_type": "CAMPAIGN", "entity_id": campaign_id, "start_time": start, "end_time": end}
    response = sandbox.get(f"/accounts/{account_id}/account_history", query)
    assert response.status_code == 200, response.text
    items = response.json()["data"]
    assert [item["change_type"] for item in items] == ["CREATE", "UPDATE", "DELETE"]
    first = items[0]
    assert set(first) == {
        "change_by",
        "changes",
        "change_time",
        "entity_id",
        "entity",
        "entity_data",
        "change_type",
    }
    assert first["change_by"] == {"user_id": me, "platform": "API_OTHER"}
    assert first["entity"] == "CAMPAIGN" and first["entity_id"] == campaign_id
    assert first["entity_data"]["name"] == "history"
    assert first["change_time"].endswith("Z") and len(first["change_time"]) == 20
    assert items[1]["changes"]["name"] == {"old": "history", "new": "renamed"}
    assert items[2]["entity_data"]["deleted"] is True

    paged = sandbox.get(f"/accounts/{account_id}/account_history", {**query, "count": 2}).json()
    assert [item["change_type"] for item in paged["data"]] == ["CREATE", "UPDATE"]
    rest = sandbox.get(
        f"/accounts/{account_id}/account_history", {**query, "count": 2, "cursor": paged["next_cursor"]}
    ).json()
    assert [item["change_type"] for item in rest["data"]] == ["DELETE"] and rest["next_cursor"] is None

    by_me = sandbox.get(f"/accounts/{account_id}/account_history", {**query, "user_id": me}).json()["data"]
    assert len(by_me) == 3
    by_other = sandbox.get(
        f"/accounts/{account_id}/account_history", {**query, "user_id": int(me) + 1}
    ).json()
    assert by_other["data"] == []
    earlier = dt.datetime.fromisoformat(start.replace("Z", "+00:00")) - 5 * HOUR
    before = sandbox.get(
        f"/accounts/{account_id}/account_history",
        {**query, "start_time": earlier.strftime("%Y-%m-%dT%H:%M:%SZ"), "end_time": start},
    ).json()
    assert before["data"] == []
