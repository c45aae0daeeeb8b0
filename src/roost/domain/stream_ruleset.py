"""An app's filtered-stream rules as one matcher (`RuleSet`), outside the HTTP layer so that both the
stream connection (`platform/stream.py`) and the filtered-stream webhooks (`events/stream_hooks.py`)
match posts with exactly the same rules. The matcher's view of a post is `events/stream_posts.post_view`.
"""

from __future__ import annotations

import logging
from typing import Any, cast

from roost.config import Settings
from roost.domain.packages import PACKAGES
from roost.domain.stream_rules import parse_rule
from roost.search.ast import QueryError
from roost.search.index import RuleIndex
from roost.search.view import PostView
from roost.storage.db import Database
from roost.storage.stream_rules import StreamRuleStore

log = logging.getLogger("roost.stream")

FIRST_REBALANCE = 1_000  # posts seen before the rule index first re-anchors on the observed traffic
# After that, one post in this many is counted: the shares of keys come out the same for a fraction of
# the work on every post matched.
OBSERVE_EVERY = 8
# Stored rules are parsed with the write-time limit (`stream_rule_max_length`, domain/stream_rules.py)
# but at least this, so lowering the setting never drops a rule that was accepted.
MIN_LOAD_LENGTH = 4096


class RuleSet:
    """The app's rules as a `RuleIndex`, reloaded (as a difference) when the app's rules change.
    `settings` is read at each load (`stream_rule_max_length` can change while the server runs)."""

    def __init__(self, db: Database, settings: Settings, app_id: int) -> None:
        self._rules = StreamRuleStore(db)
        self._settings = settings
        self.app_id = app_id
        self.index = RuleIndex()
        self.tags: dict[int, str | None] = {}
        self._values: dict[int, str] = {}
        self._next_rebalance = FIRST_REBALANCE
        self._seen = 0

    def match(self, view: PostView) -> list[int]:
        """The matching rule ids. The index also learns which terms are common in the traffic and
        re-anchors its rules on rare ones after 1,000, 10,000, … posts (results never change)."""
        index = self.index
        if self._seen < FIRST_REBALANCE or self._seen % OBSERVE_EVERY == 0:
            index.observe(view)
        self._seen += 1
        if self._seen >= self._next_rebalance:
            self._next_rebalance *= 10
            index.rebalance()
        return cast("list[int]", index.match(view))  # the ids this set adds are ints

    def _load_length(self) -> int:
        longest = max(package.stream_rule_length for package in PACKAGES.values())
        written = self._settings.whole("stream_rule_max_length", longest, positive=True)
        return max(written, MIN_LOAD_LENGTH)

    async def load(self) -> None:
        found = {int(r["id"]): r for r in await self._rules.all_of_app(self.app_id)}
        for rule_id in [r for r in self._values if r not in found]:
            self.index.remove(rule_id)
            self._values.pop(rule_id, None)
            self.tags.pop(rule_id, None)
        limit = self._load_length()
        for rule_id, row in found.items():
            if self._values.get(rule_id) == row["value"]:
                continue
            try:
                query = parse_rule(str(row["value"]), limit)
            except QueryError:
                log.warning("stream rule %s no longer parses; skipped", rule_id)
                continue
            self.index.add(rule_id, query)
            self._values[rule_id] = str(row["value"])
            self.tags[rule_id] = row["tag"]

    def matching_rules(self, hits: list[int]) -> list[dict[str, Any]]:
        """A stream line's `matching_rules`: ids as strings, `tag` only for tagged rules."""
        matching = []
        for rule_id in hits:
            item: dict[str, Any] = {"id": str(rule_id)}
            tag = self.tags.get(rule_id)
            if tag is not None:
                item["tag"] = tag
            matching.append(item)
        return matching
