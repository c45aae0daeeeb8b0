"""Filtered-stream webhooks fan-out: each new or edited post (`post.create`, `post.edit`) that matches an
app's stream rules becomes one delivery per webhook linked to that app's stream (route
`stream:<app id>`), whose body is what a stream line would carry — `{"data","includes"?,"errors"?,
"matching_rules"}` — rendered with the link's own field and expansion parameters.

`StreamHooks` is held by the dispatcher, which feeds it every event in log order. It keeps the
deliverable links and each linked app's `RuleSet` in memory: a `stream_link.*` or `webhook.*` event
reloads the links (so a post after an unlink in the log is not delivered), a `stream_rules.update`
event reloads that app's rules (as a stream connection does), and the links are re-read at least
every `LINKS_TTL_S` to notice webhooks a CRC made invalid.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from roost.core import jsonio
from roost.core.fields import FieldsEngine, Selection
from roost.core.records import Row
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.stream_links import stored_params
from roost.domain.stream_rules import RULES_EVENT
from roost.domain.stream_ruleset import RuleSet
from roost.events.outgoing import Outgoing
from roost.events.stream_posts import POST_KINDS, StreamObjects
from roost.storage.stream_links import StreamLinkStore

LINKS_TTL_S = 1.0
Params = tuple[tuple[str, str], ...]


def route(app_id: int) -> str:
    return f"stream:{app_id}"


def selection_of(params: Params, engine: FieldsEngine | None = None) -> Selection:
    """The link's selection, parsed by the server's fields engine (without one, by an engine of the
    post kinds). Its parameters were checked when it was made; one no longer accepted is left out
    rather than failing every delivery."""
    engine = engine or FieldsEngine(KINDS, EXPANSIONS)
    selection, problems = engine.parse("tweet", dict(params))
    if problems:
        bad = {name for name, _, _ in problems}
        selection, _ = engine.parse("tweet", {name: value for name, value in params if name not in bad})
    return selection


class StreamHooks:
    def __init__(
        self, objects: StreamObjects, links: StreamLinkStore, rulesets: Callable[[int], RuleSet]
    ) -> None:
        self._objects = objects
        self._links_store = links
        self._new_ruleset = rulesets  # an app's rules, not loaded yet
        self._links: dict[int, list[Row]] | None = None  # app id -> its deliverable links
        self._links_at = 0.0
        self._rules: dict[int, RuleSet] = {}
        self._stale_rules: set[int] = set()

    async def prepare(self, events: Sequence[Row]) -> None:
        """Nothing read ahead: each event's reads are its own."""

    async def outgoing(self, event: Row) -> list[Outgoing]:
        kind = str(event["kind"])
        if kind.startswith(("stream_link.", "webhook.")):
            self._links = None
            return []
        if kind == RULES_EVENT:
            if event["object_id"] is not None and int(event["object_id"]) in self._rules:
                self._stale_rules.add(int(event["object_id"]))
            return []
        if kind not in POST_KINDS:
            return []
        links = await self._current_links()
        if not links:
            return []
        objects = self._objects
        post = await objects.public_post(event)  # deleted and protected posts are never sent
        if post is None:
            return []
        view = await objects.post_view(post)
        out: list[Outgoing] = []
        for app_id, app_links in links.items():
            rules = await self._ruleset(app_id)
            if not len(rules.index):
                continue
            hits = rules.match(view)
            if not hits:
                continue
            bodies: dict[Params, bytes] = {}  # links of one app with the same parameters share a body
            for link in app_links:
                params = tuple(stored_params(link))
                if params not in bodies:
                    body = await objects.render_post(selection_of(params, objects.engine), post)
                    body["matching_rules"] = rules.matching_rules(hits)
                    bodies[params] = jsonio.dumps(body)
                out.append(Outgoing(int(link["webhook_id"]), route(app_id), bodies[params]))
        return out

    async def _current_links(self) -> dict[int, list[Row]]:
        if self._links is None or time.monotonic() - self._links_at >= LINKS_TTL_S:
            grouped: dict[int, list[Row]] = {}
            for row in await self._links_store.deliverable():
                grouped.setdefault(int(row["app_id"]), []).append(row)
            self._links, self._links_at = grouped, time.monotonic()
            for app_id in [a for a in self._rules if a not in grouped]:
                del self._rules[app_id]  # no longer linked: its rules are read afresh if it links again
                self._stale_rules.discard(app_id)
        return self._links

    async def _ruleset(self, app_id: int) -> RuleSet:
        # Kept (or marked fresh) only once loaded: a failed load is retried with the event's next try.
        rules = self._rules.get(app_id)
        if rules is None:
            rules = self._new_ruleset(app_id)
            await rules.load()
            self._rules[app_id] = rules
            self._stale_rules.discard(app_id)
        elif app_id in self._stale_rules:
            await rules.load()
            self._stale_rules.discard(app_id)
        return rules
