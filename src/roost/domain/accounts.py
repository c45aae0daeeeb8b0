"""Apps, users and tokens: creation and rotation (used by the CLI, the control plane and the demo seed)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from roost.auth.scopes import ALL_SCOPES, DEFAULT_SCOPES
from roost.core import jsonio
from roost.core.errors import ApiError, invalid_body
from roost.core.params import USERNAME_PATTERN
from roost.domain.text import user_entities
from roost.services import Services
from roost.storage import apps as app_rows
from roost.storage import users as user_rows
from roost.storage.db import Executor

PERMISSIONS = ("read", "read-write", "read-write-directmessages")
SUBSCRIPTIONS = ("None", "Basic", "Premium", "PremiumPlus")
VERIFIED_TYPES = ("none", "blue", "business", "government")
_USERNAME = re.compile(USERNAME_PATTERN)


def valid_username(value: object) -> bool:
    """A name outside the lookup pattern could be stored but never found by /2/users/by/username."""
    return isinstance(value, str) and _USERNAME.fullmatch(value) is not None


def hash_password(password: str) -> str:
    """scrypt with a random salt, stored as `scrypt$<salt hex>$<hash hex>`."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, n=2**14, r=8, p=1)
    return f"scrypt${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str | None) -> bool:
    """Constant-time comparison against a stored scrypt hash; no hash means no sign-in."""
    if not stored or not stored.startswith("scrypt$"):
        return False
    _, salt_hex, digest_hex = stored.split("$", 2)
    digest = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt_hex), n=2**14, r=8, p=1)
    return hmac.compare_digest(digest.hex(), digest_hex)


async def create_user(
    services: Services,
    tx: Executor,
    *,
    username: str,
    name: str | None = None,
    user_id: int | None = None,
    created_at: int | None = None,
    **fields: Any,
) -> dict[str, Any]:
    if not valid_username(username):
        raise invalid_body(f"username must match {USERNAME_PATTERN}")
    if await user_rows.get_users_by_names_tx(tx, [username]):
        raise ApiError(
            409,
            {
                "title": "Conflict",
                "detail": f"username {username} is taken",
                "type": "about:blank",
                "status": 409,
            },
        )
    if fields.get("subscription_type", "None") not in SUBSCRIPTIONS:
        raise invalid_body(f"subscription_type must be one of {', '.join(SUBSCRIPTIONS)}")
    if fields.get("verified_type", "none") not in VERIFIED_TYPES:
        raise invalid_body(f"verified_type must be one of {', '.join(VERIFIED_TYPES)}")
    uid = user_id if user_id is not None else services.ids.next_id()
    services.ids.observe(uid)
    description = fields.get("description", "")
    url = fields.get("url", "")
    row: dict[str, Any] = {
        "id": uid,
        "username": username,
        "username_lower": username.lower(),
        "name": name or username,
        "created_at": created_at if created_at is not None else services.clock.now_ms(),
        "description": description,
        "location": fields.get("location"),
        "url": url,
        "profile_image_url": fields.get(
            "profile_image_url", f"https://pbs.twimg.com/profile_images/{uid}/avatar_normal.jpg"
        ),
        "profile_banner_url": fields.get("profile_banner_url"),
        "protected": int(bool(fields.get("protected", False))),
        "verified": int(bool(fields.get("verified", False))),
        "verified_type": fields.get("verified_type", "none"),
        "subscription_type": fields.get("subscription_type", "None"),
        "parody": int(bool(fields.get("parody", False))),
        "is_identity_verified": int(bool(fields.get("is_identity_verified", False))),
        "pinned_post_id": fields.get("pinned_post_id"),
        "most_recent_post_id": None,
        "affiliation": _json_or_none(fields.get("affiliation")),
        "withheld": _json_or_none(fields.get("withheld")),
        "entities": user_entities(description, url),
        "email": fields.get("email"),
        "password_hash": hash_password(fields["password"]) if fields.get("password") else None,
        "followers_count": 0,
        "following_count": 0,
        "tweet_count": 0,
        "listed_count": fields.get("listed_count", 0),
        "like_count": 0,
        "media_count": 0,
    }
    await user_rows.insert_user(tx, row)
    if row["protected"]:
        services.users.forget_protected()
    return row


def _json_or_none(value: Any) -> str | None:
    return None if value is None else jsonio.dumps(value).decode()


async def create_app(
    services: Services,
    tx: Executor,
    *,
    name: str,
    owner_user_id: int | None,
    permission: str = "read-write-directmessages",
    callback_urls: list[str] | None = None,
    client_type: str = "confidential",
) -> dict[str, Any]:
    if permission not in PERMISSIONS:
        raise invalid_body(f"permission must be one of {', '.join(PERMISSIONS)}")
    tokens = services.tokens
    app_id = services.ids.next_id()
    row = {
        "id": app_id,
        "name": name,
        "consumer_key": tokens.token(25),
        "consumer_secret": tokens.token(50),
        "bearer_token": bearer_token(services),
        "bearer_issued_at": services.clock.now_ms(),
        "client_id": tokens.token(34),
        "client_secret": tokens.token(50),
        "client_type": client_type,
        "permission": permission,
        "owner_user_id": owner_user_id,
        "project_id": services.ids.next_id(),
        "callback_urls": jsonio.dumps(callback_urls or []).decode(),
        "sign_in_with": 1,
        "created_at": services.clock.now_ms(),
    }
    await app_rows.insert_app(tx, row)
    return row


def bearer_token(services: Services) -> str:
    # The platform's app-only tokens are long, start with a run of A's and contain %-escapes.
    tokens = services.tokens
    return "AAAAAAAAAAAAAAAAAAAAA" + tokens.token(24) + "%2F" + tokens.token(20) + "%3D" + tokens.token(50)


async def issue_oauth1_token(
    services: Services, tx: Executor, app: dict[str, Any], user_id: int, access_level: str | None = None
) -> dict[str, Any]:
    level = access_level or app["permission"]
    if level not in PERMISSIONS:
        raise invalid_body(f"access level must be one of {', '.join(PERMISSIONS)}")
    # A token may only narrow what the app is allowed (PERMISSIONS runs from least to most).
    if PERMISSIONS.index(level) > PERMISSIONS.index(app["permission"]):
        raise invalid_body(f"access level {level} is above the app's permission ({app['permission']})")
    row = {
        "token": f"{user_id}-{services.tokens.token(40)}",
        "secret": services.tokens.token(45),
        "app_id": app["id"],
        "user_id": user_id,
        "access_level": level,
        "created_at": services.clock.now_ms(),
        "revoked_at": None,
    }
    await app_rows.insert_oauth1_token(tx, row)
    return row


async def issue_oauth2_token(
    services: Services,
    tx: Executor,
    app: dict[str, Any],
    user_id: int,
    scopes: tuple[str, ...] = DEFAULT_SCOPES,
    lifetime_ms: int | None = None,
) -> dict[str, Any]:
    unknown = [scope for scope in scopes if scope not in ALL_SCOPES]
    if unknown:
        raise invalid_body(f"unknown scope: {', '.join(unknown)}")
    if not scopes:
        raise invalid_body("at least one scope is required")
    now = services.clock.now_ms()
    row = {
        "token": services.tokens.token(86),
        "kind": "access",
        "app_id": app["id"],
        "user_id": user_id,
        "scopes": " ".join(scopes),
        "expires_at": None if lifetime_ms is None else now + lifetime_ms,
        "created_at": now,
        "revoked_at": None,
        "family": None,
    }
    await app_rows.insert_oauth2_token(tx, row)
    return row


async def regenerate_app_keys(services: Services, tx: Executor, app_id: int) -> None:
    tokens = services.tokens
    await app_rows.rekey_app(
        tx, app_id, tokens.token(25), tokens.token(50), bearer_token(services), services.clock.now_ms()
    )
    services.authenticator.forget()
