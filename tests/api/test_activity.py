"""Activity-event (XAA) subscriptions: CRUD, body validation, legacy names by the clock, scope rules."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS, User, bearer, new_user
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

SUBS = "/2/activity/subscriptions"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "activity_subscription_limit": "6"}
    live = LiveServer(tag="activity", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    api.http.post("/_roost/clock", json={"set": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    listed = api.get(SUBS, conform=False).json()
    ids = [sub["subscription_id"] for sub in listed.get("data", [])]
    if ids:
        api.delete(SUBS, params={"ids": ",".join(ids)}, conform=False)
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")


@pytest.fixture(scope="module")
def user(api_module: Api) -> User:
    return new_user(api_module)


@pytest.fixture(scope="module")
def api_module(server: LiveServer, credentials: dict[str, Any]) -> Iterator[Api]:
    client = Api(server.base_url, credentials)
    yield client
    client.close()


def subscribe(api: Api, body: dict[str, Any], **kwargs: Any) -> httpx.Response:
    return api.post(SUBS, json=body, **kwargs)


def message_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request"
    assert body["title"] == "Invalid Request"
    message: str = body["errors"][0]["message"]
    return message


def test_create_list_update_delete(api: Api, user: User, credentials: dict[str, Any]) -> None:
    created = subscribe(api, {"event_type": "post.create", "filter": {"user_id": user["id"]}, "tag": "posts"})
    assert created.status_code == 200, created.text
    sub = created.json()["data"]["subscription"]
    assert sub["event_type"] == "post.create"
    assert sub["filter"] == {"user_id": user["id"]}
    assert sub["tag"] == "posts"
    assert "webhook_id" not in sub
    assert sub["created_at"].endswith("Z") and sub["updated_at"] == sub["created_at"]

    listed = api.get(SUBS).json()
    assert [item["subscription_id"] for item in listed["data"]] == [sub["subscription_id"]]
    assert listed["meta"]["total_subscriptions"] == 1

    path = f"{SUBS}/{sub['subscription_id']}"
    updated = api.request("PUT", path, json={"tag": "renamed"})
    assert updated.status_code == 200, updated.text
    data = updated.json()["data"]
    assert data["subscription"]["tag"] == "renamed" and data["total_subscriptions"] == 1
    assert data["subscription"]["filter"] == {"user_id": user["id"]}

    deleted = api.delete(path)
    assert deleted.json() == {"data": {"deleted": True}, "meta": {"total_subscriptions": 0}}
    again = api.delete(path)
    assert message_of(again).startswith("SubscriptionNotFound:")
    assert "data" not in api.get(SUBS).json()


def test_user_contexts_and_pagination(api: Api, user: User) -> None:
    as_oauth2 = subscribe(
        api,
        {"event_type": "follow.follow", "filter": {"user_id": user["id"]}},
        auth="none",
        headers=bearer(user),
    )
    assert as_oauth2.status_code == 200, as_oauth2.text
    as_oauth1 = api.post(
        SUBS,
        auth="none",
        headers=api.oauth1("POST", SUBS, token=user["token"], secret=user["secret"]),
        json={"event_type": "profile.update.bio", "filter": {"user_id": user["id"]}},
    )
    assert as_oauth1.status_code == 200, as_oauth1.text
    subscribe(api, {"event_type": "post.delete", "filter": {"user_id": user["id"]}})
    first = api.get(SUBS, params={"max_results": 2}).json()
    assert len(first["data"]) == 2 and first["meta"]["total_subscriptions"] == 3
    rest = api.get(SUBS, params={"max_results": 2, "pagination_token": first["meta"]["next_token"]}).json()
    assert len(rest["data"]) == 1 and "next_token" not in rest["meta"]
    # Subscriptions belong to the app, whoever created them.
    as_user = api.get(SUBS, auth="none", headers=bearer(user)).json()
    assert len(as_user["data"]) == 3
    bad = api.get(SUBS, params={"pagination_token": "zzzzzzzzzzzzzzzzzz"})
    assert bad.status_code == 400


def test_delete_by_ids(api: Api, user: User) -> None:
    sub = subscribe(api, {"event_type": "post.create", "filter": {"user_id": user["id"]}}).json()["data"]
    sub_id = sub["subscription"]["subscription_id"]
    response = api.delete(SUBS, params={"ids": f"{sub_id},123"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["data"] == [
        {"subscription_id": sub_id, "deleted": True},
        {"subscription_id": "123", "deleted": False},
    ]
    assert body["errors"][0]["subscription_id"] == "123"
    assert body["errors"][0]["reason"] == "SubscriptionNotFound"
    assert body["meta"] == {"total_subscriptions": 0}
    assert api.delete(SUBS, params={"ids": "abc"}).status_code == 400


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"filter": {"user_id": "1"}}, "$.event_type: is missing but it is required"),
        ({"event_type": "post.create"}, "$.filter: is missing but it is required"),
        ({"event_type": "post.nope", "filter": {}}, "$.event_type: does not have a value in the enumeration"),
        ({"event_type": 3, "filter": {}}, "$.event_type: integer found, string expected"),
        ({"event_type": "post.create", "filter": {}, "extra": 1}, "$.extra: is not defined in the schema"),
        ({"event_type": "post.create", "filter": []}, "$.filter: array found, object expected"),
        ({"event_type": "post.create", "filter": {"user": "1"}}, "$.filter.user: is not defined"),
        ({"event_type": "post.create", "filter": {"user_id": "x1"}}, "$.filter.user_id: does not match"),
        ({"event_type": "post.create", "filter": {}}, "$.filter.user_id: is missing"),
        (
            {"event_type": "follow.follow", "filter": {"user_id": "{me}", "keyword": "x"}},
            "$.filter.keyword: is not supported for follow.follow subscriptions",
        ),
        ({"event_type": "post.delete", "filter": {"user_id": "{me}", "keyword": "x"}}, "$.filter.keyword"),
        ({"event_type": "post.create", "filter": {"user_id": "{me}", "keyword": ""}}, "$.filter.keyword"),
        ({"event_type": "news.new", "filter": {}}, "$.filter.keyword: is missing"),
        ({"event_type": "news.new", "filter": {"keyword": "x" * 151}}, "$.filter.keyword: may only be 150"),
        ({"event_type": "post.create", "filter": {"user_id": "{me}", "direction": "inbound"}}, "direction"),
        ({"event_type": "mute.mute", "filter": {"user_id": "{me}", "direction": "inbound"}}, "direction"),
        ({"event_type": "dm.sent", "filter": {"user_id": "{me}", "direction": "up"}}, "enumeration [inbound"),
        (
            {"event_type": "post.create", "filter": {"user_id": "{me}"}, "tag": ""},
            "$.tag: must be at least 1",
        ),
        (
            {"event_type": "post.create", "filter": {"user_id": "{me}"}, "tag": "t" * 201},
            "$.tag: may only be 200",
        ),
        (
            {"event_type": "post.create", "filter": {"user_id": "{me}"}, "webhook_id": "x"},
            "$.webhook_id: does",
        ),
        (
            {"event_type": "post.create", "filter": {"user_id": "{me}"}, "webhook_id": "42"},
            "WebhookIdInvalid:",
        ),
        (
            {"event_type": "post.create", "filter": {"user_id": "99"}},
            "$.filter.user_id: user 99 does not exist",
        ),
        # 19 digits beyond a 64-bit id match the pattern: unknown, as any other id that is not there.
        (
            {"event_type": "post.create", "filter": {"user_id": "{me}"}, "webhook_id": "9999999999999999999"},
            "WebhookIdInvalid:",
        ),
        (
            {"event_type": "post.create", "filter": {"user_id": "9999999999999999999"}},
            "$.filter.user_id: user 9999999999999999999 does not exist",
        ),
    ],
)
def test_body_validation(api: Api, user: User, body: dict[str, Any], expected: str) -> None:
    filter_ = body.get("filter")
    if isinstance(filter_, dict) and filter_.get("user_id") == "{me}":
        body = {**body, "filter": {**filter_, "user_id": user["id"]}}
    response = subscribe(api, body, auth="none", headers=bearer(user))
    assert expected in message_of(response)


def test_not_json_and_limits(api: Api, user: User, server: LiveServer) -> None:
    raw = api.post(SUBS, content=b"nope", headers={"content-type": "application/json"})
    assert message_of(raw) == "Request body is not valid JSON."
    bodies = [
        {"event_type": kind, "filter": {"user_id": user["id"]}}
        for kind in (
            "post.create",
            "post.delete",
            "follow.follow",
            "follow.unfollow",
            "spaces.start",
            "spaces.end",
        )
    ]
    for body in bodies:
        assert subscribe(api, body).status_code == 200
    assert message_of(subscribe(api, bodies[0])).startswith("DuplicateSubscriptionFailed:")
    over = subscribe(api, {"event_type": "profile.update.url", "filter": {"user_id": user["id"]}})
    assert message_of(over).startswith("SubscriptionLimitExceeded:")


def test_seed_and_spec_badge_names(api: Api, user: User) -> None:
    for name in (
        "profile.update.verified",
        "profile.update.verified_badge",
        "profile.update.affiliate_badge",
    ):
        response = subscribe(api, {"event_type": name, "filter": {"user_id": user["id"]}})
        assert response.status_code == 200, response.text
        assert response.json()["data"]["subscription"]["event_type"] == name


def test_legacy_names_follow_the_clock(api: Api, user: User) -> None:
    api.http.post("/_roost/clock", json={"set": "2026-03-17T23:59:00Z"})
    before = subscribe(api, {"event_type": "ProfileBioUpdate", "filter": {"user_id": user["id"]}})
    assert before.status_code == 200, before.text
    assert before.json()["data"]["subscription"]["event_type"] == "profile.update.bio"
    assert subscribe(api, {"event_type": "ProfileBannerUpdate", "filter": {"user_id": user["id"]}}).json()[
        "data"
    ]["subscription"]["event_type"] == ("profile.update.banner_picture")
    api.http.post("/_roost/clock", json={"set": "2026-03-18T00:00:00Z"})
    after = subscribe(api, {"event_type": "ProfilePictureUpdate", "filter": {"user_id": user["id"]}})
    assert "ProfilePictureUpdate was deprecated on 2026-03-18" in message_of(after)


def test_private_events_need_user_context_and_scope(
    api: Api, user: User, credentials: dict[str, Any]
) -> None:
    dm = {"event_type": "dm.received", "filter": {"user_id": user["id"], "direction": "inbound"}}
    app_only = subscribe(api, dm)
    assert app_only.status_code == 403
    assert app_only.json()["type"] == PROBLEMS + "unsupported-authentication"
    # 2.159's filter has no `direction` (2.167 added it), so the automatic 2.159 check cannot apply.
    assert subscribe(api, dm, auth="none", headers=bearer(user), conform=False).status_code == 200

    key = credentials["consumer_key"]
    narrow = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": key,
            "user_id": user["id"],
            "kind": "oauth2",
            "scopes": "tweet.read users.read",
        },
    ).json()["access_token"]
    for event_type in ("dm.sent", "like.create", "mute.mute", "block.block"):
        refused = subscribe(
            api,
            {"event_type": event_type, "filter": {"user_id": user["id"]}},
            auth="none",
            headers=api.oauth2(narrow),
        )
        assert refused.status_code == 403, (event_type, refused.text)
        assert refused.json()["detail"] == "Forbidden"
    allowed = subscribe(
        api,
        {"event_type": "post.create", "filter": {"user_id": user["id"]}},
        auth="none",
        headers=api.oauth2(narrow),
    )
    assert allowed.status_code == 200, allowed.text

    other = new_user(api)
    for event_type in ("mute.mute", "block.unblock", "dm.sent"):
        foreign = subscribe(
            api,
            {"event_type": event_type, "filter": {"user_id": other["id"]}},
            auth="none",
            headers=bearer(user),
        )
        assert foreign.status_code == 403, foreign.text
    own = subscribe(
        api, {"event_type": "mute.mute", "filter": {"user_id": user["id"]}}, auth="none", headers=bearer(user)
    )
    assert own.status_code == 200, own.text

    # OAuth 1.0a: DM events need the direct-message permission level.
    read_only = api.http.post(
        "/_roost/tokens", json={"consumer_key": key, "user_id": user["id"], "access_level": "read-write"}
    ).json()
    refused = api.post(
        SUBS,
        auth="none",
        headers=api.oauth1(
            "POST", SUBS, token=read_only["access_token"], secret=read_only["access_token_secret"]
        ),
        json={"event_type": "dm.sent", "filter": {"user_id": user["id"]}},
    )
    assert refused.status_code == 403 and refused.json()["errors"][0]["code"] == 93


def test_bearer_only_operations(api: Api, user: User) -> None:
    sub = subscribe(api, {"event_type": "post.create", "filter": {"user_id": user["id"]}}).json()["data"]
    path = f"{SUBS}/{sub['subscription']['subscription_id']}"
    for method in ("PUT", "DELETE"):
        response = api.request(
            method, path, auth="none", headers=bearer(user), json={} if method == "PUT" else None
        )
        assert response.status_code == 403
        assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    assert api.get(SUBS, auth="none").status_code == 401
    extra = api.request("PUT", path, json={"event_type": "post.delete"})
    assert "$.event_type: is not defined in the schema" in message_of(extra)
    missing = api.request("PUT", f"{SUBS}/123", json={"tag": "x"})
    assert message_of(missing).startswith("SubscriptionNotFound:")


def test_webhook_id_of_the_app(api: Api, user: User, credentials: dict[str, Any]) -> None:
    receiver = Receiver(credentials["consumer_secret"])
    try:
        hook = api.post("/2/webhooks", json={"url": receiver.url()}, conform=False).json()["data"]
        created = subscribe(
            api, {"event_type": "post.create", "filter": {"user_id": user["id"]}, "webhook_id": hook["id"]}
        )
        assert created.status_code == 200, created.text
        sub = created.json()["data"]["subscription"]
        assert sub["webhook_id"] == hook["id"]
        moved = api.request("PUT", f"{SUBS}/{sub['subscription_id']}", json={"webhook_id": "77"})
        assert message_of(moved).startswith("WebhookIdInvalid:")
        huge = api.request(
            "PUT", f"{SUBS}/{sub['subscription_id']}", json={"webhook_id": "9999999999999999999"}
        )
        assert message_of(huge).startswith("WebhookIdInvalid:")
    finally:
        receiver.close()
