"""Tests for the transport-level redirect behind ``roost run`` with Node children (http, https and
fetch), checked on a small recording HTTP server.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from tests.unit import redirect_support
from tests.unit.redirect_support import (
    RecordingServer,
    _base_env,
    assert_redirected,
)

from roost.redirect import redirect_env

# The recording servers; bound here so that they, not the session `server` of tests/conftest.py, are used.
server = redirect_support.server
other_server = redirect_support.other_server


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
