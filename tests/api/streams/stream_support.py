"""Helpers for the stream tests: reading lines of a streaming response, finite streams, 2.167 checks."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from tests.conformance.oracle import Oracle, SpecUnavailable
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.core.clock import iso_ms


def read_all(response: httpx.Response) -> list[bytes]:
    """Every line of a stream that ends by itself (an `end_time` window, a disconnect), with `\\r\\n`."""
    body = b"".join(response.iter_bytes())
    assert body.endswith(b"\r\n") or not body
    return [part + b"\r\n" for part in body.split(b"\r\n")[:-1]]


def objects(lines: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines if line.strip()]


def now_iso(server: LiveServer) -> str:
    """The server clock as RFC 3339, for `start_time` / `end_time`: its next millisecond, so that what
    was done before falls before it and what is done after does not (a time has millisecond precision,
    and a fast server does several things within one)."""
    clock = server.app.server.stores.clock  # type: ignore[union-attr]
    first = clock.now_ms()
    deadline = time.monotonic() + 0.5  # a frozen clock does not tick: take it as it is
    while clock.now_ms() <= first and time.monotonic() < deadline:
        time.sleep(0.0002)
    return iso_ms(clock.now_ms())


def window(server: LiveServer, start: str) -> dict[str, str]:
    """`start_time` .. now: the stream sends the events in between, then ends."""
    return {"start_time": start, "end_time": now_iso(server)}


@contextmanager
def stream(server: LiveServer, api: Api, path: str, **params: str) -> Iterator[httpx.Response]:
    with (
        httpx.Client(base_url=server.base_url, timeout=15) as client,
        client.stream("GET", path, params=params, headers=api.bearer()) as response,
    ):
        yield response


def finite(server: LiveServer, api: Api, path: str, **params: str) -> list[dict[str, Any]]:
    with stream(server, api, path, **params) as response:
        assert response.status_code == 200, response.read()
        return objects(read_all(response))


def conforms_167(method: str, path: str, status: int, body: Any) -> None:
    """Check a body (or one stream line) against the response schema of SPEC 2.167."""
    try:
        oracle = Oracle.load("2.167")
    except SpecUnavailable:
        return
    problems = oracle.validate_response(method, path, status, body)
    assert not problems, f"{method} {path} → {status}: " + "\n".join(problems) + f"\n{body}"


def wait_for(check: Callable[[], Any], timeout: float = 5.0) -> Any:
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)
