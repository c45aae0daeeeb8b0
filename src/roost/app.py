"""ASGI assembly: the lifespan (open the database, migrate, assemble the server, seed) and the one
table that says which part answers which paths."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from roost.ads.api.registry import all_ads_operations
from roost.ads.pipeline import AdsPipeline
from roost.config import Settings
from roost.control.admin import CONTROL_PREFIX, admitted, refuse
from roost.control.ads import ads_routes
from roost.control.ads_stats_files import ads_stats_file_routes
from roost.control.broadcasts import broadcast_routes  # issue 22: ending a broadcast
from roost.control.community import community_routes
from roost.control.console import console_routes
from roost.control.deliveries import delivery_routes
from roost.control.delivery_actions import delivery_action_routes
from roost.control.docs import DocumentCors, docs_routes
from roost.control.faults import fault_routes
from roost.control.observe import observe
from roost.control.requests import request_routes
from roost.control.routes import build_control_app
from roost.control.snapshot import snapshot_routes
from roost.control.social import social_routes
from roost.control.spaces import space_routes
from roost.control.state import ServerState
from roost.core.body_cap import BodyCap
from roost.core.clock import Clock
from roost.core.journal import JournalledPages
from roost.core.wire import ASGIApp, Receive, Scope, Send
from roost.events.dispatch import Dispatcher
from roost.events.hub import StreamHub
from roost.oauth import oauth_routes
from roost.oauth.limits import OAuthLimits
from roost.platform.compliance_storage import compliance_storage_routes
from roost.platform.media_files import MediaFiles
from roost.platform.openapi import build_document
from roost.platform.openapi_ads import build_ads_document
from roost.platform.pipeline import Pipeline
from roost.platform.registry import all_operations
from roost.platform.v1 import ROUTES as V1_ROUTES
from roost.platform.v1 import V1Pipeline
from roost.storage.db import open_database
from roost.storage.migrate import StartupLock, upgrade_holding_lock
from roost.wiring import Server, assemble

log = logging.getLogger("roost")


# Which part answers a path: the first entry whose prefix starts it; anything else is the v2 surface's
# (its route-missing 404). The v2 surface comes first: its requests are the most common.
V2, ADS, PAGES, V1, MEDIA = "v2", "ads", "pages", "v1.1", "media"
ROUTES: tuple[tuple[str, str], ...] = (
    ("/2/oauth2", PAGES),  # the OAuth 2.0 authorize page, token and revoke
    ("/2/openapi.json", PAGES),  # roost's own OpenAPI document
    ("/2/", V2),  # the platform API v2 (`platform/`)
    ("/12/openapi.json", PAGES),  # the Ads API's OpenAPI document (`control/docs.py`)
    ("/12/", ADS),  # the Ads API (`ads/`): the current version,
    ("/11/", ADS),  # the one the current SDK release calls,
    ("/5/", ADS),  # the recommendations version,
    ("/sandbox/12/", ADS),  # and each of them on the sandbox
    ("/sandbox/11/", ADS),
    ("/sandbox/5/", ADS),
    ("/oauth", PAGES),  # OAuth 1.0a and the app-only token (/oauth/…, /oauth2/token)
    ("/1.1/oauth", PAGES),  # the same OAuth 1.0a flow under its v1.1 paths
    ("/1.1/", V1),  # the v1.1 calls clients still make: media upload, verify_credentials, users/show
    ("/i/oauth", PAGES),  # the authorize pages under /i/
    ("/_roost", PAGES),  # the control plane
    ("/storage/", PAGES),  # compliance jobs' pre-signed upload and download URLs (issue 15)
    ("/media/", MEDIA),  # the bytes of uploaded media (`platform/media_files.py`)
    ("/advertiser-api-async-analytics/", PAGES),  # async analytics result files (issue 23)
    ("/sandbox/advertiser-api-async-analytics/", PAGES),
)


def route(path: str) -> str:
    for prefix, part in ROUTES:
        if path.startswith(prefix):
            return part
    return V2


# The table's answer for the common case without walking it: a /2/ path not claimed by an entry
# listed before the /2/ one.
CLAIMED_BEFORE_V2 = tuple(
    prefix for prefix, _ in ROUTES[: ROUTES.index(("/2/", V2))] if prefix.startswith("/2/")
)


CONSOLE = b"/_roost/console"


def _wants_html(scope: Scope) -> bool:
    for name, value in scope["headers"]:
        if name == b"accept":
            return b"text/html" in value
    return False


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
        self.parts: dict[str, ASGIApp] | None = None
        self.v2: Pipeline | None = None
        self.server: Server | None = None  # what the lifespan assembled (tests read its stores)
        self.dispatcher: Dispatcher | None = None
        self.streams: StreamHub | None = None

    async def startup(self) -> None:
        # Processes started together on one new database take turns at migrating and seeding it: the
        # first does both, the others wait and find them done (issue 16).
        async with StartupLock(self.settings.db_url):
            state, server = await self._prepare()
        await self._assemble_parts(state, server)

    async def _prepare(self) -> tuple[ServerState, Server]:
        """The database migrated and opened, the server assembled, the demo data seeded."""
        upgrade_holding_lock(self.settings.db_url)
        db = await open_database(self.settings.db_url)
        server = self.server = assemble(self.settings, db, self.clock)
        await server.id_slot.claim()  # under the start-up lock: no two processes take one slot
        await server.domain.maintenance.observe_ids()
        operations = all_operations()
        engine = server.engine
        state = ServerState(
            self.settings,
            server.domain,
            server.demo,
            lambda: build_document(operations, engine, self.settings.api_version),
        )
        await state.seed_if_empty()
        return state, server

    async def _assemble_parts(self, state: ServerState, server: Server) -> None:
        operations = all_operations()
        engine = server.engine
        limits = OAuthLimits(server.stages.limiter, server.stages.clock, self.settings.limits)
        oauth = oauth_routes(state, limits)
        journal, faults = server.stages.journal, server.stages.faults
        assert journal is not None and faults is not None  # assembled with every server
        pages = build_control_app(
            state,
            [
                *oauth,
                *delivery_routes(server.domain.deliveries),
                *social_routes(state),
                *space_routes(state),  # issue 15: Spaces and account standing,
                *broadcast_routes(state),  # issue 22: a broadcast's end
                *compliance_storage_routes(server.domain.compliance),  # and the compliance jobs' URLs
                *community_routes(state),
                *ads_routes(server.ads),
                *ads_stats_file_routes(server.ads),  # issue 23: async analytics result files
                *request_routes(journal),  # issue 17: the request journal,
                *fault_routes(faults),  # and fault rules
                # Metrics, usage and cost, the access log, rate-limit windows (issue 17):
                *observe(journal, self.settings, server, [path for _, path in V1_ROUTES]),
                *delivery_action_routes(state),  # the console (issue 17): retry and replay buttons,
                *console_routes(state, engine, journal),  # and its pages
                *docs_routes(lambda: build_ads_document(all_ads_operations())),  # documents, Swagger UI
                *snapshot_routes(state),  # whole-state snapshots
            ],
        )
        pages.add_middleware(DocumentCors)  # the OpenAPI documents readable from other origins
        v2 = Pipeline(
            server.stages,
            self.settings,
            server.domain,
            operations,
            engine,
            server.domain.lookup.loader,
        )
        ads = AdsPipeline(server.stages, server.ads, all_ads_operations())
        # The pages read bodies under the v2 pipeline's rule: refused above their cap (issue 16).
        capped_pages = BodyCap.for_settings(pages, self.settings)  # type: ignore[arg-type]  # Starlette is ASGI
        # The OAuth endpoints are API calls too: journalled from outside (issue 17).
        self.parts = {V2: v2, ADS: ads, PAGES: JournalledPages(capped_pages, journal, CONTROL_PREFIX)}
        self.parts[V1] = V1Pipeline(server.stages, server.domain)  # issue 15: v1.1 media upload, accounts
        self.parts[MEDIA] = MediaFiles(server.domain)  # issue 15: the bytes of uploaded media
        self.v2 = v2
        self.state = state
        self.streams = server.domain.streams
        state.ready = True
        self.dispatcher = server.dispatcher
        self.dispatcher.start()
        state.workers.append(self.dispatcher)
        server.id_slot.start()
        state.workers.append(server.id_slot)
        # Issue 16: the clock and feature settings other processes change, taken within a second.
        shared = server.domain.shared
        await shared.refresh()
        shared.on_clock_moved = state.wake_workers
        shared.start()
        state.workers.append(shared)
        ledger = server.domain.ledger  # issue 20: the usage ledger, written once a second
        await ledger.flush()  # the credit left, read before the first request
        ledger.start()
        state.workers.append(ledger)
        publisher = server.ads.publisher  # issue 23: scheduled posts published by the roost clock
        publisher.start()
        state.workers.append(publisher)
        broadcast_clock = server.domain.broadcast_clock  # issue 22: broadcasts start and end on the clock
        broadcast_clock.start()
        state.workers.append(broadcast_clock)
        windows = server.domain.shared_windows  # PostgreSQL: rate-limit windows counted with the others
        if windows is not None:
            windows.start()
            state.workers.append(windows)
        if self.on_ready is not None:
            await self.on_ready(state)

    def end_streams(self) -> None:
        """End the open streams (called when the server is asked to stop, before it drains): each
        sends its last chunk and closes, so connections drain instead of being cut."""
        if self.streams is not None:
            self.streams.end_all()
        if self.server is not None:
            self.server.domain.console_tap.end_all()  # the console's live views too

    async def shutdown(self) -> None:
        if self.state is not None:
            self.state.ready = False
            if self.server is not None:
                await self.server.domain.shared.stop()  # issue 16: its refresh loop reads the database
                if self.server.domain.shared_windows is not None:
                    await self.server.domain.shared_windows.stop()
                await self.server.domain.ledger.stop()  # writes the counts of its last second
                await self.server.domain.broadcast_clock.stop()
                await self.server.ads.publisher.stop()  # issue 23
            if self.dispatcher is not None:
                await self.dispatcher.stop()
                self.dispatcher = None
            if self.server is not None:
                with contextlib.suppress(Exception):  # a database gone already: the lease runs out
                    await self.server.id_slot.stop()  # the id slot, free for the next process at once
        if self.server is not None:
            await self.server.stores.db.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope.get("path", "")
        v2 = self.v2
        # The common request first: an HTTP request for a /2/ path the table gives the v2 surface.
        if (
            path[:3] == "/2/"
            and v2 is not None
            and scope["type"] == "http"
            and not path.startswith(CLAIMED_BEFORE_V2)
        ):
            await v2(scope, receive, send)
            return
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        parts = self.parts
        if parts is None:
            await send(
                {
                    "type": "http.response.start",
                    "status": 503,
                    "headers": [(b"content-type", b"application/json")],
                }
            )
            await send({"type": "http.response.body", "body": b'{"status":"starting"}'})
            return
        if path.startswith(CONTROL_PREFIX) and not admitted(self.settings.admin_token, scope):
            await refuse(scope, receive, send)  # issue 16: the control plane behind its admin token
            return
        if scope["type"] != "http":
            await parts[PAGES](scope, receive, send)  # Starlette refuses what it does not serve
            return
        if path == "/" and _wants_html(scope):
            # A person opening the server in a browser finds the console; API clients still get the
            # platform's route-missing 404 for `/`.
            await send({"type": "http.response.start", "status": 302, "headers": [(b"location", CONSOLE)]})
            await send({"type": "http.response.body", "body": b""})
            return
        await parts[route(path)](scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
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
