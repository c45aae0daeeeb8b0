"""xdk 0.10.6 reposts, quotes, hidden replies, reposts_of_me and the home timeline against roost (the
post vocabulary, every answer validated by xdk's models: `rest_id` is required in a repost's answer)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from tests.clients.test_xdk import user_client
from tests.support.server import LiveServer
from xdk import Client
from xdk.posts.models import CreateRequest, HideReplyRequest
from xdk.users.models import FollowUserRequest, RepostPostRequest

pytestmark = pytest.mark.clients


@pytest.fixture(scope="module")
def app(server: LiveServer, credentials: dict[str, Any]) -> Iterator[Client]:
    client = Client(base_url=server.base_url, bearer_token=credentials["bearer_token"])
    yield client
    client.session.close()


def test_repost_quote_hide_and_timelines(
    app: Client, server: LiveServer, credentials: dict[str, Any], make_user: Any
) -> None:
    author_user, fan_user = make_user(), make_user()
    author = user_client(server, credentials, author_user["token"], author_user["secret"])
    fan = user_client(server, credentials, fan_user["token"], fan_user["secret"])
    stamp = uuid.uuid4().hex[:10]
    source = author.posts.create(CreateRequest(text=f"xdk source {stamp}")).data.id
    fan.users.follow_user(fan_user["id"], FollowUserRequest(target_user_id=author_user["id"]))

    reposted = fan.users.repost_post(fan_user["id"], RepostPostRequest(tweet_id=source))
    assert reposted.data.retweeted is True
    repost = reposted.data.rest_id
    by = next(app.posts.get_reposted_by(source))
    assert [user.id for user in by.data or []] == [fan_user["id"]]
    reposts = next(app.posts.get_reposts(source, post_fields=["referenced_posts"]))
    assert [post.id for post in reposts.data or []] == [repost]

    quote = fan.posts.create(CreateRequest(text=f"xdk quote {stamp}", quote_tweet_id=source)).data.id
    quotes = next(app.posts.get_quoted(source))
    assert [post.id for post in quotes.data or []] == [quote]

    mine = next(author.users.get_reposts_of_me())
    assert [post.id for post in mine.data or []] == [repost]

    reply = fan.posts.create(
        CreateRequest(text=f"xdk reply {stamp}", reply={"in_reply_to_tweet_id": source})
    ).data.id
    assert author.posts.hide_reply(reply, HideReplyRequest(hidden=True)).data.hidden is True
    assert author.posts.hide_reply(reply, HideReplyRequest(hidden=False)).data.hidden is False

    home = next(fan.users.get_timeline(fan_user["id"], exclude=["replies"]))
    assert [post.id for post in home.data or []] == [quote, repost, source]
    assert home.meta.result_count == 3

    undone = fan.users.unrepost_post(fan_user["id"], source)
    assert undone.data.retweeted is False
