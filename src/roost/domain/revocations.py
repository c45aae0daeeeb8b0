"""What follows a token's revocation once the user holds no live token of the app: the app has lost
the user's access, as when a user revokes an app on the platform. In the revoking transaction, the
user's account-activity subscriptions on the app's webhooks go, and an `oauth.revoke` event is
logged: the activity API's `oauth.revoke` and account activity's `user_event` are made from it."""

from __future__ import annotations

from datetime import UTC, datetime

from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator
from roost.storage import revocations as rows
from roost.storage.db import Executor
from roost.storage.events import append_event


def revoke_time(now_ms: int) -> str:
    """The payloads' `date_time`: seconds, with the `+00:00` offset the samples show."""
    return datetime.fromtimestamp(now_ms // 1000, UTC).isoformat()


class Revocations:
    def __init__(self, clock: Clock, ids: SnowflakeGenerator) -> None:
        self._clock = clock
        self._ids = ids

    async def owner_tx(self, tx: Executor, token: str) -> tuple[int, int] | None:
        return await rows.token_owner_tx(tx, token)

    async def settle_tx(self, tx: Executor, app_id: int, user_id: int) -> bool:
        """Call after revoking a token of (app, user) in `tx`; True when that ended the app's access."""
        now = self._clock.now_ms()
        if await rows.holds_live_token_tx(tx, app_id, user_id, now):
            return False
        await rows.drop_aaa_subscriptions_tx(tx, app_id, user_id)
        await append_event(
            tx,
            event_id=self._ids.next_id(),
            kind="oauth.revoke",
            created_at=now,
            user_id=user_id,
            object_id=app_id,
            payload={"user_id": str(user_id), "app_id": str(app_id), "date_time": revoke_time(now)},
        )
        return True
