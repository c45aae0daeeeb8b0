"""Hidden replies (`PUT /2/tweets/{tweet_id}/hidden`): only the author of the conversation's first
post hides or unhides its replies; a hidden reply stays readable (the platform moves it behind "View
hidden replies", it does not remove it)."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import PROBLEMS, User, bearer, create_ok, lookup, new_user
from tests.support.client import Api

FORBIDDEN = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def hide(api: Api, user: User, post_id: str, body: Any) -> httpx.Response:
    return api.request("PUT", f"/2/tweets/{post_id}/hidden", auth="none", headers=bearer(user), json=body)


def test_the_conversation_author_hides_and_unhides_a_reply(api: Api) -> None:
    author, replier = new_user(api), new_user(api)
    root = create_ok(api, author)
    reply = create_ok(api, replier, reply={"in_reply_to_tweet_id": root["id"]})
    # A reply deeper in the thread belongs to the same conversation.
    deeper = create_ok(api, replier, reply={"in_reply_to_tweet_id": reply["id"]})

    response = hide(api, author, reply["id"], {"hidden": True})
    assert response.status_code == 200
    assert response.json() == {"data": {"hidden": True}}
    assert hide(api, author, deeper["id"], {"hidden": True}).json() == {"data": {"hidden": True}}
    # Hiding is idempotent, and unhiding answers false.
    assert hide(api, author, reply["id"], {"hidden": True}).json() == {"data": {"hidden": True}}
    assert hide(api, author, reply["id"], {"hidden": False}).json() == {"data": {"hidden": False}}

    # Still readable, still counted.
    assert lookup(api, deeper["id"])["data"]["id"] == deeper["id"]
    metrics = lookup(api, root["id"], **{"tweet.fields": "public_metrics"})["data"]["public_metrics"]
    assert metrics["reply_count"] == 1


def test_only_the_conversation_author(api: Api) -> None:
    author, replier, other = new_user(api), new_user(api), new_user(api)
    root = create_ok(api, author)
    reply = create_ok(api, replier, reply={"in_reply_to_tweet_id": root["id"]})
    for who in (replier, other):
        response = hide(api, who, reply["id"], {"hidden": True})
        assert response.status_code == 403
        assert response.json() == FORBIDDEN
    # A post that is not a reply cannot be hidden, even by its author.
    response = hide(api, author, root["id"], {"hidden": True})
    assert response.status_code == 403


def test_errors(api: Api) -> None:
    author, replier = new_user(api), new_user(api)
    root = create_ok(api, author)
    reply = create_ok(api, replier, reply={"in_reply_to_tweet_id": root["id"]})
    response = hide(api, author, "1", {"hidden": True})
    assert response.status_code == 404
    assert response.json()["detail"] == "Could not find tweet with id: [1]."
    response = hide(api, author, reply["id"], {})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {}, "message": "$.hidden: is missing but it is required"}
    ]
    response = hide(api, author, reply["id"], {"hidden": "yes"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == "$.hidden: string found, boolean expected"
    response = hide(api, author, reply["id"], {"hidden": True, "extra": 1})
    assert response.status_code == 400
    # An app-only token cannot moderate.
    response = api.request("PUT", f"/2/tweets/{reply['id']}/hidden", json={"hidden": True})
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"


def test_export_and_import_carry_the_hidden_flag(api: Api) -> None:
    author, replier = new_user(api), new_user(api)
    root = create_ok(api, author)
    reply = create_ok(api, replier, reply={"in_reply_to_tweet_id": root["id"]})
    shown = create_ok(api, replier, reply={"in_reply_to_tweet_id": root["id"]})
    assert hide(api, author, reply["id"], {"hidden": True}).status_code == 200
    exported = api.http.get("/_roost/export").json()
    assert reply["id"] in exported["hidden_replies"]
    assert shown["id"] not in exported["hidden_replies"]

    assert hide(api, author, reply["id"], {"hidden": False}).status_code == 200
    assert reply["id"] not in api.http.get("/_roost/export").json()["hidden_replies"]
    imported = api.http.post("/_roost/import", json={"hidden_replies": [reply["id"]]})
    assert imported.status_code == 200, imported.text
    assert reply["id"] in api.http.get("/_roost/export").json()["hidden_replies"]
    bad = api.http.post("/_roost/import", json={"hidden_replies": "x"})
    assert bad.status_code == 400
