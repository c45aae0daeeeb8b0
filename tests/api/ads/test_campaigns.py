"""Campaigns: create, read, list, update, delete and their rules."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.ads.helpers import AdsClient, error_codes
from tests.support.server import LiveServer


def _path(account: dict[str, Any], suffix: str = "") -> str:
    return f"/accounts/{account['id']}/campaigns{suffix}"


def make_campaign(sandbox: AdsClient, account: dict[str, Any], **params: Any) -> dict[str, Any]:
    sent = {
        "funding_instrument_id": account["funding_instrument_id"],
        "name": "campaign",
        "daily_budget_amount_local_micro": 10_000_000,
        **params,
    }
    response = sandbox.post(_path(account), sent)
    assert response.status_code == 200, response.text
    return response.json()["data"]


def test_create_returns_the_v12_shape_and_echoes_typed_params(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    response = sandbox.post(
        _path(account),
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "Spring sale",
            "daily_budget_amount_local_micro": "10000000",
            "total_budget_amount_local_micro": 50_000_000,
            "entity_status": "PAUSED",
            "purchase_order_number": "PO-7",
            "standard_delivery": "false",
        },
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "funding_instrument_id": account["funding_instrument_id"],
        "name": "Spring sale",
        "daily_budget_amount_local_micro": 10_000_000,
        "total_budget_amount_local_micro": 50_000_000,
        "entity_status": "PAUSED",
        "purchase_order_number": "PO-7",
        "standard_delivery": False,
    }
    campaign = body["data"]
    assert next(iter(campaign)) == "id" and list(campaign)[-3:] == ["created_at", "updated_at", "deleted"]
    assert campaign["name"] == "Spring sale"
    assert campaign["budget_optimization"] == "CAMPAIGN"
    assert campaign["funding_instrument_id"] == account["funding_instrument_id"]
    assert campaign["currency"] == "USD"
    assert campaign["standard_delivery"] is False
    assert campaign["entity_status"] == "PAUSED"
    assert campaign["servable"] is False
    assert campaign["reasons_not_servable"] == ["PAUSED_BY_ADVERTISER", "INCOMPLETE"]
    assert campaign["effective_status"] == "UNKNOWN"
    assert campaign["purchase_order_number"] == "PO-7"
    assert campaign["frequency_cap"] is None and campaign["duration_in_days"] is None
    assert "start_time" not in campaign and "end_time" not in campaign and "account_id" not in campaign
    assert campaign["deleted"] is False


def test_defaults_active_campaign_standard_delivery(sandbox: AdsClient, account: dict[str, Any]) -> None:
    campaign = make_campaign(sandbox, account)
    assert campaign["entity_status"] == "ACTIVE"
    assert campaign["standard_delivery"] is True
    assert campaign["budget_optimization"] == "CAMPAIGN"
    assert campaign["reasons_not_servable"] == ["INCOMPLETE"]


def test_required_parameters(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(_path(account), {"daily_budget_amount_local_micro": 10_000_000})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert {(e["code"], e["parameter"]) for e in errors} == {
        ("MISSING_PARAMETER", "funding_instrument_id"),
        ("MISSING_PARAMETER", "name"),
    }
    assert errors[0]["message"] == '"funding_instrument_id" is a required parameter'


def test_daily_budget_required_for_card_funding(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(
        _path(account), {"funding_instrument_id": account["funding_instrument_id"], "name": "x"}
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "daily_budget_amount_local_micro"
    assert error_codes(response) == ["MISSING_PARAMETER"]


def test_daily_budget_optional_for_insertion_orders(sandbox: AdsClient, account: dict[str, Any]) -> None:
    made = sandbox.post(
        f"/accounts/{account['id']}/funding_instruments",
        {
            "currency": "USD",
            "start_time": "2026-01-01",
            "type": "INSERTION_ORDER",
            "funded_amount_local_micro": 10**9,
        },
    )
    assert made.status_code == 200, made.text
    response = sandbox.post(
        _path(account), {"funding_instrument_id": made.json()["data"]["id"], "name": "io"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["data"]["daily_budget_amount_local_micro"] is None


def test_unknown_and_foreign_funding_instruments(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.post(
        _path(account),
        {"funding_instrument_id": "zzzz1", "name": "x", "daily_budget_amount_local_micro": 10**7},
    )
    assert response.status_code == 404
    assert response.json()["errors"][0]["message"] == (
        f"Funding Instrument zzzz1 was not found for Account {account['id']}"
    )
    other = sandbox.post("/accounts").json()["data"][0]
    other_fi = sandbox.get(f"/accounts/{other['id']}/funding_instruments").json()["data"][0]["id"]
    response = sandbox.post(
        _path(account),
        {"funding_instrument_id": other_fi, "name": "x", "daily_budget_amount_local_micro": 10**7},
    )
    assert response.status_code == 404


def test_budget_rules(sandbox: AdsClient, account: dict[str, Any]) -> None:
    base = {"funding_instrument_id": account["funding_instrument_id"], "name": "b"}
    over = sandbox.post(
        _path(account),
        {
            **base,
            "daily_budget_amount_local_micro": 20_000_000,
            "total_budget_amount_local_micro": 10_000_000,
        },
    )
    assert over.status_code == 400 and error_codes(over) == ["INVALID_PARAMETER"]
    assert over.json()["errors"][0]["parameter"] == "daily_budget_amount_local_micro"
    odd = sandbox.post(_path(account), {**base, "daily_budget_amount_local_micro": 10_000_001})
    assert odd.status_code == 400 and error_codes(odd) == ["INVALID_DENOMINATION"]
    typed = sandbox.post(_path(account), {**base, "daily_budget_amount_local_micro": "ten"})
    assert typed.status_code == 400
    assert (
        typed.json()["errors"][0]["message"] == 'Expected Long, got "ten" for daily_budget_amount_local_micro'
    )


def test_name_and_purchase_order_lengths(sandbox: AdsClient, account: dict[str, Any]) -> None:
    base = {
        "funding_instrument_id": account["funding_instrument_id"],
        "daily_budget_amount_local_micro": 10**7,
    }
    long_name = sandbox.post(_path(account), {**base, "name": "n" * 256})
    assert long_name.status_code == 400
    assert long_name.json()["errors"][0]["message"] == "Maximum length of 255 exceeded for name"
    long_po = sandbox.post(_path(account), {**base, "name": "x", "purchase_order_number": "p" * 51})
    assert long_po.status_code == 400 and long_po.json()["errors"][0]["parameter"] == "purchase_order_number"


def test_line_item_optimization_and_standard_delivery(sandbox: AdsClient, account: dict[str, Any]) -> None:
    campaign = make_campaign(sandbox, account, budget_optimization="LINE_ITEM")
    assert campaign["budget_optimization"] == "LINE_ITEM"
    assert campaign["standard_delivery"] is None
    refused = sandbox.post(
        _path(account),
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "x",
            "budget_optimization": "LINE_ITEM",
            "standard_delivery": "true",
        },
    )
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["parameter"] == "standard_delivery"
    bad_enum = sandbox.post(_path(account), {"budget_optimization": "BOTH"})
    assert bad_enum.status_code == 400
    assert 'Expected a value in CAMPAIGN, LINE_ITEM, got "BOTH" for budget_optimization' in [
        e["message"] for e in bad_enum.json()["errors"]
    ]


def test_get_update_and_delete(sandbox: AdsClient, account: dict[str, Any]) -> None:
    campaign = make_campaign(sandbox, account, name="first")
    one = sandbox.get(_path(account, f"/{campaign['id']}"))
    assert one.status_code == 200
    assert one.json()["data"] == campaign
    assert one.json()["request"]["params"] == {"account_id": account["id"], "campaign_id": campaign["id"]}

    updated = sandbox.put(
        _path(account, f"/{campaign['id']}"),
        {
            "name": "renamed",
            "entity_status": "PAUSED",
            "total_budget_amount_local_micro": 90_000_000,
            "id": "ignored",
        },
    )
    assert updated.status_code == 200, updated.text
    data = updated.json()["data"]
    assert data["name"] == "renamed" and data["entity_status"] == "PAUSED"
    assert data["total_budget_amount_local_micro"] == 90_000_000
    assert data["daily_budget_amount_local_micro"] == 10_000_000  # unchanged
    assert data["reasons_not_servable"] == ["PAUSED_BY_ADVERTISER", "INCOMPLETE"]

    draft = sandbox.put(_path(account, f"/{campaign['id']}"), {"entity_status": "DRAFT"})
    assert draft.status_code == 400
    assert (
        draft.json()["errors"][0]["message"]
        == 'Expected a value in ACTIVE, PAUSED, got "DRAFT" for entity_status'
    )

    no_daily = sandbox.put(_path(account, f"/{campaign['id']}"), {"daily_budget_amount_local_micro": ""})
    assert no_daily.status_code == 400 and error_codes(no_daily) == ["MISSING_PARAMETER"]
    unset = sandbox.put(_path(account, f"/{campaign['id']}"), {"total_budget_amount_local_micro": ""})
    assert unset.status_code == 200 and unset.json()["data"]["total_budget_amount_local_micro"] is None

    deleted = sandbox.delete(_path(account, f"/{campaign['id']}"))
    assert deleted.status_code == 200
    assert deleted.json()["data"]["deleted"] is True
    again = sandbox.delete(_path(account, f"/{campaign['id']}"))
    assert again.status_code == 404
    assert again.json()["errors"][0] == {
        "code": "NOT_FOUND",
        "message": f"Campaign {campaign['id']} was not found for Account {account['id']}",
        "parameter": "campaign_id",
    }
    assert sandbox.get(_path(account, f"/{campaign['id']}")).status_code == 404
    shown = sandbox.get(_path(account, f"/{campaign['id']}"), {"with_deleted": "true"})
    assert shown.status_code == 200 and shown.json()["data"]["deleted"] is True
    assert sandbox.put(_path(account, f"/{campaign['id']}"), {"name": "x"}).status_code == 404


def test_list_filters_drafts_and_deleted(sandbox: AdsClient, account: dict[str, Any]) -> None:
    active = make_campaign(sandbox, account, name="Alpha one")
    draft = make_campaign(sandbox, account, name="alpha draft", entity_status="DRAFT")
    gone = make_campaign(sandbox, account, name="Beta")
    sandbox.delete(_path(account, f"/{gone['id']}"))

    def ids(params: dict[str, Any]) -> list[str]:
        response = sandbox.get(_path(account), params)
        assert response.status_code == 200, response.text
        return [c["id"] for c in response.json()["data"]]

    assert ids({}) == [active["id"]]
    assert ids({"with_draft": "true"}) == [active["id"], draft["id"]]
    assert set(ids({"with_draft": "true", "with_deleted": "true"})) == {active["id"], draft["id"], gone["id"]}
    assert ids({"q": "ALPHA", "with_draft": "true"}) == [active["id"], draft["id"]]
    assert ids({"campaign_ids": f"{draft['id']},{gone['id']}", "with_draft": "true"}) == [draft["id"]]
    assert ids({"funding_instrument_ids": account["funding_instrument_id"]}) == [active["id"]]
    assert ids({"funding_instrument_ids": "nope1"}) == []
    body = sandbox.get(_path(account), {"campaign_ids": active["id"], "with_total_count": "true"}).json()
    assert body["total_count"] == 1 and body["next_cursor"] is None
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "campaign_ids": [active["id"]],
        "with_total_count": True,
    }


def test_sorting_and_pagination(sandbox: AdsClient, account: dict[str, Any]) -> None:
    made = [
        make_campaign(sandbox, account, name=f"c{i}", daily_budget_amount_local_micro=(5 - i) * 1_000_000)
        for i in range(5)
    ]
    by_budget = sandbox.get(_path(account), {"sort_by": "daily_budget_amount_local_micro-asc"}).json()
    assert [c["name"] for c in by_budget["data"]] == ["c4", "c3", "c2", "c1", "c0"]
    assert by_budget["request"]["params"]["sort_by"] == ["daily_budget_amount_local_micro-asc"]
    by_name = sandbox.get(_path(account), {"sort_by": "name-desc"}).json()
    assert [c["name"] for c in by_name["data"]] == ["c4", "c3", "c2", "c1", "c0"]
    bad = sandbox.get(_path(account), {"sort_by": "colour-asc"})
    assert bad.status_code == 400 and error_codes(bad) == ["INVALID_PARAMETER"]

    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"count": 2}
        if cursor:
            params["cursor"] = cursor
        page = sandbox.get(_path(account), params).json()
        seen += [c["id"] for c in page["data"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert pages == 3 and seen == [c["id"] for c in made]
    both = sandbox.get(_path(account), {"cursor": "1x2b", "with_total_count": "true"})
    assert both.status_code == 400


def test_active_campaign_cap(sandbox: AdsClient, account: dict[str, Any], server: LiveServer) -> None:
    limited = httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account['id']}/limits",
        json={"active_campaigns": 2},
        timeout=30,
    )
    assert limited.status_code == 200
    make_campaign(sandbox, account)
    paused = make_campaign(sandbox, account, entity_status="PAUSED")  # paused still counts
    draft = make_campaign(sandbox, account, entity_status="DRAFT")  # drafts do not
    response = sandbox.post(
        _path(account),
        {
            "funding_instrument_id": account["funding_instrument_id"],
            "name": "x",
            "daily_budget_amount_local_micro": 10**7,
        },
    )
    assert response.status_code == 400 and error_codes(response) == ["TOO_MANY_CAMPAIGNS"]
    assert sandbox.put(_path(account, f"/{draft['id']}"), {"entity_status": "ACTIVE"}).status_code == 400
    sandbox.delete(_path(account, f"/{paused['id']}"))
    assert sandbox.put(_path(account, f"/{draft['id']}"), {"entity_status": "ACTIVE"}).status_code == 200


def test_version_11_and_unknown_params(sandbox: AdsClient, account: dict[str, Any], server: Any) -> None:
    campaign = make_campaign(sandbox, account)
    # Clients resend read-only fields they loaded: ignored.
    response = sandbox.put(
        _path(account, f"/{campaign['id']}"),
        {"servable": "false", "currency": "EUR", "created_at": "2020-01-01T00:00:00Z", "name": "kept"},
    )
    assert response.status_code == 200
    assert response.json()["data"]["currency"] == "USD"
    assert response.json()["request"]["params"] == {
        "account_id": account["id"],
        "campaign_id": campaign["id"],
        "name": "kept",
    }


def test_id_filters_take_at_most_200_ids(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/campaigns"
    ids = [f"c{index}" for index in range(201)]
    too_many = sandbox.get(path, {"campaign_ids": ",".join(ids)})
    assert too_many.status_code == 400
    problem = too_many.json()["errors"][0]
    assert (problem["code"], problem["parameter"]) == ("INVALID_PARAMETER", "campaign_ids")
    just_enough = sandbox.get(path, {"campaign_ids": ",".join(ids[:200])})
    assert just_enough.status_code == 200 and just_enough.json()["data"] == []
    assert just_enough.json()["request"]["params"]["campaign_ids"] == ids[:200]
