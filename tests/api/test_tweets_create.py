"""POST /2/tweets: replies, quotes, media, polls, communities, length rules, entities, counters, auth."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

import pytest
from tests.api.helpers import (
    PROBLEMS,
    bearer,
    create,
    create_ok,
    delete_as,
    import_media,
    invalid_request,
    lookup,
    unique_text,
    user_view,
)
from tests.support.client import Api

TOO_LONG = {
    "detail": "Your Tweet text is too long. For more information on how X determines text length see "
    "https://github.com/twitter/twitter-text.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}
TCO = re.compile(r"^https://t\.co/[A-Za-z0-9]{10}$")


def test_created_body_is_id_text_and_history(api: Api, make_user: Any) -> None:
    user = make_user()
    text = unique_text("hello")
    response = create(api, user, text=text)
    assert response.status_code == 201
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body == {
        "data": {"id": body["data"]["id"], "text": text, "edit_history_tweet_ids": [body["data"]["id"]]}
    }
    assert lookup(api, body["data"]["id"], **{"tweet.fields": "author_id"})["data"]["author_id"] == user["id"]


def test_create_with_oauth1_user_context(api: Api, make_user: Any) -> None:
    user = make_user()
    headers = api.oauth1("POST", "/2/tweets", token=user["token"], secret=user["secret"])
    response = api.post("/2/tweets", auth="none", headers=headers, json={"text": unique_text("oauth1")})
    assert response.status_code == 201, response.text
    data = lookup(api, response.json()["data"]["id"], **{"tweet.fields": "author_id"})["data"]
    assert data["author_id"] == user["id"]


def test_reply_threads_and_counts(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    root = create_ok(api, alice)
    reply = create_ok(api, bob, reply={"in_reply_to_tweet_id": root["id"]})
    nested = create_ok(api, alice, reply={"in_reply_to_tweet_id": reply["id"]})
    fields = {"tweet.fields": "conversation_id,in_reply_to_user_id,referenced_tweets,public_metrics"}
    first = lookup(api, reply["id"], **fields)["data"]
    assert first["conversation_id"] == root["id"]
    assert first["in_reply_to_user_id"] == alice["id"]
    assert first["referenced_tweets"] == [{"type": "replied_to", "id": root["id"]}]
    second = lookup(api, nested["id"], **fields)["data"]
    assert second["conversation_id"] == root["id"]
    assert second["in_reply_to_user_id"] == bob["id"]
    assert lookup(api, root["id"], **fields)["data"]["public_metrics"]["reply_count"] == 1
    assert lookup(api, reply["id"], **fields)["data"]["public_metrics"]["reply_count"] == 1
    assert "in_reply_to_user_id" not in lookup(api, root["id"], **fields)["data"]


def test_reply_to_missing_post_is_refused(api: Api, make_user: Any) -> None:
    response = create(api, make_user(), reply={"in_reply_to_tweet_id": "1"})
    assert response.status_code == 403
    assert (
        response.json()["detail"]
        == "You attempted to reply to a Tweet that is deleted or not visible to you."
    )


def test_quote_counts(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    target = create_ok(api, alice)
    quote = create_ok(api, bob, quote_tweet_id=target["id"])
    data = lookup(api, quote["id"], **{"tweet.fields": "referenced_tweets,conversation_id"})["data"]
    assert data["referenced_tweets"] == [{"type": "quoted", "id": target["id"]}]
    assert data["conversation_id"] == quote["id"]
    metrics = lookup(api, target["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]
    assert metrics["quote_count"] == 1 and metrics["reply_count"] == 0


def test_attach_unowned_media(api: Api, make_user: Any) -> None:
    user = make_user()
    first, second = import_media(api, "photo"), import_media(api, "animated_gif")
    post = create_ok(api, user, media={"media_ids": [first["id"], second["id"]]})
    body = lookup(api, post["id"], expansions="attachments.media_keys", **{"tweet.fields": "attachments"})
    assert body["data"]["attachments"] == {"media_keys": [first["media_key"], second["media_key"]]}
    assert [m["type"] for m in body["includes"]["media"]] == ["photo", "animated_gif"]
    assert user_view(api, user["id"])["public_metrics"]["media_count"] == 2


def test_media_only_post_without_text(api: Api, make_user: Any) -> None:
    media = import_media(api)
    response = api.post(
        "/2/tweets", auth="none", headers=bearer(make_user()), json={"media": {"media_ids": [media["id"]]}}
    )
    assert response.status_code == 201, response.text
    assert response.json()["data"]["text"] == ""


def test_someone_elses_media_is_refused(api: Api, make_user: Any, credentials: dict[str, Any]) -> None:
    page = api.get(
        f"/2/users/{credentials['user_id']}/tweets",
        params={"max_results": 100, "tweet.fields": "attachments"},
    ).json()
    keys = [
        t["attachments"]["media_keys"][0] for t in page["data"] if "media_keys" in t.get("attachments", {})
    ]
    assert keys, "the demo user has posts with their own media"
    media_id = keys[0].split("_", 1)[1]
    response = create(api, make_user(), media={"media_ids": [media_id]})
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {"parameters": {"media.media_ids": [f'["{media_id}"]']}, "message": "Your media IDs are invalid."}
    )


def test_poll_in_includes(api: Api, make_user: Any) -> None:
    post = create_ok(api, make_user(), poll={"options": ["a", "b", "c", "d"], "duration_minutes": 1440})
    body = lookup(
        api,
        post["id"],
        expansions="attachments.poll_ids",
        **{"poll.fields": "duration_minutes,end_datetime", "tweet.fields": "created_at"},
    )
    poll = body["includes"]["polls"][0]
    assert [o["label"] for o in poll["options"]] == ["a", "b", "c", "d"]
    assert poll["duration_minutes"] == 1440
    created, ends = (
        datetime.fromisoformat(body["data"]["created_at"]),
        datetime.fromisoformat(poll["end_datetime"]),
    )
    assert ends - created == timedelta(minutes=1440)


@pytest.mark.parametrize(
    "poll", [{"options": ["only"], "duration_minutes": 60}, {"options": ["a", "b"], "duration_minutes": 4}]
)
def test_invalid_polls(api: Api, make_user: Any, poll: dict[str, Any]) -> None:
    response = create(api, make_user(), poll=poll)
    assert response.status_code == 400
    assert response.json()["type"] == PROBLEMS + "invalid-request"


def test_poll_and_media_together_are_refused(api: Api, make_user: Any) -> None:
    media = import_media(api)
    response = create(
        api,
        make_user(),
        media={"media_ids": [media["id"]]},
        poll={"options": ["a", "b"], "duration_minutes": 60},
    )
    assert response.status_code == 400
    assert (
        response.json()["errors"][0]["message"] == "You can only attach one of poll, media, quote_tweet_id."
    )


EXTRA = "is not defined in the schema and the schema does not allow additional properties"
POLL = {"options": ["a", "b"], "duration_minutes": 60}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"poll": {**POLL, "foo": 1}}, f"$.poll.foo: {EXTRA}"),
        ({"media": {"media_ids": ["1"], "foo": 1}}, f"$.media.foo: {EXTRA}"),
        ({"reply": {"in_reply_to_tweet_id": "1", "foo": 1}}, f"$.reply.foo: {EXTRA}"),
        ({"geo": {"place_id": "abc", "foo": 1}}, f"$.geo.foo: {EXTRA}"),
        ({"edit_options": {"previous_post_id": "1", "foo": 1}}, f"$.edit_options.foo: {EXTRA}"),
        (
            {
                "media": {
                    "media_ids": ["1"],
                    "call_to_actions": {"visit_site": {"url": "https://a.b", "x": 1}},
                }
            },
            f"$.media.call_to_actions.visit_site.x: {EXTRA}",
        ),
        ({"media": {}}, "$.media.media_ids: is missing but it is required"),
        ({"media": {"media_ids": []}}, "$.media.media_ids: must contain at least 1 items"),
        ({"media": {"media_ids": "1"}}, "$.media.media_ids: string found, array expected"),
        (
            {"media": {"media_ids": ["1"], "tagged_user_ids": [str(n) for n in range(1, 12)]}},
            "$.media.tagged_user_ids: must contain at most 10 items",
        ),
        (
            {"media": {"media_ids": ["1"], "embeddable": "yes"}},
            "$.media.embeddable: string found, boolean expected",
        ),
        ({"poll": {"options": ["a", "b"]}}, "$.poll.duration_minutes: is missing but it is required"),
        ({"poll": {"duration_minutes": 60}}, "$.poll.options: is missing but it is required"),
        (
            {"poll": {**POLL, "duration_minutes": "60"}},
            "$.poll.duration_minutes: string found, integer expected",
        ),
        (
            {"poll": {**POLL, "duration_minutes": 60.0}},
            "$.poll.duration_minutes: number found, integer expected",
        ),
        (
            {"poll": {**POLL, "duration_minutes": None}},
            "$.poll.duration_minutes: null found, integer expected",
        ),
        ({"poll": {**POLL, "options": "a,b"}}, "$.poll.options: string found, array expected"),
        ({"poll": {**POLL, "options": [1, "b"]}}, "$.poll.options[0]: integer found, string expected"),
        ({"reply": {}}, "$.reply.in_reply_to_tweet_id: is missing but it is required"),
        (
            {"reply": {"in_reply_to_tweet_id": "1", "auto_populate_reply_metadata": "yes"}},
            "$.reply.auto_populate_reply_metadata: string found, boolean expected",
        ),
        (
            {"reply": {"in_reply_to_tweet_id": "1", "exclude_reply_user_ids": [1]}},
            "$.reply.exclude_reply_user_ids[0]: integer found, string expected",
        ),
        ({"edit_options": {}}, "$.edit_options.previous_post_id: is missing but it is required"),
        ({"made_with_ai": "yes"}, "$.made_with_ai: string found, boolean expected"),
        ({"card_uri": 5}, "$.card_uri: integer found, string expected"),
    ],
    ids=[
        "poll-extra",
        "media-extra",
        "reply-extra",
        "geo-extra",
        "edit-extra",
        "call-to-action-extra",
        "media-no-ids",
        "media-empty-ids",
        "media-ids-string",
        "tagged-too-many",
        "embeddable-string",
        "poll-no-duration",
        "poll-no-options",
        "duration-string",
        "duration-float",
        "duration-null",
        "options-string",
        "option-integer",
        "reply-no-target",
        "auto-populate-string",
        "exclude-integer",
        "edit-no-target",
        "made-with-ai-string",
        "card-uri-integer",
    ],
)
def test_nested_body_members_are_checked(
    api: Api, make_user: Any, fields: dict[str, Any], message: str
) -> None:
    response = create(api, make_user(premium=True), fields)
    assert response.status_code == 400
    assert response.json() == invalid_request({"parameters": {}, "message": message})


@pytest.mark.parametrize(
    ("fields", "name", "shown", "message"),
    [
        (
            {"media": {"media_ids": ["1"], "tagged_user_ids": ["x"]}},
            "media.tagged_user_ids",
            "x",
            "The `media.tagged_user_ids` field value [x] does not match ^[0-9]{1,19}$",
        ),
        (
            {"media": {"media_ids": ["1"], "preview_media_id": 7}},
            "media.preview_media_id",
            "7",
            "The `media.preview_media_id` field value [7] does not match ^[0-9]{1,19}$",
        ),
        (
            {"poll": {**POLL, "reply_settings": "everyone"}},
            "poll.reply_settings",
            "everyone",
            "The `poll.reply_settings` field value [everyone] is not one of "
            "[following,mentionedUsers,subscribers,verified]",
        ),
    ],
    ids=["tagged-user-pattern", "preview-media-pattern", "poll-reply-settings"],
)
def test_nested_values_get_field_value_messages(
    api: Api, make_user: Any, fields: dict[str, Any], name: str, shown: str, message: str
) -> None:
    """Nested ids and enums are worded like their top-level kin (quote_tweet_id, reply_settings)."""
    response = create(api, make_user(), fields)
    assert response.status_code == 400
    assert response.json() == invalid_request({"parameters": {name: [shown]}, "message": message})


def test_members_of_either_schema_version_are_accepted(api: Api, make_user: Any) -> None:
    user, author = make_user(), make_user()
    media = import_media(api)
    target = create_ok(api, author)
    media_body = {
        "media_ids": [media["id"]],
        "tagged_user_ids": [author["id"]],
        "description": "d",
        "title": "t",
        "embeddable": True,
        "preview_media_id": media["id"],
        "call_to_actions": {"watch_now": {"url": "https://example.com/watch"}},
    }
    reply_body = {
        "in_reply_to_tweet_id": target["id"],
        "auto_populate_reply_metadata": True,
        "exclude_reply_user_ids": [author["id"]],
    }
    post = create_ok(api, user, media=media_body, reply=reply_body, geo={"place_id": "5e02a0f0d91c76d2"})
    fields = {"tweet.fields": "attachments,in_reply_to_user_id"}
    data = lookup(api, post["id"], **fields)["data"]
    assert data["attachments"] == {"media_keys": [media["media_key"]]}
    assert data["in_reply_to_user_id"] == author["id"]
    # An optional nested member sent as null counts as absent, as it does at the top level.
    assert create(api, user, poll={**POLL, "reply_settings": None}).status_code == 201
    # One member more than either version defines is refused.
    refused = create(api, user, media={**media_body, "alt_text": "x"})
    assert refused.json() == invalid_request({"parameters": {}, "message": f"$.media.alt_text: {EXTRA}"})


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"poll": POLL, "quote_tweet_id": "1"}, "You can only attach one of poll, media, quote_tweet_id."),
        (
            {"media": {"media_ids": ["1"]}, "quote_tweet_id": "1"},
            "You can only attach one of poll, media, quote_tweet_id.",
        ),
        (
            {"card_uri": "card://1", "quote_tweet_id": "1"},
            "You can only attach one of card_uri, quote_tweet_id.",
        ),
        ({"card_uri": "card://1", "poll": POLL}, "You can only attach one of card_uri, poll."),
        (
            {"card_uri": "card://1", "media": {"media_ids": ["1"]}},
            "You can only attach one of card_uri, media.",
        ),
        (
            {"card_uri": "card://1", "direct_message_deep_link": "https://x.com/messages/compose"},
            "You can only attach one of card_uri, direct_message_deep_link.",
        ),
    ],
    ids=["poll-quote", "media-quote", "card-quote", "card-poll", "card-media", "card-deep-link"],
)
def test_exclusive_attachments_are_refused(
    api: Api, make_user: Any, fields: dict[str, Any], message: str
) -> None:
    user = make_user()
    response = create(api, user, fields)
    assert response.status_code == 400
    assert response.json() == invalid_request({"parameters": {}, "message": message})
    assert user_view(api, user["id"])["public_metrics"]["tweet_count"] == 0


def test_community_paid_partnership_and_reply_settings(api: Api, make_user: Any) -> None:
    # Posting into a community needs one the author is a member of (tests/api/test_communities.py).
    author = make_user()
    community = api.http.post("/_roost/communities", json={"name": "Paid posts", "creator_id": author["id"]})
    assert community.status_code == 201, community.text
    community_id = community.json()["id"]
    post = create_ok(
        api,
        author,
        community_id=community_id,
        share_with_followers=True,
        paid_partnership=True,
        reply_settings="mentionedUsers",
    )
    # post.fields: the 2.159 schema caps reply_settings at 12 letters, contradicting its own enum.
    fields = {"post.fields": "community_id,paid_partnership,reply_settings"}
    data = lookup(api, post["id"], **fields)["data"]
    assert data["community_id"] == community_id
    assert data["paid_partnership"] is True
    assert data["reply_settings"] == "mentionedUsers"


def test_geo_place(api: Api, make_user: Any) -> None:
    post = create_ok(api, make_user(), geo={"place_id": "5e02a0f0d91c76d2"})
    body = lookup(api, post["id"], expansions="geo.place_id", **{"tweet.fields": "geo"})
    assert body["data"]["geo"] == {"place_id": "5e02a0f0d91c76d2"}
    assert body["includes"]["places"] == [{"full_name": "London, England", "id": "5e02a0f0d91c76d2"}]


def test_share_with_followers_needs_a_community(api: Api, make_user: Any) -> None:
    response = create(api, make_user(), share_with_followers=True)
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {}, "message": "share_with_followers requires community_id."}
    ]


@pytest.mark.parametrize(
    ("text", "status"),
    [
        ("a" * 280, 201),
        ("a" * 281, 403),
        ("漢" * 140, 201),
        ("漢" * 140 + "a", 403),
        ("a" * 256 + " https://example.com/" + "p" * 100, 201),
        ("a" * 257 + " https://example.com/" + "p" * 100, 403),
        ("😀" * 140, 201),
        ("😀" * 141, 403),
    ],
    ids=["280", "281", "cjk-280", "cjk-281", "url-280", "url-281", "emoji-280", "emoji-282"],
)
def test_weighted_length_limit(api: Api, make_user: Any, text: str, status: int) -> None:
    response = create(api, make_user(), text=text)
    assert response.status_code == status, response.text
    if status == 403:
        assert response.headers["content-type"] == "application/problem+json"
        assert response.json() == TOO_LONG


def test_premium_long_post_has_note_tweet(api: Api, make_user: Any) -> None:
    user = make_user(premium=True)
    text = (unique_text("long") + " " + "word " * 5000)[:25_000]
    assert len(text) == 25_000
    created = create_ok(api, user, text=text)
    assert created["text"].endswith("…") and len(created["text"]) <= 280
    assert text.startswith(created["text"][:-1])
    data = lookup(api, created["id"], **{"tweet.fields": "note_tweet,display_text_range"})["data"]
    assert data["text"] == created["text"]
    assert data["note_tweet"]["text"] == text
    assert data["display_text_range"] == [0, len(created["text"])]
    post = lookup(api, created["id"], **{"post.fields": "note_post"})["data"]
    assert post["note_post"]["text"] == text
    over = create(api, user, text=(unique_text("over") + " " + "word " * 5000)[:25_001])
    assert over.status_code == 403
    assert over.json() == TOO_LONG


def test_long_post_entities_split_between_text_and_note(api: Api, make_user: Any) -> None:
    early, late = make_user(), make_user()
    text = f"@{early['username']} #early {'filler ' * 60}#late @{late['username']} {unique_text()}"
    post = create_ok(api, make_user(premium=True), text=text)
    body = lookup(
        api,
        post["id"],
        expansions="entities.mentions.username,entities.note.mentions.username",
        **{"tweet.fields": "entities,note_tweet"},
    )
    shown, note = body["data"]["entities"], body["data"]["note_tweet"]
    assert [h["tag"] for h in shown["hashtags"]] == ["early"]
    assert [m["username"] for m in shown["mentions"]] == [early["username"]]
    assert [h["tag"] for h in note["entities"]["hashtags"]] == ["early", "late"]
    late_start = text.index(f"@{late['username']}")
    assert note["entities"]["mentions"][1]["start"] == late_start
    assert {u["id"] for u in body["includes"]["users"]} == {early["id"], late["id"]}
    only_note = lookup(api, post["id"], expansions="entities.note.mentions.username")
    assert [u["id"] for u in only_note["includes"]["users"]] == [late["id"]]


def test_standard_user_cannot_post_long_text(api: Api, make_user: Any) -> None:
    assert create(api, make_user(), text="b" * 300).json() == TOO_LONG


def test_entities_count_code_points(api: Api, make_user: Any) -> None:
    mentioned = make_user()
    text = f"😀👍🏽 #emoji then @{mentioned['username']} and $ROOST {unique_text()}"
    post = create_ok(api, make_user(), text=text)
    entities = lookup(api, post["id"], **{"tweet.fields": "entities"})["data"]["entities"]
    assert entities["hashtags"] == [{"start": 4, "end": 10, "tag": "emoji"}]
    start = text.index("@")
    assert entities["mentions"] == [
        {
            "start": start,
            "end": start + len(mentioned["username"]) + 1,
            "username": mentioned["username"],
            "id": mentioned["id"],
        }
    ]
    start = text.index("$")
    assert entities["cashtags"] == [{"start": start, "end": start + 6, "tag": "ROOST"}]


def test_urls_are_shortened(api: Api, make_user: Any) -> None:
    long_url = "https://www.example.com/a/very/long/path/for/display?q=1"
    created = create_ok(api, make_user(), text=f"read {long_url} now {unique_text()}")
    short = created["text"].split()[1]
    assert TCO.match(short)
    assert long_url not in created["text"]
    urls = lookup(api, created["id"], **{"tweet.fields": "entities"})["data"]["entities"]["urls"]
    assert urls == [
        {
            "start": 5,
            "end": 5 + len(short),
            "url": short,
            "expanded_url": long_url,
            "display_url": "example.com/a/very/long/pa…",  # the host, 15 characters of the rest
        }
    ]


def test_duplicate_content_is_refused(api: Api, make_user: Any) -> None:
    user, other = make_user(), make_user()
    text = unique_text("same")
    assert create(api, user, text=text).status_code == 201
    duplicate = create(api, user, text=text)
    assert duplicate.status_code == 403
    assert duplicate.json() == {
        "detail": "You are not allowed to create a Tweet with duplicate content.",
        "type": "about:blank",
        "title": "Forbidden",
        "status": 403,
    }
    assert create(api, other, text=text).status_code == 201


def test_duplicates_are_of_the_latest_live_post(api: Api, make_user: Any) -> None:
    user = make_user()
    first, second = unique_text("first"), unique_text("second")
    assert create(api, user, text=first).status_code == 201
    latest = create_ok(api, user, text=second)
    assert create(api, user, text=first).status_code == 201  # not the latest: allowed
    again = create_ok(api, user, text=second)
    assert delete_as(api, user, again["id"]).status_code == 200
    # The latest live post is now the second copy of `first`: its text is refused again, the
    # deleted post's text is not.
    assert create(api, user, text=first).status_code == 403
    assert create(api, user, text=second).status_code == 201
    assert user_view(api, user["id"])["most_recent_tweet_id"] not in (latest["id"], again["id"])


def test_author_counters_follow_creation(api: Api, make_user: Any) -> None:
    user = make_user()
    before = user_view(api, user["id"])
    assert before["public_metrics"]["tweet_count"] == 0 and "most_recent_tweet_id" not in before
    first, second = create_ok(api, user), create_ok(api, user)
    after = user_view(api, user["id"])
    assert after["public_metrics"]["tweet_count"] == 2
    assert after["most_recent_tweet_id"] == second["id"] != first["id"]


def test_read_only_oauth1_token_cannot_post(api: Api, make_user: Any) -> None:
    user = make_user()
    issued = api.http.post(
        "/_roost/tokens",
        json={"consumer_key": api.creds["consumer_key"], "user_id": user["id"], "access_level": "read"},
    ).json()
    assert issued["access_level"] == "read"
    headers = api.oauth1(
        "POST", "/2/tweets", token=issued["access_token"], secret=issued["access_token_secret"]
    )
    response = api.post("/2/tweets", auth="none", headers=headers, json={"text": unique_text()})
    assert response.status_code == 403
    assert response.json() == {
        "title": "Forbidden",
        "status": 403,
        "detail": "Your client app is not configured with the appropriate oauth1 app permissions "
        "for this endpoint.",
        "type": PROBLEMS + "oauth1-permissions",
    }
    assert response.headers["x-access-level"] == "read"


def test_app_only_bearer_cannot_post(api: Api) -> None:
    response = api.post("/2/tweets", auth="app", json={"text": unique_text()})
    assert response.status_code == 403
    assert response.json() == {
        "title": "Unsupported Authentication",
        "detail": "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint.  "
        "Supported authentication types are [OAuth 1.0a User Context, OAuth 2.0 User Context].",
        "type": PROBLEMS + "unsupported-authentication",
        "status": 403,
    }


def test_oauth2_token_without_tweet_write_cannot_post(api: Api, make_user: Any) -> None:
    user = make_user()
    issued = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": "tweet.read users.read",
        },
    ).json()
    response = api.post(
        "/2/tweets",
        auth="none",
        headers={"Authorization": f"Bearer {issued['access_token']}"},
        json={"text": unique_text()},
    )
    assert response.status_code == 403
    assert response.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    assert user_view(api, user["id"])["public_metrics"]["tweet_count"] == 0
