"""GET /2/tweets and /2/tweets/{id}: default fields, every field and expansion, vocabularies, errors."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from tests.api.helpers import (
    User,
    create_ok,
    import_media,
    import_objects,
    lookup,
    new_user,
    next_import_id,
    not_found_item,
    unique_text,
)
from tests.support.client import Api
from tests.support.server import LiveServer

ISO_MS = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
MANHATTAN = "01a9a39529b27f36"
TWEET_DEFAULTS = {"id", "text", "edit_history_tweet_ids"}
ALL_TWEET_FIELDS = (
    "attachments,author_id,card_uri,community_id,context_annotations,conversation_id,created_at,"
    "display_text_range,edit_controls,edit_history_tweet_ids,entities,geo,id,in_reply_to_user_id,lang,"
    "non_public_metrics,note_tweet,organic_metrics,paid_partnership,possibly_sensitive,public_metrics,"
    "referenced_tweets,reply_settings,source,text,withheld"
)


@pytest.fixture(scope="module")
def world(server: LiveServer, credentials: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Two users, media, a root post, a reply with media and entities, a quote and an imported post."""
    api = Api(server.base_url, credentials)
    author = new_user(api)
    other = new_user(api)
    photo = import_media(
        api, "photo", url="https://pbs.twimg.com/media/p.jpg", width=640, height=480, alt_text="a photo"
    )
    video = import_media(
        api,
        "video",
        preview_image_url="https://pbs.twimg.com/v.jpg",
        duration_ms=1500,
        variants=[{"bit_rate": 256000, "content_type": "video/mp4", "url": "https://v/1.mp4"}],
        public_metrics={"view_count": 42},
    )
    root = create_ok(api, other, text=unique_text("root"))
    reply_text = f"@{other['username']} look #roosting $ACME https://example.com/page {unique_text()}"
    reply = create_ok(
        api,
        author,
        text=reply_text,
        reply={"in_reply_to_tweet_id": root["id"]},
        media={"media_ids": [photo["id"], video["id"]]},
        paid_partnership=True,
    )
    quote = create_ok(api, author, quote_tweet_id=reply["id"])
    imported_id = next_import_id()
    import_objects(
        api,
        {
            "tweets": [
                {
                    "id": imported_id,
                    "author_id": other["id"],
                    "text": "imported with extras",
                    "geo": {"place_id": MANHATTAN},
                    "lang": "de",
                    "possibly_sensitive": True,
                    "source": "roost tests",
                    "context_annotations": [
                        {
                            "domain": {"id": "66", "name": "Interests and Hobbies"},
                            "entity": {"id": "847", "name": "Testing"},
                        }
                    ],
                    "withheld": {"copyright": False, "country_codes": ["DE"]},
                    "created_at": "2020-01-02T03:04:05.000Z",
                }
            ]
        },
    )
    yield {
        "api": api,
        "author": author,
        "other": other,
        "photo": photo,
        "video": video,
        "root": root,
        "reply": reply,
        "quote": quote,
        "imported": imported_id,
    }
    api.close()


def test_default_fields_only(api: Api, world: dict[str, Any]) -> None:
    single = api.get(f"/2/tweets/{world['reply']['id']}")
    assert single.status_code == 200
    body = single.json()
    assert set(body) == {"data"}
    assert set(body["data"]) == TWEET_DEFAULTS
    assert body["data"]["edit_history_tweet_ids"] == [world["reply"]["id"]]
    assert body["data"]["text"] == world["reply"]["text"]
    many = api.get("/2/tweets", params={"ids": f"{world['reply']['id']},{world['root']['id']}"}).json()
    assert [set(item) for item in many["data"]] == [TWEET_DEFAULTS, TWEET_DEFAULTS]
    assert [item["id"] for item in many["data"]] == [world["reply"]["id"], world["root"]["id"]]


def test_every_tweet_field_of_a_reply(api: Api, world: dict[str, Any]) -> None:
    reply, root, author, other = world["reply"], world["root"], world["author"], world["other"]
    data = lookup(api, reply["id"], **{"tweet.fields": ALL_TWEET_FIELDS})["data"]
    assert data["author_id"] == author["id"]
    assert data["conversation_id"] == root["id"]
    assert data["in_reply_to_user_id"] == other["id"]
    assert data["referenced_tweets"] == [{"type": "replied_to", "id": root["id"]}]
    assert data["attachments"] == {"media_keys": [world["photo"]["media_key"], world["video"]["media_key"]]}
    assert ISO_MS.match(data["created_at"])
    assert data["lang"] == "en"
    assert data["possibly_sensitive"] is False
    assert data["reply_settings"] == "everyone"
    assert data["paid_partnership"] is True
    assert data["display_text_range"] == [0, len(data["text"])]
    assert data["public_metrics"] == {
        "retweet_count": 0,
        "reply_count": 0,
        "like_count": 0,
        "quote_count": 1,
        "bookmark_count": 0,
        "impression_count": 0,
    }
    controls = data["edit_controls"]
    assert controls["edits_remaining"] == 5 and controls["is_edit_eligible"] is True
    assert ISO_MS.match(controls["editable_until"]) and controls["editable_until"] > data["created_at"]
    entities = data["entities"]
    assert entities["mentions"] == [
        {"start": 0, "end": len(other["username"]) + 1, "username": other["username"], "id": other["id"]}
    ]
    assert [h["tag"] for h in entities["hashtags"]] == ["roosting"]
    assert [c["tag"] for c in entities["cashtags"]] == ["ACME"]
    assert entities["urls"][0]["expanded_url"] == "https://example.com/page"
    # Private metrics belong to the author only: an app-only caller never sees them.
    for private in ("non_public_metrics", "organic_metrics", "note_tweet", "geo", "community_id", "withheld"):
        assert private not in data


def test_fields_of_an_imported_post(api: Api, world: dict[str, Any]) -> None:
    fields = "geo,lang,possibly_sensitive,source,context_annotations,withheld,created_at,conversation_id"
    data = lookup(api, world["imported"], **{"tweet.fields": fields})["data"]
    assert data["geo"] == {"place_id": MANHATTAN}
    assert data["lang"] == "de"
    assert data["possibly_sensitive"] is True
    assert data["source"] == "roost tests"
    assert data["context_annotations"][0]["entity"]["name"] == "Testing"
    assert data["withheld"] == {"copyright": False, "country_codes": ["DE"]}
    assert data["created_at"] == "2020-01-02T03:04:05.000Z"
    assert data["conversation_id"] == world["imported"]


def test_private_metrics_for_the_author_only(api: Api, world: dict[str, Any]) -> None:
    author = world["author"]
    params = {"tweet.fields": "non_public_metrics,organic_metrics"}
    own = api.get(
        f"/2/tweets/{world['reply']['id']}",
        params=params,
        auth="none",
        headers={"Authorization": f"Bearer {author['oauth2']}"},
    ).json()["data"]
    assert own["non_public_metrics"] == {
        "impression_count": 0,
        "url_link_clicks": 0,
        "user_profile_clicks": 0,
    }
    assert own["organic_metrics"]["reply_count"] == 0
    assert own["organic_metrics"]["retweet_count"] == 0
    theirs = api.get(
        f"/2/tweets/{world['root']['id']}",
        params=params,
        auth="none",
        headers={"Authorization": f"Bearer {author['oauth2']}"},
    ).json()["data"]
    assert set(theirs) == TWEET_DEFAULTS


@pytest.mark.parametrize(
    "name",
    [
        "article",
        "card_uri",
        "scopes",
        "media_metadata",
        "matched_media_notes",
        "suggested_source_links",
        "note_request_suggestions",
        "promoted_metrics",
    ],
)
def test_accepted_fields_without_data_are_omitted(api: Api, world: dict[str, Any], name: str) -> None:
    body = lookup(api, world["root"]["id"], **{"tweet.fields": name})
    assert set(body) == {"data"}
    assert set(body["data"]) == TWEET_DEFAULTS


def test_author_mentions_and_reply_expansions(api: Api, world: dict[str, Any]) -> None:
    body = lookup(
        api,
        world["reply"]["id"],
        expansions="author_id,entities.mentions.username,in_reply_to_user_id",
        **{"user.fields": "created_at,username"},
    )
    users = {u["id"]: u for u in body["includes"]["users"]}
    assert set(users) == {world["author"]["id"], world["other"]["id"]}
    assert users[world["author"]["id"]]["username"] == world["author"]["username"]
    assert all(ISO_MS.match(u["created_at"]) for u in users.values())
    assert set(body["includes"]) == {"users"}
    assert "errors" not in body


@pytest.mark.parametrize(
    ("expansion", "who"),
    [("author_id", "author"), ("entities.mentions.username", "other"), ("in_reply_to_user_id", "other")],
)
def test_each_user_expansion_alone(api: Api, world: dict[str, Any], expansion: str, who: str) -> None:
    body = lookup(api, world["reply"]["id"], expansions=expansion)
    person = world[who]
    assert body["includes"] == {
        "users": [{"id": person["id"], "name": person["username"], "username": person["username"]}]
    }
    root = lookup(api, world["root"]["id"], expansions=expansion)
    assert ("includes" in root) == (expansion == "author_id")


def test_media_expansion_with_every_media_field(api: Api, world: dict[str, Any]) -> None:
    fields = "alt_text,duration_ms,height,media_key,preview_image_url,public_metrics,type,url,variants,width"
    body = lookup(api, world["reply"]["id"], expansions="attachments.media_keys", **{"media.fields": fields})
    media = {m["media_key"]: m for m in body["includes"]["media"]}
    photo, video = media[world["photo"]["media_key"]], media[world["video"]["media_key"]]
    assert photo == {
        "media_key": world["photo"]["media_key"],
        "type": "photo",
        "alt_text": "a photo",
        "height": 480,
        "url": "https://pbs.twimg.com/media/p.jpg",
        "width": 640,
    }
    assert video["type"] == "video"
    assert video["duration_ms"] == 1500
    assert video["preview_image_url"] == "https://pbs.twimg.com/v.jpg"
    assert video["public_metrics"] == {"view_count": 42}
    assert video["variants"] == [{"bit_rate": 256000, "content_type": "video/mp4", "url": "https://v/1.mp4"}]
    defaults = lookup(api, world["reply"]["id"], expansions="attachments.media_keys")["includes"]["media"]
    assert [set(m) for m in defaults] == [{"media_key", "type"}, {"media_key", "type"}]


def test_referenced_tweets_expansions(api: Api, world: dict[str, Any]) -> None:
    quote, reply = world["quote"], world["reply"]
    body = lookup(
        api,
        quote["id"],
        expansions="referenced_tweets.id,referenced_tweets.id.author_id,"
        "referenced_tweets.id.attachments.media_keys",
        **{"tweet.fields": "referenced_tweets"},
    )
    assert body["data"]["referenced_tweets"] == [{"type": "quoted", "id": reply["id"]}]
    assert [t["id"] for t in body["includes"]["tweets"]] == [reply["id"]]
    assert body["includes"]["tweets"][0]["referenced_tweets"] == [
        {"type": "replied_to", "id": world["root"]["id"]}
    ]
    assert [u["id"] for u in body["includes"]["users"]] == [world["author"]["id"]]
    keys = [m["media_key"] for m in body["includes"]["media"]]
    assert keys == [world["photo"]["media_key"], world["video"]["media_key"]]


def test_place_expansion_with_every_place_field(api: Api, world: dict[str, Any]) -> None:
    fields = "contained_within,country,country_code,full_name,geo,id,name,place_type"
    body = lookup(api, world["imported"], expansions="geo.place_id", **{"place.fields": fields})
    place = body["includes"]["places"][0]
    assert place["id"] == MANHATTAN
    assert place["full_name"] == "Manhattan, NY"
    assert place["country"] == "United States" and place["country_code"] == "US"
    assert place["name"] == "Manhattan" and place["place_type"] == "city"
    assert place["geo"]["type"] == "Feature" and len(place["geo"]["bbox"]) == 4
    default = lookup(api, world["imported"], expansions="geo.place_id")["includes"]["places"][0]
    assert default == {"full_name": "Manhattan, NY", "id": MANHATTAN}


def test_poll_expansion_with_every_poll_field(api: Api, world: dict[str, Any]) -> None:
    post = create_ok(api, world["author"], poll={"options": ["red", "blue"], "duration_minutes": 60})
    body = lookup(
        api,
        post["id"],
        expansions="attachments.poll_ids",
        **{
            "poll.fields": "duration_minutes,end_datetime,id,options,voting_status",
            "tweet.fields": "attachments,created_at,edit_controls",
        },
    )
    poll = body["includes"]["polls"][0]
    assert body["data"]["attachments"] == {"poll_ids": [poll["id"]]}
    assert poll["options"] == [
        {"position": 1, "label": "red", "votes": 0},
        {"position": 2, "label": "blue", "votes": 0},
    ]
    assert poll["duration_minutes"] == 60
    assert poll["voting_status"] == "open"
    assert ISO_MS.match(poll["end_datetime"]) and poll["end_datetime"] > body["data"]["created_at"]
    assert body["data"]["edit_controls"]["is_edit_eligible"] is False
    default = lookup(api, post["id"], expansions="attachments.poll_ids")["includes"]["polls"][0]
    assert set(default) == {"id", "options"}


def test_post_vocabulary(api: Api, world: dict[str, Any]) -> None:
    quote = world["quote"]
    body = lookup(
        api, quote["id"], expansions="referenced_posts", **{"post.fields": "referenced_posts,public_metrics"}
    )
    assert body["data"]["referenced_posts"] == [{"type": "quoted", "id": world["reply"]["id"]}]
    assert body["data"]["edit_history_post_ids"] == [quote["id"]]
    assert "edit_history_tweet_ids" not in body["data"]
    assert "repost_count" in body["data"]["public_metrics"]
    assert set(body["includes"]) == {"posts"}
    assert body["includes"]["posts"][0]["edit_history_post_ids"] == [world["reply"]["id"]]
    # Post-vocabulary expansion names alone do not switch the answer to post names (live traffic).
    twin = lookup(api, quote["id"], expansions="edit_history_post_ids,referenced_posts")
    assert set(twin["includes"]) == {"tweets"}
    assert {p["id"] for p in twin["includes"]["tweets"]} == {quote["id"], world["reply"]["id"]}
    assert twin["data"]["edit_history_tweet_ids"] == [quote["id"]] and "referenced_tweets" in twin["data"]
    tweet = lookup(
        api,
        quote["id"],
        expansions="referenced_tweets.id,edit_history_tweet_ids",
        **{"tweet.fields": "referenced_tweets,public_metrics"},
    )
    assert "referenced_tweets" in tweet["data"] and "retweet_count" in tweet["data"]["public_metrics"]
    assert {t["id"] for t in tweet["includes"]["tweets"]} == {world["reply"]["id"], quote["id"]}


def test_batch_partial_errors(api: Api, world: dict[str, Any]) -> None:
    missing = next_import_id()
    response = api.get("/2/tweets", params={"ids": f"{world['root']['id']},{missing},{world['root']['id']}"})
    assert response.status_code == 200
    body = response.json()
    assert [t["id"] for t in body["data"]] == [world["root"]["id"]]
    assert body["errors"] == [not_found_item("tweet", "ids", missing)]
    assert body["errors"][0]["detail"] == f"Could not find tweet with ids: [{missing}]."


def test_all_missing_has_no_data_key(api: Api) -> None:
    first, second = next_import_id(), next_import_id()
    body = api.get("/2/tweets", params={"ids": f"{first},{second}"}).json()
    assert body == {"errors": [not_found_item("tweet", "ids", first), not_found_item("tweet", "ids", second)]}
    single = api.get(f"/2/tweets/{first}")
    assert single.status_code == 200
    assert single.json() == {"errors": [not_found_item("tweet", "id", first)]}


def test_missing_referenced_tweet_reported_with_expansion_name(api: Api, world: dict[str, Any]) -> None:
    ghost, post_id = next_import_id(), next_import_id()
    import_objects(
        api,
        {
            "tweets": [
                {
                    "id": post_id,
                    "author_id": world["author"]["id"],
                    "text": "quoting a ghost",
                    "referenced_tweets": [{"type": "quoted", "id": ghost}],
                }
            ]
        },
    )
    body = lookup(api, post_id, expansions="referenced_tweets.id,referenced_tweets.id.author_id")
    assert body["data"]["id"] == post_id
    assert "includes" not in body
    assert body["errors"] == [not_found_item("tweet", "referenced_tweets.id", ghost)]


def test_missing_author_reported_with_expansion_name(api: Api) -> None:
    ghost, post_id = next_import_id(), next_import_id()
    import_objects(api, {"tweets": [{"id": post_id, "author_id": ghost, "text": "orphan"}]})
    body = lookup(api, post_id, expansions="author_id")
    assert body["data"]["text"] == "orphan"
    assert body["errors"] == [not_found_item("user", "author_id", ghost)]


def test_deleted_post_disappears_from_lookups_and_expansions(api: Api, world: dict[str, Any]) -> None:
    author: User = world["author"]
    target = create_ok(api, author)
    quote = create_ok(api, author, quote_tweet_id=target["id"])
    deleted = api.delete(
        f"/2/tweets/{target['id']}", auth="none", headers={"Authorization": f"Bearer {author['oauth2']}"}
    )
    assert deleted.json() == {"data": {"deleted": True}}
    body = lookup(api, quote["id"], expansions="referenced_tweets.id")
    assert body["errors"] == [not_found_item("tweet", "referenced_tweets.id", target["id"])]
    assert api.get("/2/tweets", params={"ids": target["id"]}).json() == {
        "errors": [not_found_item("tweet", "ids", target["id"])]
    }


def test_lookup_with_every_auth_kind(api: Api, world: dict[str, Any]) -> None:
    path = f"/2/tweets/{world['root']['id']}"
    for auth in ("app", "oauth1", "oauth2"):
        response = api.get(path, auth=auth)
        assert response.status_code == 200, (auth, response.text)
        assert response.json()["data"]["id"] == world["root"]["id"]
