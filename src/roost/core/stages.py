"""The request pipeline's skeleton: the stages the v2 and ads APIs share, written once.

    route → read the body (size cap) → identify the caller → the dialect's own stages → errors to
    responses → write (content type, the dialect's head, transaction id, response time)

A dialect (`platform/pipeline.py` for v2, `ads/pipeline.py` for ads) subclasses `Skeleton` and
supplies only what differs: its routes, how it refuses callers, its parameters, envelope, rate-limit
keys and headers, and the shapes of its errors. Everything here is per server: two servers in one
process share nothing.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar
from urllib.parse import parse_qsl

from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.faults import FaultRule, Faults, apply, wrap_stream
from roost.core.journal import RequestJournal, reason_of
from roost.core.principal import Principal, RequestAuth
from roost.core.ratelimit import RateLimiter
from roost.core.wire import (
    ClientDisconnected,
    RawHeaders,
    Receive,
    Scope,
    Send,
    Stream,
    elapsed_ms,
    has_body,
    header,
    note_disconnect,
    parse_query,
    read_body,
    send_raw,
    send_stream,
)

log = logging.getLogger("roost.pipeline")

FORM = "application/x-www-form-urlencoded"
_JSON_TYPE = (b"content-type", errors.JSON.encode())


class Authenticating(Protocol):
    """What the skeleton asks of the authenticator (`roost.auth.principals.Authenticator`)."""

    def known_bearer(self, token: str) -> Principal | None: ...

    async def bearer(self, token: str) -> Principal: ...

    async def authenticate(self, request: RequestAuth, v2: bool = True) -> Principal | None: ...


class TransactionIds:
    """`x-transaction-id` values: 16 hex digits each, from the server's seeded source (a run with a
    seed repeats them), cut from a block made 4,096 at a time: formatting one per response costs
    more than the slice."""

    __slots__ = ("_block", "_next", "_random")
    _COUNT = 4096

    def __init__(self, seed: int | None = None) -> None:
        self._random = random.Random(seed)  # no seed: seeded from the system's entropy
        self._block = b""
        self._next = self._COUNT

    def take(self) -> bytes:
        index = self._next
        if index >= self._COUNT:
            self._block = (
                self._random.getrandbits(64 * self._COUNT).to_bytes(8 * self._COUNT, "big").hex().encode()
            )
            index = 0
        self._next = index + 1
        return self._block[index * 16 : index * 16 + 16]


class ProblemTypes:
    """Problem `type` URIs under the configured base. The catalogue writes them under the default
    base; a server configured with another one rewrites them as its responses leave."""

    __slots__ = ("_from", "_to")

    def __init__(self, base: str) -> None:
        base = base if base.endswith("/") else base + "/"
        # Matched with the member name in front: inside a JSON string the quotes would be escaped.
        self._from = b'"type":"' + errors.DEFAULT_PROBLEM_BASE.encode()
        self._to = None if base == errors.DEFAULT_PROBLEM_BASE else b'"type":"' + base.encode()

    @property
    def rewrites(self) -> bool:
        """Whether the base is not the default (else bodies leave as they are)."""
        return self._to is not None

    def rewrite(self, body: bytes) -> bytes:
        return body if self._to is None or self._from not in body else body.replace(self._from, self._to)

    def rewrite_stream(self, stream: Stream) -> Stream:
        if self._to is None:
            return stream
        return Stream(_Rewritten(stream.chunks, self.rewrite), stream.content_type, stream.headers)


class _Rewritten:
    """A stream's chunks passed through `rewrite`; closing it closes the stream underneath."""

    def __init__(self, chunks: Any, rewrite: Callable[[bytes], bytes]) -> None:
        self._chunks = chunks.__aiter__()
        self._rewrite = rewrite

    def __aiter__(self) -> _Rewritten:
        return self

    async def __anext__(self) -> bytes:
        return self._rewrite(await self._chunks.__anext__())

    async def aclose(self) -> None:
        closer = getattr(self._chunks, "aclose", None)
        if closer is not None:
            await closer()


@dataclass(slots=True)
class Stages:
    """The per-server parts every pipeline uses: who is calling, how many requests they have left,
    how large a body may be, and where transaction ids and problem types come from."""

    authenticator: Authenticating
    limiter: RateLimiter
    clock: Clock
    max_body: int
    transaction_ids: TransactionIds
    problem_types: ProblemTypes
    journal: RequestJournal | None = None  # what happened to each request (the console, metrics)
    faults: Faults | None = None  # the fault rules `/_roost/faults` adds (issue 17)


def auth_request(scope: Scope, headers: dict[str, str], body: bytes) -> RequestAuth:
    """What the authenticator needs of a request: method, URL parts, credentials, query and form."""
    query = scope.get("query_string", b"")
    return RequestAuth(
        method=scope["method"],
        scheme=scope.get("scheme", "http"),
        host=headers.get("host", ""),
        path=scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0] or scope["path"],
        authorization=headers.get("authorization"),
        forwarded_proto=headers.get("x-forwarded-proto"),
        query_pairs=parse_query(query) if query else [],
        form_pairs=form_pairs(headers, body),
    )


def form_pairs(headers: dict[str, str], body: bytes) -> list[tuple[str, str]]:
    if body and headers.get("content-type", "").startswith(FORM):
        return parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True)
    return []


# What a request comes to: (status, payload, content type, extra headers). The payload is bytes, a
# JSON value or a `Stream`; the headers are those a handler or an error brings. A plain tuple: one is
# made per request, and a class's constructor would cost the hot path a call.
Outcome = tuple[int, Any, str, Mapping[str, str]]

# Where a dialect leaves how many objects its answer returned (the journal's `resources`, which
# per-resource prices multiply); an answer that says nothing counts as one.
RESOURCES = "roost.resources"


RouteT = TypeVar("RouteT")


class Skeleton(Generic[RouteT]):
    """The one request flow. Subclasses fill in the dialect's stages."""

    def __init__(self, stages: Stages, fixed_head: RawHeaders) -> None:
        self.stages = stages
        self._fixed_head = fixed_head  # headers every response of the dialect carries (api versions)
        self._transaction_ids = stages.transaction_ids
        self._problem_types = stages.problem_types
        self._authenticator = stages.authenticator
        self._max_body = stages.max_body
        self._rewrite_types = stages.problem_types.rewrite if stages.problem_types.rewrites else None
        self._journal = stages.journal
        self._faults = stages.faults or Faults()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # What a request is is passed along as arguments, not gathered in an object: one object more
        # per request costs the single lookup about 1% (instructions counted, bench/instructions.py).
        started = time.perf_counter()
        headers: dict[str, str] = {}
        for name, value in scope["headers"]:  # a loop: cheaper than a comprehension on Python 3.11
            headers[name.decode("latin-1")] = value.decode("latin-1")
        route: RouteT | None = None
        principal: Principal | None = None
        body = b""
        reason: str | None = None
        fault: FaultRule | None = None
        try:
            if self._faults.rules:  # empty unless someone asked for faults
                fault = self._faults.match(scope["method"], scope["path"])
                if fault is not None:
                    await apply(fault)
            route = self.route(scope, headers)
            body = await self.read_body(route, receive, headers) if has_body(headers) else b""
            # The common caller without a coroutine: a bearer token seen moments ago.
            principal = self.known_caller(headers) or await self.identify(route, scope, headers, body)
            outcome = await self.serve(route, scope, headers, body, principal)
        except ClientDisconnected:
            note_disconnect(scope)
            return  # nobody to answer, and nothing done
        except errors.ApiError as error:
            outcome = self.refused(route, scope, error)
            reason = error.reason or reason_of(error.status, error.body)
        except Exception as exc:
            log.exception("unhandled error in %s %s", scope["method"], scope["path"])
            outcome = self.refused(route, scope, self.internal_error())
            reason = f"unhandled error: {type(exc).__name__} (the server log has the traceback)"
        status, payload, content_type, _ = outcome
        transaction_id = self._transaction_ids.take()
        journal = self._journal
        if isinstance(payload, Stream):
            head = [
                *self._fixed_head,
                (b"x-transaction-id", transaction_id),
                *self.head(route, scope, principal, outcome),
                (b"x-response-time", elapsed_ms(started)),
            ]
            if fault is not None and (fault.stream_after_lines is not None or fault.stall):
                payload = wrap_stream(fault, payload)
            if journal is not None:  # a stream is journalled as it opens: it may last for hours
                self._record(
                    journal, scope, status, started, route, principal, reason, body, b"", transaction_id
                )
            await send_stream(send, receive, status, self._problem_types.rewrite_stream(payload), head)
            return
        head = [
            _JSON_TYPE if content_type is errors.JSON else header(b"content-type", content_type),
            *self._fixed_head,
            (b"x-transaction-id", transaction_id),
            *self.head(route, scope, principal, outcome),
            (b"x-response-time", elapsed_ms(started)),
        ]
        data = payload if isinstance(payload, bytes) else jsonio.dumps(payload)
        if self._rewrite_types is not None:
            data = self._rewrite_types(data)
        await send_raw(scope, send, status, data, head)
        if journal is not None:
            self._record(
                journal, scope, status, started, route, principal, reason, body, data, transaction_id
            )

    def _record(
        self,
        journal: RequestJournal,
        scope: Scope,
        status: int,
        started: float,
        route: RouteT | None,
        principal: Principal | None,
        reason: str | None,
        body: bytes,
        data: bytes,
        transaction_id: bytes,
    ) -> None:
        journal.record(
            scope["method"],
            scope["path"],
            scope.get("query_string", b""),
            status,
            started,
            self.operation(route) if route is not None else "",
            principal,
            reason,
            body,
            data,
            transaction_id,
            scope.get(RESOURCES, 1),
        )

    # ---- shared stages --------------------------------------------------------------------------

    def known_caller(self, headers: dict[str, str]) -> Principal | None:
        """The principal of a bearer token the authenticator has just seen, or None."""
        authorization = headers.get("authorization")
        if authorization is None:
            return None
        if authorization.startswith("Bearer ") or authorization[:7].lower() == "bearer ":
            return self._authenticator.known_bearer(authorization[7:].strip())
        return None

    async def authenticate(
        self, scope: Scope, headers: dict[str, str], body: bytes, v2: bool
    ) -> Principal | None:
        """The caller, by the authenticator on the request's credentials (None when it carries none)."""
        authorization = headers.get("authorization")
        if authorization is not None and authorization[:7].lower() == "bearer ":
            return await self._authenticator.bearer(authorization[7:].strip())
        return await self._authenticator.authenticate(auth_request(scope, headers, body), v2=v2)

    async def read_body(self, route: RouteT, receive: Receive, headers: dict[str, str]) -> bytes:
        """The request body under the size cap (a dialect may give some routes another cap)."""
        return await read_body(receive, headers, self._max_body)

    # ---- the dialect's stages -------------------------------------------------------------------
    # State a dialect keeps between its stages for one request lives on its route (when the route is
    # made per request) or in the ASGI scope under a `roost.` key (the scope is the request's own).

    def route(self, scope: Scope, headers: dict[str, str]) -> RouteT:
        """The operation the request names; raises the dialect's route errors."""
        raise NotImplementedError

    async def identify(self, route: RouteT, scope: Scope, headers: dict[str, str], body: bytes) -> Principal:
        """The caller, or the dialect's refusal (usually through `authenticate`)."""
        raise NotImplementedError

    async def serve(
        self, route: RouteT, scope: Scope, headers: dict[str, str], body: bytes, principal: Principal
    ) -> Outcome:
        """Authorise, rate limit, parse parameters, run the handler, build the envelope."""
        raise NotImplementedError

    def refused(self, route: RouteT | None, scope: Scope, error: errors.ApiError) -> Outcome:
        """An error as the dialect shapes it."""
        return error.status, error.body, error.content_type, error.headers

    def operation(self, route: RouteT) -> str:
        """The operation's name for the journal and the metrics (the official document's id)."""
        return ""

    def internal_error(self) -> errors.ApiError:
        return errors.internal_error()

    def head(
        self, route: RouteT | None, scope: Scope, principal: Principal | None, outcome: Outcome
    ) -> RawHeaders:
        """The dialect's response headers between the transaction id and the response time."""
        return []
