"""Two server processes on one database share the clock and the feature settings (issue 16): a change
made through one is taken by the other within a second."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.api.test_persistence import _serve, _wait_ready
from tests.support.server import PG_ENV, LiveServer, free_port, fresh_database_url

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
        time.sleep(0.05)  # between two looks, not to assert that nothing happened


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


def test_a_clock_frozen_on_one_process_stands_still_on_the_other(pair: tuple[str, str, str]) -> None:
    first, second, _ = pair
    frozen = httpx.post(first + "/_roost/clock", json={"freeze": True}, timeout=10).json()
    try:
        at = parse_rfc3339(frozen["now"])
        assert eventually(lambda: httpx.get(second + "/_roost/clock", timeout=10).json()["frozen"] is True)
        assert now_ms(second) == at
    finally:
        httpx.post(first + "/_roost/clock", json={"freeze": False}, timeout=10)
    assert eventually(lambda: httpx.get(second + "/_roost/clock", timeout=10).json()["frozen"] is False)


def settings_of(base_url: str) -> dict[str, str]:
    """The settings set on that process, as stored text (the listing also shows the unset ones)."""
    response = httpx.get(base_url + "/_roost/settings", timeout=10)
    assert response.status_code == 200
    return {row["key"]: row["stored"] for row in response.json()["settings"] if row["stored"] is not None}


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


LIMIT = 50
LOOKUP = "/2/users/by/username/roost_dev"


@pytest.fixture(scope="module")
def limited_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Two processes with rate limits on, the user lookup limited to 50 requests per app."""
    if not os.environ.get(PG_ENV):
        pytest.skip("rate-limit windows are shared on PostgreSQL; one SQLite process keeps them in memory")
    db_url = fresh_database_url("shared_limits")
    limits = {"findUserByUsername": {"app": LIMIT}}
    first = LiveServer(tag="shared_limits", db_url=db_url, rate_limits=True, limits=limits).start()
    directory = Path(tmp_path_factory.mktemp("limited"))
    limits_file = directory / "limits.json"
    limits_file.write_text(json.dumps(limits))
    port = free_port()
    command = [sys.executable, "-m", "roost", "serve", "--port", str(port), "--db", db_url]
    command += ["--limits", str(limits_file)]
    env = {**os.environ, "ROOST_DATA_DIR": str(directory)}
    second = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    second_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(second_url, second)
        yield first.base_url, second_url
    finally:
        second.terminate()
        second.wait(timeout=15)
        first.stop()


def test_rate_limit_windows_count_the_requests_to_both_processes(limited_pair: tuple[str, str]) -> None:
    first, second = limited_pair
    bearer = {"Authorization": "Bearer " + httpx.get(first + "/_roost/credentials").json()["bearer_token"]}
    for _ in range(40):
        assert httpx.get(first + LOOKUP, headers=bearer).status_code == 200
    # The second process counts its own requests at once and the first's within moments.
    sent_to_second = 0

    def second_counts_both() -> bool:
        nonlocal sent_to_second
        response = httpx.get(second + LOOKUP, headers=bearer)
        sent_to_second += 1
        return int(response.headers["x-rate-limit-remaining"]) == LIMIT - 40 - sent_to_second

    assert eventually(second_counts_both, timeout=5)
    assert sent_to_second < LIMIT - 40
    # Spend the rest on the second process: the window is empty for both.
    while httpx.get(second + LOOKUP, headers=bearer).status_code == 200:
        pass
    refused = httpx.get(second + LOOKUP, headers=bearer)
    assert refused.status_code == 429
    assert refused.headers["x-rate-limit-remaining"] == "0"

    def first_refuses() -> bool:
        return httpx.get(first + LOOKUP, headers=bearer).status_code == 429

    assert eventually(first_refuses, timeout=5)
    on_first = httpx.get(first + LOOKUP, headers=bearer)
    assert on_first.headers["x-rate-limit-remaining"] == "0"
    assert on_first.headers["x-rate-limit-reset"] == refused.headers["x-rate-limit-reset"]


def test_the_bearer_token_throttle_counts_both_processes(pair: tuple[str, str, str]) -> None:
    postgres_only(pair)
    first, second, _ = pair
    app = httpx.post(first + "/_roost/apps", json={"name": "throttled"}).json()
    token = base64.b64encode(f"{app['consumer_key']}:{app['consumer_secret']}".encode()).decode()
    basic = {"Authorization": "Basic " + token}
    form = {"grant_type": "client_credentials"}
    settings = {"bearer_token_max_requests": 3, "bearer_token_window_s": 3600}
    httpx.post(first + "/_roost/settings", json=settings)
    assert eventually(lambda: settings_of(second).get("bearer_token_max_requests") == "3")
    for base_url in (first, second, first):
        assert httpx.post(base_url + "/oauth2/token", data=form, headers=basic).status_code == 200
    refused = httpx.post(second + "/oauth2/token", data=form, headers=basic)
    assert refused.status_code == 403
    assert refused.json()["errors"][0]["code"] == 99
    httpx.post(
        first + "/_roost/settings", json={"bearer_token_max_requests": None, "bearer_token_window_s": None}
    )


def test_the_usage_ledger_adds_up_both_processes_and_shares_the_credit(pair: tuple[str, str, str]) -> None:
    first, second, _ = pair
    app = httpx.post(first + "/_roost/apps", json={"name": "ledger pair", "package": "pay-per-use"}).json()
    headers = {"Authorization": f"Bearer {app['bearer_token']}"}

    def lookup(base_url: str) -> int:
        return httpx.get(base_url + "/2/users/by/username/roost_dev", headers=headers, timeout=10).status_code

    assert [lookup(base) for base in (first, first, second, second, second)] == [200] * 5

    def cost_seen_by_first() -> Any:
        row = httpx.get(first + "/_roost/usage", params={"app_id": app["id"]}, timeout=10).json()["data"][
            "apps"
        ][0]
        return row if row["requests"] == 5 else None

    row = eventually(cost_seen_by_first)  # the other process writes its counts within a second
    assert row and row["cost_usd"] == pytest.approx(0.05)  # User: Read, $0.010 a user

    def price_on_second() -> float:
        prices = httpx.get(second + "/_roost/prices", timeout=10).json()["data"]
        return float(
            next(p["usd"] for p in prices if (p["operation"], p["variant"]) == ("findUserByUsername", None))
        )

    assert httpx.post(first + "/_roost/prices", json={"findUserByUsername": 0.02}).status_code == 200
    assert eventually(lambda: price_on_second() == 0.02)  # a price changed through one is the other's too
    assert httpx.post(first + "/_roost/prices", json={"findUserByUsername": None}).status_code == 200
    assert eventually(lambda: price_on_second() == 0.01)

    given = httpx.post(
        first + "/_roost/apps/credit", json={"consumer_key": app["consumer_key"], "credit_usd": 0.02}
    )
    assert given.status_code == 200
    assert eventually(lambda: lookup(second) == 402)  # given through one process, spent through the other
    assert eventually(lambda: lookup(first) == 402)
