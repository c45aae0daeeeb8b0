"""DM block and unblock, deleting one's own message, downloading a message's media: behaviour,
credentials and scopes, code 93, errors."""

from __future__ import annotations

from typing import Any

import httpx
from tests.api.helpers import User, bearer, import_media
from tests.api.test_dms import CODE_93, _oauth1_user, get, oauth2_token, send, send_ok
from tests.support.client import Api

REFUSED = {
    "detail": "You cannot send messages to this user.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}
NOT_PERMITTED = {
    "detail": "You are not permitted to perform this action.",
    "type": "about:blank",
    "title": "Forbidden",
    "status": 403,
}


def dm_block(api: Api, user: User, target: User, action: str = "block") -> httpx.Response:
    return api.post(f"/2/users/{target['id']}/dm/{action}", auth="none", headers=bearer(user))


def delete_event(api: Api, user: User, event_id: str) -> httpx.Response:
    return api.delete(f"/2/dm_events/{event_id}", auth="none", headers=bearer(user))


# ---- DM blocks ----------------------------------------------------------------------------------------


def test_dm_block_refuses_the_blocked_senders_messages(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    first = send_ok(api, bob, alice)
    response = dm_block(api, alice, bob)
    assert response.status_code == 200
    assert response.json() == {"data": {"blocked": True}}
    assert dm_block(api, alice, bob).json() == {"data": {"blocked": True}}  # again: no change

    response = send(api, bob, alice)
    assert response.status_code == 403
    assert response.json() == REFUSED
    # Into the 1:1 conversation by its id, too.
    response = api.post(
        f"/2/dm_conversations/{first['dm_conversation_id']}/messages",
        auth="none",
        headers=bearer(bob),
        json={"text": "still there?"},
    )
    assert response.status_code == 403
    assert response.json() == REFUSED
    # The blocker may still write, and the earlier messages stay.
    assert send(api, alice, bob).status_code == 201
    assert get(api, alice, f"/2/dm_events/{first['dm_event_id']}").status_code == 200

    response = dm_block(api, alice, bob, "unblock")
    assert response.status_code == 200
    assert response.json() == {"data": {"blocked": False}}
    assert dm_block(api, alice, bob, "unblock").json() == {"data": {"blocked": False}}
    assert send(api, bob, alice).status_code == 201


def test_dm_block_is_one_way_and_per_pair(api: Api, make_user: Any) -> None:
    alice, bob, carol = make_user(), make_user(), make_user()
    assert dm_block(api, alice, bob).status_code == 200
    assert send(api, carol, alice).status_code == 201
    assert send(api, bob, carol).status_code == 201


def test_dm_block_errors(api: Api, make_user: Any) -> None:
    alice = make_user()
    response = api.post("/2/users/1234567/dm/block", auth="none", headers=bearer(alice))
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameters": {"id": ["1234567"]}, "message": "Could not find user with id: [1234567]."}
    ]
    assert dm_block(api, alice, alice).status_code == 403
    assert api.post("/2/users/abc/dm/block", auth="none", headers=bearer(alice)).status_code == 400


def test_dm_block_credentials(api: Api, make_user: Any) -> None:
    bob = make_user()
    path = f"/2/users/{bob['id']}/dm/block"
    assert api.post(path).status_code == 403  # app-only
    no_dm = _oauth1_user(api, make_user, "read-write")
    headers = api.oauth1("POST", path, token=no_dm["token"], secret=no_dm["secret"])
    response = api.post(path, auth="none", headers=headers)
    assert response.status_code == 403
    assert response.json() == CODE_93
    with_dm = _oauth1_user(api, make_user, "read-write-directmessages")
    headers = api.oauth1("POST", path, token=with_dm["token"], secret=with_dm["secret"])
    response = api.post(path, auth="none", headers=headers)
    assert response.status_code == 200, response.text
    assert "x-user-limit-24hour-limit" in response.headers
    reader = make_user()
    token = oauth2_token(api, reader, "tweet.read users.read dm.read")
    response = api.post(path, auth="none", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 403


# ---- deleting a message -------------------------------------------------------------------------------


def test_delete_own_message(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    first = send_ok(api, alice, bob, text="oops")
    second = send_ok(api, bob, alice, text="reply")
    response = delete_event(api, alice, first["dm_event_id"])
    assert response.status_code == 200
    assert response.json() == {"data": {"deleted": True}}
    # Gone for both participants.
    for user in (alice, bob):
        body = get(api, user, f"/2/dm_conversations/{first['dm_conversation_id']}/dm_events").json()
        assert [item["id"] for item in body["data"]] == [second["dm_event_id"]]
    # Deleting it again: it no longer exists.
    response = delete_event(api, alice, first["dm_event_id"])
    assert response.status_code == 404
    assert response.json()["type"] == "https://api.x.com/2/problems/resource-not-found"


def test_delete_someone_elses_message(api: Api, make_user: Any) -> None:
    alice, bob, eve = make_user(), make_user(), make_user()
    sent = send_ok(api, alice, bob)
    response = delete_event(api, bob, sent["dm_event_id"])
    assert response.status_code == 403
    assert response.json() == NOT_PERMITTED
    # An outsider learns nothing about the event.
    response = delete_event(api, eve, sent["dm_event_id"])
    assert response.status_code == 404
    assert response.json()["resource_type"] == "dm_event"
    assert get(api, alice, f"/2/dm_events/{sent['dm_event_id']}").status_code == 200
    assert delete_event(api, alice, "abc").status_code == 400


def test_delete_credentials(api: Api, make_user: Any) -> None:
    alice, bob = make_user(), make_user()
    sent = send_ok(api, alice, bob)
    path = f"/2/dm_events/{sent['dm_event_id']}"
    assert api.delete(path).status_code == 403  # app-only
    no_dm = _oauth1_user(api, make_user, "read-write")
    headers = api.oauth1("DELETE", path, token=no_dm["token"], secret=no_dm["secret"])
    response = api.delete(path, auth="none", headers=headers)
    assert response.status_code == 403
    assert response.json() == CODE_93
    read_only = oauth2_token(api, alice, "dm.read")
    assert api.delete(path, auth="none", headers={"Authorization": f"Bearer {read_only}"}).status_code == 403
    both = oauth2_token(api, alice, "dm.read dm.write")
    response = api.delete(path, auth="none", headers={"Authorization": f"Bearer {both}"})
    assert response.status_code == 200, response.text


# ---- media download -----------------------------------------------------------------------------------


def _with_media(api: Api, make_user: Any) -> tuple[User, User, dict[str, Any], dict[str, str]]:
    alice, bob = make_user(), make_user()
    media = import_media(api, width=800, height=600, url="https://ton.twitter.com/dm/picture.jpg")
    sent = send_ok(api, alice, bob, text="a picture", attachments=[{"media_id": media["id"]}])
    return alice, bob, media, sent


def test_media_download(api: Api, make_user: Any) -> None:
    alice, bob, media, sent = _with_media(api, make_user)
    path = f"/2/dm_conversations/media/{sent['dm_event_id']}/{media['id']}/picture.jpg"
    for user in (alice, bob):
        response = api.get(path, auth="none", headers=bearer(user))
        assert response.status_code == 200
        assert response.headers["content-type"] == "application/octet-stream"
        assert response.content.startswith(b"\x89PNG\r\n\x1a\n")
    again = api.get(path, auth="none", headers=bearer(bob))
    assert again.content == response.content
    # OAuth 1.0a user context, as the platform's DM media description asks.
    headers = api.oauth1("GET", path, token=bob["token"], secret=bob["secret"])
    assert api.get(path, auth="none", headers=headers).content == response.content


def test_media_download_refusals(api: Api, make_user: Any) -> None:
    _, bob, media, sent = _with_media(api, make_user)
    path = f"/2/dm_conversations/media/{sent['dm_event_id']}/{media['id']}/picture.jpg"
    eve = make_user()
    response = api.get(path, auth="none", headers=bearer(eve))
    assert response.status_code == 404
    assert response.json()["resource_type"] == "dm_event"
    other = import_media(api)
    response = api.get(
        f"/2/dm_conversations/media/{sent['dm_event_id']}/{other['id']}/x.jpg",
        auth="none",
        headers=bearer(bob),
    )
    assert response.status_code == 404
    assert response.json()["resource_type"] == "media"
    assert api.get(path).status_code == 403  # app-only
    no_dm = _oauth1_user(api, make_user, "read-write")
    headers = api.oauth1("GET", path, token=no_dm["token"], secret=no_dm["secret"])
    response = api.get(path, auth="none", headers=headers)
    assert response.status_code == 403
    assert response.json() == CODE_93
    no_scope = oauth2_token(api, bob, "tweet.read users.read")
    response = api.get(path, auth="none", headers={"Authorization": f"Bearer {no_scope}"})
    assert response.status_code == 403
