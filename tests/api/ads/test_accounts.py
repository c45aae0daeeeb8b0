"""Accounts, access, features and the ads envelope, errors and headers they share."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient, demo_ads_client, error_codes
from tests.support.server import LiveServer

DEMO_ACCOUNT = "18ce54d4x5t"
DEMO_SANDBOX = "gq1844"


def test_accounts_list_shows_the_demo_account_with_the_envelope(ads: AdsClient) -> None:
    response = ads.get("/accounts")
    assert response.status_code == 200
    body = response.json()
    assert body["request"] == {"params": {}}
    assert body["next_cursor"] is None
    ids = [account["id"] for account in body["data"]]
    assert DEMO_ACCOUNT in ids and DEMO_SANDBOX not in ids  # sandbox accounts live on the sandbox host
    account = next(a for a in body["data"] if a["id"] == DEMO_ACCOUNT)
    assert account["name"] == "Roost Demo Advertiser"
    assert account["timezone"] == "America/Los_Angeles"
    assert account["approval_status"] == "ACCEPTED"
    assert account["deleted"] is False
    assert account["created_at"].endswith("Z") and len(account["created_at"]) == 20
    assert response.headers["x-current-api-version"] == "12"
    assert int(response.headers["x-rate-limit-limit"]) > 0


def test_sandbox_host_and_prefix_show_only_sandbox_accounts(sandbox: AdsClient, ads: AdsClient) -> None:
    via_prefix = sandbox.get("/accounts").json()["data"]
    assert DEMO_SANDBOX in [a["id"] for a in via_prefix]
    assert DEMO_ACCOUNT not in [a["id"] for a in via_prefix]
    via_host = ads.get("/accounts", headers={"Host": "ads-api-sandbox.twitter.com"})
    assert via_host.status_code == 401  # signed for another host: the signature does not verify


def test_version_11_serves_the_same_operations(server: Any, credentials: dict[str, Any]) -> None:
    client = demo_ads_client(server.base_url, credentials, version="11")
    try:
        response = client.get(f"/accounts/{DEMO_ACCOUNT}")
        assert response.status_code == 200
        assert response.json()["data"]["id"] == DEMO_ACCOUNT
        assert response.json()["request"]["params"] == {"account_id": DEMO_ACCOUNT}
    finally:
        client.close()


def test_get_one_account_echoes_typed_params(ads: AdsClient) -> None:
    response = ads.get(f"/accounts/{DEMO_ACCOUNT}", {"with_deleted": "true"})
    assert response.status_code == 200
    assert response.json()["request"]["params"] == {"account_id": DEMO_ACCOUNT, "with_deleted": True}


def test_unknown_account_is_404_not_found(ads: AdsClient) -> None:
    response = ads.get("/accounts/zzzzzz1")
    assert response.status_code == 404
    assert response.json()["errors"][0]["code"] == "NOT_FOUND"
    assert response.json()["errors"][0]["message"] == "Account zzzzzz1 was not found"


def test_account_of_another_user_is_403(ads_as: Any, make_user: Any) -> None:
    stranger = ads_as(make_user())
    response = stranger.get(f"/accounts/{DEMO_ACCOUNT}")
    assert response.status_code == 403
    assert error_codes(response) == ["NOT_FOUND"]
    assert stranger.get("/accounts").json()["data"] == []


def test_bearer_and_bad_signatures_get_unauthorized_access(
    ads: AdsClient, credentials: dict[str, Any]
) -> None:
    bearer = ads.http.get(
        ads.url("/accounts"), headers={"Authorization": f"Bearer {credentials['bearer_token']}"}
    )
    assert bearer.status_code == 401
    assert error_codes(bearer) == ["UNAUTHORIZED_ACCESS"]
    unsigned = ads.http.get(ads.url("/accounts"))
    assert unsigned.status_code == 401
    assert unsigned.json()["request"] == {"params": {}}


def test_unknown_route_and_wrong_method(ads: AdsClient) -> None:
    missing = ads.get("/no_such_thing")
    assert missing.status_code == 404
    assert error_codes(missing) == ["ROUTE_NOT_FOUND"]
    wrong = ads.request("PATCH", f"/accounts/{DEMO_ACCOUNT}")
    assert wrong.status_code == 405
    assert error_codes(wrong) == ["METHOD_NOT_ALLOWED"]


def test_sandbox_only_operations_are_not_routes_in_production(ads: AdsClient) -> None:
    response = ads.post("/accounts")
    assert response.status_code == 404
    assert error_codes(response) == ["ROUTE_NOT_FOUND"]


def test_sandbox_account_lifecycle(sandbox: AdsClient) -> None:
    created = sandbox.post("/accounts")
    assert created.status_code == 200
    body = created.json()
    assert body["next_cursor"] is None
    account = body["data"][0]
    assert account["name"] == "Sandbox account"
    assert account["approval_status"] == "ACCEPTED"
    account_id = account["id"]
    access = sandbox.get(f"/accounts/{account_id}/authenticated_user_access").json()["data"]
    assert access["permissions"] == ["ACCOUNT_ADMIN", "TWEET_COMPOSER"]
    renamed = sandbox.put(f"/accounts/{account_id}", {"name": "Renamed", "industry_type": "RETAIL"})
    assert renamed.status_code == 200
    assert renamed.json()["data"]["name"] == "Renamed"
    assert renamed.json()["data"]["industry_type"] == "RETAIL"
    assert renamed.json()["request"]["params"] == {
        "account_id": account_id,
        "name": "Renamed",
        "industry_type": "RETAIL",
    }
    deleted = sandbox.delete(f"/accounts/{account_id}")
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert sandbox.get(f"/accounts/{account_id}").status_code == 404
    again = sandbox.get(f"/accounts/{account_id}", {"with_deleted": "true"})
    assert again.status_code == 200 and again.json()["data"]["deleted"] is True


def test_bad_enum_and_long_name_are_invalid_parameter(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.put(f"/accounts/{account['id']}", {"industry_type": "PETS", "name": "x" * 256})
    assert response.status_code == 400
    problems = {item["parameter"]: item for item in response.json()["errors"]}
    assert problems["industry_type"]["code"] == "INVALID_PARAMETER"
    assert problems["industry_type"]["message"].startswith("Expected a value in AGENCY, ")
    assert problems["industry_type"]["message"].endswith('got "PETS" for industry_type')
    assert problems["name"]["code"] == "INVALID_PARAMETER"


def test_funding_instrument_currency_is_a_known_iso_code(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/funding_instruments"
    sent = {"start_time": "2026-01-01", "type": "INSERTION_ORDER", "funded_amount_local_micro": 10**9}
    # The currencies with bidding rules are the ones an instrument may use, and USD is among them.
    known = [rule["currency"] for rule in sandbox.get("/bidding_rules").json()["data"]]
    assert "USD" in known and "EUR" in known
    for currency in ("QQQ", "usd", "US"):
        refused = sandbox.post(path, {**sent, "currency": currency})
        assert refused.status_code == 400, refused.text
        assert refused.json()["errors"] == [
            {
                "code": "INVALID_PARAMETER",
                "message": f'Expected a value in {", ".join(known)}, got "{currency}" for currency',
                "parameter": "currency",
            }
        ]
    made = sandbox.post(path, {**sent, "currency": "EUR"})
    assert made.status_code == 200, made.text
    assert made.json()["data"]["currency"] == "EUR"
    currencies = [fi["currency"] for fi in sandbox.get(path).json()["data"]]
    assert sorted(currencies) == ["EUR", "USD"]  # nothing refused was stored


def test_features_add_and_remove_in_sandbox(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/features"
    assert sandbox.get(path).json()["data"] == []
    added = sandbox.post(path, {"feature_keys": "AGE_TARGETING,CPI_CHARGING"})
    assert added.status_code == 200
    assert added.json()["data"] == ["AGE_TARGETING", "CPI_CHARGING"]
    assert added.json()["request"]["params"]["feature_keys"] == ["AGE_TARGETING", "CPI_CHARGING"]
    removed = sandbox.delete(path, {"feature_keys": "AGE_TARGETING"})
    assert removed.json()["data"] == ["CPI_CHARGING"]
    filtered = sandbox.get(path, {"feature_keys": "AGE_TARGETING"})
    assert filtered.json()["data"] == []
    missing = sandbox.post(path)
    assert missing.status_code == 400
    assert missing.json()["errors"][0] == {
        "code": "MISSING_PARAMETER",
        "message": '"feature_keys" is a required parameter',
        "parameter": "feature_keys",
    }


def test_pagination_with_cursor_and_total_count(sandbox: AdsClient) -> None:
    for _ in range(3):
        assert sandbox.post("/accounts").status_code == 200
    first = sandbox.get("/accounts", {"count": 2, "with_total_count": "true"}).json()
    assert len(first["data"]) == 2
    assert first["total_count"] >= 4
    assert isinstance(first["next_cursor"], str)
    seen = [a["id"] for a in first["data"]]
    cursor = first["next_cursor"]
    while cursor:
        page = sandbox.get("/accounts", {"count": 2, "cursor": cursor}).json()
        assert "total_count" not in page
        seen.extend(a["id"] for a in page["data"])
        cursor = page["next_cursor"]
    assert len(seen) == len(set(seen)) == first["total_count"]
    clash = sandbox.get("/accounts", {"cursor": first["next_cursor"], "with_total_count": "true"})
    assert clash.status_code == 400
    assert error_codes(clash) == ["EXCLUSIVE_PARAMETERS"]
    bad = sandbox.get("/accounts", {"cursor": "nonsense"})
    assert bad.status_code == 400 and error_codes(bad) == ["INVALID_PARAMETER"]
    out_of_range = sandbox.get("/accounts", {"count": 1001})
    assert out_of_range.status_code == 400 and out_of_range.json()["errors"][0]["parameter"] == "count"


def test_name_prefix_and_sort(sandbox: AdsClient) -> None:
    made = [sandbox.post("/accounts").json()["data"][0]["id"] for _ in range(2)]
    sandbox.put(f"/accounts/{made[0]}", {"name": "Zeta prefix test"})
    sandbox.put(f"/accounts/{made[1]}", {"name": "zebra prefix test"})
    found = sandbox.get("/accounts", {"q": "ZE", "sort_by": "name-desc"}).json()
    names = [a["name"] for a in found["data"]]
    assert names[:2] == ["Zeta prefix test", "zebra prefix test"]
    assert found["request"]["params"]["sort_by"] == ["name-desc"]
    bad = sandbox.get("/accounts", {"sort_by": "colour-asc"})
    assert bad.status_code == 400 and error_codes(bad) == ["INVALID_PARAMETER"]


def test_form_body_parameters_are_read(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.put(f"/accounts/{account['id']}", form={"name": "From a form"})
    assert response.status_code == 200
    assert response.json()["data"]["name"] == "From a form"


def test_read_only_app_cannot_write(sandbox: AdsClient, account: dict[str, Any], server: Any) -> None:
    import httpx

    app = httpx.post(server.base_url + "/_roost/apps", json={"name": "ro-ads", "permission": "read"}).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": app["consumer_key"], "user_id": int(account_owner(sandbox, account))},
    ).json()
    client = AdsClient(
        server.base_url,
        app["consumer_key"],
        app["consumer_secret"],
        token["access_token"],
        token["access_token_secret"],
        sandbox=True,
    )
    try:
        assert client.get(f"/accounts/{account['id']}").status_code == 200
        refused = client.put(f"/accounts/{account['id']}", {"name": "nope"})
        assert refused.status_code == 403
        assert error_codes(refused) == ["READONLY_CLIENT_APPLICATION"]
    finally:
        client.close()


def account_owner(client: AdsClient, account: dict[str, Any]) -> str:
    return client.get(f"/accounts/{account['id']}/authenticated_user_access").json()["data"]["user_id"]


def test_nul_characters_are_refused_not_stored(ads: AdsClient) -> None:
    in_filter = ads.get("/accounts", {"account_ids": "abc\x00def"})
    assert in_filter.status_code == 400 and error_codes(in_filter) == ["INVALID_PARAMETER"]
    in_path = ads.get("/accounts/abc%00def/campaigns")
    assert in_path.status_code == 400 and in_path.json()["errors"][0]["parameter"] == "account_id"


def test_control_plane_accounts_take_only_known_currencies(
    server: LiveServer, credentials: dict[str, Any]
) -> None:
    """Accounts made through /_roost get the same currencies the ads API accepts for instruments."""
    url = f"{server.base_url}/_roost/ads/accounts"
    user_id = credentials["user_id"]
    for currency in ("QQQ", "usd", "US1"):
        refused = httpx.post(url, json={"user_id": user_id, "currency": currency, "sandbox": True})
        assert refused.status_code == 400, refused.text
        assert "currency: one of" in refused.text and "EUR" in refused.text
    made = httpx.post(url, json={"user_id": user_id, "currency": "EUR", "sandbox": True})
    assert made.status_code == 201, made.text
