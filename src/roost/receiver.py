"""`roost receiver`: a local webhook receiver for trying out and testing webhook delivery.

It answers the CRC (`GET ?crc_token=`) with the right `response_token` for the consumer secret, checks
the signature header of every POST with a constant-time comparison, prints each event as one JSON line
on stdout (`{"event_id", "signature": "ok"|"bad", "status", "path", "body"}`) and answers 200.

Failure modes, for exercising retries and the webhook state table: answer every platform request (CRC
and events) with another status, delay every answer, or answer the CRC with a wrong token. They are
set by command-line switches and changed at runtime by `POST /_receiver/mode
{"status": 500|null, "delay": 1.5, "wrong_token": true}`; `GET /_receiver/events` lists the events
received so far. The secret itself is never printed.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, TextIO

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from roost.events.crc import signature

EVENT_ID_HEADER = "x-roost-event-id"
MAX_DELAY_S = 120.0


def signature_header(brand: str) -> str:
    return "x-service-webhooks-signature" if brand == "service" else "x-twitter-webhooks-signature"


@dataclass
class Mode:
    status: int | None = None  # answer every platform request with this status instead
    delay: float = 0.0  # seconds to wait before answering
    wrong_token: bool = False  # CRC answers carry a wrong response_token

    def describe(self) -> dict[str, Any]:
        return {"status": self.status, "delay": self.delay, "wrong_token": self.wrong_token}


@dataclass
class ReceiverState:
    consumer_secret: str
    brand: str = "twitter"
    mode: Mode = field(default_factory=Mode)
    events: list[dict[str, Any]] = field(default_factory=list)
    crc_count: int = 0
    out: TextIO = sys.stdout
    lock: threading.Lock = field(default_factory=threading.Lock)


def _json_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")


def _parse_mode(body: Any, current: Mode) -> Mode | str:
    """The new mode, or what is wrong with the request."""
    if not isinstance(body, dict):
        return "expected a JSON object"
    unknown = set(body) - {"status", "delay", "wrong_token"}
    if unknown:
        return f"unknown keys: {', '.join(sorted(unknown))}"
    mode = Mode(current.status, current.delay, current.wrong_token)
    if "status" in body:
        status = body["status"]
        if status is not None and (
            not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599
        ):
            return "status must be an HTTP status (100-599) or null"
        mode.status = None if status in (None, 200) else status
    if "delay" in body:
        delay = body["delay"]
        if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= MAX_DELAY_S:
            return f"delay must be a number of seconds between 0 and {MAX_DELAY_S:g}"
        mode.delay = float(delay)
    if "wrong_token" in body:
        if not isinstance(body["wrong_token"], bool):
            return "wrong_token must be true or false"
        mode.wrong_token = body["wrong_token"]
    return mode


def build_app(state: ReceiverState) -> Starlette:
    async def set_mode(request: Request) -> Response:
        try:
            body = json.loads(await request.body() or b"{}")
        except ValueError:
            return JSONResponse({"error": "expected a JSON object"}, status_code=400)
        mode = _parse_mode(body, state.mode)
        if isinstance(mode, str):
            return JSONResponse({"error": mode}, status_code=400)
        state.mode = mode
        return JSONResponse(mode.describe())

    async def get_mode(request: Request) -> Response:
        return JSONResponse(state.mode.describe())

    async def list_events(request: Request) -> Response:
        with state.lock:
            events = list(state.events)
        return JSONResponse({"events": events, "crc_count": state.crc_count})

    async def crc(request: Request) -> Response:
        mode = state.mode
        if mode.delay:
            await asyncio.sleep(mode.delay)
        state.crc_count += 1
        token = request.query_params.get("crc_token")
        if token is None:
            return JSONResponse({"error": "crc_token is missing"}, status_code=400)
        if mode.status is not None:
            return JSONResponse({"error": "failing on purpose"}, status_code=mode.status)
        secret = "not-the-consumer-secret" if mode.wrong_token else state.consumer_secret
        return JSONResponse({"response_token": signature(secret, token)})

    async def event(request: Request) -> Response:
        mode = state.mode
        raw = await request.body()
        expected = signature(state.consumer_secret, raw)
        given = request.headers.get(signature_header(state.brand), "")
        ok = hmac.compare_digest(given.encode(), expected.encode())
        status = mode.status if mode.status is not None else 200
        record = {
            "event_id": request.headers.get(EVENT_ID_HEADER),
            "signature": "ok" if ok else "bad",
            "status": status,
            "path": request.url.path,
            "body": _json_body(raw),
        }
        with state.lock:
            state.events.append(record)
            state.out.write(json.dumps(record, separators=(",", ":")) + "\n")
            state.out.flush()
        if mode.delay:
            await asyncio.sleep(mode.delay)
        return JSONResponse({} if status == 200 else {"error": "failing on purpose"}, status_code=status)

    return Starlette(
        routes=[
            Route("/_receiver/mode", set_mode, methods=["POST"]),
            Route("/_receiver/mode", get_mode, methods=["GET"]),
            Route("/_receiver/events", list_events, methods=["GET"]),
            Route("/{path:path}", crc, methods=["GET"]),
            Route("/{path:path}", event, methods=["POST"]),
        ]
    )


def run(host: str, port: int, state: ReceiverState) -> None:
    import uvicorn

    app = build_app(state)
    print(
        f"roost receiver listening on http://{host}:{port}/ (brand {state.brand}); "
        f"mode {json.dumps(state.mode.describe())}",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.Server(
        uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off")
    ).run()
