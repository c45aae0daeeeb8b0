"""Two server processes on one database share the clock and the feature settings (issue 16): a change
made through one is taken by the other within a second."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.api.test_persistence import _serve, _wait_ready
from tests.support.server import LiveServer, free_port, fresh_database_url

from roost.auth.oauth1 import sign_request
from roost.core.clock import parse_rfc3339

DAY_MS = 86_400_000


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, str]]:
    """Two processes on one database: one in this process, one started as `roost serve`; and the
    database's URL."""
    db_url = fresh_database_url("shared_state")
    first = LiveServer(tag="shared_state", db_url=db_url, rate_limits=False).start()
    port = free_port()
    second = _serve(db_url, port, Path(tmp_path_factory.mktemp("second")))
    second_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(second_url, second)
        yield first.base_url, second_url, db_url
    finally:
        second.terminate()
        second.wait(timeout=15)
        first.stop()


def eventually(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    """The first true result of `check`, asked again until `timeout` (then the last one, false)."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.05)


def now_ms(base_url: str) -> int:
    stamp = parse_rfc3339(httpx.get(base_url + "/_roost/clock", timeout=10).json()["now"])
    assert stamp is not None
    return stamp


def test_a_clock_advance_on_one_process_is_seen_on_the_other(pair: tuple[str, str, str]) -> None:
    first, second, _ = pair
    before = now_ms(second)
    advanced = httpx.post(first + "/_roost/clock", json={"advance_seconds": 2 * 86_400}, timeout=10)
    assert advanced.status_code == 200
    assert eventually(lambda: now_ms(second) >= before + 2 * DAY_MS)
    # Both run from the same point: within a few seconds of each other, not two days apart.
    assert abs(now_ms(first) - now_ms(second)) < 60_000


def test_a_clock_set_on_one_process_is_seen_on_the_other(pair: tuple[str, str, str]) -> None:
    first, second, _ = pair
    target = parse_rfc3339("2031-06-01T12:00:00Z")
    assert target is not None
    response = httpx.post(second + "/_roost/clock", json={"set": "2031-06-01T12:00:00Z"}, timeout=10)
    assert response.json()["now"].startswith("2031-06-01T12:00")
    assert eventually(lambda: target <= now_ms(first) < target + DAY_MS)


def settings_of(base_url: str) -> dict[str, str]:
    response = httpx.get(base_url + "/_roost/settings", timeout=10)
    assert response.status_code == 200
    return dict(response.json())


def test_a_setting_posted_to_one_process_is_known_to_the_other(pair: tuple[str, str, str]) -> None:
    first, second, _ = pair
    posted = httpx.post(first + "/_roost/settings", json={"webhook_limit": 7, "strict_webhook_urls": True})
    assert posted.json()["webhook_limit"] == "7"
    assert eventually(lambda: settings_of(second).get("webhook_limit") == "7")
    assert settings_of(second)["strict_webhook_urls"] == "1"
    # Removed through the other process: gone from both.
    httpx.post(second + "/_roost/settings", json={"webhook_limit": None})
    assert eventually(lambda: "webhook_limit" not in settings_of(first))
    assert settings_of(first)["strict_webhook_urls"] == "1"


def test_a_process_started_later_takes_the_shared_clock_and_settings(
    pair: tuple[str, str, str], tmp_path: Path
) -> None:
    first, _, db_url = pair
    httpx.post(first + "/_roost/settings", json={"compliance_job_limit": 3})
    httpx.post(first + "/_roost/clock", json={"set": "2032-02-02T00:00:00Z"})
    port = free_port()
    third = _serve(db_url, port, tmp_path)
    third_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(third_url, third)
        assert settings_of(third_url)["compliance_job_limit"] == "3"
        assert httpx.get(third_url + "/_roost/clock").json()["now"].startswith("2032-02-02")
    finally:
        third.terminate()
        third.wait(timeout=15)


def postgres_only(pair: tuple[str, str, str]) -> None:
    if not pair[2].startswith("postgresql"):
        pytest.skip("nonces and rate-limit windows are shared on PostgreSQL; one SQLite process keeps them")


def test_a_nonce_used_on_one_process_is_refused_on_the_other(pair: tuple[str, str, str]) -> None:
    postgres_only(pair)
    first, second, _ = pair
    creds = httpx.get(first + "/_roost/credentials", timeout=10).json()
    url = first + "/2/users/me"
    host = {"Host": httpx.URL(first).netloc.decode()}  # signed for the first; the second checks the same

    def signed() -> dict[str, str]:
        header = sign_request(
            "GET",
            url,
            creds["consumer_key"],
            creds["consumer_secret"],
            creds["access_token"],
            creds["access_token_secret"],
        )
        return {"Authorization": header, **host}

    fresh = signed()
    assert httpx.get(second + "/2/users/me", headers=fresh).status_code == 200
    used = signed()
    assert httpx.get(url, headers=used).status_code == 200
    replayed = httpx.get(second + "/2/users/me", headers=used)
    assert replayed.status_code == 401
    assert replayed.json() == {"errors": [{"code": 32, "message": "Could not authenticate you."}]}
    # And the other way round.
    used = signed()
    assert httpx.get(second + "/2/users/me", headers=used).status_code == 200
    assert httpx.get(url, headers=used).status_code == 401
