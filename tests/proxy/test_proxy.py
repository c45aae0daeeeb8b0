"""`roost proxy`: the platform's hosts answered by roost through CONNECT and TLS with the local CA
(curl, Python, Node), OAuth 1.0a signatures made for https://api.x.com, other hosts refused or
tunnelled with --pass-through, streams relayed as they come, `--print-ca`."""

from __future__ import annotations

import json
import os
import socket
import ssl
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.server import LiveServer, free_port

ROOST = [sys.executable, "-m", "roost"]


class Proxy:
    """`roost proxy` as a subprocess on a free port, its CA in a temporary data directory."""

    def __init__(self, target: str, data_dir: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.log = data_dir / f"proxy-{self.port}.log"
        command = [*ROOST, "proxy", "--port", str(self.port), "--target", target, "--data-dir", str(data_dir)]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen([*command, *extra], stdout=log, stderr=subprocess.STDOUT)
        _wait_for_port(self.port, self.process)
        self.ca = data_dir / "proxy-ca" / "ca.pem"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _wait_for_port(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert process is None or process.poll() is None, "the proxy exited"
            assert time.monotonic() < deadline, f"nothing listens on {port}"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    # A keep-alive every 0.3 s: an idle stream still shows whether lines flow through as they come.
    live = LiveServer(tag="proxy", rate_limits=False, extra={"stream_keepalive_s": "0.3"}).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture(scope="module")
def proxy(server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Proxy]:
    running = Proxy(server.base_url, tmp_path_factory.mktemp("proxy-data"))
    yield running
    running.stop()


def _curl(proxy: Proxy, *args: str) -> subprocess.CompletedProcess[str]:
    command = ["curl", "-sS", "--noproxy", "", "--max-time", "30", "--proxy", proxy.url, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def _through_proxy(proxy: Proxy) -> httpx.Client:
    return httpx.Client(proxy=proxy.url, verify=ssl.create_default_context(cafile=str(proxy.ca)), timeout=30)


def test_curl_reaches_roost_for_api_x_com(proxy: Proxy, credentials: dict[str, Any]) -> None:
    token = credentials["oauth2_user_token"]
    result = _curl(
        proxy,
        "--cacert",
        str(proxy.ca),
        "https://api.x.com/2/users/me",
        "-H",
        f"Authorization: Bearer {token}",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data"] == {
        "id": credentials["user_id"],
        "name": "Roost Developer",
        "username": credentials["username"],
    }


def test_ca_and_key_files(proxy: Proxy) -> None:
    directory = proxy.data_dir / "proxy-ca"
    for key in (directory / "ca-key.pem", directory / "hosts" / "api.x.com-key.pem"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
    assert (directory / "hosts" / "api.x.com.pem").read_text().startswith("-----BEGIN CERTIFICATE-----")


def test_print_ca_prints_the_existing_path(proxy: Proxy) -> None:
    result = subprocess.run(
        [*ROOST, "proxy", "--print-ca", "--data-dir", str(proxy.data_dir)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == proxy.ca
    assert proxy.ca.is_file()


def test_print_ca_creates_the_ca_under_roost_data_dir(tmp_path: Path) -> None:
    env = {**os.environ, "ROOST_DATA_DIR": str(tmp_path)}
    result = subprocess.run([*ROOST, "proxy", "--print-ca"], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    path = Path(result.stdout.strip())
    assert path == tmp_path / "proxy-ca" / "ca.pem" and path.is_file()
    assert stat.S_IMODE((tmp_path / "proxy-ca" / "ca-key.pem").stat().st_mode) == 0o600


def test_oauth1_signature_made_for_https_api_x_com_verifies(
    proxy: Proxy, credentials: dict[str, Any]
) -> None:
    from roost.auth.oauth1 import sign_request

    url = "https://api.x.com/2/users/me?user.fields=created_at"
    signed = sign_request(
        "GET",
        url,
        credentials["consumer_key"],
        credentials["consumer_secret"],
        token=credentials["access_token"],
        token_secret=credentials["access_token_secret"],
    )
    with _through_proxy(proxy) as client:
        response = client.get(url, headers={"Authorization": signed})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["id"] == credentials["user_id"]


def test_oauth1_over_plain_http_proxy_request(proxy: Proxy, credentials: dict[str, Any]) -> None:
    """An absolute-form `GET http://api.x.com/...` to the proxy: signed for the http URL, verified."""
    from roost.auth.oauth1 import sign_request

    url = "http://api.x.com/2/users/me"
    keys = (credentials["consumer_key"], credentials["consumer_secret"])
    signed = sign_request(
        "GET", url, *keys, token=credentials["access_token"], token_secret=credentials["access_token_secret"]
    )
    result = _curl(proxy, url, "-H", f"Authorization: {signed}")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["data"]["id"] == credentials["user_id"]


def test_ads_sandbox_host_reaches_the_sandbox(proxy: Proxy, credentials: dict[str, Any]) -> None:
    from roost.auth.oauth1 import sign_request

    url = f"https://ads-api-sandbox.x.com/12/accounts/{credentials['ads_sandbox_account_id']}"
    keys = (credentials["consumer_key"], credentials["consumer_secret"])
    signed = sign_request(
        "GET", url, *keys, token=credentials["access_token"], token_secret=credentials["access_token_secret"]
    )
    with _through_proxy(proxy) as client:
        response = client.get(url, headers={"Authorization": signed})
    assert response.status_code == 200, response.text
    assert response.json()["data"]["id"] == credentials["ads_sandbox_account_id"]


def test_keep_alive_carries_several_requests(proxy: Proxy, credentials: dict[str, Any]) -> None:
    headers = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    url = f"https://api.x.com/2/users/by/username/{credentials['username']}"
    with _through_proxy(proxy) as client:
        answers = [client.get(url, headers=headers) for _ in range(3)]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    # httpx reuses one tunnel; curl with two URLs reports how many connections it opened.
    result = _curl(
        proxy,
        "--cacert",
        str(proxy.ca),
        "-H",
        f"Authorization: Bearer {credentials['bearer_token']}",
        "-o",
        "/dev/null",
        "-o",
        "/dev/null",
        "-w",
        "%{http_code} %{num_connects}\n",
        url,
        url,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["200 1", "200 0"]


def test_upload_body_streams_through(proxy: Proxy, credentials: dict[str, Any]) -> None:
    """A large chunked request body reaches roost whole (a media upload's INIT then APPEND)."""
    payload = os.urandom(3 * 1024 * 1024)
    headers = {"Authorization": f"Bearer {credentials['oauth2_user_token']}"}
    with _through_proxy(proxy) as client:
        init = client.post(
            "https://api.x.com/2/media/upload/initialize",
            headers=headers,
            json={"media_type": "video/mp4", "total_bytes": len(payload), "media_category": "tweet_video"},
        )
        assert init.status_code == 200, init.text
        media_id = init.json()["data"]["id"]

        def chunks() -> Iterator[bytes]:
            for start in range(0, len(payload), 256 * 1024):
                yield payload[start : start + 256 * 1024]

        boundary = uuid.uuid4().hex
        head = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="segment_index"\r\n\r\n0\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="media"; filename="blob"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        ).encode()

        def body() -> Iterator[bytes]:
            yield head
            yield from chunks()
            yield f"\r\n--{boundary}--\r\n".encode()

        append = client.post(
            f"https://api.x.com/2/media/upload/{media_id}/append",
            headers={**headers, "Content-Type": f"multipart/form-data; boundary={boundary}"},
            content=body(),
        )
    assert append.status_code == 200, append.text


def test_filtered_stream_lines_flow_through(
    proxy: Proxy, server: LiveServer, credentials: dict[str, Any]
) -> None:
    bearer = {"Authorization": f"Bearer {credentials['bearer_token']}"}
    word = f"proxied{uuid.uuid4().hex[:8]}"
    rules = "/2/tweets/search/stream/rules"
    added = httpx.post(server.base_url + rules, headers=bearer, json={"add": [{"value": word}]})
    assert added.status_code == 201, added.text
    try:
        with (
            _through_proxy(proxy) as client,
            client.stream("GET", "https://api.x.com/2/tweets/search/stream", headers=bearer) as stream,
        ):
            assert stream.status_code == 200
            lines = stream.iter_lines()
            assert next(lines) == ""  # a keep-alive, while the response goes on
            post = httpx.post(
                server.base_url + "/2/tweets",
                headers={"Authorization": f"Bearer {credentials['oauth2_user_token']}"},
                json={"text": f"hello {word}"},
            )
            assert post.status_code == 201, post.text
            line = next(line for line in lines if line.strip())
            assert json.loads(line)["data"]["id"] == post.json()["data"]["id"]
    finally:
        httpx.post(server.base_url + rules, headers=bearer, params={"delete_all": "true"}, json={})


def test_node_reaches_roost_through_https_proxy(
    proxy: Proxy, credentials: dict[str, Any], tmp_path: Path
) -> None:
    script = tmp_path / "client.cjs"
    script.write_text(NODE_CLIENT)
    env = {**os.environ, "HTTPS_PROXY": proxy.url, "NODE_EXTRA_CA_CERTS": str(proxy.ca)}
    env.pop("NODE_OPTIONS", None)
    token = credentials["oauth2_user_token"]
    result = subprocess.run(
        ["node", str(script), "https://api.x.com/2/users/me", f"Bearer {token}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    status, _, body = result.stdout.partition(" ")
    assert status == "200"
    assert json.loads(body)["data"]["username"] == credentials["username"]


# Node's https module does not read HTTPS_PROXY (Node 20): the client opens the tunnel itself with a
# CONNECT, then speaks TLS in it, trusting the CA through NODE_EXTRA_CA_CERTS.
NODE_CLIENT = """
const http = require('http');
const https = require('https');
const tls = require('tls');
const [url, authorization] = process.argv.slice(2);
const target = new URL(url);
const proxy = new URL(process.env.HTTPS_PROXY);
const authority = `${target.hostname}:${target.port || 443}`;
const connect = http.request({
  host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority, headers: {host: authority},
});
connect.on('connect', (answer, socket) => {
  if (answer.statusCode !== 200) {
    console.error(`CONNECT answered ${answer.statusCode}`);
    process.exit(2);
  }
  const request = https.request({
    host: target.hostname,
    path: target.pathname + target.search,
    headers: {authorization},
    createConnection: () => tls.connect({socket, servername: target.hostname}),
  }, (response) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => { body += chunk; });
    response.on('end', () => { console.log(`${response.statusCode} ${body}`); socket.destroy(); });
  });
  request.on('error', (error) => { console.error(error.message); process.exit(3); });
  request.end();
});
connect.on('error', (error) => { console.error(error.message); process.exit(4); });
connect.end();
"""


def test_other_hosts_are_refused_with_a_reason(proxy: Proxy) -> None:
    with socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as sock:
        sock.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        answer = _read_until_closed(sock)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 403 ")
    assert (
        body.decode().count("\n") == 1 and "example.com is not one of the platform's hosts" in body.decode()
    )
    # curl sees the refusal of the tunnel; a plain-HTTP request for another host is refused too.
    refused = _curl(proxy, "--cacert", str(proxy.ca), "-o", "/dev/null", "https://example.com/")
    assert refused.returncode != 0 and "403" in refused.stderr
    plain = _curl(proxy, "-o", "/dev/null", "-w", "%{http_code}", "http://example.com/")
    assert plain.stdout == "403"


def _read_until_closed(sock: socket.socket) -> bytes:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.path} via {self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_pass_through_tunnels_other_hosts(server: LiveServer, tmp_path: Path) -> None:
    local = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    threading.Thread(target=local.serve_forever, daemon=True).start()
    port = local.server_address[1]
    passing = Proxy(server.base_url, tmp_path, "--pass-through")
    try:
        tunnelled = _curl(passing, "--proxytunnel", f"http://127.0.0.1:{port}/tunnel")
        assert tunnelled.returncode == 0, tunnelled.stderr
        assert tunnelled.stdout == f"hello from /tunnel via 127.0.0.1:{port}"
        forwarded = _curl(passing, f"http://127.0.0.1:{port}/plain")
        assert forwarded.returncode == 0, forwarded.stderr
        assert forwarded.stdout == f"hello from /plain via 127.0.0.1:{port}"
    finally:
        passing.stop()
        local.shutdown()
        local.server_close()
