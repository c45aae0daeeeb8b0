"""`GET /_roost/metrics`: the server's figures in the Prometheus text format.

Counting sits on every request's path, so it is plain Python: a journal listener adds to dictionaries
(requests by operation and status, latencies in fixed buckets per operation). Metric families are
built from them only when someone scrapes, by a collector on a registry of this server's own (never
the library's global one: two servers in one process share nothing). The database figures
(deliveries by state, the event log's lag) are read at scrape time, before the families are built.

Counters are this process's since it started; with `--workers N` each process answers for itself.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.metrics_core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.core.journal import Entry
from roost.events.deliveries import DeliveryRecords
from roost.events.hub import StreamHub

# Upper bounds of the latency buckets, in seconds (the last bucket, +Inf, holds the rest).
LATENCY_BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_BUCKET_LABELS = (*(repr(bound) for bound in LATENCY_BUCKETS_S), "+Inf")
DELIVERY_STATES = ("pending", "sending", "delivered", "failed")
OTHER = "other"  # requests with no operation: the OAuth pages, paths no route claims


class RequestMetrics:
    """A journal listener counting requests by (operation, status) and latencies by operation."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, int], int] = {}
        # operation → [count in each bucket (not cumulative), …, sum of seconds]
        self.latency: dict[str, list[float]] = {}

    def __call__(self, entry: Entry) -> None:
        operation = entry[7] or OTHER
        key = (operation, entry[5])
        self.requests[key] = self.requests.get(key, 0) + 1
        seconds = entry[6] / 1000
        histogram = self.latency.get(operation)
        if histogram is None:
            histogram = self.latency[operation] = [0.0] * (len(LATENCY_BUCKETS_S) + 2)
        histogram[bisect_left(LATENCY_BUCKETS_S, seconds)] += 1
        histogram[-1] += seconds


@dataclass
class ScrapeFigures:
    """What the scrape read before the families are built (the collector itself cannot await)."""

    deliveries: dict[str, int] = field(default_factory=dict)
    event_lag: int = 0
    open_streams: int = 0


class RoostCollector:
    """Turns the counters and the scrape's figures into metric families."""

    def __init__(self, metrics: RequestMetrics) -> None:
        self._metrics = metrics
        self.figures = ScrapeFigures()

    def collect(self) -> Iterator[Metric]:
        requests = CounterMetricFamily(
            "roost_requests", "Requests answered, by operation and status.", labels=("operation", "status")
        )
        for (operation, status), count in sorted(self._metrics.requests.items()):
            requests.add_metric((operation, str(status)), count)
        yield requests

        latency = HistogramMetricFamily(
            "roost_request_duration_seconds",
            "Time from a request's arrival to its answer, by operation.",
            labels=("operation",),
        )
        for operation, histogram in sorted(self._metrics.latency.items()):
            cumulative, buckets = 0.0, []
            for label, in_bucket in zip(_BUCKET_LABELS, histogram[:-1], strict=True):
                cumulative += in_bucket
                buckets.append((label, cumulative))
            latency.add_metric((operation,), buckets, histogram[-1])
        yield latency

        figures = self.figures
        deliveries = GaugeMetricFamily(
            "roost_deliveries", "Webhook delivery rows, by state.", labels=("state",)
        )
        for state in sorted({*DELIVERY_STATES, *figures.deliveries}):
            deliveries.add_metric((state,), figures.deliveries.get(state, 0))
        yield deliveries
        yield GaugeMetricFamily(
            "roost_stream_connections", "Stream connections open in this process.", figures.open_streams
        )
        yield GaugeMetricFamily(
            "roost_event_log_lag",
            "Events appended to the log and not yet turned into deliveries.",
            figures.event_lag,
        )


def metrics_routes(
    metrics: RequestMetrics, deliveries: DeliveryRecords, streams: StreamHub
) -> list[BaseRoute]:
    collector = RoostCollector(metrics)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)

    async def scrape(request: Request) -> Response:
        by_state, lag = await deliveries.backlog()
        # No await from here to the end: the figures and the families belong to this scrape.
        collector.figures = ScrapeFigures(by_state, lag, streams.open_count())
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return [Route("/_roost/metrics", scrape)]
