"""RuleIndex.match is exactly the set of rules `matches` accepts, whatever the rules and posts."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from roost.search.ast import And, Node, Not, Operator, Or, Phrase, Token
from roost.search.index import RuleIndex, compile_rule
from roost.search.matcher import matches
from roost.search.view import PostView

WORDS = ["cat", "dog", "café", "cafe", "the", "x-api", "sun", "moon", "🐍", "red"]
TAGS = ["Cats", "dogs", "café"]
USERS = ["alice", "bob", "carol"]

leaf = st.one_of(
    st.builds(Token, st.just("keyword"), st.sampled_from(WORDS)),
    st.builds(Token, st.just("emoji"), st.just("🐍")),
    st.builds(Token, st.just("hashtag"), st.sampled_from(TAGS)),
    st.builds(Token, st.just("mention"), st.sampled_from(USERS)),
    st.builds(Token, st.just("cashtag"), st.sampled_from(["TSLA", "aapl"])),
    st.builds(
        Phrase,
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
        st.one_of(st.none(), st.integers(1, 6)),
    ),
    st.builds(Operator, st.just("from"), st.sampled_from([*USERS, "1", "2", "@Bob"])),
    st.builds(Operator, st.just("to"), st.sampled_from([*USERS, "3"])),
    st.builds(Operator, st.just("retweets_of"), st.sampled_from(USERS)),
    st.builds(Operator, st.just("conversation_id"), st.sampled_from(["10", "11"])),
    st.builds(Operator, st.just("quotes_of_tweet_id"), st.sampled_from(["20", "21"])),
    st.builds(Operator, st.just("lang"), st.sampled_from(["en", "fr"])),
    st.builds(Operator, st.just("has"), st.sampled_from(["images", "links", "media", "hashtags", "geo"])),
    st.builds(
        Operator, st.just("is"), st.sampled_from(["retweet", "reply", "quote", "verified", "nullcast"])
    ),
    st.builds(Operator, st.just("sample"), st.sampled_from(["10", "50"])),
    st.builds(Operator, st.just("followers_count"), st.sampled_from(["100", "10..500"])),
    st.builds(Operator, st.just("url"), st.sampled_from(["example.com", "x.com"])),
)


def _extend(children: st.SearchStrategy[Node]) -> st.SearchStrategy[Node]:
    return st.one_of(
        st.builds(Not, children),
        st.lists(children, min_size=2, max_size=4).map(lambda c: And(tuple(c))),
        st.lists(children, min_size=2, max_size=4).map(lambda c: Or(tuple(c))),
    )


rules = st.recursive(leaf, _extend, max_leaves=8)


@st.composite
def posts(draw: st.DrawFn) -> PostView:
    words = draw(st.lists(st.sampled_from([*WORDS, "#Cats", "@bob", "https://x.com/a"]), max_size=10))
    quoted = draw(st.one_of(st.none(), st.lists(st.sampled_from(WORDS), max_size=5).map(" ".join)))
    author = draw(st.sampled_from([("1", "alice"), ("2", "Bob"), ("4", "dave")]))
    return PostView(
        id=str(draw(st.integers(1, 10**18))),
        text=" ".join(words),
        quoted_text=quoted,
        quoted_tweet_id="20" if quoted is not None else None,
        quoted_hashtags=tuple(draw(st.lists(st.sampled_from(TAGS), max_size=1))),
        author_id=author[0],
        username=author[1],
        lang=draw(st.sampled_from(["en", "fr", None])),
        hashtags=tuple(draw(st.lists(st.sampled_from(TAGS), max_size=2))),
        mention_usernames=tuple(draw(st.lists(st.sampled_from(USERS), max_size=2))),
        cashtags=tuple(draw(st.lists(st.sampled_from(["TSLA", "AAPL"]), max_size=1))),
        urls=tuple(draw(st.lists(st.sampled_from(["https://example.com/p", "x.com/a"]), max_size=1))),
        has_media=draw(st.booleans()),
        has_images=draw(st.booleans()),
        verified=draw(st.booleans()),
        followers_count=draw(st.integers(0, 1000)),
        conversation_id=draw(st.sampled_from(["10", "11", None])),
        in_reply_to_tweet_id=draw(st.sampled_from([None, "10"])),
        in_reply_to_user_id=draw(st.sampled_from([None, "3"])),
        in_reply_to_username=draw(st.sampled_from([None, "carol"])),
        retweeted_tweet_id=draw(st.sampled_from([None, "30"])),
        retweets_of_username=draw(st.sampled_from([None, "alice"])),
        place_id=draw(st.sampled_from([None, "p"])),
    )


def _linear(rule_list: list[Node], post: PostView) -> list[int]:
    return [i for i, rule in enumerate(rule_list) if matches(rule, post, "stream")]


@settings(max_examples=300, deadline=None)
@given(st.lists(rules, max_size=25), st.lists(posts(), min_size=1, max_size=5))
def test_index_agrees_with_matches(rule_list: list[Node], post_list: list[PostView]) -> None:
    index = RuleIndex()
    for i, rule in enumerate(rule_list):
        index.add(i, rule)
    for post in post_list:
        assert index.match(post) == _linear(rule_list, post)


@settings(max_examples=200, deadline=None)
@given(rules, posts())
def test_compiled_rule_agrees_with_matches(rule: Node, post: PostView) -> None:
    assert compile_rule(rule)(post) == matches(rule, post, "stream")


@settings(max_examples=100, deadline=None)
@given(
    st.lists(rules, min_size=1, max_size=20),
    st.lists(posts(), min_size=1, max_size=4),
    st.lists(st.integers(0, 19), max_size=10),
)
def test_add_remove_replace(rule_list: list[Node], post_list: list[PostView], removed: list[int]) -> None:
    index = RuleIndex()
    for i, rule in enumerate(rule_list):
        index.add(i, rule)
    gone = {i for i in removed if i < len(rule_list)}
    for i in removed:
        index.remove(i)
    assert len(index) == len(rule_list) - len(gone)
    for post in post_list:
        expected = [i for i in _linear(rule_list, post) if i not in gone]
        assert index.match(post) == expected
    # Re-adding a removed id puts it last; replacing an id keeps one entry.
    for i in sorted(gone):
        index.add(i, rule_list[i])
    index.add(0, rule_list[0])
    assert len(index) == len(rule_list)
    for post in post_list:
        assert sorted(index.match(post)) == _linear(rule_list, post)


@settings(max_examples=50, deadline=None)
@given(st.lists(rules, max_size=20), st.lists(posts(), min_size=1, max_size=5))
def test_rebalanced_index_agrees(rule_list: list[Node], post_list: list[PostView]) -> None:
    index = RuleIndex()
    index.MIN_OBSERVED = 1
    for i, rule in enumerate(rule_list):
        index.add(i, rule)
    for post in post_list:
        index.observe(post)
    index.rebalance()
    for post in post_list:
        assert index.match(post) == _linear(rule_list, post)


def test_anchoring_and_unanchored_rules() -> None:
    index = RuleIndex()
    index.add("kw", And((Token("keyword", "cat"), Operator("lang", "en"))))
    index.add("neg", And((Not(Token("keyword", "dog")), Operator("lang", "en"))))
    index.add("or", Or((Token("hashtag", "Cats"), Operator("from", "bob"))))
    index.add("loose", Or((Token("keyword", "cat"), Not(Token("keyword", "dog")))))
    assert index.unanchored == 1  # only "loose": an OR branch that is a pure negation
    post = PostView(id="1", text="a cat", lang="en", username="alice", author_id="1")
    assert index.match(post) == ["kw", "neg", "loose"]
    assert index.match(PostView(id="2", text="dog", hashtags=("cats",), lang="fr")) == ["or"]
    assert index.remove("kw") and not index.remove("kw")
    assert "kw" not in index and "or" in index
    assert index.match(post) == ["neg", "loose"]


def test_rule_matching_on_quoted_text() -> None:
    index = RuleIndex()
    index.add(1, Phrase("quantum kittens"))
    post = PostView(id="1", text="look", quoted_text="quantum kittens", quoted_tweet_id="2")
    assert index.match(post) == [1]


def test_stream_rule_set_rebalances_on_traffic_without_changing_results(monkeypatch: Any) -> None:
    from roost.domain import stream_ruleset as stream  # RuleSet moved from platform/stream.py (issue 6)

    monkeypatch.setattr(stream, "FIRST_REBALANCE", 3)
    rules = stream.RuleSet(db=None, settings=None, app_id=1)  # type: ignore[arg-type]
    rules.index.add(1, And((Token("keyword", "cat"), Token("keyword", "common"))))
    rules.index.add(2, Token("keyword", "common"))
    rebalanced: list[int] = []
    original = rules.index.rebalance

    def recording_rebalance() -> None:
        rebalanced.append(rules._seen)
        original()

    monkeypatch.setattr(rules.index, "rebalance", recording_rebalance)
    for number in range(40):
        text = "common cat" if number % 4 == 0 else "common words"
        expected = [1, 2] if number % 4 == 0 else [2]
        assert rules.match(PostView(id=str(number + 1), text=text)) == expected
    assert rebalanced == [3, 30]  # after 3, then 30 posts: a geometric schedule


def test_observed_counts_stay_bounded_and_keep_common_keys() -> None:
    """Unique texts (a load test's counters) add a key per post for ever; the counts forget rare keys
    past the cap instead of growing without end, and the shares of common keys survive."""
    index = RuleIndex()
    index.MAX_OBSERVED_KEYS = 1_000
    index.add(1, And((Token("keyword", "rare"), Token("keyword", "common"))))
    largest = 0
    for number in range(20_000):
        index.observe(PostView(id=str(number + 1), text=f"common n{number} m{number}"))
        largest = max(largest, len(index._df))
    assert largest <= 1_000
    assert index._df["w:common"] == index._observed  # still in every post counted
    index.rebalance()
    assert index.match(PostView(id="1", text="rare and common")) == [1]


def test_stream_rule_set_counts_a_sample_of_the_traffic(monkeypatch: Any) -> None:
    from roost.domain import stream_ruleset as stream

    monkeypatch.setattr(stream, "FIRST_REBALANCE", 10)
    rules = stream.RuleSet(db=None, settings=None, app_id=1)  # type: ignore[arg-type]
    rules.index.add(1, Token("keyword", "common"))
    for number in range(90):
        assert rules.match(PostView(id=str(number + 1), text="common")) == [1]
    # Every post up to the first rebalance, then one in OBSERVE_EVERY (the 10th, 18th, …, 88th).
    assert rules.index._observed == 10 + 80 // stream.OBSERVE_EVERY
