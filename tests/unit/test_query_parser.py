"""The query-language parser: documented examples, precedence, operators per product, the
platform's error texts and positions, and render round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roost.search.ast import And, Node, Not, Operator, Or, Phrase, Product, QueryError, Token
from roost.search.parser import parse, render

PRODUCTS: list[Product] = ["search", "stream"]


def kw(v: str) -> Token:
    return Token("keyword", v)


def root(text: str, product: Product = "stream") -> Node:
    return parse(text, product).root


def errors(text: str, product: Product = "stream", **kw_: int) -> list[str]:
    with pytest.raises(QueryError) as e:
        parse(text, product, **kw_)
    return e.value.messages


# -- grammar -----------------------------------------------------------------------------------


@pytest.mark.parametrize("product", PRODUCTS)
def test_and_binds_tighter_than_or(product: Product) -> None:
    assert root("apple OR iphone ipad", product) == Or((kw("apple"), And((kw("iphone"), kw("ipad")))))
    assert root("(apple OR iphone) ipad", product) == And((Or((kw("apple"), kw("iphone"))), kw("ipad")))


def test_documented_examples() -> None:
    assert root("cat has:images") == And((kw("cat"), Operator("has", "images")))
    assert root("(from:twitterdev -is:retweet) OR #twitterdev") == Or(
        (
            And((Operator("from", "twitterdev"), Not(Operator("is", "retweet")))),
            Token("hashtag", "twitterdev"),
        )
    )
    assert root('pepsi OR cola OR "coca cola"') == Or((kw("pepsi"), kw("cola"), Phrase("coca cola")))
    assert root('("X API" OR #v2) -"filtered stream"') == And(
        (Or((Phrase("X API"), Token("hashtag", "v2"))), Not(Phrase("filtered stream")))
    )
    assert root("(@XDevelopers OR @api) -@x") == And(
        (Or((Token("mention", "XDevelopers"), Token("mention", "api"))), Not(Token("mention", "x")))
    )
    assert root("$twtr OR @XDevelopers -$fb") == Or(
        (Token("cashtag", "twtr"), And((Token("mention", "XDevelopers"), Not(Token("cashtag", "fb")))))
    )
    assert root("(😃 OR 😡) 😬") == And(
        (Or((Token("emoji", "😃"), Token("emoji", "😡"))), Token("emoji", "😬"))
    )
    assert root('"X data" has:mentions (has:media OR has:links)') == And(
        (
            Phrase("X data"),
            Operator("has", "mentions"),
            Or((Operator("has", "media"), Operator("has", "links"))),
        )
    )
    assert root("skiing -snow -day -noschool") == And(
        (kw("skiing"), Not(kw("snow")), Not(kw("day")), Not(kw("noschool")))
    )
    assert root("münster has:images") == And((kw("münster"), Operator("has", "images")))


def test_flattening_and_unwrapping() -> None:
    assert root("((cat))") == kw("cat")
    assert root("a (b (c d))") == And((kw("a"), kw("b"), kw("c"), kw("d")))
    assert root("(x OR y) OR z") == Or((kw("x"), kw("y"), kw("z")))


def test_phrases_escapes_and_proximity() -> None:
    assert root(r'"say \"hi\" \\ now"') == Phrase('say "hi" \\ now')
    assert root('"social media"~5') == Phrase("social media", 5)
    assert root('"social media"~7', "search") == Phrase("social media", 7)
    assert errors('"social media"~7') == ["Proximity distance must be at most 6 (at position 1)"]


def test_negation() -> None:
    assert root("cat -dog") == And((kw("cat"), Not(kw("dog"))))
    assert root('cat -"hot dog"') == And((kw("cat"), Not(Phrase("hot dog"))))
    assert root("cat -has:media") == And((kw("cat"), Not(Operator("has", "media"))))
    # Negated groups: the docs advise against them but document no refusal; kept as Not(group).
    assert root("skiing -(snow OR day)") == And((kw("skiing"), Not(Or((kw("snow"), kw("day"))))))
    assert root("GPT-3 x-ray") == And((kw("GPT-3"), kw("x-ray")))


def test_operator_names_case_insensitive_values_as_written() -> None:
    assert root("FROM:TwitterDev Has:Media") == And(
        (Operator("from", "TwitterDev"), Operator("has", "Media"))
    )
    assert root("cat lang:EN") == And((kw("cat"), Operator("lang", "EN")))


# -- operators -----------------------------------------------------------------------------------

GOOD_BOTH = [
    "from:twitterdev",
    "from:2244994945",
    "to:twitterdev",
    "retweets_of:twitterdev",
    'url:"https://developer.twitter.com"',
    "url:x.com/path?q=1",
    "context:10.799022225751871488",
    "context:47.*",
    'entity:"Michael Jordan"',
    "conversation_id:1334987486343299072",
    'place:"new york city"',
    "place:fd70c22040963ac7",
    "place_country:US",
    "point_radius:[2.355128 48.861118 16km]",
    "point_radius:[-105.27 40.01 25mi]",
    "bounding_box:[-105.301758 39.964069 -105.178505 40.09455]",
    "in_reply_to_tweet_id:1394698746239324162",
    "retweets_of_tweet_id:1394698746239324162",
]
GOOD_SEARCH = ["list:123", "quotes_of_tweet_id:1409931481552543749"]
GOOD_STREAM = [
    "from_affiliate_of:XDevelopers",
    "to_affiliate_of:XDevelopers",
    "bio:developer",
    'bio_name:"Jane Doe"',
    "bio_location:london",
    "url_title:snow",
    "url_description:weather",
    "url_contains:photos",
    'source:"X for iPhone"',
    'embedding:"climate news"',
]
CONJ_BOTH = [
    "is:retweet",
    "is:reply",
    "is:quote",
    "is:verified",
    "-is:nullcast",
    "has:hashtags",
    "has:cashtags",
    "has:links",
    "has:mentions",
    "has:media",
    "has:images",
    "has:video_link",
    "has:geo",
    "lang:en",
    "lang:zh-CN",
]
CONJ_SEARCH = ["min_likes:10", "min_replies:0", "min_reposts:5"]
CONJ_STREAM = [
    "sample:10",
    "sample:1",
    "sample:100",
    "followers_count:10..100",
    "followers_count:500",
    "tweets_count:1000..10000",
    "following_count:10..20",
    "listed_count:5",
    "min_followers:100",
    "embedding_threshold:0.8",
]


@pytest.mark.parametrize(
    ("product", "text"),
    [(p, t) for p in PRODUCTS for t in GOOD_BOTH]
    + [("search", t) for t in GOOD_SEARCH]
    + [("stream", t) for t in GOOD_STREAM],
)
def test_standalone_operators(product: Product, text: str) -> None:
    node = root(text, product)
    assert isinstance(node, Operator)
    assert node.name == text.split(":", 1)[0]
    assert root(render(node), product) == node


@pytest.mark.parametrize(
    ("product", "text"),
    [(p, t) for p in PRODUCTS for t in CONJ_BOTH]
    + [("search", t) for t in CONJ_SEARCH]
    + [("stream", t) for t in CONJ_STREAM],
)
def test_conjunction_required_operators(product: Product, text: str) -> None:
    assert root(f"cat {text}", product) is not None
    msgs = errors(text, product)
    if text.startswith("-"):
        assert msgs == [
            "Rules must contain a non-negation term (at position 1)",
            "Rules must contain at least one positive, non-stopword clause (at position 1)",
        ]
    else:
        assert msgs == ["is/has/lang cannot be used as a standalone operator (at position 1)"]


def test_only_conjunction_required_in_or() -> None:
    assert errors("has:links OR is:retweet") == [
        "is/has/lang cannot be used as a standalone operator (at position 1)"
    ]
    assert errors("a has:media") == ["is/has/lang cannot be used as a standalone operator (at position 3)"]


@pytest.mark.parametrize(
    ("product", "text"),
    [("stream", t) for t in ["list:123", "quotes_of_tweet_id:1", "min_likes:10"]]
    + [("search", t) for t in ["sample:10", "bio:x", "followers_count:1..2", "from_affiliate_of:x"]],
)
def test_operator_not_in_product(product: Product, text: str) -> None:
    name = text.split(":")[0]
    if product == "search":
        assert errors(f"cat {text}", product) == [
            f"Reference to invalid operator '{name}'. Operator is not available in current product "
            "or product packaging."
        ]
    else:
        assert errors(f"cat {text}", product) == [
            f"Reference to invalid operator '{name}' (at position 5).",
            f"Reference to invalid field '{name}' (at position 5).",
        ]


def test_unknown_operator_texts() -> None:
    assert errors("h:m") == [
        "Reference to invalid operator 'h' (at position 1).",
        "Reference to invalid field 'h' (at position 1).",
    ]
    assert errors("cat filter:replies", "search") == [
        "Reference to invalid operator 'filter'. Operator is not available in current product or "
        "product packaging."
    ]
    assert errors("has:polls", "search") == [
        "is/has/lang cannot be used as a standalone operator (at position 1)",
        "Reference to invalid operator 'has:polls'.",
    ]
    assert errors("is:polls") == [
        "is/has/lang cannot be used as a standalone operator (at position 1)",
        "Reference to invalid operator 'is:polls' (at position 1).",
    ]


@pytest.mark.parametrize(
    ("product", "text", "reason"),
    [
        ("stream", "from:not-a-user", ""),
        ("stream", "from:waytoolongusername1", ""),
        ("stream", "conversation_id:abc", ""),
        ("search", "in_reply_to_tweet_id:12x", ""),
        ("stream", "context:10", ""),
        ("stream", "context:a.b", ""),
        ("stream", "place_country:USA", ""),
        ("stream", "lang:xx", ""),
        ("search", "lang:english", ""),
        ("stream", "sample:0", ": the value must be between 1 and 100"),
        ("stream", "sample:101", ": the value must be between 1 and 100"),
        ("stream", "sample:ten", ""),
        ("stream", "point_radius:[2.35 48.86 41km]", ": the radius must be at most 25 mi (40 km)"),
        ("search", "point_radius:[2.35 48.86 26mi]", ": the radius must be at most 25 mi (40 km)"),
        ("stream", "point_radius:[2.35 48.86]", ""),
        ("stream", "point_radius:[200 48.86 1km]", ""),
        ("stream", "point_radius:[2.35 48.86 10ft]", ""),
        (
            "stream",
            "bounding_box:[-105.5 39.9 -104.9 40.1]",
            ": the width and height of the box must be at most 25 mi",
        ),
        ("stream", "bounding_box:[1 2 3]", ""),
        ("stream", "bounding_box:[3 2 1 4]", ""),
        ("stream", "followers_count:100..10", ""),
        ("stream", "followers_count:a..b", ""),
        ("stream", "embedding_threshold:2", ""),
        ("search", "min_likes:-1", ""),
    ],
)
def test_bad_operator_values(product: Product, text: str, reason: str) -> None:
    name, _, value = text.partition(":")
    assert errors(f"cat {text}", product) == [
        f"Invalid value '{value}' for operator '{name}'{reason} (at position 5)"
    ]


def test_negation_rules_for_operators() -> None:
    assert errors("cat is:nullcast") == ["The is:nullcast operator must always be negated (at position 5)"]
    assert root("cat -is:nullcast") == And((kw("cat"), Not(Operator("is", "nullcast"))))
    assert errors("cat -sample:10") == ["The sample: operator cannot be negated (at position 6)"]
    assert errors('cat -embedding:"x"') == ["The embedding: operator cannot be negated (at position 6)"]


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("product", PRODUCTS)
def test_documented_error_texts(product: Product) -> None:
    assert errors("a", product) == [
        "Rules must contain at least one positive, non-stopword clause (at position 1)"
    ]
    assert errors("--b", product) == [
        "Rules must contain a non-negation term (at position 1)",
        "Rules must contain at least one positive, non-stopword clause (at position 1)",
    ]
    assert errors("-cat -dog", product)[0] == "Rules must contain a non-negation term (at position 1)"
    assert errors("<b", product) == ["no viable alternative at character '<' (at position 1)"]
    assert errors("(humorous AND (film OR movies OR cinema)) -is:retweet lang:en", product) == [
        'Ambiguous use of and as a keyword. Use a space to logically join two clauses, or "and" to '
        "find occurrences of and in text (at position 11)"
    ]


def test_ambiguous_and_or_listed_last_position_first() -> None:
    text = "Hillary Clinton and millennials share positions on gay rights and college affordability"
    amb = (
        'Ambiguous use of and as a keyword. Use a space to logically join two clauses, or "and" to '
        "find occurrences of and in text (at position {})"
    )
    assert errors(text, "search") == [amb.format(text.rindex(" and ") + 2), amb.format(17)]
    assert errors("cats or dogs")[0].startswith("Ambiguous use of or as a keyword.")
    assert root('cats "and" dogs') == And((kw("cats"), Phrase("and"), kw("dogs")))


def test_stray_characters() -> None:
    assert errors("(pepsi OR cola OR 'coca cola')", "search") == [
        "no viable alternative at character ''' (at position 19)",
        "no viable alternative at character ''' (at position 29)",
    ]
    text = "(artificial intelligence OR machine learning OR 'AI applications' OR 'data science')"
    assert errors(text, "search") == [
        "no viable alternative at character ''' (at position 49)",
        "no viable alternative at character ''' (at position 65)",
        "no viable alternative at character ''' (at position 70)",
        "no viable alternative at character ''' (at position 83)",
    ]
    assert errors("[(OpenAI OR GPT-3) (#OpenAI OR #AI)]", "search") == [
        "no viable alternative at input '[' (at position 1)"
    ]


def test_parentheses_and_quotes() -> None:
    assert errors("horrible OR worst) (place_country:US OR place_country:MX)") == [
        "missing EOF at ')' (at position 18)"
    ]
    assert errors("(a OR b") == ["missing ')' at '<EOF>' (at position 8)"]
    assert errors("cat ()") == ["no viable alternative at input ')' (at position 6)"]
    assert errors('cat "dog') == ["no viable alternative at character '\"' (at position 5)"]
    assert errors("OR cat") == ["no viable alternative at input 'OR' (at position 1)"]
    assert errors("cat OR") == ["no viable alternative at input '<EOF>' (at position 7)"]
    assert errors("") == ["no viable alternative at input '<EOF>' (at position 1)"]


@pytest.mark.parametrize(("product", "limit"), [("search", 512), ("search", 1024), ("stream", 2048)])
def test_length_limits(product: Product, limit: int) -> None:
    ok = ("cat " * limit)[:limit].rstrip() + "s"
    ok = ok[:limit]
    assert parse(ok, product, max_length=limit).text == ok
    noun = "Query" if product == "search" else "Rule"
    assert errors(ok + "x" * 2, product, max_length=limit) == [
        f"{noun} length of {len(ok) + 2} characters exceeds the maximum of {limit} characters"
    ]


# -- render ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "apple OR iphone ipad",
        "(apple OR iphone) ipad",
        'cat -"hot dog" #tag @user $cash',
        'entity:"Michael Jordan" has:images',
        "point_radius:[2.355128 48.861118 16km] -is:retweet",
        '"social media"~5 lang:en',
        'source:"X \\"for\\" iPhone"',
        "skiing -(snow OR day)",
    ],
)
def test_render_round_trip(text: str) -> None:
    node = root(text)
    assert render(node) == text
    assert root(render(node)) == node


WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé0123456789_", min_size=1, max_size=8).filter(
    lambda w: w.lower() not in {"and", "or"}
)
LEAVES = st.one_of(
    WORDS.map(kw),
    WORDS.map(lambda w: Token("hashtag", w)),
    WORDS.map(lambda w: Token("mention", w)),
    WORDS.map(lambda w: Token("cashtag", w)),
    st.sampled_from(["😃", "👍🏽"]).map(lambda e: Token("emoji", e)),
    st.builds(
        Phrase,
        st.text(alphabet='ab "\\é', min_size=1, max_size=8).filter(str.strip),
        st.one_of(st.none(), st.integers(0, 6)),
    ),
    st.sampled_from(
        [
            Operator("from", "jack"),
            Operator("has", "media"),
            Operator("lang", "en"),
            Operator("entity", 'Say "hi" now'),
            Operator("point_radius", "[1 2 3km]"),
            Operator("context", "47.*"),
            Operator("url", "x.com/a?b=c"),
        ]
    ),
)


def _normalise(node: Node) -> Node:
    if isinstance(node, Not):
        child = _normalise(node.child)
        return child.child if isinstance(child, Not) else Not(child)
    if isinstance(node, And | Or):
        flat: list[Node] = []
        for c in map(_normalise, node.children):
            flat.extend(c.children if type(c) is type(node) else (c,))  # type: ignore[union-attr]
        return flat[0] if len(flat) == 1 else type(node)(tuple(flat))
    return node


TREES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        inner.map(Not),
        st.lists(inner, min_size=2, max_size=4).map(lambda xs: And(tuple(xs))),
        st.lists(inner, min_size=2, max_size=4).map(lambda xs: Or(tuple(xs))),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_render_parse_is_stable(tree: Node) -> None:
    # An anchor keyword keeps random trees valid (a positive standalone clause).
    ast = _normalise(And((tree, kw("anchor"))))
    if any(isinstance(n, Not) and isinstance(n.child, Not) for n in _walk(ast)):
        return
    once = render(parse(render(ast), "stream").root)
    assert render(parse(once, "stream").root) == once
    assert parse(render(ast), "stream").root == ast


def _walk(node: Node) -> list[Node]:
    out = [node]
    if isinstance(node, Not):
        out += _walk(node.child)
    elif isinstance(node, And | Or):
        for c in node.children:
            out += _walk(c)
    return out
