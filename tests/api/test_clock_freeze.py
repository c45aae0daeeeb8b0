"""Freezing the clock (issue 17): `POST /_roost/clock {"freeze": true}` stops it where it stands,
advancing moves the frozen instant, `{"freeze": false}` lets it run again from there."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx
import pytest
from tests.support.server import LiveServer

from roost.core.clock import parse_rfc3339


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    live = LiveServer(tag="freeze").start()
    client = httpx.Client(base_url=live.base_url, timeout=30)
    yield client
    client.close()
    live.stop()


def now_ms(answer: httpx.Response) -> int:
    assert answer.status_code == 200, answer.text
    parsed = parse_rfc3339(answer.json()["now"])
    assert parsed is not None
    return parsed


def test_a_frozen_clock_stands_still_moves_when_told_and_runs_on_from_there(http: httpx.Client) -> None:
    frozen = http.post("/_roost/clock", json={"freeze": True})
    assert frozen.json()["frozen"] is True
    at = now_ms(frozen)
    time.sleep(0.05)  # wall time passes; the server's does not
    assert now_ms(http.get("/_roost/clock")) == at
    assert now_ms(http.post("/_roost/clock", json={"advance_seconds": 60})) == at + 60_000
    created = http.post(
        "/2/tweets",
        json={"text": "frozen in time"},
        headers={"Authorization": f"Bearer {http.get('/_roost/credentials').json()['oauth2_user_token']}"},
    )
    assert created.status_code == 201
    running = http.post("/_roost/clock", json={"freeze": False})
    assert running.json()["frozen"] is False
    resumed = now_ms(running)
    assert at + 60_000 <= resumed < at + 60_000 + 5_000  # from where it stood, not from the wall clock
    time.sleep(0.05)
    assert now_ms(http.get("/_roost/clock")) > resumed


def test_freeze_must_be_a_boolean(http: httpx.Client) -> None:
    assert http.post("/_roost/clock", json={"freeze": "yes"}).status_code == 400
    assert http.post("/_roost/clock", json={}).status_code == 400
