"""OAuth 2.0 authorization codes, user tokens (access and refresh, grouped in families) and approvals."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select, update

from roost.storage.db import Executor, Row
from roost.storage.schema import app_authorizations, oauth2_codes, oauth2_tokens
from roost.storage.statements import insert_all

_insert_code = insert_all(oauth2_codes)
_code = select(oauth2_codes).where(oauth2_codes.c.code == bindparam("code"))
# Conditional on `used_at IS NULL`: two concurrent exchanges of one code cannot both succeed.
_use_code = (
    update(oauth2_codes)
    .where(oauth2_codes.c.code == bindparam("code"), oauth2_codes.c.used_at.is_(None))
    .values(used_at=bindparam("at"))
)
_insert_token = insert_all(oauth2_tokens)
_token = select(oauth2_tokens).where(oauth2_tokens.c.token == bindparam("token"))
_revoke_token = (
    update(oauth2_tokens)
    .where(oauth2_tokens.c.token == bindparam("token"), oauth2_tokens.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)
_revoke_family = (
    update(oauth2_tokens)
    .where(oauth2_tokens.c.family == bindparam("family"), oauth2_tokens.c.revoked_at.is_(None))
    .values(revoked_at=bindparam("at"))
)
_insert_approval = insert_all(app_authorizations)
_update_approval = (
    update(app_authorizations)
    .where(
        app_authorizations.c.user_id == bindparam("user_id"),
        app_authorizations.c.app_id == bindparam("app_id"),
    )
    .values(scopes=bindparam("scopes"), created_at=bindparam("created_at"))
)


async def insert_code(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_code, row)


async def get_code(tx: Executor, code: str) -> Row | None:
    return await tx.fetch_one(_code, {"code": code})


async def use_code(tx: Executor, code: str, at_ms: int) -> bool:
    """Mark the code used; False if it already was."""
    return await tx.execute(_use_code, {"code": code, "at": at_ms}) == 1


async def insert_token(tx: Executor, row: dict[str, Any]) -> None:
    await tx.execute(_insert_token, row)


async def get_token(tx: Executor, token: str) -> Row | None:
    return await tx.fetch_one(_token, {"token": token})


async def revoke_token(tx: Executor, token: str, at_ms: int) -> bool:
    """Revoke one token; False if it was already revoked (or does not exist)."""
    return await tx.execute(_revoke_token, {"token": token, "at": at_ms}) == 1


async def revoke_family(tx: Executor, family: str, at_ms: int) -> int:
    return await tx.execute(_revoke_family, {"family": family, "at": at_ms})


async def record_approval(tx: Executor, user_id: int, app_id: int, scopes: str, at_ms: int) -> None:
    """Remember that the user approved the app (latest scopes win; an OAuth 1.0a level is kept)."""
    params = {"user_id": user_id, "app_id": app_id, "scopes": scopes, "created_at": at_ms}
    if await tx.execute(_update_approval, params) == 0:
        await tx.execute(_insert_approval, {**params, "access_level": None})
