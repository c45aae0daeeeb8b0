"""The server's own housekeeping, for the control plane and start-up: the id floor, the wipe of a reset,
the clock, and the demo credentials."""

from __future__ import annotations

from dataclasses import dataclass

from roost.auth.principals import Authenticator
from roost.core.clock import Clock
from roost.core.errors import not_found_problem
from roost.core.ids import SnowflakeGenerator
from roost.core.ratelimit import RateLimiter
from roost.core.records import Row
from roost.storage import maintenance
from roost.storage.apps import AppStore
from roost.storage.db import Database
from roost.storage.posts import PostStore
from roost.storage.users import UserStore

DEMO_APP_SETTING = "demo_app_id"
DEMO_SELF_SERVE_APP_SETTING = "demo_self_serve_app_id"  # the demo's pay-per-use app (issue 20)
DEMO_USER_SETTING = "demo_user_id"


@dataclass(frozen=True, slots=True)
class DemoAccount:
    """The demo app and user, with the user's live tokens for the app (None when revoked)."""

    app: Row
    user: Row
    oauth1: Row | None
    oauth2: Row | None
    # The second demo app, on the pay-per-use package, and the user's tokens for it (None in a database
    # seeded before it existed).
    self_serve_app: Row | None = None
    self_serve_oauth1: Row | None = None
    self_serve_oauth2: Row | None = None


class Maintenance:
    def __init__(
        self,
        db: Database,
        apps: AppStore,
        users: UserStore,
        posts: PostStore,
        clock: Clock,
        ids: SnowflakeGenerator,
        authenticator: Authenticator,
        limiter: RateLimiter,
    ) -> None:
        self._db = db
        self._apps = apps
        self._users = users
        self._posts = posts
        self._clock = clock
        self._ids = ids
        self._authenticator = authenticator
        self._limiter = limiter

    async def observe_ids(self) -> None:
        """Ids handed out later must exceed every stored one (imports carry real ids)."""
        for current in (
            await self._posts.max_id(),
            await self._users.max_id(),
            await self._users.max_media_id(),
        ):
            self._ids.observe(current)

    async def wipe(self) -> None:
        """Every row gone, and with them what was remembered of them: cached credentials, counted
        requests."""
        await maintenance.wipe(self._db)
        self._authenticator.forget()
        self._limiter.reset()

    # ---- the clock ------------------------------------------------------------------------------

    def now_ms(self) -> int:
        return self._clock.now_ms()

    def clock_frozen(self) -> bool:
        return self._clock.frozen

    def advance_clock(self, seconds: float) -> None:
        self._clock.advance(seconds)

    def set_clock(self, epoch_ms: int) -> None:
        self._clock.set(epoch_ms)

    # ---- the demo dataset -----------------------------------------------------------------------

    async def demo_seeded(self) -> bool:
        return await self._apps.setting(DEMO_APP_SETTING) is not None

    async def demo_account(self) -> DemoAccount:
        app_id = await self._apps.setting(DEMO_APP_SETTING)
        user_id = await self._apps.setting(DEMO_USER_SETTING)
        if app_id is None or user_id is None:
            raise not_found_problem("No demo data (started with --no-demo).")
        app = await self._apps.get(int(app_id))
        user = await self._users.get(int(user_id))
        if app is None or user is None:
            raise not_found_problem("Demo app or user was removed.")
        oauth1 = await self._apps.oauth1_for(app["id"], user["id"])
        oauth2 = await self._apps.oauth2_for(app["id"], user["id"])
        self_serve_id = await self._apps.setting(DEMO_SELF_SERVE_APP_SETTING)
        self_serve = None if self_serve_id is None else await self._apps.get(int(self_serve_id))
        if self_serve is None:
            return DemoAccount(app, user, oauth1, oauth2)
        return DemoAccount(
            app,
            user,
            oauth1,
            oauth2,
            self_serve,
            await self._apps.oauth1_for(self_serve["id"], user["id"]),
            await self._apps.oauth2_for(self_serve["id"], user["id"]),
        )
