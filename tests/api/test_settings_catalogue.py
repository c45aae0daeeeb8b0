"""`/_roost/settings`: GET lists every feature setting roost knows (value, default, stored text,
meaning); POST changes known ones and refuses an unknown key, changing nothing."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.client import Api

from roost.control.settings_catalogue import KNOWN_KEYS

# Read only at start: changing it at run time affects nothing else the session's tests do.
HARMLESS = "media_processing_secs"


def listing(api: Api) -> dict[str, dict[str, Any]]:
    response = api.http.get("/_roost/settings")
    assert response.status_code == 200, response.text
    rows: list[dict[str, Any]] = response.json()["settings"]
    return {row["key"]: row for row in rows}


@pytest.fixture()
def restored(api: Api) -> Iterator[None]:
    yield
    api.http.post("/_roost/settings", json={HARMLESS: None, "strict_webhook_urls": None})


def test_every_known_setting_is_listed_by_key(api: Api) -> None:
    rows = api.http.get("/_roost/settings").json()["settings"]
    assert [row["key"] for row in rows] == list(KNOWN_KEYS)
    for row in rows:
        assert set(row) == {"key", "value", "default", "stored", "meaning"}, row
        assert isinstance(row["meaning"], str) and row["meaning"], row
    unset = listing(api)[HARMLESS]
    assert (unset["value"], unset["default"], unset["stored"]) == (3.0, 3.0, None)


def test_a_set_value_is_shown_as_the_server_reads_it(api: Api, restored: None) -> None:
    posted = api.http.post("/_roost/settings", json={HARMLESS: "7.5", "strict_webhook_urls": True})
    assert posted.status_code == 200, posted.text
    assert posted.json()[HARMLESS] == "7.5" and posted.json()["strict_webhook_urls"] == "1"
    rows = listing(api)
    assert (rows[HARMLESS]["value"], rows[HARMLESS]["default"], rows[HARMLESS]["stored"]) == (7.5, 3.0, "7.5")
    assert (rows["strict_webhook_urls"]["value"], rows["strict_webhook_urls"]["default"]) == (True, False)


def test_an_unknown_key_is_refused_and_nothing_changes(api: Api, restored: None) -> None:
    before = listing(api)
    refused = api.http.post("/_roost/settings", json={HARMLESS: "9", "webhook_limt": 5, "nope": True})
    assert refused.status_code == 400, refused.text
    message = refused.json()["errors"][0]["message"]
    assert "webhook_limt" in message and "nope" in message
    assert all(key in message for key in KNOWN_KEYS)
    assert listing(api) == before
    assert listing(api)[HARMLESS]["stored"] is None


def test_null_removes_a_setting(api: Api, restored: None) -> None:
    api.http.post("/_roost/settings", json={HARMLESS: 4})
    assert listing(api)[HARMLESS]["stored"] == "4"
    cleared = api.http.post("/_roost/settings", json={HARMLESS: None})
    assert cleared.status_code == 200 and HARMLESS not in cleared.json()
    row = listing(api)[HARMLESS]
    assert (row["value"], row["stored"]) == (row["default"], None)
