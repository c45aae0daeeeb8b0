"""What the control plane does to ads accounts where the ads API has no endpoint: accounts for any
user (production or sandbox), roles, beta programmes, raised caps and RETWEETS_ONLY promotable users.
Its refusals are the control plane's problems (`roost.core.errors`), not ads API errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads.accounts import COMPOSER_ROLES, Accounts
from roost.ads.catalog import CURRENCIES
from roost.ads.entities import Entities
from roost.core import errors
from roost.core.clock import Clock
from roost.core.records import Row
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database
from roost.storage.users import UserStore


class Management:
    def __init__(
        self,
        db: Database,
        store: AdsStore,
        entities: Entities,
        accounts: Accounts,
        users: UserStore,
        clock: Clock,
    ) -> None:
        self._db = db
        self._store = store
        self._entities = entities
        self._accounts = accounts
        self._users = users
        self._clock = clock

    async def account(self, account_id: str) -> Row:
        """The account, in either environment and deleted or not."""
        account = await self._store.account(account_id)
        if account is None:
            raise errors.not_found_problem("No such ads account.")
        return account

    async def require_user(self, user_id: int) -> None:
        if await self._users.get(user_id) is None:
            raise errors.not_found_problem("No such user.")

    async def create_account(
        self, owner_user_id: int, *, sandbox: bool, name: str | None, currency: str
    ) -> dict[str, Any]:
        """An account of the user's, set up as a sandbox account is (see `Accounts.create_in`)."""
        await self.require_user(owner_user_id)
        if currency not in CURRENCIES:  # the codes the ads API itself accepts (funding instruments)
            raise errors.invalid_body(f"currency: one of {', '.join(CURRENCIES)} is expected")
        async with self._db.transaction() as tx:
            return await self._accounts.create_in(
                tx,
                owner_user_id=owner_user_id,
                sandbox=sandbox,
                now_ms=self._clock.now_ms(),
                name=name,
                currency=currency,
            )

    async def grant(self, account: Row, user_id: int, permissions: Sequence[str]) -> None:
        """Give the user these roles on the account (replacing the ones they had)."""
        if "TWEET_COMPOSER" in permissions and not any(role in permissions for role in COMPOSER_ROLES):
            raise errors.invalid_body("TWEET_COMPOSER needs ACCOUNT_ADMIN, AD_MANAGER or CREATIVE_MANAGER")
        async with self._db.transaction() as tx:
            await self._store.grant(tx, account["id"], user_id, permissions)

    async def set_allowlist(self, account: Row, programmes: Sequence[str]) -> None:
        async with self._db.transaction() as tx:
            await self._store.set_account_json(tx, account["id"], "allowlist", list(programmes))

    async def raise_limits(self, account: Row, wanted: dict[str, int]) -> dict[str, int]:
        """The account's caps with `wanted` set; returns all of them."""
        merged = {**account["limits"], **wanted}
        async with self._db.transaction() as tx:
            await self._store.set_account_json(tx, account["id"], "limits", merged)
        return merged

    async def add_promotable_user(self, account: Row, user_id: int) -> tuple[dict[str, Any], bool]:
        """The user as a RETWEETS_ONLY promotable user of the account (an author who allowed it to
        promote their posts); the flag says whether it was created now."""
        await self.require_user(user_id)
        rows, _ = await self._store.entities(EntityQuery("promotable_user", account["id"]))
        for row in rows:
            if int(row["body"]["user_id"]) == user_id:
                return row["body"], False
        now_ms = self._clock.now_ms()
        async with self._db.transaction() as tx:
            body = await self._entities.create(
                tx,
                "promotable_user",
                account["id"],
                {"user_id": str(user_id), "promotable_user_type": "RETWEETS_ONLY"},
                now_ms=now_ms,
                user_id=None,
            )
        return body, True
