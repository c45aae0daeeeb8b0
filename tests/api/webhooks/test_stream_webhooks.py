"""Filtered-stream webhooks: `/2/tweets/search/webhooks*` link, list and unlink the app's filtered stream
and its webhooks; a real loopback receiver gets a signed delivery (a stream line's body) for each new or
edited post matching the app's rules, rendered with the link's fields and expansions."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS, create_ok, new_user, unique_text
from tests.api.webhooks.helpers import make_hook, path_of, wait_for
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

LINKS = "/2/tweets/search/webhooks"
RULES = "/2/tweets/search/stream/rules"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="stream_webhooks", rate_limits=False, extra={"webhook_limit": "20"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    api.post(RULES, params={"delete_all": "true"}, json={}, conform=False)
    for link in api.get(LINKS, conform=False).json().get("data", []):
        api.delete(f"{LINKS}/{link['webhook_id']}")
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")


def add_rules(api: Api, *rules: dict[str, str]) -> list[dict[str, Any]]:
    response = api.post(RULES, json={"add": list(rules)}, conform=False)
    assert response.status_code == 201, response.text
    created: list[dict[str, Any]] = response.json()["data"]
    return created


def link(api: Api, webhook_id: str, **params: str) -> httpx.Response:
    return api.post(f"{LINKS}/{webhook_id}", params=params)


def link_ok(api: Api, webhook_id: str, **params: str) -> None:
    response = link(api, webhook_id, **params)
    assert response.status_code == 200, response.text
    assert response.json() == {"data": {"provisioned": True}}
    assert_conforms("POST", f"{LINKS}/{webhook_id}", 200, response.json(), "post")


def listed(api: Api) -> list[dict[str, Any]]:
    # 2.167's shape; the automatic check of tweet-vocabulary requests uses 2.159 (`data.links`).
    response = api.get(LINKS, conform=False)
    assert response.status_code == 200, response.text
    assert_conforms("GET", LINKS, 200, response.json(), "post")
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def reason_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request"
    message: str = body["errors"][0]["message"]
    return message.split(":", 1)[0]


def bodies(receiver: Receiver, hook: dict[str, Any]) -> list[dict[str, Any]]:
    return [json.loads(post["raw"]) for post in receiver.received(path_of(hook))]


def delivery_rows(api: Api, hook: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = api.http.get("/_roost/deliveries", params={"webhook_id": hook["id"]}).json()[
        "data"
    ]
    return rows


def posts_in(rows: list[dict[str, Any]]) -> list[str]:
    return [row["payload"]["data"]["id"] for row in rows]


# ---- link, list, unlink -------------------------------------------------------------------------


def test_link_list_unlink(api: Api, receiver: Receiver, credentials: dict[str, Any]) -> None:
    assert listed(api) == []
    plain, fielded = make_hook(api, receiver), make_hook(api, receiver)
    link_ok(api, plain["id"])
    link_ok(api, fielded["id"], **{"tweet.fields": "created_at,lang", "expansions": "author_id"})
    links = {item["webhook_id"]: item for item in listed(api)}
    assert set(links) == {plain["id"], fielded["id"]}
    item = links[fielded["id"]]
    assert item["fields"] == ["tweet.fields=created_at,lang", "expansions=author_id"]
    assert links[plain["id"]]["fields"] == []
    assert item["application_id"] == item["instance_id"] and item["application_id"].isdigit()
    assert item["business_user_id"] == credentials["user_id"]  # the demo app's owner
    assert item["created_at"].endswith("Z")

    deleted = api.delete(f"{LINKS}/{plain['id']}")
    assert deleted.status_code == 200 and deleted.json() == {"data": {"deleted": True}}
    assert [item["webhook_id"] for item in listed(api)] == [fielded["id"]]
    # Deleting the webhook takes its link with it.
    assert api.delete(f"/2/webhooks/{fielded['id']}").status_code == 200
    assert listed(api) == []


def test_refusals(api: Api, receiver: Receiver) -> None:
    hook = make_hook(api, receiver)
    assert reason_of(link(api, "12345")) == "WebhookIdInvalid"  # no such webhook
    assert reason_of(api.delete(f"{LINKS}/12345")) == "WebhookIdInvalid"
    assert reason_of(api.delete(f"{LINKS}/{hook['id']}")) == "LinkNotFound"
    link_ok(api, hook["id"])
    assert reason_of(link(api, hook["id"])) == "DuplicateLinkFailed"

    malformed = api.post(f"{LINKS}/abc")
    assert malformed.status_code == 400
    assert malformed.json()["errors"][0]["parameters"] == {"webhook_id": ["abc"]}
    bad_fields = link(api, hook["id"], **{"tweet.fields": "nope"})
    assert bad_fields.status_code == 400
    assert bad_fields.json()["errors"][0]["parameters"] == {"tweet.fields": ["nope"]}
    unknown = link(api, hook["id"], since_id="1")
    assert unknown.status_code == 400


def test_webhook_of_another_app(api: Api, server: LiveServer) -> None:
    other = api.http.post("/_roost/apps", json={"name": "other link app"}).json()
    headers = {"Authorization": f"Bearer {other['bearer_token']}"}
    theirs = Receiver(other["consumer_secret"])
    try:
        created = api.post(
            "/2/webhooks", auth="none", headers=headers, json={"url": theirs.url()}, conform=False
        )
        assert created.status_code == 200, created.text
        hook_id = created.json()["data"]["id"]
        assert reason_of(link(api, hook_id)) == "WebhookIdInvalid"
        # Their own link works, and is not listed for this app.
        assert api.post(f"{LINKS}/{hook_id}", auth="none", headers=headers).status_code == 200
        assert listed(api) == []
        assert reason_of(api.delete(f"{LINKS}/{hook_id}")) == "WebhookIdInvalid"
        assert api.delete(f"{LINKS}/{hook_id}", auth="none", headers=headers).status_code == 200
        api.delete(f"/2/webhooks/{hook_id}", auth="none", headers=headers)
    finally:
        theirs.close()


@pytest.mark.parametrize("auth", ["oauth2", "oauth1"])
def test_bearer_only(api: Api, auth: str) -> None:
    for method, path in (("GET", LINKS), ("POST", f"{LINKS}/1"), ("DELETE", f"{LINKS}/1")):
        response = api.request(method, path, auth=auth)
        assert response.status_code == 403, response.text
        assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(LINKS, auth="none").status_code == 401


# ---- delivery -----------------------------------------------------------------------------------


def test_matching_post_is_delivered_signed(api: Api, receiver: Receiver, credentials: dict[str, Any]) -> None:
    author = new_user(api)
    word = unique_text("sw").split()[1]
    rules = add_rules(api, {"value": word, "tag": "by word"}, {"value": f"{word} OR zzunused"})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"])
    app_id = listed(api)[0]["application_id"]
    create_ok(api, author, text=f"nothing to see {unique_text()}")  # matches no rule
    post = create_ok(api, author, text=f"hello {word}")

    got = wait_for(lambda: receiver.received(path_of(hook)))
    assert len(got) == 1
    raw = got[0]
    digest = hmac.new(credentials["consumer_secret"].encode(), raw["raw"], hashlib.sha256).digest()
    assert raw["headers"]["x-twitter-webhooks-signature"] == "sha256=" + base64.b64encode(digest).decode()
    assert raw["headers"]["x-roost-event-id"].isdigit()
    body = json.loads(raw["raw"])
    # Exactly a stream line's body: the default fields, every matching rule (tag only when set).
    assert body == {
        "data": {"id": post["id"], "text": f"hello {word}", "edit_history_tweet_ids": [post["id"]]},
        "matching_rules": [{"id": rules[0]["id"], "tag": "by word"}, {"id": rules[1]["id"]}],
    }
    # The non-matching post, earlier in the log, made no delivery row.
    rows = delivery_rows(api, hook)
    assert posts_in(rows) == [post["id"]]
    assert rows[0]["route"] == f"stream:{app_id}"


def test_edit_is_delivered_as_a_new_version(api: Api, receiver: Receiver) -> None:
    author = new_user(api, premium=True)
    word = unique_text("se").split()[1]
    add_rules(api, {"value": word})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"])
    original = create_ok(api, author, text=f"first version {word}")
    edited = create_ok(
        api, author, text=f"second version {word}", edit_options={"previous_post_id": original["id"]}
    )
    got = wait_for(lambda: len(bodies(receiver, hook)) >= 2 and bodies(receiver, hook))
    by_id = {body["data"]["id"]: body["data"] for body in got}
    assert set(by_id) == {original["id"], edited["id"]}
    assert by_id[edited["id"]]["edit_history_tweet_ids"] == [original["id"], edited["id"]]
    assert by_id[edited["id"]]["text"] == f"second version {word}"


def test_each_link_renders_its_own_fields(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    word = unique_text("sf").split()[1]
    add_rules(api, {"value": word})
    plain, fielded = make_hook(api, receiver), make_hook(api, receiver)
    link_ok(api, plain["id"])
    params = {
        "tweet.fields": "author_id,created_at,lang",
        "expansions": "author_id",
        "user.fields": "username,created_at",
    }
    link_ok(api, fielded["id"], **params)
    post = create_ok(api, author, text=f"fields {word}")

    rich = wait_for(lambda: bodies(receiver, fielded))
    assert len(rich) == 1
    data = rich[0]["data"]
    assert data["id"] == post["id"] and data["author_id"] == author["id"]
    assert {"created_at", "lang"} <= set(data)
    user = rich[0]["includes"]["users"][0]
    assert user["id"] == author["id"] and user["username"] == author["username"] and "created_at" in user
    bare = wait_for(lambda: bodies(receiver, plain))
    assert set(bare[0]["data"]) == {"id", "text", "edit_history_tweet_ids"} and "includes" not in bare[0]


def test_post_vocabulary_link(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    word = unique_text("sv").split()[1]
    add_rules(api, {"value": word})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"], **{"post.fields": "created_at"})
    assert listed(api)[0]["fields"] == ["post.fields=created_at"]
    post = create_ok(api, author, text=f"vocab {word}")
    got = wait_for(lambda: bodies(receiver, hook))
    assert got[0]["data"]["id"] == post["id"] and "created_at" in got[0]["data"]
    assert got[0]["data"]["edit_history_post_ids"] == [post["id"]]


def test_nothing_after_unlinking_or_without_a_match(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    word = unique_text("su").split()[1]
    add_rules(api, {"value": word})
    kept, dropped = make_hook(api, receiver), make_hook(api, receiver)
    link_ok(api, kept["id"])
    link_ok(api, dropped["id"])
    assert api.delete(f"{LINKS}/{dropped['id']}").status_code == 200
    create_ok(api, author, text=f"unrelated {unique_text()}")
    post = create_ok(api, author, text=f"after unlink {word}")
    # Rows are recorded per event for every webhook at once: once the kept link has its row, the
    # unlinked one would have had its own.
    assert wait_for(lambda: posts_in(delivery_rows(api, kept))) == [post["id"]]
    assert delivery_rows(api, dropped) == []
    assert receiver.received(path_of(dropped)) == []


def test_rule_changes_apply_to_later_posts(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    first, second = unique_text("r1").split()[1], unique_text("r2").split()[1]
    add_rules(api, {"value": first})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"])
    one = create_ok(api, author, text=f"one {first}")
    assert wait_for(lambda: posts_in(delivery_rows(api, hook))) == [one["id"]]
    add_rules(api, {"value": second, "tag": "later"})
    two = create_ok(api, author, text=f"two {second}")
    got = wait_for(lambda: len(delivery_rows(api, hook)) >= 2 and delivery_rows(api, hook))
    assert sorted(posts_in(got)) == sorted([one["id"], two["id"]])
    later = next(row["payload"] for row in got if row["payload"]["data"]["id"] == two["id"])
    assert [rule.get("tag") for rule in later["matching_rules"]] == ["later"]


def test_protected_author_is_not_delivered(api: Api, receiver: Receiver) -> None:
    hidden, public = new_user(api, protected=True), new_user(api)
    word = unique_text("sp").split()[1]
    add_rules(api, {"value": word})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"])
    create_ok(api, hidden, text=f"secret {word}")
    post = create_ok(api, public, text=f"open {word}")
    assert wait_for(lambda: posts_in(delivery_rows(api, hook))) == [post["id"]]


def test_stream_deliveries_are_replayed(api: Api, receiver: Receiver) -> None:
    author = new_user(api)
    word = unique_text("sr").split()[1]
    add_rules(api, {"value": word})
    hook = make_hook(api, receiver)
    link_ok(api, hook["id"])
    create_ok(api, author, text=f"replay me {word}")
    first = wait_for(lambda: receiver.received(path_of(hook)))
    assert len(first) == 1
    raw = api.http.get("/_roost/clock").json()["now"]  # the roost clock, e.g. 2026-11-22T09:30:00.000Z
    now = datetime.strptime(raw, "%Y-%m-%dT%H:%M:%S.%fZ")
    window = {"from_date": f"{now - timedelta(minutes=5):%Y%m%d%H%M}", "to_date": f"{now:%Y%m%d%H%M}"}
    job = api.post("/2/webhooks/replay", json={"webhook_id": hook["id"], **window}, conform=False)
    assert job.status_code == 200, job.text
    # The copy keeps the event id and the exact body (so the same signature), then the job's status.
    got = wait_for(lambda: len(receiver.received(path_of(hook))) >= 3 and receiver.received(path_of(hook)))
    posts = [post for post in got if b"replay_job_status" not in post["raw"]]
    assert len(posts) == 2
    assert posts[0]["raw"] == posts[1]["raw"]
    assert posts[0]["headers"]["x-roost-event-id"] == posts[1]["headers"]["x-roost-event-id"]
