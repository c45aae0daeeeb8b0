"""No event is lost when the server is killed during a burst of deliveries: after a restart every
acknowledged post reaches the webhook (duplicates allowed, loss not)."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
from tests.api.test_persistence import _serve, _wait_ready
from tests.support.counting_receiver import CountingReceiver
from tests.support.server import free_port, fresh_database_url


def _burst(
    base_url: str, token: str, acknowledged: list[str], lock: threading.Lock
) -> list[threading.Thread]:
    def writer(worker: int) -> None:
        headers = {"Authorization": f"Bearer {token}"}
        with httpx.Client(timeout=5) as client:
            for index in range(10_000):
                try:
                    response = client.post(
                        base_url + "/2/tweets", json={"text": f"durable {worker}-{index}"}, headers=headers
                    )
                except httpx.HTTPError:
                    return
                if response.status_code == 201:
                    with lock:
                        acknowledged.append(response.json()["data"]["id"])

    threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(6)]
    for thread in threads:
        thread.start()
    return threads


def test_every_event_is_delivered_after_a_kill_during_a_delivery_burst(tmp_path: Path) -> None:
    receiver = CountingReceiver(delay=0.01)  # a little slow: deliveries are in flight at the kill
    db_url = fresh_database_url("killdeliver")
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    process = _serve(db_url, port, tmp_path)
    acknowledged: list[str] = []
    lock = threading.Lock()
    try:
        _wait_ready(base_url, process)
        creds = httpx.get(base_url + "/_roost/credentials").json()
        receiver.secret = creds["consumer_secret"]
        app_auth = {"Authorization": f"Bearer {creds['bearer_token']}"}
        hook = httpx.post(base_url + "/2/webhooks", json={"url": receiver.url}, headers=app_auth)
        assert hook.status_code == 200, hook.text
        subscribe = httpx.post(
            f"{base_url}/2/account_activity/webhooks/{hook.json()['data']['id']}/subscriptions/all",
            json={},
            headers={"Authorization": f"Bearer {creds['oauth2_user_token']}"},
        )
        assert subscribe.status_code == 200, subscribe.text
        threads = _burst(base_url, creds["oauth2_user_token"], acknowledged, lock)
        deadline = time.monotonic() + 60
        # Kill once deliveries are flowing and a backlog is building behind them.
        while (len(acknowledged) < 150 or receiver.count_of(list(acknowledged)) < 20) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=10)
        for thread in threads:
            thread.join(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()

    with lock:
        expected = list(acknowledged)
    before_restart = receiver.count_of(expected)
    assert 0 < before_restart < len(expected), "the kill should land in the middle of the deliveries"
    restarted = _serve(db_url, port, tmp_path)
    try:
        _wait_ready(base_url, restarted)
        deadline = time.monotonic() + 90
        while receiver.count_of(expected) < len(expected) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert receiver.missing(expected) == []
        assert receiver.bad_signatures == 0
    finally:
        restarted.send_signal(signal.SIGTERM)
        restarted.wait(timeout=30)
        receiver.httpd.shutdown()
