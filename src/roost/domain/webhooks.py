"""Webhook management and account-activity subscriptions: the rules, without HTTP.

A webhook is created only after its first CRC passes; a PUT re-runs the CRC (a definite failure marks
it invalid, a pass re-enables it); the CRC request itself goes out through `Outbound`
(`domain/outbound.py`). Feature settings in `settings.extra`, when set, hold for every app; unset, the
app's package decides (domain/packages.py): `webhook_limit` (per developer account, i.e. project; 1
pay-per-use, 5 enterprise), `subscription_limit` (unique users per app; 3) and `strict_webhook_urls`
("1": loopback receivers must follow the platform's URL rule too).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from roost.config import Settings
from roost.core import errors
from roost.core.clock import Clock, iso_ms
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.params import MAX_ID
from roost.core.principal import Principal
from roost.core.records import Row
from roost.domain.outbound import CrcOutcome, Outbound, crc_challenge
from roost.domain.packages import PACKAGES
from roost.storage import replays
from roost.storage import webhooks as rows
from roost.storage.apps import AppStore
from roost.storage.db import Database, Executor
from roost.storage.events import append_event
from roost.storage.users import UserStore
from roost.storage.webhooks import WebhookStore

MAX_URL = 200
DEFAULT_SUBSCRIPTION_LIMIT = 3
DM_LEVEL = "read-write-directmessages"
WEBHOOK_FIELDS = ("created_at", "id", "url", "valid")
REPLAY_WINDOW_MS = 24 * 3600 * 1000
MINUTE_MS = 60_000
# A webhook failing transiently stays valid until this long after its last successful validation
# (24 hours plus the 4-hour grace period).
TRANSIENT_LIMIT_MS = 28 * 3600 * 1000
_REPLAY_DATE = re.compile(r"[0-9]{12}")
_WEBHOOK_ID = re.compile(r"[0-9]{1,19}")


def is_loopback_host(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: Any, strict: bool, requestable: Callable[[str], bool]) -> str:
    """The URL if it follows the platform's rule (https, no port, ≤ 200 characters), relaxed for
    loopback receivers (http and a port allowed) unless `strict`; `requestable` says whether the CRC
    request can be built for it at all."""
    if not isinstance(url, str) or not url:
        raise errors.webhook_failure("UrlValidationFailed", "The URL is missing or not a string")
    if len(url) > MAX_URL:
        raise errors.webhook_failure("UrlValidationFailed", f"The URL is longer than {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise errors.webhook_failure("UrlValidationFailed", "The URL is not well formed") from None
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host or not requestable(url):
        raise errors.webhook_failure("UrlValidationFailed", "The URL is not well formed")
    if is_loopback_host(host) and not strict:
        return url
    if parts.scheme != "https":
        raise errors.webhook_failure("UrlValidationFailed", "The URL must use the https scheme")
    if port is not None:
        raise errors.webhook_failure("UrlValidationFailed", "The URL must not specify a port")
    return url


def judge(
    outcome: CrcOutcome, valid: bool, validated_at: int | None, created_at: int, now_ms: int
) -> tuple[bool, int | None]:
    """The webhook's (valid, validated_at) after a CRC, by the state table."""
    if outcome.passed:
        return True, now_ms
    if outcome.definite:
        return False, validated_at
    last = validated_at if validated_at is not None else created_at
    if now_ms - last > TRANSIENT_LIMIT_MS:
        return False, validated_at
    return valid, validated_at


def render_webhook(row: Row, fields: frozenset[str] | None = None) -> dict[str, Any]:
    full = {
        "created_at": iso_ms(int(row["created_at"])),
        "id": str(row["id"]),
        "url": row["url"],
        "valid": bool(row["valid"]),
    }
    if fields is None:
        return full
    return {name: value for name, value in full.items() if name in fields or name == "id"}


def parse_replay_date(name: str, raw: Any) -> int:
    """Epoch ms of a `yyyymmddhhmm` UTC date."""
    if not isinstance(raw, str) or _REPLAY_DATE.fullmatch(raw) is None:
        raise errors.replay_param_invalid(f"{name} must be a UTC date in yyyymmddhhmm format")
    try:
        moment = datetime.strptime(raw, "%Y%m%d%H%M").replace(tzinfo=UTC)
    except ValueError:
        raise errors.replay_param_invalid(f"{name} is not a valid date: {raw}") from None
    return int(moment.timestamp()) * 1000


def _invalid_id(webhook_id: int) -> errors.ApiError:
    return errors.webhook_failure("WebhookIdInvalid", f"Webhook id {webhook_id} is not valid for this app")


class WebhookService:
    def __init__(
        self,
        db: Database,
        clock: Clock,
        ids: SnowflakeGenerator,
        tokens: TokenSource,
        settings: Settings,  # read live: webhook_limit, subscription_limit, strict_webhook_urls
        apps: AppStore,
        users: UserStore,
        webhooks: WebhookStore,
        outbound: Outbound,
    ) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._tokens = tokens
        self._settings = settings
        self._apps = apps
        self._users = users
        self._webhooks = webhooks
        self._outbound = outbound

    async def _consumer_secret(self, app_id: int) -> str:
        app = await self._apps.get(app_id)
        assert app is not None
        return str(app["consumer_secret"])

    async def _crc(self, app_id: int, url: str) -> CrcOutcome:
        challenge = crc_challenge(self._tokens, self._clock.now_ms())
        return await self._outbound.crc(url, await self._consumer_secret(app_id), challenge)

    async def _event(
        self, tx: Executor, kind: str, user_id: int | None, object_id: int, **payload: Any
    ) -> None:
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind=kind,
            created_at=self._clock.now_ms(),
            user_id=user_id,
            object_id=object_id,
            payload=payload,
        )

    async def owned(self, app_id: int, webhook_id: int) -> Row:
        # 19 digits can exceed a 64-bit id (and SQLite's INTEGER): no webhook has such an id.
        row = await self._webhooks.get(webhook_id) if webhook_id <= MAX_ID else None
        if row is None or int(row["app_id"]) != app_id:
            raise _invalid_id(webhook_id)
        return row

    # ---- webhooks ----------------------------------------------------------------------------

    async def _admissible(self, tx: Executor, principal: Principal, url: str) -> None:
        if await rows.url_taken_tx(tx, principal.app_id, url):
            raise errors.webhook_failure("DuplicateUrlFailed", "The app already has a webhook with this URL")
        by_package = PACKAGES[principal.package].webhooks
        limit = self._settings.whole("webhook_limit", by_package)
        if await rows.count_of_project_tx(tx, principal.project_id) >= limit:
            raise errors.webhook_failure(
                "WebhookLimitExceeded", f"The account already has the maximum of {limit} webhooks"
            )

    async def create(self, principal: Principal, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or "url" not in body:
            raise errors.invalid_body("$.url: is missing but it is required")
        strict = self._settings.extra.get("strict_webhook_urls") == "1"
        url = check_url(body["url"], strict, self._outbound.requestable)
        async with self._db.transaction() as tx:
            await self._admissible(tx, principal, url)
        outcome = await self._crc(principal.app_id, url)  # outside any transaction: it waits on the network
        if not outcome.passed:
            raise errors.webhook_failure("CrcValidationFailed", outcome.detail)
        now = self._clock.now_ms()
        webhook_id = self._ids.next_id()
        row: dict[str, Any] = {
            "id": webhook_id,
            "app_id": principal.app_id,
            "project_id": principal.project_id,
            "url": url,
            "valid": 1,
            "created_at": now,
            "validated_at": now,
            "crc_attempted_at": now,
        }
        async with self._db.transaction() as tx:
            await self._admissible(tx, principal, url)  # again: another request may have won meanwhile
            await rows.insert_webhook(tx, row)
            await rows.insert_crc_check(tx, webhook_id, now, True, outcome.detail or "passed", "create")
            await self._event(tx, "webhook.create", None, webhook_id, app_id=principal.app_id, url=url)
        return render_webhook(row)

    async def listing(self, app_id: int, fields: frozenset[str] | None) -> list[dict[str, Any]]:
        return [render_webhook(row, fields) for row in await self._webhooks.of_app(app_id)]

    async def delete(self, app_id: int, webhook_id: int) -> None:
        if webhook_id > MAX_ID:  # as in `owned`
            raise _invalid_id(webhook_id)
        async with self._db.transaction() as tx:
            row = await rows.get_webhook_tx(tx, webhook_id)
            if row is None or int(row["app_id"]) != app_id:
                raise _invalid_id(webhook_id)
            await rows.delete_webhook(tx, webhook_id)
            await self._event(tx, "webhook.delete", None, webhook_id, app_id=app_id)

    async def revalidate(self, app_id: int, webhook_id: int) -> bool:
        """Run a CRC: a pass marks the webhook valid (re-enabling it), a definite failure invalid; a
        transient failure leaves the state alone unless the 28-hour rule applies. Answers the state
        after the attempt."""
        row = await self.owned(app_id, webhook_id)
        await self._webhooks.mark_crc_attempted(webhook_id, self._clock.now_ms())
        outcome = await self._crc(app_id, str(row["url"]))
        current = await self._webhooks.get(webhook_id)
        if current is None:  # deleted while the CRC was out
            raise _invalid_id(webhook_id)
        valid, validated_at = judge(
            outcome,
            bool(current["valid"]),
            current["validated_at"],
            int(current["created_at"]),
            self._clock.now_ms(),
        )
        await self._webhooks.record_crc(webhook_id, valid, validated_at)
        await self._webhooks.note_crc(
            webhook_id, self._clock.now_ms(), outcome.passed, outcome.detail or "passed", "request"
        )
        return valid

    # ---- replay -------------------------------------------------------------------------------

    async def replay_from_body(self, app_id: int, body: Any) -> dict[str, Any]:
        """`POST /2/webhooks/replay`: JSON {webhook_id, from_date, to_date}; to_date inclusive."""
        if not isinstance(body, dict):
            raise errors.invalid_body("$: object expected")
        for name in ("webhook_id", "from_date", "to_date"):
            if name not in body:
                raise errors.invalid_body(f"$.{name}: is missing but it is required")
        raw_id = body["webhook_id"]
        if not isinstance(raw_id, str) or _WEBHOOK_ID.fullmatch(raw_id) is None:
            raise errors.invalid_body("$.webhook_id: does not match the regex pattern ^[0-9]{1,19}$")
        return await self.replay(app_id, int(raw_id), body["from_date"], body["to_date"], True)

    async def replay(
        self, app_id: int, webhook_id: int, from_raw: Any, to_raw: Any, to_inclusive: bool
    ) -> dict[str, Any]:
        """Create a replay job. Checks, in order: date format, the webhook belongs to the app,
        from_date no older than 24 hours, neither date in the future, from_date ≤ to_date, no other
        job running for the webhook."""
        from_ms = parse_replay_date("from_date", from_raw)
        to_ms = parse_replay_date("to_date", to_raw)
        await self.owned(app_id, webhook_id)
        now = self._clock.now_ms()
        # Minute precision: the minute that holds "24 hours ago" is still inside the window.
        if from_ms + MINUTE_MS <= now - REPLAY_WINDOW_MS:
            raise errors.replay_param_invalid("from_date must be within the last 24 hours")
        if from_ms > now:
            raise errors.replay_param_invalid("from_date must not be in the future")
        if to_ms > now:
            raise errors.replay_param_invalid("to_date must not be in the future")
        if from_ms > to_ms:
            raise errors.replay_param_invalid("from_date must not be after to_date")
        # The end of the window, exclusive; never later than the job itself.
        end_ms = min(to_ms + MINUTE_MS if to_inclusive else to_ms, now + 1)
        job = {
            "id": self._ids.next_id(),
            "webhook_id": webhook_id,
            "app_id": app_id,
            "from_ms": from_ms,
            "to_ms": end_ms,
            "state": "running",
            "created_at": now,
            "finished_at": None,
        }
        async with self._db.transaction() as tx:
            if await replays.running_of_webhook_tx(tx, webhook_id) is not None:
                raise errors.replay_conflict(webhook_id)
            await replays.insert_job(tx, job)
        self._outbound.replay_job_created()
        return {"job_id": str(job["id"]), "created_at": iso_ms(now)}

    # ---- account activity subscriptions ------------------------------------------------------

    async def subscribe(self, principal: Principal, webhook_id: int) -> None:
        """Subscribe the calling user. OAuth 1.0a: any app permission level may subscribe (read is the
        minimum) and the level is recorded (DM events need the DM level). OAuth 2.0: the pipeline has
        already required the operation's scopes, which include dm.read, so DM level is recorded."""
        user_id = principal.user_id
        assert user_id is not None
        if principal.kind == "oauth1" and not principal.access_level.startswith("read"):
            raise errors.oauth1_permissions()
        await self.owned(principal.app_id, webhook_id)
        level = principal.access_level if principal.kind == "oauth1" else DM_LEVEL
        limit = self.subscription_limit(principal.package)
        async with self._db.transaction() as tx:
            if await rows.subscription_tx(tx, webhook_id, user_id) is not None:
                raise errors.webhook_failure(
                    "DuplicateSubscriptionFailed", f"User {user_id} is already subscribed to this webhook"
                )
            users = {int(sub["user_id"]) for sub in await rows.subscriptions_of_app_tx(tx, principal.app_id)}
            if user_id not in users and len(users) >= limit:
                raise errors.webhook_failure(
                    "SubscriptionLimitExceeded", f"The app already has the maximum of {limit} subscriptions"
                )
            await rows.insert_subscription(
                tx,
                {
                    "webhook_id": webhook_id,
                    "user_id": user_id,
                    "app_id": principal.app_id,
                    "access_level": level,
                    "created_at": self._clock.now_ms(),
                },
            )
            await self._event(tx, "aaa.subscribe", user_id, webhook_id, app_id=principal.app_id, level=level)

    async def is_subscribed(self, principal: Principal, webhook_id: int) -> bool:
        assert principal.user_id is not None
        await self.owned(principal.app_id, webhook_id)
        return await self._webhooks.subscription(webhook_id, principal.user_id) is not None

    async def subscription_list(self, app_id: int, webhook_id: int) -> dict[str, Any]:
        row = await self.owned(app_id, webhook_id)
        subscriptions = await self._webhooks.subscriptions(webhook_id)
        return {
            "application_id": str(app_id),
            "webhook_id": str(webhook_id),
            "webhook_url": row["url"],
            "subscriptions": [{"user_id": str(sub["user_id"])} for sub in subscriptions],
        }

    async def unsubscribe(self, app_id: int, webhook_id: int, user_id: int) -> None:
        await self.owned(app_id, webhook_id)
        async with self._db.transaction() as tx:
            if await rows.subscription_tx(tx, webhook_id, user_id) is None:
                raise errors.webhook_failure(
                    "SubscriptionNotFound", f"User {user_id} is not subscribed to this webhook"
                )
            await rows.delete_subscription(tx, webhook_id, user_id)
            await self._event(tx, "aaa.unsubscribe", user_id, webhook_id, app_id=app_id)

    def subscription_limit(self, package: str) -> int:
        """Users an app may subscribe: the setting when set, else the package's figure, else 3."""
        by_package = PACKAGES[package].aaa_subscriptions or DEFAULT_SUBSCRIPTION_LIMIT
        return self._settings.whole("subscription_limit", by_package)

    async def count(self, app_id: int, package: str) -> dict[str, str]:
        """Subscription counts of the app; every value a string, as the platform sends them."""
        app = await self._apps.get(app_id)
        assert app is not None
        name = str(app["name"])
        if app["owner_user_id"] is not None:
            owner = await self._users.get(int(app["owner_user_id"]))
            if owner is not None:
                name = str(owner["username"])
        subscriptions = await self._webhooks.subscriptions_of_app(app_id)
        dm = sum(1 for sub in subscriptions if sub["access_level"] == DM_LEVEL)
        return {
            "account_name": name,
            "provisioned_count": str(self.subscription_limit(package)),
            "subscriptions_count_all": str(len(subscriptions)),
            "subscriptions_count_direct_messages": str(dm),
        }
