"""xdk 0.10.6's `lists` client and the list methods of its `users` client, in process against roost
through `base_url` (pydantic validates every answer, in the post vocabulary xdk speaks)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.api.helpers import create_ok
from tests.clients.test_xdk import user_client
from tests.support.client import Api
from tests.support.server import LiveServer
from xdk import Client
from xdk.lists.models import AddMemberRequest, CreateRequest, UpdateRequest
from xdk.schemas import ResourceNotFoundProblem
from xdk.users.models import FollowListRequest, PinListRequest

pytestmark = pytest.mark.clients

LIST_FIELDS: list[Any] = ["created_at", "description", "follower_count", "member_count", "private"]


def test_lists_and_users_clients_cover_every_list_operation(
    server: LiveServer, credentials: dict[str, Any], api: Api, make_user: Any
) -> None:
    owner, member, fan = make_user(), make_user(), make_user()
    post = create_ok(api, member)
    as_owner = user_client(server, credentials, owner["token"], owner["secret"])
    as_fan = user_client(server, credentials, fan["token"], fan["secret"])
    app = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    try:
        created = as_owner.lists.create(CreateRequest(name="xdk list", description="made by xdk"))
        assert created.data is not None
        list_id = created.data.id
        assert created.data.name == "xdk list"
        assert (
            as_owner.lists.update(list_id, UpdateRequest(private=False, name="xdk list 2")).data.updated
            is True
        )
        added = as_owner.lists.add_member(list_id, AddMemberRequest(user_id=member["id"]))
        assert added.data.is_member is True

        got = app.lists.get_by_id(list_id, list_fields=LIST_FIELDS, expansions=["owner_id"])
        assert got.data.name == "xdk list 2"
        assert (got.data.member_count, got.data.follower_count, got.data.private) == (1, 0, False)
        assert [user.id for user in got.includes.users] == [owner["id"]]

        members = next(iter(app.lists.get_members(list_id, max_results=10)))
        assert [user.id for user in members.data] == [member["id"]]
        posts = next(
            iter(app.lists.get_posts(list_id, max_results=5, post_fields=["author_id", "created_at"]))
        )
        assert [item.id for item in posts.data] == [post["id"]]
        owned = next(iter(app.users.get_owned_lists(owner["id"], list_fields=LIST_FIELDS)))
        assert [item.id for item in owned.data] == [list_id]
        memberships = next(iter(app.users.get_list_memberships(member["id"])))
        assert [item.id for item in memberships.data] == [list_id]

        assert as_fan.users.follow_list(fan["id"], FollowListRequest(list_id=list_id)).data.following is True
        followers = next(iter(app.lists.get_followers(list_id)))
        assert [user.id for user in followers.data] == [fan["id"]]
        followed = next(iter(app.users.get_followed_lists(fan["id"])))
        assert [item.id for item in followed.data] == [list_id]
        assert as_fan.users.pin_list(fan["id"], PinListRequest(list_id=list_id)).data.pinned is True
        pinned = as_fan.users.get_pinned_lists(fan["id"], list_fields=LIST_FIELDS)
        assert [item.id for item in pinned.data] == [list_id]
        assert pinned.meta.result_count == 1
        assert as_fan.users.unpin_list(fan["id"], list_id).data.pinned is False
        assert as_fan.users.unfollow_list(fan["id"], list_id).data.following is False

        removed = as_owner.lists.remove_member_by_user_id(list_id, member["id"])
        assert removed.data.is_member is False
        assert as_owner.lists.delete(list_id).data.deleted is True
        gone = app.lists.get_by_id(list_id)
        assert gone.data is None
        assert isinstance(gone.errors[0], ResourceNotFoundProblem)
        assert gone.errors[0].detail == f"Could not find list with id: [{list_id}]."
    finally:
        for client in (as_owner, as_fan, app):
            client.session.close()
