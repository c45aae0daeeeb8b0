"""Users search (name, username, bio; paging; bounds; credentials) and an organisation's affiliates."""

from __future__ import annotations

import uuid
from typing import Any

from tests.api.helpers import bearer, invalid_request, not_found_item
from tests.api.test_dms import oauth2_token
from tests.support.client import Api


def word() -> str:
    return f"w{uuid.uuid4().hex[:10]}"


def search(api: Api, user: dict[str, Any], **params: str) -> dict[str, Any]:
    response = api.get("/2/users/search", auth="none", headers=bearer(user), params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_search_matches_name_username_and_bio(api: Api, make_user: Any) -> None:
    tag = word()
    by_name = make_user(name=f"Ada {tag.upper()}")
    by_bio = make_user(description=f"Writes about {tag} and more")
    by_username = make_user(username=f"u_{tag}")
    make_user(name="Someone Else", description="nothing to see")
    body = search(api, by_name, query=tag)
    assert {user["id"] for user in body["data"]} == {by_name["id"], by_bio["id"], by_username["id"]}
    assert body["meta"] == {"result_count": 3}
    assert set(body["data"][0]) == {"id", "name", "username"}
    # The exact username comes first.
    assert search(api, by_name, query=f"u_{tag}")["data"][0]["id"] == by_username["id"]


def test_every_word_must_match(api: Api, make_user: Any) -> None:
    first, second = word(), word()
    both = make_user(name=f"{first} Person", description=f"likes {second}")
    only_first = make_user(name=f"{first} Other")
    assert [u["id"] for u in search(api, both, query=f"{first} {second}")["data"]] == [both["id"]]
    assert {u["id"] for u in search(api, both, query=first)["data"]} == {both["id"], only_first["id"]}
    assert search(api, both, query=word()) == {"meta": {"result_count": 0}}


def test_protected_accounts_are_found(api: Api, make_user: Any) -> None:
    tag = word()
    locked = make_user(name=f"Locked {tag}", protected=True)
    viewer = make_user()
    body = search(api, viewer, query=tag, **{"user.fields": "protected"})
    assert body["data"] == [
        {"id": locked["id"], "name": f"Locked {tag}", "username": locked["username"], "protected": True}
    ]


def test_search_pages_with_next_token(api: Api, make_user: Any) -> None:
    tag = word()
    people = [make_user(description=f"{tag} fan") for _ in range(3)]
    first = search(api, people[0], query=tag, max_results="2")
    assert len(first["data"]) == 2
    second = search(api, people[0], query=tag, max_results="2", next_token=first["meta"]["next_token"])
    assert len(second["data"]) == 1
    assert "next_token" not in second["meta"]
    seen = {user["id"] for user in first["data"] + second["data"]}
    assert seen == {person["id"] for person in people}
    # A token of another query is refused.
    response = api.get(
        "/2/users/search",
        auth="none",
        headers=bearer(people[0]),
        params={"query": word(), "next_token": first["meta"]["next_token"]},
    )
    assert response.status_code == 400


def test_search_parameters(api: Api, make_user: Any) -> None:
    user = make_user()

    def status(**params: str) -> int:
        return api.get("/2/users/search", auth="none", headers=bearer(user), params=params).status_code

    response = api.get("/2/users/search", auth="none", headers=bearer(user), params={"query": "a-b"})
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"query": ["a-b"]},
            "message": "The `query` query parameter value [a-b] does not match ^[A-Za-z0-9_' ]{1,50}$",
        }
    )
    assert status(query="x" * 51) == 400
    assert status() == 400
    assert status(query="ok", max_results="0") == 400
    assert status(query="ok", max_results="1001") == 400
    assert status(query="ok", max_results="1000") == 200
    assert status(query="o'k name") == 200


def test_search_credentials(api: Api, make_user: Any) -> None:
    user = make_user()
    response = api.get("/2/users/search", params={"query": "roost"})  # app-only
    assert response.status_code == 403
    assert response.json()["type"] == "https://api.x.com/2/problems/unsupported-authentication"
    signed = api.oauth1("GET", "/2/users/search?query=roost", token=user["token"], secret=user["secret"])
    assert (
        api.get("/2/users/search", auth="none", headers=signed, params={"query": "roost"}).status_code == 200
    )
    token = oauth2_token(api, user, "tweet.read")
    response = api.get(
        "/2/users/search",
        auth="none",
        headers={"Authorization": f"Bearer {token}"},
        params={"query": "roost"},
    )
    assert response.status_code == 403


# ---- affiliates ------------------------------------------------------------------------------------------


def affiliated(api: Api, make_user: Any, org_id: str) -> dict[str, Any]:
    """A new user wearing the organisation's affiliate badge (set as a profile update)."""
    user: dict[str, Any] = make_user()
    badge = {"description": "Org", "user_id": [org_id], "url": "https://example.com"}
    response = api.http.patch(f"/_roost/users/{user['id']}/profile", json={"affiliation": badge})
    assert response.status_code == 200, response.text
    return user


def test_affiliates_of_an_organisation(api: Api, make_user: Any) -> None:
    org = make_user(name="Org", verified_type="business")
    staff = [affiliated(api, make_user, org["id"]) for _ in range(3)]
    affiliated(api, make_user, make_user()["id"])
    response = api.get(f"/2/users/{org['id']}/affiliates")  # app-only works
    assert response.status_code == 200
    body = response.json()
    assert [user["id"] for user in body["data"]] == sorted((s["id"] for s in staff), key=int)
    assert body["meta"] == {"result_count": 3}

    first = api.get(f"/2/users/{org['id']}/affiliates", params={"max_results": "2"}).json()
    assert len(first["data"]) == 2
    rest = api.get(
        f"/2/users/{org['id']}/affiliates",
        params={"max_results": "2", "pagination_token": first["meta"]["next_token"]},
    ).json()
    assert [user["id"] for user in first["data"] + rest["data"]] == [user["id"] for user in body["data"]]
    assert "next_token" not in rest["meta"]

    expanded = api.get(
        f"/2/users/{org['id']}/affiliates",
        params={"max_results": "1", "user.fields": "affiliation", "expansions": "affiliation.user_id"},
    ).json()
    assert expanded["data"][0]["affiliation"]["user_id"] == [org["id"]]
    assert expanded["includes"]["users"][0]["id"] == org["id"]


def test_affiliates_edge_cases(api: Api, make_user: Any) -> None:
    loner = make_user()
    assert api.get(f"/2/users/{loner['id']}/affiliates").json() == {"meta": {"result_count": 0}}
    assert api.get("/2/users/1234567/affiliates").json() == {
        "errors": [not_found_item("user", "id", "1234567")]
    }
    assert api.get(f"/2/users/{loner['id']}/affiliates", params={"max_results": "1001"}).status_code == 400
    response = api.get(f"/2/users/{loner['id']}/affiliates", auth="none", headers=bearer(loner))
    assert response.status_code == 200


def test_the_demo_has_an_organisation_with_affiliates(api: Api) -> None:
    org = api.get("/2/users/by/username/roost_labs").json()["data"]
    body = api.get(f"/2/users/{org['id']}/affiliates").json()
    assert [user["username"] for user in body["data"]] == ["ada_labs", "grace_labs", "linus_labs"]
    found = api.get("/2/users/search", auth="oauth2", params={"query": "roost labs"}).json()
    assert found["data"][0]["username"] == "roost_labs"
