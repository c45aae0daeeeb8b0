"""ASGI assembly. The order of the layers is visible here and nowhere else:

lifespan (open database, migrate, seed) → pipeline for declared operations → control plane (`/_roost`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from roost.ads.api.registry import all_ads_operations
from roost.ads.pipeline import AdsPipeline, is_ads_path
from roost.config import Settings
from roost.control.ads import ads_routes
from roost.control.deliveries import delivery_routes
from roost.control.routes import build_control_app
from roost.control.social import social_routes
from roost.control.state import ServerState
from roost.core import errors
from roost.core.clock import Clock
from roost.core.fields import FieldsEngine
from roost.core.openapi import build_document
from roost.core.pipeline import Pipeline
from roost.domain.dm_objects import DM_EXPANSIONS, DM_KINDS
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.lookup import StoreLoader
from roost.domain.objects import EXPANSIONS, KINDS
from roost.events.connections import SHUTDOWN, registry
from roost.events.dispatch import Dispatcher
from roost.events.tail import end_all
from roost.oauth import PREFIXES as OAUTH_PREFIXES
from roost.oauth import oauth_routes
from roost.platform.registry import all_operations
from roost.services import Services
from roost.storage.db import open_database
from roost.storage.migrate import upgrade

log = logging.getLogger("roost")


class RoostApp:
    """The ASGI application. Everything stateful is created at lifespan start-up."""

    def __init__(
        self,
        settings: Settings,
        clock: Clock | None = None,
        on_ready: Callable[[ServerState], Awaitable[None]] | None = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.on_ready = on_ready
        self.state: ServerState | None = None
        self.pipeline: Pipeline | None = None
        self.ads: AdsPipeline | None = None
        self.dispatcher: Dispatcher | None = None
        errors.set_problem_type_base(settings.problem_type_base)

    async def startup(self) -> None:
        upgrade(self.settings.db_url)
        db = await open_database(self.settings.db_url)
        services = Services.build(self.settings, db, self.clock)
        await services.observe_ids()
        engine = FieldsEngine(
            (*KINDS, *DM_KINDS, *LIKE_KINDS), {**EXPANSIONS, **DM_EXPANSIONS, **LIKE_EXPANSIONS}
        )
        operations = all_operations()
        state = ServerState(services, lambda: build_document(operations, engine, self.settings.api_version))
        await state.seed_if_empty()
        control = build_control_app(
            state, [*oauth_routes(state), *delivery_routes(state), *social_routes(state), *ads_routes(state)]
        )
        self.pipeline = Pipeline(
            services,
            operations,
            engine,
            lambda viewer_id: StoreLoader(services, viewer_id),
            control,
            fallback_prefixes=("/_roost", "/2/openapi.json", *OAUTH_PREFIXES),
        )
        self.ads = AdsPipeline(services, all_ads_operations())
        self.state = state
        state.ready = True
        self.dispatcher = Dispatcher(services)
        self.dispatcher.start()
        state.workers.append(self.dispatcher)
        if self.on_ready is not None:
            await self.on_ready(state)

    def end_streams(self) -> None:
        """End the open streams (called when the server is asked to stop, before it drains): each
        sends its last chunk and closes, so connections drain instead of being cut."""
        if self.state is not None:
            connections = registry(self.state.services)
            for entry in list(connections.active.values()):
                connections.kill(entry, SHUTDOWN)
        end_all()

    async def shutdown(self) -> None:
        if self.state is not None:
            self.state.ready = False
            if self.dispatcher is not None:
                await self.dispatcher.stop()
                self.dispatcher = None
            await self.state.services.db.close()

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if self.pipeline is None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"status":"starting"}'})
            return
        # The v2 surface (/2/...) skips the ads check: its paths never start like the ads ones.
        if (
            self.ads is not None
            and scope["type"] == "http"
            and scope["path"][:3] != "/2/"
            and is_ads_path(scope["path"])
        ):
            await self.ads(scope, receive, send)
            return
        await self.pipeline(scope, receive, send)

    async def _lifespan(self, receive: Callable, send: Callable) -> None:
        while True:
            message: dict[str, Any] = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.startup()
                except Exception as exc:
                    log.exception("start-up failed")
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return
