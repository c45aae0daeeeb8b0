"""Shared support for the tests of the transport-level redirect behind ``roost run``.

Each scenario starts a real child process (Python or Node) with ``redirect_env`` and checks,
on a small recording HTTP server, what actually arrived on the wire: this module holds that
recording server, its ``server``/``other_server`` fixtures and the helpers that run the children.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from oauthlib.oauth1.rfc5849 import signature as oauth_signature
from oauthlib.oauth1.rfc5849 import utils as oauth_utils

CONSUMER_KEY = "ckey"
CONSUMER_SECRET = "csecret"
TWEET = {"data": {"id": "20", "text": "just setting up my twttr", "edit_history_tweet_ids": ["20"]}}


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, list[str]]
    host: str | None
    forwarded_proto: str | None
    forwarded_host: str | None
    authorization: str | None
    signature_valid: bool | None


def _oauth_signature_valid(method: str, url: str, headers: dict[str, str], body: str | None) -> bool:
    """Check an HMAC-SHA1 OAuth 1.0a signature the way a server would, from the rebuilt URL."""
    try:
        parts = urlsplit(url)
        params = oauth_signature.collect_parameters(
            uri_query=parts.query, body=body, headers=headers, exclude_oauth_signature=True
        )
        base = oauth_signature.signature_base_string(
            method,
            oauth_signature.base_string_uri(f"{parts.scheme}://{parts.netloc}{parts.path}"),
            oauth_signature.normalize_parameters(params),
        )
        header = dict(oauth_utils.parse_authorization_header(headers["Authorization"]))
    except ValueError:
        return False
    # The only token the test server hands out is the request token "rtok"/"rsecret".
    token_secret = "rsecret" if header.get("oauth_token") == "rtok" else ""
    key = f"{oauth_utils.escape(CONSUMER_SECRET)}&{oauth_utils.escape(token_secret)}".encode()
    expected = base64.b64encode(hmac.new(key, base.encode(), hashlib.sha1).digest()).decode()
    return hmac.compare_digest(expected, unquote(header["oauth_signature"]))


class RecordingServer:
    """Threaded stdlib HTTP server that records each request and answers with canned bodies."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode() if length else ""
                parts = urlsplit(self.path)
                auth = self.headers.get("Authorization")
                valid = None
                if auth and auth.startswith("OAuth "):
                    # What roost does: rebuild the signed URL from Host + X-Forwarded-Proto.
                    proto = self.headers.get("X-Forwarded-Proto", "http")
                    url = f"{proto}://{self.headers.get('Host')}{self.path}"
                    form = self.headers.get("Content-Type", "").startswith("application/x-www-form")
                    valid = _oauth_signature_valid(
                        self.command, url, dict(self.headers.items()), body if form else None
                    )
                recorder.seen.append(
                    Seen(
                        method=self.command,
                        path=parts.path,
                        query=parse_qs(parts.query),
                        host=self.headers.get("Host"),
                        forwarded_proto=self.headers.get("X-Forwarded-Proto"),
                        forwarded_host=self.headers.get("X-Forwarded-Host"),
                        authorization=auth,
                        signature_valid=valid,
                    )
                )
                self._respond(parts.path)

            def _respond(self, path: str) -> None:
                if path.startswith("/redirect/"):
                    location = {
                        "/redirect/absolute": "https://api.x.com/2/landed?via=absolute",
                        "/redirect/relative": "/2/landed?via=relative",
                    }[path]
                    self.send_response(302)
                    self.send_header("Location", location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if path.endswith("/oauth/request_token"):
                    payload = b"oauth_token=rtok&oauth_token_secret=rsecret&oauth_callback_confirmed=true"
                    ctype = "application/x-www-form-urlencoded"
                else:
                    data = TWEET if path == "/2/tweets/20" else {"ok": True, "path": path}
                    payload, ctype = json.dumps(data).encode(), "application/json"
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = _handle

            def log_message(self, format: str, *args: object) -> None:
                pass  # keep test output quiet

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    srv = RecordingServer()
    yield srv
    srv.close()


@pytest.fixture
def other_server() -> Iterator[RecordingServer]:
    srv = RecordingServer()
    yield srv
    srv.close()


def _base_env() -> dict[str, str]:
    # Proxy settings or an outer `roost run` would change what reaches the test servers.
    drop = ("ROOST_TARGET", "ROOST_REDIRECT_HOSTS", "NODE_OPTIONS")
    return {k: v for k, v in os.environ.items() if k not in drop and not k.lower().endswith("_proxy")}


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def run_ok(code: str, env: dict[str, str]) -> object:
    """Run ``code`` in a child; it must succeed and print JSON on its last line."""
    proc = run_python(code, env)
    assert proc.returncode == 0, f"child failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


def assert_redirected(seen: Seen, *, host: str, path: str, query: dict[str, list[str]] | None = None) -> None:
    assert seen.path == path
    assert seen.query == (query or {})
    assert seen.host == host
    assert seen.forwarded_proto == "https"
    assert seen.forwarded_host == host
