"""What happened to each request: the request journal the console and `GET /_roost/requests` show,
and the hook that also feeds the metrics and the access log.

Recording sits on every request's path, so it keeps the least it can: one tuple per request in a
bounded ring (older entries fall off), with bodies cut to a few KiB. Entries become dictionaries only
when someone reads them. Each process keeps its own ring (docs/decisions.md, "The request journal").
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from roost.core import jsonio
from roost.core.principal import Principal

BODY_KEPT = 4096  # bytes of each body the journal keeps; enough to see a problem, not to hold uploads
# Of a successful answer, only its beginning: a reference to the whole body would keep each answer's
# memory alive for 2,000 requests, which costs the single lookup about 5% (allocations that are no
# longer reused while hot); a short copy costs a fraction of that (bench/RESULTS.md, issue 17).
SUCCESS_BODY_KEPT = 400
DEFAULT_SIZE = 2000

# (id, at wall ms, method, path, query, status, latency ms, operation, auth kind, app id, user id,
#  reason, request body, response body, transaction id, resources: the objects a v2 answer returned, 1
#  for any other answer; what per-resource prices multiply)
Entry = tuple[
    int, int, str, str, str, int, float, str, str, int | None, int | None, str | None, bytes, bytes, str, int
]

# Listeners called with each entry as it is recorded (metrics counters, the access log).
Listener = Callable[[Entry], None]


def reason_of(status: int, body: Any) -> str | None:
    """A refusal's reason when nobody gave a better one: what the error body says."""
    if status < 400 or not isinstance(body, dict):
        return None
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        first = errors[0]
        message = first.get("message") or first.get("detail")
        if message:
            return str(message)
    for key in ("detail", "error_description", "title", "error"):
        value = body.get(key)
        if isinstance(value, str) and value:
            return value
    return None


class RequestJournal:
    """The newest requests of this process, newest last, at most `size` of them (0: keep none, and
    listeners only)."""

    def __init__(self, size: int = DEFAULT_SIZE) -> None:
        self.size = size
        self._entries: deque[Entry] = deque(maxlen=max(size, 1))
        self._ids = itertools.count(1)
        self._wall_offset = time.time() - time.perf_counter()  # perf_counter readings to wall time
        self.listeners: list[Listener] = []

    @property
    def keeping(self) -> bool:
        return self.size > 0

    def record(
        self,
        method: str,
        path: str,
        query: bytes,
        status: int,
        started: float,
        operation: str,
        principal: Principal | None,
        reason: str | None,
        request_body: bytes,
        response_body: bytes,
        transaction_id: bytes,
        resources: int = 1,
    ) -> None:
        entry: Entry = (
            next(self._ids),
            int((started + self._wall_offset) * 1000),  # when it arrived, without another clock call
            method,
            path,
            query.decode("latin-1") if query else "",
            status,
            (time.perf_counter() - started) * 1000,
            operation,
            principal.kind if principal is not None else "",
            principal.app_id if principal is not None else None,
            principal.user_id if principal is not None else None,
            reason,
            request_body[:BODY_KEPT],
            response_body[: SUCCESS_BODY_KEPT if status < 400 else BODY_KEPT],
            transaction_id.decode("ascii") if transaction_id else "",
            resources,
        )
        if self.size:
            self._entries.append(entry)
        for listener in self.listeners:
            listener(entry)

    def clear(self) -> None:
        self._entries.clear()

    def entries(
        self,
        status: str | None = None,
        path: str | None = None,
        app: int | None = None,
        method: str | None = None,
        limit: int = 100,
        before: int | None = None,
    ) -> list[dict[str, Any]]:
        """Newest first, filtered: `status` an exact code or a class such as `4xx`, `path` a
        substring, `app` an app id, `before` an entry id (the next page)."""
        wanted = _status_test(status)
        found: list[dict[str, Any]] = []
        for entry in reversed(self._entries):
            if before is not None and entry[0] >= before:
                continue
            if wanted is not None and not wanted(entry[5]):
                continue
            if path and path not in entry[3]:
                continue
            if app is not None and entry[9] != app:
                continue
            if method and entry[2] != method.upper():
                continue
            found.append(as_dict(entry))
            if len(found) >= limit:
                break
        return found

    def entry(self, entry_id: int) -> dict[str, Any] | None:
        for entry in reversed(self._entries):
            if entry[0] == entry_id:
                return as_dict(entry, whole=True)
        return None


def _status_test(status: str | None) -> Callable[[int], bool] | None:
    if not status:
        return None
    text = status.strip().lower()
    if len(text) == 3 and text.endswith("xx") and text[0].isdigit():
        klass = int(text[0])
        return lambda code: code // 100 == klass
    if text.isdigit():
        code = int(text)
        return lambda value: value == code
    return lambda value: False


def as_dict(entry: Entry, whole: bool = False) -> dict[str, Any]:
    ident, at, method, path, query, status, latency, operation, kind, app, user, reason, req, resp, tx, _ = (
        entry
    )
    return {
        "id": ident,
        "time": _iso(at),
        "method": method,
        "path": path,
        "query": query,
        "status": status,
        "latency_ms": round(latency, 3),
        "operation": operation or None,
        "auth": kind or None,
        "app_id": str(app) if app is not None else None,
        "user_id": str(user) if user is not None else None,
        "reason": reason,
        "request_body": _text(req),
        "response_body": _text(resp),
        "truncated": len(req) >= BODY_KEPT or len(resp) >= (SUCCESS_BODY_KEPT if status < 400 else BODY_KEPT),
        "transaction_id": tx or None,
    }


def _text(body: bytes) -> str:
    return body.decode("utf-8", "replace")


def _iso(ms: int) -> str:
    seconds, millis = divmod(ms, 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"


def masked(secret: str) -> str:
    """A secret as the journal shows it: its first characters and its length, never the whole."""
    if not secret:
        return "(empty)"
    return f"{secret[:3]}…({len(secret)} characters)"


REASON_KEY = "roost.reason"  # where a page's error handler leaves its refusal's reason in the scope


class JournalledPages:
    """The pages that serve API calls outside the pipelines (the OAuth endpoints), journalled from
    the outside: status, latency and the first bytes of each body. The control plane is left out:
    the console reading it would fill the journal with itself."""

    def __init__(self, app: Any, journal: RequestJournal, skip_prefix: str) -> None:
        self.app = app  # the pages themselves (tests walk their routes)
        self._app = app
        self._journal = journal
        self._skip = skip_prefix

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self._skip):
            await self._app(scope, receive, send)
            return
        started = time.perf_counter()
        sent: dict[str, Any] = {"status": 500, "body": b"", "tx": b""}
        received: list[bytes] = []

        async def receive_kept() -> Any:
            message = await receive()
            if message.get("type") == "http.request" and sum(map(len, received)) < BODY_KEPT:
                received.append(message.get("body", b""))
            return message

        async def send_kept(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                sent["status"] = message["status"]
                for name, value in message.get("headers", ()):
                    if name.lower() == b"x-transaction-id":
                        sent["tx"] = value
            elif message["type"] == "http.response.body" and len(sent["body"]) < BODY_KEPT:
                sent["body"] += message.get("body", b"")[:BODY_KEPT]
            await send(message)

        try:
            await self._app(scope, receive_kept, send_kept)
        finally:
            status = int(sent["status"])
            reason = scope.get(REASON_KEY)
            if reason is None and status >= 400:
                reason = _reason_from_bytes(status, sent["body"])
            self._journal.record(
                scope["method"],
                scope["path"],
                scope.get("query_string", b""),
                status,
                started,
                "",
                None,
                reason,
                b"".join(received),
                sent["body"],
                sent["tx"],
            )


def _reason_from_bytes(status: int, body: bytes) -> str | None:
    try:
        return reason_of(status, jsonio.loads(body))
    except jsonio.JSONDecodeError:
        return None
