"""Server state shared by the control plane: readiness, background workers, demo credentials, reset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from roost.ads.pipeline import SANDBOX_PREFIX
from roost.config import Settings
from roost.core.records import Row
from roost.data.demo import DEMO_PASSWORD, DemoSeed
from roost.data.demo_ads import DEMO_ADS_ACCOUNT, DEMO_SANDBOX_ACCOUNT
from roost.wiring import Domain


class Worker(Protocol):
    def start(self) -> None: ...

    async def stop(self) -> None: ...

    def wake(self) -> None: ...


class ServerState:
    def __init__(
        self,
        settings: Settings,
        domain: Domain,
        demo: DemoSeed,
        openapi: Callable[[], dict[str, Any]],
    ) -> None:
        self.settings = settings
        self.domain = domain
        self.ready = False
        self.workers: list[Worker] = []  # background tasks restarted around a reset
        self._demo = demo
        self._openapi = openapi
        self._openapi_cache: dict[str, Any] | None = None

    def openapi_document(self) -> dict[str, Any]:
        if self._openapi_cache is None:
            self._openapi_cache = self._openapi()
        return self._openapi_cache

    async def seed_if_empty(self) -> None:
        await self._demo.seed_if_empty()

    async def reset(self) -> None:
        # Background workers keep cursors in the database: stop them around the wipe so none writes
        # an old cursor back over the fresh one.
        for worker in self.workers:
            await worker.stop()
        await self.domain.maintenance.wipe()
        await self.domain.shared.persist()  # the clock and settings outlive a reset, for every process
        await self.seed_if_empty()
        for worker in self.workers:
            worker.start()

    def wake_workers(self) -> None:
        """Scheduled work due in a skipped interval runs at once after the clock moves."""
        for worker in self.workers:
            worker.wake()

    async def credentials(self) -> dict[str, Any]:
        demo = await self.domain.maintenance.demo_account()
        user = demo.user
        base_url = self.settings.base_url
        credentials: dict[str, Any] = {
            **_app_credentials(demo.app, demo.oauth1, demo.oauth2),
            "user_id": str(user["id"]),
            "password": DEMO_PASSWORD,
            "username": user["username"],
            "base_url": base_url,
            "ads_base_url": base_url,
            "ads_sandbox_base_url": base_url + SANDBOX_PREFIX,
            "ads_account_id": DEMO_ADS_ACCOUNT,
            "ads_sandbox_account_id": DEMO_SANDBOX_ACCOUNT,
        }
        if demo.self_serve_app is not None:
            # The second demo app: the same user, on the pay-per-use package (issue 20).
            credentials["pay_per_use"] = _app_credentials(
                demo.self_serve_app, demo.self_serve_oauth1, demo.self_serve_oauth2
            )
        return credentials


def _app_credentials(app: Row, oauth1: Row | None, oauth2: Row | None) -> dict[str, Any]:
    """An app's keys and the demo user's tokens for it (None where revoked)."""
    return {
        "consumer_key": app["consumer_key"],
        "consumer_secret": app["consumer_secret"],
        "access_token": oauth1["token"] if oauth1 else None,
        "access_token_secret": oauth1["secret"] if oauth1 else None,
        "bearer_token": app["bearer_token"],
        "oauth2_user_token": oauth2["token"] if oauth2 else None,
        "client_id": app["client_id"],
        "client_secret": app["client_secret"],
        "package": app["package"],
    }
