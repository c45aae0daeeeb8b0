"""The ads reference catalogs: filters, stable values and the lookups targeting relies on."""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime

import pytest

from roost.ads import catalog
from roost.ads.catalog import basic, content, topics, tv
from roost.ads.catalog._util import hex_value


def _unique(values: list[object]) -> bool:
    return Counter(values).most_common(1)[0][1] == 1


def test_locations_cover_every_country_with_iso_codes() -> None:
    countries = catalog.locations(location_type="COUNTRIES")
    codes = {item["country_code"] for item in countries}
    assert len(countries) >= 200
    assert {"US", "GB", "DE", "JP", "BR", "IN", "AU"} <= codes
    assert all(re.fullmatch(r"[A-Z]{2}", code) for code in codes)
    us = next(item for item in countries if item["country_code"] == "US")
    assert us == {
        "name": "United States",
        "country_code": "US",
        "location_type": "COUNTRIES",
        "targeting_value": "96683cc9126741d1",
        "targeting_type": "LOCATION",
    }


def test_location_values_are_sixteen_hex_chars_and_unique() -> None:
    items = catalog.locations()
    assert all(re.fullmatch(r"[0-9a-f]{16}", item["targeting_value"]) for item in items)
    assert _unique([item["targeting_value"] for item in items])
    assert {item["location_type"] for item in items} == set(catalog.LOCATION_TYPES)


def test_location_values_do_not_depend_on_table_order() -> None:
    # The value is a hash of the identity, so it can be recomputed from the identity alone.
    california = catalog.locations(q="California", location_type="REGIONS", country_code="US")
    assert [item["name"] for item in california] == ["California, US"]
    assert california[0]["targeting_value"] == hex_value("location", "REGIONS", "US", "CA")


def test_regions_metros_and_cities_of_the_major_markets() -> None:
    for code in ("US", "CA", "GB", "DE", "FR", "ES", "IT", "BR", "MX", "IN", "JP", "AU", "NL", "SE"):
        assert catalog.locations(country_code=code, location_type="REGIONS"), code
        assert catalog.locations(country_code=code, location_type="CITIES"), code
    assert len(catalog.locations(location_type="METROS")) >= 50
    assert all(item["country_code"] == "US" for item in catalog.locations(location_type="METROS"))
    assert len(catalog.locations(location_type="CITIES")) >= 300
    assert catalog.locations(location_type="POSTAL_CODES", q="94103") == [
        {
            "name": "94103, US",
            "country_code": "US",
            "location_type": "POSTAL_CODES",
            "targeting_value": hex_value("location", "POSTAL_CODES", "US", "94103"),
            "targeting_type": "LOCATION",
        }
    ]


def test_location_query_matches_word_prefixes_case_insensitively() -> None:
    names = [item["name"] for item in catalog.locations(q="SAN FRAN")]
    assert "San Francisco, CA, US" in names
    assert "San Francisco-Oakland-San Jose CA, US" in names
    assert any(name.startswith("Los Angeles") for name in (i["name"] for i in catalog.locations(q="angel")))
    assert catalog.locations(q="ngeles") == []
    bavaria = catalog.locations(q="bav", country_code="de", location_type="REGIONS")
    assert [item["name"] for item in bavaria] == ["Bavaria, DE"]


def test_location_filters_combine_and_accept_lists() -> None:
    items = catalog.locations(country_code=["FR", "IT"], location_type=["CITIES"])
    assert {item["country_code"] for item in items} == {"FR", "IT"}
    assert {item["location_type"] for item in items} == {"CITIES"}
    assert catalog.locations(country_code="ZZ") == []


def test_catalogs_are_deterministic_and_return_copies() -> None:
    first = catalog.events(event_types=list(catalog.EVENT_TYPES))
    first[0]["name"] = "changed"
    first[0]["reach"]["total_reach"] = -1
    again = catalog.events(event_types=list(catalog.EVENT_TYPES))
    assert again[0]["name"] != "changed" and again[0]["reach"]["total_reach"] > 0
    assert catalog.locations()[:50] == catalog.locations()[:50]
    assert catalog.tv_shows("en-US") == catalog.tv_shows("en-US")


def test_languages_are_iso_639_1() -> None:
    items = catalog.languages()
    assert len(items) > 150
    assert {"name": "English", "targeting_type": "LANGUAGE", "targeting_value": "en"} in items
    assert [item["targeting_value"] for item in catalog.languages(q="span")] == ["es"]
    assert all(re.fullmatch(r"[a-z]{2}", item["targeting_value"]) for item in items)


def test_interests_are_category_and_subcategory_with_numeric_values() -> None:
    items = catalog.interests()
    assert 250 <= len(items) <= 350
    assert items[0] == {
        "name": "Books and literature/Biographies and memoirs",
        "targeting_type": "INTEREST",
        "targeting_value": "1001",
    }
    assert all(item["targeting_value"].isdigit() and "/" in item["name"] for item in items)
    assert _unique([item["targeting_value"] for item in items])
    assert [item["name"] for item in catalog.interests(q="soccer")] == ["Sports/Soccer"]


def test_platforms_and_localized_names() -> None:
    items = catalog.platforms()
    assert [item["targeting_value"] for item in items] == ["0", "1", "2", "3", "4"]
    assert "localized_name" not in items[0]
    german = catalog.platforms(lang="de")
    assert german[4]["localized_name"] == "Desktop- und Laptop-Computer"
    assert catalog.platforms(lang="xx")[4]["localized_name"] == "Desktop and laptop computers"
    assert catalog.localized_name("PLATFORM", "2", "fr") == "Téléphones et tablettes BlackBerry"
    assert catalog.localized_name("INTEREST", "1001", "fr") == "Books and literature/Biographies and memoirs"
    assert catalog.localized_name("PLATFORM", "9", "fr") is None


def test_platform_versions_devices_and_operators() -> None:
    jelly = catalog.platform_versions(q="jelly")
    assert jelly[0] == {
        "name": "Jelly Bean",
        "number": "4.1",
        "os_type": "Android",
        "targeting_type": "PLATFORM_VERSION",
        "targeting_value": "18",
    }
    assert catalog.platform_versions(q="ios 17")[0]["number"] == "17.0"
    devices = catalog.devices()
    assert all(re.fullmatch(r"[0-9a-z]{2,}", item["targeting_value"]) for item in devices)
    assert _unique([item["targeting_value"] for item in devices])
    assert {item["manufacturer"] for item in catalog.devices(q="galaxy")} == {"Samsung"}
    us = catalog.network_operators()
    assert {item["country_code"] for item in us} == {"US"}
    assert "Verizon" in [item["name"] for item in us]
    assert {item["country_code"] for item in catalog.network_operators(country_code="JP")} == {"JP"}
    assert _unique([item["targeting_value"] for item in catalog.network_operators(country_code=None)])


def test_app_store_categories_by_os() -> None:
    ios = catalog.app_store_categories(os_type="IOS")
    android = catalog.app_store_categories(os_type="android")
    assert ios and android
    assert {item["os_type"] for item in ios} == {"IOS"}
    values = [item["targeting_value"] for item in catalog.app_store_categories()]
    assert all(re.fullmatch(r"[0-9a-z]{4}", value) for value in values) and _unique(values)
    assert [item["name"] for item in catalog.app_store_categories(q="games: puz", os_type="IOS")] == [
        "Games: Puzzle"
    ]


def test_conversations_cover_every_type() -> None:
    items = catalog.conversations()
    assert {item["conversation_type"] for item in items} == set(catalog.CONVERSATION_TYPES)
    assert len(catalog.CONVERSATION_TYPES) == 36
    assert items[0]["targeting_value"] == "a1"
    leagues = catalog.conversations(conversation_type="SPORTS_LEAGUES")
    assert "NBA" in [item["name"] for item in leagues]
    assert {item["conversation_type"] for item in leagues} == {"SPORTS_LEAGUES"}


def test_events_shape_and_filters() -> None:
    sports = catalog.events(event_types="SPORTS")
    assert sports and {item["event_type"] for item in sports} == {"SPORTS"}
    event = sports[0]
    assert set(event) >= {
        "name", "event_type", "targeting_value", "start_time", "end_time", "country_code", "is_global",
        "reach", "top_users", "top_tweets", "top_hashtags", "gender_breakdown_percentage",
        "device_breakdown_percentage", "country_breakdown_percentage",
    }  # fmt: skip
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", event["start_time"])
    for item in catalog.events(event_types=list(catalog.EVENT_TYPES)):
        for key in ("gender_breakdown_percentage", "device_breakdown_percentage"):
            assert sum(item[key].values()) == pytest.approx(100, abs=0.05)
        assert item["is_global"] is (item["country_code"] is None)
    years = {item["start_time"][:4] for item in catalog.events(event_types=list(catalog.EVENT_TYPES))}
    assert {"2025", "2026", "2027"} <= years


def test_event_time_window_and_country_filter() -> None:
    cutoff = datetime(2026, 7, 1, tzinfo=UTC)
    later = catalog.events(event_types="SPORTS", start_time=cutoff)
    assert later and all(item["end_time"] > "2026-07-01T00:00:00Z" for item in later)
    assert "FIFA World Cup 2026" in [item["name"] for item in later]  # still running on July 1st
    window = catalog.events(
        event_types="HOLIDAY", start_time=cutoff, end_time=datetime(2026, 7, 31, tzinfo=UTC)
    )
    assert [item["name"] for item in window] == [
        "Canada Day 2026",
        "Independence Day 2026",
        "Bastille Day 2026",
    ]
    british = catalog.events(event_types="SPORTS", country_codes=["GB"])
    assert all(item["country_code"] == "GB" or item["is_global"] for item in british)
    assert "Wimbledon 2026" in [item["name"] for item in british]
    assert "Super Bowl LX" not in [item["name"] for item in british]


def test_tv_markets_and_shows() -> None:
    markets = catalog.tv_markets()
    assert {"name": "United States", "country_code": "US", "locale": "en-US"} in markets
    shows = catalog.tv_shows("en-US")
    assert shows and all({"language": "en", "country": "US"} in item["locales"] for item in shows)
    assert all(isinstance(item["targeting_value"], int) for item in shows)
    assert min(item["estimated_users"] for item in shows) == 1000  # small audiences show as 1000
    assert catalog.tv_shows("en_us") == shows
    assert catalog.tv_shows("xx-YY") == []
    assert [item["name"] for item in catalog.tv_shows("en-GB", q="coronation")] == ["Coronation Street"]
    assert tv.normalize_locale("EN-gb") == "en-GB"


def test_iab_categories_follow_the_v1_taxonomy() -> None:
    items = catalog.iab_categories()
    assert items[0] == {"id": "IAB1", "parent_id": None, "name": "Arts & Entertainment"}
    assert items[1] == {"id": "IAB1-1", "parent_id": "IAB1", "name": "Books & Literature"}
    top = [item for item in items if item["parent_id"] is None]
    assert [item["id"] for item in top] == [f"IAB{n}" for n in range(1, 27)]
    assert len(items) > 350
    assert catalog.iab_category("iab17-44") == {
        "id": "IAB17-44",
        "parent_id": "IAB17",
        "name": "World Soccer",
    }


def test_content_and_business_categories_map_to_known_iab_ids() -> None:
    known = {item["id"] for item in catalog.iab_categories()}
    for item in catalog.content_categories():
        assert set(item) == {
            "id", "name", "iab_categories", "publishers_in_last_thirty_days",
            "videos_monetized_in_last_thirty_days",
        }  # fmt: skip
        assert item["iab_categories"] and set(item["iab_categories"]) <= known
    for item in catalog.advertiser_business_categories():
        assert set(item) == {"id", "name", "iab_categories"}
        assert item["iab_categories"] and set(item["iab_categories"]) <= known
    assert catalog.publishers()


def test_curated_categories_by_country() -> None:
    every = catalog.curated_categories()
    assert all(re.fullmatch(r"[0-9a-z]{12}", item["id"]) for item in every)
    indian = catalog.curated_categories(["IN"])
    assert indian and all("IN" in item["country_codes"] for item in indian)
    assert len(indian) < len(every)
    one = catalog.curated_category(indian[0]["id"])
    assert one == indian[0]
    assert catalog.curated_category("nope") is None
    publisher_ids = {item["user_id"] for item in content.publishers()}
    assert all(set(item["publisher_user_ids"]) <= publisher_ids for item in every)


def test_bidding_rules() -> None:
    usd = catalog.bidding_rules("usd")
    assert usd == [
        {
            "currency": "USD",
            "minimum_cpe_bid_local_micro": 10000,
            "maximum_cpe_bid_local_micro": 1000000000,
            "minimum_denomination": 10000,
        }
    ]
    currencies = {rule["currency"] for rule in catalog.bidding_rules()}
    assert {"USD", "EUR", "GBP", "JPY", "CAD", "AUD", "BRL", "MXN", "INR"} <= currencies
    assert catalog.bidding_rule("JPY")["minimum_denomination"] == 1_000_000
    assert catalog.bidding_rules("XXX") == []


def test_placements_and_brand_spellings() -> None:
    tweets = catalog.placements("PROMOTED_TWEETS")
    assert tweets[0]["placements"][0] == ["ALL_ON_TWITTER"]
    assert catalog.placements("PROMOTED_ACCOUNT") == [
        {"product_type": "PROMOTED_ACCOUNT", "placements": [["ALL_ON_TWITTER"], ["TWITTER_TIMELINE"]]}
    ]
    assert [item["product_type"] for item in catalog.placements()] == [
        "PROMOTED_TWEETS",
        "PROMOTED_ACCOUNT",
        "MEDIA",
    ]
    service = catalog.placements("PROMOTED_ACCOUNT", brand="service")
    assert service[0]["placements"] == [["ALL_ON_SERVICE"], ["SERVICE_TIMELINE"]]
    assert catalog.brand_placements(["ALL_ON_TWITTER", "PUBLISHER_NETWORK"], "service") == [
        "ALL_ON_SERVICE",
        "PUBLISHER_NETWORK",
    ]
    assert catalog.brand_placements(["SERVICE_SEARCH"], None) == ["TWITTER_SEARCH"]
    assert catalog.canonical_placement("service_replies") == "TWITTER_REPLIES"
    assert catalog.placement_sets("promoted_account") == [["ALL_ON_TWITTER"], ["TWITTER_TIMELINE"]]


@pytest.mark.parametrize(
    ("targeting_type", "value", "name"),
    [
        ("LOCATION", "96683cc9126741d1", "United States"),
        ("LANGUAGE", "EN", "English"),
        ("INTEREST", "1001", "Books and literature/Biographies and memoirs"),
        ("PLATFORM", "1", "Android"),
        ("PLATFORM_VERSION", "18", "Jelly Bean"),
        ("CONVERSATION", "a1", "Meryl Streep"),
        ("EVENT", "1ex", "Super Bowl LIX"),
        ("IAB_CATEGORY", "iab1-1", "Books & Literature"),
        ("GENDER", "2", "Female"),
        ("AGE", "AGE_18_TO_34", "AGE_18_TO_34"),
    ],
)
def test_targeting_entry_names_catalog_values(targeting_type: str, value: str, name: str) -> None:
    entry = catalog.targeting_entry(targeting_type, value)
    assert entry is not None
    assert entry["name"] == name
    assert entry["targeting_type"] == targeting_type


def test_targeting_entry_for_every_catalog_item() -> None:
    pairs = [
        ("DEVICE", catalog.devices()),
        ("NETWORK_OPERATOR", catalog.network_operators(country_code=None)),
        ("APP_STORE_CATEGORY", catalog.app_store_categories()),
        ("INTEREST", catalog.interests()),
        ("LOCATION", catalog.locations()),
    ]
    for targeting_type, items in pairs:
        for item in items:
            entry = catalog.targeting_entry(targeting_type, item["targeting_value"])
            assert entry is not None and entry["name"] == item["name"], (targeting_type, item)


def test_targeting_entry_rejects_unknown_values_and_types() -> None:
    assert catalog.targeting_entry("LOCATION", "0000000000000000") is None
    assert catalog.targeting_entry("INTEREST", "999999") is None
    assert catalog.targeting_entry("GENDER", "3") is None
    assert catalog.targeting_entry("TV_SHOW", "not-a-number") is None
    assert catalog.targeting_entry("BROAD_KEYWORD", "coffee") is None
    assert "BROAD_KEYWORD" not in catalog.CATALOG_TARGETING_TYPES
    assert "LOCATION" in catalog.CATALOG_TARGETING_TYPES


def test_targeting_entry_for_tv_show_and_location_carries_market_data() -> None:
    show = catalog.tv_shows("en-GB", q="coronation")[0]
    entry = catalog.targeting_entry("TV_SHOW", str(show["targeting_value"]))
    assert entry is not None
    assert entry["targeting_type"] == "TV_SHOW"
    assert entry["locales"] == [{"language": "en", "country": "GB"}]
    assert catalog.show_locales(show["targeting_value"]) == ["en-GB"]
    london = catalog.locations(q="London", country_code="GB", location_type="CITIES")[0]
    location = catalog.targeting_entry("LOCATION", london["targeting_value"])
    assert location is not None and location["location_type"] == "CITIES"
    assert catalog.country_of(london["targeting_value"]) == "GB"


def test_modules_share_no_values_between_sequential_catalogs() -> None:
    # Separate numbering bases keep a device value from being mistaken for an operator.
    assert not {d["targeting_value"] for d in basic.devices()} & {
        o["targeting_value"] for o in basic.network_operators(country_code=None)
    }
    assert topics.events(event_types="NOPE") == []
