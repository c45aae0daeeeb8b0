"""kill -9 of one of two server processes in the middle of a write and delivery load (issue 16): no
acknowledged write is lost, every event of an acknowledged post reaches the webhook, the survivor takes
over the dispatch work (the default lease) and the CRC schedule within 30 seconds, and an event arrives
twice only when its first delivery was in flight at the kill."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx
import pytest
from tests.api.test_shared_work import (
    TAKEOVER_S,
    Process,
    _database,
    _lease,
    _rows,
    _subscribe,
    _wait,
    workdir,
)
from tests.support.counting_receiver import CountingReceiver

__all__ = ["workdir"]  # the fixture, shared with test_shared_work

WRITERS = 4
BEFORE_KILL = 60  # acknowledged posts before the kill
AFTER_KILL_S = 3.0  # seconds the writers go on, on the survivor alone
# A delivery received before the kill may be handled by the receiver's thread a little later (this
# process's threads share one interpreter with the writers): arrivals this soon after count as in flight.
IN_FLIGHT_MARGIN_S = 1.0


class Writers:
    """Threads posting as fast as answers come, each turn to the next live process; every
    acknowledged post id kept."""

    def __init__(self, urls: list[str], token: str) -> None:
        self.urls = list(urls)
        self.token = token
        self.acknowledged: list[str] = []
        self.failed = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._write, args=(n,), daemon=True) for n in range(WRITERS)]

    def start(self) -> None:
        for thread in self.threads:
            thread.start()

    def drop(self, url: str) -> None:
        with self.lock:
            self.urls.remove(url)

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def count(self) -> int:
        with self.lock:
            return len(self.acknowledged)

    def _write(self, number: int) -> None:
        headers = {"Authorization": f"Bearer {self.token}"}
        turn = number
        with httpx.Client(timeout=30) as client:
            while not self.stop.is_set():
                with self.lock:
                    url = self.urls[turn % len(self.urls)]
                turn += 1
                try:
                    answer = client.post(
                        url + "/2/tweets", json={"text": f"load {number} {turn}"}, headers=headers
                    )
                except httpx.HTTPError:  # the process was killed under this request: not acknowledged
                    with self.lock:
                        self.failed += 1
                    continue
                assert answer.status_code == 201, answer.text
                with self.lock:
                    self.acknowledged.append(str(answer.json()["data"]["id"]))


def _stored(url: str, bearer: str, ids: list[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), 100):
        batch = ids[start : start + 100]
        answer = httpx.get(
            url + "/2/tweets", params={"ids": ",".join(batch)}, headers={"Authorization": f"Bearer {bearer}"}
        )
        assert answer.status_code == 200, answer.text
        found.update(item["id"] for item in answer.json().get("data", []))
    return found


@pytest.mark.parametrize("kind", ["postgresql", "sqlite"])
def test_a_kill_during_write_and_delivery_load_loses_nothing(kind: str, workdir: Path) -> None:
    db_url = _database(kind)
    receiver = CountingReceiver(delay=0.02)  # a little slow: deliveries are in flight at the kill
    # The default lease (10 s): the takeover asked for is within 30 s of the kill.
    first = Process(db_url, workdir, lease_s=None)
    second: Process | None = None
    writers: Writers | None = None
    try:
        held = _wait(lambda: _lease(db_url), 30)  # the first process holds the lease: the kill hits it
        assert held is not None
        second = Process(db_url, workdir, lease_s=None)
        creds = _subscribe(second.url, receiver)
        writers = Writers([first.url, second.url], creds["oauth2_user_token"])
        writers.start()
        assert _wait(lambda: writers.count() >= BEFORE_KILL, 60)
        assert _wait(lambda: len(receiver.events) > 0, 30), "deliveries are under way at the kill"

        os.kill(first.process.pid, signal.SIGKILL)
        killed_at = time.monotonic()
        first.process.wait(timeout=10)
        writers.drop(first.url)
        time.sleep(AFTER_KILL_S)  # the load goes on against the survivor alone (not an assertion)
        writers.finish()
        acknowledged = list(writers.acknowledged)

        # Zero acknowledged writes lost.
        assert _stored(second.url, creds["bearer_token"], acknowledged) == set(acknowledged)
        # Every acknowledged post reaches the webhook, the first ones after the kill within 30 s of it.
        delivered = _wait(lambda: receiver.has_posts(acknowledged), TAKEOVER_S + 30)
        assert delivered
        taken = _lease(db_url)
        assert taken is not None and taken[0] != held[0], "the survivor holds the dispatch lease"
        # Repeats only for deliveries in flight at the kill (an event that arrived twice arrived first
        # by then) or retried by the schedule after an attempt that failed (a reply past the
        # deadline, on a machine this loaded: the platform retries those too).
        retried = {str(row[0]) for row in _rows(db_url, "SELECT event_id FROM deliveries WHERE attempts > 1")}
        with receiver.lock:
            repeated = [event for event, count in receiver.events.items() if count > 1]
            late = killed_at + IN_FLIGHT_MARGIN_S
            unexplained = [e for e in repeated if receiver.first_seen[e] > late and e not in retried]
            assert unexplained == [], [(e, round(receiver.first_seen[e] - killed_at, 2)) for e in unexplained]
            assert receiver.bad_signatures == 0

        # The CRC schedule runs on the survivor: a day later the webhook is checked again.
        checks = receiver.crc_checks
        moved = httpx.post(second.url + "/_roost/clock", json={"advance_seconds": 25 * 3600})
        assert moved.status_code == 200
        assert _wait(lambda: receiver.crc_checks > checks, TAKEOVER_S), "the survivor runs the CRC schedule"
    finally:
        if writers is not None:
            writers.finish()
        if second is not None:
            second.stop()
        first.stop()
        receiver.httpd.shutdown()
    assert second is not None
    assert "Traceback" not in second.stderr(), second.stderr()
    print(  # the figures, for the closing note (pytest -s)
        f"\n{kind}: {len(acknowledged)} acknowledged, {writers.failed} cut by the kill, "
        f"{sum(receiver.events.values())} deliveries of {len(receiver.events)} events, "
        f"{len(repeated)} repeated ({len(retried)} retried by the schedule)"
    )
