"""xdk 0.10.6 (the official Python SDK) in-process against roost through its own `base_url`.

xdk sends the post vocabulary (`post.fields`, `referenced_posts`, …) and validates every answer with
pydantic, so these tests also check that roost answers in that vocabulary with the shapes xdk requires.
OAuth 1.0a writes use a fresh `xdk.oauth1_auth.OAuth1` per user; xdk signs over `base_url + path`.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from tests.clients.helpers import Seed, raw_get
from tests.support.server import LiveServer
from xdk import Client
from xdk.oauth1_auth import OAuth1
from xdk.paginator import Cursor
from xdk.posts.models import CreateRequest, CreateResponse, DeleteResponse, GetByIdResponse, GetByIdsResponse
from xdk.schemas import ResourceNotFoundProblem
from xdk.users.models import GetByUsernameResponse, GetMeResponse, GetPostsResponse

pytestmark = pytest.mark.clients

POST_FIELDS = ["attachments", "conversation_id", "created_at", "edit_controls", "lang", "public_metrics"]
EXPANSIONS = ["author_id", "attachments.media_keys", "referenced_posts"]


@pytest.fixture(scope="module")
def app_client(server: LiveServer, credentials: dict[str, Any]) -> Iterator[Client]:
    client = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    yield client
    client.session.close()


def user_client(
    server: LiveServer,
    credentials: dict[str, Any],
    token: str,
    secret: str,
    consumer_secret: str | None = None,
) -> Client:
    auth = OAuth1(
        credentials["consumer_key"],
        consumer_secret or credentials["consumer_secret"],
        "oob",
        access_token=token,
        access_token_secret=secret,
    )
    return Client(base_url=server.base_url, auth=auth)


def tweet_view(
    server: LiveServer, credentials: dict[str, Any], post_id: str, **params: str
) -> dict[str, Any]:
    """The same post in the tweet vocabulary, straight from roost."""
    return raw_get(server.base_url, credentials["bearer_token"], f"/2/tweets/{post_id}", params)


def author_of(server: LiveServer, credentials: dict[str, Any], post_id: str) -> str:
    return tweet_view(server, credentials, post_id, **{"tweet.fields": "author_id"})["data"]["author_id"]


def test_post_lookup_answers_in_post_vocabulary(
    app_client: Client, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    post_id = seed.rich_post["id"]
    got = app_client.posts.get_by_id(
        post_id,
        post_fields=POST_FIELDS,
        expansions=EXPANSIONS,
        user_fields=["created_at", "public_metrics", "verified"],
        media_fields=["type", "url", "width", "height"],
    )
    assert isinstance(got, GetByIdResponse)
    wire = tweet_view(
        server,
        credentials,
        post_id,
        **{
            "tweet.fields": "public_metrics,created_at,conversation_id",
            "expansions": "author_id",
            "user.fields": "public_metrics",
        },
    )
    post = got.data
    assert post is not None
    assert (post.id, post.text, post.created_at) == (
        post_id,
        wire["data"]["text"],
        wire["data"]["created_at"],
    )
    assert post.edit_history_post_ids == [post_id]
    assert "edit_history_tweet_ids" not in (post.model_extra or {})
    metrics = post.public_metrics
    assert metrics is not None
    assert metrics.repost_count == wire["data"]["public_metrics"]["retweet_count"]
    assert metrics.quote_count == wire["data"]["public_metrics"]["quote_count"]
    assert post.conversation_id == wire["data"]["conversation_id"]
    assert (
        post.attachments is not None
        and post.attachments.media_keys == seed.rich_post["attachments"]["media_keys"]
    )
    assert post.edit_controls is not None and post.edit_controls.edits_remaining == 5

    includes = got.includes
    assert includes is not None
    assert "tweets" not in (includes.model_extra or {})
    assert [(u.id, u.username) for u in includes.users or []] == [(seed.user_id, seed.username)]
    author_metrics = includes.users[0].public_metrics
    assert author_metrics.post_count == wire["includes"]["users"][0]["public_metrics"]["tweet_count"] > 0
    assert [m.media_key for m in includes.media or []] == seed.rich_post["attachments"]["media_keys"]
    referenced = includes.posts or []
    assert [p.id for p in referenced] == [seed.referenced_id]
    kind = seed.rich_post["referenced_tweets"][0]["type"]
    counter = "quote_count" if kind == "quoted" else "reply_count"
    assert getattr(referenced[0].public_metrics, counter) >= 1
    assert referenced[0].edit_history_post_ids == [seed.referenced_id]


def test_post_lookup_by_ids_reports_missing_ids(app_client: Client, seed: Seed) -> None:
    got = app_client.posts.get_by_ids(ids=[seed.rich_post["id"], "1"], post_fields=["public_metrics"])
    assert isinstance(got, GetByIdsResponse)
    assert [p.id for p in got.data or []] == [seed.rich_post["id"]]
    assert got.data[0].public_metrics.repost_count >= 0
    [problem] = got.errors or []
    assert isinstance(problem, ResourceNotFoundProblem)
    assert (problem.resource_id, problem.parameter) == ("1", "ids")
    assert problem.detail == "Could not find tweet with ids: [1]."


def test_expansion_ids_are_in_the_post(app_client: Client, seed: Seed) -> None:
    # Expansions alone leave the answer in tweet names, as live traffic does, so xdk's post-named
    # model finds no `referenced_posts`; any `post.fields` switches the answer to post names.
    tweet_named = app_client.posts.get_by_id(seed.rich_post["id"], expansions=EXPANSIONS)
    assert tweet_named.data is not None and not tweet_named.data.referenced_posts
    got = app_client.posts.get_by_id(seed.rich_post["id"], expansions=EXPANSIONS, post_fields=["id"])
    assert got.includes is not None and got.includes.users  # the expansion itself works
    post = got.data
    assert post is not None
    assert post.author_id == seed.user_id
    assert [(ref.type, ref.id) for ref in post.referenced_posts or []] == [
        (seed.rich_post["referenced_tweets"][0]["type"], seed.referenced_id)
    ]
    assert (
        post.attachments is not None
        and post.attachments.media_keys == seed.rich_post["attachments"]["media_keys"]
    )


def test_user_lookups(app_client: Client, seed: Seed) -> None:
    by_name = app_client.users.get_by_username(
        seed.username, user_fields=["created_at", "description", "verified"]
    )
    assert isinstance(by_name, GetByUsernameResponse)
    assert (by_name.data.id, by_name.data.username) == (seed.user_id, seed.username)
    assert by_name.data.created_at and by_name.data.description
    by_ids = app_client.users.get_by_ids(ids=[seed.referenced_author_id, seed.user_id, "1"])
    assert [u.id for u in by_ids.data or []] == [seed.referenced_author_id, seed.user_id]
    [problem] = by_ids.errors or []
    assert isinstance(problem, ResourceNotFoundProblem)
    assert problem.detail == "Could not find user with ids: [1]."


def test_user_public_metrics_with_a_post_expansion(
    app_client: Client, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    got = app_client.users.get_by_username(
        seed.username, user_fields=["public_metrics"], expansions=["pinned_post_id"]
    )
    wire = raw_get(
        server.base_url,
        credentials["bearer_token"],
        f"/2/users/{seed.user_id}",
        {"user.fields": "public_metrics"},
    )
    assert got.data.public_metrics.post_count == wire["data"]["public_metrics"]["tweet_count"]


def test_user_public_metrics_validate_in_xdk(
    app_client: Client, server: LiveServer, credentials: dict[str, Any], seed: Seed
) -> None:
    wire = raw_get(
        server.base_url,
        credentials["bearer_token"],
        f"/2/users/{seed.user_id}",
        {"user.fields": "public_metrics"},
    )
    got = app_client.users.get_by_username(seed.username, user_fields=["public_metrics"])
    assert got.data.public_metrics.post_count == wire["data"]["public_metrics"]["tweet_count"]
    listed = app_client.users.get_by_ids(ids=[seed.user_id], user_fields=["public_metrics"])
    assert listed.data[0].public_metrics.post_count == wire["data"]["public_metrics"]["tweet_count"]


def test_user_timeline_pages(app_client: Client, seed: Seed) -> None:
    pages = list(
        itertools.islice(
            app_client.users.get_posts(
                seed.user_id, max_results=5, post_fields=["created_at", "public_metrics"]
            ),
            3,
        )
    )
    assert all(isinstance(page, GetPostsResponse) for page in pages)
    ids = [post.id for page in pages for post in page.data or []]
    assert ids == seed.timeline_ids[:15]
    assert all(page.meta.result_count == 5 and page.meta.next_token for page in pages)
    assert pages[0].meta.previous_token is None
    assert pages[1].meta.previous_token
    assert all(post.public_metrics.repost_count >= 0 for page in pages for post in page.data)

    # A caller-kept token resumes where the previous page ended.
    resumed = next(
        app_client.users.get_posts(seed.user_id, max_results=5, pagination_token=pages[0].meta.next_token)
    )
    assert [post.id for post in resumed.data or []] == seed.timeline_ids[5:10]

    items = list(Cursor(app_client.users.get_posts, seed.user_id, max_results=5).items(12))
    assert [post.id for post in items] == seed.timeline_ids[:12]


def test_user_mentions(app_client: Client, seed: Seed) -> None:
    page = next(app_client.users.get_mentions(seed.user_id, max_results=100, post_fields=["created_at"]))
    assert [post.id for post in page.data or []] == seed.mention_ids
    assert all(f"@{seed.username}".lower() in post.text.lower() for post in page.data)
    assert page.meta.result_count == len(seed.mention_ids)
    assert page.meta.next_token is None


def test_oauth1_write_cycle(
    app_client: Client, server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    user = make_user(premium=True)
    client = user_client(server, credentials, user["token"], user["secret"])
    me = client.users.get_me(user_fields=["created_at"])
    assert isinstance(me, GetMeResponse)
    assert (me.data.id, me.data.username) == (user["id"], user["username"])

    stamp = uuid.uuid4().hex[:10]
    created = client.posts.create(CreateRequest(text=f"xdk says hello {stamp}"))
    assert isinstance(created, CreateResponse)
    original = created.data.id
    assert created.data.text == f"xdk says hello {stamp}"
    assert author_of(server, credentials, original) == user["id"]
    # Without a bearer token xdk signs reads too, query string (comma lists) included.
    read_back = client.posts.get_by_id(original, post_fields=["created_at"], expansions=["author_id"])
    assert read_back.data.created_at
    assert [u.id for u in read_back.includes.users or []] == [user["id"]]

    reply = client.posts.create(
        CreateRequest(text=f"xdk reply {stamp}", reply={"in_reply_to_tweet_id": original})
    )
    seen = app_client.posts.get_by_id(
        reply.data.id, post_fields=["conversation_id"], expansions=["referenced_posts"]
    )
    assert seen.data.conversation_id == original
    assert [p.id for p in seen.includes.posts or []] == [original]

    edit = client.posts.create(
        CreateRequest(text=f"xdk says hello, edited {stamp}", edit_options={"previous_post_id": original})
    )
    edited = edit.data.id
    assert edited != original
    latest = app_client.posts.get_by_id(edited, post_fields=["edit_controls"])
    assert latest.data.edit_history_post_ids == [original, edited]
    assert latest.data.edit_controls.edits_remaining == 4

    deleted = client.posts.delete(edited)
    assert isinstance(deleted, DeleteResponse)
    assert deleted.data.deleted is True
    gone = app_client.posts.get_by_id(edited)
    assert gone.data is None
    assert isinstance(gone.errors[0], ResourceNotFoundProblem)
    with pytest.raises(requests.HTTPError) as again:
        client.posts.delete(edited)
    assert again.value.response.status_code == 404


def test_oauth1_one_signer_per_user(server: LiveServer, credentials: dict[str, Any], make_user: Any) -> None:
    first, second = make_user(), make_user()
    stamp = uuid.uuid4().hex[:10]
    for who in (first, second):
        client = user_client(server, credentials, who["token"], who["secret"])
        made = client.posts.create(CreateRequest(text=f"xdk from {who['username']} {stamp}"))
        assert author_of(server, credentials, made.data.id) == who["id"]


def test_oauth1_bad_signature_is_refused(
    server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    user = make_user()
    forged = user_client(server, credentials, user["token"], user["secret"], consumer_secret="not-the-secret")
    with pytest.raises(requests.HTTPError) as refused:
        forged.posts.create(CreateRequest(text=f"never posted {uuid.uuid4().hex[:8]}"))
    assert refused.value.response.status_code == 401
    assert refused.value.response.json()["title"] == "Unauthorized"
    with pytest.raises(requests.HTTPError) as me:
        forged.users.get_me()
    assert me.value.response.status_code == 401
