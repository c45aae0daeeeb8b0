"""Communities: lookup, search, and the community check of `POST /2/tweets` (the community exists,
the author is a member). Communities and members are made through the control plane."""

from __future__ import annotations

import uuid
from typing import Any

from tests.api.helpers import PROBLEMS, User, bearer, create, import_objects, lookup, new_user, next_import_id
from tests.support.client import Api

ALL_FIELDS = "access,created_at,description,id,join_policy,member_count,name"


def community(api: Api, creator: User, **fields: Any) -> dict[str, Any]:
    body = {"name": f"c {uuid.uuid4().hex[:8]}", "creator_id": creator["id"], **fields}
    response = api.http.post("/_roost/communities", json=body)
    assert response.status_code == 201, response.text
    made: dict[str, Any] = response.json()
    return made


def join(api: Api, community_id: str, user: User) -> int:
    return api.http.put(f"/_roost/communities/{community_id}/members/{user['id']}").status_code


def test_lookup_with_default_and_all_fields(api: Api) -> None:
    creator, member = new_user(api), new_user(api)
    made = community(api, creator, name="Rust in prod", description="Running #rustlang in production")
    assert join(api, made["id"], member) == 201
    assert join(api, made["id"], member) == 200
    path = f"/2/communities/{made['id']}"
    assert api.get(path).json() == {"data": {"id": made["id"], "name": "Rust in prod"}}
    full = api.get(path, params={"community.fields": ALL_FIELDS}, auth="oauth2").json()["data"]
    assert full == {
        "id": made["id"],
        "name": "Rust in prod",
        "description": "Running #rustlang in production",
        "access": "Public",
        "join_policy": "Open",
        "member_count": 2,
        "created_at": made["created_at"],
    }


def test_an_unknown_community_is_a_partial_error(api: Api) -> None:
    assert api.get("/2/communities/42").json() == {
        "errors": [
            {
                "value": "42",
                "detail": "Could not find community with id: [42].",
                "title": "Not Found Error",
                "resource_type": "community",
                "parameter": "id",
                "resource_id": "42",
                "type": PROBLEMS + "resource-not-found",
            }
        ]
    }


def test_search_matches_every_word_most_members_first(api: Api) -> None:
    word = f"k{uuid.uuid4().hex[:8]}"
    creator = new_user(api)
    small = community(api, creator, name=f"{word} readers")
    big = community(api, creator, name="Book club", description=f"All about {word.upper()} and more")
    other = community(api, creator, name="Unrelated")
    for _ in range(2):
        assert join(api, big["id"], new_user(api)) == 201
    found = api.get("/2/communities/search", params={"query": word}, auth="oauth2").json()
    assert [item["id"] for item in found["data"]] == [big["id"], small["id"]]
    assert other["id"] not in [item["id"] for item in found["data"]]
    narrowed = api.get("/2/communities/search", params={"query": f"{word} readers"}, auth="oauth2").json()
    assert [item["id"] for item in narrowed["data"]] == [small["id"]]
    empty = api.get("/2/communities/search", params={"query": f"none{word}"}, auth="oauth2")
    assert empty.json() == {"meta": {"result_count": 0}}


def test_search_pages_with_next_token(api: Api) -> None:
    word = f"p{uuid.uuid4().hex[:8]}"
    creator = new_user(api)
    made = [community(api, creator, name=f"{word} {index}") for index in range(12)]
    first = api.get("/2/communities/search", params={"query": word}, auth="oauth2").json()
    assert len(first["data"]) == 10
    rest = api.get(
        "/2/communities/search",
        params={"query": word, "next_token": first["meta"]["next_token"]},
        auth="oauth2",
    ).json()
    assert len(rest["data"]) == 2
    assert {item["id"] for item in first["data"] + rest["data"]} == {item["id"] for item in made}


def test_search_needs_a_user_and_bounded_parameters(api: Api) -> None:
    app_only = api.get("/2/communities/search", params={"query": "x"})
    assert app_only.status_code == 403
    small = api.get("/2/communities/search", params={"query": "x", "max_results": "9"}, auth="oauth2")
    assert small.status_code == 400


def test_posting_into_a_community_needs_membership(api: Api) -> None:
    creator, member, outsider = new_user(api), new_user(api), new_user(api)
    made = community(api, creator)
    assert join(api, made["id"], member) == 201
    posted = create(api, member, community_id=made["id"])
    assert posted.status_code == 201, posted.text
    shown = lookup(api, posted.json()["data"]["id"], **{"tweet.fields": "community_id"})["data"]
    assert shown["community_id"] == made["id"]

    refused = create(api, outsider, community_id=made["id"])
    assert refused.status_code == 403
    assert refused.json()["detail"] == "You are not a member of this community."
    unknown = create(api, member, community_id="99")
    assert unknown.status_code == 400
    assert unknown.json()["errors"] == [
        {
            "parameters": {"community_id": ["99"]},
            "message": "Could not find community with community_id: [99].",
        }
    ]
    # Nothing was posted by the refused requests.
    mine = api.get(f"/2/users/{outsider['id']}/tweets", auth="none", headers=bearer(outsider))
    assert mine.json()["meta"]["result_count"] == 0


def test_the_demo_has_communities_with_members(api: Api, credentials: dict[str, Any]) -> None:
    found = api.get(
        "/2/communities/search", params={"query": "rustaceans", "community.fields": ALL_FIELDS}, auth="oauth2"
    ).json()
    [rust] = [item for item in found["data"] if item["name"] == "Rustaceans"]
    assert rust["member_count"] >= 2
    assert rust["access"] == "Public"
    # The demo user created it, so may post into it.
    posted = api.post(
        "/2/tweets", auth="oauth2", json={"text": "hello rustaceans", "community_id": rust["id"]}
    )
    assert posted.status_code == 201, posted.text


def test_export_and_import_carry_communities_notes_and_news(api: Api) -> None:
    exported = api.http.get("/_roost/export").json()
    for section in ("note_writers", "notes", "news", "communities", "community_members"):
        assert exported[section], section
    [rust] = [item for item in exported["communities"] if item["name"] == "Rustaceans"]
    assert set(rust) == {*ALL_FIELDS.split(","), "creator_id"}

    creator = new_user(api)
    community_id = next_import_id()
    story_id = next_import_id()
    payload = {
        "communities": [
            {"id": community_id, "name": "Imported", "creator_id": creator["id"], "member_count": 1}
        ],
        "community_members": [{"community_id": community_id, "user_id": creator["id"], "role": "Admin"}],
        "news": [{"id": story_id, "name": "Imported story", "keywords": ["imported"]}],
    }
    base = {"users": 0, "tweets": 0, "media": 0}
    assert import_objects(api, payload) == {**base, "communities": 1, "community_members": 1, "news": 1}
    assert import_objects(api, payload) == {**base, "communities": 0, "community_members": 0, "news": 0}
    shown = api.get(f"/2/communities/{community_id}", params={"community.fields": "member_count"}).json()
    assert shown["data"]["member_count"] == 1
    assert create(api, creator, community_id=community_id).status_code == 201
    assert api.get(f"/2/news/{story_id}", conform=False).json()["data"]["name"] == "Imported story"
