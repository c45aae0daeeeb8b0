"""Whole-state snapshots: `GET /_roost/snapshot` → reset → `POST /_roost/snapshot` → the same document,
and the restored state working through the API; refusals that change nothing; the CLI against a live
server. A server of this module's own (a restore replaces everything the session's server holds)."""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from click.testing import CliRunner
from tests.api.ads.helpers import demo_ads_client
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

from roost.cli import main


@pytest.fixture(scope="module")
def live() -> Iterator[LiveServer]:
    server = LiveServer(tag="snapshot", rate_limits=False).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def http(live: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live.base_url, timeout=60) as client:
        yield client


def _snapshot(http: httpx.Client) -> bytes:
    response = http.get("/_roost/snapshot")
    assert response.status_code == 200, response.text
    return response.content


def _user(http: httpx.Client, creds: dict[str, Any], name: str) -> dict[str, Any]:
    created = http.post("/_roost/users", json={"username": name}).json()
    oauth2 = http.post(
        "/_roost/tokens",
        json={"consumer_key": creds["consumer_key"], "user_id": created["id"], "kind": "oauth2"},
    ).json()
    return {**created, "bearer": {"Authorization": f"Bearer {oauth2['access_token']}"}}


def _instant(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _ok(response: httpx.Response) -> Any:
    assert response.status_code in (200, 201), (response.request.url, response.text)
    return response.json()


def _state_in_every_area(live: LiveServer, http: httpx.Client) -> dict[str, Any]:
    creds = http.get("/_roost/credentials").json()
    alice, bob = _user(http, creds, "snap_alice"), _user(http, creds, "snap_bob")
    a, b = alice["bearer"], bob["bearer"]
    post = _ok(http.post("/2/tweets", headers=b, json={"text": "snapshots keep #everything"}))["data"]
    _ok(http.post(f"/2/users/{alice['id']}/likes", headers=a, json={"tweet_id": post["id"]}))
    _ok(http.post("/_roost/follows", json={"follower_id": alice["id"], "followee_id": bob["id"]}))
    _ok(http.post("/_roost/blocks", json={"source_user_id": bob["id"], "target_user_id": creds["user_id"]}))
    _ok(http.post(f"/2/users/{alice['id']}/muting", headers=a, json={"target_user_id": creds["user_id"]}))
    _ok(http.post(f"/2/users/{alice['id']}/bookmarks", headers=a, json={"tweet_id": post["id"]}))
    listed = _ok(http.post("/2/lists", headers=a, json={"name": "kept"}))["data"]
    _ok(http.post(f"/2/lists/{listed['id']}/members", headers=a, json={"user_id": bob["id"]}))
    _ok(http.post(f"/2/dm_conversations/with/{bob['id']}/messages", headers=a, json={"text": "hello"}))
    bearer = {"Authorization": f"Bearer {creds['bearer_token']}"}
    _ok(http.post("/2/tweets/search/stream/rules", headers=bearer, json={"add": [{"value": "kept"}]}))
    receiver = Receiver(creds["consumer_secret"])
    try:
        hook = _ok(http.post("/2/webhooks", headers=bearer, json={"url": receiver.url()}))["data"]
        path = f"/2/account_activity/webhooks/{hook['id']}/subscriptions/all"
        _ok(http.post(path, headers=a, json={}))
    finally:
        receiver.close()
    ads = demo_ads_client(live.base_url, creds, sandbox=True)
    try:
        account = ads.get("/accounts").json()["data"][0]
        instrument = ads.get(f"/accounts/{account['id']}/funding_instruments").json()["data"][0]
        campaign = ads.post(
            f"/accounts/{account['id']}/campaigns",
            {
                "funding_instrument_id": instrument["id"],
                "name": "kept campaign",
                "daily_budget_amount_local_micro": 50_000_000,
            },
        )
        assert campaign.status_code == 200, campaign.text
    finally:
        ads.close()
    _ok(http.post("/_roost/clock", json={"advance_seconds": 7200}))
    return {"alice": alice, "bob": bob, "list": listed, "post": post, "campaign": campaign.json()["data"]}


def test_snapshot_reset_restore_gives_the_same_document_and_a_working_state(
    live: LiveServer, http: httpx.Client
) -> None:
    made = _state_in_every_area(live, http)
    saved = _snapshot(http)
    document = orjson.loads(saved)
    tables = document["tables"]
    for name in ("likes", "follows", "blocks", "mutes", "bookmarks", "lists", "list_members", "dm_events"):
        assert tables[name]["rows"], name
    for name in ("webhooks", "aaa_subscriptions", "stream_rules", "oauth2_tokens", "ads_entities", "events"):
        assert tables[name]["rows"], name
    assert "work_leases" not in tables and "rate_windows" not in tables
    clock_before = http.get("/_roost/clock").json()["now"]

    assert http.post("/_roost/reset").status_code == 200
    assert _snapshot(http) != saved
    restored = http.post("/_roost/snapshot", content=saved)
    assert restored.status_code == 200, restored.text
    assert restored.json()["rows"]["posts"] == len(tables["posts"]["rows"])
    assert _snapshot(http) == saved

    # The restored state works: the token authenticates, the list has its member, the clock is back.
    alice = made["alice"]
    me = http.get("/2/users/me", headers=alice["bearer"])
    assert me.status_code == 200 and me.json()["data"]["id"] == alice["id"]
    members = http.get(f"/2/lists/{made['list']['id']}/members", headers=alice["bearer"]).json()
    assert [m["id"] for m in members["data"]] == [made["bob"]["id"]]
    liking = http.get(f"/2/tweets/{made['post']['id']}/liking_users", headers=alice["bearer"]).json()
    assert [u["id"] for u in liking["data"]] == [alice["id"]]
    # The clock is back where it was (two hours ahead of real time), give or take the test's own time.
    clock_after = http.get("/_roost/clock").json()["now"]
    assert timedelta(0) <= _instant(clock_after) - _instant(clock_before) < timedelta(minutes=10)
    # The search index holds the restored posts, each once (the reset emptied it).
    app = {"Authorization": f"Bearer {http.get('/_roost/credentials').json()['bearer_token']}"}
    found = _ok(http.get("/2/tweets/search/recent", headers=app, params={"query": "#everything"}))
    assert [p["id"] for p in found["data"]] == [made["post"]["id"]]
    # New ids go past the restored ones.
    fresh = _ok(http.post("/2/tweets", headers=alice["bearer"], json={"text": "after the restore"}))
    assert int(fresh["data"]["id"]) > max(row[0] for row in tables["posts"]["rows"])


def test_an_indented_document_restores_too(http: httpx.Client) -> None:
    saved = _snapshot(http)
    indented = orjson.dumps(orjson.loads(saved), option=orjson.OPT_INDENT_2)
    assert http.post("/_roost/snapshot", content=indented).status_code == 200
    assert _snapshot(http) == saved


def _variants(saved: bytes) -> dict[str, bytes]:
    lines = saved.split(b"\n")
    document = orjson.loads(saved)
    other_schema = {**document, "schema": "0001"}
    other_version = {**document, "roost_snapshot": 2}
    posts = document["tables"]["posts"]
    bad_value = {**document, "tables": {**document["tables"], "posts": {**posts, "rows": [["x"] * 40]}}}
    duplicate = {
        **document,
        "tables": {**document["tables"], "posts": {**posts, "rows": posts["rows"][:1] * 2}},
    }
    leases = {**document, "tables": {**document["tables"], "work_leases": {"columns": [], "rows": []}}}
    missing = {**document, "tables": {k: v for k, v in document["tables"].items() if k != "users"}}
    segments = document["tables"]["media_segments"]
    bad_bytes = {
        **document,
        "tables": {
            **document["tables"],
            "media_segments": {**segments, "rows": [[1, 0, 3, "not base64!"]]},
        },
    }
    return {
        "not json": b"{nope",
        "an array": b"[]",
        "truncated": b"\n".join(lines[: len(lines) // 2]),
        "another schema": orjson.dumps(other_schema),
        "another version": orjson.dumps(other_version),
        "a bad value": orjson.dumps(bad_value),
        "a duplicate key": orjson.dumps(duplicate),
        "an operational table": orjson.dumps(leases),
        "a missing table": orjson.dumps(missing),
        "bad base64": orjson.dumps(bad_bytes),
        "a stray line": saved.replace(b'"rows":[\n', b'"rows":[\nnonsense\n', 1),
    }


@pytest.mark.parametrize(
    "case",
    [
        "not json",
        "an array",
        "truncated",
        "another schema",
        "another version",
        "a bad value",
        "a duplicate key",
        "an operational table",
        "a missing table",
        "bad base64",
        "a stray line",
    ],
)
def test_a_malformed_document_is_refused_and_nothing_changes(http: httpx.Client, case: str) -> None:
    saved = _settled(http)  # the clock stays frozen for the rest of the module: nothing needs it running
    refused = http.post("/_roost/snapshot", content=_variants(saved)[case])
    assert refused.status_code == 400, refused.text
    assert "snapshot" in refused.text
    assert _without_dispatch(_snapshot(http)) == _without_dispatch(saved)


# What the dispatcher changes on its own while a test looks: a restore, refused or not, stops it and
# starts it again, which gives its in-flight claims back and may take a while to hold the delivery lease
# again, then collect the events it missed; so the deliveries and their cursor may move meanwhile.


def _without_dispatch(document: bytes) -> Any:
    parsed = orjson.loads(document)
    del parsed["tables"]["deliveries"]
    kept = parsed["tables"]["roost_settings"]
    key = kept["columns"].index("key")
    kept["rows"] = [row for row in kept["rows"] if row[key] != "delivery_cursor"]
    return parsed


def _settled(http: httpx.Client) -> bytes:
    """A snapshot once the background work has quietened: the clock frozen, so that deliveries to the
    webhook whose receiver is gone are not retried, and two looks in a row the same but for it."""
    assert http.post("/_roost/clock", json={"freeze": True}).status_code == 200
    previous = _snapshot(http)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        time.sleep(0.2)  # between two looks
        current = _snapshot(http)
        if _without_dispatch(current) == _without_dispatch(previous):
            return current
        previous = current
    raise AssertionError("the state kept changing with the clock frozen")


def test_bytes_round_trip_as_base64(http: httpx.Client) -> None:
    saved = orjson.loads(_snapshot(http))
    raw = bytes(range(256))
    segments = saved["tables"]["media_segments"]
    assert segments["columns"] == ["media_id", "segment_index", "size", "data"]
    segments["rows"] = [[42, 0, len(raw), base64.b64encode(raw).decode()]]
    assert http.post("/_roost/snapshot", content=orjson.dumps(saved)).status_code == 200
    again = orjson.loads(_snapshot(http))["tables"]["media_segments"]["rows"]
    assert base64.b64decode(again[0][3]) == raw


def test_the_cli_saves_and_loads(live: LiveServer, http: httpx.Client, tmp_path: Path) -> None:
    file = tmp_path / "state.json"
    runner = CliRunner()
    saved = runner.invoke(main, ["snapshot", "save", str(file), "--target", live.base_url])
    assert saved.exit_code == 0, saved.output
    assert file.read_bytes() == _snapshot(http)
    http.post("/_roost/reset")
    loaded = runner.invoke(main, ["snapshot", "load", str(file), "--target", live.base_url])
    assert loaded.exit_code == 0, loaded.output
    assert "restored" in loaded.output
    assert _snapshot(http) == file.read_bytes()
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"roost_snapshot": 99}')
    refused = runner.invoke(main, ["snapshot", "load", str(broken), "--target", live.base_url])
    assert refused.exit_code == 1 and "400" in refused.output
