"""The demo advertiser: the demo user owns a production ads account and a sandbox account, each
with a funding instrument and the user as its FULL promotable user; the production account also
has one mobile app (account_apps)."""

from __future__ import annotations

from roost.ads.accounts import Accounts
from roost.ads.entities import Entities
from roost.core.ids import SnowflakeGenerator
from roost.storage.ads import AdsStore
from roost.storage.db import Database

# Fixed ids so docs and scripts can name the demo accounts.
DEMO_ADS_ACCOUNT = "18ce54d4x5t"
DEMO_SANDBOX_ACCOUNT = "gq1844"
DEMO_APP = {
    "app_store_identifier": "com.roost.demo",
    "os_type": "Android",
    "conversion_tracking_enabled": True,
    "deep_link_pattern": "roostdemo://",
}


async def seed_ads(
    db: Database, store: AdsStore, ids: SnowflakeGenerator, owner_user_id: int, now_ms: int
) -> None:
    # Built on the demo's own id source, so the seeded ids are the same on every machine.
    entities = Entities(store, ids)
    accounts = Accounts(db, store, entities)
    async with db.transaction() as tx:
        await accounts.create_in(
            tx,
            owner_user_id=owner_user_id,
            sandbox=False,
            now_ms=now_ms,
            name="Roost Demo Advertiser",
            account_id=DEMO_ADS_ACCOUNT,
        )
        # Apps are registered outside the ads API; the demo account gets one to list.
        await entities.create(
            tx,
            "account_app",
            DEMO_ADS_ACCOUNT,
            dict(DEMO_APP),
            now_ms=now_ms,
            user_id=owner_user_id,
        )
        await accounts.create_in(
            tx,
            owner_user_id=owner_user_id,
            sandbox=True,
            now_ms=now_ms,
            name="Sandbox account",
            account_id=DEMO_SANDBOX_ACCOUNT,
        )
