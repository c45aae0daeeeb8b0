"""The service container: one per server, built at start-up, handed to handlers through `Call`."""

from __future__ import annotations

from dataclasses import dataclass

from roost.auth.principals import Authenticator
from roost.config import Settings
from roost.core.clock import Clock
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.ratelimit import RateLimiter
from roost.storage.ads import AdsStore
from roost.storage.apps import AppStore
from roost.storage.db import Database
from roost.storage.dms import DmStore
from roost.storage.events import EventStore
from roost.storage.posts import PostStore
from roost.storage.users import UserStore
from roost.storage.webhooks import WebhookStore


@dataclass
class Services:
    settings: Settings
    db: Database
    clock: Clock
    ids: SnowflakeGenerator
    tokens: TokenSource
    apps: AppStore
    users: UserStore
    posts: PostStore
    events: EventStore
    dms: DmStore
    webhooks: WebhookStore
    ads: AdsStore
    authenticator: Authenticator
    rate_limiter: RateLimiter

    @classmethod
    def build(cls, settings: Settings, db: Database, clock: Clock | None = None) -> Services:
        clock = clock or Clock()
        apps = AppStore(db)
        return cls(
            settings=settings,
            db=db,
            clock=clock,
            ids=SnowflakeGenerator(clock),
            tokens=TokenSource(settings.random_seed),
            apps=apps,
            users=UserStore(db),
            posts=PostStore(db),
            events=EventStore(db),
            dms=DmStore(db),
            webhooks=WebhookStore(db),
            ads=AdsStore(db),
            authenticator=Authenticator(apps, clock, settings.timestamp_window_s),
            rate_limiter=RateLimiter(settings.rate_limits),
        )

    async def observe_ids(self) -> None:
        """Ids handed out later must exceed every stored one (imports carry real ids)."""
        for current in (
            await self.posts.max_id(),
            await self.users.max_id(),
            await self.users.max_media_id(),
        ):
            self.ids.observe(current)
