"""Webhook management (CRC against a real loopback receiver) and account-activity subscriptions."""

from __future__ import annotations

import base64
import socket
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.api.helpers import PROBLEMS, User, bearer, new_user
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

from roost.core.clock import parse_rfc3339


# A server of this module's own: webhook limits are per developer account and the tests change them.
@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="webhooks", rate_limits=False, extra={"webhook_limit": "5"})
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def receiver(credentials: dict[str, Any]) -> Iterator[Receiver]:
    live = Receiver(credentials["consumer_secret"])
    yield live
    live.close()


@pytest.fixture(autouse=True)
def clean(api: Api, server: LiveServer) -> Iterator[None]:
    extra = dict(server.settings.extra)
    yield
    server.settings.extra.clear()
    server.settings.extra.update(extra)
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")


def reason_of(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["type"] == PROBLEMS + "invalid-request"
    assert body["title"] == "Invalid Request"
    message: str = body["errors"][0]["message"]
    return message.split(":", 1)[0]


def create(api: Api, url: str) -> httpx.Response:
    # 2.159 puts the created webhook at the top level; 2.167 and the docs wrap it in `data` (roost
    # follows them, platform-facts §11), so the automatic check against 2.159 cannot apply here.
    return api.post("/2/webhooks", json={"url": url}, conform=False)


def create_ok(api: Api, receiver: Receiver) -> dict[str, Any]:
    response = create(api, receiver.url())
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def listing(api: Api, **params: str) -> dict[str, Any]:
    # 2.159 declares `minItems: 1` and all four fields required; the docs answer an empty array when
    # there are none and honour `webhook_config.fields`, so this check is off for the list.
    response = api.get("/2/webhooks", params=params, conform=False)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


# ---- webhook management -------------------------------------------------------------------------


def test_create_runs_crc_and_lists(api: Api, receiver: Receiver) -> None:
    assert listing(api) == {"data": [], "meta": {"result_count": 0}}
    url = receiver.url()
    response = create(api, url)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert set(data) == {"id", "url", "valid", "created_at"}
    assert data["url"] == url and data["valid"] is True and data["id"].isdigit()
    assert data["created_at"].endswith("Z") and len(receiver.tokens) == 1 and receiver.tokens[0]
    body = listing(api)
    assert body == {"data": [data], "meta": {"result_count": 1}}


def test_field_selection(api: Api, receiver: Receiver) -> None:
    data = create_ok(api, receiver)
    body = listing(api, **{"webhook_config.fields": "url,valid"})
    assert body["data"] == [{"id": data["id"], "url": data["url"], "valid": True}]
    bad = api.get("/2/webhooks", params={"webhook_config.fields": "nope"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["parameters"] == {"webhook_config.fields": ["nope"]}


@pytest.mark.parametrize("mode", ["wrong", "redirect", "error"])
def test_failing_crc_creates_nothing(api: Api, receiver: Receiver, mode: str) -> None:
    receiver.mode = mode
    response = create(api, receiver.url())
    assert reason_of(response) == "CrcValidationFailed"
    if mode == "wrong":
        assert response.json()["errors"][0]["message"] == (
            "CrcValidationFailed: URL returned bad response during CRC with error: Invalid `response_token`"
        )
    assert listing(api)["data"] == []


def closed_url() -> str:
    """A loopback URL where nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/gone"


def test_unreachable_receiver_fails_crc(api: Api) -> None:
    assert reason_of(create(api, closed_url())) == "CrcValidationFailed"
    assert listing(api)["data"] == []


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/hook",
        "https://example.com:8443/hook",
        "ftp://example.com/hook",
        "not a url",
        "https://example.com/" + "a" * 190,
        "",
        # Accepted by urlsplit, refused by the HTTP client: a malformed IDNA label, control characters.
        "https://xn--/x",
        "http://localhost:8242/\u0000",
        "http://localhost:8242/a\u007fb",
    ],
)
def test_url_rules(api: Api, url: str) -> None:
    assert reason_of(create(api, url)) == "UrlValidationFailed"


def test_loopback_relaxed_by_default_strict_by_setting(
    api: Api, receiver: Receiver, server: LiveServer
) -> None:
    server.settings.extra["strict_webhook_urls"] = "1"
    response = create(api, receiver.url())
    assert reason_of(response) == "UrlValidationFailed"
    assert "https" in response.json()["errors"][0]["message"]
    assert receiver.tokens == []  # refused before any CRC
    server.settings.extra.pop("strict_webhook_urls")
    assert create(api, receiver.url()).status_code == 200
    localhost = f"http://localhost:{receiver.port}/local"
    assert create(api, localhost).json()["data"]["url"] == localhost


def test_the_crc_request_carries_a_token_and_a_nonce_as_the_platforms_do(
    api: Api, receiver: Receiver
) -> None:
    before = parse_rfc3339(api.http.get("/_roost/clock").json()["now"])
    create_ok(api, receiver)
    (query,) = receiver.crc_queries
    assert sorted(query) == ["crc_token", "nonce"]
    (token,), (nonce,) = query["crc_token"], query["nonce"]
    # Recorded requests: unpadded base64 of a random UUID's text, and of the epoch milliseconds.
    assert "=" not in token and "=" not in nonce
    assert uuid.UUID(unpadded_b64(token)).version == 4
    assert before is not None and before <= int(unpadded_b64(nonce)) <= before + 60_000


def unpadded_b64(text: str) -> str:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("ascii")


def test_duplicate_url(api: Api, receiver: Receiver) -> None:
    url = receiver.url()
    assert create(api, url).status_code == 200
    assert reason_of(create(api, url)) == "DuplicateUrlFailed"


def test_webhook_limit_by_package(
    api: Api, receiver: Receiver, server: LiveServer, credentials: dict[str, Any]
) -> None:
    server.settings.extra.pop("webhook_limit")  # unset: the app's package decides
    for _ in range(5):  # enterprise: 5 per account
        create_ok(api, receiver)
    assert reason_of(create(api, receiver.url())) == "WebhookLimitExceeded"
    assert len(receiver.tokens) == 5  # no CRC for a refused registration
    server.settings.extra["webhook_limit"] = "6"  # set, it holds for every app
    create_ok(api, receiver)
    assert listing(api)["meta"] == {"result_count": 6}

    self_serve = credentials["pay_per_use"]
    server.settings.extra.pop("webhook_limit")
    headers = {"Authorization": f"Bearer {self_serve['bearer_token']}"}
    theirs = Receiver(self_serve["consumer_secret"])
    try:  # pay-per-use: one per account
        made = api.http.post("/2/webhooks", json={"url": theirs.url()}, headers=headers)
        assert made.status_code == 200, made.text
        assert reason_of(api.http.post("/2/webhooks", json={"url": theirs.url()}, headers=headers)) == (
            "WebhookLimitExceeded"
        )
        assert api.http.delete(f"/2/webhooks/{made.json()['data']['id']}", headers=headers).status_code == 200
    finally:
        theirs.close()


def test_delete(api: Api, receiver: Receiver) -> None:
    data = create_ok(api, receiver)
    response = api.delete(f"/2/webhooks/{data['id']}")
    assert response.status_code == 200 and response.json() == {"data": {"deleted": True}}
    assert listing(api)["data"] == []
    assert reason_of(api.delete(f"/2/webhooks/{data['id']}")) == "WebhookIdInvalid"
    bad = api.delete("/2/webhooks/abc")
    assert bad.status_code == 400 and "^[0-9]{1,19}$" in bad.json()["errors"][0]["message"]


def test_put_transitions(api: Api, receiver: Receiver) -> None:
    data = create_ok(api, receiver)
    path = f"/2/webhooks/{data['id']}"

    def put() -> bool:
        response = api.request("PUT", path)
        assert response.status_code == 200, response.text
        valid: bool = response.json()["data"]["valid"]
        return valid

    def listed_valid() -> bool:
        return bool(listing(api)["data"][0]["valid"])

    receiver.mode = "wrong"
    assert put() is False and listed_valid() is False
    receiver.mode = "ok"
    assert put() is True and listed_valid() is True
    receiver.mode = "redirect"
    assert put() is False and listed_valid() is False
    receiver.mode = "error"  # transient: the state stays as it is (the 28-hour rule decides)
    assert put() is False
    receiver.mode = "ok"
    assert put() is True
    receiver.mode = "error"
    assert put() is True and listed_valid() is True
    assert reason_of(api.request("PUT", "/2/webhooks/123")) == "WebhookIdInvalid"


def test_webhooks_need_app_only(api: Api, receiver: Receiver) -> None:
    response = api.get("/2/webhooks", auth="oauth2")
    assert response.status_code == 403
    assert response.json()["type"] == PROBLEMS + "unsupported-authentication"
    for auth in ("oauth1", "oauth2"):
        assert api.get("/2/webhooks", auth=auth).status_code == 403
    created = api.post("/2/webhooks", auth="oauth2", json={"url": receiver.url()})
    assert created.status_code == 403 and receiver.tokens == []


def test_create_validate_and_delete_take_oauth1_user_context(api: Api, receiver: Receiver) -> None:
    # The official document's `UserToken` on these three; the list and replay stay app-only.
    response = api.post("/2/webhooks", auth="oauth1", json={"url": receiver.url()}, conform=False)
    assert response.status_code == 200, response.text
    hook = response.json()["data"]
    assert len(receiver.tokens) == 1
    assert listing(api)["data"] == [hook]  # the app's webhook, whichever credentials made it
    put = api.request("PUT", f"/2/webhooks/{hook['id']}", auth="oauth1")
    assert put.status_code == 200 and put.json() == {"data": {"valid": True}}
    assert len(receiver.tokens) == 2
    deleted = api.delete(f"/2/webhooks/{hook['id']}", auth="oauth1")
    assert deleted.status_code == 200 and deleted.json() == {"data": {"deleted": True}}
    assert listing(api)["data"] == []


# ---- account activity ---------------------------------------------------------------------------


def aaa(webhook_id: str) -> str:
    return f"/2/account_activity/webhooks/{webhook_id}/subscriptions/all"


def oauth1_as(api: Api, method: str, path: str, user: User) -> dict[str, str]:
    return api.oauth1(method, path, token=user["token"], secret=user["secret"])


def subscribe_oauth1(api: Api, webhook_id: str, user: User) -> httpx.Response:
    path = aaa(webhook_id)
    return api.post(path, auth="none", headers=oauth1_as(api, "POST", path, user), json={})


def subscribe_oauth2(api: Api, webhook_id: str, user: User) -> httpx.Response:
    return api.post(aaa(webhook_id), auth="none", headers=bearer(user), json={})


def token(api: Api, user: User, **body: Any) -> dict[str, Any]:
    response = api.http.post(
        "/_roost/tokens", json={"consumer_key": api.creds["consumer_key"], "user_id": user["id"], **body}
    )
    assert response.status_code == 201, response.text
    issued: dict[str, Any] = response.json()
    return issued


def count(api: Api) -> dict[str, str]:
    response = api.get("/2/account_activity/subscriptions/count")
    assert response.status_code == 200, response.text
    data: dict[str, str] = response.json()["data"]
    return data


def test_subscriptions_lifecycle(api: Api, receiver: Receiver) -> None:
    hook = create_ok(api, receiver)
    alice, bob = new_user(api), new_user(api)
    response = subscribe_oauth1(api, hook["id"], alice)
    assert response.status_code == 200 and response.json() == {"data": {"subscribed": True}}
    assert subscribe_oauth2(api, hook["id"], bob).json() == {"data": {"subscribed": True}}
    assert reason_of(subscribe_oauth1(api, hook["id"], alice)) == "DuplicateSubscriptionFailed"

    state = api.get(aaa(hook["id"]), auth="none", headers=oauth1_as(api, "GET", aaa(hook["id"]), alice))
    assert state.json() == {"data": {"subscribed": True}}
    listed = api.get(aaa(hook["id"]) + "/list")
    assert listed.status_code == 200, listed.text
    data = listed.json()["data"]
    assert data.pop("application_id").isdigit()
    assert data == {
        "webhook_id": hook["id"],
        "webhook_url": hook["url"],
        "subscriptions": [{"user_id": alice["id"]}, {"user_id": bob["id"]}],
    }
    counts = count(api)
    assert counts["subscriptions_count_all"] == "2"
    assert counts["subscriptions_count_direct_messages"] == "2"
    assert counts["provisioned_count"] == "3"
    assert all(isinstance(value, str) for value in counts.values())

    gone = api.delete(f"/2/account_activity/webhooks/{hook['id']}/subscriptions/{alice['id']}/all")
    assert gone.status_code == 200 and gone.json() == {"data": {"subscribed": False}}
    again = api.delete(f"/2/account_activity/webhooks/{hook['id']}/subscriptions/{alice['id']}/all")
    assert reason_of(again) == "SubscriptionNotFound"
    state = api.get(aaa(hook["id"]), auth="none", headers=bearer(alice))
    assert state.json() == {"data": {"subscribed": False}}
    assert count(api)["subscriptions_count_all"] == "1"


def test_unknown_webhook(api: Api) -> None:
    alice = new_user(api)
    assert reason_of(subscribe_oauth2(api, "42", alice)) == "WebhookIdInvalid"
    assert reason_of(api.get(aaa("42") + "/list")) == "WebhookIdInvalid"
    assert reason_of(api.get(aaa("42"), auth="none", headers=bearer(alice))) == "WebhookIdInvalid"
    assert reason_of(api.delete(f"/2/account_activity/webhooks/42/subscriptions/{alice['id']}/all")) == (
        "WebhookIdInvalid"
    )


def test_ids_beyond_64_bits(api: Api) -> None:
    # 19 digits match the id pattern but overflow a 64-bit id: unknown webhooks, never a 500.
    huge = "9999999999999999999"
    for method in ("PUT", "DELETE"):
        response = api.request(method, f"/2/webhooks/{huge}")
        assert response.status_code == 400, response.text
        assert response.json()["errors"][0]["message"] == (
            f"The `webhook_id` query parameter value [{huge}] is not valid"
        )
    body = {"webhook_id": huge, "from_date": "202611251200", "to_date": "202611251200"}
    replay = api.post("/2/webhooks/replay", json=body, conform=False)
    assert reason_of(replay) == "WebhookIdInvalid"


def test_oauth1_permissions_override_oauth2_scopes(api: Api, receiver: Receiver) -> None:
    hook = create_ok(api, receiver)
    user = new_user(api)
    # An OAuth 2.0 token without the operation's scopes is refused ...
    narrow = token(api, user, kind="oauth2", scopes="tweet.read users.read")
    refused = api.post(
        aaa(hook["id"]), auth="none", headers={"Authorization": f"Bearer {narrow['access_token']}"}, json={}
    )
    assert refused.status_code == 403
    assert refused.json() == {
        "title": "Forbidden",
        "type": "about:blank",
        "status": 403,
        "detail": "Forbidden",
    }
    # ... while an OAuth 1.0a token of a read-only level subscribes (no DM events for it).
    read_only = token(api, user, access_level="read")
    assert read_only["access_level"] == "read"
    path = aaa(hook["id"])
    headers = api.oauth1(
        "POST", path, token=read_only["access_token"], secret=read_only["access_token_secret"]
    )
    response = api.post(path, auth="none", headers=headers, json={})
    assert response.status_code == 200, response.text
    counts = count(api)
    assert counts["subscriptions_count_all"] == "1"
    assert counts["subscriptions_count_direct_messages"] == "0"


def test_subscription_endpoints_auth_kinds(api: Api, receiver: Receiver) -> None:
    hook = create_ok(api, receiver)
    assert api.post(aaa(hook["id"]), json={}).status_code == 403  # app-only cannot subscribe
    user = new_user(api)
    assert api.get(aaa(hook["id"]) + "/list", auth="none", headers=bearer(user)).status_code == 403
    assert (
        api.get("/2/account_activity/subscriptions/count", auth="none", headers=bearer(user)).status_code
        == 403
    )


def test_subscription_limit(api: Api, receiver: Receiver, server: LiveServer) -> None:
    hook = create_ok(api, receiver)
    second = create_ok(api, receiver)
    users = [new_user(api) for _ in range(4)]
    for user in users[:3]:
        assert subscribe_oauth2(api, hook["id"], user).status_code == 200
    assert reason_of(subscribe_oauth2(api, hook["id"], users[3])) == "SubscriptionLimitExceeded"
    # The limit counts unique users: a subscribed user may join another webhook of the app.
    assert subscribe_oauth2(api, second["id"], users[0]).status_code == 200
    server.settings.extra["subscription_limit"] = "4"
    assert subscribe_oauth2(api, hook["id"], users[3]).status_code == 200
    assert count(api)["provisioned_count"] == "4"


def test_deleting_a_webhook_drops_its_subscriptions(api: Api, receiver: Receiver) -> None:
    hook = create_ok(api, receiver)
    user = new_user(api)
    assert subscribe_oauth2(api, hook["id"], user).status_code == 200
    assert api.delete(f"/2/webhooks/{hook['id']}").status_code == 200
    assert count(api)["subscriptions_count_all"] == "0"
