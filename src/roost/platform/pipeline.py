"""The v2 dialect of the request pipeline (`roost.core.stages` is the skeleton both APIs share).

route → read body → authenticate → auth kind / scopes / permissions → rate limit → parameters →
fields and expansions → handler → render (envelope, includes, partial errors) → headers.
Handlers only see a `Call` and return records or a plain body; every error body comes from
`roost.core.errors`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from roost.config import Settings
from roost.core import errors, jsonio
from roost.core.errors import ParamError
from roost.core.fields import FieldsEngine, Loader, RenderContext, Rendered, Selection
from roost.core.multipart import RawBody
from roost.core.pagination import PageToken
from roost.core.params import (
    Param,
    duplicate_parameter_message,
    empty_parameter_message,
    unknown_parameter_message,
)
from roost.core.principal import Principal
from roost.core.ratelimit import Key, RateLimiter
from roost.core.router import Router
from roost.core.stages import RESOURCES, Outcome, Skeleton, Stages
from roost.core.wire import (
    RawHeaders,
    Receive,
    Scope,
    Stream,
    encode_headers,
    header,
    parse_query,
    read_body_into,
    window_headers,
    window_raw_headers,
)
from roost.platform.operations import APP, DailyCap, Operation, RateLimit

if TYPE_CHECKING:
    from roost.wiring import Domain

DM_ACCESS_LEVEL = "read-write-directmessages"


@dataclass(slots=True)
class Objects:
    """Platform objects for the fields engine to render (`single` → `data` is an object)."""

    records: Sequence[Mapping[str, Any]]
    single: bool = False
    meta: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)
    status: int | None = None


@dataclass(slots=True)
class Reply:
    body: Any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = errors.JSON


@dataclass(slots=True)
class Call:
    op: Operation
    principal: Principal
    params: dict[str, Any]
    body: Any
    selection: Selection | None
    domain: Domain
    now_ms: int
    raw: dict[str, str]  # raw query values by name, for echoing in errors
    client_ip: str | None = None  # the peer's address (streaming connections report it)
    headers: dict[str, str] | None = None  # the request's headers (lower-case names)
    scheme: str = "http"

    @property
    def origin(self) -> str:
        """scheme://host the request was sent to (X-Forwarded-Proto honoured), for URLs roost itself
        serves and hands out (compliance jobs' upload and download URLs); worked out only when asked."""
        headers = self.headers or {}
        host = headers.get("host", "")
        if not host:
            return ""
        scheme = headers.get("x-forwarded-proto", "").split(",")[0].strip() or self.scheme
        return f"{scheme}://{host}"


# The operation a request names and its path parameters.
Route = tuple[Operation, dict[str, str]]
# The rate-limit headers of the windows a request was counted in, kept in its scope between stages.
RATE_HEADERS = "roost.rate_headers"


class Pipeline(Skeleton[Route]):
    """The v2 dialect: the operation table, its authentication kinds, scopes and permissions, the
    platform's rate-limit keys, query parameters and field selection, the envelope and problem bodies."""

    def __init__(
        self,
        stages: Stages,
        settings: Settings,
        domain: Domain,
        operations: Sequence[Operation],
        engine: FieldsEngine,
        loader_for: Callable[[int | None], Loader],  # the loader for a viewer (user id; None: app-only)
    ) -> None:
        super().__init__(stages, [(b"api-version", settings.api_version.encode("latin-1"))])
        self.domain = domain
        self.engine = engine
        self.loader_for = loader_for
        self.router = Router()
        operations = [_with_limits(op, settings.limits.get(op.operation_id)) for op in operations]
        self.operations = operations
        for op in operations:
            self.router.add(op.method, op.path, op)
        self._allowed = {op.operation_id: self._allowed_params(op) for op in operations}
        self._allowed_set = {name: frozenset(allowed) for name, allowed in self._allowed.items()}
        # Query-string results by (operation, raw query): a pure function of both, so a repeated
        # query (the same fields and expansions, another id in the path) is validated once.
        self._queries: dict[tuple[str, bytes], _ParsedQuery] = {}
        self.api_version = settings.api_version
        self._clock = stages.clock
        self._loaders: dict[int | None, Loader] = {}
        self.limiter: RateLimiter = stages.limiter
        self._out_of_credit = domain.ledger.out_of_credit  # a set the ledger keeps up to date

    def _allowed_params(self, op: Operation) -> list[str]:
        names = [p.name for p in op.params]
        if op.returns and op.selectable:
            names.extend(self.engine.parameter_names(op.returns))
        return names

    # ---- the dialect's stages -------------------------------------------------------------------

    def route(self, scope: Scope, headers: dict[str, str]) -> Route:
        match = self.router.match(scope["method"], scope["path"])
        if match is None:
            raise errors.route_not_found()
        return match

    def operation(self, route: Route) -> str:
        return route[0].operation_id

    async def identify(self, route: Route, scope: Scope, headers: dict[str, str], body: bytes) -> Principal:
        principal = await self.authenticate(scope, headers, body, v2=True)
        if principal is None:
            raise errors.unauthorized().because(
                "no credentials: send Authorization with a bearer token, OAuth 1.0a or an OAuth 2.0 token"
            )
        if principal.kind == "oauth1" and principal.user_id is None and "oauth1" in route[0].auth:
            raise errors.unauthorized().because(  # a consumer-only signature names no user
                "OAuth 1.0a without oauth_token names no user; this operation needs a user's token"
            )
        return principal

    async def serve(
        self, route: Route, scope: Scope, headers: dict[str, str], body: bytes, principal: Principal
    ) -> Outcome:
        op, path_params = route
        self._authorize(op, principal)  # after identification: refusals still carry x-access-level
        now_ms = self._clock.now_ms()
        # Kept for the head, which errors raised after this point answer with too.
        scope[RATE_HEADERS] = self._rate_limit(op, principal, now_ms / 1000)
        params, raw, selection = self._parse_params(op, scope.get("query_string", b""), path_params)
        if op.raw_body:
            value: Any = RawBody(headers.get("content-type", ""), body)
        else:
            value = _json_body(headers, body) if op.body and (body or not op.body_optional) else None
        client = scope.get("client")
        call = Call(
            op,
            principal,
            params,
            value,
            selection,
            self.domain,
            now_ms,
            raw,
            client[0] if client else None,
            headers,
            scope.get("scheme", "http"),
        )
        result = await op.handler(call)
        if isinstance(result, Objects):
            assert op.returns is not None and selection is not None
            # Only OAuth 2.0 user tokens carry scopes; other credentials grant none to the renderer.
            scopes = principal.scopes if principal.kind == "oauth2" else _NO_SCOPES
            context = RenderContext(selection.vocab, principal.user_id, _NO_RELATIONS, now_ms, scopes)
            rendered = await self.engine.render(
                op.returns, result.records, selection, self._loader(principal), context
            )
            scope[RESOURCES] = len(result.records)
            return result.status or op.status, _envelope(result, rendered), errors.JSON, _NO_HEADERS
        if isinstance(result, Reply):
            return result.status, result.body, result.content_type, result.headers
        if isinstance(result, Stream):
            return 200, result, result.content_type, result.headers
        return op.status, result, errors.JSON, _NO_HEADERS

    async def read_body(self, route: Route, receive: Receive, headers: dict[str, str]) -> bytes:
        op = route[0]
        if op.raw_body:  # files: read into one buffer, which the handler's parts are views of
            return await read_body_into(receive, headers, op.max_body or self._max_body)
        return await super().read_body(route, receive, headers)

    def head(
        self, route: Route | None, scope: Scope, principal: Principal | None, outcome: Outcome
    ) -> RawHeaders:
        rate: RawHeaders | None = scope.get(RATE_HEADERS)
        if rate is None:
            if route is None or outcome[0] == 401:
                # Live traffic: a 401 carries no rate-limit headers (nobody was identified to count).
                rate = _NO_WINDOW
            else:
                rate = self._unmetered_window(route[0], principal)
        extra = outcome[3]
        if principal is not None and not extra:
            return [header(b"x-access-level", principal.access_level), *rate]  # the common case
        out: RawHeaders = []
        if principal is not None:
            out.append(header(b"x-access-level", principal.access_level))
        if extra:
            # Headers a handler or an error brings replace the pipeline's rate-limit headers of the same name.
            out.extend(pair for pair in rate if pair[0].decode("latin-1") not in extra)
            out.extend(encode_headers(extra))
        else:
            out.extend(rate)
        return out

    # ---- stages ---------------------------------------------------------------------------------

    def _loader(self, principal: Principal) -> Loader:
        """The viewer's loader: it depends on the viewer alone, so one serves all their requests."""
        loader = self._loaders.get(principal.user_id)
        if loader is None:
            if len(self._loaders) >= 10_000:
                self._loaders.clear()
            loader = self._loaders[principal.user_id] = self.loader_for(principal.user_id)
        return loader

    def _authorize(self, op: Operation, principal: Principal) -> None:
        if principal.kind not in op.auth or (principal.kind != APP and principal.user_id is None):
            raise errors.unsupported_authentication(principal.kind, op.auth).because(
                f"{op.operation_id} accepts {', '.join(sorted(op.auth))}; the request used {principal.kind}"
            )
        if principal.app_id in self._out_of_credit:
            raise errors.credits_depleted(principal.project_id).because(
                "the app's credit is spent (GET /_roost/usage; POST /_roost/apps/credit gives more)"
            )
        if principal.package not in op.packages:
            raise errors.client_forbidden(str(principal.app_id)).because(
                f"{op.operation_id} is not in the {principal.package} package: the app needs "
                f"{' or '.join(sorted(op.packages))} (docs/access-levels.md)"
            )
        if principal.kind == "oauth2" and op.scopes:
            missing = [scope for scope in op.scopes if scope not in principal.scopes]
            if missing:
                raise errors.missing_scopes(missing).because(
                    f"{op.operation_id} needs the scopes {' '.join(op.scopes)}; the token lacks "
                    f"{' '.join(missing)} (it has {' '.join(sorted(principal.scopes)) or 'none'})"
                )
        if op.dm and principal.kind == "oauth1" and principal.access_level != DM_ACCESS_LEVEL:
            raise errors.coded(403, 93).because(
                f"{op.operation_id} reads or sends direct messages: the OAuth 1.0a token's access level "
                f"is {principal.access_level}, not {DM_ACCESS_LEVEL}"
            )
        if op.write and principal.kind == "oauth1" and not principal.can_write:
            raise errors.oauth1_permissions().because(
                f"{op.operation_id} writes: the OAuth 1.0a token's access level is {principal.access_level}"
            )

    def _rate_limit(self, op: Operation, principal: Principal, now: float) -> RawHeaders:
        limits = op.rate_limit
        key: Key
        if principal.kind == APP or limits.per_app:
            limit, key = limits.app, (op.operation_id, principal.app_id)
        else:
            limit, key = limits.user, (op.operation_id, principal.app_id, principal.user_id)
        headers: RawHeaders = []
        if limit is not None:
            window, allowed = self.limiter.hit(key, limit, limits.window_s, now)
            if not allowed:
                whose = "the app" if len(key) == 2 else "this user of the app"
                raise errors.too_many_requests(window_headers("x-rate-limit", window)).because(
                    f"rate limit: {op.operation_id} allows {limit} requests per {limits.window_s // 60} "
                    f"minutes to {whose}; the window resets at {window.reset_s} (epoch seconds)"
                )
            headers = window_raw_headers("x-rate-limit", window)
        if op.daily_cap is not None:
            try:
                caps = self._daily_caps(op, principal, now)
            except errors.ApiError as refused:
                # Refused by a 24-hour cap, the request still counted in its 15-minute window: say so.
                refused.headers = {**dict(_decoded(headers)), **refused.headers}
                raise
            headers = headers + encode_headers(caps)
        return headers

    def _unmetered_window(self, op: Operation, principal: Principal | None) -> RawHeaders:
        """Headers for a request refused before it was counted (no or bad credentials, wrong auth kind):
        the caller's window as it stands, so clients that always read the headers find them."""
        limits = op.rate_limit
        user = principal is not None and principal.kind != APP and not limits.per_app
        limit = (limits.user if user else limits.app) or limits.app or limits.user
        if limit is None:
            return []
        key = (op.operation_id, "unmetered", principal.app_id if principal else None)
        return window_raw_headers(
            "x-rate-limit", self.limiter.peek(key, limit, limits.window_s, self._clock.now())
        )

    def _daily_caps(self, op: Operation, principal: Principal, now: float) -> dict[str, str]:
        cap = op.daily_cap
        assert cap is not None
        app_key = ("24h-app", op.operation_id, principal.app_id)
        user_key = ("24h-user", op.operation_id, principal.app_id, principal.user_id)
        app_window = self.limiter.peek(app_key, cap.app, 86_400, now)
        user_window = self.limiter.peek(user_key, cap.user, 86_400, now)
        if self.limiter.enabled and (app_window.remaining <= 0 or user_window.remaining <= 0):
            headers = window_headers("x-app-limit-24hour", app_window)
            headers.update(window_headers("x-user-limit-24hour", user_window))
            which = "app" if app_window.remaining <= 0 else "user"
            raise errors.too_many_requests(headers).because(
                f"24-hour cap: {op.operation_id} allows {cap.app} per app and {cap.user} per user a day; "
                f"the {which} cap is spent"
            )
        app_window, _ = self.limiter.hit(app_key, cap.app, 86_400, now)
        user_window, _ = self.limiter.hit(user_key, cap.user, 86_400, now)
        headers = window_headers("x-app-limit-24hour", app_window)
        headers.update(window_headers("x-user-limit-24hour", user_window))
        return headers

    def _parse_params(
        self, op: Operation, query: bytes, path_params: dict[str, str]
    ) -> tuple[dict[str, Any], dict[str, str], Selection | None]:
        parsed = self._queries.get((op.operation_id, query))
        if parsed is None:
            return self._parse_all(op, query, path_params)
        params = dict(parsed.params)
        for param in parsed.path_params:
            value = path_params.get(param.name)
            if not value:
                return self._parse_all(op, query, path_params)  # which reports the problem
            try:
                params[param.name] = param.kind.parse(param.name, value)
            except ParamError:
                return self._parse_all(op, query, path_params)
        return params, parsed.raw, parsed.selection

    def _parse_all(
        self, op: Operation, query: bytes, path_params: dict[str, str]
    ) -> tuple[dict[str, Any], dict[str, str], Selection | None]:
        raw: dict[str, str] = {}
        problems: list[dict[str, Any]] = []
        allowed = self._allowed_set[op.operation_id]
        for name, value in parse_query(query) if query else ():
            if name.startswith("oauth_") and name != "oauth_token_hint":
                continue  # OAuth 1.0a protocol parameters may travel in the query string
            if name in raw:
                problems.append(
                    errors.param_error(name, [raw[name], value], duplicate_parameter_message(name))
                )
                continue
            if name in path_params:
                problems.extend(_repeated_path_parameter(op, name, path_params[name], value))
                continue
            if name not in allowed:
                message = unknown_parameter_message(name, self._allowed[op.operation_id])
                problems.append(errors.param_error(name, value, message))
                continue
            raw[name] = value
        params: dict[str, Any] = {}
        query_problems = len(problems)
        for param in op.params:
            before = len(problems)
            self._parse_one(
                param, path_params.get(param.name) if param.in_path else raw.get(param.name), params, problems
            )
            if not param.in_path:
                query_problems += len(problems) - before
        selection = None
        if op.returns:
            selection, field_problems = self.engine.parse(op.returns, raw if op.selectable else {})
            query_problems += len(field_problems)
            problems.extend(
                errors.param_error(name, value, message) for name, value, message in field_problems
            )
        if not query_problems:
            self._remember(op, query, raw, params, selection)
        if problems:
            raise errors.invalid_request(problems)
        return params, raw, selection

    @staticmethod
    def _parse_one(
        param: Param, value: str | None, params: dict[str, Any], problems: list[dict[str, Any]]
    ) -> None:
        if value is None or (value == "" and param.required):
            if param.required:
                problems.append(
                    errors.param_error(
                        param.name, [] if value is None else value, empty_parameter_message(param.name)
                    )
                )
            elif param.default is not None:
                params[param.name] = param.default
            return
        try:
            params[param.name] = param.kind.parse(param.name, value)
        except ParamError as exc:
            problems.append(errors.param_error(param.name, value, exc.message))

    def _remember(
        self,
        op: Operation,
        query: bytes,
        raw: dict[str, str],
        params: dict[str, Any],
        selection: Selection | None,
    ) -> None:
        """Keep a valid query's results for the next request with the same query string.

        Only short queries (id lists make long, one-off ones) and only immutable values, since every
        request gets a shallow copy of the parameters."""
        if len(query) > _MEMO_QUERY_BYTES:
            return
        in_path = tuple(param for param in op.params if param.in_path)
        fixed = {name: value for name, value in params.items() if name not in {p.name for p in in_path}}
        if not all(isinstance(value, _IMMUTABLE) for value in fixed.values()):
            return
        if len(self._queries) >= _MEMO_ENTRIES:
            self._queries.clear()
        self._queries[(op.operation_id, query)] = _ParsedQuery(raw, fixed, selection, in_path)


def _decoded(headers: RawHeaders) -> list[tuple[str, str]]:
    return [(name.decode("latin-1"), value.decode("latin-1")) for name, value in headers]


def _repeated_path_parameter(op: Operation, name: str, in_path: str, in_query: str) -> list[dict[str, Any]]:
    """A path parameter given again in the query string: the platform takes both as one parameter
    with two values, so it is a duplicate, and the query's value is also checked on its own."""
    values = [in_path, in_query]
    problems = []
    param = next((p for p in op.params if p.name == name), None)
    if param is not None:
        try:
            param.kind.parse(name, in_query)
        except ParamError:
            problems.append(
                errors.param_error(
                    name, values, f"The `{name}` query parameter value [{in_query}] is not valid"
                )
            )
    problems.append(errors.param_error(name, values, duplicate_parameter_message(name)))
    return problems


def _envelope(result: Objects, rendered: Rendered) -> dict[str, Any]:
    """The response body: data (an object for single lookups), includes, partial errors, meta."""
    body: dict[str, Any] = {}
    if rendered.data:
        body["data"] = rendered.data[0] if result.single else rendered.data
    if rendered.includes:
        body["includes"] = rendered.includes
    if result.errors or rendered.errors:
        body["errors"] = [*result.errors, *rendered.errors]
    if result.meta is not None:
        body["meta"] = result.meta
    return body


@dataclass(frozen=True, slots=True)
class _ParsedQuery:
    raw: dict[str, str]
    params: dict[str, Any]  # parameters from the query string (path parameters are parsed per request)
    selection: Selection | None
    path_params: tuple[Param, ...]


_MEMO_QUERY_BYTES = 512
_MEMO_ENTRIES = 4096
_IMMUTABLE = (str, int, float, bool, frozenset, tuple, PageToken, type(None))
_NO_HEADERS: Mapping[str, str] = MappingProxyType({})
_NO_WINDOW: RawHeaders = []  # never appended to
_NO_SCOPES: frozenset[str] = frozenset()
_NO_RELATIONS: frozenset[tuple[int, int]] = frozenset()
_JSON_TYPE = (b"content-type", errors.JSON.encode())


def _with_limits(op: Operation, override: Mapping[str, int | None] | None) -> Operation:
    """The operation with its rate limits replaced by the configured ones, if any."""
    if not override:
        return op
    base = op.rate_limit
    limit = RateLimit(
        app=override.get("app", base.app),
        user=override.get("user", base.user),
        window_s=override.get("window_s") or base.window_s,
        per_app=base.per_app,
    )
    cap = op.daily_cap
    if cap is not None or "daily_app" in override or "daily_user" in override:
        cap = DailyCap(
            app=override.get("daily_app") or (cap.app if cap else 10_000),
            user=override.get("daily_user") or (cap.user if cap else 2_400),
        )
    return dataclasses.replace(op, rate_limit=limit, daily_cap=cap)


def _json_body(headers: Mapping[str, str], body: bytes) -> Any:
    content_type = headers.get("content-type", "")
    if not content_type.split(";")[0].strip().lower().endswith("json"):
        raise errors.invalid_body("Requests with bodies must have content-type of application/json.")
    if not body:
        raise errors.invalid_body("Request body must not be empty.")
    try:
        return jsonio.loads(body)
    except jsonio.JSONDecodeError:
        raise errors.invalid_body("Request body is not valid JSON.") from None


__all__ = ["Call", "Objects", "Pipeline", "Reply", "Stream"]
