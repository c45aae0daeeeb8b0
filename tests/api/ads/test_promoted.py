"""Promoted tweets, promoted accounts and scheduled promoted tweets."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.ads.creatives_support import in_future
from tests.api.ads.creatives_support import line_item as new_line_item
from tests.api.ads.helpers import AdsClient, error_codes
from tests.api.helpers import create_ok, unique_text
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.ads.entities import Entities


def _own_post(api: Api) -> str:
    response = api.post("/2/tweets", auth="oauth2", json={"text": unique_text("promo")})
    assert response.status_code == 201, response.text
    return response.json()["data"]["id"]


@pytest.fixture()
def line_item(sandbox: AdsClient, account: dict[str, Any]) -> dict[str, Any]:
    return new_line_item(sandbox, account)


def test_promote_own_posts(
    sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any], api: Api
) -> None:
    first, second = _own_post(api), _own_post(api)
    path = f"/accounts/{account['id']}/promoted_tweets"
    response = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": f"{first},{second}"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "line_item_id": line_item["id"],
        "tweet_ids": [int(first), int(second)],
    }
    assert body["total_count"] == 2
    data = body["data"]
    assert [p["tweet_id"] for p in data] == [first, second]
    assert data[0]["line_item_id"] == line_item["id"]
    assert data[0]["entity_status"] == "ACTIVE" and data[0]["approval_status"] == "ACCEPTED"
    assert data[0]["deleted"] is False and data[0]["id"] != first
    # Already promoted: ignored (the existing association comes back, no duplicate).
    again = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": first})
    assert again.status_code == 200 and again.json()["data"][0]["id"] == data[0]["id"]
    listed = sandbox.get(path, {"line_item_ids": line_item["id"]}).json()
    assert [p["id"] for p in listed["data"]] == [data[0]["id"], data[1]["id"]]
    one = sandbox.get(f"{path}/{data[1]['id']}")
    assert one.status_code == 200 and one.json()["data"] == data[1]
    assert [p["id"] for p in sandbox.get(path, {"promoted_tweet_ids": data[1]["id"]}).json()["data"]] == [
        data[1]["id"]
    ]

    deleted = sandbox.delete(f"{path}/{data[0]['id']}")
    assert deleted.status_code == 200 and deleted.json()["data"]["deleted"] is True
    assert sandbox.delete(f"{path}/{data[0]['id']}").status_code == 404
    assert [p["id"] for p in sandbox.get(path).json()["data"]] == [data[1]["id"]]


def test_tweet_ids_are_checked(
    sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any]
) -> None:
    path = f"/accounts/{account['id']}/promoted_tweets"
    typed = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": "123abc"})
    assert typed.status_code == 400
    assert typed.json()["errors"][0]["message"] == 'Expected Long, got "123abc" for tweet_ids'
    too_many = sandbox.post(
        path, {"line_item_id": line_item["id"], "tweet_ids": ",".join(str(i) for i in range(1, 52))}
    )
    assert too_many.status_code == 400
    assert too_many.json()["errors"][0]["message"] == "A maximum of 50 items can be provided for tweet_ids"
    missing = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": "1"})
    assert missing.status_code == 400 and missing.json()["errors"][0]["parameter"] == "tweet_ids"
    no_item = sandbox.post(path, {"line_item_id": "nope1", "tweet_ids": "1"})
    assert no_item.status_code == 404
    assert sandbox.post(path, {"line_item_id": line_item["id"]}).status_code == 400


def test_promoting_someone_elses_post_promotes_a_repost(
    sandbox: AdsClient,
    account: dict[str, Any],
    line_item: dict[str, Any],
    api: Api,
    make_user: Any,
    credentials: dict[str, Any],
) -> None:
    author = make_user()
    original = create_ok(api, author)["id"]
    path = f"/accounts/{account['id']}/promoted_tweets"
    refused = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": original})
    assert refused.status_code == 400  # the author has not allowed the account to promote their posts
    assert refused.json()["errors"][0]["code"] == "INVALID_TWEET"
    granted = api.http.post(
        f"/_roost/ads/accounts/{account['id']}/promotable_users", json={"user_id": author["id"]}
    )
    assert granted.status_code == 201
    assert granted.json()["promotable_user_type"] == "RETWEETS_ONLY"
    listed = sandbox.get(f"/accounts/{account['id']}/promotable_users").json()["data"]
    assert sorted(u["promotable_user_type"] for u in listed) == ["FULL", "RETWEETS_ONLY"]
    response = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": original})
    assert response.status_code == 200, response.text
    promoted_id = response.json()["data"][0]["tweet_id"]
    assert promoted_id != original
    repost = api.get(
        f"/2/tweets/{promoted_id}", params={"tweet.fields": "author_id,referenced_tweets"}
    ).json()["data"]
    assert repost["author_id"] == credentials["user_id"]
    assert repost["referenced_tweets"] == [{"type": "retweeted", "id": original}]
    again = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": original})
    assert again.json()["data"][0]["tweet_id"] == promoted_id  # the original is already promoted


def test_deleted_line_item_keeps_its_promoted_tweets(
    sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any], api: Api
) -> None:
    path = f"/accounts/{account['id']}/promoted_tweets"
    made = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": _own_post(api)}).json()["data"][
        0
    ]
    assert sandbox.delete(f"/accounts/{account['id']}/line_items/{line_item['id']}").status_code == 200
    assert sandbox.get(path).json()["data"] == []
    assert sandbox.get(f"{path}/{made['id']}").status_code == 404
    shown = sandbox.get(path, {"with_deleted": "true"}).json()["data"]
    assert [p["id"] for p in shown] == [made["id"]] and shown[0]["deleted"] is False
    one = sandbox.get(f"{path}/{made['id']}", {"with_deleted": "true"})
    assert one.status_code == 200 and one.json()["data"]["deleted"] is False


def test_promoted_accounts(sandbox: AdsClient, account: dict[str, Any], make_user: Any) -> None:
    path = f"/accounts/{account['id']}/promoted_accounts"
    tweets_item = new_line_item(sandbox, account)
    accounts_item = new_line_item(
        sandbox, account, objective="FOLLOWERS", product_type="PROMOTED_ACCOUNT", placements="ALL_ON_TWITTER"
    )
    user = make_user()
    wrong = sandbox.post(path, {"line_item_id": tweets_item["id"], "user_id": user["id"]})
    assert wrong.status_code == 400 and error_codes(wrong) == ["INCOMPATIBLE_LINE_ITEM"]
    made = sandbox.post(path, {"line_item_id": accounts_item["id"], "user_id": user["id"]})
    assert made.status_code == 200, made.text
    body = made.json()
    assert body["request"]["params"] == {
        "account_id": account["id"],
        "line_item_id": accounts_item["id"],
        "user_id": int(user["id"]),
    }
    promoted = body["data"]
    assert promoted["user_id"] == user["id"] and promoted["line_item_id"] == accounts_item["id"]
    assert promoted["entity_status"] == "ACTIVE" and promoted["deleted"] is False
    again = sandbox.post(path, {"line_item_id": accounts_item["id"], "user_id": user["id"]})
    assert again.status_code == 200 and again.json()["data"]["id"] == promoted["id"]

    protected = make_user(protected=True)
    refused = sandbox.post(path, {"line_item_id": accounts_item["id"], "user_id": protected["id"]})
    assert refused.status_code == 400
    unknown = sandbox.post(path, {"line_item_id": accounts_item["id"], "user_id": "999999999999"})
    assert unknown.status_code == 400
    typed = sandbox.post(path, {"line_item_id": accounts_item["id"], "user_id": "me"})
    assert typed.json()["errors"][0]["message"] == 'Expected Long, got "me" for user_id'

    assert [p["id"] for p in sandbox.get(path).json()["data"]] == [promoted["id"]]
    assert [p["id"] for p in sandbox.get(path, {"line_item_ids": accounts_item["id"]}).json()["data"]] == [
        promoted["id"]
    ]
    only_tweets = sandbox.get(path, {"line_item_ids": tweets_item["id"]})
    assert only_tweets.status_code == 400 and error_codes(only_tweets) == ["INCOMPATIBLE_LINE_ITEM"]
    assert sandbox.get(f"{path}/{promoted['id']}").json()["data"] == promoted
    assert sandbox.delete(f"{path}/{promoted['id']}").json()["data"]["deleted"] is True
    assert sandbox.delete(f"{path}/{promoted['id']}").status_code == 404


def test_scheduled_promoted_tweets(
    sandbox: AdsClient,
    account: dict[str, Any],
    line_item: dict[str, Any],
    credentials: dict[str, Any],
    server: LiveServer,
) -> None:
    path = f"/accounts/{account['id']}/scheduled_promoted_tweets"
    unknown = sandbox.post(
        path, {"line_item_id": line_item["id"], "scheduled_tweet_id": "870358555227860992"}
    )
    assert unknown.status_code == 404 and unknown.json()["errors"][0]["parameter"] == "scheduled_tweet_id"
    scheduled = sandbox.post(
        f"/accounts/{account['id']}/scheduled_tweets",
        {
            "as_user_id": credentials["user_id"],
            "text": unique_text("later"),
            "scheduled_at": in_future(server.base_url, 86400),
        },
    )
    assert scheduled.status_code == 200, scheduled.text
    scheduled_id = scheduled.json()["data"]["id"]
    # The seed's `scheduled_at` is no parameter of this endpoint: ignored, like any unknown one.
    made = sandbox.post(
        path,
        {"line_item_id": line_item["id"], "scheduled_tweet_id": scheduled_id, "scheduled_at": "2020-01-01"},
    )
    assert made.status_code == 200, made.text
    body = made.json()
    assert body["request"]["params"]["scheduled_tweet_id"] == int(scheduled_id)
    assert "scheduled_at" not in body["request"]["params"]
    item = body["data"]
    assert item["scheduled_tweet_id"] == scheduled_id and item["tweet_id"] is None
    assert item["line_item_id"] == line_item["id"] and "scheduled_at" not in item
    assert sandbox.get(f"{path}/{item['id']}").json()["data"] == item
    assert [s["id"] for s in sandbox.get(path, {"line_item_ids": line_item["id"]}).json()["data"]] == [
        item["id"]
    ]
    assert sandbox.delete(f"{path}/{item['id']}").json()["data"]["deleted"] is True  # before its time
    assert sandbox.delete(f"{path}/{item['id']}").status_code == 404


def test_pagination_over_promoted_tweets(
    sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any], api: Api
) -> None:
    path = f"/accounts/{account['id']}/promoted_tweets"
    posts = [_own_post(api) for _ in range(5)]
    made = sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": ",".join(posts)}).json()["data"]
    seen, cursor = [], None
    while True:
        params: dict[str, Any] = {"count": 2, "sort_by": "created_at-asc"}
        if cursor:
            params["cursor"] = cursor
        page = sandbox.get(path, params).json()
        seen += [p["id"] for p in page["data"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert seen == [p["id"] for p in made]
    counted = sandbox.get(path, {"with_total_count": "true", "count": 1}).json()
    assert counted["total_count"] == 5 and len(counted["data"]) == 1


def _pause(server: LiveServer, kind: str, account_id: str, ident: str) -> None:
    """Promoted products have no update operation in v12, so a paused one is stored directly."""
    assert server.app.state is not None
    services = server.app.server.stores
    entities = Entities(services.ads, services.ids)

    async def pause() -> None:
        async with services.db.transaction() as tx:
            row = await entities.load(kind, account_id, ident, reader=tx)
            await entities.update(
                tx, row, {"entity_status": "PAUSED"}, now_ms=services.clock.now_ms(), user_id=None
            )

    server.run(pause())


def _ids(sandbox: AdsClient, path: str, **params: Any) -> list[str]:
    response = sandbox.get(path, params)
    assert response.status_code == 200, response.text
    return [p["id"] for p in response.json()["data"]]


def test_promoted_tweets_sort_by_paused(
    sandbox: AdsClient, account: dict[str, Any], line_item: dict[str, Any], api: Api, server: LiveServer
) -> None:
    path = f"/accounts/{account['id']}/promoted_tweets"
    posts = ",".join(_own_post(api) for _ in range(3))
    first, second, third = (
        p["id"]
        for p in sandbox.post(path, {"line_item_id": line_item["id"], "tweet_ids": posts}).json()["data"]
    )
    _pause(server, "promoted_tweet", account["id"], second)
    # Not paused first when ascending; among equals, oldest first either way.
    assert _ids(sandbox, path, sort_by="paused-asc") == [first, third, second]
    assert _ids(sandbox, path, sort_by="paused-desc") == [second, first, third]
    body = sandbox.get(path, {"sort_by": "paused-desc", "count": 2, "with_total_count": "true"}).json()
    assert body["request"]["params"]["sort_by"] == ["paused-desc"]
    assert [p["id"] for p in body["data"]] == [second, first] and body["total_count"] == 3
    rest = sandbox.get(path, {"sort_by": "paused-desc", "count": 2, "cursor": body["next_cursor"]}).json()
    assert [p["id"] for p in rest["data"]] == [third] and rest["next_cursor"] is None


def test_promoted_accounts_sort_by_paused(
    sandbox: AdsClient, account: dict[str, Any], make_user: Any, server: LiveServer
) -> None:
    path = f"/accounts/{account['id']}/promoted_accounts"
    item = new_line_item(sandbox, account, objective="FOLLOWERS", product_type="PROMOTED_ACCOUNT")
    made = [
        sandbox.post(path, {"line_item_id": item["id"], "user_id": make_user()["id"]}).json()["data"]["id"]
        for _ in range(2)
    ]
    _pause(server, "promoted_account", account["id"], made[0])
    assert _ids(sandbox, path, sort_by="paused-asc") == [made[1], made[0]]
    assert _ids(sandbox, path, sort_by="paused-desc") == made
    # Scheduled promoted tweets are not among the lists that sort by it.
    scheduled = sandbox.get(f"/accounts/{account['id']}/scheduled_promoted_tweets", {"sort_by": "paused-asc"})
    assert scheduled.status_code == 400 and error_codes(scheduled) == ["INVALID_PARAMETER"]
