"""The demo advertiser: the demo user owns a production ads account and a sandbox account, each
with a funding instrument and the user as its FULL promotable user."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roost.ads.accounts import create_account

if TYPE_CHECKING:
    from roost.services import Services

# Fixed ids so docs and scripts can name the demo accounts.
DEMO_ADS_ACCOUNT = "18ce54d4x5t"
DEMO_SANDBOX_ACCOUNT = "gq1844"


async def seed_ads(services: Services, owner_user_id: int, now_ms: int) -> None:
    async with services.db.transaction() as tx:
        await create_account(
            services,
            tx,
            owner_user_id=owner_user_id,
            sandbox=False,
            now_ms=now_ms,
            name="Roost Demo Advertiser",
            account_id=DEMO_ADS_ACCOUNT,
        )
        await create_account(
            services,
            tx,
            owner_user_id=owner_user_id,
            sandbox=True,
            now_ms=now_ms,
            name="Sandbox account",
            account_id=DEMO_SANDBOX_ACCOUNT,
        )
