"""Rendering by the fields engine (roost.core.fields) over an in-memory loader: the fields of primary
objects, long posts, includes, expansions through referenced posts and mentions by username.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from tests.unit.fields_support import (
    NOW,
    OPTIONS,
    FakeLoader,
    media,
    mention,
    not_found,
    place,
    poll,
    post,
    render,
    user,
    without_type,
)


class TestRenderBasics:
    async def test_default_post(self) -> None:
        loader = FakeLoader()
        rendered = await render("tweet", [post(10, 1, "hi there")], {}, loader)
        assert rendered.data == [{"id": "10", "text": "hi there", "edit_history_tweet_ids": ["10"]}]
        assert rendered.includes == {}
        assert rendered.errors == []
        assert loader.calls == []

    async def test_edit_history(self) -> None:
        rendered = await render("tweet", [post(12, 1, edit_history=[10, 12])], {}, FakeLoader())
        assert rendered.data[0]["edit_history_tweet_ids"] == ["10", "12"]

    async def test_default_user(self) -> None:
        rendered = await render("user", [user(1, "Alice")], {}, FakeLoader())
        assert rendered.data == [{"id": "1", "name": "Alice name", "username": "Alice"}]

    async def test_post_fields(self) -> None:
        row = post(
            10,
            1,
            "hi @bob",
            entities={"mentions": [mention("bob", 3)]},
            in_reply_to_post_id=9,
            in_reply_to_user_id=2,
            quoted_post_id=8,
            conversation_id=7,
            created_at=1633592478000,
            source="roost",
            possibly_sensitive=1,
            poll_id=55,
            place_id="01a9a39529b27f36",
            media_keys=["3_1"],
        )
        fields = (
            "author_id,created_at,conversation_id,in_reply_to_user_id,referenced_tweets,lang,possibly_sensitive,"
            "reply_settings,attachments,edit_controls,geo,source,entities,public_metrics,display_text_range"
        )
        rendered = await render("tweet", [row], {"tweet.fields": fields}, FakeLoader())
        assert rendered.data == [
            {
                "id": "10",
                "text": "hi @bob",
                "edit_history_tweet_ids": ["10"],
                "attachments": {"media_keys": ["3_1"], "poll_ids": ["55"]},
                "author_id": "1",
                "conversation_id": "7",
                "created_at": "2021-10-07T07:41:18.000Z",
                "display_text_range": [0, 7],
                "edit_controls": {
                    "edits_remaining": 5,
                    "is_edit_eligible": True,
                    "editable_until": "2021-10-07T08:41:18.000Z",
                },
                "entities": {"mentions": [{"start": 3, "end": 7, "username": "bob"}]},
                "geo": {"place_id": "01a9a39529b27f36"},
                "in_reply_to_user_id": "2",
                "lang": "en",
                "possibly_sensitive": True,
                "public_metrics": {
                    "retweet_count": 1,
                    "reply_count": 2,
                    "like_count": 3,
                    "quote_count": 4,
                    "bookmark_count": 5,
                    "impression_count": 6,
                },
                "referenced_tweets": [{"type": "replied_to", "id": "9"}, {"type": "quoted", "id": "8"}],
                "reply_settings": "everyone",
                "source": "roost",
            }
        ]

    async def test_absent_values_are_omitted(self) -> None:
        rendered = await render(
            "tweet",
            [post(10, 1)],
            {"tweet.fields": "attachments,referenced_tweets,in_reply_to_user_id,geo,entities,note_tweet"},
            FakeLoader(),
        )
        assert rendered.data == [{"id": "10", "text": "hello", "edit_history_tweet_ids": ["10"]}]

    async def test_repost_reference(self) -> None:
        rendered = await render(
            "tweet", [post(10, 1, reposted_post_id=5)], {"tweet.fields": "referenced_tweets"}, FakeLoader()
        )
        assert rendered.data[0]["referenced_tweets"] == [{"type": "retweeted", "id": "5"}]


class TestLongPosts:
    FULL = "word " * 70 + "tail @carol end"
    DISPLAY = FULL[:280]
    ENTITIES: ClassVar[dict[str, Any]] = {
        "mentions": [mention("bob", 10), mention("carol", FULL.index("@carol"))],
        "hashtags": [{"start": 0, "end": 4, "tag": "word"}],
    }

    def row(self) -> dict[str, Any]:
        return post(10, 1, self.FULL, display_text=self.DISPLAY, entities=self.ENTITIES)

    async def test_display_text_is_the_text(self) -> None:
        rendered = await render("tweet", [self.row()], {}, FakeLoader())
        assert rendered.data == [{"id": "10", "text": self.DISPLAY, "edit_history_tweet_ids": ["10"]}]

    async def test_note_tweet_has_the_full_text(self) -> None:
        rendered = await render(
            "tweet", [self.row()], {"tweet.fields": "note_tweet,entities,display_text_range"}, FakeLoader()
        )
        (data,) = rendered.data
        assert data["text"] == self.DISPLAY
        assert data["note_tweet"] == {"text": self.FULL, "entities": self.ENTITIES}
        assert data["display_text_range"] == [0, 280]
        # Entities of `text` only cover what is shown.
        assert data["entities"] == {
            "mentions": [mention("bob", 10)],
            "hashtags": [{"start": 0, "end": 4, "tag": "word"}],
        }

    async def test_note_post_in_the_post_vocabulary(self) -> None:
        rendered = await render("tweet", [self.row()], {"post.fields": "note_post"}, FakeLoader())
        (data,) = rendered.data
        assert data["note_post"] == {"text": self.FULL, "entities": self.ENTITIES}
        assert "note_tweet" not in data

    async def test_short_post_has_no_note_tweet(self) -> None:
        rendered = await render("tweet", [post(11, 1, "short")], {"tweet.fields": "note_tweet"}, FakeLoader())
        assert "note_tweet" not in rendered.data[0]

    async def test_mentions_split_between_text_and_note(self) -> None:
        loader = FakeLoader(users=[user(2, "bob"), user(3, "carol")])
        shown = await render("tweet", [self.row()], {"expansions": "entities.mentions.username"}, loader)
        assert [u["username"] for u in shown.includes["users"]] == ["bob"]
        hidden = await render(
            "tweet", [self.row()], {"expansions": "entities.note.mentions.username"}, loader
        )
        assert [u["username"] for u in hidden.includes["users"]] == ["carol"]


class TestIncludes:
    async def test_authors_are_de_duplicated(self) -> None:
        loader = FakeLoader(users=[user(1, "alice"), user(2, "bob")])
        records = [post(10, 1), post(11, 1), post(12, 2)]
        rendered = await render("tweet", records, {"expansions": "author_id"}, loader)
        assert rendered.includes == {
            "users": [
                {"id": "1", "name": "alice name", "username": "alice"},
                {"id": "2", "name": "bob name", "username": "bob"},
            ]
        }
        assert rendered.errors == []
        assert loader.calls == [("user", "id", [1, 2])]

    async def test_same_user_through_two_expansions_is_included_once(self) -> None:
        loader = FakeLoader(users=[user(1, "alice"), user(2, "bob")])
        row = post(10, 1, "@bob hi", entities={"mentions": [mention("bob", 0)]}, in_reply_to_user_id=2)
        rendered = await render(
            "tweet", [row], {"expansions": "author_id,in_reply_to_user_id,entities.mentions.username"}, loader
        )
        assert [u["id"] for u in rendered.includes["users"]] == ["1", "2"]
        # author_id and in_reply_to_user_id share one batch by id; mentions are one batch by username.
        assert loader.loads_of("user") == [("id", [1, 2]), ("username", ["bob"])]

    async def test_every_kind_under_its_includes_key(self) -> None:
        loader = FakeLoader(
            posts=[post(9, 2, "parent")],
            users=[user(1, "alice"), user(2, "bob")],
            media=[media("3_100"), media("16_101", "animated_gif")],
            polls=[poll(55, NOW + 3_600_000)],
            places=[place("01a9a39529b27f36", "Manhattan, NY")],
        )
        row = post(
            10,
            1,
            media_keys=["3_100", "16_101"],
            poll_id=55,
            place_id="01a9a39529b27f36",
            in_reply_to_post_id=9,
        )
        expansions = "attachments.media_keys,attachments.poll_ids,geo.place_id,author_id,referenced_tweets.id"
        rendered = await render("tweet", [row], {"expansions": expansions}, loader)
        assert rendered.errors == []
        assert rendered.includes == {
            "polls": [{"id": "55", "options": OPTIONS}],
            "media": [
                {"media_key": "3_100", "type": "photo"},
                {"media_key": "16_101", "type": "animated_gif"},
            ],
            "users": [{"id": "1", "name": "alice name", "username": "alice"}],
            "tweets": [rendered.includes["tweets"][0]],
            "places": [{"full_name": "Manhattan, NY", "id": "01a9a39529b27f36"}],
        }
        # Included posts share the post field selection (which the expansions may widen).
        assert rendered.includes["tweets"][0]["id"] == "9"
        assert rendered.includes["tweets"][0]["text"] == "parent"

    async def test_included_objects_use_their_selected_fields(self) -> None:
        loader = FakeLoader(
            users=[user(1, "alice", verified=1)],
            media=[media("7_5", "video", duration_ms=1500, view_count=42, width=1280, height=720)],
        )
        rendered = await render(
            "tweet",
            [post(10, 1, media_keys=["7_5"])],
            {
                "expansions": "author_id,attachments.media_keys",
                "user.fields": "verified",
                "media.fields": "duration_ms,public_metrics,width,height,alt_text",
            },
            loader,
        )
        assert rendered.includes["users"] == [
            {"id": "1", "name": "alice name", "username": "alice", "verified": True}
        ]
        assert rendered.includes["media"] == [
            {
                "media_key": "7_5",
                "type": "video",
                "duration_ms": 1500,
                "height": 720,
                "public_metrics": {"view_count": 42},
                "width": 1280,
            }
        ]

    async def test_expansion_not_requested_loads_nothing(self) -> None:
        loader = FakeLoader(users=[user(1, "alice")])
        rendered = await render("tweet", [post(10, 1)], {"user.fields": "created_at"}, loader)
        assert rendered.includes == {}
        assert loader.calls == []

    async def test_edit_history_expansion(self) -> None:
        loader = FakeLoader(posts=[post(10, 1, "v1"), post(12, 1, "v2", edit_history=[10, 12])])
        rendered = await render(
            "tweet",
            [post(12, 1, "v2", edit_history=[10, 12])],
            {"expansions": "edit_history_tweet_ids"},
            loader,
        )
        assert [t["id"] for t in rendered.includes["tweets"]] == ["10", "12"]

    async def test_place_fields(self) -> None:
        loader = FakeLoader(
            places=[
                place(
                    "01a9a39529b27f36",
                    "Manhattan, NY",
                    name="Manhattan",
                    country="United States",
                    country_code="US",
                    place_type="city",
                    geo=json.dumps({"type": "Feature", "bbox": [-74.02, 40.68, -73.91, 40.87]}),
                )
            ]
        )
        rendered = await render(
            "tweet",
            [post(10, 1, place_id="01a9a39529b27f36")],
            {
                "expansions": "geo.place_id",
                "place.fields": "country,country_code,geo,name,place_type,contained_within",
            },
            loader,
        )
        assert rendered.includes["places"] == [
            {
                "full_name": "Manhattan, NY",
                "id": "01a9a39529b27f36",
                "country": "United States",
                "country_code": "US",
                "geo": {"type": "Feature", "bbox": [-74.02, 40.68, -73.91, 40.87]},
                "name": "Manhattan",
                "place_type": "city",
            }
        ]


class TestReferencedExpansions:
    def loader(self) -> FakeLoader:
        return FakeLoader(
            posts=[post(20, 2, "quoted", media_keys=["3_200"]), post(21, 3, "parent")],
            users=[user(1, "alice"), user(2, "bob"), user(3, "carol")],
            media=[media("3_100"), media("3_200")],
        )

    async def test_author_of_referenced_posts(self) -> None:
        loader = self.loader()
        records = [post(10, 1, quoted_post_id=20, media_keys=["3_100"])]
        rendered = await render("tweet", records, {"expansions": "referenced_tweets.id.author_id"}, loader)
        assert rendered.includes == {"users": [{"id": "2", "name": "bob name", "username": "bob"}]}
        assert rendered.errors == []

    async def test_with_referenced_posts_and_authors(self) -> None:
        loader = self.loader()
        records = [post(10, 1, quoted_post_id=20, in_reply_to_post_id=21)]
        rendered = await render(
            "tweet",
            records,
            {"expansions": "author_id,referenced_tweets.id,referenced_tweets.id.author_id"},
            loader,
        )
        assert [t["id"] for t in rendered.includes["tweets"]] == ["21", "20"]
        assert [u["id"] for u in rendered.includes["users"]] == ["1", "3", "2"]
        # Referenced posts are loaded once; every user comes from one batch.
        assert loader.loads_of("tweet") == [("id", [21, 20])]
        assert loader.loads_of("user") == [("id", [1, 3, 2])]

    async def test_media_of_referenced_posts(self) -> None:
        loader = self.loader()
        records = [post(10, 1, quoted_post_id=20, media_keys=["3_100"])]
        rendered = await render(
            "tweet", records, {"expansions": "referenced_tweets.id.attachments.media_keys"}, loader
        )
        assert rendered.includes == {"media": [{"media_key": "3_200", "type": "photo"}]}

    async def test_post_vocabulary_alias(self) -> None:
        loader = self.loader()
        records = [post(10, 1, quoted_post_id=20)]
        rendered = await render("tweet", records, {"expansions": "referenced_posts.id.author_id"}, loader)
        assert rendered.includes == {"users": [{"id": "2", "name": "bob name", "username": "bob"}]}

    async def test_missing_referenced_post_has_no_author(self) -> None:
        loader = self.loader()
        records = [post(10, 1, quoted_post_id=999)]
        rendered = await render("tweet", records, {"expansions": "referenced_tweets.id.author_id"}, loader)
        assert rendered.includes == {}
        assert rendered.errors == []

    async def test_missing_author_of_a_referenced_post(self) -> None:
        loader = FakeLoader(posts=[post(20, 404)])
        rendered = await render(
            "tweet",
            [post(10, 1, quoted_post_id=20)],
            {"expansions": "referenced_tweets.id.author_id"},
            loader,
        )
        assert without_type(rendered.errors) == [not_found("user", "referenced_tweets.id.author_id", "404")]


class TestUsernames:
    async def test_looked_up_case_insensitively(self) -> None:
        loader = FakeLoader(users=[user(2, "Bob"), user(3, "carol")])
        row = post(
            10,
            1,
            "@BOB @Carol @bob",
            entities={"mentions": [mention("BOB", 0), mention("Carol", 5), mention("bob", 12)]},
        )
        rendered = await render("tweet", [row], {"expansions": "entities.mentions.username"}, loader)
        assert rendered.includes == {
            "users": [
                {"id": "2", "name": "Bob name", "username": "Bob"},
                {"id": "3", "name": "carol name", "username": "carol"},
            ]
        }
        assert rendered.errors == []
        assert loader.calls == [("user", "username", ["bob", "carol"])]

    async def test_username_alias_of_the_post_vocabulary(self) -> None:
        loader = FakeLoader(users=[user(2, "Bob")])
        row = post(10, 1, "@bob", entities={"mentions": [mention("bob", 0)]})
        rendered = await render("tweet", [row], {"expansions": "username"}, loader)
        assert rendered.includes == {"users": [{"id": "2", "name": "Bob name", "username": "Bob"}]}
