"""Parsing of `expansions` by the fields engine (roost.core.fields): accepted and rejected names, the
fields an expansion implies, the vocabulary a request selects and the parameters of each primary kind.
"""

from __future__ import annotations

import pytest
from tests.unit.fields_support import DEFAULTS, ENGINE, FakeLoader, parse, post, render, user

from roost.core.fields import POST_VOCAB, TWEET_VOCAB

TWEET_EXPANSIONS_LIST = (
    "attachments.poll_ids,attachments.media_keys,author_id,edit_history_tweet_ids,entities.mentions.username,"
    "geo.place_id,in_reply_to_user_id,entities.note.mentions.username,referenced_tweets.id,"
    "referenced_tweets.id.attachments.media_keys,referenced_tweets.id.author_id,attachments.media_source_tweet,"
    "article.cover_media,article.media_entities,edit_history_post_ids,username,referenced_posts,"
    "referenced_posts.id,referenced_posts.id.attachments.media_keys,referenced_posts.id.author_id"
)
USER_EXPANSIONS_LIST = (
    "pinned_tweet_id,most_recent_tweet_id,affiliation.user_id,pinned_post_id,most_recent_post_id,affiliation"
)
# What a request in tweet names is told: the tweet names only (live traffic).
TWEET_MODE_LIST = TWEET_EXPANSIONS_LIST.split(",edit_history_post_ids,")[0]
USER_TWEET_MODE_LIST = "pinned_tweet_id,most_recent_tweet_id,affiliation.user_id"


class TestExpansions:
    def test_selected_in_declaration_order_without_duplicates(self) -> None:
        selection = parse("tweet", {"expansions": "geo.place_id,author_id,referenced_tweets.id,author_id"})
        assert [e.name for e in selection.expansions] == ["author_id", "geo.place_id", "referenced_tweets.id"]

    def test_alias_and_canonical_name_are_one_expansion(self) -> None:
        selection = parse(
            "tweet", {"expansions": "referenced_tweets.id,referenced_posts,referenced_posts.id"}
        )
        assert [e.name for e in selection.expansions] == ["referenced_tweets.id"]

    @pytest.mark.parametrize(
        ("raw", "bad"),
        [
            ("foo", "foo"),
            ("author_id,foo,bar", "foo"),
            ("author_id,", ""),
            ("Author_id", "Author_id"),
            ("pinned_tweet_id", "pinned_tweet_id"),
            ("referenced_tweets", "referenced_tweets"),
        ],
    )
    def test_bad_expansion_for_tweets(self, raw: str, bad: str) -> None:
        _, problems = ENGINE.parse("tweet", {"expansions": raw})
        assert problems == [
            (
                "expansions",
                raw,
                f"The `expansions` query parameter value [{bad}] is not one of [{TWEET_MODE_LIST}]",
            )
        ]

    def test_bad_expansion_in_post_names_lists_both_vocabularies(self) -> None:
        _, problems = ENGINE.parse("tweet", {"expansions": "foo", "post.fields": "id"})
        assert problems == [
            (
                "expansions",
                "foo",
                f"The `expansions` query parameter value [foo] is not one of [{TWEET_EXPANSIONS_LIST}]",
            )
        ]

    def test_bad_expansion_for_users(self) -> None:
        _, problems = ENGINE.parse("user", {"expansions": "author_id"})
        assert problems == [
            (
                "expansions",
                "author_id",
                f"The `expansions` query parameter value [author_id] is not one of [{USER_TWEET_MODE_LIST}]",
            )
        ]

    def test_expansion_listing_order(self) -> None:
        assert ",".join(ENGINE.expansion_names("tweet")) == TWEET_EXPANSIONS_LIST
        assert ",".join(ENGINE.expansion_names("user")) == USER_EXPANSIONS_LIST

    @pytest.mark.parametrize(
        "name",
        [
            "attachments.poll_ids",
            "attachments.media_keys",
            "author_id",
            "edit_history_tweet_ids",
            "entities.mentions.username",
            "geo.place_id",
            "in_reply_to_user_id",
            "entities.note.mentions.username",
            "referenced_tweets.id",
            "referenced_tweets.id.attachments.media_keys",
            "referenced_tweets.id.author_id",
            "attachments.media_source_tweet",
            "article.cover_media",
            "article.media_entities",
        ],
    )
    def test_every_tweet_expansion_is_accepted(self, name: str) -> None:
        assert [e.name for e in parse("tweet", {"expansions": name}).expansions] == [name]


class TestImpliedFields:
    """An expansion also selects the field of the primary object it expands (as the platform does)."""

    @pytest.mark.parametrize(
        ("primary", "expansion", "field"),
        [
            ("tweet", "author_id", "author_id"),
            ("tweet", "attachments.media_keys", "attachments"),
            ("tweet", "attachments.poll_ids", "attachments"),
            ("tweet", "geo.place_id", "geo"),
            ("tweet", "in_reply_to_user_id", "in_reply_to_user_id"),
            ("tweet", "referenced_tweets.id", "referenced_tweets"),
            ("tweet", "referenced_posts", "referenced_tweets"),
            ("tweet", "entities.mentions.username", "entities"),
            ("user", "pinned_tweet_id", "pinned_tweet_id"),
            ("user", "most_recent_post_id", "most_recent_tweet_id"),
        ],
    )
    def test_expansion_selects_its_field(self, primary: str, expansion: str, field: str) -> None:
        fields = parse(primary, {"expansions": expansion}).of(primary)
        assert fields[: len(DEFAULTS[primary])] == DEFAULTS[primary]
        assert field in fields

    async def test_rendered_with_the_expansion(self) -> None:
        loader = FakeLoader(users=[user(1, "alice")])
        rendered = await render("tweet", [post(10, 1)], {"expansions": "author_id"}, loader)
        assert rendered.data == [
            {"id": "10", "text": "hello", "edit_history_tweet_ids": ["10"], "author_id": "1"}
        ]


class TestVocabulary:
    @pytest.mark.parametrize(
        "query",
        [
            {},
            {"tweet.fields": "created_at"},
            {"user.fields": "created_at"},
            {"expansions": "author_id,referenced_tweets.id,edit_history_tweet_ids"},
            {"expansions": "referenced_tweets.id.author_id,entities.mentions.username"},
            # Post-vocabulary expansion names alone do not switch the answer's names (live traffic).
            {"expansions": "referenced_posts"},
            {"expansions": "referenced_posts.id"},
            {"expansions": "edit_history_post_ids"},
            {"expansions": "author_id,referenced_posts.id.author_id"},
            {"expansions": "referenced_posts.id.attachments.media_keys"},
        ],
    )
    def test_tweet_names_by_default(self, query: dict[str, str]) -> None:
        assert parse("tweet", query).vocab == TWEET_VOCAB

    @pytest.mark.parametrize(
        "query",
        [
            {"post.fields": "created_at"},
            {"post.fields": "id"},
            {"tweet.fields": "lang", "post.fields": "lang"},
            {"post.fields": "id", "expansions": "referenced_posts"},
        ],
    )
    def test_post_names_on_post_fields(self, query: dict[str, str]) -> None:
        assert parse("tweet", query).vocab == POST_VOCAB

    @pytest.mark.parametrize(
        ("query", "vocab"),
        [
            ({"expansions": "pinned_tweet_id,most_recent_tweet_id,affiliation.user_id"}, TWEET_VOCAB),
            ({"expansions": "pinned_post_id"}, TWEET_VOCAB),
            ({"expansions": "most_recent_post_id"}, TWEET_VOCAB),
            ({"expansions": "affiliation"}, TWEET_VOCAB),
            ({"post.fields": "created_at"}, POST_VOCAB),
            ({"tweet.fields": "created_at"}, TWEET_VOCAB),
        ],
    )
    def test_user_primary(self, query: dict[str, str], vocab: str) -> None:
        assert parse("user", query).vocab == vocab

    @pytest.mark.parametrize(
        ("primary", "query"),
        [
            ("tweet", {"tweet.fields": "note_post"}),
            ("tweet", {"tweet.fields": "referenced_posts"}),
            ("user", {"user.fields": "pinned_post_id"}),
        ],
    )
    def test_post_field_names_imply_the_post_vocabulary(self, primary: str, query: dict[str, str]) -> None:
        assert parse(primary, query).vocab == POST_VOCAB


class TestParameterNames:
    def test_tweet_primary(self) -> None:
        assert ENGINE.parameter_names("tweet") == [
            "expansions",
            "tweet.fields",
            "media.fields",
            "poll.fields",
            "place.fields",
            "user.fields",
            "post.fields",
        ]

    def test_user_primary(self) -> None:
        assert ENGINE.parameter_names("user") == ["expansions", "tweet.fields", "user.fields", "post.fields"]

    def test_kind_without_expansions(self) -> None:
        assert ENGINE.parameter_names("media") == ["media.fields"]

    def test_related_kinds(self) -> None:
        assert ENGINE.related_kinds("tweet") == ["tweet", "media", "poll", "place", "user"]
        assert ENGINE.related_kinds("user") == ["tweet", "user"]
