"""The ads surface of the request pipeline.

It runs the same stages as the v2 pipeline (route → read body → authenticate → authorise → rate
limit → parameters → handler → envelope → headers) with the shared router, body reader,
authenticator and rate limiter; what differs is the ads API's own transport and wire format:
parameters from the query string and form body (JSON bodies for batch), unknown parameters
ignored, typed echoes under `request.params`, `{code, message, parameter}` errors, the account in
the path checked against the caller, and per-category rate limits with account-level headers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from roost.ads import errors
from roost.ads.call import AdsCall
from roost.ads.domain import AdsDomain
from roost.ads.operations import (
    ACCOUNT_LIST,
    ACCOUNT_READ,
    ANALYTICS,
    CATALOG,
    ENTITY_READ,
    GLOBAL_READ,
    TV_CATALOG,
    WRITE,
    AdsOperation,
)
from roost.ads.paging import AdsResult
from roost.ads.params import Raw, parse_all
from roost.core import jsonio
from roost.core.errors import ApiError
from roost.core.principal import Principal
from roost.core.ratelimit import Window
from roost.core.records import Row
from roost.core.router import Router
from roost.core.stages import Outcome, Skeleton, Stages, form_pairs
from roost.core.wire import RawHeaders, Receive, Scope, encode_headers, parse_query, read_body, window_headers

JSON = "application/json; charset=utf-8"
CURRENT_VERSION = "12"
SANDBOX_PREFIX = "/sandbox"
_METHODS = ("GET", "POST", "PUT", "DELETE")

# (requests, window in seconds) per category.
CATEGORY_LIMITS: dict[str, tuple[int, int]] = {
    WRITE: (450, 60),
    ENTITY_READ: (10_000, 900),
    ACCOUNT_READ: (2_000, 900),
    ACCOUNT_LIST: (2_000, 900),
    CATALOG: (400, 900),
    TV_CATALOG: (2_000, 900),
    GLOBAL_READ: (5, 900),
    ANALYTICS: (250, 900),
}
TOTAL_COUNT_LIMIT = (200, 900)
WRITE_ROLES = ("ACCOUNT_ADMIN", "AD_MANAGER")


@dataclass(slots=True)
class AdsRoute:
    """The operation a request names, where it was asked (production or sandbox, which version),
    and what the ads stages learn on the way: the echo of its parameters and its extra headers."""

    op: AdsOperation
    path_params: dict[str, str]
    sandbox: bool
    version: str
    echo: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)


class AdsPipeline(Skeleton[AdsRoute]):
    """The ads dialect: parameters from the query string and form body, the account in the path,
    per-category rate limits with account-level headers, the ads envelope and `{code, message}` errors."""

    def __init__(self, stages: Stages, ads: AdsDomain, operations: Sequence[AdsOperation]) -> None:
        super().__init__(stages, [(b"x-current-api-version", CURRENT_VERSION.encode())])
        self.ads = ads
        self.router = Router()
        self.operations = list(operations)
        for op in self.operations:
            for version in op.versions:
                self.router.add(op.method, f"/{version}{op.path}", op)
        self.limiter = stages.limiter
        self._clock = stages.clock

    # ---- the dialect's stages -------------------------------------------------------------------

    def route(self, scope: Scope, headers: dict[str, str]) -> AdsRoute:
        path: str = scope["path"]
        sandbox = headers.get("host", "").startswith("ads-api-sandbox")
        if path.startswith(SANDBOX_PREFIX + "/"):
            sandbox, path = True, path[len(SANDBOX_PREFIX) :]
        method = scope["method"]
        match = self.router.match(method, path)
        if match is None:
            if any(self.router.match(other, path) for other in _METHODS if other != method):
                raise errors.method_not_allowed()
            raise errors.route_not_found()
        op, path_params = match
        for name, value in path_params.items():
            if "\x00" in value:  # no stored id holds one, and text databases refuse them
                raise errors.invalid_parameter(name, f'Expected String, got "{value}" for {name}')
        return AdsRoute(op, path_params, sandbox, path[1:].split("/", 1)[0])

    def known_caller(self, headers: dict[str, str]) -> Principal | None:
        return None  # bearer tokens are refused here (identify says so)

    async def identify(
        self, route: AdsRoute, scope: Scope, headers: dict[str, str], body: bytes
    ) -> Principal:
        authorization = headers.get("authorization") or ""
        if authorization[:7].lower() == "bearer ":
            raise errors.unauthorized()  # the ads API takes OAuth 1.0a user context only
        try:
            principal = await self.authenticate(scope, headers, body, v2=False)
        except ApiError:
            raise errors.unauthorized() from None
        if principal is None or principal.kind != "oauth1" or principal.user_id is None:
            raise errors.unauthorized()
        return principal

    async def serve(
        self, route: AdsRoute, scope: Scope, headers: dict[str, str], body: bytes, principal: Principal
    ) -> Outcome:
        op, path_params, sandbox = route.op, route.path_params, route.sandbox
        raw = self._raw_params(scope, headers, body)
        if op.sandbox_only and not sandbox:
            raise errors.route_not_found()  # production has no such route
        if op.write and not principal.can_write:
            raise errors.readonly_application()
        route.echo = dict(path_params)
        with_deleted = str(raw.get("with_deleted", "")).lower() == "true"
        account, permissions = await self._account(op, principal, path_params, sandbox, with_deleted)
        route.headers = self._rate_limit(op, principal, account, raw)
        params, route.echo, problems = parse_all(op.params, raw, path_params)
        if problems:
            raise errors.AdsError(400, problems)
        json_body = _json_body(headers, body) if op.body == "json" else None
        call = AdsCall(
            principal,
            params,
            route.echo,
            json_body,
            self.ads,
            self._clock.now_ms(),
            sandbox,
            route.version,
            account,
            permissions,
        )
        result = await op.handler(call)
        status, payload = self._envelope(op, call, result)
        return status, payload, JSON, route.headers

    async def read_body(self, route: AdsRoute, receive: Receive, headers: dict[str, str]) -> bytes:
        """The body under the server's cap, or the larger one an operation takes (audience users)."""
        return await read_body(receive, headers, route.op.max_body or self._max_body)

    def operation(self, route: AdsRoute) -> str:
        return route.op.operation_id

    def refused(self, route: AdsRoute | None, scope: Scope, error: ApiError) -> Outcome:
        # Shared stages (body reading, the authenticator) raise the v2 catalogue's errors.
        ads_error = error if isinstance(error, errors.AdsError) else _converted(error)
        payload = ads_error.body
        if not ads_error.echo_given:
            payload["request"] = {"params": route.echo if route is not None else {}}
        headers = dict(route.headers) if route is not None else {}
        headers.update(error.headers)
        return ads_error.status, payload, JSON, headers

    def internal_error(self) -> ApiError:
        return errors.internal_error().with_params({})  # says nothing of the request

    def head(
        self, route: AdsRoute | None, scope: Scope, principal: Principal | None, outcome: Outcome
    ) -> RawHeaders:
        return encode_headers(outcome[3])

    # ---- stages ---------------------------------------------------------------------------------

    @staticmethod
    def _raw_params(scope: Scope, headers: dict[str, str], body: bytes) -> dict[str, Raw]:
        """Query and form parameters by name; a repeated name becomes a list (SDKs repeat list keys)."""
        query = scope.get("query_string", b"")
        pairs = parse_query(query) if query else []
        pairs += form_pairs(headers, body)
        raw: dict[str, Raw] = {}
        for name, value in pairs:
            if name.startswith("oauth_"):
                continue
            current = raw.get(name)
            if current is None:
                raw[name] = value
            elif isinstance(current, list):
                current.append(value)
            else:
                raw[name] = [current, value]
        return raw

    async def _account(
        self,
        op: AdsOperation,
        principal: Principal,
        path_params: dict[str, str],
        sandbox: bool,
        with_deleted: bool,
    ) -> tuple[Row | None, list[str]]:
        if not op.account_scoped:
            return None, []
        assert principal.user_id is not None
        return await self.ads.accounts.access(
            path_params["account_id"],
            principal.user_id,
            sandbox=sandbox,
            deleted_ok=with_deleted and op.method == "GET",
            write_roles=op_roles(op) if op.write else None,
        )

    def _rate_limit(
        self, op: AdsOperation, principal: Principal, account: Row | None, raw: dict[str, Raw]
    ) -> dict[str, str]:
        now = self._clock.now()
        limit, window_s = CATEGORY_LIMITS.get(op.category, (2_000, 900))
        scope_key = op.category if op.category == WRITE else op.operation_id
        counted = str(raw.get("with_total_count", "")).lower() == "true"
        if counted:
            limit, window_s = TOTAL_COUNT_LIMIT
            scope_key = "with_total_count"
        user_key = ("ads", scope_key, principal.app_id, principal.user_id)
        window, allowed = self.limiter.hit(user_key, limit, window_s, now)
        headers = window_headers("x-rate-limit", window)
        if account is not None and op.method == "GET":
            account_key = ("ads-account", scope_key, account["id"])
            account_window: Window
            account_window, account_allowed = self.limiter.hit(account_key, limit, window_s, now)
            headers.update(window_headers("x-account-rate-limit", account_window))
            allowed = allowed and account_allowed
        if not allowed:
            raise errors.too_many_requests(headers)
        return headers

    @staticmethod
    def _envelope(op: AdsOperation, call: AdsCall, result: Any) -> tuple[int, dict[str, Any]]:
        if not isinstance(result, AdsResult):
            result = AdsResult(result)
        payload: dict[str, Any] = {
            "request": result.request if result.request is not None else {"params": call.echo}
        }
        payload.update(result.extra)
        if result.paged or op.paginated:
            payload["next_cursor"] = result.next_cursor
        if result.total_count is not None:
            payload["total_count"] = result.total_count
        if not result.without_data:
            payload["data"] = result.data
        return result.status or op.status, payload


def op_roles(op: AdsOperation) -> tuple[str, ...]:
    return op.roles or WRITE_ROLES


def _json_body(headers: dict[str, str], body: bytes) -> Any:
    content_type = headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise errors.invalid_parameter(None, "Content-Type must be application/json")
    if not body:
        raise errors.invalid_json("Request body must not be empty")
    try:
        return jsonio.loads(body)
    except jsonio.JSONDecodeError:
        raise errors.invalid_json() from None


def _converted(error: ApiError) -> errors.AdsError:
    if error.status == 413:
        return errors.payload_too_large()
    if error.status == 401:
        return errors.unauthorized()
    if error.status == 429:
        return errors.too_many_requests(error.headers)
    return errors.AdsError(error.status, [errors.item("INVALID_PARAMETER", str(error))])
