"""The journal listeners behind `/_roost/metrics`, `/_roost/usage` and the access log (issue 17)."""

from __future__ import annotations

import json
import logging

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from roost.control.metrics import LATENCY_BUCKETS_S, RequestMetrics, RoostCollector
from roost.core.access_log import ACCESS_FIELDS, AccessLog, JsonFormatter, TextFormatter, brief
from roost.core.journal import Entry
from roost.core.records import Row
from roost.domain.ledger import Ledger

NOON_2026_11_26_MS = 1_795_694_400_000  # 2026-11-26T12:00:00Z


def entry(
    operation: str,
    status: int,
    latency_ms: float,
    app: int | None = 7,
    at: int = NOON_2026_11_26_MS,
    path: str = "/2/x",
    user: int | None = None,
    body: bytes = b"",
    resources: int = 1,
) -> Entry:
    return (
        1,
        at,
        "GET",
        path,
        "",
        status,
        latency_ms,
        operation,
        "app",
        app,
        user,
        None,
        body,
        b"",
        "tx",
        resources,
    )


class Ledgers:
    """The ledger's store in memory: rows added up as the database's upsert does."""

    def __init__(self, credit: dict[int, int] | None = None) -> None:
        self.table: dict[tuple[int, str, str, str], Row] = {}
        self.credit = dict(credit or {})

    async def add(self, rows: list[Row], spent: dict[int, int]) -> None:
        for row in rows:
            key = (row["app_id"], row["day"], row["operation"], row["variant"])
            kept = self.table.setdefault(
                key, {**row, "requests": 0, "billed": 0, "resources": 0, "cost_micros": 0}
            )
            for name in ("requests", "billed", "resources", "cost_micros"):
                kept[name] += row[name]
        for app, cost in spent.items():
            if app in self.credit:
                self.credit[app] -= cost

    async def balances(self) -> dict[int, int]:
        return dict(self.credit)

    async def prices(self) -> dict[str, float]:
        return {}

    async def rows(self, app_id: int | None = None) -> list[Row]:
        return [row for key, row in sorted(self.table.items(), key=lambda item: (item[0][1], *item[0]))]

    async def apps(self) -> list[Row]:
        return [
            {
                "id": 7,
                "name": "a",
                "consumer_key": "k",
                "package": "pay-per-use",
                "credit_micros": self.credit.get(7),
            }
        ]


def test_latencies_fall_in_their_buckets() -> None:
    metrics = RequestMetrics()
    for latency in (0.5, 3, 3, 20_000):  # ms: under the first bound, twice in the 5 ms one, over all
        metrics(entry("findTweetById", 200, latency))
    registry = CollectorRegistry(auto_describe=False)
    registry.register(RoostCollector(metrics))
    samples = {
        (sample.name, sample.labels.get("le")): sample.value
        for family in text_string_to_metric_families(generate_latest(registry).decode())
        for sample in family.samples
        if sample.labels.get("operation") == "findTweetById"
    }
    assert samples[("roost_request_duration_seconds_bucket", str(LATENCY_BUCKETS_S[0]))] == 1
    assert samples[("roost_request_duration_seconds_bucket", "0.005")] == 3
    assert samples[("roost_request_duration_seconds_bucket", "10.0")] == 3
    assert samples[("roost_request_duration_seconds_bucket", "+Inf")] == 4
    assert samples[("roost_request_duration_seconds_count", None)] == 4
    assert samples[("roost_requests_total", None)] == 4


def ledger_of(store: Ledgers) -> Ledger:
    return Ledger(store)  # type: ignore[arg-type]  # the store's methods, in memory


async def test_usage_counts_per_day_and_bills_answers_only() -> None:
    ledger = ledger_of(Ledgers())
    ledger(entry("findTweetById", 200, 1))
    ledger(entry("findTweetById", 429, 1))
    ledger(entry("findTweetById", 200, 1, at=NOON_2026_11_26_MS + 86_400_000))
    ledger(entry("findTweetById", 200, 1, app=None))  # no credentials: not counted
    ledger(entry("", 200, 1))  # no operation (the OAuth pages): not counted
    ledger(entry("tweetsRecentSearch", 200, 1, resources=0))  # nothing found: nothing to pay
    days = (await ledger.report())["days"]
    assert [(d["day"], d["requests"], d["billed"], d["cost_usd"]) for d in days] == [
        ("2026-11-26", 3, 2, 0.005),
        ("2026-11-27", 1, 1, 0.005),
    ]


async def test_reads_are_priced_per_resource_and_variants_apart() -> None:
    ledger = ledger_of(Ledgers())
    ledger(entry("findTweetsById", 200, 1, resources=100))
    ledger(entry("usersIdTweets", 200, 1, path="/2/users/5/tweets", user=5, resources=10))  # owned
    ledger(entry("usersIdTweets", 200, 1, path="/2/users/6/tweets", user=5, resources=10))
    ledger(entry("createTweet", 201, 1, body=b'{"text": "see example.com"}'))
    ledger(entry("createTweet", 201, 1, body=b'{"text": "no link. none"}'))
    ledger(entry("createTweet", 400, 1, body=b'{"text": "see example.com"}'))  # refused: no variant, no cost
    (day,) = (await ledger.report())["days"]
    by_operation = day["by_operation"]
    assert by_operation["findTweetsById"]["cost_usd"] == 0.5
    assert by_operation["usersIdTweets"]["cost_usd"] == 0.06
    assert by_operation["usersIdTweets"]["variants"]["owned"]["cost_usd"] == 0.01
    assert by_operation["createTweet"]["cost_usd"] == 0.215
    assert by_operation["createTweet"]["variants"] == {
        "url": {"requests": 1, "billed": 1, "resources": 1, "cost_usd": 0.2}
    }
    assert by_operation["createTweet"]["requests"] == 3


async def test_spending_the_credit_marks_the_app_at_once_and_a_flush_keeps_it() -> None:
    store = Ledgers(credit={7: 10_000})  # one cent
    ledger = ledger_of(store)
    await ledger.flush()
    ledger(entry("findTweetById", 200, 1))
    assert ledger.out_of_credit == set()
    ledger(entry("findTweetById", 200, 1))  # half a cent each: the second spends it
    assert ledger.out_of_credit == {7}
    await ledger.flush()
    assert store.credit == {7: 0} and ledger.out_of_credit == {7}
    store.credit[7] = 5_000_000  # given more (by another process, say): seen at the next flush
    await ledger.flush()
    assert ledger.out_of_credit == set()


def test_brief_reasons_drop_what_the_caller_sent() -> None:
    assert (
        brief("OAuth 1.0a signature mismatch. roost computed 'GET&http...'")
        == "OAuth 1.0a signature mismatch"
    )
    assert (
        brief("OAuth 1.0a: no app has the consumer key 'abc'")
        == "OAuth 1.0a: no app has the consumer key '…'"
    )


def test_access_records_in_both_formats() -> None:
    logger = logging.getLogger("roost.access.unit")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger.handlers = [Keep()]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    AccessLog(logger)(entry("findTweetById", 404, 1.5))
    (record,) = records
    assert getattr(record, ACCESS_FIELDS)["status"] == 404
    line = json.loads(JsonFormatter().format(record))
    assert (line["method"], line["path"], line["status"], line["app"], line["user"]) == (
        "GET",
        "/2/x",
        404,
        "7",
        None,
    )
    assert line["time"] == "2026-11-26T12:00:00.000Z"
    text = TextFormatter().format(record)
    assert text.endswith("GET /2/x 404 1.500ms app=7 user=- reason=-")
