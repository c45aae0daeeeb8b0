"""Tax settings, the calling user's settings and account apps."""

from __future__ import annotations

from typing import Any

from tests.api.ads.helpers import AdsClient, demo_ads_client, error_codes

DEMO_ACCOUNT = "18ce54d4x5t"
TAX_KEYS = [
    "tax_id",
    "tax_exemption_id",
    "tax_category",
    "business_relationship",
    "bill_to",
    "invoice_jurisdiction",
    "address_city",
    "address_country",
    "address_email",
    "address_first_name",
    "address_last_name",
    "address_company",
    "address_postal_code",
    "address_region",
    "address_street1",
    "address_street2",
]


def owner_id(client: AdsClient, account_id: str) -> str:
    return client.get(f"/accounts/{account_id}/authenticated_user_access").json()["data"]["user_id"]


def test_fresh_account_shows_default_tax_settings(sandbox: AdsClient, account: dict[str, Any]) -> None:
    response = sandbox.get(f"/accounts/{account['id']}/tax_settings")
    assert response.status_code == 200
    body = response.json()
    assert body["request"] == {"params": {"account_id": account["id"]}}
    assert "next_cursor" not in body
    data = body["data"]
    assert list(data) == TAX_KEYS
    assert data["bill_to"] == "NOT_SET"
    assert data["invoice_jurisdiction"] == "NOT_SET"
    assert data["business_relationship"] == "SELF"
    assert data["tax_id"] is None and data["address_company"] is None


def test_put_tax_settings_stores_fields_and_echoes_them(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    sent = {
        "address_city": "Lyon",
        "address_country": "fr",
        "address_email": "billing@example.com",
        "address_first_name": "Ada",
        "address_last_name": "Lovelace",
        "address_name": "Analytical Engines SARL",
        "address_postal_code": "69001",
        "address_region": "Auvergne-Rhone-Alpes",
        "address_street1": "1 rue de la Republique",
        "address_street2": "Bat. B",
        "bill_to": "ADVERTISER",
        "invoice_jurisdiction": "LOI_SAPIN",
        "tax_category": "BUSINESS_WITH_VAT",
        "tax_id": "FR12345678901",
        "tax_exemption_id": "EX-1",
    }
    response = sandbox.put(path, sent)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["address_company"] == "Analytical Engines SARL"  # address_name is the input name
    assert "address_name" not in data
    assert data["address_country"] == "FR"
    assert data["bill_to"] == "ADVERTISER"
    assert data["invoice_jurisdiction"] == "LOI_SAPIN"
    assert data["tax_category"] == "BUSINESS_WITH_VAT"
    assert data["tax_id"] == "FR12345678901"
    echo = response.json()["request"]["params"]
    assert echo["account_id"] == account["id"] and echo["address_name"] == "Analytical Engines SARL"
    assert sandbox.get(path).json()["data"] == data


def test_address_company_is_accepted_too_but_not_with_address_name(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    response = sandbox.put(path, {"address_company": "Roost Ltd"})
    assert response.status_code == 200
    assert response.json()["data"]["address_company"] == "Roost Ltd"
    both = sandbox.put(path, {"address_company": "A", "address_name": "B"})
    assert both.status_code == 400
    assert error_codes(both) == ["EXCLUSIVE_PARAMETERS"]
    assert sandbox.get(path).json()["data"]["address_company"] == "Roost Ltd"


def test_only_supplied_fields_change_and_empty_unsets(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    sandbox.put(path, {"address_city": "Oslo", "tax_id": "NO1", "bill_to": "AGENCY"})
    response = sandbox.put(path, {"tax_id": "", "bill_to": ""})
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["address_city"] == "Oslo"
    assert data["tax_id"] is None
    assert data["bill_to"] == "NOT_SET"  # back to the default


def test_client_address_appears_for_agency_accounts(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    response = sandbox.put(
        path,
        {
            "business_relationship": "AGENCY",
            "client_address_name": "Client Co",
            "client_address_country": "DE",
        },
    )
    assert response.status_code == 200
    data = response.json()["data"]
    assert data["business_relationship"] == "AGENCY"
    assert data["client_address_company"] == "Client Co"
    assert data["client_address_country"] == "DE"
    assert data["client_address_city"] is None
    own = sandbox.put(path, {"business_relationship": "SELF"}).json()["data"]
    assert not any(key.startswith("client_address_") for key in own)


def test_loaded_settings_can_be_saved_back_unchanged(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    loaded = sandbox.get(path).json()["data"]
    resent = {name: value for name, value in loaded.items() if value is not None}
    response = sandbox.put(path, resent)
    assert response.status_code == 200, response.text
    assert response.json()["data"] == loaded


def test_bad_tax_values_are_invalid_parameter(sandbox: AdsClient, account: dict[str, Any]) -> None:
    path = f"/accounts/{account['id']}/tax_settings"
    response = sandbox.put(
        path,
        {
            "bill_to": "SOMEONE",
            "tax_category": "FREE",
            "address_country": "France",
            "address_email": "not-an-email",
            "address_city": "x" * 256,
        },
    )
    assert response.status_code == 400
    problems = {item["parameter"]: item for item in response.json()["errors"]}
    assert set(problems) == {"bill_to", "tax_category", "address_country", "address_email", "address_city"}
    assert all(item["code"] == "INVALID_PARAMETER" for item in problems.values())
    assert problems["bill_to"]["message"] == (
        'Expected a value in ADVERTISER, AGENCY, NOT_SET, got "SOMEONE" for bill_to'
    )
    assert sandbox.get(path).json()["data"]["address_city"] is None  # nothing was written


def test_tax_settings_need_access_and_the_admin_role(
    sandbox: AdsClient, account: dict[str, Any], ads_as: Any, make_user: Any, server: Any
) -> None:
    import httpx

    analyst = make_user()
    stranger = ads_as(analyst, sandbox=True)
    path = f"/accounts/{account['id']}/tax_settings"
    refused = stranger.get(path)
    assert refused.status_code == 403 and error_codes(refused) == ["NOT_FOUND"]
    granted = httpx.put(
        f"{server.base_url}/_roost/ads/accounts/{account['id']}/users/{analyst['id']}",
        json={"permissions": ["ANALYST"]},
    )
    assert granted.status_code == 200
    assert stranger.get(path).status_code == 200
    write = stranger.put(path, {"tax_id": "X"})
    assert write.status_code == 403 and error_codes(write) == ["ACTION_NOT_ALLOWED"]


def test_tax_settings_on_production_and_version_11(ads: AdsClient, server: Any, credentials: Any) -> None:
    assert ads.get(f"/accounts/{DEMO_ACCOUNT}/tax_settings").status_code == 200
    eleven = demo_ads_client(server.base_url, credentials, version="11")
    try:
        # Nothing was ever set on the demo account's tax settings: the default shows.
        assert eleven.get(f"/accounts/{DEMO_ACCOUNT}/tax_settings").json()["data"]["bill_to"] == "NOT_SET"
    finally:
        eleven.close()


# ---- user settings -----------------------------------------------------------------------------


def test_user_settings_of_the_calling_user(sandbox: AdsClient, account: dict[str, Any]) -> None:
    me = owner_id(sandbox, account["id"])
    path = f"/accounts/{account['id']}/user_settings/{me}"
    initial = sandbox.get(path)
    assert initial.status_code == 200
    assert initial.json()["data"] == {
        "notification_email": None,
        "contact_phone": None,
        "contact_phone_extension": None,
    }
    assert initial.json()["request"]["params"] == {"account_id": account["id"], "user_id": me}
    updated = sandbox.put(
        path,
        {
            "notification_email": "ads@example.com",
            "contact_phone": "+1 415 555 0100",
            "contact_phone_extension": "42",
        },
    )
    assert updated.status_code == 200, updated.text
    assert updated.json()["data"] == {
        "notification_email": "ads@example.com",
        "contact_phone": "+1 415 555 0100",
        "contact_phone_extension": "42",
    }
    cleared = sandbox.put(path, {"contact_phone_extension": ""}).json()["data"]
    assert cleared["contact_phone_extension"] is None and cleared["contact_phone"] == "+1 415 555 0100"
    # User settings do not leak into tax settings.
    tax = sandbox.get(f"/accounts/{account['id']}/tax_settings").json()["data"]
    assert "notification_email" not in tax and "user_settings" not in tax


def test_user_settings_of_someone_else_or_bad_values(sandbox: AdsClient, account: dict[str, Any]) -> None:
    me = int(owner_id(sandbox, account["id"]))
    other = sandbox.get(f"/accounts/{account['id']}/user_settings/{me + 1}")
    assert other.status_code == 403 and error_codes(other) == ["ACTION_NOT_ALLOWED"]
    put_other = sandbox.put(
        f"/accounts/{account['id']}/user_settings/{me + 1}", {"contact_phone": "+1 555 0100"}
    )
    assert put_other.status_code == 403
    not_a_number = sandbox.get(f"/accounts/{account['id']}/user_settings/abc")
    assert not_a_number.status_code == 400 and error_codes(not_a_number) == ["INVALID_PARAMETER"]
    bad = sandbox.put(
        f"/accounts/{account['id']}/user_settings/{me}",
        {"notification_email": "nobody", "contact_phone": "call me", "contact_phone_extension": "ext"},
    )
    assert bad.status_code == 400
    assert {item["parameter"] for item in bad.json()["errors"]} == {
        "notification_email",
        "contact_phone",
        "contact_phone_extension",
    }


# ---- account apps --------------------------------------------------------------------------------


def test_demo_account_lists_its_app(ads: AdsClient) -> None:
    response = ads.get(f"/accounts/{DEMO_ACCOUNT}/account_apps")
    assert response.status_code == 200
    body = response.json()
    assert body["next_cursor"] is None
    assert body["request"] == {"params": {"account_id": DEMO_ACCOUNT}}
    [app] = body["data"]
    assert app["app_store_identifier"] == "com.roost.demo"
    assert app["os_type"] == "Android"
    assert app["conversion_tracking_enabled"] is True
    assert set(app) == {
        "id",
        "app_store_identifier",
        "os_type",
        "conversion_tracking_enabled",
        "deep_link_pattern",
        "created_at",
        "updated_at",
        "deleted",
    }
    counted = ads.get(
        f"/accounts/{DEMO_ACCOUNT}/account_apps",
        {"with_total_count": "true", "count": 1, "sort_by": "created_at-desc"},
    ).json()
    assert counted["total_count"] == 1
    assert counted["request"]["params"]["sort_by"] == ["created_at-desc"]


def test_new_account_has_no_apps_and_list_params_are_checked(
    sandbox: AdsClient, account: dict[str, Any]
) -> None:
    path = f"/accounts/{account['id']}/account_apps"
    assert sandbox.get(path).json()["data"] == []
    bad = sandbox.get(path, {"count": 0, "sort_by": "name-asc"})
    assert bad.status_code == 400
    assert {item["parameter"] for item in bad.json()["errors"]} == {"count", "sort_by"}
