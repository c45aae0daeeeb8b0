"""The one request pipeline every operation goes through.

route → read body → authenticate → auth kind / scopes / permissions → rate limit → parameters →
fields and expansions → handler → render (envelope, includes, partial errors) → headers.
Handlers only see a `Call` and return records or a plain body; every error body comes from
`roost.core.errors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from roost.auth.principals import Authenticator, Principal, RequestAuth
from roost.core import errors, jsonio
from roost.core.fields import FieldsEngine, Loader, RenderContext, Selection
from roost.core.operations import APP, DailyCap, Operation, RateLimit
from roost.core.params import (
    ParamError,
    duplicate_parameter_message,
    empty_parameter_message,
    unknown_parameter_message,
)
from roost.core.ratelimit import RateLimiter, Window
from roost.core.router import Router

if TYPE_CHECKING:
    from roost.services import Services

log = logging.getLogger("roost.pipeline")

DM_ACCESS_LEVEL = "read-write-directmessages"

ASGIApp = Callable[[dict, Callable, Callable], Awaitable[None]]
_FORM = "application/x-www-form-urlencoded"


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
class Stream:
    """A streaming 200: each chunk is sent as `chunks` yields it; the iterator's `aclose` (if it has
    one) runs when it ends or the client goes away."""

    chunks: AsyncIterator[bytes]
    content_type: str = errors.JSON
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class Call:
    op: Operation
    principal: Principal
    params: dict[str, Any]
    body: Any
    selection: Selection | None
    services: Services
    now_ms: int
    raw: dict[str, str]  # raw query values by name, for echoing in errors
    client_ip: str | None = None  # the peer's address (streaming connections report it)


@dataclass(slots=True)
class _Request:
    scope: dict
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    query_pairs: list[tuple[str, str]]


class Pipeline:
    def __init__(
        self,
        services: Services,
        operations: Sequence[Operation],
        engine: FieldsEngine,
        loader_factory: Callable[[Principal], Loader],
        fallback: ASGIApp | None = None,
        fallback_prefixes: tuple[str, ...] = ("/_roost",),
    ) -> None:
        self.services = services
        self.engine = engine
        self.loader_factory = loader_factory
        self.fallback = fallback
        self.fallback_prefixes = fallback_prefixes
        self.router = Router()
        operations = [_with_limits(op, services.settings.limits.get(op.operation_id)) for op in operations]
        self.operations = operations
        for op in operations:
            self.router.add(op.method, op.path, op)
        self._allowed = {op.operation_id: self._allowed_params(op) for op in operations}
        settings = services.settings
        self.api_version = settings.api_version
        self.max_body = settings.max_body_bytes
        self.limiter: RateLimiter = services.rate_limiter
        self.auth: Authenticator = services.authenticator

    def _allowed_params(self, op: Operation) -> list[str]:
        names = [p.name for p in op.params]
        if op.returns and op.selectable:
            names.extend(self.engine.parameter_names(op.returns))
        return names

    # ---- ASGI -----------------------------------------------------------------------------------

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            if self.fallback is not None:
                await self.fallback(scope, receive, send)
            return
        path: str = scope["path"]
        match = self.router.match(scope["method"], path)
        if match is None:
            if self.fallback is not None and path.startswith(self.fallback_prefixes):
                await self.fallback(scope, receive, send)
                return
            error = errors.route_not_found()
            await send_response(
                send, error.status, jsonio.dumps(error.body), error.content_type, self._base_headers(None)
            )
            return
        op, path_params = match
        started = time.perf_counter()
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        rate_headers: dict[str, str] = {}
        principal: Principal | None = None
        try:
            body = await read_body(receive, headers, self.max_body)
            query = scope.get("query_string", b"")
            pairs = parse_query(query) if query else []
            request = _Request(scope, scope["method"], path, headers, body, pairs)
            principal = await self._authenticate(op, request)
            self._authorize(op, principal)  # after identification: refusals still carry x-access-level
            rate_headers = self._rate_limit(op, principal)
            status, payload, content_type, extra = await self._run(op, request, principal, path_params)
        except errors.ApiError as error:
            status, payload, content_type, extra = error.status, error.body, error.content_type, error.headers
        except Exception:
            log.exception("unhandled error in %s %s", scope["method"], path)
            error = errors.internal_error()
            status, payload, content_type, extra = error.status, error.body, error.content_type, {}
        out = self._base_headers(principal)
        out.update(rate_headers or self._unmetered_window(op, principal))
        out.update(extra)
        out["x-response-time"] = str(int((time.perf_counter() - started) * 1000))
        if isinstance(payload, Stream):
            await _stream(send, receive, status, payload, out)
            return
        data = payload if isinstance(payload, bytes) else jsonio.dumps(payload)
        await send_response(send, status, data, content_type, out)

    def _base_headers(self, principal: Principal | None) -> dict[str, str]:
        # Correlation ids need uniqueness, not secrecy.
        headers = {"api-version": self.api_version, "x-transaction-id": f"{random.getrandbits(64):016x}"}
        if principal is not None:
            headers["x-access-level"] = principal.access_level
        return headers

    # ---- stages ---------------------------------------------------------------------------------

    async def _authenticate(self, op: Operation, request: _Request) -> Principal:
        headers = request.headers
        authorization = headers.get("authorization")
        if authorization is not None and authorization[:7].lower() == "bearer ":
            return await self.auth.bearer(authorization[7:].strip())  # the common case, kept short
        form_pairs: list[tuple[str, str]] = []
        if request.body and headers.get("content-type", "").startswith(_FORM):
            form_pairs = parse_qsl(request.body.decode("utf-8", "replace"), keep_blank_values=True)
        auth_request = RequestAuth(
            method=request.method,
            scheme=request.scope.get("scheme", "http"),
            host=headers.get("host", ""),
            path=request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0] or request.path,
            authorization=headers.get("authorization"),
            forwarded_proto=headers.get("x-forwarded-proto"),
            query_pairs=request.query_pairs,
            form_pairs=form_pairs,
        )
        principal = await self.auth.authenticate(auth_request, v2=op.path.startswith("/2/"))
        if principal is None:
            raise errors.unauthorized()
        if principal.kind == "oauth1" and principal.user_id is None and "oauth1" in op.auth:
            raise errors.unauthorized()  # a consumer-only signature names no user
        return principal

    def _authorize(self, op: Operation, principal: Principal) -> None:
        if principal.kind not in op.auth or (principal.kind != APP and principal.user_id is None):
            raise errors.unsupported_authentication(principal.kind, op.auth)
        if principal.kind == "oauth2" and op.scopes:
            missing = [scope for scope in op.scopes if scope not in principal.scopes]
            if missing:
                raise errors.missing_scopes(missing)
        if op.dm and principal.kind == "oauth1" and principal.access_level != DM_ACCESS_LEVEL:
            raise errors.coded(403, 93)
        if op.write and principal.kind == "oauth1" and not principal.can_write:
            raise errors.oauth1_permissions()

    def _rate_limit(self, op: Operation, principal: Principal) -> dict[str, str]:
        now = self.services.clock.now()
        limits = op.rate_limit
        if principal.kind == APP:
            limit, key = limits.app, (op.operation_id, principal.app_id)
        else:
            limit, key = limits.user, (op.operation_id, principal.app_id, principal.user_id)
        headers: dict[str, str] = {}
        allowed = True
        if limit is not None:
            window, allowed = self.limiter.hit(key, limit, limits.window_s, now)
            headers = window_headers("x-rate-limit", window)
        if op.daily_cap is not None and allowed:
            headers.update(self._daily_caps(op, principal, now))
        if not allowed:
            raise errors.too_many_requests(headers)
        return headers

    def _unmetered_window(self, op: Operation, principal: Principal | None) -> dict[str, str]:
        """Headers for a request refused before it was counted (no or bad credentials, wrong auth kind):
        the caller's window as it stands, so clients that always read the headers find them."""
        limits = op.rate_limit
        user = principal is not None and principal.kind != APP
        limit = (limits.user if user else limits.app) or limits.app or limits.user
        if limit is None:
            return {}
        key = (op.operation_id, "unmetered", principal.app_id if principal else None)
        return window_headers(
            "x-rate-limit", self.limiter.peek(key, limit, limits.window_s, self.services.clock.now())
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
            raise errors.too_many_requests(headers)
        app_window, _ = self.limiter.hit(app_key, cap.app, 86_400, now)
        user_window, _ = self.limiter.hit(user_key, cap.user, 86_400, now)
        headers = window_headers("x-app-limit-24hour", app_window)
        headers.update(window_headers("x-user-limit-24hour", user_window))
        return headers

    def _parse_params(
        self, op: Operation, request: _Request, path_params: dict[str, str]
    ) -> tuple[dict[str, Any], dict[str, str], Selection | None]:
        pairs = request.query_pairs
        raw: dict[str, str] = {}
        problems: list[dict[str, Any]] = []
        allowed = self._allowed[op.operation_id]
        for name, value in pairs:
            if name.startswith("oauth_") and name != "oauth_token_hint":
                continue  # OAuth 1.0a protocol parameters may travel in the query string
            if name in raw:
                problems.append(
                    errors.param_error(name, [raw[name], value], duplicate_parameter_message(name))
                )
                continue
            if name not in allowed:
                problems.append(errors.param_error(name, value, unknown_parameter_message(name, allowed)))
                continue
            raw[name] = value
        params: dict[str, Any] = {}
        for param in op.params:
            value = path_params.get(param.name) if param.in_path else raw.get(param.name)
            if value is None or (value == "" and param.required):
                if param.required:
                    problems.append(
                        errors.param_error(
                            param.name, [] if value is None else value, empty_parameter_message(param.name)
                        )
                    )
                elif param.default is not None:
                    params[param.name] = param.default
                continue
            try:
                params[param.name] = param.kind.parse(param.name, value)
            except ParamError as exc:
                problems.append(errors.param_error(param.name, value, exc.message))
        selection = None
        if op.returns:
            selection, field_problems = self.engine.parse(op.returns, raw if op.selectable else {})
            problems.extend(
                errors.param_error(name, value, message) for name, value, message in field_problems
            )
        if problems:
            raise errors.invalid_request(problems)
        return params, raw, selection

    async def _run(
        self, op: Operation, request: _Request, principal: Principal, path_params: dict[str, str]
    ) -> tuple[int, Any, str, dict[str, str]]:
        params, raw, selection = self._parse_params(op, request, path_params)
        body = _json_body(request) if op.body and (request.body or not op.body_optional) else None
        now_ms = self.services.clock.now_ms()
        client = request.scope.get("client")
        call = Call(
            op, principal, params, body, selection, self.services, now_ms, raw, client[0] if client else None
        )
        result = await op.handler(call)
        if isinstance(result, Objects):
            assert op.returns is not None and selection is not None
            return result.status or op.status, await self._render(op, call, result), errors.JSON, {}
        if isinstance(result, Reply):
            return result.status, result.body, result.content_type, result.headers
        if isinstance(result, Stream):
            return 200, result, result.content_type, result.headers
        return op.status, result, errors.JSON, {}

    async def _render(self, op: Operation, call: Call, result: Objects) -> dict[str, Any]:
        assert call.selection is not None and op.returns is not None
        principal = call.principal
        # Only OAuth 2.0 user tokens carry scopes; other credentials grant none to the renderer.
        scopes = principal.scopes if principal.kind == "oauth2" else frozenset()
        context = RenderContext(call.selection.vocab, principal.user_id, now_ms=call.now_ms, scopes=scopes)
        rendered = await self.engine.render(
            op.returns, result.records, call.selection, self.loader_factory(call.principal), context
        )
        body: dict[str, Any] = {}
        if rendered.data:
            body["data"] = rendered.data[0] if result.single else rendered.data
        if rendered.includes:
            body["includes"] = rendered.includes
        problems = list(result.errors) + rendered.errors
        if problems:
            body["errors"] = problems
        if result.meta is not None:
            body["meta"] = result.meta
        return body


def _with_limits(op: Operation, override: Mapping[str, int | None] | None) -> Operation:
    """The operation with its rate limits replaced by the configured ones, if any."""
    if not override:
        return op
    base = op.rate_limit
    limit = RateLimit(
        app=override.get("app", base.app),
        user=override.get("user", base.user),
        window_s=override.get("window_s") or base.window_s,
    )
    cap = op.daily_cap
    if cap is not None or "daily_app" in override or "daily_user" in override:
        cap = DailyCap(
            app=override.get("daily_app") or (cap.app if cap else 10_000),
            user=override.get("daily_user") or (cap.user if cap else 2_400),
        )
    return dataclasses.replace(op, rate_limit=limit, daily_cap=cap)


def parse_query(raw: bytes) -> list[tuple[str, str]]:
    """Query-string pairs, decoded as UTF-8 (invalid bytes replaced so they can be echoed in errors).

    The same result as `parse_qsl(..., keep_blank_values=True)`, without its cost for the plain
    `name=value&...` strings most requests send.
    """
    text = raw.decode("utf-8", "replace")
    if "%" in text or "+" in text or ";" in text:
        return parse_qsl(text, keep_blank_values=True)
    pairs = []
    for part in text.split("&"):
        if part:
            name, _, value = part.partition("=")
            pairs.append((name, value))
    return pairs


def window_headers(prefix: str, window: Window) -> dict[str, str]:
    return {
        f"{prefix}-limit": str(window.limit),
        f"{prefix}-remaining": str(max(window.remaining, 0)),
        f"{prefix}-reset": str(window.reset_s),
    }


async def read_body(receive: Callable, headers: dict[str, str], limit: int) -> bytes:
    declared = headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise errors.payload_too_large()
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise errors.payload_too_large()
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _json_body(request: _Request) -> Any:
    content_type = request.headers.get("content-type", "")
    if not content_type.split(";")[0].strip().lower().endswith("json"):
        raise errors.invalid_body("Requests with bodies must have content-type of application/json.")
    if not request.body:
        raise errors.invalid_body("Request body must not be empty.")
    try:
        return jsonio.loads(request.body)
    except jsonio.JSONDecodeError:
        raise errors.invalid_body("Request body is not valid JSON.") from None


async def send_response(
    send: Callable, status: int, body: bytes, content_type: str, headers: Mapping[str, str]
) -> None:
    raw_headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
    raw_headers.extend((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items())
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


async def _stream(
    send: Callable, receive: Callable, status: int, stream: Stream, headers: Mapping[str, str]
) -> None:
    """Send a streaming body; a client disconnect ends it quietly and closes the iterator."""
    raw_headers = [(b"content-type", stream.content_type.encode())]
    raw_headers.extend((k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items())

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(disconnected())
    step: asyncio.Future[bytes] | None = None
    iterator = stream.chunks.__aiter__()
    try:
        await send({"type": "http.response.start", "status": status, "headers": raw_headers})
        while True:
            step = asyncio.ensure_future(iterator.__anext__())
            await asyncio.wait({step, watcher}, return_when=asyncio.FIRST_COMPLETED)
            if not step.done():
                break  # the client went away while the stream was waiting
            try:
                chunk = step.result()
            except StopAsyncIteration:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                break
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    except OSError:
        pass  # the client went away mid-write
    except Exception:
        log.exception("stream failed after its response started")
    finally:
        for task in (step, watcher):
            if task is not None and not task.done():
                task.cancel()
                await asyncio.wait({task})
        closer = getattr(iterator, "aclose", None)
        if closer is not None:
            with contextlib.suppress(Exception):
                await closer()
