"""xdk's community notes, news, communities, trends, articles and post analytics against roost (in
process, `base_url`), with OAuth 2.0 user tokens or the app's bearer token as the official document
declares for each call."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer
from xdk import Client
from xdk.articles.models import ArticleCreateDraftRequest
from xdk.community_notes.models import CreateRequest, EvaluateRequest
from xdk.schemas import ArticleCreateDraftContentState, CreateCommunityNotesInfo

pytestmark = pytest.mark.clients

SOURCE = "https://example.com/source"


def new_user(server: LiveServer, credentials: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A fresh account with an OAuth 2.0 user token of the demo app (every default scope)."""
    body = {"username": f"x_{uuid.uuid4().hex[:12]}", **fields}
    user: dict[str, Any] = httpx.post(server.base_url + "/_roost/users", json=body).json()
    token = httpx.post(
        server.base_url + "/_roost/tokens",
        json={"consumer_key": credentials["consumer_key"], "user_id": user["id"], "kind": "oauth2"},
    ).json()
    client = Client(base_url=server.base_url, access_token=token["access_token"])
    return {**user, "token": token["access_token"], "client": client}


def post_as(server: LiveServer, user: dict[str, Any], text: str, **body: Any) -> str:
    headers = {"Authorization": f"Bearer {user['token']}"}
    response = httpx.post(server.base_url + "/2/tweets", json={"text": text, **body}, headers=headers)
    assert response.status_code == 201, response.text
    return str(response.json()["data"]["id"])


def test_community_notes(server: LiveServer, credentials: dict[str, Any]) -> None:
    author, writer = new_user(server, credentials), new_user(server, credentials)
    assert httpx.put(server.base_url + f"/_roost/note_writers/{writer['id']}").status_code == 201
    post_id = post_as(server, author, f"xdk claim {uuid.uuid4().hex[:8]}")
    notes = writer["client"].community_notes

    feed = next(iter(notes.search_eligible_posts(test_mode=True, max_results=100)))
    assert post_id in [post.id for post in feed.data or []]
    score = notes.evaluate(EvaluateRequest(post_id=post_id, note_text=f"Sourced: {SOURCE}"))
    assert score.data is not None and 0.0 <= score.data.claim_opinion_score <= 1.0
    info = CreateCommunityNotesInfo(
        text=f"Context is missing, see {SOURCE}",
        classification="misinformed_or_potentially_misleading",
        misleading_tags=["missing_important_context"],
        trustworthy_sources=True,
    )
    created = notes.create(CreateRequest(test_mode=True, post_id=post_id, info=info))
    assert created.data is not None
    written = next(iter(notes.search_written(test_mode=True, note_fields=["id", "info", "status"])))
    [note] = written.data or []
    assert note.id == created.data.id
    assert note.info is not None and note.info.post_id == post_id
    assert note.status == "needs_more_ratings"
    assert notes.delete(created.data.id).data.deleted is True


def test_news_lookup_and_search(server: LiveServer, credentials: dict[str, Any]) -> None:
    word = f"x{uuid.uuid4().hex[:8]}"
    story = httpx.post(
        server.base_url + "/_roost/news", json={"name": f"Story about {word}", "summary": "A summary."}
    ).json()
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    got = app.news.get(story["id"], news_fields=["summary", "updated_at", "cluster_posts_results"])
    assert got.data is not None and got.data.name == f"Story about {word}"
    assert got.data.summary == "A summary." and got.data.updated_at == story["updated_at"]
    found = app.news.search(word, max_results=10)
    assert [item.id for item in found.data or []] == [story["id"]]


def test_communities_lookup_and_search(server: LiveServer, credentials: dict[str, Any]) -> None:
    creator = new_user(server, credentials)
    word = f"x{uuid.uuid4().hex[:8]}"
    made = httpx.post(
        server.base_url + "/_roost/communities", json={"name": f"{word} club", "creator_id": creator["id"]}
    ).json()
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    got = app.communities.get_by_id(made["id"], community_fields=["member_count", "access"])
    assert got.data is not None and got.data.member_count == 1 and got.data.access == "Public"
    page = next(iter(creator["client"].communities.search(word, max_results=10)))
    assert [item.id for item in page.data or []] == [made["id"]]
    assert post_as(server, creator, "into my community", community_id=made["id"])


def test_trends(server: LiveServer, credentials: dict[str, Any]) -> None:
    reader, followed = new_user(server, credentials), new_user(server, credentials)
    body = {"follower_id": reader["id"], "followee_id": followed["id"]}
    assert httpx.post(server.base_url + "/_roost/follows", json=body).status_code == 201
    tag = f"#x{uuid.uuid4().hex[:8]}"
    for index in range(2):
        post_as(server, followed, f"{tag} {index}")
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    world = app.trends.get_by_woeid(1, max_trends=5)
    assert len(world.data or []) == 5
    assert all(isinstance(item.tweet_count, int) for item in world.data or [])
    mine = reader["client"].trends.get_personalized()
    assert [(item.trend_name, item.post_count) for item in mine.data or []] == [(tag, "2")]


def test_articles_draft_and_publish(server: LiveServer, credentials: dict[str, Any]) -> None:
    author = new_user(server, credentials)
    content = ArticleCreateDraftContentState(blocks=[{"text": "Hello", "type": "unstyled"}], entities=[])
    draft = author["client"].articles.article_create_draft(
        ArticleCreateDraftRequest(title="An xdk article", content_state=content)
    )
    assert draft.data is not None and draft.data.title == "An xdk article"
    published = author["client"].articles.article_publish(draft.data.id)
    assert published.data is not None and published.data.post_id


def test_post_analytics(server: LiveServer, credentials: dict[str, Any]) -> None:
    author = new_user(server, credentials)
    post_id = post_as(server, author, "measure me")
    added = httpx.post(server.base_url + f"/_roost/tweets/{post_id}/metrics", json={"impressions": 42})
    assert added.status_code == 201
    # The window around the server's clock, which other tests on this server may have moved.
    now = datetime.fromisoformat(
        httpx.get(server.base_url + "/_roost/clock").json()["now"].replace("Z", "+00:00")
    )
    window = {
        "start_time": (now - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end_time": (now + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    result = author["client"].posts.get_analytics(
        [post_id], granularity="total", analytics_fields=["impressions", "engagements"], **window
    )
    [item] = result.data or []
    assert item.id == post_id and item.impressions == 42 and item.engagements == 0
