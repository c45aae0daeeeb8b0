"""A webhook receiver for tests that kill or multiply servers: answers CRC checks and counts every
signed delivery by its event id and by the post ids it carries (so duplicates and losses both show)."""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from roost.events.crc import signature
from roost.events.dispatch import EVENT_ID_HEADER


class _Server(ThreadingHTTPServer):
    # The default backlog of 5 overflows under a server's 64 parallel deliveries: refused connections
    # are retried by the kernel seconds later and the deliveries time out.
    request_queue_size = 256


class CountingReceiver:
    """`delay` seconds spent on each delivery keep deliveries in flight (for kill tests). Set `secret`
    to the app's consumer secret before deliveries arrive."""

    def __init__(self, delay: float = 0.0) -> None:
        self.secret = ""
        self.events: Counter[str] = Counter()
        self.posts: Counter[str] = Counter()
        self.bad_signatures = 0
        self.crc_checks = 0
        self.first_seen: dict[str, float] = {}  # event id -> when it first arrived (time.monotonic)
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                token = parse_qs(urlsplit(self.path).query).get("crc_token", [""])[0]
                with receiver.lock:
                    receiver.crc_checks += 1
                self._reply(json.dumps({"response_token": signature(receiver.secret, token)}).encode())

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                arrived = time.monotonic()
                if delay:
                    time.sleep(delay)
                good = self.headers.get("x-twitter-webhooks-signature") == signature(receiver.secret, raw)
                body: dict[str, Any] = json.loads(raw)
                with receiver.lock:
                    receiver.bad_signatures += int(not good)
                    event_id = str(self.headers.get(EVENT_ID_HEADER))
                    receiver.events[event_id] += 1
                    receiver.first_seen.setdefault(event_id, arrived)
                    for status in body.get("tweet_create_events", []):
                        receiver.posts[str(status["id_str"])] += 1
                self._reply(b"{}")

            def _reply(self, raw: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = _Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hook"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def count_of(self, ids: list[str]) -> int:
        """How many of the posts have arrived at least once."""
        with self.lock:
            return sum(1 for post_id in ids if post_id in self.posts)

    def has_posts(self, ids: list[str]) -> bool:
        return self.count_of(ids) == len(ids)

    def missing(self, ids: list[str]) -> list[str]:
        with self.lock:
            return [post_id for post_id in ids if post_id not in self.posts]
