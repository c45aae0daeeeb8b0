"""Custom audiences through the API: the objects, unique names, the users upload's limits, hashing
checks, all-or-nothing semantics and per-item operation_errors, targetability, permissions and the
targeted lookup."""

from __future__ import annotations

from typing import Any

from tests.api.ads.audience_support import (
    device_users,
    make_audience,
    make_targetable_audience,
    sha,
    upload,
)
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.ads.test_targeting import created, make_line_item, post_criterion


def audiences_path(account: dict[str, Any], suffix: str = "") -> str:
    return f"/accounts/{account['id']}/custom_audiences{suffix}"


def update(users: list[dict[str, Any]], **params: Any) -> dict[str, Any]:
    return {"operation_type": "Update", "params": {**params, "users": users}}


def test_a_new_audience_is_a_placeholder(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(audiences_path(account), {"name": "developers", "description": "devs"})
    assert response.status_code == 200
    body = response.json()
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "name": "developers",
        "description": "devs",
    }
    audience = body["data"]
    assert audience["targetable"] is False
    assert audience["reasons_not_targetable"] == ["PROCESSING", "TOO_SMALL"]
    assert audience["audience_size"] is None
    assert audience["audience_type"] == "CRM" and audience["targetable_types"] == ["CRM", "EXCLUDED_CRM"]
    assert audience["permission_level"] == "READ_WRITE" and audience["owner_account_id"] == account["id"]
    assert audience["partner_source"] == "OTHER" and audience["deleted"] is False
    fetched = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()
    assert fetched["data"] == audience
    assert fetched["request"]["params"] == {"account_id": account["id"], "custom_audience_id": audience["id"]}


def test_names_are_unique_per_account(sandbox: AdsClient, account: dict[str, Any]) -> None:
    first = make_audience(sandbox, account["id"], "Newsletter")
    again = sandbox.post(audiences_path(account), {"name": "newsletter"})
    assert again.status_code == 400 and error_codes(again) == ["INVALID_PARAMETER"]
    assert again.json()["errors"][0]["parameter"] == "name"
    other = make_audience(sandbox, account["id"], "Other")
    clash = sandbox.put(audiences_path(account, f"/{other['id']}"), {"name": "NEWSLETTER"})
    assert clash.status_code == 400
    renamed = sandbox.put(audiences_path(account, f"/{other['id']}"), {"name": "Renamed"})
    assert renamed.status_code == 200
    assert renamed.json()["data"]["name"] == "Renamed" and renamed.json()["data"]["is_owner"] is True
    sandbox.delete(audiences_path(account, f"/{first['id']}"))
    assert sandbox.post(audiences_path(account), {"name": "Newsletter"}).status_code == 200
    missing = sandbox.post(audiences_path(account))
    assert missing.status_code == 400 and error_codes(missing) == ["MISSING_PARAMETER"]


def test_list_filters_and_soft_delete(sandbox: AdsClient, account: dict[str, Any]) -> None:
    made = [make_audience(sandbox, account["id"], name) for name in ("Alpha", "Beta", "alphabet")]
    listed = sandbox.get(audiences_path(account), {"q": "ALPHA"}).json()
    assert sorted(a["name"] for a in listed["data"]) == ["Alpha", "alphabet"]
    by_id = sandbox.get(audiences_path(account), {"custom_audience_ids": made[1]["id"]}).json()
    assert [a["id"] for a in by_id["data"]] == [made[1]["id"]]
    assert by_id["request"]["params"]["custom_audience_ids"] == [made[1]["id"]]
    page = sandbox.get(audiences_path(account), {"count": 2}).json()
    assert len(page["data"]) == 2 and page["next_cursor"] is not None
    rest = sandbox.get(audiences_path(account), {"count": 2, "cursor": page["next_cursor"]}).json()
    assert len(rest["data"]) == 1 and rest["next_cursor"] is None
    deleted = sandbox.delete(audiences_path(account, f"/{made[0]['id']}")).json()["data"]
    assert deleted["deleted"] is True
    assert sandbox.get(audiences_path(account, f"/{made[0]['id']}")).status_code == 404
    assert (
        sandbox.get(audiences_path(account, f"/{made[0]['id']}"), {"with_deleted": True}).status_code == 200
    )
    assert len(sandbox.get(audiences_path(account)).json()["data"]) == 2
    gone = sandbox.delete(audiences_path(account, f"/{made[0]['id']}"))
    assert gone.status_code == 404 and gone.json()["errors"][0]["parameter"] == "custom_audience_id"


def test_upload_counts_users_and_makes_the_audience_targetable(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    audience = make_audience(sandbox, account["id"])
    first = upload(
        sandbox, account["id"], audience["id"], [update(device_users(60)), update(device_users(39, "b"))]
    )
    assert first.status_code == 200
    assert first.json() == {
        "request": {"params": {"account_id": account["id"], "custom_audience_id": audience["id"]}},
        "data": {"success_count": 99, "total_count": 99},
    }
    small = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]
    assert small["targetable"] is False and small["reasons_not_targetable"] == ["TOO_SMALL"]
    assert small["audience_size"] is None
    # The same device again adds nobody; one more device reaches the threshold.
    upload(sandbox, account["id"], audience["id"], [update(device_users(1))])
    assert sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]["targetable"] is False
    upload(sandbox, account["id"], audience["id"], [update([{"partner_user_id": ["crm-1"]}])])
    ready = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]
    assert (
        ready["targetable"] is True
        and ready["reasons_not_targetable"] == []
        and ready["audience_size"] == 100
    )
    removed = upload(
        sandbox,
        account["id"],
        audience["id"],
        [{"operation_type": "Delete", "params": {"users": device_users(1)}}],
    )
    assert removed.status_code == 200
    shrunk = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]
    assert shrunk["targetable"] is False and shrunk["reasons_not_targetable"] == ["TOO_SMALL"]


def test_x_identifiers_match_roost_users(sandbox: AdsClient, account: dict[str, Any], make_user: Any) -> None:
    user = make_user()
    audience = make_audience(sandbox, account["id"])
    users = [
        *device_users(98),
        {"twitter_id": [sha(str(user["id"]))]},
        {"handle": [sha(user["username"].lower())]},  # the same person: counted once
        {"twitter_id": [sha("1")], "email": [sha("nobody@example.com")]},  # matches nobody
    ]
    assert (
        upload(sandbox, account["id"], audience["id"], [update(users)]).json()["data"]["total_count"] == 101
    )
    assert sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]["targetable"] is False
    other = make_user()
    upload(sandbox, account["id"], audience["id"], [update([{"handle": [sha(other["username"].lower())]}])])
    ready = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]
    assert ready["targetable"] is True and ready["audience_size"] == 100


def test_bad_items_fail_the_whole_upload_with_indexed_errors(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    audience = make_audience(sandbox, account["id"])
    body = [
        update(device_users(150)),
        update([{"email": ["Not-A-Hash"]}]),
        {"params": {"users": device_users(1)}},
        update([{"phone_number": [sha("1").upper()]}]),
        update(device_users(1), effective_at="2030-01-02T00:00:00Z", expires_at="2030-01-01T00:00:00Z"),
        update([{"partner_user_id": ["any text is fine"]}], expires_at="yesterday"),
        {"operation_type": "Replace", "params": {}},
    ]
    response = upload(sandbox, account["id"], audience["id"], body)
    assert response.status_code == 400
    payload = response.json()
    errors = payload["operation_errors"]
    assert len(errors) == len(body) and errors[0] == []
    assert [e["code"] for e in errors[1]] == ["INVALID_PARAMETER"] and errors[1][0]["parameter"] == "email"
    assert [e["code"] for e in errors[2]] == ["MISSING_PARAMETER"] and errors[2][0][
        "parameter"
    ] == "operation_type"
    assert errors[3][0]["parameter"] == "phone_number"  # hashes are lower-case hex
    assert [e["code"] for e in errors[4]] == ["INVALID_TIME_WINDOW"]
    assert [(e["code"], e["parameter"]) for e in errors[5]] == [("INVALID_PARAMETER", "expires_at")]
    assert sorted(e["parameter"] for e in errors[6]) == ["operation_type", "users"]
    assert len(payload["request"]) == len(body)
    assert payload["request"][4]["params"]["expires_at"] == "2030-01-01T00:00:00Z"
    assert "data" not in payload
    # Nothing of the good item was kept.
    unchanged = sandbox.get(audiences_path(account, f"/{audience['id']}")).json()["data"]
    assert unchanged["reasons_not_targetable"] == ["PROCESSING", "TOO_SMALL"]


def test_request_level_limits(sandbox: AdsClient, account: dict[str, Any]) -> None:
    audience = make_audience(sandbox, account["id"])
    one = update(device_users(1))
    too_many = upload(sandbox, account["id"], audience["id"], [one] * 2_501)
    assert too_many.status_code == 400 and error_codes(too_many) == ["INVALID_PARAMETER"]
    assert "2500" in too_many.json()["errors"][0]["message"]
    assert upload(sandbox, account["id"], audience["id"], [one] * 2_500).status_code == 200
    empty = upload(sandbox, account["id"], audience["id"], [])
    assert empty.status_code == 400 and error_codes(empty) == ["INVALID_PARAMETER"]
    not_array = upload(sandbox, account["id"], audience["id"], {"operation_type": "Update"})
    assert not_array.status_code == 400
    # Bodies up to 5,000,000 bytes are read (more than the server's usual cap); larger ones are 413.
    users = device_users(22_000)
    big = upload(sandbox, account["id"], audience["id"], [update(users)])
    assert big.status_code == 200, big.text
    assert big.json()["data"]["success_count"] == 22_000
    huge = upload(sandbox, account["id"], audience["id"], [update(device_users(70_000))])
    assert huge.status_code == 413 and error_codes(huge) == ["INVALID_PARAMETER"]
    form = sandbox.post(
        audiences_path(account, f"/{audience['id']}/users"), form={"operation_type": "Update"}
    )
    assert form.status_code == 400
    unknown = upload(sandbox, account["id"], "zzzzz", [one])
    assert unknown.status_code == 404 and error_codes(unknown) == ["NOT_FOUND"]


def test_targeting_uses_real_targetable_audiences(sandbox: AdsClient, account: dict[str, Any]) -> None:
    line_item = make_line_item(sandbox, account)
    small = make_audience(sandbox, account["id"])
    refused = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", small["id"])
    assert refused.status_code == 400 and "not targetable" in refused.json()["errors"][0]["message"]
    unknown = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE_EXPANDED", "1nmr7x")
    assert unknown.status_code == 404 and error_codes(unknown) == ["TAILORED_AUDIENCE_NOT_FOUND"]
    ready = make_targetable_audience(sandbox, account["id"])
    criterion = created(post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", ready["id"]))
    assert criterion["name"] == "Custom audience targeting" and criterion["targeting_value"] == ready["id"]
    expanded = created(post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE_EXPANDED", ready["id"]))
    assert expanded["targeting_type"] == "CUSTOM_AUDIENCE_EXPANDED"
    # Another account's audience is not found, nor is a deleted one.
    other = sandbox.post("/accounts").json()["data"][0]
    elsewhere = make_targetable_audience(sandbox, other["id"])
    foreign = post_criterion(sandbox, account, line_item, "CUSTOM_AUDIENCE", elsewhere["id"])
    assert foreign.status_code == 404
    estimate = sandbox.post(
        f"/accounts/{account['id']}/audience_estimate",
        json={"targeting_criteria": [{"targeting_type": "CUSTOM_AUDIENCE", "targeting_value": ready["id"]}]},
    )
    assert estimate.status_code == 200, estimate.text
    sandbox.delete(audiences_path(account, f"/{ready['id']}"))
    line_item_2 = make_line_item(sandbox, account)
    after = post_criterion(sandbox, account, line_item_2, "CUSTOM_AUDIENCE", ready["id"])
    assert after.status_code == 404 and error_codes(after) == ["TAILORED_AUDIENCE_NOT_FOUND"]


def test_permissions_share_an_audience(sandbox: AdsClient, account: dict[str, Any]) -> None:
    audience = make_targetable_audience(sandbox, account["id"])
    other = sandbox.post("/accounts").json()["data"][0]
    path = audiences_path(account, f"/{audience['id']}/permissions")
    granted = sandbox.post(path, {"granted_account_id": other["id"], "permission_level": "READ_ONLY"})
    assert granted.status_code == 200, granted.text
    permission = granted.json()["data"]
    assert permission["custom_audience_id"] == audience["id"]
    assert permission["granted_account_id"] == other["id"] and permission["permission_level"] == "READ_ONLY"
    assert granted.json()["request"]["params"]["granted_account_id"] == other["id"]
    twice = sandbox.post(path, {"granted_account_id": other["id"], "permission_level": "READ_WRITE"})
    assert twice.status_code == 400
    to_self = sandbox.post(path, {"granted_account_id": account["id"], "permission_level": "READ_ONLY"})
    assert to_self.status_code == 400
    nowhere = sandbox.post(path, {"granted_account_id": "nope42", "permission_level": "READ_ONLY"})
    assert nowhere.status_code == 400 and nowhere.json()["errors"][0]["parameter"] == "granted_account_id"
    bad_level = sandbox.post(path, {"granted_account_id": other["id"], "permission_level": "OWNER"})
    assert bad_level.status_code == 400
    listed = sandbox.get(path).json()
    assert [p["id"] for p in listed["data"]] == [permission["id"]] and listed["next_cursor"] is None
    filtered = sandbox.get(path, {"granted_account_ids": "someoneelse"}).json()
    assert filtered["data"] == []
    # The granted account sees and targets it.
    shared = sandbox.get(f"/accounts/{other['id']}/custom_audiences", {"permission_scope": "SHARED"}).json()
    assert [(a["id"], a["permission_level"]) for a in shared["data"]] == [(audience["id"], "READ_ONLY")]
    assert sandbox.get(f"/accounts/{other['id']}/custom_audiences").json()["data"] == []
    other_account = {**other, "funding_instrument_id": _instrument(sandbox, other["id"])}
    line_item = make_line_item(sandbox, other_account)
    created(post_criterion(sandbox, other_account, line_item, "CUSTOM_AUDIENCE", audience["id"]))
    revoked = sandbox.delete(f"{path}/{permission['id']}")
    assert revoked.status_code == 200 and revoked.json()["data"]["deleted"] is True
    assert revoked.json()["request"]["params"]["custom_audience_permission_id"] == permission["id"]
    assert sandbox.get(path).json()["data"] == []
    again = post_criterion(
        sandbox, other_account, make_line_item(sandbox, other_account), "CUSTOM_AUDIENCE", audience["id"]
    )
    assert again.status_code == 404
    assert sandbox.delete(f"{path}/{permission['id']}").status_code == 404


def _instrument(client: AdsClient, account_id: str) -> str:
    return str(client.get(f"/accounts/{account_id}/funding_instruments").json()["data"][0]["id"])


def test_targeted_lists_campaigns_and_line_items(sandbox: AdsClient, account: dict[str, Any]) -> None:
    audience = make_targetable_audience(sandbox, account["id"])
    active = make_line_item(sandbox, account, entity_status="ACTIVE")
    paused = make_line_item(sandbox, account, entity_status="PAUSED")
    created(post_criterion(sandbox, account, active, "CUSTOM_AUDIENCE", audience["id"]))
    created(post_criterion(sandbox, account, paused, "CUSTOM_AUDIENCE", audience["id"], "NE"))
    path = audiences_path(account, f"/{audience['id']}/targeted")
    every = sandbox.get(path, {"with_active": False}).json()
    assert every["next_cursor"] is None
    items = {li["id"]: li for entry in every["data"] for li in entry["line_items"]}
    assert set(items) == {active["id"], paused["id"]}
    assert items[paused["id"]]["servable"] is False
    assert all({"campaign_id", "campaign_name", "line_items"} <= set(entry) for entry in every["data"])
    default = sandbox.get(path).json()["data"]
    assert {li["id"] for entry in default for li in entry["line_items"]} <= {active["id"]}
    assert sandbox.get(audiences_path(account, "/zzzzz/targeted")).status_code == 404
