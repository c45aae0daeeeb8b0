"""The journal listeners behind `/_roost/metrics`, `/_roost/usage` and the access log (issue 17)."""

from __future__ import annotations

import json
import logging

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from roost.control.metrics import LATENCY_BUCKETS_S, RequestMetrics, RoostCollector
from roost.control.usage import UsageMeter
from roost.core.access_log import ACCESS_FIELDS, AccessLog, JsonFormatter, TextFormatter, brief
from roost.core.journal import Entry

NOON_2026_11_26_MS = 1_795_694_400_000  # 2026-11-26T12:00:00Z


def entry(
    operation: str, status: int, latency_ms: float, app: int | None = 7, at: int = NOON_2026_11_26_MS
) -> Entry:
    return (1, at, "GET", "/2/x", "", status, latency_ms, operation, "app", app, None, None, b"", b"", "tx")


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


def test_usage_counts_per_day_and_bills_answers_only() -> None:
    meter = UsageMeter()
    meter(entry("findTweetById", 200, 1))
    meter(entry("findTweetById", 429, 1))
    meter(entry("findTweetById", 200, 1, at=NOON_2026_11_26_MS + 86_400_000))
    meter(entry("findTweetById", 200, 1, app=None))  # no credentials: not counted
    meter(entry("", 200, 1))  # no operation (the OAuth pages): not counted
    days = meter.report()["days"]
    assert [(d["day"], d["requests"], d["billed"], d["cost_usd"]) for d in days] == [
        ("2026-11-26", 2, 1, 0.005),
        ("2026-11-27", 1, 1, 0.005),
    ]


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
