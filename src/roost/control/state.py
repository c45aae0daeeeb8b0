"""Server state shared by the control plane: services, readiness, demo credentials, reset."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from roost.ads.pipeline import SANDBOX_PREFIX
from roost.core.errors import not_found_problem
from roost.data.demo import DEMO_PASSWORD
from roost.data.demo_ads import DEMO_ADS_ACCOUNT, DEMO_SANDBOX_ACCOUNT
from roost.services import Services
from roost.storage.maintenance import wipe
from roost.wiring import Domain


class Worker(Protocol):
    def start(self) -> None: ...

    async def stop(self) -> None: ...

    def wake(self) -> None: ...


class ServerState:
    def __init__(self, services: Services, openapi: Callable[[], dict[str, Any]], domain: Domain) -> None:
        self.services = services
        self.domain = domain
        self.ready = False
        self.workers: list[Worker] = []  # background tasks restarted around a reset
        self._openapi = openapi
        self._openapi_cache: dict[str, Any] | None = None

    def openapi_document(self) -> dict[str, Any]:
        if self._openapi_cache is None:
            self._openapi_cache = self._openapi()
        return self._openapi_cache

    async def seed_if_empty(self) -> None:
        from roost.data.demo import seed_demo

        if self.services.settings.demo and await self.services.apps.setting("demo_app_id") is None:
            await seed_demo(self.services)

    async def reset(self) -> None:
        # Background workers keep cursors in the database: stop them around the wipe so none writes
        # an old cursor back over the fresh one.
        for worker in self.workers:
            await worker.stop()
        await wipe(self.services.db)
        self.services.authenticator.forget()
        self.services.rate_limiter.reset()
        await self.seed_if_empty()
        for worker in self.workers:
            worker.start()

    def wake_workers(self) -> None:
        """Scheduled work due in a skipped interval runs at once after the clock moves."""
        for worker in self.workers:
            worker.wake()

    async def credentials(self) -> dict[str, Any]:
        services = self.services
        app_id = await services.apps.setting("demo_app_id")
        user_id = await services.apps.setting("demo_user_id")
        if app_id is None or user_id is None:
            raise not_found_problem("No demo data (started with --no-demo).")
        app = await services.apps.get(int(app_id))
        user = await services.users.get(int(user_id))
        if app is None or user is None:
            raise not_found_problem("Demo app or user was removed.")
        oauth1 = await services.apps.oauth1_for(app["id"], user["id"])
        oauth2 = await services.apps.oauth2_for(app["id"], user["id"])
        return {
            "consumer_key": app["consumer_key"],
            "consumer_secret": app["consumer_secret"],
            "access_token": oauth1["token"] if oauth1 else None,
            "access_token_secret": oauth1["secret"] if oauth1 else None,
            "bearer_token": app["bearer_token"],
            "oauth2_user_token": oauth2["token"] if oauth2 else None,
            "client_id": app["client_id"],
            "client_secret": app["client_secret"],
            "user_id": str(user["id"]),
            "password": DEMO_PASSWORD,
            "username": user["username"],
            "base_url": services.settings.base_url,
            "ads_base_url": services.settings.base_url,
            "ads_sandbox_base_url": services.settings.base_url + SANDBOX_PREFIX,
            "ads_account_id": DEMO_ADS_ACCOUNT,
            "ads_sandbox_account_id": DEMO_SANDBOX_ACCOUNT,
        }
