"""Filtered-stream rules, without HTTP: add (with duplicate and syntax checks and the rule caps),
delete by ids or values, delete all, list, counts.

Rules belong to an app; the caps count the app's rules and its project's. The app's package sets
them (pay-per-use: 1,000 rules per project of up to 1,024 characters; enterprise: 25,000 of up to
2,048); feature settings in `settings.extra`, when set, hold for every app: `stream_rule_limit` (per
project), `stream_rule_limit_per_app` (default: the project cap), `stream_rule_max_length`.
Every committed change appends a `stream_rules.update` event, so open streams of the app (in this
process or another one reading the same log) reload the app's rules without reconnecting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from roost.config import Settings
from roost.core import errors, jsonio, pagination
from roost.core.clock import Clock, iso_ms
from roost.core.ids import SnowflakeGenerator
from roost.core.pagination import PageToken
from roost.core.principal import Principal
from roost.core.records import Row
from roost.domain.packages import ENTERPRISE_OPERATORS, PACKAGES, operator_not_offered
from roost.search.ast import Query, QueryError, first_operator
from roost.storage import stream_rules as rows
from roost.storage.db import Database
from roost.storage.events import append_event
from roost.storage.stream_rules import StreamRuleStore

RULES_EVENT = "stream_rules.update"
PAGE_SCOPE = "stream-rules"
ID_PATTERN = "^[0-9]{1,19}$"
_ID = re.compile(r"[0-9]{1,19}")
COUNT_FIELDS = (
    "all_project_client_apps",
    "cap_per_client_app",
    "cap_per_project",
    "client_app_rules_count",
    "project_rules_count",
)
DEFAULT_COUNT_FIELDS = frozenset(
    {"cap_per_client_app", "cap_per_project", "client_app_rules_count", "project_rules_count"}
)


def project_cap(settings: Settings, package: str) -> int:
    by_package = PACKAGES[package].stream_rules_per_project
    return settings.whole("stream_rule_limit", by_package, positive=True)


def app_cap(settings: Settings, package: str) -> int:
    return settings.whole("stream_rule_limit_per_app", project_cap(settings, package), positive=True)


def max_length(settings: Settings, package: str) -> int:
    by_package = PACKAGES[package].stream_rule_length
    return settings.whole("stream_rule_max_length", by_package, positive=True)


def parse_rule(value: str, limit: int) -> Query:
    """The rule's syntax tree, or `QueryError` with the platform's texts (search/parser.py)."""
    from roost.search.parser import parse  # the shared query language

    return parse(value, "stream", max_length=limit)


def render_rule(row: Row | dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"value": row["value"]}
    if row["tag"] is not None:
        out["tag"] = row["tag"]
    out["id"] = str(row["id"])
    return out


# ---- body checks (the platform's schema-validation texts, as elsewhere in roost) -------------


def _invalid(message: str) -> errors.ApiError:
    return errors.invalid_body(message)


def _expect(value: Any, wanted: str, where: str) -> None:
    if jsonio.type_name(value) != wanted:
        raise _invalid(f"{where}: {jsonio.type_name(value)} found, {wanted} expected")


def _no_extra(body: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise _invalid(
            f"{where}.{unknown[0]}: is not defined in the schema and the schema does not allow "
            "additional properties"
        )


@dataclass(frozen=True)
class NewRule:
    value: str
    tag: str | None


def _additions(raw: Any) -> list[NewRule]:
    _expect(raw, "array", "$.add")
    if not raw:
        raise _invalid("$.add: must contain at least 1 items")
    out: list[NewRule] = []
    for index, item in enumerate(raw):
        where = f"$.add[{index}]"
        _expect(item, "object", where)
        _no_extra(item, {"value", "tag"}, where)
        if "value" not in item:
            raise _invalid(f"{where}.value: is missing but it is required")
        _expect(item["value"], "string", f"{where}.value")
        tag = item.get("tag")
        if tag is not None:
            _expect(tag, "string", f"{where}.tag")
        out.append(NewRule(item["value"], tag))
    return out


def _deletions(raw: Any) -> tuple[list[int], list[str]]:
    _expect(raw, "object", "$.delete")
    _no_extra(raw, {"ids", "values"}, "$.delete")
    ids: list[int] = []
    values: list[str] = []
    if "ids" in raw:
        _expect(raw["ids"], "array", "$.delete.ids")
        for index, item in enumerate(raw["ids"]):
            where = f"$.delete.ids[{index}]"
            _expect(item, "string", where)
            if _ID.fullmatch(item) is None or int(item) >= 1 << 63:
                raise _invalid(f"{where}: does not match the regex pattern {ID_PATTERN}")
            ids.append(int(item))
    if "values" in raw:
        _expect(raw["values"], "array", "$.delete.values")
        for index, item in enumerate(raw["values"]):
            _expect(item, "string", f"$.delete.values[{index}]")
            values.append(item)
    if not ids and not values:
        raise _invalid("$.delete: one of ids or values must contain at least 1 items")
    return ids, values


def _exactly_one() -> errors.ApiError:
    return _invalid("Exactly one of add, delete, or delete_all must be specified")


class StreamRuleService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        settings: Settings,  # read live: the rule caps and the maximum rule length
        store: StreamRuleStore,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._settings = settings
        self.store = store

    def _sent(self) -> str:
        return iso_ms(self._clock.now_ms())

    async def _changed(self, tx: Any, app_id: int, now: int) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=RULES_EVENT,
            created_at=now,
            user_id=None,
            object_id=app_id,
            payload={"app_id": str(app_id)},
        )

    async def update(
        self, principal: Principal, body: Any, dry_run: bool, delete_all: bool
    ) -> tuple[int, dict[str, Any]]:
        """(status, body) of `POST /2/tweets/search/stream/rules`."""
        if body is None:
            body = {}
        _expect(body, "object", "$")
        _no_extra(body, {"add", "delete"}, "$")
        given = ("add" in body) + ("delete" in body) + bool(delete_all)
        if given != 1:
            raise _exactly_one()
        if delete_all:
            return 200, await self._delete_all(principal.app_id, dry_run)
        if "add" in body:
            return 201, await self._add(principal, _additions(body["add"]), dry_run)
        ids, values = _deletions(body["delete"])
        return 200, await self._delete(principal.app_id, ids, values, dry_run)

    # ---- add ------------------------------------------------------------------------------------

    async def _add(self, principal: Principal, wanted: list[NewRule], dry_run: bool) -> dict[str, Any]:
        package = PACKAGES[principal.package]
        limit = max_length(self._settings, package.name)
        problems: list[dict[str, Any]] = []
        valid: list[NewRule] = []
        for rule in wanted:
            try:
                parsed = parse_rule(rule.value, limit)
            except QueryError as exc:
                problems.append(errors.invalid_rule_item(rule.value, list(exc.messages)))
                continue
            if not package.enterprise_operators:
                kept_back = first_operator(parsed.root, ENTERPRISE_OPERATORS)
                if kept_back is not None:
                    problems.append(errors.invalid_rule_item(rule.value, [operator_not_offered(kept_back)]))
                    continue
            valid.append(rule)
        now = self._clock.now_ms()
        created: list[dict[str, Any]] = []
        async with self._db.transaction() as tx:
            existing = {
                str(row["value"]): int(row["id"])
                for row in await rows.by_values_tx(tx, principal.app_id, [r.value for r in valid])
            }
            fresh: list[NewRule] = []
            for rule in valid:
                if rule.value in existing:
                    problems.append(errors.duplicate_rule_item(str(existing[rule.value]), rule.value))
                    continue
                existing[rule.value] = self._ids.next_id()  # a repeat in the same request is a duplicate
                fresh.append(rule)
            invalid = len(wanted) - len(fresh)
            if invalid == 0:  # one bad rule and none of the request's rules are created
                await self._check_caps(tx, principal, len(fresh))
                created = [
                    {
                        "id": existing[rule.value],
                        "app_id": principal.app_id,
                        "project_id": principal.project_id,
                        "value": rule.value,
                        "tag": rule.tag,
                        "created_at": now,
                    }
                    for rule in fresh
                ]
                if not dry_run:
                    await rows.insert_rules(tx, created)
                    await self._changed(tx, principal.app_id, now)
        summary = {
            "created": len(created),
            "not_created": len(wanted) - len(created),
            "valid": len(fresh),
            "invalid": invalid,
        }
        out: dict[str, Any] = {}
        if created:
            out["data"] = [render_rule(row) for row in created]
        out["meta"] = {"sent": iso_ms(now), "summary": summary}
        if problems:
            out["errors"] = problems
        return out

    async def _check_caps(self, tx: Any, principal: Principal, adding: int) -> None:
        if not adding:
            return
        package = principal.package
        per_app, per_project = app_cap(self._settings, package), project_cap(self._settings, package)
        app_count = await rows.count_of_app_tx(tx, principal.app_id)
        if app_count + adding > per_app:
            raise errors.rule_cap(
                f"Rule creation would exceed the rule cap of {per_app} rules per client app "
                f"({app_count} in use, {adding} requested)."
            )
        project_count = await rows.count_of_project_tx(tx, principal.project_id)
        if project_count + adding > per_project:
            raise errors.rule_cap(
                f"Rule creation would exceed the rule cap of {per_project} rules per project "
                f"({project_count} in use, {adding} requested)."
            )

    # ---- delete ---------------------------------------------------------------------------------

    async def _delete(self, app_id: int, ids: list[int], values: list[str], dry_run: bool) -> dict[str, Any]:
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            by_id = {int(row["id"]) for row in await rows.by_ids_tx(tx, app_id, ids)}
            by_value = {
                str(row["value"]): int(row["id"]) for row in await rows.by_values_tx(tx, app_id, values)
            }
            doomed = list(dict.fromkeys([i for i in ids if i in by_id] + list(by_value.values())))
            missing = [str(i) for i in dict.fromkeys(ids) if i not in by_id]
            missing += [v for v in dict.fromkeys(values) if v not in by_value]
            if doomed and not dry_run:
                await rows.delete_ids(tx, app_id, doomed)
                await self._changed(tx, app_id, now)
        out: dict[str, Any] = {}
        if missing:
            out["errors"] = [errors.rules_not_found(len(missing))]
        out["meta"] = {
            "sent": iso_ms(now),
            "summary": {"deleted": len(doomed), "not_deleted": len(missing)},
        }
        return out

    async def _delete_all(self, app_id: int, dry_run: bool) -> dict[str, Any]:
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            if dry_run:
                deleted = await rows.count_of_app_tx(tx, app_id)
            else:
                deleted = await rows.delete_all(tx, app_id)
                if deleted:
                    await self._changed(tx, app_id, now)
        return {"meta": {"sent": iso_ms(now), "summary": {"deleted": deleted, "not_deleted": 0}}}

    # ---- reads ----------------------------------------------------------------------------------

    async def listing(
        self, app_id: int, ids: list[int] | None, max_results: int, token: PageToken | None
    ) -> dict[str, Any]:
        sent = self._sent()
        meta: dict[str, Any] = {"sent": sent}
        if ids:
            found = await self.store.by_ids(app_id, ids)
            page = found
        else:
            after = token.position(PAGE_SCOPE)[0] if token is not None else 0
            page = await self.store.page_of_app(app_id, after, max_results + 1)
            if len(page) > max_results:
                page = page[:max_results]
                meta["next_token"] = pagination.encode(int(page[-1]["id"]), scope=PAGE_SCOPE)
        meta["result_count"] = len(page)
        body: dict[str, Any] = {}
        if page:
            body["data"] = [render_rule(row) for row in page]
        body["meta"] = meta
        return body

    async def counts(self, principal: Principal, wanted: frozenset[str] | None) -> dict[str, Any]:
        fields = DEFAULT_COUNT_FIELDS if wanted is None else wanted
        per_app = await self.store.counts_by_app(principal.project_id)
        mine = dict(per_app).get(principal.app_id, 0)
        data: dict[str, Any] = {}
        # SPEC 2.167 types the caps and the project count as strings.
        if "all_project_client_apps" in fields:
            data["all_project_client_apps"] = [
                {"client_app_id": str(app), "rule_count": count} for app, count in per_app
            ]
        if "cap_per_client_app" in fields:
            data["cap_per_client_app"] = str(app_cap(self._settings, principal.package))
        if "cap_per_project" in fields:
            data["cap_per_project"] = str(project_cap(self._settings, principal.package))
        if "client_app_rules_count" in fields:
            data["client_app_rules_count"] = {"client_app_id": str(principal.app_id), "rule_count": mine}
        if "project_rules_count" in fields:
            data["project_rules_count"] = str(sum(count for _, count in per_app))
        return {"data": data}
