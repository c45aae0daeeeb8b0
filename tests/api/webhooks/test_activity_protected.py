"""A protected user's likes and follows reach only apps that may see the user: subscriptions are
refused to anyone but the user and their followers, and each event is checked again when it is fanned
out (a follower who unfollows stops receiving them). Account activity keeps a protected account's
posts from users who do not follow it, too."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from tests.api.helpers import PROBLEMS, User, bearer, create_ok, new_user
from tests.api.webhooks.helpers import deliver_marker, delivery_rows, make_hook, subscribe, wait_for
from tests.support.client import Api
from tests.support.receiver import Receiver
from tests.support.server import LiveServer

SUBS = "/2/activity/subscriptions"


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="activity_protected", rate_limits=False, extra={"webhook_limit": "20"})
    live.start()
    yield live
    live.stop()


def follow(api: Api, follower: User, followee: User) -> None:
    edge = {"follower_id": follower["id"], "followee_id": followee["id"]}
    assert api.http.post("/_roost/follows", json=edge).status_code == 201


def refused(user_id: str) -> dict[str, Any]:
    return {
        "value": user_id,
        "detail": f"Sorry, you are not authorized to see the user with filter.user_id: [{user_id}].",
        "title": "Authorization Error",
        "resource_type": "user",
        "parameter": "filter.user_id",
        "resource_id": user_id,
        "section": "data",
        "type": PROBLEMS + "not-authorized-for-resource",
        "status": 403,
    }


def test_subscriptions_to_a_protected_users_activity_need_a_viewer_who_may_see_them(api: Api) -> None:
    """The platform's problem for a resource the caller may not see (not-authorized-for-resource),
    as the refusal of the whole request."""
    protected, follower, stranger = new_user(api, protected=True), new_user(api), new_user(api)
    follow(api, follower, protected)
    target = protected["id"]
    for event_type in ("like.create", "follow.follow", "follow.unfollow"):
        body = {"event_type": event_type, "filter": {"user_id": target}}
        as_stranger = api.post(SUBS, json=body, auth="none", headers=bearer(stranger))
        assert as_stranger.status_code == 403, as_stranger.text
        assert as_stranger.json() == refused(target)
        for viewer in (follower, protected):
            allowed = api.post(SUBS, json=body, auth="none", headers=bearer(viewer))
            assert allowed.status_code == 200, allowed.text
            sub_id = allowed.json()["data"]["subscription"]["subscription_id"]
            assert api.delete(f"{SUBS}/{sub_id}").status_code == 200

    # An app-only call names no user, so it may not see a protected one either.
    as_app = api.post(SUBS, json={"event_type": "follow.follow", "filter": {"user_id": target}})
    assert as_app.status_code == 403
    assert as_app.json() == refused(target)

    # Public users' activity is open to everyone, as before.
    public = new_user(api)
    open_body = {"event_type": "like.create", "filter": {"user_id": public["id"]}}
    opened = api.post(SUBS, json=open_body, auth="none", headers=bearer(stranger))
    assert opened.status_code == 200, opened.text
    api.delete(f"{SUBS}/{opened.json()['data']['subscription']['subscription_id']}")


def test_events_are_checked_again_when_fanned_out(api: Api, marker_receiver: Receiver) -> None:
    """A follower subscribes through their own app, then unfollows: later follows of the protected
    user are not delivered to that app until the follower follows again."""
    app = api.http.post("/_roost/apps", json={"name": f"other {uuid.uuid4().hex[:8]}"}).json()
    protected = new_user(api, protected=True)
    follower = new_user(api)
    follow(api, follower, protected)
    token = api.http.post(
        "/_roost/tokens",
        json={"consumer_key": app["consumer_key"], "user_id": follower["id"], "kind": "oauth2"},
    ).json()["access_token"]
    as_follower = {"Authorization": f"Bearer {token}"}
    receiver = Receiver(app["consumer_secret"])
    hook_id = None
    try:
        hook = api.post(
            "/2/webhooks",
            json={"url": receiver.url()},
            auth="none",
            headers={"Authorization": f"Bearer {app['bearer_token']}"},
            conform=False,
        )
        assert hook.status_code == 200, hook.text
        hook_id = hook.json()["data"]["id"]
        body = {"event_type": "follow.follow", "filter": {"user_id": protected["id"]}, "webhook_id": hook_id}
        created = api.post(SUBS, json=body, auth="none", headers=as_follower)
        assert created.status_code == 200, created.text

        gone = api.delete(
            f"/2/users/{follower['id']}/following/{protected['id']}", auth="none", headers=as_follower
        )
        assert gone.status_code == 200, gone.text
        follow(api, new_user(api), protected)  # no user of the app may see the protected user now
        # The check is made when the dispatcher fans an event out, against who may see the user then:
        # wait until it has passed that follow (a later event delivered) before following again.
        deliver_marker(api, marker_receiver)
        follow(api, follower, protected)  # seen again: this one is delivered

        path = urlsplit(hook.json()["data"]["url"]).path

        def delivered() -> list[dict[str, Any]]:
            return [json.loads(post["raw"]) for post in receiver.received(path)]

        got = wait_for(delivered)
        assert [e["data"]["payload"]["source"]["data"]["id"] for e in got] == [follower["id"]]
        assert len(delivery_rows(api, hook_id)) == 1
    finally:
        receiver.close()
        if hook_id is not None:
            httpx.delete(
                f"{api.base_url}/2/webhooks/{hook_id}",
                headers={"Authorization": f"Bearer {app['bearer_token']}"},
                timeout=30,
            )


def test_account_activity_keeps_protected_posts_from_non_followers(api: Api, receiver: Receiver) -> None:
    """A protected account mentions a follower and a stranger: only the follower's envelope is made."""
    protected, follower, stranger = new_user(api, protected=True), new_user(api), new_user(api)
    follow(api, follower, protected)
    hook = make_hook(api, receiver)
    for user in (stranger, follower):
        subscribe(api, hook["id"], user)
    create_ok(api, protected, {"text": f"hello @{stranger['username']} and @{follower['username']}"})
    rows = wait_for(lambda: delivery_rows(api, hook["id"]))
    # Both envelopes of the one event are stored together, so one row means the other is not coming.
    assert [row["for_user_id"] for row in rows] == [follower["id"]]
    got = wait_for(lambda: receiver.received(urlsplit(hook["url"]).path))
    assert [json.loads(post["raw"])["for_user_id"] for post in got] == [follower["id"]]
