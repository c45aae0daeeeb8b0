"""Articles: a draft checked against the document's schema, and its publication as a post by its
author (docs/notes.md)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.api.helpers import User, bearer, lookup, new_user
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

CONTENT = {
    "blocks": [
        {"text": "Why roost", "type": "header-one"},
        {
            "text": "A faithful local platform for #testing",
            "type": "unstyled",
            "inline_style_ranges": [{"offset": 2, "length": 8, "style": "bold"}],
            "data": {"hashtags": [{"from_index": 30, "to_index": 38, "text": "testing"}]},
        },
        {"text": " ", "type": "atomic", "entity_ranges": [{"key": 0, "offset": 0, "length": 1}]},
    ],
    "entities": [
        {
            "key": "0",
            "value": {"type": "link", "mutability": "mutable", "data": {"url": "https://example.com/roost"}},
        }
    ],
}


def draft(api: Api, user: User, body: dict[str, Any]) -> httpx.Response:
    return api.post("/2/articles/draft", auth="none", headers=bearer(user), json=body)


def test_a_draft_is_published_as_a_post_by_its_author(api: Api) -> None:
    author = new_user(api)
    created = draft(api, author, {"title": "Testing against roost", "content_state": CONTENT})
    assert created.status_code == 201, created.text
    # The operations are 2.167's only: their answers are held to it.
    assert_conforms("POST", "/2/articles/draft", 201, created.json(), "post")
    data = created.json()["data"]
    assert data["title"] == "Testing against roost"
    path = f"/2/articles/{data['id']}/publish"
    published = api.post(path, auth="none", headers=bearer(author))
    assert published.status_code == 200, published.text
    assert_conforms("POST", path, 200, published.json(), "post")
    post_id = published.json()["data"]["post_id"]
    post = lookup(api, post_id, **{"tweet.fields": "author_id"})["data"]
    assert post["author_id"] == author["id"]
    assert post["text"].startswith("Testing against roost https://")
    again = api.post(path, auth="none", headers=bearer(author))
    assert again.status_code == 403
    assert again.json()["detail"] == "This article is already published."


def test_only_the_author_publishes_and_unknown_articles_are_not_found(api: Api) -> None:
    author, other = new_user(api), new_user(api)
    article_id = draft(api, author, {"title": "Mine", "content_state": CONTENT}).json()["data"]["id"]
    refused = api.post(f"/2/articles/{article_id}/publish", auth="none", headers=bearer(other))
    assert refused.status_code == 403
    missing = api.post("/2/articles/12345/publish", auth="none", headers=bearer(author))
    assert missing.status_code == 404
    assert missing.json()["detail"] == "Could not find article with article_id: [12345]."


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"content_state": CONTENT}, "$.title: is missing but it is required"),
        ({"title": "", "content_state": CONTENT}, "$.title: must be at least 1 characters long"),
        (
            {"title": "t", "content_state": {"blocks": []}},
            "$.content_state.entities: is missing but it is required",
        ),
        (
            {
                "title": "t",
                "content_state": {"blocks": [{"text": "x", "type": "header-nine"}], "entities": []},
            },
            "$.content_state.blocks[0].type: does not have a value in the enumeration [unstyled, header-one, "
            "header-two, header-three, unordered-list-item, ordered-list-item, blockquote, atomic]",
        ),
        (
            {"title": "t", "content_state": CONTENT, "cover_media": {"media_id": "1"}},
            "$.cover_media.media_category: is missing but it is required",
        ),
        (
            {"title": "t", "content_state": CONTENT, "extra": True},
            "$.extra: is not defined in the schema and the schema does not allow additional properties",
        ),
    ],
)
def test_drafts_are_validated(api: Api, body: dict[str, Any], message: str) -> None:
    response = draft(api, new_user(api), body)
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameters": {}, "message": message}]


def test_articles_need_a_user(api: Api) -> None:
    response = api.post("/2/articles/draft", json={"title": "t", "content_state": CONTENT})
    assert response.status_code == 403
