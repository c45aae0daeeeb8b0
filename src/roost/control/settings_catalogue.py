"""Every feature setting roost reads (`--option KEY=VALUE`, `POST /_roost/settings`): its kind, its
default and what it means, for `GET /_roost/settings` and for refusing keys nobody reads.

The defaults are the readers' own constants where they have one, so the two cannot drift apart;
`tests/unit/test_feature_setting_keys.py` scans `src/roost` for every key read and holds this
catalogue to it (a key read but missing here would be refused by `POST /_roost/settings`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from roost.config import Settings
from roost.core.body_cap import LARGER_CAPS
from roost.domain import oauth1_flow, search
from roost.events import crc, dispatch, hub, lease
from roost.events.tail import DEFAULT_KEEPALIVE_S

# flag: on when stored as "1"; number / whole: `Settings.number` / `Settings.whole` (a value they
# refuse reads as the default); schedule: comma-separated seconds, as the delivery retries read it.
Kind = Literal["flag", "number", "whole", "schedule"]

_BODY_CAPS = {name: default for _, name, default in LARGER_CAPS}
# `roost.serving.REQUEST_TIMEOUT_S`: serving sits above the control plane, so it cannot be imported.
_REQUEST_TIMEOUT_S = 120.0


@dataclass(frozen=True, slots=True)
class FeatureSetting:
    key: str
    kind: Kind
    default: Any
    meaning: str
    positive: bool = False  # zero reads as the default too
    maximum: float | None = None
    above_maximum: Literal["clamp", "default"] = "clamp"  # what a reader does with a larger value
    default_from: str | None = None  # unset, it takes this other setting's value

    def value_in(self, settings: Settings) -> Any:
        """The value the server reads from `settings`."""
        fallback = default_of(self, settings)
        if self.kind == "flag":
            return settings.extra.get(self.key) == "1"
        if self.kind == "schedule":
            stored = settings.extra.get(self.key)
            return fallback if stored is None else dispatch.retry_schedule({self.key: stored})
        value: float
        if fallback is None:  # unset, something else decides (an app's package): null
            parsed = settings.number(self.key, -1.0, positive=self.positive)
            if parsed < 0 or (self.kind == "whole" and not parsed.is_integer()):
                return None
            value = int(parsed) if self.kind == "whole" else parsed
        elif self.kind == "whole":
            value = settings.whole(self.key, fallback, positive=self.positive)
        else:
            value = settings.number(self.key, fallback, positive=self.positive)
        if self.maximum is None or value <= self.maximum:
            return value
        if self.above_maximum == "default":
            return fallback
        return int(self.maximum) if self.kind == "whole" else self.maximum


def _number(key: str, default: float, meaning: str, **rules: Any) -> FeatureSetting:
    return FeatureSetting(key, "number", float(default), meaning, **rules)


def _whole(key: str, default: int, meaning: str, **rules: Any) -> FeatureSetting:
    return FeatureSetting(key, "whole", default, meaning, **rules)


def _package_decides(key: str, meaning: str) -> FeatureSetting:
    """A limit the app's package sets (domain/packages.py) unless this setting, once made, holds for
    every app: no default of its own."""
    return FeatureSetting(key, "whole", None, meaning, positive=True)


def _flag(key: str, meaning: str) -> FeatureSetting:
    return FeatureSetting(key, "flag", False, meaning)


_ACTIVITY = hub.ACTIVITY
_STREAMS = hub.FILTERED  # every post stream shares the Endpoint defaults: one limit, one keep-alive

SETTINGS: tuple[FeatureSetting, ...] = (
    _whole(
        _ACTIVITY.limit_setting,
        _ACTIVITY.default_limit,
        "open /2/activity/stream connections per app",
        positive=True,
    ),
    _number(
        _ACTIVITY.keepalive_setting,
        DEFAULT_KEEPALIVE_S,
        "seconds without a line before /2/activity/stream sends a keep-alive",
        positive=True,
    ),
    _package_decides(
        "activity_subscription_limit",
        "activity-event subscriptions per app, for every app (unset: the app's package decides, 1,500 "
        "pay-per-use, 75,000 enterprise)",
    ),
    _flag(
        "allow_test_approval",
        "honour the X-Roost-Approve header on OAuth authorize pages from any client, not only loopback",
    ),
    _whole(
        "bearer_token_max_requests",
        oauth1_flow.BEARER_MAX_REQUESTS,
        "POST /oauth2/token requests per app within bearer_token_window_s before 403 code 99",
    ),
    _number(
        "bearer_token_window_s",
        oauth1_flow.BEARER_WINDOW_S,
        "seconds of the window bearer_token_max_requests counts in",
    ),
    _whole("compliance_job_limit", 1, "open compliance jobs per app and type", positive=True),
    _number(
        "compliance_job_processing_seconds", 60, "seconds a compliance job is in_progress after its upload"
    ),
    _whole(
        "compliance_upload_max_bytes",
        _BODY_CAPS["compliance_upload_max_bytes"],
        "largest compliance-job upload to /storage/, in bytes (413 above)",
        positive=True,
    ),
    _number(
        "crc_timeout_seconds",
        crc.REPLY_LIMIT_S,
        "seconds a webhook CRC check waits for the reply (at most 60)",
        positive=True,
        maximum=60,
        above_maximum="default",
    ),
    FeatureSetting(
        "delivery_retry_schedule",
        "schedule",
        dispatch.retry_schedule({}),
        "seconds between webhook delivery attempts after a non-200 reply, comma-separated (roost clock)",
    ),
    _number(
        "delivery_timeout_seconds",
        dispatch.DELIVERY_REPLY_LIMIT_S,
        "seconds a webhook delivery waits for the receiver (at most 60)",
        positive=True,
        maximum=dispatch.MAX_DELIVERY_REPLY_LIMIT_S,
        above_maximum="default",
    ),
    _whole(
        "import_max_bytes",
        _BODY_CAPS["import_max_bytes"],
        "largest body POST /_roost/import accepts, in bytes (413 above)",
        positive=True,
    ),
    _whole(
        "likes_sample10_stream_percent",
        hub.LIKES_SAMPLE10_PERCENT,
        "percentage of likes the likes sample10 stream sends",
        positive=True,
        maximum=100,
    ),
    _number(
        "media_processing_secs",
        3,
        "seconds an uploaded video stays in processing (read at start: --option only)",
    ),
    _number(
        "request_timeout_s",
        _REQUEST_TIMEOUT_S,
        "seconds a request may take to arrive before the server drops it (read at start: --option only)",
        positive=True,
    ),
    _whole(
        "sample10_stream_percent",
        hub.SAMPLE10_PERCENT,
        "percentage of posts the sample10 stream sends",
        positive=True,
        maximum=100,
    ),
    _whole(
        "sample_stream_percent",
        hub.SAMPLE_PERCENT,
        "percentage of posts the sample stream sends",
        positive=True,
        maximum=100,
    ),
    _package_decides(
        "search_all_max_query_length",
        "characters of a full-archive search query, for every app (unset: the app's package decides, "
        "1,024 pay-per-use, 4,096 enterprise)",
    ),
    _number(
        "search_default_end_lag_s",
        search.DEFAULT_END_LAG_S,
        "seconds before now a search or count without end_time ends",
    ),
    _package_decides(
        "search_recent_max_query_length",
        "characters of a recent search query, for every app (unset: the app's package decides, 512 "
        "pay-per-use, 4,096 enterprise)",
    ),
    _whole(
        "snapshot_max_bytes",
        _BODY_CAPS["snapshot_max_bytes"],
        "largest body POST /_roost/snapshot accepts, in bytes (413 above)",
        positive=True,
    ),
    _flag(
        "strict_webhook_urls",
        "loopback webhook URLs must follow the platform rule too (https, no port)",
    ),
    _package_decides(
        _STREAMS.limit_setting,
        "open connections per app, stream endpoint and partition, for every app (unset: 1, and on the "
        "filtered stream the app's package decides, 1 pay-per-use, 2 enterprise)",
    ),
    _number(
        _STREAMS.keepalive_setting,
        DEFAULT_KEEPALIVE_S,
        "seconds without a line before a stream sends a keep-alive",
        positive=True,
    ),
    _package_decides(
        "stream_rule_limit",
        "filtered-stream rules per project, for every app (unset: the app's package decides, 1,000 "
        "pay-per-use, 25,000 enterprise)",
    ),
    FeatureSetting(
        "stream_rule_limit_per_app",
        "whole",
        None,
        "filtered-stream rules per app (unset: stream_rule_limit)",
        positive=True,
        default_from="stream_rule_limit",
    ),
    _package_decides(
        "stream_rule_max_length",
        "characters of a filtered-stream rule, for every app (unset: the app's package decides, 1,024 "
        "pay-per-use, 2,048 enterprise)",
    ),
    _package_decides(
        "subscription_limit",
        "account-activity subscribed users per app (provisioned_count), for every app (unset: 3, the "
        "pay-per-use figure; no enterprise figure is published)",
    ),
    _whole(
        "usage_cap_reset_day",
        1,
        "day of the month the monthly usage count restarts (1..28)",
        positive=True,
        maximum=28,
    ),
    _whole("usage_daily_cap", 0, "posts per project per day (0: no daily cap)"),
    _package_decides(
        "usage_monthly_cap",
        "posts per project per month (streams and search), for every app (unset: the app's package "
        "decides, 3,000,000 pay-per-use, 500,000 enterprise)",
    ),
    _package_decides(
        "webhook_limit",
        "webhooks per developer account (the app's project), for every app (unset: the app's package "
        "decides, 1 pay-per-use, 5 enterprise)",
    ),
    _number(
        "work_lease_seconds",
        lease.DEFAULT_LEASE_S,
        "seconds of the dispatch lease; another process takes over within one (at most 300)",
        positive=True,
        maximum=lease.MAX_LEASE_S,
    ),
)

BY_KEY: dict[str, FeatureSetting] = {setting.key: setting for setting in SETTINGS}
KNOWN_KEYS: tuple[str, ...] = tuple(sorted(BY_KEY))


def unknown_keys(keys: list[str]) -> list[str]:
    return [key for key in keys if key not in BY_KEY]


def default_of(setting: FeatureSetting, settings: Settings) -> Any:
    if setting.default_from is not None:
        return BY_KEY[setting.default_from].value_in(settings)
    return setting.default


def describe(settings: Settings) -> list[dict[str, Any]]:
    """Each setting by key: the value the server reads now, the default, the text stored (null when
    unset) and its meaning."""
    rows = []
    for key in KNOWN_KEYS:
        setting = BY_KEY[key]
        rows.append(
            {
                "key": key,
                "value": setting.value_in(settings),
                "default": default_of(setting, settings),
                "stored": settings.extra.get(key),
                "meaning": setting.meaning,
            }
        )
    return rows
