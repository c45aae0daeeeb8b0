"""Evaluate a query AST against one post (`PostView`), with the semantics of search or the stream.

Pure and allocation-light: dispatch is a dict on the node type and, for operators, on the operator
name; query values are normalised through small caches. docs/query-matching.md has the semantics.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from itertools import product as cartesian

from roost.search.ast import And, Node, Not, Operator, Or, Phrase, Product, Token
from roost.search.view import PostView, exact, fold, query_tokens

_SAMPLE_MUL = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def sample_bucket(post_id: str | int) -> int:
    """0..99, stable per post id: a Fibonacci hash of the id, so consecutive snowflakes spread out.
    `sample:N` keeps a post when its bucket is below N (so sample:10 ⊇ sample:1)."""
    return (((int(post_id) * _SAMPLE_MUL) & _MASK64) >> 32) % 100


def contains_seq(seq: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    n = len(needle)
    if n == 0:
        return False
    if n == 1:
        return needle[0] in seq
    first = needle[0]
    for i in range(len(seq) - n + 1):  # noqa: SIM110 -- hot path, no generator
        if seq[i] == first and seq[i : i + n] == needle:
            return True
    return False


def within_proximity(seq: tuple[str, ...], terms: tuple[str, ...], slop: int) -> bool:
    """Lucene-style sloppy phrase: for distinct positions p_i of term i, max(p_i - i) - min(p_i - i)
    <= slop. In order, at most `slop` tokens in between; reversed, at most `slop - 2`."""
    if not terms:
        return False
    positions = []
    for term in terms:
        found = [i for i, tok in enumerate(seq) if tok == term]
        if not found:
            return False
        positions.append(found)
    for combo in cartesian(*positions):
        if len(set(combo)) != len(combo):
            continue
        shifted = [p - i for i, p in enumerate(combo)]
        if max(shifted) - min(shifted) <= slop:
            return True
    return False


def _words(post: PostView, product: Product) -> frozenset[str]:
    return post.stream_words if product == "stream" else post.search_words


def _seqs(post: PostView, product: Product) -> tuple[tuple[str, ...], ...]:
    return post.stream_seqs if product == "stream" else post.search_seqs


def _text_has(post: PostView, product: Product, value: str) -> bool:
    toks = query_tokens(value, product != "stream")
    if not toks:
        return False
    if len(toks) == 1:
        return toks[0] in _words(post, product)
    words = _words(post, product)
    if any(t not in words for t in toks):
        return False
    return any(contains_seq(seq, toks) for seq in _seqs(post, product))


def _token(node: Token, post: PostView, product: Product) -> bool:
    kind = node.kind
    if kind == "keyword" or kind == "emoji":
        return _text_has(post, product, node.value)
    stream = product == "stream"
    if kind == "hashtag":
        if stream:
            return node.value.lower() in post.stream_hashtag_set
        return fold(node.value) in post.search_hashtag_set
    if kind == "mention":
        return node.value.lower() in (post.stream_mention_set if stream else post.mention_set)
    if kind == "cashtag":
        return node.value.lower() in (post.stream_cashtag_set if stream else post.cashtag_set)
    return False


def _phrase(node: Phrase, post: PostView, product: Product) -> bool:
    if node.proximity is None:
        return _text_has(post, product, node.text)
    toks = query_tokens(node.text, product != "stream")
    words = _words(post, product)
    if not toks or any(t not in words for t in toks):
        return False
    return any(within_proximity(seq, toks, node.proximity) for seq in _seqs(post, product))


# ---- operators -----------------------------------------------------------------------------------

OpFn = Callable[[str, PostView, Product], bool]


def _user(value: str, user_id: str | None, username: str | None) -> bool:
    value = value.removeprefix("@")
    return (user_id is not None and value == user_id) or (
        username is not None and value.lower() == username.lower()
    )


def _seq_has(seq: tuple[str, ...], value: str) -> bool:
    return contains_seq(seq, query_tokens(value, False))


@lru_cache(maxsize=4096)
def _range(value: str) -> tuple[int, float]:
    """`N` means N or more; `a..b` is inclusive. Unparseable values match nothing."""
    try:
        if ".." in value:
            low, high = value.split("..", 1)
            return int(low or 0), float(int(high)) if high else math.inf
        return int(value), math.inf
    except ValueError:
        return 1, 0.0


def _count(attr: str) -> OpFn:
    def check(value: str, post: PostView, product: Product) -> bool:
        low, high = _range(value)
        count: int = getattr(post, attr)
        return low <= count <= high

    return check


def _minimum(attr: str) -> OpFn:
    def check(value: str, post: PostView, product: Product) -> bool:
        count: int = getattr(post, attr)
        try:
            return count >= int(value)
        except ValueError:
            return False

    return check


_EARTH_KM = 6371.0088


def haversine_km(lon1: float, lat1: float, lon2: float, lat2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * _EARTH_KM * math.asin(min(1.0, math.sqrt(a)))


@lru_cache(maxsize=4096)
def _geo_args(value: str) -> tuple[str, ...]:
    return tuple(value.strip().strip("[]").split())


def _point_radius(value: str, post: PostView, product: Product) -> bool:
    try:
        lon_s, lat_s, radius_s = _geo_args(value)
        lon, lat = float(lon_s), float(lat_s)
        unit = radius_s[-2:].lower()
        radius = float(radius_s[:-2]) * (1.609344 if unit == "mi" else 1.0)
        if unit not in ("km", "mi"):
            return False
    except ValueError:
        return False
    if post.geo_point is not None:
        return haversine_km(lon, lat, *post.geo_point) <= radius
    if post.place_bbox is not None:  # the place must lie entirely inside the circle
        w, s, e, n = post.place_bbox
        return all(haversine_km(lon, lat, x, y) <= radius for x, y in ((w, s), (w, n), (e, s), (e, n)))
    return False


def _bounding_box(value: str, post: PostView, product: Product) -> bool:
    try:
        w, s, e, n = (float(v) for v in _geo_args(value))
    except ValueError:
        return False
    if post.geo_point is not None:
        x, y = post.geo_point
        return w <= x <= e and s <= y <= n
    if post.place_bbox is not None:
        pw, ps, pe, pn = post.place_bbox
        return w <= pw and pe <= e and s <= ps and pn <= n
    return False


def _context(value: str, post: PostView, product: Product) -> bool:
    if value.endswith(".*"):
        return value[:-2] in post.context_domains
    return value in post.context_set


def _url(value: str, post: PostView, product: Product) -> bool:
    needle = value.lower()
    urls = post.stream_url_values if product == "stream" else post.url_values
    return any(needle in u for u in urls)


def _place(value: str, post: PostView, product: Product) -> bool:
    if post.place_id is None:
        return False
    if value == post.place_id:
        return True
    return bool(post.place_seq) and _seq_has(post.place_seq, value)


def _eq_lower(attr: str) -> OpFn:
    def check(value: str, post: PostView, product: Product) -> bool:
        actual = getattr(post, attr)
        return actual is not None and actual.lower() == value.lower()

    return check


def _eq(attr: str) -> OpFn:
    def check(value: str, post: PostView, product: Product) -> bool:
        actual: str | None = getattr(post, attr)
        return actual == value

    return check


def _flag(attr: str) -> Callable[[PostView, Product], bool]:
    return lambda post, product: bool(getattr(post, attr))


_IS: dict[str, Callable[[PostView, Product], bool]] = {
    "retweet": _flag("is_retweet"),
    "reply": _flag("is_reply"),
    "quote": _flag("is_quote"),
    "verified": _flag("verified"),
    "nullcast": _flag("nullcast"),
}

_HAS: dict[str, Callable[[PostView, Product], bool]] = {
    "hashtags": lambda p, pr: bool(p.hashtags),
    "cashtags": lambda p, pr: bool(p.cashtags),
    "mentions": lambda p, pr: bool(p.mention_usernames),
    "links": lambda p, pr: bool(p.urls) or p.has_media,
    "media": _flag("has_media"),
    "media_link": _flag("has_media"),
    "images": _flag("has_images"),
    "video_link": _flag("has_video"),
    "videos": _flag("has_video"),
    "geo": lambda p, pr: p.place_id is not None or p.geo_point is not None,
}

OPERATORS: dict[str, OpFn] = {
    "from": lambda v, p, pr: _user(v, p.author_id, p.username),
    "to": lambda v, p, pr: _user(v, p.in_reply_to_user_id, p.in_reply_to_username),
    "retweets_of": lambda v, p, pr: p.is_retweet and _user(v, p.retweets_of_user_id, p.retweets_of_username),
    "url": _url,
    "url_contains": _url,
    "conversation_id": _eq("conversation_id"),
    "in_reply_to_tweet_id": _eq("in_reply_to_tweet_id"),
    "in_reply_to_status_id": _eq("in_reply_to_tweet_id"),
    "quotes_of_tweet_id": _eq("quoted_tweet_id"),
    "retweets_of_tweet_id": _eq("retweeted_tweet_id"),
    "retweets_of_status_id": _eq("retweeted_tweet_id"),
    "list": lambda v, p, pr: v in p.list_ids,
    "context": _context,
    "entity": lambda v, p, pr: exact(v) in p.context_name_set,
    "place": _place,
    "place_country": _eq_lower("place_country_code"),
    "point_radius": _point_radius,
    "bounding_box": _bounding_box,
    "geo_bounding_box": _bounding_box,
    "bio": lambda v, p, pr: _seq_has(p.bio_seq, v),
    "bio_name": lambda v, p, pr: _seq_has(p.name_seq, v),
    "bio_location": lambda v, p, pr: _seq_has(p.location_seq, v),
    "is": lambda v, p, pr: (f := _IS.get(v.lower())) is not None and f(p, pr),
    "has": lambda v, p, pr: (f := _HAS.get(v.lower())) is not None and f(p, pr),
    "lang": _eq_lower("lang"),
    "sample": lambda v, p, pr: v.isdigit() and sample_bucket(p.id) < int(v),
    "source": _eq_lower("source"),
    "min_likes": _minimum("like_count"),
    "min_faves": _minimum("like_count"),
    "min_replies": _minimum("reply_count"),
    "min_reposts": _minimum("repost_count"),
    "min_retweets": _minimum("repost_count"),
    "min_followers": _minimum("followers_count"),
    "followers_count": _count("followers_count"),
    "following_count": _count("following_count"),
    "friends_count": _count("following_count"),
    "tweets_count": _count("tweet_count"),
    "statuses_count": _count("tweet_count"),
    "listed_count": _count("listed_count"),
    "user_in_lists_count": _count("listed_count"),
}


def _operator(node: Operator, post: PostView, product: Product) -> bool:
    fn = OPERATORS.get(node.name)
    return fn is not None and fn(node.value, post, product)


def _and(node: And, post: PostView, product: Product) -> bool:
    return all(matches(child, post, product) for child in node.children)


def _or(node: Or, post: PostView, product: Product) -> bool:
    return any(matches(child, post, product) for child in node.children)


def _not(node: Not, post: PostView, product: Product) -> bool:
    return not matches(node.child, post, product)


_DISPATCH: dict[type, Callable[..., bool]] = {
    Token: _token,
    Phrase: _phrase,
    Operator: _operator,
    And: _and,
    Or: _or,
    Not: _not,
}


def matches(node: Node, post: PostView, product: Product) -> bool:
    """True when `post` satisfies `node` under the semantics of `product` ("search" or "stream")."""
    return _DISPATCH[type(node)](node, post, product)
