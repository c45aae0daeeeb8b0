"""Behaviour of roost.core.router.Router: segment routing where literal segments beat parameters."""

from __future__ import annotations

import re

import pytest

from roost.core.router import Router

ROUTES = [
    ("GET", "/2/users/me", "me"),
    ("GET", "/2/users/{id}", "user"),
    ("GET", "/2/users", "users"),
    ("GET", "/2/users/by", "users_by"),
    ("GET", "/2/users/by/username/{username}", "user_by_username"),
    ("GET", "/2/users/{id}/tweets", "user_tweets"),
    ("GET", "/2/users/{id}/mentions", "user_mentions"),
    ("GET", "/2/users/{id}/following", "following"),
    ("POST", "/2/users/{id}/following", "follow"),
    ("DELETE", "/2/users/{id}/following/{target_user_id}", "unfollow"),
    ("GET", "/2/tweets/search/recent", "search_recent"),
    ("GET", "/2/tweets/{id}", "tweet"),
    ("DELETE", "/2/tweets/{id}", "delete_tweet"),
    ("POST", "/2/tweets", "create_tweet"),
]


@pytest.fixture()
def router() -> Router:
    built = Router()
    for method, path, target in ROUTES:
        built.add(method, path, target)
    return built


@pytest.mark.parametrize(
    ("method", "path", "target", "params"),
    [
        ("GET", "/2/users/me", "me", {}),
        ("GET", "/2/users/2244994945", "user", {"id": "2244994945"}),
        ("GET", "/2/users", "users", {}),
        ("GET", "/2/users/by", "users_by", {}),
        ("GET", "/2/users/by/username/jack", "user_by_username", {"username": "jack"}),
        ("GET", "/2/users/12/tweets", "user_tweets", {"id": "12"}),
        ("GET", "/2/users/12/mentions", "user_mentions", {"id": "12"}),
        ("GET", "/2/users/12/following", "following", {"id": "12"}),
        ("POST", "/2/users/12/following", "follow", {"id": "12"}),
        ("DELETE", "/2/users/12/following/13", "unfollow", {"id": "12", "target_user_id": "13"}),
        ("GET", "/2/tweets/search/recent", "search_recent", {}),
        ("GET", "/2/tweets/20", "tweet", {"id": "20"}),
        ("DELETE", "/2/tweets/20", "delete_tweet", {"id": "20"}),
        ("POST", "/2/tweets", "create_tweet", {}),
    ],
)
def test_matches(router: Router, method: str, path: str, target: str, params: dict[str, str]) -> None:
    assert router.match(method, path) == (target, params)


def test_literal_me_beats_the_id_parameter(router: Router) -> None:
    assert router.match("GET", "/2/users/me") == ("me", {})
    assert router.match("GET", "/2/users/mee") == ("user", {"id": "mee"})


def test_literal_by_username_beats_id_tweets(router: Router) -> None:
    assert router.match("GET", "/2/users/by/username/tweets") == ("user_by_username", {"username": "tweets"})


def test_a_literal_prefix_falls_back_to_the_parameter_route(router: Router) -> None:
    # `by` is a literal child of /2/users, but /2/users/by/tweets only exists as /2/users/{id}/tweets.
    assert router.match("GET", "/2/users/by/tweets") == ("user_tweets", {"id": "by"})
    assert router.match("GET", "/2/users/me/tweets") == ("user_tweets", {"id": "me"})


def test_literal_search_beats_tweet_id(router: Router) -> None:
    assert router.match("GET", "/2/tweets/search") == ("tweet", {"id": "search"})
    assert router.match("GET", "/2/tweets/search/recent") == ("search_recent", {})


def test_registration_order_does_not_matter() -> None:
    forward, backward = Router(), Router()
    for method, path, target in ROUTES:
        forward.add(method, path, target)
    for method, path, target in reversed(ROUTES):
        backward.add(method, path, target)
    for path in ["/2/users/me", "/2/users/by/username/jack", "/2/users/by/tweets", "/2/users/5/tweets"]:
        assert forward.match("GET", path) == backward.match("GET", path)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/2/users/me"),
        ("DELETE", "/2/users/12"),
        ("PUT", "/2/tweets/20"),
        ("GET", "/2/tweets"),
        ("DELETE", "/2/users/12/following"),
        ("POST", "/2/tweets/search/recent"),
        ("get", "/2/tweets/20"),
    ],
)
def test_method_mismatch_is_none(router: Router, method: str, path: str) -> None:
    assert router.match(method, path) is None


@pytest.mark.parametrize(
    "path",
    [
        "/2/nothing",
        "/2/users/12/unknown",
        "/2/users/12/tweets/extra",
        "/2/users/by/username",
        "/2/users//tweets",
        "/3/users/me",
        "/2/tweets/search/all",
    ],
)
def test_unknown_paths_are_none(router: Router, path: str) -> None:
    assert router.match("GET", path) is None


@pytest.mark.parametrize(
    ("path", "target", "params"),
    [
        ("/2/users/me/", "me", {}),
        ("/2/users/", "users", {}),
        ("/2/users/12/", "user", {"id": "12"}),
        ("/2/users/by/username/jack/", "user_by_username", {"username": "jack"}),
        ("/2/tweets/search/recent/", "search_recent", {}),
    ],
)
def test_trailing_slash_matches_the_same_route(router: Router, path: str, target: str, params: dict) -> None:
    assert router.match("GET", path) == (target, params)


def test_surrounding_slashes_do_not_count(router: Router) -> None:
    assert router.match("GET", "//2/users/me//") == ("me", {})
    assert router.match("GET", "///2/tweets/20") == ("tweet", {"id": "20"})
    assert router.match("GET", "/") is None


def test_route_declared_with_a_trailing_slash() -> None:
    router = Router()
    router.add("GET", "/2/usage/tweets/", "usage")
    assert router.match("GET", "/2/usage/tweets") == ("usage", {})
    assert router.match("GET", "/2/usage/tweets/") == ("usage", {})


def test_parameter_values_are_passed_verbatim(router: Router) -> None:
    assert router.match("GET", "/2/users/by/username/Jack_Dorsey") == (
        "user_by_username",
        {"username": "Jack_Dorsey"},
    )
    assert router.match("GET", "/2/tweets/not-a-number") == ("tweet", {"id": "not-a-number"})


def test_a_failed_branch_leaves_no_parameters_behind() -> None:
    router = Router()
    router.add("GET", "/2/lists/{id}/members", "members")
    router.add("GET", "/2/lists/owned/{user}", "owned")
    assert router.match("GET", "/2/lists/owned/members") == ("owned", {"user": "members"})
    assert router.match("GET", "/2/lists/99/members") == ("members", {"id": "99"})


def test_duplicate_route_raises() -> None:
    router = Router()
    router.add("GET", "/2/tweets/{id}", "one")
    with pytest.raises(ValueError, match="duplicate route GET /2/tweets/"):
        router.add("GET", "/2/tweets/{id}", "two")
    assert router.match("GET", "/2/tweets/1") == ("one", {"id": "1"})


def test_duplicate_static_route_raises() -> None:
    router = Router()
    router.add("GET", "/2/users/me", "one")
    with pytest.raises(ValueError, match="duplicate route"):
        router.add("GET", "/2/users/me/", "two")


def test_same_path_with_another_method_is_not_a_duplicate() -> None:
    router = Router()
    router.add("GET", "/2/tweets/{id}", "get")
    router.add("DELETE", "/2/tweets/{id}", "delete")
    assert router.match("GET", "/2/tweets/1") == ("get", {"id": "1"})
    assert router.match("DELETE", "/2/tweets/1") == ("delete", {"id": "1"})


def test_sibling_routes_may_name_a_parameter_differently() -> None:
    # The platform does: /2/dm_conversations/{dm_conversation_id}/messages beside /{id}/dm_events.
    router = Router()
    router.add("GET", "/2/tweets/{id}", "tweet")
    router.add("GET", "/2/tweets/{tweet_id}/liking_users", "liking")
    assert router.match("GET", "/2/tweets/7") == ("tweet", {"id": "7"})
    assert router.match("GET", "/2/tweets/7/liking_users") == ("liking", {"tweet_id": "7"})
    with pytest.raises(ValueError, match="duplicate route"):
        router.add("GET", "/2/tweets/{other}", "again")


def _tables() -> list[tuple[Router, list[str]]]:
    from roost.ads.api.registry import all_ads_operations
    from roost.platform.registry import all_operations

    v2, ads = Router(), Router()
    v2_paths, ads_paths = [], []
    for op in all_operations():
        v2.add(op.method, op.path, op)
        v2_paths.append(op.path)
    for ads_op in all_ads_operations():
        for version in ads_op.versions:
            ads.add(ads_op.method, f"/{version}{ads_op.path}", ads_op)
            ads_paths.append(f"/{version}{ads_op.path}")
    return [(v2, v2_paths), (ads, ads_paths)]


def test_the_trailing_parameter_shortcut_answers_as_the_walk_does() -> None:
    """Every route of both real tables, with values that look like ids, literal words of the tables
    and odd text in each parameter, under every method: `match` (which may take the shortcut) and the
    plain walk agree, misses included."""
    for router, templates in _tables():
        words = sorted({part for path in templates for part in path.split("/") if part and "{" not in part})
        fillers = ["123", "abc", "%20", "x.y", *words]
        paths = {re.sub(r"\{[^}]+\}", filler, path) for path in templates for filler in fillers}
        for path in sorted(paths):
            for method in ("GET", "POST", "PUT", "DELETE"):
                assert router.match(method, path) == router.walk(method, path), (method, path)
