"""Tests for the transport-level redirect behind ``roost run`` with Python children: the HTTP
client libraries that are redirected, what is left alone (other hosts, no target, a user's own
sitecustomize) and aiohttp.

Each scenario starts a real child process with ``redirect_env`` and checks, on a small recording
HTTP server, what actually arrived on the wire.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest
from tests.unit import redirect_support
from tests.unit.redirect_support import (
    CONSUMER_KEY,
    CONSUMER_SECRET,
    TWEET,
    RecordingServer,
    _base_env,
    assert_redirected,
    run_ok,
    run_python,
)

from roost.redirect import redirect_env

# The recording servers; bound here so that they, not the session `server` of tests/conftest.py, are used.
server = redirect_support.server
other_server = redirect_support.other_server


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
