"""`roost receiver`, run as a real subprocess and registered as a webhook of a test server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.api.helpers import User, bearer, create_ok, new_user
from tests.support.client import Api
from tests.support.server import LiveServer, free_port

from roost.events.crc import signature

ROOST = str(Path(sys.executable).with_name("roost"))


class ReceiverProcess:
    def __init__(self, *args: str, secret: str | None = None, env_secret: str | None = None) -> None:
        self.port = free_port()
        env = {key: value for key, value in os.environ.items() if key != "ROOST_CONSUMER_SECRET"}
        if env_secret is not None:
            env["ROOST_CONSUMER_SECRET"] = env_secret
        command = [ROOST, "receiver", "--port", str(self.port)]
        if secret is not None:
            command += ["--consumer-secret", secret]
        self.proc = subprocess.Popen(
            [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.port}"

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    def wait_ready(self) -> ReceiverProcess:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"receiver exited: {self.proc.stderr.read() if self.proc.stderr else ''}")
            try:
                if httpx.get(self.base + "/_receiver/events", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise TimeoutError("receiver did not start")

    def url(self, path: str = "hook") -> str:
        return f"{self.base}/{path}"

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in list(self.lines) if line.strip()]

    def mode(self, **values: Any) -> httpx.Response:
        return httpx.post(self.base + "/_receiver/mode", json=values, timeout=5)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    extra = {"webhook_limit": "20", "subscription_limit": "100", "delivery_retry_schedule": "60"}
    live = LiveServer(tag="receiver-cli", rate_limits=False, extra=extra)
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


@pytest.fixture()
def start(credentials: dict[str, Any]) -> Iterator[Callable[..., ReceiverProcess]]:
    started: list[ReceiverProcess] = []

    def run(*args: str, **kwargs: Any) -> ReceiverProcess:
        if "secret" not in kwargs and "env_secret" not in kwargs:
            kwargs["secret"] = credentials["consumer_secret"]
        process = ReceiverProcess(*args, **kwargs).wait_ready()
        started.append(process)
        return process

    yield run
    for process in started:
        process.stop()


@pytest.fixture(autouse=True)
def clean(api: Api) -> Iterator[None]:
    yield
    for hook in api.get("/2/webhooks", conform=False).json()["data"]:
        api.delete(f"/2/webhooks/{hook['id']}")


def wait_for(check: Callable[[], Any], timeout: float = 8.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def register(api: Api, url: str) -> httpx.Response:
    return api.post("/2/webhooks", json={"url": url}, conform=False)


def subscribe(api: Api, webhook_id: str, user: User) -> None:
    path = f"/2/account_activity/webhooks/{webhook_id}/subscriptions/all"
    response = api.post(path, auth="none", headers=bearer(user), json={})
    assert response.status_code == 200, response.text


def test_events_are_printed_with_a_verified_signature(
    api: Api, start: Callable[..., ReceiverProcess]
) -> None:
    receiver = start(env_secret=api.creds["consumer_secret"])  # the secret from the environment
    response = register(api, receiver.url())
    assert response.status_code == 200, response.text
    hook = response.json()["data"]
    assert hook["valid"] is True
    user = new_user(api)
    subscribe(api, hook["id"], user)
    post = create_ok(api, user)

    [line] = wait_for(receiver.events)
    assert line["signature"] == "ok" and line["status"] == 200 and line["path"] == "/hook"
    assert line["event_id"].isdigit()
    assert line["body"]["tweet_create_events"][0]["id_str"] == post["id"]
    listed = httpx.get(receiver.base + "/_receiver/events", timeout=5).json()
    assert listed["events"] == [line] and listed["crc_count"] == 1
    assert api.creds["consumer_secret"] not in "".join(receiver.lines)


def test_a_bad_signature_is_reported(api: Api, start: Callable[..., ReceiverProcess]) -> None:
    receiver = start()
    raw = b'{"hello":"world"}'
    wrong = signature("some-other-secret", raw)
    answer = httpx.post(
        receiver.url("x"), content=raw, headers={"x-twitter-webhooks-signature": wrong}, timeout=5
    )
    assert answer.status_code == 200
    right = signature(api.creds["consumer_secret"], raw)
    httpx.post(receiver.url("x"), content=raw, headers={"x-twitter-webhooks-signature": right}, timeout=5)
    httpx.post(receiver.url("x"), content=raw, timeout=5)
    events = wait_for(lambda: len(receiver.events()) == 3 and receiver.events())
    assert [event["signature"] for event in events] == ["bad", "ok", "bad"]
    assert events[0]["body"] == {"hello": "world"} and events[0]["event_id"] is None


def test_service_brand_checks_its_own_header(api: Api, start: Callable[..., ReceiverProcess]) -> None:
    receiver = start("--brand", "service")
    raw = b"{}"
    good = signature(api.creds["consumer_secret"], raw)
    httpx.post(receiver.url(), content=raw, headers={"x-service-webhooks-signature": good}, timeout=5)
    httpx.post(receiver.url(), content=raw, headers={"x-twitter-webhooks-signature": good}, timeout=5)
    events = wait_for(lambda: len(receiver.events()) == 2 and receiver.events())
    assert [event["signature"] for event in events] == ["ok", "bad"]


@pytest.mark.parametrize("args", [("--wrong-token",), ("--fail-status", "500")])
def test_failing_crc_switches(api: Api, start: Callable[..., ReceiverProcess], args: tuple[str, ...]) -> None:
    receiver = start(*args)
    response = register(api, receiver.url())
    assert response.status_code == 400, response.text
    assert response.json()["errors"][0]["message"].startswith("CrcValidationFailed: ")


def test_wrong_secret_fails_the_crc(api: Api, start: Callable[..., ReceiverProcess]) -> None:
    receiver = start(secret="not-the-app-secret")
    response = register(api, receiver.url())
    assert response.status_code == 400
    assert "Invalid `response_token`" in response.json()["errors"][0]["message"]


def test_delay_switch(api: Api, start: Callable[..., ReceiverProcess]) -> None:
    receiver = start("--delay", "0.5")
    assert httpx.get(receiver.base + "/_receiver/mode", timeout=5).json()["delay"] == 0.5
    response = register(api, receiver.url())
    assert response.status_code == 200, response.text  # within the default 10 s CRC deadline
    # The delay is applied: with a CRC deadline shorter than it, the check times out.
    assert api.http.post("/_roost/settings", json={"crc_timeout_seconds": "0.2"}).status_code == 200
    try:
        late = register(api, receiver.url("late"))
    finally:
        api.http.post("/_roost/settings", json={"crc_timeout_seconds": None})
    assert late.status_code == 400, late.text
    assert late.json()["errors"][0]["message"] == (
        "CrcValidationFailed: Response not received within 0.2 seconds"
    )


def test_modes_switch_at_runtime(api: Api, start: Callable[..., ReceiverProcess]) -> None:
    receiver = start()
    hook = register(api, receiver.url()).json()["data"]
    user = new_user(api)
    subscribe(api, hook["id"], user)

    assert receiver.mode(status=503).json() == {"status": 503, "delay": 0.0, "wrong_token": False}
    create_ok(api, user)
    [line] = wait_for(receiver.events)
    assert line["status"] == 503 and line["signature"] == "ok"
    rows = wait_for(
        lambda: [
            row
            for row in api.http.get("/_roost/deliveries", params={"webhook_id": hook["id"]}).json()["data"]
            if row["last_status"] == 503
        ]
    )
    assert rows and rows[0]["state"] == "pending"

    assert receiver.mode(status=None, wrong_token=True).status_code == 200
    put = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert put.json() == {"data": {"valid": False}}
    assert receiver.mode(wrong_token=False).json() == {"status": None, "delay": 0.0, "wrong_token": False}
    put = api.request("PUT", f"/2/webhooks/{hook['id']}")
    assert put.json() == {"data": {"valid": True}}

    for bad in ({"status": "x"}, {"status": 42}, {"delay": -1}, {"wrong_token": 1}, {"colour": "red"}):
        assert receiver.mode(**bad).status_code == 400
    assert httpx.post(receiver.base + "/_receiver/mode", content=b"[1]", timeout=5).status_code == 400
    assert httpx.get(receiver.base + "/_receiver/mode", timeout=5).json()["status"] is None


def test_secret_is_required() -> None:
    env = {key: value for key, value in os.environ.items() if key != "ROOST_CONSUMER_SECRET"}
    result = subprocess.run(
        [ROOST, "receiver", "--port", str(free_port())], capture_output=True, text=True, env=env, timeout=30
    )
    assert result.returncode == 2
    assert "--consumer-secret" in result.stderr


def test_serve_has_the_strict_webhook_urls_switch() -> None:
    from click.testing import CliRunner

    from roost.cli import main

    result = CliRunner().invoke(main, ["serve", "--help"])
    assert result.exit_code == 0 and "--strict-webhook-urls" in result.output
    result = CliRunner().invoke(main, ["receiver", "--help"])
    assert result.exit_code == 0
    for switch in ("--consumer-secret", "--fail-status", "--delay", "--wrong-token", "--brand"):
        assert switch in result.output
