"""Partial errors of rendering by the fields engine (roost.core.fields): referenced objects that cannot
be found and objects the viewer may not see.
"""

from __future__ import annotations

from typing import Any

from tests.unit.fields_support import FakeLoader, media, mention, not_found, post, render, user, without_type


class TestMissingReferences:
    async def test_missing_referenced_post(self) -> None:
        loader = FakeLoader(posts=[post(8, 3, "quoted")])
        records = [
            post(10, 1, in_reply_to_post_id=999, quoted_post_id=8),
            post(11, 2, in_reply_to_post_id=999),
        ]
        rendered = await render("tweet", records, {"expansions": "referenced_tweets.id"}, loader)
        assert [d["id"] for d in rendered.data] == ["10", "11"]
        assert rendered.includes == {
            "tweets": [{"id": "8", "text": "quoted", "edit_history_tweet_ids": ["8"]}]
        }
        assert without_type(rendered.errors) == [not_found("tweet", "referenced_tweets.id", "999")]

    async def test_parameter_is_the_canonical_name_when_requested_by_alias(self) -> None:
        rendered = await render(
            "tweet", [post(10, 1, quoted_post_id=999)], {"expansions": "referenced_posts"}, FakeLoader()
        )
        assert without_type(rendered.errors) == [not_found("tweet", "referenced_tweets.id", "999")]

    async def test_missing_author_reported_once(self) -> None:
        rendered = await render(
            "tweet", [post(10, 7), post(11, 7)], {"expansions": "author_id"}, FakeLoader()
        )
        assert without_type(rendered.errors) == [not_found("user", "author_id", "7")]
        assert rendered.includes == {}

    async def test_same_missing_id_through_two_expansions_is_reported_per_parameter(self) -> None:
        rendered = await render(
            "tweet",
            [post(10, 7, in_reply_to_user_id=7), post(11, 7, in_reply_to_user_id=7)],
            {"expansions": "author_id,in_reply_to_user_id"},
            FakeLoader(),
        )
        assert without_type(rendered.errors) == [
            not_found("user", "author_id", "7"),
            not_found("user", "in_reply_to_user_id", "7"),
        ]

    async def test_missing_media_poll_and_place(self) -> None:
        row = post(10, 1, media_keys=["3_404"], poll_id=404, place_id="nowhere")
        rendered = await render(
            "tweet",
            [row],
            {"expansions": "attachments.media_keys,attachments.poll_ids,geo.place_id"},
            FakeLoader(),
        )
        # Reported in the declared order of the expansions.
        assert without_type(rendered.errors) == [
            not_found("poll", "attachments.poll_ids", "404"),
            not_found("media", "attachments.media_keys", "3_404"),
            not_found("place", "geo.place_id", "nowhere"),
        ]
        assert rendered.includes == {}

    async def test_missing_mention_keeps_the_written_case(self) -> None:
        row = post(10, 1, "@Ghost hi", entities={"mentions": [mention("Ghost", 0)]})
        rendered = await render("tweet", [row], {"expansions": "entities.mentions.username"}, FakeLoader())
        assert without_type(rendered.errors) == [not_found("user", "entities.mentions.username", "Ghost")]

    async def test_missing_pinned_post_of_a_user(self) -> None:
        rendered = await render(
            "user", [user(1, "alice", pinned_post_id=404)], {"expansions": "pinned_tweet_id"}, FakeLoader()
        )
        assert rendered.data == [
            {"id": "1", "name": "alice name", "username": "alice", "pinned_tweet_id": "404"}
        ]
        assert without_type(rendered.errors) == [not_found("tweet", "pinned_tweet_id", "404")]

    async def test_error_items_are_the_platform_problem(self) -> None:
        rendered = await render("tweet", [post(10, 7)], {"expansions": "author_id"}, FakeLoader())
        (error,) = rendered.errors
        assert error["type"] == "https://api.x.com/2/problems/resource-not-found"  # the default prefix
        assert error["detail"] == "Could not find user with author_id: [7]."


class TestDeniedObjects:
    """Objects the loader says the viewer may not see are authorization errors, not includes."""

    @staticmethod
    def not_authorized(parameter: str, value: str) -> dict[str, Any]:
        return {
            "value": value,
            "detail": f"Sorry, you are not authorized to see the tweet with {parameter}: [{value}].",
            "title": "Authorization Error",
            "resource_type": "tweet",
            "parameter": parameter,
            "resource_id": value,
            "section": "includes",
        }

    async def test_hidden_referenced_post(self) -> None:
        loader = FakeLoader(posts=[post(20, 2), post(21, 3)], hidden=[("tweet", 20)])
        records = [post(10, 1, quoted_post_id=20, in_reply_to_post_id=21), post(11, 1, quoted_post_id=20)]
        rendered = await render("tweet", records, {"expansions": "referenced_tweets.id"}, loader)
        assert [t["id"] for t in rendered.includes["tweets"]] == ["21"]
        (error,) = rendered.errors
        assert error["type"].endswith("/2/problems/not-authorized-for-resource")
        assert {k: v for k, v in error.items() if k != "type"} == self.not_authorized(
            "referenced_tweets.id", "20"
        )

    async def test_media_of_a_hidden_referenced_post_is_not_included(self) -> None:
        loader = FakeLoader(
            posts=[post(20, 2, media_keys=["3_200"])], media=[media("3_200")], hidden=[("tweet", 20)]
        )
        rendered = await render(
            "tweet",
            [post(10, 1, quoted_post_id=20)],
            {"expansions": "referenced_tweets.id.attachments.media_keys"},
            loader,
        )
        assert "media" not in rendered.includes
