"""Likes firehose and sample10 streams: a like made while connected arrives once on its partition with
the selected fields and expansions, the sample is a stable function of the like id, partitions split
the likes, unlikes and non-public likes are not sent, likes count no usage, bad requests are 400.
Every line is checked against SPEC 2.167 (`conforms_167`)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from tests.api.helpers import PROBLEMS, User, bearer, create_ok, delete_as, import_media, new_user
from tests.api.streams.stream_support import conforms_167, finite, now_iso, stream, window
from tests.api.test_filtered_stream import Lines
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.domain.like_objects import like_id
from roost.events.selectors import in_sample, partition_of
from roost.storage.activity import ActivityStore

FIREHOSE = "/2/likes/firehose/stream"
SAMPLE10 = "/2/likes/sample10/stream"
PERCENT = 50  # the test server's sample (the platform's 10% needs many likes to show both outcomes)
DEFAULT_KEYS = {"id", "created_at", "liked_tweet_id", "liked_tweet_author_id"}
SERVER_SETTINGS = {"likes_sample10_stream_percent": str(PERCENT)}


@pytest.fixture()
def author(api: Api) -> User:
    return new_user(api)


def like(api: Api, server: LiveServer, fan: User, post_id: str) -> str:
    """Like a post as `fan`; the like's id, read from the event the like appended to the log."""
    services = server.app.server.stores  # type: ignore[union-attr]
    before = server.run(ActivityStore(services.db).max_position())
    response = api.post(
        f"/2/users/{fan['id']}/likes", auth="none", headers=bearer(fan), json={"tweet_id": post_id}
    )
    assert response.status_code == 200, response.text
    events = server.run(services.events.after(before, 500))
    for event in events:
        payload = json.loads(event["payload"])
        if event["kind"] == "like.create" and (payload["user_id"], payload["post_id"]) == (
            fan["id"],
            post_id,
        ):
            return like_id(int(event["id"]))
    raise AssertionError("no like.create event")


def unlike(api: Api, fan: User, post_id: str) -> None:
    path = f"/2/users/{fan['id']}/likes/{post_id}"
    assert api.delete(path, auth="none", headers=bearer(fan)).status_code == 200


def checked(path: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for line in lines:
        conforms_167("GET", path, 200, line)
    return lines


def every_partition(
    server: LiveServer, api: Api, path: str, partitions: int, **params: str
) -> dict[int, list[dict[str, Any]]]:
    return {
        part: checked(path, finite(server, api, path, partition=str(part), **params))
        for part in range(1, partitions + 1)
    }


def test_like_made_while_connected_arrives_once_on_its_partition(
    api: Api, server: LiveServer, author: User
) -> None:
    fan = new_user(api)
    params = {"expansions": "liked_tweet_id,liked_tweet_author_id", "user.fields": "username"}
    with stream(server, api, FIREHOSE, partition="1", **params) as response:
        assert response.status_code == 200
        lines = Lines(response)
        lines.next_raw()  # connected

        def like_in_partition_1() -> tuple[str, str]:
            for _ in range(300):  # a like lands in partition 1 of 20 once in 20 tries on average
                post = create_ok(api, author)["id"]
                ident = like(api, server, fan, post)
                if partition_of(ident, 20) == 1:
                    return post, ident
            raise AssertionError("no like in partition 1")

        post, ident = like_in_partition_1()
        line = lines.next_post()
        conforms_167("GET", FIREHOSE, 200, line)
        # Likes of the other partitions, made before it, were not sent.
        assert line["data"] == {
            "id": ident,
            "created_at": line["data"]["created_at"],
            "liked_tweet_id": post,
            "liked_tweet_author_id": author["id"],
        }
        assert re.fullmatch(r"[0-9a-f]{32}", ident)
        assert [t["id"] for t in line["includes"]["tweets"]] == [post]
        assert [(u["id"], u["username"]) for u in line["includes"]["users"]] == [
            (author["id"], author["username"])
        ]
        # Once: the next line on this partition is the next like that falls in it.
        later, later_ident = like_in_partition_1()
        following = lines.next_post()
        assert (following["data"]["id"], following["data"]["liked_tweet_id"]) == (later_ident, later)


def test_fields_and_expansions(api: Api, server: LiveServer, author: User) -> None:
    media = import_media(api)
    post = create_ok(api, author, media={"media_ids": [media["id"]]})["id"]
    fan = new_user(api)
    start = now_iso(server)
    ident = like(api, server, fan, post)
    params = {
        "like_with_tweet_author.fields": "timestamp_ms,attachments_media_keys",
        "expansions": "attachments.media_keys,liked_tweet_id,liked_tweet_author_id",
        "tweet.fields": "author_id",
        "user.fields": "username",
        "media.fields": "type",
    }
    part = str(partition_of(ident, 20))
    lines = finite(server, api, FIREHOSE, partition=part, **params, **window(server, start))
    line = next(line for line in lines if line["data"]["id"] == ident)
    data = line["data"]
    assert list(data) == [
        "id",
        "created_at",
        "liked_tweet_id",
        "liked_tweet_author_id",
        "attachments_media_keys",
        "timestamp_ms",
    ]
    assert (data["liked_tweet_id"], data["liked_tweet_author_id"]) == (post, author["id"])
    assert data["attachments_media_keys"] == [media["media_key"]]
    # timestamp_ms is the like's time in milliseconds, an integer as both documents type it; their
    # int32 format cannot hold a millisecond time, so the rest of the line is checked without it.
    assert isinstance(data["timestamp_ms"], int) and data["timestamp_ms"] > 2**31
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", data["created_at"])
    conforms_167(
        "GET", FIREHOSE, 200, {**line, "data": {k: v for k, v in data.items() if k != "timestamp_ms"}}
    )
    includes = line["includes"]
    assert [(t["id"], t["author_id"]) for t in includes["tweets"]] == [(post, author["id"])]
    assert [(u["id"], u["username"]) for u in includes["users"]] == [(author["id"], author["username"])]
    assert includes["media"] == [{"media_key": media["media_key"], "type": "photo"}]


def test_default_line_and_backfill(api: Api, server: LiveServer, author: User) -> None:
    post = create_ok(api, author)["id"]
    fan = new_user(api)
    ident = like(api, server, fan, post)
    with stream(
        server, api, FIREHOSE, partition=str(partition_of(ident, 20)), backfill_minutes="2"
    ) as response:
        assert response.status_code == 200
        lines = Lines(response)
        line = lines.next_post()
        while line["data"]["id"] != ident:  # older likes of this partition come first
            line = lines.next_post()
    conforms_167("GET", FIREHOSE, 200, line)
    assert set(line) == {"data"} and set(line["data"]) == DEFAULT_KEYS
    assert (line["data"]["liked_tweet_id"], line["data"]["liked_tweet_author_id"]) == (post, author["id"])


def test_sample_is_stable_and_near_its_rate() -> None:
    ids = [like_id(i) for i in range(20_000)]
    ten = [i for i in ids if in_sample(i, 10)]
    assert 1_600 <= len(ten) <= 2_400
    assert ten == [i for i in ids if in_sample(i, 10)]  # the same answer every time
    assert {partition_of(i, 2) for i in ten} == {1, 2}
    assert {partition_of(i, 20) for i in ids} == set(range(1, 21))


def test_sample10_is_the_sampled_likes_split_by_partition(api: Api, server: LiveServer, author: User) -> None:
    fan = new_user(api)
    posts = [create_ok(api, author)["id"] for _ in range(12)]
    start = now_iso(server)
    idents = [like(api, server, fan, post) for post in posts]
    span = window(server, start)
    expected = [i for i in idents if in_sample(i, PERCENT)]
    assert expected and len(expected) < len(idents)
    first = every_partition(server, api, SAMPLE10, 2, **span)
    got = {part: [line["data"]["id"] for line in lines] for part, lines in first.items()}
    for part, ids in got.items():
        assert all(partition_of(i, 2) == part for i in ids)
    # Each sampled like once, in log order within its partition; unsampled likes never.
    assert sorted(got[1] + got[2]) == sorted(expected)
    assert got[1] == [i for i in expected if partition_of(i, 2) == 1]
    # Deterministic: another connection over the same window sends the same lines.
    again = every_partition(server, api, SAMPLE10, 2, **span)
    assert again == first


def test_firehose_partitions_split_every_like(api: Api, server: LiveServer, author: User) -> None:
    fan = new_user(api)
    posts = [create_ok(api, author)["id"] for _ in range(5)]
    start = now_iso(server)
    idents = [like(api, server, fan, post) for post in posts]
    lines = every_partition(server, api, FIREHOSE, 20, **window(server, start))
    seen = [(part, line["data"]["id"]) for part, found in lines.items() for line in found]
    assert sorted(ident for _, ident in seen) == sorted(idents)  # every like once
    assert all(partition_of(ident, 20) == part for part, ident in seen)


def test_unlikes_and_non_public_likes_are_not_sent(api: Api, server: LiveServer, author: User) -> None:
    fan, hidden = new_user(api), new_user(api, protected=True)
    kept = create_ok(api, author)["id"]
    gone = create_ok(api, author)["id"]
    secret = create_ok(api, hidden)["id"]
    liked_before = create_ok(api, author)["id"]
    like(api, server, fan, liked_before)
    start = now_iso(server)
    unlike(api, fan, liked_before)  # an unlike only: the compliance stream's business
    sent = like(api, server, fan, kept)
    like(api, server, fan, gone)
    assert delete_as(api, author, gone).status_code == 200  # a deleted post's likes are not sent
    like(api, server, hidden, kept)  # a protected account's likes are not public
    like(api, server, hidden, secret)  # nor are likes of a protected account's posts (its own)
    lines = every_partition(server, api, FIREHOSE, 20, **window(server, start))
    assert [line["data"]["id"] for found in lines.values() for line in found] == [sent]


def usage(api: Api) -> str:
    # The usage report speaks SPEC 2.167 (counts as strings): checked against it explicitly.
    response = api.get("/2/usage/tweets", conform=False)
    conforms_167("GET", "/2/usage/tweets", 200, response.json())
    count: str = response.json()["data"]["project_usage"]
    return count


def test_likes_count_no_usage(api: Api, server: LiveServer, author: User) -> None:
    start = now_iso(server)
    ident = like(api, server, new_user(api), create_ok(api, author)["id"])
    before = usage(api)
    lines = finite(server, api, FIREHOSE, partition=str(partition_of(ident, 20)), **window(server, start))
    assert ident in [line["data"]["id"] for line in lines]
    assert usage(api) == before


def test_connection_limit_and_history(api: Api, server: LiveServer) -> None:
    with stream(server, api, FIREHOSE, partition="3") as first:
        assert first.status_code == 200
        held = Lines(first)  # held: a dropped iterator closes the response
        held.next_raw()
        second = api.get(FIREHOSE, params={"partition": "3"})
        assert second.status_code == 429
        assert second.json()["connection_issue"] == "TooManyConnections"
        with stream(server, api, SAMPLE10, partition="1") as other:  # its own endpoint, its own slot
            assert other.status_code == 200
            held_too = Lines(other)
            held_too.next_raw()
            listed = api.get(
                "/2/connections", params={"endpoints": "likes_firehose_stream,likes_sample10_stream"}
            )
            assert sorted(c["endpoint_name"] for c in listed.json()["data"]) == [
                "likes_firehose_stream",
                "likes_sample10_stream",
            ]


@pytest.mark.parametrize(
    ("path", "params", "parameter"),
    [
        (FIREHOSE, {}, "partition"),  # partition is required
        (FIREHOSE, {"partition": "21"}, "partition"),
        (SAMPLE10, {"partition": "3"}, "partition"),
        (FIREHOSE, {"partition": "1", "backfill_minutes": "6"}, "backfill_minutes"),
        (
            SAMPLE10,
            {"partition": "1", "like_with_tweet_author.fields": "nope"},
            "like_with_tweet_author.fields",
        ),
        (FIREHOSE, {"partition": "1", "expansions": "author_id"}, "expansions"),
        (FIREHOSE, {"partition": "1", "poll.fields": "id"}, "poll.fields"),  # not a likes parameter
        (FIREHOSE, {"partition": "1", "start_time": "yesterday"}, "start_time"),
        (
            SAMPLE10,
            {"partition": "1", "start_time": "2026-01-02T00:00:00Z", "end_time": "2026-01-01T00:00:00Z"},
            "end_time",
        ),
    ],
)
def test_bad_requests(api: Api, path: str, params: dict[str, str], parameter: str) -> None:
    response = api.get(path, params=params)
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request"
    assert parameter in json.dumps(body["errors"])


def test_field_error_names_the_accepted_values(api: Api) -> None:
    response = api.get(FIREHOSE, params={"partition": "1", "like_with_tweet_author.fields": "id,nope"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "The `like_with_tweet_author.fields` query parameter value [nope] is not one of "
        "[attachments_media_keys,created_at,id,liked_tweet_author_id,liked_tweet_id,timestamp_ms]"
    )


def test_bearer_only(api: Api) -> None:
    response = api.get(FIREHOSE, params={"partition": "1"}, auth="oauth2")
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(SAMPLE10, params={"partition": "1"}, auth="none").status_code == 401
