"""Fault rules (`/_roost/faults`, issue 17): make chosen requests fail, slow down, or make a stream end
early or stall, so a program's error handling can be tried against the answers the platform gives.

A rule names a method (or any), a path glob, and what happens: a status answered with the platform's
body for it (shaped by the dialect: problem, ads or v1.1 errors), a delay before answering, or for a
stream an `operational-disconnect` after N lines or a stall. `times` counts down to zero, after which
the rule stays listed but no longer fires; `probability` draws from the server's seeded source. Rules
are this process's (docs/decisions.md, "The request journal and fault rules").
"""

from __future__ import annotations

import asyncio
import fnmatch
import itertools
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from roost.core import errors, jsonio
from roost.core.wire import Stream

DISCONNECT_TYPES = (
    "UpstreamOperationalDisconnect",
    "UpstreamUncleanDisconnect",
    "ForceDisconnect",
    "ConnectionOverflow",
    "MustReconnect",
)
METHODS = ("GET", "POST", "PUT", "DELETE", "PATCH")
MAX_RULES = 200
MAX_LATENCY_MS = 120_000


@dataclass(slots=True)
class FaultRule:
    id: int
    method: str | None
    path: str
    status: int | None
    latency_ms: int
    times: int | None
    probability: float
    stream_after_lines: int | None
    disconnect_type: str | None
    stall: bool
    hits: int = 0
    pattern: re.Pattern[str] = field(default=re.compile(""), repr=False)

    @property
    def remaining(self) -> int | None:
        return None if self.times is None else max(self.times - self.hits, 0)

    def view(self) -> dict[str, Any]:
        stream: dict[str, Any] | None = None
        if self.stream_after_lines is not None or self.stall:
            stream = {"after_lines": self.stream_after_lines, "disconnect_type": self.disconnect_type}
            stream["stall"] = self.stall
        return {
            "id": str(self.id),
            "method": self.method,
            "path": self.path,
            "status": self.status,
            "latency_ms": self.latency_ms,
            "times": self.times,
            "probability": self.probability,
            "stream": stream,
            "hits": self.hits,
            "remaining": self.remaining,
        }


class Faults:
    """This process's fault rules; `rules` is empty in the common case, and the pipelines look no further."""

    def __init__(self, seed: int | None = None) -> None:
        self.rules: list[FaultRule] = []
        self._ids = itertools.count(1)
        self._random = random.Random(seed)

    def add(self, body: Any) -> FaultRule:
        rule = _parsed(body, next(self._ids))
        if len(self.rules) >= MAX_RULES:
            raise errors.invalid_body(f"at most {MAX_RULES} fault rules; delete some first")
        self.rules.append(rule)
        return rule

    def remove(self, rule_id: int) -> bool:
        kept = [rule for rule in self.rules if rule.id != rule_id]
        found = len(kept) != len(self.rules)
        self.rules = kept
        return found

    def clear(self) -> None:
        self.rules = []

    def listing(self) -> list[dict[str, Any]]:
        return [rule.view() for rule in self.rules]

    def match(self, method: str, path: str) -> FaultRule | None:
        """The first live rule for this request, counted as a hit, or None."""
        for rule in self.rules:
            if rule.method is not None and rule.method != method:
                continue
            if rule.times is not None and rule.hits >= rule.times:
                continue
            if not rule.pattern.fullmatch(path):
                continue
            if rule.probability < 1.0 and self._random.random() >= rule.probability:
                continue
            rule.hits += 1
            return rule
        return None


async def apply(rule: FaultRule) -> None:
    """What a rule does before the request is served: wait, then refuse with its status (if any)."""
    if rule.latency_ms:
        await asyncio.sleep(rule.latency_ms / 1000)
    if rule.status is not None:
        raise refusal(rule.status).because(f"fault rule {rule.id} ({rule.method or 'any'} {rule.path})")


def refusal(status: int) -> errors.ApiError:
    """The platform's body for a status, in the v2 catalogue's shape (the dialects convert it)."""
    if status == 401:
        return errors.unauthorized()
    if status == 404:
        return errors.route_not_found()
    if status == 429:
        return errors.too_many_requests({"x-rate-limit-remaining": "0"})
    if status == 413:
        return errors.payload_too_large()
    if status == 500:
        return errors.internal_error()
    phrase = HTTPStatus(status).phrase
    return errors.ApiError(
        status, {"title": phrase, "detail": phrase, "type": "about:blank", "status": status}
    )


def wrap_stream(rule: FaultRule, stream: Stream) -> Stream:
    """A stream that ends with an operational disconnect after the rule's lines, or stalls."""
    return Stream(_Faulted(rule, stream.chunks), stream.content_type, stream.headers)


class _Faulted:
    def __init__(self, rule: FaultRule, chunks: AsyncIterator[bytes]) -> None:
        self._rule = rule
        self._chunks = chunks.__aiter__()
        self._lines = 0
        self._ended = False

    def __aiter__(self) -> _Faulted:
        return self

    async def __anext__(self) -> bytes:
        rule = self._rule
        if self._ended:
            raise StopAsyncIteration
        limit = rule.stream_after_lines or 0
        if self._lines >= limit:
            if rule.stall:
                await asyncio.Event().wait()  # nothing more, not even keep-alives, until the client leaves
            self._ended = True
            disconnect = errors.operational_disconnect(
                rule.disconnect_type or "UpstreamOperationalDisconnect"
            )
            return jsonio.dumps({"errors": [disconnect]}) + b"\r\n"
        chunk = await self._chunks.__anext__()
        if chunk.strip():
            self._lines += 1
        return chunk

    async def aclose(self) -> None:
        closer = getattr(self._chunks, "aclose", None)
        if closer is not None:
            await closer()


# ---- parsing a rule ---------------------------------------------------------------------------


def _parsed(body: Any, rule_id: int) -> FaultRule:
    if not isinstance(body, dict):
        raise errors.invalid_body("a fault rule is a JSON object")
    known = {"method", "path", "status", "latency_ms", "times", "probability", "stream"}
    unknown = sorted(set(body) - known)
    if unknown:
        raise errors.invalid_body(f"unknown fault rule fields {unknown}; known: {sorted(known)}")
    method = body.get("method")
    if method is not None:
        if not isinstance(method, str) or method.upper() not in (*METHODS, "*", "ANY"):
            raise errors.invalid_body(f"method must be one of {', '.join(METHODS)} (or omitted for any)")
        method = None if method.upper() in ("*", "ANY") else method.upper()
    path = body.get("path", "/*")
    if not isinstance(path, str) or not path.startswith("/") or len(path) > 512:
        raise errors.invalid_body("path must be a glob starting with / (e.g. /2/tweets/*)")
    status = _whole(body, "status", None, 100, 599)
    if status is not None and status < 400:
        raise errors.invalid_body("status must be an error status (400 to 599)")
    latency = _whole(body, "latency_ms", 0, 0, MAX_LATENCY_MS)
    times = _whole(body, "times", None, 1, 1_000_000)
    probability = body.get("probability", 1.0)
    if not isinstance(probability, int | float) or isinstance(probability, bool) or not 0 < probability <= 1:
        raise errors.invalid_body("probability must be a number above 0 and at most 1")
    after, disconnect, stall = _stream_part(body.get("stream"))
    if status is None and not latency and after is None and not stall:
        raise errors.invalid_body("a fault rule needs a status, a latency_ms or a stream fault")
    return FaultRule(
        rule_id,
        method,
        path,
        status,
        latency or 0,
        times,
        float(probability),
        after,
        disconnect,
        stall,
        pattern=re.compile(fnmatch.translate(path)),
    )


def _stream_part(stream: Any) -> tuple[int | None, str | None, bool]:
    if stream is None:
        return None, None, False
    if not isinstance(stream, dict) or set(stream) - {"after_lines", "disconnect_type", "stall"}:
        raise errors.invalid_body("stream is {after_lines, disconnect_type} or {stall: true}")
    after = _whole(stream, "after_lines", 0, 0, 1_000_000)
    kind = stream.get("disconnect_type")
    if kind is not None and kind not in DISCONNECT_TYPES:
        raise errors.invalid_body(f"disconnect_type must be one of {', '.join(DISCONNECT_TYPES)}")
    stall = stream.get("stall", False)
    if not isinstance(stall, bool):
        raise errors.invalid_body("stall must be true or false")
    return after, kind, stall


def _whole(body: dict[str, Any], name: str, default: int | None, low: int, high: int) -> int | None:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise errors.invalid_body(f"{name} must be a whole number from {low} to {high}")
    return value
