"""News stories: published through the control plane, read by id and searched (docs/notes.md).

The 2.159 document's News requires `rest_id`, which the platform's example does not send (it sends
`id`); responses are checked against 2.167 instead, for the fields it defines alike."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from tests.api.helpers import PROBLEMS, create_ok, new_user
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

ALL_FIELDS = "category,cluster_posts_results,contexts,disclaimer,hook,id,name,summary,updated_at"
DISCLAIMER = (
    "This story is a summary of posts on X and may evolve over time. "
    "Grok can make mistakes, verify its outputs."
)


def publish(api: Api, **story: Any) -> dict[str, Any]:
    response = api.http.post("/_roost/news", json={"name": f"Story {uuid.uuid4().hex[:8]}", **story})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def get(api: Api, path: str, **params: str) -> dict[str, Any]:
    response = api.get(path, params=params, conform=False)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    if "keywords" not in params.get("news.fields", ""):
        assert_conforms("GET", path, 200, body, "post")
    return body


def test_a_published_story_is_read_by_id(api: Api) -> None:
    author = new_user(api)
    first, second = create_ok(api, author), create_ok(api, author)
    contexts = {
        "sports": {"teams": []},
        "entities": {
            "events": [],
            "organizations": ["Roost Labs"],
            "people": [],
            "places": [],
            "products": [],
        },
        "topics": ["Databases"],
        "finance": {"tickers": ["ACME"]},
    }
    story = publish(
        api,
        name="Roost ships a new release",
        summary="Developers report faster test suites after the release.",
        hook="A release that developers noticed.",
        category="Technology",
        contexts=contexts,
        keywords=["roost", "release"],
        cluster_post_ids=[first["id"], second["id"]],
    )
    path = f"/2/news/{story['id']}"
    assert get(api, path) == {"data": {"id": story["id"], "name": "Roost ships a new release"}}
    full = get(api, path, **{"news.fields": ALL_FIELDS})["data"]
    assert full == {
        "id": story["id"],
        "name": "Roost ships a new release",
        "category": "Technology",
        "summary": "Developers report faster test suites after the release.",
        "hook": "A release that developers noticed.",
        "disclaimer": DISCLAIMER,
        "contexts": contexts,
        "cluster_posts_results": [{"post_id": first["id"]}, {"post_id": second["id"]}],
        "updated_at": story["updated_at"],
    }
    # The seed's and the documentation's name for the same instant, and the keywords.
    named = get(api, path, **{"news.fields": "last_updated_at_ms,keywords"})["data"]
    assert named == {
        "id": story["id"],
        "name": "Roost ships a new release",
        "last_updated_at_ms": story["updated_at"],
        "keywords": ["roost", "release"],
    }


def test_an_unknown_story_is_a_partial_error(api: Api) -> None:
    body = get(api, "/2/news/12345")
    assert body == {
        "errors": [
            {
                "value": "12345",
                "detail": "Could not find news with id: [12345].",
                "title": "Not Found Error",
                "resource_type": "news",
                "parameter": "id",
                "resource_id": "12345",
                "type": PROBLEMS + "resource-not-found",
            }
        ]
    }
    bad = api.get("/2/news/abc")
    assert bad.status_code == 400
    unknown_field = api.get("/2/news/12345", params={"news.fields": "headline"})
    assert unknown_field.status_code == 400


def test_search_matches_every_word_latest_first(api: Api) -> None:
    word = f"w{uuid.uuid4().hex[:8]}"
    older = publish(api, name=f"Markets rally on {word}", summary="Stocks climbed.")
    newer = publish(api, name="Quiet day", summary=f"Little happened, {word.upper()} aside.")
    publish(api, name="Unrelated story")
    found = get(api, "/2/news/search", query=word)
    assert [story["id"] for story in found["data"]] == [newer["id"], older["id"]]
    assert found["meta"] == {"result_count": 2}
    both = get(api, "/2/news/search", query=f"markets {word}")
    assert [story["id"] for story in both["data"]] == [older["id"]]
    one = get(api, "/2/news/search", query=word, max_results="1", **{"news.fields": "summary"})
    assert one["data"] == [
        {"id": newer["id"], "name": "Quiet day", "summary": f"Little happened, {word.upper()} aside."}
    ]
    assert get(api, "/2/news/search", query=f"nothing{word}") == {"meta": {"result_count": 0}}


def test_search_parameters_are_bounded(api: Api) -> None:
    assert api.get("/2/news/search").status_code == 400
    too_old = api.get("/2/news/search", params={"query": "x", "max_age_hours": "721"})
    assert too_old.status_code == 400
    assert too_old.json()["errors"][0]["message"] == (
        "The `max_age_hours` query parameter value [721] is not between 1 and 720"
    )
    assert api.get("/2/news/search", params={"query": "x" * 2049}).status_code == 400


def test_news_takes_every_kind_of_credentials(api: Api) -> None:
    story = publish(api, name="Credentials story")
    for auth in ("app", "oauth2", "oauth1"):
        response: httpx.Response = api.get(f"/2/news/{story['id']}", auth=auth, conform=False)
        assert response.status_code == 200, (auth, response.text)


def test_publishing_is_validated(api: Api) -> None:
    refused = api.http.post("/_roost/news", json={"summary": "no name"})
    assert refused.status_code == 400
    unknown_post = api.http.post("/_roost/news", json={"name": "n", "cluster_post_ids": ["1"]})
    assert unknown_post.status_code == 400


def test_the_demo_has_news_stories_clustering_its_posts(api: Api) -> None:
    found = get(api, "/2/news/search", query="rust", **{"news.fields": "cluster_posts_results,contexts"})
    [story] = [
        item for item in found["data"] if item["name"] == "Rust keeps gaining ground with backend teams"
    ]
    assert story["contexts"]["topics"] == ["Programming"]
    assert story["cluster_posts_results"]
    first = story["cluster_posts_results"][0]["post_id"]
    post = api.get(f"/2/tweets/{first}").json()["data"]
    assert "#rustlang" in post["text"]
