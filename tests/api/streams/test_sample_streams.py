"""Sample and firehose streams: deterministic sampling by a stable hash of the post id, partitions,
language firehoses, fields and expansions, the connection limit and bad requests."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.helpers import PROBLEMS, User, create_ok, new_user
from tests.api.streams.stream_support import finite, now_iso, stream, window
from tests.api.test_filtered_stream import Lines
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.events.selectors import in_sample, partition_of

SAMPLE = "/2/tweets/sample/stream"
SAMPLE10 = "/2/tweets/sample10/stream"
FIREHOSE = "/2/tweets/firehose/stream"
# Larger samples than the platform's 1% / 10%, so a handful of posts exercises both outcomes.
SERVER_SETTINGS = {"sample_stream_percent": "50", "sample10_stream_percent": "60"}


@pytest.fixture()
def author(api: Api) -> User:
    return new_user(api)


def posts(api: Api, author: User, count: int, text: str = "sampled") -> list[str]:
    return [create_ok(api, author, text=f"{text} {i} {author['id']}")["id"] for i in range(count)]


def test_sampling_is_stable_nested_and_near_its_rate() -> None:
    ids = range(1_700_000_000_000_000_000, 1_700_000_000_000_020_000)
    one = [i for i in ids if in_sample(i, 1)]
    ten = {i for i in ids if in_sample(i, 10)}
    assert 100 <= len(one) <= 300 and 1_600 <= len(ten) <= 2_400
    assert set(one) <= ten  # the 1% sample is part of the 10% sample
    assert one == [i for i in ids if in_sample(i, 1)]  # same answer every time
    parts = [partition_of(i, 20) for i in ids]
    assert set(parts) == set(range(1, 21))


def test_sample_stream_sends_exactly_the_sampled_posts(api: Api, server: LiveServer, author: User) -> None:
    created = posts(api, author, 12)
    expected = [p for p in created if in_sample(int(p), 50)]
    assert expected and len(expected) < len(created)
    with stream(server, api, SAMPLE, backfill_minutes="5") as response:
        assert response.status_code == 200
        lines, seen = Lines(response), []
        while expected[-1] not in seen:
            seen.append(lines.next_post()["data"]["id"])
    # Log order: every post before the last sampled one has had its chance to be sent.
    assert [p for p in seen if p in created] == expected


def test_sample10_partitions_split_the_sample(api: Api, server: LiveServer, author: User) -> None:
    start = now_iso(server)
    created = posts(api, author, 10)
    span = window(server, start)
    got: dict[int, list[str]] = {}
    for part in (1, 2):
        lines = finite(server, api, SAMPLE10, partition=str(part), **span)
        got[part] = [line["data"]["id"] for line in lines if line["data"]["id"] in created]
    assert not set(got[1]) & set(got[2])
    assert sorted(got[1] + got[2]) == sorted(p for p in created if in_sample(int(p), 60))
    for part, ids in got.items():
        assert all(partition_of(int(p), 2) == part for p in ids)


def test_firehose_sends_every_post_in_its_partition(api: Api, server: LiveServer, author: User) -> None:
    start = now_iso(server)
    created = posts(api, author, 4, "firehose")
    span = window(server, start)
    seen: list[str] = []
    for part in sorted({partition_of(int(p), 20) for p in created}):
        lines = finite(server, api, FIREHOSE, partition=str(part), **span)
        ids = [line["data"]["id"] for line in lines]
        assert all(partition_of(int(p), 20) == part for p in ids)
        seen.extend(p for p in ids if p in created)
    assert sorted(seen) == sorted(created)  # every post once, whatever the sample


def test_language_firehose(api: Api, server: LiveServer, author: User) -> None:
    start = now_iso(server)
    english = create_ok(api, author, text="plain english words here")["id"]
    japanese = create_ok(api, author, text="こんにちは、世界のみなさん")["id"]
    span = window(server, start)
    # Each language firehose has its own partitions: 2 for Japanese, 8 for English.
    part = partition_of(int(japanese), 2)
    ids = [
        line["data"]["id"] for line in finite(server, api, FIREHOSE + "/lang/ja", partition=str(part), **span)
    ]
    assert japanese in ids and english not in ids
    other = [
        line["data"]["id"]
        for line in finite(server, api, FIREHOSE + "/lang/ja", partition=str(3 - part), **span)
    ]
    assert japanese not in other
    part = partition_of(int(english), 8)
    ids = [
        line["data"]["id"] for line in finite(server, api, FIREHOSE + "/lang/en", partition=str(part), **span)
    ]
    assert english in ids and japanese not in ids


def test_fields_and_expansions_apply(api: Api, server: LiveServer, author: User) -> None:
    start = now_iso(server)
    post = create_ok(api, author, text="with fields")["id"]
    params = {"tweet.fields": "author_id,lang", "expansions": "author_id", "user.fields": "username"}
    part = str(partition_of(int(post), 20))
    lines = finite(server, api, FIREHOSE, partition=part, **params, **window(server, start))
    line = next(line for line in lines if line["data"]["id"] == post)
    assert line["data"]["author_id"] == author["id"] and line["data"]["lang"] == "en"
    assert line["includes"]["users"][0]["username"] == author["username"]
    assert "matching_rules" not in line


def test_connection_limit(api: Api, server: LiveServer) -> None:
    with stream(server, api, SAMPLE) as first:
        assert first.status_code == 200
        held = Lines(first)  # held: a dropped iterator closes the response
        held.next_raw()
        second = api.get(SAMPLE)
        assert second.status_code == 429
        assert second.json()["connection_issue"] == "TooManyConnections"
        assert second.json()["type"] == PROBLEMS + "streaming-connection"
        # Other endpoints and other partitions have their own slots.
        with stream(server, api, FIREHOSE, partition="1") as other:
            assert other.status_code == 200


def test_protected_and_deleted_posts_are_not_sent(api: Api, server: LiveServer) -> None:
    start = now_iso(server)
    hidden = new_user(api, protected=True)
    secret = create_ok(api, hidden, text="protected words")["id"]
    span = window(server, start)
    lines = finite(server, api, FIREHOSE, partition=str(partition_of(int(secret), 20)), **span)
    assert secret not in [line["data"]["id"] for line in lines]


@pytest.mark.parametrize(
    ("path", "params", "status"),
    [
        (SAMPLE10, {}, 400),  # partition is required
        (SAMPLE10, {"partition": "3"}, 400),
        (FIREHOSE, {"partition": "21"}, 400),
        (FIREHOSE + "/lang/en", {"partition": "9"}, 400),
        (FIREHOSE + "/lang/pt", {"partition": "3"}, 400),
        (FIREHOSE, {"partition": "1", "backfill_minutes": "6"}, 400),
        (SAMPLE, {"start_time": "2026-01-01T00:00:00Z"}, 400),  # not a parameter of the 1% stream
        (SAMPLE, {"tweet.fields": "nope"}, 400),
        (
            SAMPLE10,
            {"partition": "1", "start_time": "2026-01-02T00:00:00Z", "end_time": "2026-01-01T00:00:00Z"},
            400,
        ),
    ],
)
def test_bad_requests(api: Api, path: str, params: dict[str, Any], status: int) -> None:
    assert api.get(path, params=params).status_code == status


def test_bearer_only(api: Api) -> None:
    response = api.get(SAMPLE, auth="oauth2")
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(FIREHOSE, params={"partition": "1"}, auth="none").status_code == 401
