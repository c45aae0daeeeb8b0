"""Rendering by the fields engine (roost.core.fields) that depends on the render context: the post
vocabulary, the viewer (connection status, private metrics) and the clock (poll voting status).
"""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from tests.unit.fields_support import NOW, OPTIONS, FakeLoader, poll, post, render, user


class TestPostVocabulary:
    async def test_output_names(self) -> None:
        loader = FakeLoader(
            posts=[post(9, 2, "parent")],
            users=[user(1, "alice", pinned_post_id=10), user(2, "bob")],
        )
        row = post(10, 1, in_reply_to_post_id=9, edit_history=[10])
        rendered = await render(
            "tweet",
            [row],
            {
                "post.fields": "public_metrics,referenced_posts",
                "user.fields": "public_metrics,pinned_tweet_id",
                "expansions": "referenced_posts,author_id",
            },
            loader,
        )
        (data,) = rendered.data
        assert data["edit_history_post_ids"] == ["10"]
        assert data["referenced_posts"] == [{"type": "replied_to", "id": "9"}]
        assert data["public_metrics"]["repost_count"] == 1
        assert "retweet_count" not in data["public_metrics"]
        assert not {"edit_history_tweet_ids", "referenced_tweets"} & set(data)
        assert set(rendered.includes) == {"posts", "users"}
        assert rendered.includes["posts"][0]["edit_history_post_ids"] == ["9"]
        author = rendered.includes["users"][0]
        assert author["public_metrics"] == {
            "followers_count": 10,
            "following_count": 20,
            "post_count": 30,
            "listed_count": 40,
            "like_count": 50,
            "media_count": 60,
        }
        assert author["pinned_post_id"] == "10"
        assert "pinned_tweet_id" not in author

    async def test_tweet_names_for_the_same_request_in_tweet_vocabulary(self) -> None:
        loader = FakeLoader(posts=[post(9, 2, "parent")], users=[user(1, "alice", pinned_post_id=10)])
        row = post(10, 1, in_reply_to_post_id=9)
        rendered = await render(
            "tweet",
            [row],
            {
                "tweet.fields": "public_metrics,referenced_tweets",
                "user.fields": "public_metrics,pinned_tweet_id",
                "expansions": "referenced_tweets.id,author_id",
            },
            loader,
        )
        (data,) = rendered.data
        assert data["edit_history_tweet_ids"] == ["10"]
        assert data["referenced_tweets"] == [{"type": "replied_to", "id": "9"}]
        assert data["public_metrics"]["retweet_count"] == 1
        assert set(rendered.includes) == {"tweets", "users"}
        assert rendered.includes["users"][0]["public_metrics"]["tweet_count"] == 30
        assert rendered.includes["users"][0]["pinned_tweet_id"] == "10"

    async def test_user_primary_post_names(self) -> None:
        loader = FakeLoader(posts=[post(10, 1, "pinned")])
        rendered = await render(
            "user",
            [user(1, "alice", pinned_post_id=10, most_recent_post_id=10)],
            {
                "user.fields": "pinned_tweet_id,most_recent_tweet_id",
                "expansions": "pinned_post_id",
                "post.fields": "id",  # what chooses post names (the expansion's name does not)
            },
            loader,
        )
        assert rendered.data == [
            {
                "id": "1",
                "name": "alice name",
                "username": "alice",
                "most_recent_post_id": "10",
                "pinned_post_id": "10",
            }
        ]
        assert rendered.includes == {
            "posts": [{"id": "10", "text": "pinned", "edit_history_post_ids": ["10"]}]
        }


class TestConnectionStatus:
    FOLLOWS: ClassVar[list[tuple[int, int]]] = [(1, 2), (3, 1), (1, 4), (4, 1), (5, 6)]

    def users(self) -> list[dict[str, Any]]:
        return [user(i, f"user{i}") for i in range(1, 7)]

    async def test_from_relations(self) -> None:
        loader = FakeLoader(follows=self.FOLLOWS)
        records = self.users()
        rendered = await render("user", records, {"user.fields": "connection_status"}, loader, viewer_id=1)
        status = {d["id"]: d.get("connection_status") for d in rendered.data}
        assert status == {
            "1": None,  # the viewer itself
            "2": ["following"],
            "3": ["followed_by"],
            "4": ["following", "followed_by"],
            "5": [],
            "6": [],
        }
        assert loader.relation_calls == [(1, [1, 2, 3, 4, 5, 6])]

    async def test_included_users(self) -> None:
        loader = FakeLoader(users=self.users(), follows=self.FOLLOWS)
        records = [post(10, 2), post(11, 3)]
        rendered = await render(
            "tweet",
            records,
            {"expansions": "author_id", "user.fields": "connection_status"},
            loader,
            viewer_id=1,
        )
        assert [(u["id"], u["connection_status"]) for u in rendered.includes["users"]] == [
            ("2", ["following"]),
            ("3", ["followed_by"]),
        ]
        assert loader.relation_calls == [(1, [2, 3])]

    async def test_without_a_viewer(self) -> None:
        loader = FakeLoader(follows=self.FOLLOWS)
        rendered = await render("user", self.users()[:2], {"user.fields": "connection_status"}, loader)
        assert all("connection_status" not in d for d in rendered.data)
        assert loader.relation_calls == []

    async def test_not_requested(self) -> None:
        loader = FakeLoader(follows=self.FOLLOWS)
        rendered = await render("user", self.users()[:2], {"user.fields": "created_at"}, loader, viewer_id=1)
        assert all("connection_status" not in d for d in rendered.data)
        assert loader.relation_calls == []


class TestPrivateMetrics:
    QUERY: ClassVar[dict[str, str]] = {"tweet.fields": "non_public_metrics,organic_metrics,public_metrics"}

    async def test_author_viewer_sees_them(self) -> None:
        rendered = await render("tweet", [post(10, 1)], self.QUERY, FakeLoader(), viewer_id=1)
        (data,) = rendered.data
        assert data["non_public_metrics"] == {
            "impression_count": 6,
            "url_link_clicks": 0,
            "user_profile_clicks": 0,
        }
        assert data["organic_metrics"] == {
            "impression_count": 6,
            "url_link_clicks": 0,
            "user_profile_clicks": 0,
            "like_count": 3,
            "reply_count": 2,
            "retweet_count": 1,
        }
        assert "public_metrics" in data

    @pytest.mark.parametrize("viewer", [None, 2])
    async def test_others_do_not(self, viewer: int | None) -> None:
        rendered = await render("tweet", [post(10, 1)], self.QUERY, FakeLoader(), viewer_id=viewer)
        (data,) = rendered.data
        assert "non_public_metrics" not in data
        assert "organic_metrics" not in data
        assert data["public_metrics"]["like_count"] == 3

    async def test_per_post_in_one_response(self) -> None:
        rendered = await render("tweet", [post(10, 1), post(11, 2)], self.QUERY, FakeLoader(), viewer_id=2)
        assert ["non_public_metrics" in d for d in rendered.data] == [False, True]


class TestPolls:
    QUERY: ClassVar[dict[str, str]] = {
        "expansions": "attachments.poll_ids",
        "poll.fields": "voting_status,end_datetime,duration_minutes",
    }

    async def rendered_poll(self, end: int, now: int) -> dict[str, Any]:
        loader = FakeLoader(polls=[poll(55, end, duration_minutes=1440)])
        rendered = await render("tweet", [post(10, 1, poll_id=55)], self.QUERY, loader, now_ms=now)
        (item,) = rendered.includes["polls"]
        return item

    async def test_open_before_end(self) -> None:
        item = await self.rendered_poll(end=1633592478000, now=1633592478000 - 1)
        assert item == {
            "id": "55",
            "options": OPTIONS,
            "duration_minutes": 1440,
            "end_datetime": "2021-10-07T07:41:18.000Z",
            "voting_status": "open",
        }

    @pytest.mark.parametrize("after_ms", [1, 60_000, 86_400_000])
    async def test_closed_after_end(self, after_ms: int) -> None:
        item = await self.rendered_poll(end=1633592478000, now=1633592478000 + after_ms)
        assert item["voting_status"] == "closed"

    async def test_default_poll_fields(self) -> None:
        loader = FakeLoader(polls=[poll(55, NOW)])
        rendered = await render(
            "tweet", [post(10, 1, poll_id=55)], {"expansions": "attachments.poll_ids"}, loader
        )
        assert rendered.includes == {"polls": [{"id": "55", "options": OPTIONS}]}
