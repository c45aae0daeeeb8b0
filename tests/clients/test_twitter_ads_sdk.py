"""The official python ads SDK (twitter-ads 11.0.0, unmodified) against roost.

The SDK has no domain option: its `Request` class reads two class attributes, which the `sdk`
fixture points at the live server (production and the /sandbox prefix) and restores afterwards.
It calls /11/ paths, resends read-only attributes on save, repeats keys for list attributes, sends
Python booleans capitalised in list calls and skips 0/False when loading — roost has to take all of
that.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer
from twitter_ads.account import Account
from twitter_ads.campaign import Campaign, LineItem, TargetingCriteria, TaxSettings
from twitter_ads.client import Client
from twitter_ads.error import BadRequest, Forbidden, NotFound
from twitter_ads.http import Request

pytestmark = pytest.mark.clients

DEMO_ACCOUNT = "18ce54d4x5t"
DEMO_SANDBOX = "gq1844"


@pytest.fixture()
def sdk(server: LiveServer) -> Iterator[None]:
    """Point the SDK's hosts at the live server for one test, then put them back."""
    saved = (Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN)
    Request._DEFAULT_DOMAIN = server.base_url
    Request._SANDBOX_DOMAIN = server.base_url + "/sandbox"
    try:
        yield
    finally:
        Request._DEFAULT_DOMAIN, Request._SANDBOX_DOMAIN = saved


def _client(credentials: dict[str, Any], token: str, secret: str, sandbox: bool) -> Client:
    return Client(
        credentials["consumer_key"],
        credentials["consumer_secret"],
        token,
        secret,
        options={"sandbox": sandbox},
    )


@pytest.fixture()
def production(sdk: None, credentials: dict[str, Any]) -> Client:
    return _client(credentials, credentials["access_token"], credentials["access_token_secret"], False)


@pytest.fixture()
def sandbox(sdk: None, credentials: dict[str, Any]) -> Client:
    return _client(credentials, credentials["access_token"], credentials["access_token_secret"], True)


def new_sandbox_account(client: Client) -> Account:
    """POST accounts has no SDK method; a raw `Request` creates one, `Account.load` reads it."""
    created = Request(client, "post", "/11/accounts").perform()
    return Account.load(client, created.body["data"][0]["id"])


@pytest.fixture()
def account(sandbox: Client) -> Account:
    return new_sandbox_account(sandbox)


def new_campaign(account: Account, name: str = "sdk campaign") -> Campaign:
    campaign = Campaign(account)
    campaign.funding_instrument_id = account.funding_instruments().first.id
    campaign.name = name
    campaign.daily_budget_amount_local_micro = 10_000_000
    campaign.entity_status = "PAUSED"
    campaign.save()
    return campaign


def tomorrow() -> dt.datetime:
    return (dt.datetime.now(dt.UTC) + dt.timedelta(days=1)).replace(minute=0, second=0, microsecond=0)


def line_item_for(account: Account, campaign: Campaign, name: str = "sdk line item") -> LineItem:
    line_item = LineItem(account)
    line_item.campaign_id = campaign.id
    line_item.name = name
    line_item.objective = "ENGAGEMENTS"
    line_item.product_type = "PROMOTED_TWEETS"
    line_item.placements = ["ALL_ON_TWITTER"]
    line_item.bid_strategy = "MAX"
    line_item.bid_amount_local_micro = 500_000
    line_item.start_time = tomorrow()
    line_item.entity_status = "PAUSED"
    return line_item


# ---- accounts, cursors, features ------------------------------------------------------------------


def test_accounts_listing_and_load(production: Client) -> None:
    cursor = production.accounts()
    ids = [account.id for account in cursor]
    assert DEMO_ACCOUNT in ids and DEMO_SANDBOX not in ids
    assert int(cursor.rate_limit_limit) > 0  # x-* headers become cursor attributes
    account = production.accounts(DEMO_ACCOUNT)
    assert isinstance(account, Account)
    assert account.name == "Roost Demo Advertiser"
    assert account.timezone == "America/Los_Angeles"
    assert account.approval_status == "ACCEPTED"
    # from_response parses TIME attributes, then overwrites them with the raw string.
    assert account.created_at.endswith("Z") and len(account.created_at) == 20
    assert account.deleted is None  # from_response skips False (bool is an int equal to 0)
    instrument = account.funding_instruments().first
    assert instrument.currency == "USD" and instrument.able_to_fund is True
    assert account.promotable_users().first.promotable_user_type == "FULL"
    assert isinstance(account.features(), list)


def test_sandbox_accounts_page_through_a_cursor(sandbox: Client) -> None:
    made = {new_sandbox_account(sandbox).id for _ in range(6)}
    cursor = Account.all(sandbox, count=5)  # at least two pages: six new accounts and the demo one
    assert cursor.fetched == 5 and not cursor.exhausted
    ids = [account.id for account in cursor]
    assert len(ids) == len(set(ids))
    assert made | {DEMO_SANDBOX} <= set(ids)
    total = Request(sandbox, "get", "/11/accounts", params={"with_total_count": "true"}).perform()
    assert len(ids) == total.body["total_count"]


def test_cursor_started_with_total_count_fails_on_its_second_page(sandbox: Client) -> None:
    new_sandbox_account(sandbox)
    cursor = Account.all(sandbox, count=1, with_total_count=True)  # sent as with_total_count=True
    assert cursor.count >= 2  # total_count of the first page
    with pytest.raises(BadRequest) as raised:
        list(cursor)  # the next page repeats with_total_count beside cursor
    assert raised.value.code == 400
    assert raised.value.details[0]["code"] == "EXCLUSIVE_PARAMETERS"


def test_features_in_the_sandbox(sandbox: Client, account: Account) -> None:
    assert account.features() == []
    path = f"/11/accounts/{account.id}/features"
    added = Request(sandbox, "post", path, params={"feature_keys": "AGE_TARGETING,CPI_CHARGING"}).perform()
    assert added.body["data"] == ["AGE_TARGETING", "CPI_CHARGING"]
    assert account.features() == ["AGE_TARGETING", "CPI_CHARGING"]
    removed = Request(sandbox, "delete", path, params={"feature_keys": ["AGE_TARGETING"]}).perform()
    assert removed.body["data"] == ["CPI_CHARGING"]
    assert account.features() == ["CPI_CHARGING"]


def test_error_classes(
    sandbox: Client, production: Client, make_user: Any, credentials: dict[str, Any]
) -> None:
    with pytest.raises(NotFound) as missing:
        Account.load(sandbox, "zzzzzz1")
    assert missing.value.code == 404
    assert missing.value.details == [
        {"code": "NOT_FOUND", "message": "Account zzzzzz1 was not found", "parameter": "account_id"}
    ]
    with pytest.raises(BadRequest) as bad:
        Account.all(sandbox, count=5000)
    assert bad.value.details[0]["code"] == "INVALID_PARAMETER"
    assert bad.value.details[0]["parameter"] == "count"
    stranger = make_user()
    outsider = _client(credentials, stranger["token"], stranger["secret"], False)
    with pytest.raises(Forbidden) as forbidden:
        Account.load(outsider, DEMO_ACCOUNT)
    assert forbidden.value.details[0]["code"] == "NOT_FOUND"
    with pytest.raises(NotFound) as route:
        Request(production, "post", "/11/accounts").perform()  # sandbox-only operation
    assert route.value.details[0]["code"] == "ROUTE_NOT_FOUND"


def test_tax_settings_load_and_save(account: Account, sandbox: Client) -> None:
    settings = TaxSettings.load(account)
    assert settings.bill_to == "NOT_SET" and settings.invoice_jurisdiction == "NOT_SET"
    settings.address_name = "SDK Company"  # the input name; the output calls it address_company
    settings.address_country = "GB"
    settings.tax_category = "BUSINESS_NO_VAT"
    settings.save()  # resends bill_to=NOT_SET and every other loaded value
    assert settings.address_country == "GB" and settings.tax_category == "BUSINESS_NO_VAT"
    raw = Request(sandbox, "get", f"/11/accounts/{account.id}/tax_settings").perform().body["data"]
    assert raw["address_company"] == "SDK Company"


# ---- campaigns ------------------------------------------------------------------------------------


def test_campaign_save_load_update_delete(account: Account) -> None:
    campaign = new_campaign(account, "first")
    assert campaign.id and campaign.currency == "USD"
    loaded = account.campaigns(campaign.id)
    assert isinstance(loaded, Campaign)
    assert loaded.name == "first" and loaded.entity_status == "PAUSED"
    assert loaded.daily_budget_amount_local_micro == 10_000_000
    # Saving a loaded object resends id, created_at, currency, reasons_not_servable (repeated keys)...
    loaded.name = "renamed"
    loaded.save()
    assert loaded.name == "renamed"
    assert account.campaigns(campaign.id).name == "renamed"
    loaded.delete()
    assert loaded.deleted is True
    with pytest.raises(NotFound) as gone:
        account.campaigns(campaign.id)
    assert gone.value.details[0]["code"] == "NOT_FOUND"
    # Python booleans arrive capitalised: with_deleted=True.
    again = account.campaigns(campaign.id, with_deleted=True)
    assert again.deleted is True
    assert campaign.id in [c.id for c in account.campaigns(with_deleted=True)]
    assert campaign.id not in [c.id for c in account.campaigns()]


def test_campaigns_page_and_filter_with_repeated_keys(account: Account) -> None:
    made = [new_campaign(account, f"page {index}").id for index in range(5)]
    cursor = account.campaigns(count=2)
    listed = [campaign.id for campaign in cursor]
    assert sorted(listed) == sorted(made)
    assert int(cursor.account_rate_limit_limit) > 0
    picked = account.campaigns(campaign_ids=made[:2])  # a list: campaign_ids=a&campaign_ids=b
    assert sorted(c.id for c in picked) == sorted(made[:2])


def test_campaign_save_without_a_name_is_bad_request(account: Account) -> None:
    campaign = Campaign(account)
    campaign.funding_instrument_id = account.funding_instruments().first.id
    campaign.daily_budget_amount_local_micro = 10_000_000
    with pytest.raises(BadRequest) as bad:
        campaign.save()
    assert bad.value.details[0]["code"] == "MISSING_PARAMETER"
    assert bad.value.details[0]["parameter"] == "name"


# ---- line items ---------------------------------------------------------------------------------


def test_line_item_save_load_update_delete(account: Account) -> None:
    campaign = new_campaign(account)
    line_item = line_item_for(account, campaign)
    line_item.placements = ["PUBLISHER_NETWORK", "TWITTER_TIMELINE"]  # repeated placements= keys
    line_item.advertiser_domain = "example.com"
    line_item.categories = ["IAB3-1"]
    line_item.save()
    assert line_item.id and line_item.campaign_id == campaign.id
    assert sorted(line_item.placements) == ["PUBLISHER_NETWORK", "TWITTER_TIMELINE"]
    loaded = account.line_items(line_item.id)
    assert loaded.objective == "ENGAGEMENTS" and loaded.bid_amount_local_micro == 500_000
    assert loaded.advertiser_user_id  # filled with the account's FULL promotable user
    # The loaded object resends advertiser_user_id, which needs the allow-list: the platform's known
    # load-then-save failure.
    loaded.name = "renamed"
    with pytest.raises(BadRequest) as refused:
        loaded.save()
    assert refused.value.details[0]["parameter"] == "advertiser_user_id"
    loaded.advertiser_user_id = None  # the usual workaround
    loaded.save()
    assert loaded.name == "renamed"
    assert [li.id for li in account.line_items(campaign_ids=campaign.id)] == [line_item.id]
    loaded.delete()
    assert loaded.deleted is True
    with pytest.raises(NotFound):
        account.line_items(line_item.id)


# ---- targeting criteria -------------------------------------------------------------------------


def test_targeting_criteria_save_list_delete(account: Account) -> None:
    campaign = new_campaign(account)
    line_item = line_item_for(account, campaign)
    line_item.save()
    location = TargetingCriteria.locations(account, q="United States", location_type="COUNTRIES").first
    assert location["targeting_type"] == "LOCATION"
    criterion = TargetingCriteria(account)
    criterion.line_item_id = line_item.id
    criterion.targeting_type = "LOCATION"
    criterion.targeting_value = location["targeting_value"]
    criterion.operator_type = "EQ"
    criterion.save()
    assert criterion.id and criterion.name == location["name"]
    listed = [tc.id for tc in line_item.targeting_criteria()]
    assert listed == [criterion.id]
    both = TargetingCriteria.all(account, line_item_ids=[line_item.id, line_item.id])  # comma-joined
    assert [tc.id for tc in both] == [criterion.id]
    criterion.delete()
    assert criterion.deleted is True
    assert list(line_item.targeting_criteria()) == []


# ---- batch --------------------------------------------------------------------------------------


def test_campaign_batch_create_update_delete(account: Account) -> None:
    instrument = account.funding_instruments().first.id
    first, second = Campaign(account), Campaign(account)
    for campaign, name in ((first, "batch one"), (second, "batch two")):
        campaign.funding_instrument_id = instrument
        campaign.name = name
        campaign.daily_budget_amount_local_micro = 20_000_000
        campaign.entity_status = "PAUSED"
    Campaign.batch_save(account, [first, second])
    assert first.id and second.id and first.id != second.id
    assert first.name == "batch one" and second.name == "batch two"
    first.name = "batch one renamed"
    second.to_delete = True
    Campaign.batch_save(account, [first, second])
    assert first.name == "batch one renamed"
    assert second.deleted is True
    assert [c.id for c in account.campaigns()] == [first.id]


def test_line_item_batch_create_and_delete(account: Account) -> None:
    campaign = new_campaign(account)
    items = [line_item_for(account, campaign, f"batch {index}") for index in range(2)]
    LineItem.batch_save(account, items)
    assert all(item.id for item in items)
    items[0].advertiser_user_id = None  # see test_line_item_save_load_update_delete
    items[0].bid_amount_local_micro = 600_000
    items[1].to_delete = True
    LineItem.batch_save(account, items)
    assert items[0].bid_amount_local_micro == 600_000
    assert items[1].deleted is True
    assert [li.id for li in account.line_items()] == [items[0].id]


def test_targeting_criteria_batch(account: Account, sandbox: Client) -> None:
    campaign = new_campaign(account)
    line_item = line_item_for(account, campaign)
    line_item.save()
    criteria = []
    for targeting_type, value in (("GENDER", "1"), ("BROAD_KEYWORD", "roost")):
        criterion = TargetingCriteria(account)
        criterion.line_item_id = line_item.id
        criterion.targeting_type = targeting_type
        criterion.targeting_value = value
        criterion.operator_type = "EQ"
        criteria.append(criterion)
    TargetingCriteria.batch_save(account, criteria)
    assert all(tc.id for tc in criteria)
    assert sorted(tc.id for tc in line_item.targeting_criteria()) == sorted(tc.id for tc in criteria)
    criteria[0].to_delete = True
    TargetingCriteria.batch_save(account, [criteria[0]])
    assert criteria[0].deleted is True
    assert [tc.id for tc in line_item.targeting_criteria()] == [criteria[1].id]
    # An item-level failure is a 400 whose body carries operation_errors, not errors.
    broken = TargetingCriteria(account)
    broken.line_item_id = line_item.id
    broken.targeting_type = "NO_SUCH_TYPE"
    broken.targeting_value = "x"
    broken.operator_type = "EQ"
    with pytest.raises(BadRequest) as failed:
        TargetingCriteria.batch_save(account, [broken])
    body = failed.value.response.body
    [[problem]] = body["operation_errors"]
    assert problem["code"] == "INVALID_PARAMETER" and problem["parameter"] == "targeting_type"
    assert failed.value.details is None  # the SDK reads only `errors`
    assert [item["operation_type"] for item in body["request"]] == ["Create"]
    assert [tc.id for tc in line_item.targeting_criteria()] == [criteria[1].id]  # nothing written


def test_sdk_domains_are_restored_after_a_test() -> None:
    assert Request._DEFAULT_DOMAIN == "https://ads-api.twitter.com"
    assert Request._SANDBOX_DOMAIN == "https://ads-api-sandbox.twitter.com"


def test_roost_serves_version_11_for_the_sdk(server: LiveServer) -> None:
    unsigned = httpx.get(server.base_url + "/11/accounts", timeout=30)
    assert unsigned.status_code == 401
    assert unsigned.json()["errors"][0]["code"] == "UNAUTHORIZED_ACCESS"
