"""Community notes: writing (test notes only), evaluating, the notes written, the posts eligible for a
note and deleting, for enrolled note writers (docs/notes.md).

The 2.159 document's Note requires `post_id` and `note_info` (a property it does not define) and
documents the create as a 200; responses are checked against 2.167 instead (docs/decisions.md)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.api.helpers import User, bearer, create_ok, new_user
from tests.conformance.oracle import assert_conforms
from tests.support.client import Api

NOTES = "/2/notes"
WRITTEN = "/2/notes/search/notes_written"
ELIGIBLE = "/2/notes/search/posts_eligible_for_notes"
NOT_A_WRITER = "User must be an API Note Writer to access this endpoint."
SOURCE = "https://example.com/source"


def writer(api: Api) -> User:
    user = new_user(api)
    enrolled = api.http.put(f"/_roost/note_writers/{user['id']}")
    assert enrolled.status_code == 201, enrolled.text
    return user


def conforming(response: httpx.Response) -> dict[str, Any]:
    """The body, held to the 2.167 document."""
    request = response.request
    body: dict[str, Any] = response.json()
    assert_conforms(request.method, request.url.path, response.status_code, body, "post")
    return body


def note_body(post_id: str, **info: Any) -> dict[str, Any]:
    return {
        "test_mode": True,
        "post_id": post_id,
        "info": {
            "text": f"The figure is from 2019, see {SOURCE}",
            "classification": "misinformed_or_potentially_misleading",
            "misleading_tags": ["outdated_information"],
            "trustworthy_sources": True,
            **info,
        },
    }


def write(api: Api, user: User, body: dict[str, Any]) -> httpx.Response:
    return api.post(NOTES, auth="none", headers=bearer(user), json=body, conform=False)


def written(api: Api, user: User, **params: str) -> dict[str, Any]:
    response = api.get(
        WRITTEN, auth="none", headers=bearer(user), params={"test_mode": "true", **params}, conform=False
    )
    assert response.status_code == 200, response.text
    return conforming(response)


def eligible(api: Api, user: User, **params: str) -> httpx.Response:
    query = {"test_mode": "true", "max_results": "100", **params}
    return api.get(ELIGIBLE, auth="none", headers=bearer(user), params=query)


@pytest.fixture()
def author(api: Api) -> User:
    return new_user(api)


def test_a_writer_writes_lists_and_deletes_a_test_note(api: Api, author: User) -> None:
    me = writer(api)
    post = create_ok(api, author, text="Unemployment is at a record low")
    created = write(api, me, note_body(post["id"]))
    assert created.status_code == 201, created.text
    note_id = conforming(created)["data"]["id"]
    assert note_id.isdigit()

    listing = written(api, me)
    assert listing["data"] == [
        {
            "id": note_id,
            "info": {
                "text": f"The figure is from 2019, see {SOURCE}",
                "classification": "misinformed_or_potentially_misleading",
                "misleading_tags": ["outdated_information"],
                "post_id": post["id"],
                "trustworthy_sources": True,
            },
        }
    ]
    assert listing["meta"] == {"result_count": 1}
    chosen = written(api, me, **{"note.fields": "id,status,test_result"})["data"][0]
    assert chosen["status"] == "needs_more_ratings"
    assert chosen["test_result"] == {
        "evaluation_outcome": [{"evaluator_type": "ClaimOpinion", "evaluator_score_bucket": "Low"}]
    }
    # Nothing was written outside test mode.
    assert written(api, me, test_mode="false") == {"meta": {"result_count": 0}}

    deleted = api.delete(f"{NOTES}/{note_id}", auth="none", headers=bearer(me), conform=False)
    assert deleted.status_code == 200, deleted.text
    assert conforming(deleted) == {"data": {"deleted": True}}
    assert written(api, me) == {"meta": {"result_count": 0}}
    gone = api.delete(f"{NOTES}/{note_id}", auth="none", headers=bearer(me), conform=False)
    assert gone.status_code == 404
    assert gone.json()["detail"] == f"Could not find note with id: [{note_id}]."


def test_one_note_per_writer_per_post(api: Api, author: User) -> None:
    me = writer(api)
    post = create_ok(api, author)
    assert write(api, me, note_body(post["id"])).status_code == 201
    again = write(api, me, note_body(post["id"], classification="not_misleading", misleading_tags=[]))
    assert again.status_code == 403
    assert again.json()["detail"] == "User already created a note for this post."
    # Another writer may note the same post.
    assert write(api, writer(api), note_body(post["id"])).status_code == 201


def test_only_enrolled_writers_may_use_notes(api: Api, author: User) -> None:
    outsider = new_user(api)
    post = create_ok(api, author)
    for response in (
        write(api, outsider, note_body(post["id"])),
        api.get(WRITTEN, auth="none", headers=bearer(outsider), params={"test_mode": "true"}),
        eligible(api, outsider),
        api.post(
            "/2/notes/evaluate",
            auth="none",
            headers=bearer(outsider),
            json={"post_id": post["id"], "note_text": SOURCE},
            conform=False,
        ),
    ):
        assert response.status_code == 403, response.text
        assert response.json() == {
            "detail": NOT_A_WRITER,
            "type": "about:blank",
            "title": "Forbidden",
            "status": 403,
        }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"text": "no source given here"},
            "$.info.text: does not match the regex pattern ^(?=[\\s\\S]*https?://\\S+)[\\s\\S]+$",
        ),
        ({"text": "x" * 260 + " " + SOURCE}, "$.info.text: may only be 280 characters long"),
        (
            {"misleading_tags": []},
            "$.info.misleading_tags: at least one tag is required when classification is "
            "misinformed_or_potentially_misleading",
        ),
        (
            {"classification": "not_misleading"},
            "$.info.misleading_tags: must be empty when classification is not_misleading",
        ),
        (
            {"classification": "wrong"},
            "$.info.classification: does not have a value in the enumeration "
            "[misinformed_or_potentially_misleading, not_misleading]",
        ),
        (
            {"misleading_tags": ["made_up"]},
            "$.info.misleading_tags[0]: does not have a value in the enumeration [disputed_claim_as_fact, "
            "factual_error, manipulated_media, misinterpreted_satire, missing_important_context, other, "
            "outdated_information]",
        ),
        ({"trustworthy_sources": "yes"}, "$.info.trustworthy_sources: string found, boolean expected"),
        (
            {"extra": 1},
            "$.info.extra: is not defined in the schema and the schema does not allow additional properties",
        ),
    ],
)
def test_note_contents_are_validated(api: Api, author: User, change: dict[str, Any], message: str) -> None:
    me = writer(api)
    post = create_ok(api, author)
    response = write(api, me, note_body(post["id"], **change))
    assert response.status_code == 400, response.text
    assert response.json()["errors"] == [{"parameters": {}, "message": message}]


def test_test_mode_is_required_to_write(api: Api, author: User) -> None:
    me = writer(api)
    post = create_ok(api, author)
    response = write(api, me, {**note_body(post["id"]), "test_mode": False})
    assert response.status_code == 403
    assert (
        response.json()["detail"] == "Only test notes can be written through the API: test_mode must be true."
    )
    missing = write(api, me, {"post_id": post["id"], "info": note_body(post["id"])["info"]})
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["message"] == "$.test_mode: is missing but it is required"
    listed = api.get(WRITTEN, auth="none", headers=bearer(me))
    assert listed.status_code == 400
    assert api.get(WRITTEN, auth="none", headers=bearer(me), params={"test_mode": "yes"}).status_code == 400


def test_notes_need_an_eligible_post(api: Api, author: User) -> None:
    me = writer(api)
    own = create_ok(api, me)
    refused = write(api, me, note_body(own["id"]))
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "parameters": {"post_id": [own["id"]]},
            "message": f"The post with post_id: [{own['id']}] is not eligible for notes.",
        }
    ]
    missing = write(api, me, note_body("1"))
    assert missing.status_code == 400
    assert missing.json()["errors"][0]["message"] == "Could not find tweet with post_id: [1]."
    hidden_author = new_user(api, protected=True)
    hidden = create_ok(api, hidden_author)
    assert write(api, me, note_body(hidden["id"])).status_code == 400


def test_eligible_posts_are_recent_public_posts_of_others_not_yet_noted(api: Api, author: User) -> None:
    me = writer(api)
    protected_author = new_user(api, protected=True)
    older = create_ok(api, author)
    hidden = create_ok(api, protected_author)
    own = create_ok(api, me)
    noted = create_ok(api, author)
    newer = create_ok(api, author)
    assert write(api, me, note_body(noted["id"])).status_code == 201

    response = eligible(api, me)
    assert response.status_code == 200, response.text
    body = response.json()
    ids = [post["id"] for post in body["data"]]
    assert ids[:2] == [newer["id"], older["id"]]
    assert not {hidden["id"], own["id"], noted["id"]} & set(ids)
    assert body["meta"]["newest_id"] == ids[0]
    assert body["meta"]["oldest_id"] == ids[-1]
    assert body["meta"]["result_count"] == len(ids)

    first = eligible(api, me, max_results="1", **{"post.fields": "author_id"}).json()
    assert first["data"] == [
        {
            "id": newer["id"],
            "text": newer["text"],
            "edit_history_post_ids": [newer["id"]],
            "author_id": author["id"],
        }
    ]
    following = eligible(api, me, max_results="1", pagination_token=first["meta"]["next_token"]).json()
    assert [post["id"] for post in following["data"]] == [older["id"]]

    assert eligible(api, me, post_selection="feed_size: small, feed_lang: all").status_code == 200
    assert eligible(api, me, post_selection="feed_lang: ja").json()["meta"] == {"result_count": 0}
    large = eligible(api, me, post_selection="feed_size: large")
    assert large.status_code == 403
    assert large.json()["detail"] == "Only top AI writers have access to large and xl size feeds."
    assert eligible(api, me, post_selection="feed_size: huge").status_code == 400


@pytest.mark.parametrize("path", ["/2/notes/evaluate", "/2/evaluate_note"])
def test_evaluate_scores_opinions_above_sourced_claims(api: Api, author: User, path: str) -> None:
    me = writer(api)
    post = create_ok(api, author)

    def score(text: str) -> float:
        response = api.post(
            path,
            auth="none",
            headers=bearer(me),
            json={"post_id": post["id"], "note_text": text},
            conform=False,
        )
        assert response.status_code == 200, response.text
        body = response.json()
        if path == "/2/notes/evaluate":
            conforming(response)
        value = body["data"]["claim_opinion_score"]
        assert isinstance(value, float)
        return float(value)

    sourced = score(f"The law passed in 2021 according to the official record {SOURCE}")
    opinion = score("I think this is obviously TERRIBLE and honestly the worst take!!")
    assert 0.0 <= sourced < opinion <= 1.0
    assert score(f"The law passed in 2021 according to the official record {SOURCE}") == sourced


def test_only_the_writer_deletes_a_note(api: Api, author: User) -> None:
    me, other = writer(api), writer(api)
    post = create_ok(api, author)
    note_id = write(api, me, note_body(post["id"])).json()["data"]["id"]
    refused = api.delete(f"{NOTES}/{note_id}", auth="none", headers=bearer(other))
    assert refused.status_code == 403
    assert refused.json()["detail"] == "You are not allowed to delete a note that is not yours."
    assert [note["id"] for note in written(api, me)["data"]] == [note_id]


def test_notes_take_oauth1_user_context_and_refuse_app_only(api: Api, author: User) -> None:
    me = writer(api)
    post = create_ok(api, author)
    signed = api.oauth1("POST", NOTES, token=me["token"], secret=me["secret"])
    response = api.post(NOTES, auth="none", headers=signed, json=note_body(post["id"]), conform=False)
    assert response.status_code == 201, response.text
    app_only = api.get(WRITTEN, params={"test_mode": "true"})
    assert app_only.status_code == 403
    assert app_only.json()["type"] == "https://api.x.com/2/problems/unsupported-authentication"


def test_the_demo_user_is_a_note_writer_with_test_notes(api: Api) -> None:
    response = api.get(WRITTEN, auth="oauth2", params={"test_mode": "true"}, conform=False)
    assert response.status_code == 200, response.text
    body = conforming(response)
    assert body["meta"]["result_count"] >= 2
    classifications = {note["info"]["classification"] for note in body["data"]}
    assert classifications == {"misinformed_or_potentially_misleading", "not_misleading"}
    feed = api.get(ELIGIBLE, auth="oauth2", params={"test_mode": "true"})
    assert feed.status_code == 200, feed.text
    noted = {note["info"]["post_id"] for note in body["data"]}
    assert not noted & {post["id"] for post in feed.json().get("data", [])}
