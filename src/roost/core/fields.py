"""The one fields-and-expansions engine, shared by every operation that returns platform objects.

Object kinds (tweet, user, media, poll, place, ...) and their expansions are declared elsewhere
(`roost.domain.objects`); this module parses `*.fields` / `expansions`, loads what expansions
reference in one batch per kind, renders each object with its selected fields in the request's
vocabulary, and reports referenced objects that do not exist as partial errors.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any, Protocol

from roost.core.errors import ParamError, not_authorized_for_resource_item, resource_not_found_item

Row = Mapping[str, Any]
TWEET_VOCAB = "tweet"
POST_VOCAB = "post"


@dataclass(slots=True)
class RenderContext:
    vocab: str = TWEET_VOCAB
    viewer_id: int | None = None
    # (follower, followee) pairs between the viewer and rendered users, for connection_status.
    relations: AbstractSet[tuple[int, int]] = frozenset()
    now_ms: int = 0
    # What the viewer's credential grants, as OAuth 2.0 scope names; filled by the caller (the
    # request pipeline), empty when the credential grants none (app-only, OAuth 1.0a, exports).
    scopes: frozenset[str] = frozenset()


Renderer = Callable[[Row, Sequence[str], RenderContext], dict[str, Any]]
BoundRenderer = Callable[[Row, RenderContext], dict[str, Any]]  # a renderer with its field names fixed


@dataclass(frozen=True)
class ObjectKind:
    name: str
    resource_type: str
    params: tuple[str, ...]  # query parameter names selecting its fields (first is canonical)
    fields: tuple[str, ...]  # every accepted field name, both vocabularies, alphabetical
    aliases: Mapping[str, str]  # field name of the post vocabulary -> canonical name
    defaults: tuple[str, ...]
    include_keys: Mapping[str, str]  # vocabulary -> key under `includes`
    render: Renderer
    key: Callable[[Row], Any]  # identity used to de-duplicate includes and match lookups
    post_vocab_fields: frozenset[str] = frozenset()  # names whose use implies the post vocabulary
    # Storage columns the renderer reads for each field, and those it always reads; lookups of the
    # primary objects fetch only what the selection needs. Empty: every column is read.
    columns: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    base_columns: tuple[str, ...] = ()
    # Objects some viewers may not see (the loader's `denied` is asked about loaded ones).
    restricted: bool = False
    # Optional: a renderer specialised for one field selection and vocabulary (the per-field dispatch
    # decided once per selection instead of per object); the engine uses it when present.
    compile: Callable[[tuple[str, ...], str], BoundRenderer] | None = None


@dataclass(frozen=True, eq=False)  # compared by identity: cheap, and each is declared once
class Expansion:
    name: str
    target: str  # kind name
    refs: Callable[[Row], Iterable[Any]]
    lookup: str = "id"  # how the loader finds targets: id | username | key
    via_referenced: bool = False  # read from the posts referenced by the primary posts
    parameter: str = ""  # the name reported in not-found errors (defaults to the expansion name)
    aliases: tuple[str, ...] = ()
    # Fields of the source kind the expansion brings along (`expansions=author_id` adds `author_id`).
    implies: tuple[str, ...] = ()
    # Columns of the primary rows `refs` reads (via_referenced: those naming the referenced posts);
    # None: not declared, so primary lookups read every column when the expansion is asked for.
    columns: tuple[str, ...] | None = None
    batch: tuple[str, str] = field(init=False)  # (target, lookup): expansions sharing it load together

    def __post_init__(self) -> None:
        object.__setattr__(self, "batch", (self.target, self.lookup))


class Loader(Protocol):
    async def load(self, kind: str, lookup: str, keys: list[Any]) -> Mapping[Any, Row]: ...

    def known(self, kind: str, lookup: str, keys: list[Any]) -> Mapping[Any, Row] | None:
        """The objects from in-process caches alone when all of them are there (no await), else None."""
        ...

    async def relations(self, viewer_id: int, user_ids: list[int]) -> set[tuple[int, int]]: ...

    async def denied(self, kind: str, rows: Mapping[Any, Row]) -> set[Any]:
        """Keys of loaded objects the viewer may not see (reported as not-authorized-for-resource)."""
        ...


@dataclass(frozen=True)
class Selection:
    vocab: str
    fields: Mapping[str, tuple[str, ...]]  # kind -> canonical names, defaults included
    expansions: tuple[Expansion, ...]
    # Storage columns the primary objects need for these fields and expansions (None: all of them).
    columns: tuple[str, ...] | None = None
    via_referenced: bool = field(init=False)  # some expansion reads the posts the primary ones reference
    connection_status: bool = field(init=False)  # user objects show the viewer's relation to them
    # Kind -> renderer bound to this selection's fields and vocabulary; filled by the engine on first use.
    renderers: dict[str, BoundRenderer] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "via_referenced", any(e.via_referenced for e in self.expansions))
        object.__setattr__(self, "connection_status", "connection_status" in self.fields.get("user", ()))

    def of(self, kind: str) -> tuple[str, ...]:
        return self.fields[kind]


@dataclass(slots=True)
class Rendered:
    data: Any
    includes: dict[str, list[dict[str, Any]]]
    errors: list[dict[str, Any]]


class FieldsEngine:
    def __init__(self, kinds: Sequence[ObjectKind], expansions: Mapping[str, Sequence[Expansion]]) -> None:
        self.kinds = {kind.name: kind for kind in kinds}
        self.expansions = expansions
        self._by_param = {param: kind for kind in kinds for param in kind.params}
        self._expansion_names: dict[str, dict[str, Expansion]] = {}
        for primary, items in expansions.items():
            names: dict[str, Expansion] = {}
            for item in items:
                names[item.name] = item
                for alias in item.aliases:
                    names[alias] = item
            self._expansion_names[primary] = names
        self._defaults = {kind.name: kind.defaults for kind in kinds}
        self._selection_params = frozenset(self._by_param) | {"expansions"}
        self._parsed: dict[tuple[Any, ...], tuple[Selection, list[tuple[str, str, str]]]] = {}
        self._default_selections = {
            kind.name: Selection(TWEET_VOCAB, self._defaults, (), self._columns(kind, kind.defaults, ()))
            for kind in kinds
        }

    # ---- parameters ----------------------------------------------------------------------------

    def parameter_names(self, primary: str) -> list[str]:
        """Query parameters an operation returning `primary` objects accepts, in the platform's order."""
        names = ["expansions"] if self.expansions.get(primary) else []
        kinds = self.related_kinds(primary)
        for kind in kinds:
            names.append(self.kinds[kind].params[0])
        for kind in kinds:
            names.extend(self.kinds[kind].params[1:])
        return names

    def related_kinds(self, primary: str) -> list[str]:
        """The primary kind and every kind its expansions reach, in the declared order of kinds."""
        reached = {primary} | {expansion.target for expansion in self.expansions.get(primary, ())}
        return [name for name in self.kinds if name in reached]

    def expansion_names(self, primary: str) -> list[str]:
        names: list[str] = []
        for expansion in self.expansions.get(primary, ()):
            names.append(expansion.name)
        for expansion in self.expansions.get(primary, ()):
            names.extend(alias for alias in expansion.aliases if alias not in names)
        return names

    def parse(self, primary: str, query: Mapping[str, str]) -> tuple[Selection, list[tuple[str, str, str]]]:
        """Selection for the request plus (parameter, raw value, message) for each bad parameter.

        Results depend only on the selection parameters, so they are memoised (bounded).
        """
        key = (primary, *(item for item in query.items() if item[0] in self._selection_params))
        hit = self._parsed.get(key)
        if hit is None:
            if len(self._parsed) >= 4096:
                self._parsed.clear()
            hit = self._parse(primary, query)
            self._parsed[key] = hit
        return hit[0], list(hit[1])

    def _parse(self, primary: str, query: Mapping[str, str]) -> tuple[Selection, list[tuple[str, str, str]]]:
        problems: list[tuple[str, str, str]] = []
        if not any(name in query for name in self._by_param) and "expansions" not in query:
            return self._default_selections[primary], problems
        vocab = TWEET_VOCAB
        chosen: dict[str, list[str]] = {}
        allowed_kinds = self.related_kinds(primary)
        for param, raw in query.items():
            kind = self._by_param.get(param)
            if kind is None or kind.name not in allowed_kinds:
                continue
            if param != kind.params[0]:
                vocab = POST_VOCAB
            try:
                names = self._parse_fields(kind, param, raw)
            except ParamError as exc:
                problems.append((param, raw, exc.message))
                continue
            if any(item in kind.post_vocab_fields for item in raw.split(",")):
                vocab = POST_VOCAB
            bucket = chosen.setdefault(kind.name, [])
            bucket.extend(name for name in names if name not in bucket)
        expansions: list[Expansion] = []
        raw_expansions = query.get("expansions")
        if raw_expansions is not None:
            # Either vocabulary's expansion names are accepted, but they do not choose the answer's
            # vocabulary (measured live: `expansions=referenced_posts` alone answers in tweet names).
            by_name = self._expansion_names.get(primary, {})
            for item in raw_expansions.split(","):
                expansion = by_name.get(item)
                if expansion is None:
                    # Live traffic: a request in tweet names is told the tweet names only (the post
                    # ones are still accepted); one in post names gets roost's whole list.
                    names = self.expansion_names(primary)
                    if vocab == TWEET_VOCAB:
                        names = [expansion.name for expansion in self.expansions.get(primary, ())]
                    allowed = ",".join(names)
                    message = f"The `expansions` query parameter value [{item}] is not one of [{allowed}]"
                    problems.append(("expansions", raw_expansions, message))
                    break
                if expansion not in expansions:
                    expansions.append(expansion)
        source = chosen.setdefault(primary, [])
        for expansion in expansions:
            source.extend(name for name in expansion.implies if name not in source)
        fields: dict[str, tuple[str, ...]] = {}
        for name, kind in self.kinds.items():
            extra = chosen.get(name, [])
            ordered = list(kind.defaults) + [f for f in kind.fields if f in extra and f not in kind.defaults]
            fields[name] = tuple(dict.fromkeys(ordered))
        # Declaration order, so rendering can walk the selection alone.
        declared = self.expansions.get(primary, ())
        in_order = tuple(expansion for expansion in declared if expansion in expansions)
        columns = self._columns(self.kinds[primary], fields[primary], in_order)
        return Selection(vocab, fields, in_order, columns), problems

    @staticmethod
    def _columns(
        kind: ObjectKind, names: Iterable[str], expansions: Iterable[Expansion]
    ) -> tuple[str, ...] | None:
        if not kind.columns:
            return None
        needed = dict.fromkeys(kind.base_columns)
        for name in names:
            columns = kind.columns.get(name)
            if columns is None:
                return None
            needed.update(dict.fromkeys(columns))
        for expansion in expansions:
            if expansion.columns is None:
                return None
            needed.update(dict.fromkeys(expansion.columns))
        return tuple(needed)

    def _parse_fields(self, kind: ObjectKind, param: str, raw: str) -> list[str]:
        names: list[str] = []
        for item in raw.split(","):
            canonical = kind.aliases.get(item, item)
            if item not in kind.fields and canonical not in kind.fields:
                raise ParamError(
                    f"The `{param}` query parameter value [{item}] is not one of [{','.join(kind.fields)}]"
                )
            names.append(canonical)
        return names

    # ---- rendering -----------------------------------------------------------------------------

    async def render(
        self,
        primary: str,
        records: Sequence[Row],
        selection: Selection,
        loader: Loader,
        context: RenderContext,
    ) -> Rendered:
        includes: dict[str, dict[Any, Row]] = {}
        errors: list[dict[str, Any]] = []
        if selection.expansions:
            referenced: dict[Any, Row] = _NO_ROWS
            if selection.via_referenced:
                referenced = await self._load_referenced(primary, records, loader)
            for (target, lookup), wanted in _wanted(selection.expansions, records, referenced).items():
                kind = self.kinds[target]
                by_name = lookup == "username"  # usernames match case-insensitively
                keys = _keys(wanted, by_name)
                found: Mapping[Any, Row]
                if target == primary and lookup == "id" and referenced:
                    from_referenced = {k: referenced[k] for k in keys if k in referenced}
                    missing = [k for k in keys if k not in from_referenced]
                    if missing:
                        from_referenced.update(await loader.load(target, lookup, missing))
                    found = from_referenced
                else:
                    cached = loader.known(target, lookup, keys)
                    found = cached if cached is not None else await loader.load(target, lookup, keys)
                denied = await loader.denied(target, found) if kind.restricted and found else _NONE
                _collect(kind, by_name, wanted, found, denied, includes.setdefault(target, {}), errors)
        if context.viewer_id is not None and selection.connection_status:
            user_ids = [row["id"] for row in includes.get("user", {}).values()]
            if primary == "user":
                user_ids.extend(row["id"] for row in records)
            context.relations = await loader.relations(context.viewer_id, user_ids)

        # Plain loops: a comprehension costs a function call of its own on Python 3.11, and most
        # responses hold one object or a few.
        vocab = context.vocab
        bound = selection.renderers if vocab == selection.vocab else {}
        render = bound.get(primary) or self.renderer(self.kinds[primary], selection, vocab)
        data: list[dict[str, Any]] = []
        for row in records:
            data.append(render(row, context))
        rendered_includes: dict[str, list[dict[str, Any]]] = {}
        for target, rows in includes.items():
            if rows:
                kind = self.kinds[target]
                render = bound.get(target) or self.renderer(kind, selection, vocab)
                objects = rendered_includes[kind.include_keys[vocab]] = []
                for row in rows.values():
                    objects.append(render(row, context))
        return Rendered(data, rendered_includes, errors)

    @staticmethod
    def renderer(kind: ObjectKind, selection: Selection, vocab: str) -> BoundRenderer:
        """The kind's renderer bound to the selection's fields for `kind`, made once per selection (for
        the selection's own vocabulary, the one every request renders in)."""
        if vocab == selection.vocab:
            bound = selection.renderers.get(kind.name)
            if bound is not None:
                return bound
        names = selection.fields[kind.name]
        bound = kind.compile(names, vocab) if kind.compile is not None else _bind(kind.render, names)
        if vocab == selection.vocab:
            selection.renderers[kind.name] = bound
        return bound

    async def _load_referenced(self, primary: str, records: Sequence[Row], loader: Loader) -> dict[Any, Row]:
        refs: list[Any] = []
        for expansion in self.expansions.get(primary, ()):
            if expansion.name == "referenced_tweets.id":
                for record in records:
                    refs.extend(expansion.refs(record))
        if not refs:
            return {}
        found = await loader.load(primary, "id", list(dict.fromkeys(refs)))
        # Posts the viewer may not see lend nothing (authors, media) to other expansions.
        denied = await loader.denied(primary, found)
        return {key: row for key, row in found.items() if key not in denied}


_NONE: frozenset[Any] = frozenset()
_NO_ROWS: dict[Any, Row] = {}  # never written to


def _wanted(
    expansions: Sequence[Expansion], records: Sequence[Row], referenced: dict[Any, Row]
) -> dict[tuple[str, str], list[tuple[Expansion, Any]]]:
    """What the expansions refer to, batched by (target kind, lookup) in the order the expansions
    first refer to one (the selection lists expansions in declaration order)."""
    pending: dict[tuple[str, str], list[tuple[Expansion, Any]]] = {}
    for expansion in expansions:
        refs = expansion.refs
        for record in referenced.values() if expansion.via_referenced else records:
            found_refs = refs(record)
            if found_refs:
                wanted = pending.get(expansion.batch)
                if wanted is None:
                    wanted = pending[expansion.batch] = []
                for ref in found_refs:
                    wanted.append((expansion, ref))
    return pending


def _bind(render: Renderer, names: tuple[str, ...]) -> BoundRenderer:
    return lambda row, context: render(row, names, context)


def _keys(wanted: list[tuple[Expansion, Any]], by_name: bool) -> list[Any]:
    """The distinct keys to load, in order of first reference."""
    if len(wanted) == 1:
        ref = wanted[0][1]
        return [ref.lower() if by_name else ref]
    return list(dict.fromkeys([ref.lower() if by_name else ref for _, ref in wanted]))


def _collect(
    kind: ObjectKind,
    by_name: bool,
    wanted: list[tuple[Expansion, Any]],
    found: Mapping[Any, Row],
    denied: AbstractSet[Any],
    bucket: dict[Any, Row],
    errors: list[dict[str, Any]],
) -> None:
    """Put the loaded objects in `bucket` once each; report each missing or hidden reference once."""
    reported: set[tuple[str, Any]] | None = None
    key_of = kind.key
    for expansion, ref in wanted:
        key = ref.lower() if by_name else ref
        row = found.get(key)
        if row is not None and key not in denied:
            # Loaders key what they find by id or media key, which is the kind's identity already;
            # only objects found by username need theirs looked up.
            bucket.setdefault(key_of(row) if by_name else key, row)
            continue
        parameter = expansion.parameter or expansion.name
        if reported is None:
            reported = set()
        elif (parameter, ref) in reported:
            continue
        reported.add((parameter, ref))
        if row is None:
            errors.append(resource_not_found_item(kind.resource_type, parameter, str(ref)))
        else:
            errors.append(
                not_authorized_for_resource_item(kind.resource_type, parameter, str(ref), "includes")
            )
