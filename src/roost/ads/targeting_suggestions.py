"""Targeting suggestions from roost's own data.

Keywords: words that appear in recent posts together with the given keywords, ranked by how many
of those posts use them (ties alphabetically), leaving out the given keywords, stop words, links,
mentions and numbers. Users: accounts followed by the followers of the given accounts, ranked by
shared followers; when the graph has too few, the accounts the given users follow fill up.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from roost.ads import errors
from roost.ads.targeting import is_user_id, printable
from roost.storage import ads_targeting
from roost.storage.db import Database
from roost.storage.users import UserStore

SUGGESTION_TYPES = ("KEYWORD", "USER_ID")
_LOOKS_LIKE_USER_ID = re.compile(r"[0-9]{6,19}")

# A word starts with a letter and may join parts with an apostrophe or hyphen ("don't", "e-mail").
_WORD = re.compile(r"[^\W\d_][^\W_]*(?:['’-][^\W_]+)*")
_STOP_TEXT = """
    a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further get got
    had has have having he her here hers herself him himself his how i if in into is it its itself just
    let me more most my myself no nor not now of off on once only or other our ours ourselves out over
    own really same she should so some such than that the their theirs them themselves then there these
    they this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves rt via amp new one like don't i'm it's
    that's can't won't isn't"""
_STOP_WORDS = frozenset(_STOP_TEXT.split())
_MIN_LENGTH = 3


def words_of(text: str) -> set[str]:
    """The distinct candidate words of a post, lowercased, hashtags without '#'."""
    out = set()
    for token in text.split():
        if token.startswith(("http://", "https://", "@")):
            continue
        for word in _WORD.findall(token):
            word = word.lower()
            if len(word) >= _MIN_LENGTH and word not in _STOP_WORDS:
                out.add(word)
    return out


class Suggestions:
    """Keyword and user suggestions, read from posts and the follow graph."""

    def __init__(self, db: Database, users: UserStore) -> None:
        self._db = db
        self._users = users

    async def suggest(self, kind: str, values: list[str], count: int) -> list[dict[str, Any]]:
        """Up to `count` suggestions of `kind` (KEYWORD or USER_ID) for the given values."""
        if kind == "USER_ID":
            for value in values:
                if not is_user_id(value):
                    raise errors.invalid_parameter(
                        "targeting_values", f'Expected Long, got "{value}" for targeting_values'
                    )
            suggested = await self.users([int(v) for v in values], count)
        else:
            if not all(printable(v) for v in values):
                raise errors.invalid_parameter(
                    "targeting_values", "targeting_values must not hold control characters"
                )
            if any(_LOOKS_LIKE_USER_ID.fullmatch(v) for v in values):
                raise errors.invalid_parameter(
                    "targeting_values", "targeting_values must be all keywords or all user ids, not mixed"
                )
            suggested = await self.keywords(values, count)
        return [{"suggestion_type": kind, "suggestion_value": value} for value in suggested]

    async def keywords(self, keywords: list[str], count: int) -> list[str]:
        given = [k.lower() for k in keywords]
        texts = await ads_targeting.texts_mentioning(self._db, given)
        excluded = set(given) | {w for k in given for w in k.split()}
        tally: Counter[str] = Counter()
        for text in texts:
            lowered = text.lower()
            if not any(k in lowered for k in given):
                continue
            tally.update(words_of(text) - excluded)
        ranked = sorted(tally.items(), key=lambda pair: (-pair[1], pair[0]))
        return [word for word, _ in ranked[:count]]

    async def users(self, user_ids: list[int], count: int) -> list[str]:
        found = await ads_targeting.co_followed(self._db, user_ids, count)
        if len(found) < count:
            for user_id in await ads_targeting.followed_by(self._db, user_ids, count):
                if user_id not in found:
                    found.append(user_id)
        protected = await self._users.protected_ids()
        return [str(user_id) for user_id in found if user_id not in protected][:count]
