"""Apps, their keys and the tokens issued to them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import apps, oauth1_tokens, oauth2_tokens, settings
from roost.storage.statements import insert_all

_app_by_id = select(apps).where(apps.c.id == bindparam("id"))
_app_by_key = select(apps).where(apps.c.consumer_key == bindparam("key"))
_app_by_bearer = select(apps).where(apps.c.bearer_token == bindparam("token"))
_app_by_client = select(apps).where(apps.c.client_id == bindparam("client_id"))
_all_apps = select(apps).order_by(apps.c.id)
_oauth1 = select(oauth1_tokens).where(oauth1_tokens.c.token == bindparam("token"))
_oauth2 = select(oauth2_tokens).where(oauth2_tokens.c.token == bindparam("token"))
_oauth1_for = (
    select(oauth1_tokens)
    .where(
        oauth1_tokens.c.app_id == bindparam("app_id"),
        oauth1_tokens.c.user_id == bindparam("user_id"),
        oauth1_tokens.c.revoked_at.is_(None),
    )
    .order_by(oauth1_tokens.c.created_at.desc())
    .limit(1)
)
_oauth2_for = (
    select(oauth2_tokens)
    .where(
        oauth2_tokens.c.app_id == bindparam("app_id"),
        oauth2_tokens.c.user_id == bindparam("user_id"),
        oauth2_tokens.c.kind == "access",
        oauth2_tokens.c.revoked_at.is_(None),
    )
    .order_by(oauth2_tokens.c.created_at.desc())
    .limit(1)
)
_setting = select(settings.c.value).where(settings.c.key == bindparam("key"))
_revoke1 = (
    update(oauth1_tokens)
    .where(
        oauth1_tokens.c.app_id == bindparam("app_id"),
        oauth1_tokens.c.user_id == bindparam("user_id"),
        oauth1_tokens.c.revoked_at.is_(None),
    )
    .values(revoked_at=bindparam("at"))
)
_rekey = (
    update(apps)
    .where(apps.c.id == bindparam("app_id"))
    .values(
        consumer_key=bindparam("consumer_key"),
        consumer_secret=bindparam("consumer_secret"),
        bearer_token=bindparam("bearer_token"),
        bearer_issued_at=bindparam("bearer_issued_at"),
    )
)

_set_package = update(apps).where(apps.c.id == bindparam("app_id")).values(package=bindparam("package"))
_insert_app = insert_all(apps)
_insert_oauth1 = insert_all(oauth1_tokens)
_insert_oauth2 = insert_all(oauth2_tokens)
_insert_setting = insert_all(settings)
_update_setting = update(settings).where(settings.c.key == bindparam("key")).values(value=bindparam("value"))


class AppStore:
    def __init__(self, db: Database) -> None:
        self._db = db

    async def get(self, app_id: int) -> Row | None:
        return await self._db.fetch_one(_app_by_id, {"id": app_id})

    async def by_consumer_key(self, key: str) -> Row | None:
        return await self._db.fetch_one(_app_by_key, {"key": key})

    async def by_bearer(self, token: str) -> Row | None:
        return await self._db.fetch_one(_app_by_bearer, {"token": token})

    async def by_client_id(self, client_id: str) -> Row | None:
        return await self._db.fetch_one(_app_by_client, {"client_id": client_id})

    async def all(self) -> list[Row]:
        return await self._db.fetch_all(_all_apps)

    async def oauth1_token(self, token: str) -> Row | None:
        return await self._db.fetch_one(_oauth1, {"token": token})

    async def oauth2_token(self, token: str) -> Row | None:
        return await self._db.fetch_one(_oauth2, {"token": token})

    async def oauth1_for(self, app_id: int, user_id: int) -> Row | None:
        return await self._db.fetch_one(_oauth1_for, {"app_id": app_id, "user_id": user_id})

    async def oauth2_for(self, app_id: int, user_id: int) -> Row | None:
        return await self._db.fetch_one(_oauth2_for, {"app_id": app_id, "user_id": user_id})

    async def setting(self, key: str) -> str | None:
        return await self._db.fetch_value(_setting, {"key": key})


async def insert_app(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_app, row)


async def insert_oauth1_token(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_oauth1, row)


async def insert_oauth2_token(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_oauth2, row)


async def revoke_oauth1_tokens(tx: Executor, app_id: int, user_id: int, at_ms: int) -> None:
    await tx.execute(_revoke1, {"app_id": app_id, "user_id": user_id, "at": at_ms})


async def rekey_app(
    tx: Executor,
    app_id: int,
    consumer_key: str,
    consumer_secret: str,
    bearer_token: str,
    bearer_issued_at: int,
) -> None:
    await tx.execute(
        _rekey,
        {
            "app_id": app_id,
            "consumer_key": consumer_key,
            "consumer_secret": consumer_secret,
            "bearer_token": bearer_token,
            "bearer_issued_at": bearer_issued_at,
        },
    )


async def set_package(tx: Executor, app_id: int, package: str) -> None:
    await tx.execute(_set_package, {"app_id": app_id, "package": package})


async def put_setting(tx: Executor, key: str, value: str) -> None:
    if await tx.execute(_update_setting, {"key": key, "value": value}) == 0:
        await tx.execute(_insert_setting, {"key": key, "value": value})
