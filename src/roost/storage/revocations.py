"""What a token's revocation reads and changes beside the token: who held it, whether the user still
holds a live token of the app, and the user's account-activity subscriptions on the app's webhooks."""

from __future__ import annotations

from sqlalchemy import bindparam, delete, or_, select

from roost.storage.db import Executor
from roost.storage.schema import aaa_subscriptions, oauth1_tokens, oauth2_tokens

_owner1 = select(oauth1_tokens.c.app_id, oauth1_tokens.c.user_id).where(
    oauth1_tokens.c.token == bindparam("token")
)
_owner2 = select(oauth2_tokens.c.app_id, oauth2_tokens.c.user_id).where(
    oauth2_tokens.c.token == bindparam("token")
)
_live1 = (
    select(oauth1_tokens.c.token)
    .where(
        oauth1_tokens.c.app_id == bindparam("app_id"),
        oauth1_tokens.c.user_id == bindparam("user_id"),
        oauth1_tokens.c.revoked_at.is_(None),
    )
    .limit(1)
)
# An expired access token beside a live refresh token still leaves the app its access.
_live2 = (
    select(oauth2_tokens.c.token)
    .where(
        oauth2_tokens.c.app_id == bindparam("app_id"),
        oauth2_tokens.c.user_id == bindparam("user_id"),
        oauth2_tokens.c.revoked_at.is_(None),
        or_(oauth2_tokens.c.expires_at.is_(None), oauth2_tokens.c.expires_at > bindparam("now")),
    )
    .limit(1)
)
_drop_subscriptions = delete(aaa_subscriptions).where(
    aaa_subscriptions.c.app_id == bindparam("app_id"), aaa_subscriptions.c.user_id == bindparam("user_id")
)


async def token_owner_tx(tx: Executor, token: str) -> tuple[int, int] | None:
    """(app id, user id) of an OAuth 1.0a or OAuth 2.0 user token, by its value."""
    row = await tx.fetch_one(_owner1, {"token": token}) or await tx.fetch_one(_owner2, {"token": token})
    return None if row is None else (int(row["app_id"]), int(row["user_id"]))


async def holds_live_token_tx(tx: Executor, app_id: int, user_id: int, now_ms: int) -> bool:
    params = {"app_id": app_id, "user_id": user_id, "now": now_ms}
    return (await tx.fetch_one(_live1, params)) is not None or (
        await tx.fetch_one(_live2, params)
    ) is not None


async def drop_aaa_subscriptions_tx(tx: Executor, app_id: int, user_id: int) -> int:
    return await tx.execute(_drop_subscriptions, {"app_id": app_id, "user_id": user_id})
