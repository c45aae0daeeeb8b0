"""A webhook receiver on 127.0.0.1 for tests: answers CRC checks and records deliveries.

`mode` steers the CRC answer: "ok" (the right token for `secret`), "wrong" (a 200 with a bad token),
"redirect" (302), "error" (500), "client-error" (404) or "close" (the connection is closed without an
answer); `crc_delay` (seconds) delays every CRC answer (for timeouts), `post_delay` every POST answer.
The first `fail_posts` POSTs are answered with 500.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from roost.events.crc import signature


class Receiver:
    def __init__(self, secret: str) -> None:
        self.secret = secret
        self.mode = "ok"
        self.crc_delay = 0.0
        self.post_delay = 0.0
        self.fail_posts = 0
        self.tokens: list[str] = []
        self.crc_queries: list[dict[str, list[str]]] = []  # each CRC request's whole query
        self.posts: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                query = parse_qs(urlsplit(self.path).query)
                token = query.get("crc_token", [""])[0]
                if receiver.crc_delay:
                    time.sleep(receiver.crc_delay)
                with receiver.lock:
                    receiver.tokens.append(token)
                    receiver.crc_queries.append(query)
                if receiver.mode == "close":
                    self.close_connection = True
                    return
                if receiver.mode == "client-error":
                    self._json(404, {"error": "not here"})
                    return
                if receiver.mode == "redirect":
                    self.send_response(302)
                    self.send_header("Location", "https://example.com/")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if receiver.mode == "error":
                    self._json(500, {"error": "boom"})
                    return
                secret = receiver.secret if receiver.mode == "ok" else "not-the-secret"
                self._json(200, {"response_token": signature(secret, token)})

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if receiver.post_delay:
                    time.sleep(receiver.post_delay)
                with receiver.lock:
                    failing = receiver.fail_posts > 0
                    receiver.fail_posts -= int(failing)
                    receiver.posts.append(
                        {
                            "path": self.path,
                            "headers": {k.lower(): v for k, v in self.headers.items()},
                            "raw": raw,
                            "status": 500 if failing else 200,
                        }
                    )
                self._json(500 if failing else 200, {})

            def _json(self, status: int, body: dict[str, Any]) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, path: str | None = None) -> str:
        return f"http://127.0.0.1:{self.port}/{path or 'hook-' + uuid.uuid4().hex[:8]}"

    def crc_count(self) -> int:
        with self.lock:
            return len(self.tokens)

    def received(self, path: str) -> list[dict[str, Any]]:
        with self.lock:
            return [post for post in self.posts if post["path"] == path]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
