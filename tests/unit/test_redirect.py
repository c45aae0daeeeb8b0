"""Tests for the transport-level redirect behind ``roost run``.

Each scenario starts a real child process (Python or Node) with ``redirect_env`` and checks,
on a small recording HTTP server, what actually arrived on the wire.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from oauthlib.oauth1.rfc5849 import signature as oauth_signature
from oauthlib.oauth1.rfc5849 import utils as oauth_utils

from roost.redirect import NODE_HOOK, REDIRECT_DIR, redirect_env, run_redirected
from roost.redirect import sitecustomize as sc

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


# --- pure helpers ----------------------------------------------------------------------


def test_importing_the_module_as_a_package_member_installs_nothing() -> None:
    # Only `import sitecustomize` at start-up activates it.
    assert not any(type(f).__name__ == "_PostImportFinder" for f in sys.meta_path)
    assert sc._CONFIG is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://127.0.0.1:8080", ("http", "127.0.0.1", 8080, "", "127.0.0.1:8080")),
        ("127.0.0.1:9000", ("http", "127.0.0.1", 9000, "", "127.0.0.1:9000")),
        ("https://roost.internal/base/", ("https", "roost.internal", None, "/base", "roost.internal")),
        ("http://[::1]:8080", ("http", "::1", 8080, "", "[::1]:8080")),
    ],
)
def test_parse_target(value: str, expected: tuple[object, ...]) -> None:
    target = sc.parse_target(value)
    assert target is not None
    assert (target.scheme, target.host, target.port, target.path_prefix, target.netloc) == expected


@pytest.mark.parametrize("value", ["", "   ", None, "ftp://host", "http://"])
def test_parse_target_rejects_unusable_values(value: str | None) -> None:
    assert sc.parse_target(value) is None


def test_plan_for_keeps_host_port_path_and_query() -> None:
    config = sc.load_config({"ROOST_TARGET": "http://127.0.0.1:8080/prefix"})
    assert config is not None

    plan = sc.plan_for("https://API.Twitter.com./2/tweets?ids=1%2C2&x=a+b#frag", config)
    assert plan is not None
    assert plan.url == "http://127.0.0.1:8080/prefix/2/tweets?ids=1%2C2&x=a+b"
    assert plan.host_header == "api.twitter.com."
    assert plan.proto == "https"

    plan = sc.plan_for("https://ads-api.twitter.com:8443/12/accounts", config)
    assert plan is not None
    assert plan.host_header == "ads-api.twitter.com:8443"
    # A default port is not part of the Host header.
    plan = sc.plan_for("https://upload.x.com:443/1.1/media/upload.json", config)
    assert plan is not None and plan.host_header == "upload.x.com"
    plan = sc.plan_for("http://x.com/", config)
    assert plan is not None and (plan.proto, plan.host_header) == ("http", "x.com")

    assert sc.plan_for("https://example.com/2/tweets", config) is None
    assert sc.plan_for("https://notapi.twitter.com/2/tweets", config) is None


def test_extra_hosts_from_environment() -> None:
    hosts = sc.redirect_hosts({"ROOST_REDIRECT_HOSTS": " Media.Example.com , ,localhost"})
    assert {"media.example.com", "localhost", "api.twitter.com"} <= hosts
    assert hosts >= sc.DEFAULT_HOSTS


def test_redirect_env_prefixes_paths_and_keeps_existing_values() -> None:
    base = {"PYTHONPATH": os.pathsep.join(["/a", "/b"]), "NODE_OPTIONS": "--max-old-space-size=512"}
    env = redirect_env("http://127.0.0.1:8080", base)

    assert env["PYTHONPATH"].split(os.pathsep) == [str(REDIRECT_DIR), "/a", "/b"]
    assert env["ROOST_TARGET"] == "http://127.0.0.1:8080"
    assert env["NODE_OPTIONS"].startswith("--max-old-space-size=512 --require ")
    assert str(NODE_HOOK) in env["NODE_OPTIONS"]
    assert (REDIRECT_DIR / "sitecustomize.py").is_file() and NODE_HOOK.is_file()
    assert base == {"PYTHONPATH": os.pathsep.join(["/a", "/b"]), "NODE_OPTIONS": "--max-old-space-size=512"}

    # Applying it twice (nested `roost run`) does not duplicate anything.
    again = redirect_env("http://127.0.0.1:9090", env)
    assert again["PYTHONPATH"] == env["PYTHONPATH"]
    assert again["NODE_OPTIONS"] == env["NODE_OPTIONS"]
    assert again["ROOST_TARGET"] == "http://127.0.0.1:9090"

    bare = redirect_env("http://t", {})
    assert bare["PYTHONPATH"] == str(REDIRECT_DIR)


# --- Python clients --------------------------------------------------------------------


def test_requests_get_is_redirected_and_libraries_are_patched_lazily(server: RecordingServer) -> None:
    out = run_ok(
        """
        import json, sys
        lazy = "requests" not in sys.modules and "httpx" not in sys.modules
        import requests
        r = requests.get("https://api.twitter.com/2/tweets?ids=1", headers={"Authorization": "Bearer x"})
        patched = getattr(requests.adapters.HTTPAdapter.send, "__roost_redirect__", False)
        print(json.dumps({"lazy": lazy, "patched": patched, "status": r.status_code, "url": r.url,
                          "body": r.json()}))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {
        "lazy": True,
        "patched": True,
        "status": 200,
        "url": "https://api.twitter.com/2/tweets?ids=1",
        "body": {"ok": True, "path": "/2/tweets"},
    }
    [seen] = server.seen
    assert_redirected(seen, host="api.twitter.com", path="/2/tweets", query={"ids": ["1"]})
    assert seen.authorization == "Bearer x"


def test_requests_keeps_a_non_default_port_in_host(server: RecordingServer) -> None:
    run_ok(
        """
        import requests
        requests.post("https://ads-api.twitter.com:8443/12/accounts/abc/campaigns?count=5", json={})
        print("{}")
        """,
        redirect_env(server.url, _base_env()),
    )
    [seen] = server.seen
    assert seen.method == "POST"
    assert_redirected(
        seen, host="ads-api.twitter.com:8443", path="/12/accounts/abc/campaigns", query={"count": ["5"]}
    )


@pytest.mark.parametrize(
    ("start", "landed_host", "via"),
    [("absolute", "api.x.com", "absolute"), ("relative", "api.twitter.com", "relative")],
)
def test_requests_redirects_to_public_hosts_are_rewritten_too(
    server: RecordingServer, start: str, landed_host: str, via: str
) -> None:
    out = run_ok(
        f"""
        import json, requests
        r = requests.get("https://api.twitter.com/redirect/{start}")
        print(json.dumps({{"url": r.url, "history": [h.url for h in r.history], "status": r.status_code}}))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {
        "url": f"https://{landed_host}/2/landed?via={via}",
        "history": [f"https://api.twitter.com/redirect/{start}"],
        "status": 200,
    }
    first, second = server.seen
    assert_redirected(first, host="api.twitter.com", path=f"/redirect/{start}")
    assert_redirected(second, host=landed_host, path="/2/landed", query={"via": [via]})


def test_httpx_sync_get_is_redirected(server: RecordingServer) -> None:
    out = run_ok(
        """
        import json, httpx
        r = httpx.get("https://api.x.com/2/users/me?user.fields=id")
        with httpx.Client(follow_redirects=True) as client:
            hop = client.get("https://api.twitter.com/redirect/absolute")
        print(json.dumps({"url": str(r.url), "body": r.json(), "hop": str(hop.url),
                          "history": [str(h.url) for h in hop.history]}))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {
        "url": "https://api.x.com/2/users/me?user.fields=id",
        "body": {"ok": True, "path": "/2/users/me"},
        "hop": "https://api.x.com/2/landed?via=absolute",
        "history": ["https://api.twitter.com/redirect/absolute"],
    }
    me, hop1, hop2 = server.seen
    assert_redirected(me, host="api.x.com", path="/2/users/me", query={"user.fields": ["id"]})
    assert_redirected(hop1, host="api.twitter.com", path="/redirect/absolute")
    assert_redirected(hop2, host="api.x.com", path="/2/landed", query={"via": ["absolute"]})


def test_httpx_async_client_is_redirected(server: RecordingServer) -> None:
    out = run_ok(
        """
        import asyncio, json, httpx

        async def main():
            async with httpx.AsyncClient() as client:
                r = await client.post("https://upload.x.com/2/media/upload?command=INIT", data={"a": "b"})
                return {"status": r.status_code, "url": str(r.url)}

        print(json.dumps(asyncio.run(main())))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {"status": 200, "url": "https://upload.x.com/2/media/upload?command=INIT"}
    [seen] = server.seen
    assert seen.method == "POST"
    assert_redirected(seen, host="upload.x.com", path="/2/media/upload", query={"command": ["INIT"]})


def test_tweepy_client_get_tweet(server: RecordingServer) -> None:
    out = run_ok(
        """
        import json, tweepy
        response = tweepy.Client(bearer_token="x").get_tweet(20)
        print(json.dumps({"id": response.data.id, "text": response.data.text}))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {"id": 20, "text": TWEET["data"]["text"]}
    [seen] = server.seen
    assert_redirected(seen, host="api.twitter.com", path="/2/tweets/20")
    assert seen.authorization == "Bearer x"


def test_xdk_oauth1_request_token_keeps_a_valid_signature(server: RecordingServer) -> None:
    out = run_ok(
        f"""
        import json
        from xdk.oauth1_auth import OAuth1
        auth = OAuth1(api_key="{CONSUMER_KEY}", api_secret="{CONSUMER_SECRET}", callback="oob")
        token = auth.get_request_token()
        print(json.dumps([token.oauth_token, token.oauth_token_secret]))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == ["rtok", "rsecret"]
    [seen] = server.seen
    assert seen.method == "POST"
    assert_redirected(seen, host="api.x.com", path="/oauth/request_token", query={"oauth_callback": ["oob"]})
    assert seen.signature_valid is True


def test_requests_oauthlib_signed_post_keeps_a_valid_signature(server: RecordingServer) -> None:
    out = run_ok(
        f"""
        import json
        from requests_oauthlib import OAuth1Session
        session = OAuth1Session("{CONSUMER_KEY}", client_secret="{CONSUMER_SECRET}", callback_uri="oob")
        token = session.fetch_request_token("https://api.x.com/oauth/request_token")
        signed = session.post("https://api.x.com/oauth/request_token?x_auth_access_type=read",
                              data={{"extra": "1"}})
        print(json.dumps({{"token": token["oauth_token"], "status": signed.status_code}}))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {"token": "rtok", "status": 200}
    fetch, post = server.seen
    for seen in (fetch, post):
        assert seen.method == "POST"
        assert seen.authorization is not None and seen.authorization.startswith("OAuth ")
        assert seen.signature_valid is True
    assert_redirected(
        post, host="api.x.com", path="/oauth/request_token", query={"x_auth_access_type": ["read"]}
    )


# --- what is left alone ----------------------------------------------------------------


def test_other_hosts_are_not_rewritten(server: RecordingServer, other_server: RecordingServer) -> None:
    run_ok(
        f"""
        import httpx, requests
        requests.get("{other_server.url}/plain?q=1")
        httpx.get("{other_server.url}/plain?q=2")
        print("{{}}")
        """,
        redirect_env(server.url, _base_env()),
    )
    assert server.seen == []
    assert [(s.path, s.query, s.host, s.forwarded_proto) for s in other_server.seen] == [
        ("/plain", {"q": ["1"]}, f"127.0.0.1:{other_server.port}", None),
        ("/plain", {"q": ["2"]}, f"127.0.0.1:{other_server.port}", None),
    ]


def test_extra_hosts_and_no_redirect_without_target(
    server: RecordingServer, other_server: RecordingServer
) -> None:
    code = f"""
        import json, requests
        r = requests.get("http://localhost:{other_server.port}/extra")
        patched = getattr(requests.adapters.HTTPAdapter.send, "__roost_redirect__", False)
        print(json.dumps({{"patched": patched, "url": r.url}}))
        """
    env = redirect_env(server.url, _base_env())
    env["ROOST_REDIRECT_HOSTS"] = "localhost"

    # With a target, the extra host goes to roost, keeping its http scheme and port.
    assert run_ok(code, env) == {"patched": True, "url": f"http://localhost:{other_server.port}/extra"}
    [seen] = server.seen
    assert (seen.path, seen.host, seen.forwarded_proto) == (
        "/extra",
        f"localhost:{other_server.port}",
        "http",
    )
    assert other_server.seen == []

    # Without ROOST_TARGET nothing is patched and the request goes where it was addressed.
    del env["ROOST_TARGET"]
    assert run_ok(code, env)["patched"] is False  # type: ignore[index]
    assert len(server.seen) == 1
    [direct] = other_server.seen
    assert (direct.path, direct.forwarded_proto) == ("/extra", None)


def test_existing_user_sitecustomize_still_runs(server: RecordingServer, tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import os
            import requests  # imported at start-up: must still be patched
            requests.user_sitecustomize_ran = True
            with open(os.environ["ROOST_TEST_MARKER"], "w") as fh:
                fh.write("ran")
            """
        )
    )
    marker = tmp_path / "marker.txt"
    base = _base_env()
    base["PYTHONPATH"] = str(tmp_path)
    base["ROOST_TEST_MARKER"] = str(marker)
    out = run_ok(
        """
        import json, requests
        r = requests.get("https://api.twitter.com/2/users/me")
        print(json.dumps({"ran": requests.user_sitecustomize_ran, "status": r.status_code}))
        """,
        redirect_env(server.url, base),
    )
    assert out == {"ran": True, "status": 200}
    assert marker.read_text() == "ran"
    [seen] = server.seen
    assert_redirected(seen, host="api.twitter.com", path="/2/users/me")


def test_failing_user_sitecustomize_does_not_stop_the_program(
    server: RecordingServer, tmp_path: Path
) -> None:
    (tmp_path / "sitecustomize.py").write_text("raise RuntimeError('broken user hook')\n")
    base = _base_env()
    base["PYTHONPATH"] = str(tmp_path)
    proc = run_python(
        "import requests; print(requests.get('https://api.twitter.com/2/x').status_code)",
        redirect_env(server.url, base),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "200"
    assert "Error in sitecustomize" in proc.stderr and "broken user hook" in proc.stderr


# --- aiohttp (optional dependency) -----------------------------------------------------

needs_aiohttp = pytest.mark.skipif(
    importlib.util.find_spec("aiohttp") is None, reason="aiohttp is not installed"
)


@needs_aiohttp
def test_aiohttp_session_and_redirects(server: RecordingServer) -> None:
    out = run_ok(
        """
        import asyncio, json, aiohttp

        async def main():
            async with aiohttp.ClientSession() as session:
                async with session.get("https://api.twitter.com/2/tweets", params={"ids": "1"}) as r:
                    body = await r.json()
                async with session.get("https://api.twitter.com/redirect/absolute") as hop:
                    await hop.read()
                    return {"body": body, "url": str(r.url), "hop": str(hop.url),
                            "history": [str(h.url) for h in hop.history]}

        print(json.dumps(asyncio.run(main())))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {
        "body": {"ok": True, "path": "/2/tweets"},
        "url": "https://api.twitter.com/2/tweets?ids=1",
        "hop": "https://api.x.com/2/landed?via=absolute",
        "history": ["https://api.twitter.com/redirect/absolute"],
    }
    tweets, hop1, hop2 = server.seen
    assert_redirected(tweets, host="api.twitter.com", path="/2/tweets", query={"ids": ["1"]})
    assert_redirected(hop1, host="api.twitter.com", path="/redirect/absolute")
    assert_redirected(hop2, host="api.x.com", path="/2/landed", query={"via": ["absolute"]})


@needs_aiohttp
@pytest.mark.skipif(importlib.util.find_spec("async_lru") is None, reason="async_lru is not installed")
def test_tweepy_async_client_get_tweet(server: RecordingServer) -> None:
    out = run_ok(
        """
        import asyncio, json
        from tweepy.asynchronous import AsyncClient

        async def main():
            response = await AsyncClient(bearer_token="x").get_tweet(20)
            return {"id": response.data.id}

        print(json.dumps(asyncio.run(main())))
        """,
        redirect_env(server.url, _base_env()),
    )
    assert out == {"id": 20}
    [seen] = server.seen
    assert_redirected(seen, host="api.twitter.com", path="/2/tweets/20")


# --- run_redirected --------------------------------------------------------------------


def test_run_redirected_forwards_the_exit_code_and_redirects_the_child(server: RecordingServer) -> None:
    code = "import requests, sys; requests.get('https://api.x.com/2/ping'); sys.exit(7)"
    assert run_redirected(server.url, [sys.executable, "-c", code]) == 7
    [seen] = server.seen
    assert_redirected(seen, host="api.x.com", path="/2/ping")
    assert run_redirected(server.url, [sys.executable, "-c", "pass"]) == 0


def test_run_redirected_reports_a_missing_command() -> None:
    assert run_redirected("http://127.0.0.1:9", ["roost-no-such-command-xyz"]) == 127
    with pytest.raises(ValueError):
        run_redirected("http://127.0.0.1:9", [])


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals only")
def test_run_redirected_passes_sigint_to_the_child() -> None:
    child = (
        "import sys, time\n"
        "try:\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(30)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
    )
    launcher = (
        "import sys\n"
        "from roost.redirect import run_redirected\n"
        f"sys.exit(run_redirected('http://127.0.0.1:9', [sys.executable, '-c', {child!r}]))\n"
    )
    # No terminal here, so roost itself must relay the SIGINT it receives.
    proc = subprocess.Popen(
        [sys.executable, "-c", launcher],
        env=_base_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 42
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_run_redirected_reports_death_by_signal() -> None:
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("POSIX signals only")
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert run_redirected("http://127.0.0.1:9", [sys.executable, "-c", code]) == 128 + signal.SIGKILL


# --- Node ------------------------------------------------------------------------------

NODE_SCRIPT = r"""
const http = require('http');
const https = require('https');

function send(mod, args, body) {
  return new Promise((resolve, reject) => {
    const req = mod.request(...args, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => resolve({ status: res.statusCode, data }));
    });
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

(async () => {
  const out = {};
  out.get = await new Promise((resolve, reject) => {
    https.get('https://api.twitter.com/2/tweets?ids=1', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    }).on('error', reject);
  });
  out.post = (await send(https, [new URL('https://api.x.com/oauth/request_token?oauth_callback=oob'),
    { method: 'POST', headers: { Authorization: 'Bearer n' } }])).status;
  out.options = (await send(https, [{ hostname: 'ADS-API.twitter.com', port: 8443,
    path: '/12/accounts?count=2', method: 'PUT' }], '{}')).status;
  out.other = (await send(http, [{ hostname: '127.0.0.1', port: Number(process.env.OTHER_PORT),
    path: '/plain?q=3' }])).status;
  const fetched = await fetch('https://upload.twitter.com/1.1/media/upload.json?command=STATUS');
  out.fetch = { status: fetched.status, url: fetched.url };
  console.log(JSON.stringify(out));
})().catch((err) => { console.error(err); process.exit(1); });
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_node_https_http_and_fetch_are_redirected(
    server: RecordingServer, other_server: RecordingServer, tmp_path: Path
) -> None:
    script = tmp_path / "client.js"
    script.write_text(NODE_SCRIPT)
    env = redirect_env(server.url, _base_env())
    env["OTHER_PORT"] = str(other_server.port)
    proc = subprocess.run(["node", str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {
        "get": 200,
        "post": 200,
        "options": 200,
        "other": 200,
        "fetch": {"status": 200, "url": "https://upload.twitter.com/1.1/media/upload.json?command=STATUS"},
    }
    get, post, put, fetched = server.seen
    assert_redirected(get, host="api.twitter.com", path="/2/tweets", query={"ids": ["1"]})
    assert post.method == "POST" and post.authorization == "Bearer n"
    assert_redirected(post, host="api.x.com", path="/oauth/request_token", query={"oauth_callback": ["oob"]})
    assert put.method == "PUT"
    assert_redirected(put, host="ADS-API.twitter.com:8443", path="/12/accounts", query={"count": ["2"]})
    assert_redirected(
        fetched, host="upload.twitter.com", path="/1.1/media/upload.json", query={"command": ["STATUS"]}
    )
    [other] = other_server.seen
    assert (other.path, other.host, other.forwarded_proto) == (
        "/plain",
        f"127.0.0.1:{other_server.port}",
        None,
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_node_hook_does_nothing_without_target(tmp_path: Path) -> None:
    script = tmp_path / "check.js"
    script.write_text(
        "const https = require('https');\n"
        "console.log(JSON.stringify([https.request.toString().includes('splitArgs'),"
        " String(globalThis.fetch).includes('wrapDispatcher')]));\n"
    )
    env = redirect_env("http://127.0.0.1:9", _base_env())
    run = ["node", str(script)]
    proc = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [True, True]

    del env["ROOST_TARGET"]
    proc = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [False, False]
