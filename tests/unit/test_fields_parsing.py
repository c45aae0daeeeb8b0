"""Parsing of the `*.fields` parameters by the fields engine (roost.core.fields): the default fields,
requested fields and the problems reported for bad values.
"""

from __future__ import annotations

import pytest
from tests.unit.fields_support import DEFAULTS, ENGINE, parse

from roost.core.fields import TWEET_VOCAB

TWEET_FIELDS_LIST = (
    "article,article_title,attachments,author_id,card_uri,community_id,context_annotations,conversation_id,"
    "created_at,display_text_range,edit_controls,edit_history_tweet_ids,entities,geo,id,in_reply_to_user_id,"
    "lang,matched_media_notes,media_metadata,non_public_metrics,note_post,note_request_suggestions,note_tweet,"
    "organic_metrics,paid_partnership,possibly_sensitive,promoted_metrics,public_metrics,referenced_tweets,"
    "reply_settings,scopes,source,suggested_source_links,suggested_source_links_with_counts,text,withheld"
)
USER_FIELDS_LIST = (
    "affiliation,confirmed_email,connection_status,created_at,description,entities,id,is_identity_verified,"
    "location,most_recent_tweet_id,name,parody,pinned_tweet_id,profile_banner_url,profile_image_url,protected,"
    "public_metrics,receives_your_dm,subscribes_to_you,subscription,subscription_type,url,username,verified,"
    "verified_followers_count,verified_type,withheld"
)
MEDIA_FIELDS_LIST = (
    "alt_text,duration_ms,height,media_key,non_public_metrics,organic_metrics,preview_image_url,"
    "promoted_metrics,public_metrics,type,url,variants,width"
)
POLL_FIELDS_LIST = "duration_minutes,end_datetime,id,options,voting_status"
PLACE_FIELDS_LIST = "contained_within,country,country_code,full_name,geo,id,name,place_type"


class TestDefaults:
    def test_no_fields_parameters_keep_every_default(self) -> None:
        selection, problems = ENGINE.parse("tweet", {})
        assert problems == []
        assert selection.vocab == TWEET_VOCAB
        assert selection.expansions == ()
        assert dict(selection.fields) == DEFAULTS

    def test_other_parameters_do_not_change_the_defaults(self) -> None:
        selection, problems = ENGINE.parse("tweet", {"ids": "1,2", "max_results": "10"})
        assert problems == []
        assert dict(selection.fields) == DEFAULTS
        assert selection.vocab == TWEET_VOCAB

    @pytest.mark.parametrize("kind", sorted(DEFAULTS))
    def test_of(self, kind: str) -> None:
        assert parse("tweet", {}).of(kind) == DEFAULTS[kind]


class TestFieldsParameters:
    def test_requested_fields_follow_the_defaults_alphabetically(self) -> None:
        selection = parse("tweet", {"tweet.fields": "public_metrics,created_at,author_id"})
        assert selection.of("tweet") == (
            "id",
            "text",
            "edit_history_tweet_ids",
            "author_id",
            "created_at",
            "public_metrics",
        )

    def test_defaults_are_kept_and_not_repeated(self) -> None:
        selection = parse("tweet", {"tweet.fields": "text,id,created_at,created_at"})
        assert selection.of("tweet") == ("id", "text", "edit_history_tweet_ids", "created_at")

    def test_only_the_named_kind_changes(self) -> None:
        selection = parse("tweet", {"user.fields": "created_at"})
        assert selection.of("user") == ("id", "name", "username", "created_at")
        assert selection.of("tweet") == DEFAULTS["tweet"]
        assert selection.of("media") == DEFAULTS["media"]

    @pytest.mark.parametrize(
        ("param", "raw", "kind", "expected"),
        [
            ("tweet.fields", "lang", "tweet", ("id", "text", "edit_history_tweet_ids", "lang")),
            ("post.fields", "lang", "tweet", ("id", "text", "edit_history_tweet_ids", "lang")),
            (
                "user.fields",
                "verified,description",
                "user",
                ("id", "name", "username", "description", "verified"),
            ),
            (
                "media.fields",
                "width,url,alt_text",
                "media",
                ("media_key", "type", "alt_text", "url", "width"),
            ),
            (
                "poll.fields",
                "voting_status,end_datetime",
                "poll",
                ("id", "options", "end_datetime", "voting_status"),
            ),
            ("place.fields", "geo,country", "place", ("full_name", "id", "country", "geo")),
        ],
    )
    def test_each_fields_parameter(self, param: str, raw: str, kind: str, expected: tuple[str, ...]) -> None:
        assert parse("tweet", {param: raw}).of(kind) == expected

    def test_tweet_fields_and_post_fields_merge(self) -> None:
        selection = parse("tweet", {"tweet.fields": "lang", "post.fields": "source"})
        assert selection.of("tweet") == ("id", "text", "edit_history_tweet_ids", "lang", "source")

    @pytest.mark.parametrize(
        ("param", "raw", "canonical"),
        [
            ("post.fields", "note_post", "note_tweet"),
            ("post.fields", "edit_history_post_ids", "edit_history_tweet_ids"),
            ("post.fields", "referenced_posts", "referenced_tweets"),
            ("tweet.fields", "referenced_posts", "referenced_tweets"),
        ],
    )
    def test_post_names_are_canonicalised(self, param: str, raw: str, canonical: str) -> None:
        fields = parse("tweet", {param: raw}).of("tweet")
        assert canonical in fields
        assert raw not in fields

    @pytest.mark.parametrize(
        ("raw", "canonical"),
        [("pinned_post_id", "pinned_tweet_id"), ("most_recent_post_id", "most_recent_tweet_id")],
    )
    def test_user_post_names_are_canonicalised(self, raw: str, canonical: str) -> None:
        assert parse("user", {"user.fields": raw}).of("user") == ("id", "name", "username", canonical)

    def test_fields_of_kinds_the_primary_cannot_reach_are_not_selected(self) -> None:
        selection, problems = ENGINE.parse("user", {"media.fields": "url", "poll.fields": "bogus"})
        assert problems == []
        assert selection.of("media") == DEFAULTS["media"]


class TestFieldProblems:
    @pytest.mark.parametrize(
        ("param", "listing"),
        [
            ("tweet.fields", TWEET_FIELDS_LIST),
            ("post.fields", TWEET_FIELDS_LIST),
            ("user.fields", USER_FIELDS_LIST),
            ("media.fields", MEDIA_FIELDS_LIST),
            ("poll.fields", POLL_FIELDS_LIST),
            ("place.fields", PLACE_FIELDS_LIST),
        ],
    )
    def test_unknown_value(self, param: str, listing: str) -> None:
        _, problems = ENGINE.parse("tweet", {param: "foo"})
        assert problems == [
            (param, "foo", f"The `{param}` query parameter value [foo] is not one of [{listing}]")
        ]

    @pytest.mark.parametrize(
        "listing", [TWEET_FIELDS_LIST, USER_FIELDS_LIST, MEDIA_FIELDS_LIST, PLACE_FIELDS_LIST]
    )
    def test_listings_are_alphabetical(self, listing: str) -> None:
        names = listing.split(",")
        assert names == sorted(names)
        assert len(names) == len(set(names))

    def test_raw_is_the_whole_value_and_the_message_names_the_first_bad_item(self) -> None:
        _, problems = ENGINE.parse("tweet", {"tweet.fields": "created_at,foo,bar"})
        assert problems == [
            (
                "tweet.fields",
                "created_at,foo,bar",
                f"The `tweet.fields` query parameter value [foo] is not one of [{TWEET_FIELDS_LIST}]",
            )
        ]

    def test_empty_item(self) -> None:
        _, problems = ENGINE.parse("tweet", {"tweet.fields": "id,"})
        assert problems == [
            (
                "tweet.fields",
                "id,",
                f"The `tweet.fields` query parameter value [] is not one of [{TWEET_FIELDS_LIST}]",
            )
        ]

    def test_field_names_are_case_sensitive(self) -> None:
        _, problems = ENGINE.parse("tweet", {"tweet.fields": "Created_At"})
        assert [p[2].split(" is not one of ")[0] for p in problems] == [
            "The `tweet.fields` query parameter value [Created_At]"
        ]

    def test_post_only_user_names_are_not_media_fields(self) -> None:
        _, problems = ENGINE.parse("tweet", {"media.fields": "pinned_post_id"})
        assert problems == [
            (
                "media.fields",
                "pinned_post_id",
                "The `media.fields` query parameter value [pinned_post_id] is not one of "
                f"[{MEDIA_FIELDS_LIST}]",
            )
        ]

    def test_one_problem_per_bad_parameter_and_good_ones_still_apply(self) -> None:
        selection, problems = ENGINE.parse(
            "tweet",
            {"tweet.fields": "lang", "user.fields": "bar", "media.fields": "url,baz", "expansions": "nope"},
        )
        assert [(p[0], p[1]) for p in problems] == [
            ("user.fields", "bar"),
            ("media.fields", "url,baz"),
            ("expansions", "nope"),
        ]
        assert problems[1][2].startswith("The `media.fields` query parameter value [baz] is not one of [")
        assert selection.of("tweet") == ("id", "text", "edit_history_tweet_ids", "lang")
        assert selection.of("user") == DEFAULTS["user"]
        assert selection.of("media") == DEFAULTS["media"]
