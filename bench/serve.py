"""Serve roost, or a bare ASGI app, on exactly the same server (the benchmark's server process).

    python bench/serve.py roost --db sqlite:////path/roost.db --port 8101
    python bench/serve.py bare --port 8102

Both run through `roost.serving.Server`, as `roost serve` does: uvicorn, uvloop event loop, httptools
parser, one worker (this process), lifespan on, log level warning, no access log, 127.0.0.1 only.
roost runs as `roost serve --no-rate-limits` does (demo on, so an empty database would be seeded, but
the benchmark's database already holds the demo).
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from roost.serving import Server

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

BARE_BODY = b'{"data":{"id":"1","text":"hello from a bare ASGI app"}}'
BARE_HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BARE_BODY)).encode())]


async def bare_app(scope: Scope, receive: Receive, send: Send) -> None:
    """The baseline: 200 with a small fixed JSON body, nothing else."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 200, "headers": BARE_HEADERS})
        await send({"type": "http.response.body", "body": BARE_BODY})
    elif scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def build_app(kind: str, db_url: str, port: int, request_log: int = 2000) -> Any:
    if kind == "bare":
        return bare_app
    from roost.app import RoostApp
    from roost.config import Settings

    settings = Settings(
        host="127.0.0.1", port=port, db_url=db_url, demo=True, rate_limits=False, request_log=request_log
    )
    return RoostApp(settings)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("app", choices=("roost", "bare"))
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", default="", help="roost's database URL")
    parser.add_argument("--request-log", type=int, default=2000, help="requests the journal keeps (0: none)")
    args = parser.parse_args()
    if args.app == "roost" and not args.db:
        parser.error("roost needs --db")
    app = build_app(args.app, args.db, args.port, args.request_log)
    on_stop = getattr(app, "end_streams", None)
    Server(app, "127.0.0.1", args.port, log_level="warning", on_stop=on_stop).run()


if __name__ == "__main__":
    main()
