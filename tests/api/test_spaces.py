"""Spaces: lookups by id and creator, search, fields and expansions, buyers, shared posts, the
control plane's writes (schedule, start, end, tickets) and the demo's Spaces."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from tests.api.helpers import User, bearer, create_ok, invalid_request, not_found_item
from tests.api.test_control_social import logged
from tests.support.client import Api
from tests.support.server import LiveServer

ALL_FIELDS = (
    "created_at,creator_id,ended_at,host_ids,id,invited_user_ids,is_ticketed,lang,participant_count,"
    "scheduled_start,speaker_ids,started_at,state,subscriber_count,title,topic_ids,updated_at"
)
TECHNOLOGY = {"id": "848920371311001600", "name": "Technology", "description": "All about technology"}


def new_space(api: Api, creator: User, **fields: Any) -> dict[str, Any]:
    body = {"creator_id": creator["id"], "title": f"Space {uuid.uuid4().hex[:8]}", **fields}
    response = api.http.post("/_roost/spaces", json=body)
    assert response.status_code == 201, response.text
    space: dict[str, Any] = response.json()
    return space


def in_days(api: Api, days: float) -> str:
    now = api.http.get("/_roost/clock").json()["now"]
    moment = datetime.strptime(now, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(UTC) + timedelta(days=days)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def get(api: Api, path: str, auth: str = "app", **params: str) -> dict[str, Any]:
    response = api.get(path, auth=auth, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


# ---- lookups ------------------------------------------------------------------------------------------


def test_lookup_default_and_every_field(api: Api, make_user: Any) -> None:
    host, cohost, speaker, guest = make_user(), make_user(), make_user(), make_user()
    space = new_space(
        api,
        host,
        lang="en",
        host_ids=[cohost["id"]],
        speaker_ids=[speaker["id"]],
        invited_user_ids=[guest["id"]],
        topic_ids=[TECHNOLOGY["id"]],
        participant_count=42,
        subscriber_count=7,
    )
    assert get(api, f"/2/spaces/{space['id']}") == {"data": {"id": space["id"], "state": "live"}}

    data = get(api, f"/2/spaces/{space['id']}", **{"space.fields": ALL_FIELDS})["data"]
    assert data["host_ids"] == [host["id"], cohost["id"]]  # the creator is the first host
    assert data["speaker_ids"] == [speaker["id"]]
    assert data["invited_user_ids"] == [guest["id"]]
    assert data["topic_ids"] == [TECHNOLOGY["id"]]
    assert (data["creator_id"], data["title"], data["lang"]) == (host["id"], space["title"], "en")
    assert (data["participant_count"], data["subscriber_count"], data["is_ticketed"]) == (42, 7, False)
    assert data["started_at"] == data["created_at"] == space["started_at"]
    assert "ended_at" not in data and "scheduled_start" not in data


def test_expansions_bring_users_and_topics(api: Api, make_user: Any) -> None:
    host, cohost, speaker, guest = make_user(), make_user(), make_user(), make_user()
    space = new_space(
        api,
        host,
        host_ids=[cohost["id"]],
        speaker_ids=[speaker["id"]],
        invited_user_ids=[guest["id"]],
        topic_ids=[TECHNOLOGY["id"]],
    )
    body = get(
        api,
        f"/2/spaces/{space['id']}",
        expansions="creator_id,host_ids,invited_user_ids,speaker_ids,topic_ids",
        **{"user.fields": "username", "topic.fields": "description,id,name"},
    )
    assert body["data"]["creator_id"] == host["id"]  # each expansion brings its field along
    assert set(body["data"]) == {
        "id",
        "state",
        "creator_id",
        "host_ids",
        "invited_user_ids",
        "speaker_ids",
        "topic_ids",
    }
    users = {user["id"]: user["username"] for user in body["includes"]["users"]}
    assert users == {u["id"]: u["username"] for u in (host, cohost, speaker, guest)}
    assert body["includes"]["topics"] == [TECHNOLOGY]


def test_many_by_ids_without_meta(api: Api, make_user: Any) -> None:
    host = make_user()
    first, second = new_space(api, host), new_space(api, host)
    body = get(api, "/2/spaces", ids=f"{second['id']},1ZZZZZZZZZZZZ,{first['id']}")
    assert body["data"] == [{"id": second["id"], "state": "live"}, {"id": first["id"], "state": "live"}]
    assert body["errors"] == [not_found_item("space", "ids", "1ZZZZZZZZZZZZ")]
    assert "meta" not in body


def test_unknown_space_is_a_partial_error(api: Api) -> None:
    assert get(api, "/2/spaces/1ZZZZZZZZZZZY") == {"errors": [not_found_item("space", "id", "1ZZZZZZZZZZZY")]}


def test_bad_ids_and_fields(api: Api) -> None:
    response = api.get("/2/spaces/not-a-space")
    assert response.status_code == 400
    assert response.json() == invalid_request(
        {
            "parameters": {"id": ["not-a-space"]},
            "message": "The `id` query parameter value [not-a-space] does not match ^[a-zA-Z0-9]{1,13}$",
        }
    )
    response = api.get("/2/spaces/1ZZZZZZZZZZZZ", params={"space.fields": "title,colour"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        f"The `space.fields` query parameter value [colour] is not one of [{ALL_FIELDS}]"
    )
    response = api.get("/2/spaces/1ZZZZZZZZZZZZ", params={"expansions": "author_id"})
    assert response.status_code == 400
    assert response.json()["errors"][0]["message"] == (
        "The `expansions` query parameter value [author_id] is not one of "
        "[creator_id,host_ids,invited_user_ids,speaker_ids,topic_ids]"
    )
    assert api.get("/2/spaces", params={"ids": ",".join(["1abc"] * 101)}).status_code == 400


def test_user_token_needs_space_read(api: Api, make_user: Any) -> None:
    host = make_user()
    space = new_space(api, host)
    assert api.get(f"/2/spaces/{space['id']}", auth="none", headers=bearer(host)).status_code == 200
    token = api.http.post(
        "/_roost/tokens",
        json={
            "consumer_key": api.creds["consumer_key"],
            "user_id": host["id"],
            "kind": "oauth2",
            "scopes": "tweet.read users.read",
        },
    ).json()["access_token"]
    refused = api.get(f"/2/spaces/{space['id']}", auth="none", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403
    assert api.get(f"/2/spaces/{space['id']}", auth="oauth1").status_code == 403  # not OAuth 1.0a


# ---- by creator and search ------------------------------------------------------------------------------


def test_by_creator_lists_live_and_scheduled(api: Api, make_user: Any) -> None:
    host, other = make_user(), make_user()
    live = new_space(api, host)
    scheduled = new_space(api, host, scheduled_start=in_days(api, 2))
    ended = new_space(api, host)
    api.http.post(f"/_roost/spaces/{ended['id']}/end")
    new_space(api, other)
    body = get(api, "/2/spaces/by/creator_ids", user_ids=host["id"], **{"space.fields": "creator_id"})
    assert {space["id"]: space["state"] for space in body["data"]} == {
        live["id"]: "live",
        scheduled["id"]: "scheduled",
    }
    assert body["meta"] == {"result_count": 2}
    nobody = make_user()
    assert get(api, "/2/spaces/by/creator_ids", user_ids=nobody["id"]) == {"meta": {"result_count": 0}}


def test_search_by_title_and_state(api: Api, make_user: Any) -> None:
    host = make_user()
    word = f"zebra{uuid.uuid4().hex[:6]}"
    live = new_space(api, host, title=f"Talking {word} today")
    scheduled = new_space(api, host, title=f"{word.upper()} tomorrow", scheduled_start=in_days(api, 1))
    ended = new_space(api, host, title=f"{word} yesterday")
    api.http.post(f"/_roost/spaces/{ended['id']}/end")

    everything = get(api, "/2/spaces/search", query=word)
    assert {space["id"] for space in everything["data"]} == {live["id"], scheduled["id"]}
    assert everything["meta"] == {"result_count": 2}
    assert get(api, "/2/spaces/search", query=word, state="live")["data"] == [
        {"id": live["id"], "state": "live"}
    ]
    only = get(
        api, "/2/spaces/search", query=f"{word} tomorrow", state="scheduled", **{"space.fields": "title"}
    )
    assert only["data"] == [{"id": scheduled["id"], "state": "scheduled", "title": scheduled["title"]}]
    assert get(api, "/2/spaces/search", query=word, max_results="1")["meta"] == {"result_count": 1}
    assert get(api, "/2/spaces/search", query=f"{word} nothing") == {"meta": {"result_count": 0}}
    bad = api.get("/2/spaces/search", params={"query": word, "state": "ended"})
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["message"] == (
        "The `state` query parameter value [ended] is not one of [live,scheduled,all]"
    )
    assert api.get("/2/spaces/search").status_code == 400


# ---- scheduled, started, ended ----------------------------------------------------------------------------


def test_scheduled_space_starts_and_ends_with_events(api: Api, server: LiveServer, make_user: Any) -> None:
    host = make_user()
    start = in_days(api, 3)
    space = new_space(api, host, scheduled_start=start, subscriber_count=5)
    fields = {"space.fields": "scheduled_start,started_at,participant_count,subscriber_count,ended_at"}
    data = get(api, f"/2/spaces/{space['id']}", **fields)["data"]
    assert data == {"id": space["id"], "state": "scheduled", "scheduled_start": start, "subscriber_count": 5}
    assert logged(server, "spaces.", host["id"]) == []  # nothing started yet

    started = api.http.post(f"/_roost/spaces/{space['id']}/start")
    assert started.status_code == 200 and started.json()["started_now"] is True
    data = get(api, f"/2/spaces/{space['id']}", **fields)["data"]
    assert data["state"] == "live" and "started_at" in data and data["participant_count"] == 1
    api.http.post(f"/_roost/spaces/{space['id']}/end")
    data = get(api, f"/2/spaces/{space['id']}", **fields)["data"]
    assert data["state"] == "ended" and "ended_at" in data  # ended Spaces stay retrievable by id
    payload = {"space_id": space["id"], "creator_id": host["id"]}
    assert logged(server, "spaces.", host["id"]) == [("spaces.start", payload), ("spaces.end", payload)]


def test_cancelled_schedule_ends_without_events(api: Api, server: LiveServer, make_user: Any) -> None:
    host = make_user()
    space = new_space(api, host, scheduled_start=in_days(api, 1))
    ended = api.http.post(f"/_roost/spaces/{space['id']}/end").json()
    assert (ended["state"], ended["ended_now"]) == ("ended", True)
    assert logged(server, "spaces.", host["id"]) == []


def test_control_plane_rules(api: Api, make_user: Any) -> None:
    host = make_user()
    speakers = [make_user()["id"] for _ in range(10)]
    for body in (
        {"creator_id": host["id"], "scheduled_start": in_days(api, 15)},  # more than 14 days ahead
        {"creator_id": host["id"], "speaker_ids": speakers},  # 11 speakers with the host
        {"creator_id": host["id"], "topic_ids": ["1"]},
        {"creator_id": host["id"], "host_ids": ["1"]},
        {"creator_id": host["id"], "title": "x" * 71},
        {"creator_id": host["id"], "colour": "red"},
    ):
        assert api.http.post("/_roost/spaces", json=body).status_code == 400, body
    space = new_space(api, host)
    changed = api.http.patch(
        f"/_roost/spaces/{space['id']}", json={"title": "Renamed", "participant_count": 9}
    )
    assert changed.status_code == 200
    data = get(api, f"/2/spaces/{space['id']}", **{"space.fields": "title,participant_count"})["data"]
    assert (data["title"], data["participant_count"]) == ("Renamed", 9)
    api.http.post(f"/_roost/spaces/{space['id']}/end")
    assert api.http.patch(f"/_roost/spaces/{space['id']}", json={"title": "Again"}).status_code == 400
    assert api.http.post("/_roost/spaces/1ZZZZZZZZZZZZ/start").status_code == 404


# ---- buyers ---------------------------------------------------------------------------------------------


def test_buyers_for_the_creator_paged(api: Api, make_user: Any) -> None:
    host = make_user()
    buyers = [make_user() for _ in range(3)]
    space = new_space(api, host, is_ticketed=True)
    for buyer in buyers:
        sold = api.http.post(f"/_roost/spaces/{space['id']}/tickets", json={"user_id": buyer["id"]})
        assert sold.status_code == 201
    again = api.http.post(f"/_roost/spaces/{space['id']}/tickets", json={"user_id": buyers[0]["id"]})
    assert (again.status_code, again.json()["created"]) == (200, False)

    path = f"/2/spaces/{space['id']}/buyers"
    first = api.get(path, auth="none", headers=bearer(host), params={"max_results": "2"})
    assert first.status_code == 200
    assert [user["id"] for user in first.json()["data"]] == [buyers[0]["id"], buyers[1]["id"]]
    token = first.json()["meta"]["next_token"]
    second = api.get(
        path, auth="none", headers=bearer(host), params={"max_results": "2", "pagination_token": token}
    )
    assert [user["id"] for user in second.json()["data"]] == [buyers[2]["id"]]
    assert second.json()["meta"]["result_count"] == 1

    stranger = api.get(path, auth="none", headers=bearer(buyers[0]))
    assert stranger.status_code == 403
    assert stranger.json()["title"] == "Authorization Error"
    assert api.get(path).status_code == 403  # app-only is not accepted
    free = new_space(api, host)
    assert (
        api.http.post(f"/_roost/spaces/{free['id']}/tickets", json={"user_id": buyers[0]["id"]}).status_code
        == 400
    )


# ---- posts sharing a Space ------------------------------------------------------------------------------


def test_posts_sharing_a_space(api: Api, make_user: Any) -> None:
    host, fan = make_user(), make_user()
    locked = make_user(protected=True)
    space = new_space(api, host)
    first = create_ok(api, host, text=f"Join us https://x.com/i/spaces/{space['id']}")
    second = create_ok(api, fan, text=f"Listening to https://twitter.com/i/spaces/{space['id']} now")
    create_ok(api, locked, text=f"Secret https://x.com/i/spaces/{space['id']}")
    create_ok(api, fan, text="Unrelated post")
    body = get(api, f"/2/spaces/{space['id']}/tweets", expansions="author_id")
    assert [post["id"] for post in body["data"]] == [second["id"], first["id"]]
    assert {user["id"] for user in body["includes"]["users"]} == {host["id"], fan["id"]}
    # Pages are cut before the protected post is left out: this one holds it and `second`.
    page = get(api, f"/2/spaces/{space['id']}/tweets", max_results="2")
    assert [post["id"] for post in page["data"]] == [second["id"]]
    following = get(
        api, f"/2/spaces/{space['id']}/tweets", max_results="2", pagination_token=page["meta"]["next_token"]
    )
    assert [post["id"] for post in following["data"]] == [first["id"]]
    assert get(api, "/2/spaces/1ZZZZZZZZZZZX/tweets") == {
        "errors": [not_found_item("space", "id", "1ZZZZZZZZZZZX")]
    }


# ---- the demo's Spaces ------------------------------------------------------------------------------------


@pytest.mark.parametrize("state", ["live", "scheduled"])
def test_demo_has_spaces_of_each_state(api: Api, state: str) -> None:
    found = get(
        api, "/2/spaces/search", query="roost", state=state, **{"space.fields": "is_ticketed,creator_id"}
    )
    assert found["meta"]["result_count"] >= 1
    assert any(space["is_ticketed"] for space in found["data"])


def test_demo_owner_sees_buyers(api: Api, credentials: dict[str, Any]) -> None:
    found = get(api, "/2/spaces/search", query="office hours", **{"space.fields": "creator_id"})
    space = found["data"][0]
    assert space["creator_id"] == credentials["user_id"]
    body = get(api, f"/2/spaces/{space['id']}/buyers", auth="oauth2")
    assert body["meta"]["result_count"] == 3


# ---- import and export --------------------------------------------------------------------------------


def test_export_and_import_carry_spaces_and_tickets(api: Api, make_user: Any) -> None:
    host, buyer = make_user(), make_user()
    space = new_space(api, host, is_ticketed=True, topic_ids=[TECHNOLOGY["id"]], lang="en")
    api.http.post(f"/_roost/spaces/{space['id']}/tickets", json={"user_id": buyer["id"]})
    exported = api.http.get("/_roost/export").json()
    [item] = [item for item in exported["spaces"] if item["id"] == space["id"]]
    assert item == get(api, f"/2/spaces/{space['id']}", **{"space.fields": ALL_FIELDS})["data"]
    assert {"space_id": space["id"], "user_id": buyer["id"]}.items() <= next(
        ticket for ticket in exported["space_tickets"] if ticket["space_id"] == space["id"]
    ).items()

    copy = {**item, "id": "1" + uuid.uuid4().hex[:12]}
    payload = {"spaces": [copy], "space_tickets": [{"space_id": copy["id"], "user_id": buyer["id"]}]}
    counts = api.http.post("/_roost/import", json=payload).json()["imported"]
    assert (counts["spaces"], counts["space_tickets"]) == (1, 1)
    again = api.http.post("/_roost/import", json=payload).json()["imported"]
    assert (again["spaces"], again["space_tickets"]) == (0, 0)
    assert get(api, f"/2/spaces/{copy['id']}", **{"space.fields": ALL_FIELDS})["data"] == copy
    bad = api.http.post("/_roost/import", json={"spaces": [{**copy, "id": "not-a-space!"}]})
    assert bad.status_code == 400
