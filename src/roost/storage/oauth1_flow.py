"""SQL of the OAuth 1.0a three-legged flow and of app-only bearer tokens."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, null, select, update

from roost.storage.db import Database, Executor, Row
from roost.storage.schema import app_authorizations, apps, oauth1_request_tokens, oauth1_tokens
from roost.storage.statements import insert_all

_insert_request = insert_all(oauth1_request_tokens)
_get_request = select(oauth1_request_tokens).where(oauth1_request_tokens.c.token == bindparam("token"))
_pending = (oauth1_request_tokens.c.token == bindparam("token"), oauth1_request_tokens.c.used_at.is_(None))
_approve = (
    update(oauth1_request_tokens)
    .where(*_pending, oauth1_request_tokens.c.verifier.is_(None), oauth1_request_tokens.c.denied == 0)
    .values(user_id=bindparam("user_id"), verifier=bindparam("verifier"))
)
_deny = (
    update(oauth1_request_tokens)
    .where(*_pending, oauth1_request_tokens.c.verifier.is_(None))
    .values(denied=1, used_at=bindparam("at"))
)
# The guard on used_at makes the exchange single-use even under concurrent requests.
_use = update(oauth1_request_tokens).where(*_pending).values(used_at=bindparam("at"))

_get_authorization = select(app_authorizations).where(
    app_authorizations.c.user_id == bindparam("user_id"), app_authorizations.c.app_id == bindparam("app_id")
)
_insert_authorization = insert_all(app_authorizations)
_update_authorization = (
    update(app_authorizations)
    .where(
        app_authorizations.c.user_id == bindparam("user_id"),
        app_authorizations.c.app_id == bindparam("app_id"),
    )
    .values(access_level=bindparam("access_level"))
)

_revoke_token = (
    update(oauth1_tokens)
    .where(oauth1_tokens.c.token == bindparam("token"), oauth1_tokens.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)
_set_bearer = (
    update(apps)
    .where(apps.c.id == bindparam("app_id"), apps.c.bearer_token.is_(None))
    .values(bearer_token=bindparam("token"), bearer_issued_at=bindparam("at"))
)
_clear_bearer = (
    update(apps)
    .where(apps.c.id == bindparam("app_id"), apps.c.bearer_token == bindparam("token"))
    .values(bearer_token=null())
)


async def insert_request_token(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_request, row)


async def request_token(db: Database, token: str) -> Row | None:
    return await db.fetch_one(_get_request, {"token": token})


async def approve(tx: Executor, token: str, user_id: int, verifier: str) -> bool:
    """Record the approving user and the verifier; False if the token was already decided or used."""
    return await tx.execute(_approve, {"token": token, "user_id": user_id, "verifier": verifier}) > 0


async def deny(tx: Executor, token: str, at_ms: int) -> bool:
    return await tx.execute(_deny, {"token": token, "at": at_ms}) > 0


async def use_request_token(tx: Executor, token: str, at_ms: int) -> bool:
    return await tx.execute(_use, {"token": token, "at": at_ms}) > 0


async def authorization(db: Database, user_id: int, app_id: int) -> Row | None:
    return await db.fetch_one(_get_authorization, {"user_id": user_id, "app_id": app_id})


async def remember_authorization(tx: Executor, user_id: int, app_id: int, level: str, at_ms: int) -> None:
    params = {"user_id": user_id, "app_id": app_id, "access_level": level}
    if await tx.execute(_update_authorization, params) == 0:
        await tx.execute(_insert_authorization, {**params, "scopes": None, "created_at": at_ms})


async def revoke_token(tx: Executor, token: str, at_ms: int) -> bool:
    return await tx.execute(_revoke_token, {"token": token, "at": at_ms}) > 0


async def set_bearer_if_none(tx: Executor, app_id: int, token: str, at_ms: int) -> bool:
    return await tx.execute(_set_bearer, {"app_id": app_id, "token": token, "at": at_ms}) > 0


async def clear_bearer(tx: Executor, app_id: int, token: str) -> bool:
    return await tx.execute(_clear_bearer, {"app_id": app_id, "token": token}) > 0
