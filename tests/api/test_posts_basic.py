"""Create, read, edit and delete posts through the whole pipeline."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

import httpx
import pytest
from tests.api.helpers import (
    PROBLEMS,
    create,
    create_ok,
    delete_as,
    lookup,
    new_user,
    not_found_item,
    unique_text,
    user_view,
)
from tests.support.client import Api
from tests.support.server import LiveServer


def test_create_lookup_delete_round_trip(api: Api, make_user: Any) -> None:
    user = make_user()
    headers = api.oauth1("POST", "/2/tweets", token=user["token"], secret=user["secret"])
    created = api.post("/2/tweets", auth="none", headers=headers, json={"text": "hello #roost @roost_dev"})
    assert created.status_code == 201, created.text
    post = created.json()["data"]
    assert post["text"] == "hello #roost @roost_dev"
    assert post["edit_history_tweet_ids"] == [post["id"]]

    got = api.get(
        f"/2/tweets/{post['id']}",
        params={
            "tweet.fields": "author_id,entities,public_metrics",
            "expansions": "author_id,entities.mentions.username",
        },
    )
    assert got.status_code == 200
    body = got.json()
    assert body["data"]["author_id"] == user["id"]
    assert body["data"]["entities"]["hashtags"] == [{"start": 6, "end": 12, "tag": "roost"}]
    usernames = {u["username"] for u in body["includes"]["users"]}
    assert usernames == {user["username"], "roost_dev"}

    headers = api.oauth1("DELETE", f"/2/tweets/{post['id']}", token=user["token"], secret=user["secret"])
    deleted = api.delete(f"/2/tweets/{post['id']}", auth="none", headers=headers)
    assert deleted.status_code == 200
    assert deleted.json() == {"data": {"deleted": True}}

    gone = api.get(f"/2/tweets/{post['id']}")
    assert gone.status_code == 200
    assert "data" not in gone.json()
    assert gone.json()["errors"][0]["type"].endswith("/resource-not-found")


def test_post_vocabulary_answers_in_post_names(api: Api, make_user: Any) -> None:
    user = make_user()
    created = api.post(
        "/2/tweets",
        auth="none",
        json={"text": "vocabulary check"},
        headers={"Authorization": f"Bearer {user['oauth2']}"},
    )
    assert created.status_code == 201, created.text
    post_id = created.json()["data"]["id"]
    body = api.get(f"/2/tweets/{post_id}", params={"post.fields": "public_metrics,created_at"}).json()
    assert "repost_count" in body["data"]["public_metrics"]
    assert "edit_history_post_ids" in body["data"]
    tweet_body = api.get(f"/2/tweets/{post_id}", params={"tweet.fields": "public_metrics"}).json()
    assert "retweet_count" in tweet_body["data"]["public_metrics"]
    assert "edit_history_tweet_ids" in tweet_body["data"]


# ---- edits -------------------------------------------------------------------------------------


def _epoch_ms(stamp: str) -> int:
    return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)


def _edit(api: Api, user: dict[str, Any], previous_id: str, text: str) -> httpx.Response:
    return create(api, user, text=text, edit_options={"previous_post_id": previous_id})


def test_edit_chain_up_to_five_edits(api: Api, make_user: Any) -> None:
    user = make_user(premium=True)
    original = create_ok(api, user, text=unique_text("v0"))
    versions = [original["id"]]
    for number in range(1, 6):
        response = _edit(api, user, versions[-1], unique_text(f"v{number}"))
        assert response.status_code == 201, response.text
        data = response.json()["data"]
        versions.append(data["id"])
        assert data["edit_history_tweet_ids"] == versions
    newest = lookup(api, versions[-1], **{"tweet.fields": "edit_controls,created_at"})["data"]
    assert newest["edit_controls"]["edits_remaining"] == 0
    sixth = _edit(api, user, versions[-1], unique_text("v6"))
    assert sixth.status_code == 403
    assert sixth.json() == {
        "detail": "This Tweet is not eligible for editing.",
        "type": "about:blank",
        "title": "Forbidden",
        "status": 403,
    }
    # Every version, old or new, shows the whole history; the author's counters count one post.
    for version in versions:
        assert lookup(api, version)["data"]["edit_history_tweet_ids"] == versions
    view = user_view(api, user["id"])
    assert view["public_metrics"]["tweet_count"] == 1
    assert view["most_recent_tweet_id"] == versions[-1]
    expanded = lookup(api, versions[0], expansions="edit_history_tweet_ids")
    assert [t["id"] for t in expanded["includes"]["tweets"]] == versions


def test_edit_controls_count_down_from_the_original(api: Api, make_user: Any) -> None:
    user = make_user(premium=True)
    original = create_ok(api, user)
    first = lookup(api, original["id"], **{"tweet.fields": "edit_controls,created_at"})["data"]
    assert first["edit_controls"]["edits_remaining"] == 5
    assert first["edit_controls"]["is_edit_eligible"] is True
    edited = _edit(api, user, original["id"], unique_text("edited")).json()["data"]
    second = lookup(api, edited["id"], **{"tweet.fields": "edit_controls"})["data"]["edit_controls"]
    assert second["edits_remaining"] == 4 and second["is_edit_eligible"] is True
    # The window is one hour from the first version, whichever version is shown.
    old = lookup(api, original["id"], **{"tweet.fields": "edit_controls"})["data"]["edit_controls"]
    assert old["is_edit_eligible"] is False
    assert second["editable_until"] == old["editable_until"]
    opened = _epoch_ms(first["created_at"])
    assert 0 <= _epoch_ms(second["editable_until"]) - opened - 3_600_000 < 1000
    assert _epoch_ms(first["edit_controls"]["editable_until"]) - opened == 3_600_000
    again = _edit(api, user, original["id"], unique_text("from the old version"))
    assert again.status_code == 403
    assert again.json()["detail"] == "This Tweet is not eligible for editing."


def test_timeline_shows_only_the_newest_version(api: Api, make_user: Any) -> None:
    user = make_user(premium=True)
    before = create_ok(api, user)
    original = create_ok(api, user)
    edited = _edit(api, user, original["id"], unique_text("newest")).json()["data"]
    page = api.get(f"/2/users/{user['id']}/tweets").json()
    assert [t["id"] for t in page["data"]] == [edited["id"], before["id"]]
    assert page["data"][0]["edit_history_tweet_ids"] == [original["id"], edited["id"]]


def test_edit_refusals(api: Api, make_user: Any) -> None:
    basic, premium, other = make_user(), make_user(premium=True), make_user(premium=True)
    own_basic = create_ok(api, basic)
    refused = _edit(api, basic, own_basic["id"], unique_text())
    assert refused.status_code == 403
    assert refused.json()["detail"] == "Editing a Tweet requires a premium subscription."
    theirs = create_ok(api, other)
    refused = _edit(api, premium, theirs["id"], unique_text())
    assert refused.status_code == 403
    assert refused.json()["detail"] == "You are not allowed to edit a Tweet that is not yours."
    missing = _edit(api, premium, "1", unique_text())
    assert missing.status_code == 400
    assert missing.json()["errors"] == [
        {
            "parameters": {"edit_options.previous_post_id": ["1"]},
            "message": "Could not find tweet with edit_options.previous_post_id: [1].",
        }
    ]


def test_edits_keep_quote_and_reply_counters_straight(api: Api, make_user: Any) -> None:
    other, user = make_user(), make_user(premium=True)
    quoted, parent, new_parent = create_ok(api, other), create_ok(api, other), create_ok(api, other)
    quote = create_ok(api, user, quote_tweet_id=quoted["id"])
    edited = _edit(api, user, quote["id"], unique_text("still quoting")).json()["data"]
    fields = {"tweet.fields": "referenced_tweets,public_metrics"}
    assert lookup(api, edited["id"], **fields)["data"]["referenced_tweets"] == [
        {"type": "quoted", "id": quoted["id"]}
    ]
    reply = create_ok(api, user, reply={"in_reply_to_tweet_id": parent["id"]})
    moved = create(
        api,
        user,
        text=unique_text("moved"),
        edit_options={"previous_post_id": reply["id"]},
        reply={"in_reply_to_tweet_id": new_parent["id"]},
    ).json()["data"]

    def counts(post_id: str) -> tuple[int, int]:
        metrics = lookup(api, post_id, **fields)["data"]["public_metrics"]
        return metrics["reply_count"], metrics["quote_count"]

    assert (counts(quoted["id"]), counts(parent["id"]), counts(new_parent["id"])) == ((0, 1), (0, 0), (1, 0))
    for post in (edited, moved):
        assert delete_as(api, user, post["id"]).status_code == 200
    assert (counts(quoted["id"]), counts(parent["id"]), counts(new_parent["id"])) == ((0, 0), (0, 0), (0, 0))


@pytest.fixture()
def own_server() -> Iterator[Api]:
    """A server of its own: this test moves the clock, which would skew OAuth 1.0a checks elsewhere."""
    live = LiveServer(tag="edits", rate_limits=False).start()
    client = Api(live.base_url, httpx.get(live.base_url + "/_roost/credentials", timeout=30).json())
    yield client
    client.close()
    live.stop()


def test_edit_window_closes_after_an_hour(own_server: Api) -> None:
    api = own_server
    user = new_user(api, premium=True)
    original = create_ok(api, user)
    within = _edit(api, user, original["id"], unique_text("within the hour"))
    assert within.status_code == 201
    moved = api.http.post("/_roost/clock", json={"advance_seconds": 3601})
    assert moved.status_code == 200
    late = _edit(api, user, within.json()["data"]["id"], unique_text("too late"))
    assert late.status_code == 403
    assert late.json()["detail"] == "This Tweet is not eligible for editing."


# ---- deletes -----------------------------------------------------------------------------------


def test_delete_decrements_counters(api: Api, make_user: Any) -> None:
    author, replier = make_user(), make_user()
    parent = create_ok(api, author)
    reply = create_ok(api, replier, reply={"in_reply_to_tweet_id": parent["id"]})
    earlier = create_ok(api, replier)
    quote = create_ok(api, replier, quote_tweet_id=parent["id"])
    metrics = lookup(api, parent["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]
    assert (metrics["reply_count"], metrics["quote_count"]) == (1, 1)
    assert user_view(api, replier["id"])["public_metrics"]["tweet_count"] == 3
    for post in (reply, quote):
        response = delete_as(api, replier, post["id"])
        assert response.status_code == 200
        assert response.json() == {"data": {"deleted": True}}
    metrics = lookup(api, parent["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]
    assert (metrics["reply_count"], metrics["quote_count"]) == (0, 0)
    view = user_view(api, replier["id"])
    assert view["public_metrics"]["tweet_count"] == 1
    assert view["most_recent_tweet_id"] == earlier["id"]
    assert lookup(api, quote["id"]) == {"errors": [not_found_item("tweet", "id", quote["id"])]}


def test_delete_refusals(api: Api, make_user: Any) -> None:
    owner, other = make_user(), make_user()
    post = create_ok(api, owner)
    theirs = delete_as(api, other, post["id"])
    assert theirs.status_code == 403
    assert theirs.json() == {
        "detail": "You are not allowed to delete a Tweet that is not yours.",
        "type": "about:blank",
        "title": "Forbidden",
        "status": 403,
    }
    assert lookup(api, post["id"])["data"]["id"] == post["id"]
    as_app = api.delete(f"/2/tweets/{post['id']}")
    assert as_app.status_code == 403
    assert as_app.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert delete_as(api, owner, post["id"]).status_code == 200
    for target in (post["id"], "1"):
        gone = delete_as(api, owner, target)
        assert gone.status_code == 404
        assert gone.headers["content-type"] == "application/problem+json"
        assert gone.json() == {
            "title": "Not Found Error",
            "detail": f"Could not find tweet with id: [{target}].",
            "type": "about:blank",
            "status": 404,
        }


def test_delete_removes_every_edit_version(api: Api, make_user: Any) -> None:
    user = make_user(premium=True)
    original = create_ok(api, user)
    edited = _edit(api, user, original["id"], unique_text("edited")).json()["data"]
    assert delete_as(api, user, edited["id"]).status_code == 200
    body = api.get("/2/tweets", params={"ids": f"{original['id']},{edited['id']}"}).json()
    assert body == {
        "errors": [
            not_found_item("tweet", "ids", original["id"]),
            not_found_item("tweet", "ids", edited["id"]),
        ]
    }
    assert user_view(api, user["id"])["public_metrics"]["tweet_count"] == 0
