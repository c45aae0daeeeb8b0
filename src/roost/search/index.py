"""`RuleIndex`: which of many filtered-stream rules match a post, without evaluating every rule.

Each rule is filed under "anchor" keys: terms the post must carry for the rule to possibly match.
An AND files under its cheapest anchorable child, an OR under the anchors of every branch; a rule
with nothing anchorable (only negations and conjunction operators at some OR branch) goes to a
small always-evaluate list. `match` gathers the candidates from the post's own keys and confirms
each with `matches`, so the index can only lose speed, never correctness. Pure; no threads.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping

from roost.search.ast import And, Node, Not, Operator, Or, Phrase, Query, Token
from roost.search.matcher import _HAS, OPERATORS, contains_seq, within_proximity
from roost.search.view import PostView, query_tokens

RuleId = Hashable

# Very common words make poor anchors: an AND prefers any other positive term.
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "has",
        "have",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "rt",
        "so",
        "that",
        "the",
        "this",
        "to",
        "up",
        "us",
        "was",
        "we",
        "what",
        "with",
        "you",
        "your",
    ]
)

# Operators whose value pins one post attribute (key prefix per operator).
_ID_OPERATORS = {
    "from": "f:",
    "to": "t:",
    "retweets_of": "r:",
    "conversation_id": "c:",
    "in_reply_to_tweet_id": "i:",
    "in_reply_to_status_id": "i:",
    "retweets_of_tweet_id": "R:",
    "retweets_of_status_id": "R:",
    "quotes_of_tweet_id": "q:",
}
_USER_OPERATORS = frozenset({"from", "to", "retweets_of"})


def _key_cost(key: str) -> float:
    """A static guess of how many posts carry the key (smaller is rarer), used until `observe`d
    posts give real frequencies."""
    kind, value = key[:2], key[2:]
    if kind == "w:":
        if value in _COMMON:
            return 1000
        return 40 - min(len(value), 12) * 2
    if kind in ("#:", "@:", "$:"):
        return 6
    if kind == "x:":  # a post attribute (lang:, has:, is:): a large share of all posts
        return 400 if value.startswith("lang:") else 600
    return 1  # from:, to:, ids: one user or one post


_IS_FLAGS = {"retweet": "is_retweet", "reply": "is_reply", "quote": "is_quote", "verified": "verified"}


def _attribute_key(node: Operator) -> str | None:
    value = node.value.lower()
    if node.name == "lang":
        return "x:lang:" + value
    if node.name == "has" and value in _HAS:
        return "x:has:" + value
    if node.name == "is" and value in _IS_FLAGS:
        return "x:is:" + value
    return None


Cost = Callable[[str], float]


def _anchors(node: Node, cost: Cost = _key_cost) -> tuple[str, ...] | None:
    """Keys of which at least one is carried by every post the node matches (stream semantics)."""
    if isinstance(node, Token):
        if node.kind in ("keyword", "emoji"):
            toks = query_tokens(node.value, False)
            return (min(("w:" + t for t in toks), key=cost),) if toks else None
        prefix = {"hashtag": "#:", "mention": "@:", "cashtag": "$:"}.get(node.kind)
        return (prefix + node.value.lower(),) if prefix else None
    if isinstance(node, Phrase):
        toks = query_tokens(node.text, False)
        return (min(("w:" + t for t in toks), key=cost),) if toks else None
    if isinstance(node, Operator):
        prefix = _ID_OPERATORS.get(node.name)
        if prefix is None:
            attr = _attribute_key(node)
            return None if attr is None else (attr,)
        value = node.value.removeprefix("@") if node.name in _USER_OPERATORS else node.value
        return (prefix + value.lower(),)
    if isinstance(node, And):
        best: tuple[str, ...] | None = None
        best_cost = 0.0
        for child in node.children:
            keys = _anchors(child, cost)
            if keys is not None:
                total = sum(cost(k) for k in keys)
                if best is None or total < best_cost:
                    best, best_cost = keys, total
        return best
    if isinstance(node, Or):
        out: list[str] = []
        for child in node.children:
            keys = _anchors(child, cost)
            if keys is None:
                return None
            out.extend(keys)
        return tuple(dict.fromkeys(out))
    return None  # Not: absence cannot be looked up


def misc_keys(post: PostView, families: Mapping[str, int] | None = None) -> list[str]:
    """The post's anchor keys other than its words and entities: all of them, or only those of the
    families in use (`f:` … and, for attributes, the exact `x:` keys rules are filed under)."""
    keys = ["f:" + post.author_id, "f:" + post.username_lower] if families is None or "f:" in families else []
    if post.in_reply_to_user_id is not None:
        keys.append("t:" + post.in_reply_to_user_id)
    if post.in_reply_to_username is not None:
        keys.append("t:" + post.in_reply_to_username.lower())
    if post.is_retweet:
        if post.retweets_of_user_id is not None:
            keys.append("r:" + post.retweets_of_user_id)
        if post.retweets_of_username is not None:
            keys.append("r:" + post.retweets_of_username.lower())
    if post.conversation_id is not None:
        keys.append("c:" + post.conversation_id)
    if post.in_reply_to_tweet_id is not None:
        keys.append("i:" + post.in_reply_to_tweet_id)
    if post.retweeted_tweet_id is not None:
        keys.append("R:" + post.retweeted_tweet_id)
    if post.quoted_tweet_id is not None:
        keys.append("q:" + post.quoted_tweet_id)
    if families is None:
        if post.lang:
            keys.append("x:lang:" + post.lang.lower())
        keys += ["x:has:" + name for name, check in _HAS.items() if check(post, "stream")]
        keys += ["x:is:" + name for name, attr in _IS_FLAGS.items() if getattr(post, attr)]
        return keys
    for family in families:
        if family[:2] != "x:":
            continue
        if family[2:5] == "has":
            if _HAS[family[6:]](post, "stream"):
                keys.append(family)
        elif family[2:4] == "is":
            if getattr(post, _IS_FLAGS[family[5:]]):
                keys.append(family)
        elif post.lang and family[7:] == post.lang.lower():
            keys.append(family)
    return keys


# ---- rules compiled to closures (stream semantics; must agree with `matcher.matches`) -----------

Check = Callable[[PostView], bool]


def _never(post: PostView) -> bool:
    return False


def _text_check(toks: tuple[str, ...], slop: int | None) -> Check:
    if not toks:
        return _never
    if len(toks) == 1 and slop is None:
        tok = toks[0]
        return lambda p: tok in p.stream_words
    need = frozenset(toks)
    if slop is None:
        return lambda p: need <= p.stream_words and any(contains_seq(s, toks) for s in p.stream_seqs)
    return lambda p: need <= p.stream_words and any(within_proximity(s, toks, slop) for s in p.stream_seqs)


def _all(checks: tuple[Check, ...]) -> Check:
    if len(checks) == 2:
        a, b = checks
        return lambda p: a(p) and b(p)

    def check(p: PostView) -> bool:
        for c in checks:  # noqa: SIM110 -- a plain loop avoids a generator per call on the hot path
            if not c(p):
                return False
        return True

    return check


def _any(checks: tuple[Check, ...]) -> Check:
    def check(p: PostView) -> bool:
        for c in checks:  # noqa: SIM110 -- as above
            if c(p):
                return True
        return False

    return check


def _rank(node: Node) -> int:
    # Cheap, selective checks first; evaluation order cannot change a pure boolean result.
    if isinstance(node, Token):
        return 0
    if isinstance(node, Phrase | Operator):
        return 1
    return 2


def _compile_operator(node: Operator) -> Check:
    # The frequent conjunction operators get direct closures; the rest go through the matcher.
    name, raw = node.name, node.value
    value = raw.lower()
    if name == "lang":
        return lambda p: p.lang is not None and p.lang.lower() == value
    if name == "is" and value in _IS_FLAGS:
        attr = _IS_FLAGS[value]
        return lambda p: bool(getattr(p, attr))
    if name == "has" and value in _HAS:
        has = _HAS[value]
        return lambda p: has(p, "stream")
    if name == "from":
        user = value.removeprefix("@")
        return lambda p: p.username_lower == user or p.author_id == user
    fn = OPERATORS.get(name)
    if fn is None:
        return _never
    return lambda p: fn(raw, p, "stream")


def compile_rule(node: Node) -> Check:
    """A closure equivalent to `matches(node, post, "stream")`, without per-node dispatch."""
    if isinstance(node, Token):
        if node.kind in ("keyword", "emoji"):
            return _text_check(query_tokens(node.value, False), None)
        value = node.value.lower()
        if node.kind == "hashtag":
            return lambda p: value in p.stream_hashtag_set
        if node.kind == "mention":
            return lambda p: value in p.stream_mention_set
        if node.kind == "cashtag":
            return lambda p: value in p.stream_cashtag_set
        return _never
    if isinstance(node, Phrase):
        return _text_check(query_tokens(node.text, False), node.proximity)
    if isinstance(node, Operator):
        return _compile_operator(node)
    if isinstance(node, Not):
        inner = compile_rule(node.child)
        return lambda p: not inner(p)
    children = sorted(node.children, key=_rank)
    checks = tuple(compile_rule(c) for c in children)
    if len(checks) == 1:
        return checks[0]
    return _all(checks) if isinstance(node, And) else _any(checks)


# ---- the index ---------------------------------------------------------------------------------

_ENTITY_KINDS = ("w:", "#:", "@:", "$:")


def _is_exact(node: Node) -> bool:
    """True when carrying one of the node's anchor keys already means the node matches."""
    if isinstance(node, Token):
        if node.kind in ("keyword", "emoji"):
            return len(query_tokens(node.value, False)) == 1
        return node.kind in ("hashtag", "mention", "cashtag")
    if isinstance(node, Operator):
        return node.name in ("from", "conversation_id", "in_reply_to_tweet_id", "quotes_of_tweet_id")
    if isinstance(node, Or):
        return all(_is_exact(c) for c in node.children)
    return False


class RuleIndex:
    """Stream rules by anchor key. `match` returns matching rule ids once each, in insertion order.

    Anchors are chosen with static rarity guesses until posts are `observe`d; `rebalance` re-files
    every rule with the observed key frequencies (rules added later use them directly).
    """

    MIN_OBSERVED = 200  # posts needed before observed frequencies replace the static guesses
    # Distinct keys counted at most. Unique texts (a load test's counters, ids) add keys for ever; past
    # this the counts are halved until a quarter of the room is free, which forgets rare keys.
    MAX_OBSERVED_KEYS = 100_000

    def __init__(self) -> None:
        self._seqs: dict[RuleId, int] = {}
        # seq -> (rule id, check or None when an anchor hit is a match, anchor keys or None, node)
        self._rules: dict[int, tuple[RuleId, Check | None, tuple[str, ...] | None, Node]] = {}
        self._hot: dict[int, tuple[RuleId, Check | None]] = {}  # what `match` needs, unpacked cheaply
        self._kinds: dict[str, dict[str, set[int]]] = {k: {} for k in (*_ENTITY_KINDS, "*")}
        self._always: set[int] = set()
        self._misc_families: dict[str, int] = {}  # "f:", …, or a whole "x:has:images" key -> rules
        self._seq = 0
        self._observed = 0
        self._df: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._seqs

    @property
    def unanchored(self) -> int:
        """How many rules are evaluated for every post."""
        return len(self._always)

    def observe(self, post: PostView) -> None:
        """Count the post's keys, to anchor rules on what is rare in the actual traffic."""
        df = self._df
        self._observed += 1
        for prefix, values in (
            ("w:", post.stream_words),
            ("#:", post.stream_hashtag_set),
            ("@:", post.stream_mention_set),
            ("$:", post.stream_cashtag_set),
        ):
            for value in values:
                key = prefix + value
                df[key] = df.get(key, 0) + 1
        for key in misc_keys(post):
            df[key] = df.get(key, 0) + 1
        if len(df) > self.MAX_OBSERVED_KEYS:
            self._forget_rare()

    def _forget_rare(self) -> None:
        """Halve every count and the posts counted: shares stay as they were, and keys seen once (then
        twice, …) drop out, as a key never seen counts as the rarest of all anyway."""
        while len(self._df) > self.MAX_OBSERVED_KEYS * 3 // 4:
            self._df = {key: count // 2 for key, count in self._df.items() if count > 1}
            self._observed = max(self._observed // 2, self.MIN_OBSERVED)

    def _cost(self, key: str) -> float:
        if self._observed < self.MIN_OBSERVED:
            return _key_cost(key)
        # Share of observed posts carrying the key; the static guess only breaks ties.
        return self._df.get(key, 0) / self._observed + _key_cost(key) * 1e-6

    def rebalance(self) -> None:
        """Re-file every rule under anchors chosen with the current frequencies."""
        for seq, (_, _, keys, node) in list(self._rules.items()):
            self._unfile(seq, keys)
            self._file(seq, node)

    def _table(self, key: str) -> tuple[dict[str, set[int]], str]:
        kind = key[:2]
        if kind in _ENTITY_KINDS:
            return self._kinds[kind], key[2:]
        return self._kinds["*"], key

    @staticmethod
    def _family(key: str) -> str:
        return key if key.startswith("x:") else key[:2]

    def add(self, rule_id: RuleId, query: Query | Node) -> None:
        """Add a rule, or replace the rule with the same id."""
        node = query.root if isinstance(query, Query) else query
        self.remove(rule_id)
        self._seq += 1
        self._seqs[rule_id] = self._seq
        self._rules[self._seq] = (rule_id, None, None, node)
        self._file(self._seq, node)

    def _file(self, seq: int, node: Node) -> None:
        keys = _anchors(node, self._cost)
        exact = keys is not None and _is_exact(node)
        rule_id = self._rules[seq][0]
        check = None if exact else compile_rule(node)
        self._rules[seq] = (rule_id, check, keys, node)
        self._hot[seq] = (rule_id, check)
        if keys is None:
            self._always.add(seq)
            return
        for key in keys:
            table, value = self._table(key)
            table.setdefault(value, set()).add(seq)
            if table is self._kinds["*"]:
                family = self._family(key)
                self._misc_families[family] = self._misc_families.get(family, 0) + 1

    def remove(self, rule_id: RuleId) -> bool:
        seq = self._seqs.pop(rule_id, None)
        if seq is None:
            return False
        del self._hot[seq]
        self._unfile(seq, self._rules.pop(seq)[2])
        return True

    def _unfile(self, seq: int, keys: tuple[str, ...] | None) -> None:
        if keys is None:
            self._always.discard(seq)
            return
        for key in keys:
            table, value = self._table(key)
            bucket = table[value]
            bucket.discard(seq)
            if not bucket:
                del table[value]
            if table is self._kinds["*"]:
                family = self._family(key)
                self._misc_families[family] -= 1
                if not self._misc_families[family]:
                    del self._misc_families[family]

    def _candidates(self, post: PostView) -> set[int]:
        found = set(self._always)
        kinds = self._kinds
        for table, values in (
            (kinds["w:"], post.stream_words),
            (kinds["#:"], post.stream_hashtag_set),
            (kinds["@:"], post.stream_mention_set),
            (kinds["$:"], post.stream_cashtag_set),
        ):
            if values and table:
                for value in values:
                    bucket = table.get(value)
                    if bucket:
                        found |= bucket
        misc = kinds["*"]
        if misc:
            for key in misc_keys(post, self._misc_families):
                bucket = misc.get(key)
                if bucket:
                    found |= bucket
        return found

    def candidates(self, post: PostView) -> list[RuleId]:
        """Rules that may match: those filed under a key the post carries, and the unanchored."""
        rules = self._rules
        return [rules[seq][0] for seq in sorted(self._candidates(post))]

    def match(self, post: PostView) -> list[RuleId]:
        hot = self._hot
        hits = []
        for seq in sorted(self._candidates(post)):
            rule_id, check = hot[seq]
            if check is None or check(post):
                hits.append(rule_id)
        return hits
