"""`redirecting`, the in-process redirect behind the plugin's `roost_redirect`: urllib is redirected
too, blocks nest, and each puts back exactly what it found."""

from __future__ import annotations

import sys
import urllib.request

import requests
from tests.unit import redirect_support
from tests.unit.redirect_support import RecordingServer, assert_redirected

from roost.redirect import sitecustomize as transport

# The recording servers; bound here so that they, not the session `server` of tests/conftest.py, are used.
server = redirect_support.server
other_server = redirect_support.other_server


def _config(target: str) -> transport.Config:
    config = transport.load_config({"ROOST_TARGET": target})
    assert config is not None
    return config


def _patched() -> list[bool]:
    functions = [requests.adapters.HTTPAdapter.send, urllib.request.AbstractHTTPHandler.do_open]
    return [hasattr(function, "__roost_redirect__") for function in functions]


def test_urllib_is_redirected_keeping_the_public_url(server: RecordingServer) -> None:
    with transport.redirecting(_config(server.url)):
        request = urllib.request.Request("https://api.x.com/2/tweets?ids=1", headers={"X-Test": "1"})
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
            assert response.url == "https://api.x.com/2/tweets?ids=1"
        # urllib follows a relative Location against the public URL, which is redirected again.
        with urllib.request.urlopen("https://api.twitter.com/redirect/relative", timeout=10) as response:
            assert response.url == "https://api.twitter.com/2/landed?via=relative"
    first, hop, landed = server.seen
    assert_redirected(first, host="api.x.com", path="/2/tweets", query={"ids": ["1"]})
    assert_redirected(hop, host="api.twitter.com", path="/redirect/relative")
    assert_redirected(landed, host="api.twitter.com", path="/2/landed", query={"via": ["relative"]})


def test_blocks_nest_and_each_undoes_its_own(server: RecordingServer, other_server: RecordingServer) -> None:
    finders = list(sys.meta_path)
    assert _patched() == [False, False]
    with transport.redirecting(_config(server.url)):
        assert _patched() == [True, True]
        with transport.redirecting(_config(other_server.url)):
            requests.get("https://api.twitter.com/2/users/me", timeout=10)
        requests.get("https://api.twitter.com/2/users/me", timeout=10)
        assert _patched() == [True, True]
    assert _patched() == [False, False]
    assert sys.meta_path == finders
    assert transport._CONFIG is None
    assert len(server.seen) == len(other_server.seen) == 1
