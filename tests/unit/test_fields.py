"""Behaviour of the fields engine (roost.core.fields) with the platform's kinds (roost.domain.objects).

Parsing of `*.fields` / `expansions`, and rendering over an in-memory loader whose rows have the
columns of the storage tables (roost.storage.schema).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import pytest

from roost.core.fields import POST_VOCAB, TWEET_VOCAB, FieldsEngine, RenderContext, Rendered, Row, Selection
from roost.domain.objects import EXPANSIONS, KINDS

ENGINE = FieldsEngine(KINDS, EXPANSIONS)
NOW = 1_700_000_000_000  # 2023-11-14T22:13:20.000Z

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

DEFAULTS = {
    "tweet": ("id", "text", "edit_history_tweet_ids"),
    "media": ("media_key", "type"),
    "poll": ("id", "options"),
    "place": ("full_name", "id"),
    "user": ("id", "name", "username"),
}


# ---- rows shaped like the storage rows -------------------------------------------------------


def _j(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


def post(
    id: int,
    author_id: int,
    text: str = "hello",
    *,
    entities: Mapping[str, Any] | None = None,
    media_keys: list[str] | None = None,
    edit_history: list[int] | None = None,
    **columns: Any,
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "author_id": author_id,
        "text": text,
        "display_text": None,
        "created_at": NOW - 60_000,
        "conversation_id": id,
        "in_reply_to_post_id": None,
        "in_reply_to_user_id": None,
        "quoted_post_id": None,
        "reposted_post_id": None,
        "lang": "en",
        "possibly_sensitive": 0,
        "reply_settings": "everyone",
        "source": None,
        "community_id": None,
        "share_with_followers": 0,
        "paid_partnership": 0,
        "place_id": None,
        "media_keys": _j(media_keys),
        "poll_id": None,
        "entities": _j(entities),
        "context_annotations": None,
        "withheld": None,
        "edit_history": _j(edit_history),
        "edits_remaining": 5,
        "is_edit_eligible": 1,
        "superseded_by": None,
        "retweet_count": 1,
        "reply_count": 2,
        "like_count": 3,
        "quote_count": 4,
        "bookmark_count": 5,
        "impression_count": 6,
        "deleted_at": None,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


def user(id: int, username: str, **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "username": username,
        "username_lower": username.lower(),
        "name": f"{username} name",
        "created_at": NOW - 86_400_000,
        "description": "",
        "location": None,
        "url": "",
        "profile_image_url": None,
        "profile_banner_url": None,
        "protected": 0,
        "verified": 0,
        "verified_type": "none",
        "subscription_type": "None",
        "parody": 0,
        "is_identity_verified": 0,
        "pinned_post_id": None,
        "most_recent_post_id": None,
        "affiliation": None,
        "withheld": None,
        "entities": None,
        "email": None,
        "followers_count": 10,
        "following_count": 20,
        "tweet_count": 30,
        "listed_count": 40,
        "like_count": 50,
        "media_count": 60,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


def media(media_key: str, type: str = "photo", **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "media_key": media_key,
        "id": int(media_key.split("_")[1]),
        "type": type,
        "url": f"https://pbs.example/{media_key}.jpg",
        "preview_image_url": None,
        "width": 640,
        "height": 480,
        "duration_ms": None,
        "alt_text": None,
        "variants": None,
        "view_count": None,
        "owner_id": None,
        "created_at": NOW - 120_000,
    }
    for name, value in columns.items():
        assert name in row, name
        row[name] = value
    return row


OPTIONS = [{"position": 1, "label": "yes", "votes": 3}, {"position": 2, "label": "no", "votes": 1}]


def poll(id: int, end_datetime: int, duration_minutes: int = 60) -> dict[str, Any]:
    return {
        "id": id,
        "options": json.dumps(OPTIONS),
        "duration_minutes": duration_minutes,
        "end_datetime": end_datetime,
        "voting_status": "open",  # stored value; the renderer decides from the clock
    }


def place(id: str, full_name: str, **columns: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": id,
        "full_name": full_name,
        "name": None,
        "country": None,
        "country_code": None,
        "place_type": None,
        "geo": None,
        "contained_within": None,
    }
    row.update(columns)
    return row


def mention(username: str, start: int) -> dict[str, Any]:
    return {"start": start, "end": start + len(username) + 1, "username": username}


class FakeLoader:
    """The Loader protocol over in-memory rows; records every call."""

    def __init__(
        self,
        posts: Iterable[Row] = (),
        users: Iterable[Row] = (),
        media: Iterable[Row] = (),
        polls: Iterable[Row] = (),
        places: Iterable[Row] = (),
        follows: Iterable[tuple[int, int]] = (),
        hidden: Iterable[tuple[str, Any]] = (),
    ) -> None:
        self.posts = {row["id"]: row for row in posts}
        self.users = {row["id"]: row for row in users}
        self.media = {row["media_key"]: row for row in media}
        self.polls = {row["id"]: row for row in polls}
        self.places = {row["id"]: row for row in places}
        self.follows = set(follows)
        self.hidden = set(hidden)  # (kind, key) pairs the viewer may not see
        self.calls: list[tuple[str, str, list[Any]]] = []
        self.relation_calls: list[tuple[int, list[int]]] = []

    def known(self, kind: str, lookup: str, keys: list[Any]) -> dict[Any, Row] | None:
        return None  # nothing cached: every batch goes through `load`, which records it

    async def load(self, kind: str, lookup: str, keys: list[Any]) -> dict[Any, Row]:
        self.calls.append((kind, lookup, list(keys)))
        if kind == "user" and lookup == "username":
            by_name = {row["username_lower"]: row for row in self.users.values()}
            return {key: by_name[key] for key in keys if key in by_name}
        table: dict[Any, Row] = {
            "tweet": self.posts,
            "user": self.users,
            "media": self.media,
            "poll": self.polls,
            "place": self.places,
        }[kind]
        return {key: table[key] for key in keys if key in table}

    async def relations(self, viewer_id: int, user_ids: list[int]) -> set[tuple[int, int]]:
        self.relation_calls.append((viewer_id, list(user_ids)))
        wanted = set(user_ids)
        return {
            (a, b)
            for a, b in self.follows
            if (a == viewer_id and b in wanted) or (b == viewer_id and a in wanted)
        }

    async def denied(self, kind: str, rows: dict[Any, Row]) -> set[Any]:
        return {key for key in rows if (kind, key) in self.hidden}

    def loads_of(self, kind: str) -> list[tuple[str, list[Any]]]:
        return [(lookup, keys) for k, lookup, keys in self.calls if k == kind]


def parse(primary: str, query: Mapping[str, str]) -> Selection:
    selection, problems = ENGINE.parse(primary, query)
    assert problems == []
    return selection


async def render(
    primary: str,
    records: list[Row],
    query: Mapping[str, str],
    loader: FakeLoader,
    viewer_id: int | None = None,
    now_ms: int = NOW,
) -> Rendered:
    selection = parse(primary, query)
    context = RenderContext(selection.vocab, viewer_id, now_ms=now_ms)
    return await ENGINE.render(primary, records, selection, loader, context)


def not_found(resource_type: str, parameter: str, value: str) -> dict[str, Any]:
    return {
        "value": value,
        "detail": f"Could not find {resource_type} with {parameter}: [{value}].",
        "title": "Not Found Error",
        "resource_type": resource_type,
        "parameter": parameter,
        "resource_id": value,
    }


def without_type(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for error in errors:
        assert error["type"].endswith("/2/problems/resource-not-found")
    return [{k: v for k, v in error.items() if k != "type"} for error in errors]


# =============================================================================================
# Parsing
# =============================================================================================


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
                f"The `expansions` query parameter value [{bad}] is not one of [{TWEET_EXPANSIONS_LIST}]",
            )
        ]

    def test_bad_expansion_for_users(self) -> None:
        _, problems = ENGINE.parse("user", {"expansions": "author_id"})
        assert problems == [
            (
                "expansions",
                "author_id",
                f"The `expansions` query parameter value [author_id] is not one of [{USER_EXPANSIONS_LIST}]",
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
            {"expansions": "referenced_posts"},
            {"expansions": "referenced_posts.id"},
            {"expansions": "edit_history_post_ids"},
            {"expansions": "username"},
            {"expansions": "author_id,referenced_posts.id.author_id"},
            {"expansions": "referenced_posts.id.attachments.media_keys"},
        ],
    )
    def test_post_names_on_post_fields_or_post_only_expansions(self, query: dict[str, str]) -> None:
        assert parse("tweet", query).vocab == POST_VOCAB

    @pytest.mark.parametrize(
        ("query", "vocab"),
        [
            ({"expansions": "pinned_tweet_id,most_recent_tweet_id,affiliation.user_id"}, TWEET_VOCAB),
            ({"expansions": "pinned_post_id"}, POST_VOCAB),
            ({"expansions": "most_recent_post_id"}, POST_VOCAB),
            ({"expansions": "affiliation"}, POST_VOCAB),
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


# =============================================================================================
# Rendering
# =============================================================================================


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
        assert error["type"] in (
            "https://api.x.com/2/problems/resource-not-found",
            "https://api.twitter.com/2/problems/resource-not-found",
        )
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
            {"user.fields": "pinned_tweet_id,most_recent_tweet_id", "expansions": "pinned_post_id"},
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
