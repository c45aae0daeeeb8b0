"""Apps, users and tokens: creation and rotation (used by the CLI, the control plane, the OAuth flows
and the demo seed)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from roost.auth.principals import Authenticator
from roost.auth.scopes import ALL_SCOPES, DEFAULT_SCOPES
from roost.core import jsonio
from roost.core.clock import Clock
from roost.core.errors import ApiError, invalid_body
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.params import USERNAME_PATTERN
from roost.core.records import Row
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES
from roost.domain.text import user_entities
from roost.storage import apps as app_rows
from roost.storage import users as user_rows
from roost.storage.apps import AppStore
from roost.storage.db import Database, Executor
from roost.storage.users import UserStore

PERMISSIONS = ("read", "read-write", "read-write-directmessages")
SUBSCRIPTIONS = ("None", "Basic", "Premium", "PremiumPlus")
VERIFIED_TYPES = ("none", "blue", "business", "government")
_USERNAME = re.compile(USERNAME_PATTERN)

# The control plane's follow (no follow request, no block check), from the social rules.
DirectFollow = Callable[[int, int], Awaitable[bool]]


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


def oauth1_credentials(token: Row) -> dict[str, str]:
    """What the holder of an OAuth 1.0a access token is given."""
    return {
        "access_token": token["token"],
        "access_token_secret": token["secret"],
        "access_level": token["access_level"],
    }


def oauth2_credentials(token: Row) -> dict[str, str]:
    """What the holder of an OAuth 2.0 access token issued outside the authorize flow is given."""
    return {"access_token": token["token"], "scope": token["scopes"]}


def _check_package(package: object) -> None:
    if package not in PACKAGES:
        raise invalid_body(f"package must be one of {', '.join(PACKAGES)}")


def _json_or_none(value: Any) -> str | None:
    return None if value is None else jsonio.dumps(value).decode()


class AccountService:
    """Users, apps and their keys and tokens. The `*_in` methods write inside a caller's transaction
    (the demo seed, the OAuth flows); the others own theirs."""

    def __init__(
        self,
        db: Database,
        apps: AppStore,
        users: UserStore,
        clock: Clock,
        ids: SnowflakeGenerator,
        tokens: TokenSource,
        authenticator: Authenticator,
        follow_directly: DirectFollow,
    ) -> None:
        self._db = db
        self._apps = apps
        self._users = users
        self._clock = clock
        self._ids = ids
        self._tokens = tokens
        self._authenticator = authenticator
        self._follow_directly = follow_directly

    def with_sources(self, clock: Clock, ids: SnowflakeGenerator, tokens: TokenSource) -> AccountService:
        """The same service drawing time, ids and tokens from other sources (the demo seed's fixed
        instant and seeded source, so its credentials are the same everywhere)."""
        return AccountService(
            self._db, self._apps, self._users, clock, ids, tokens, self._authenticator, self._follow_directly
        )

    # ---- lookups --------------------------------------------------------------------------------

    async def app_by_consumer_key(self, consumer_key: str) -> Row | None:
        return await self._apps.by_consumer_key(consumer_key)

    async def user_by_username(self, username: str) -> Row | None:
        return await self._users.get_by_username(username)

    # ---- users ----------------------------------------------------------------------------------

    async def create_user(self, **fields: Any) -> Row:
        async with self._db.transaction() as tx:
            return await self.create_user_in(tx, **fields)

    async def create_user_in(
        self,
        tx: Executor,
        *,
        username: str,
        name: str | None = None,
        user_id: int | None = None,
        created_at: int | None = None,
        **fields: Any,
    ) -> Row:
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
        uid = user_id if user_id is not None else self._ids.next_id()
        self._ids.observe(uid)
        description = fields.get("description", "")
        url = fields.get("url", "")
        row: Row = {
            "id": uid,
            "username": username,
            "username_lower": username.lower(),
            "name": name or username,
            "created_at": created_at if created_at is not None else self._clock.now_ms(),
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
            self._users.forget_protected()
        return row

    async def follow(self, follower_id: int, followee_id: int) -> bool:
        """The control plane's follow between two existing users; False when it already existed."""
        users = await self._users.get_many([follower_id, followee_id])
        if len({row["id"] for row in users}) != 2:
            raise invalid_body("follower_id and followee_id must name two existing users")
        return await self._follow_directly(follower_id, followee_id)  # appends follow.follow

    # ---- apps -----------------------------------------------------------------------------------

    async def create_app(
        self,
        *,
        name: str,
        owner_user_id: int | None,
        permission: str = "read-write-directmessages",
        callback_urls: Sequence[str] | None = None,
        client_type: str = "confidential",
        package: str = DEFAULT_PACKAGE,
    ) -> Row:
        async with self._db.transaction() as tx:
            return await self.create_app_in(
                tx,
                name=name,
                owner_user_id=owner_user_id,
                permission=permission,
                callback_urls=callback_urls,
                client_type=client_type,
                package=package,
            )

    async def create_app_in(
        self,
        tx: Executor,
        *,
        name: str,
        owner_user_id: int | None,
        permission: str = "read-write-directmessages",
        callback_urls: Sequence[str] | None = None,
        client_type: str = "confidential",
        package: str = DEFAULT_PACKAGE,
    ) -> Row:
        if permission not in PERMISSIONS:
            raise invalid_body(f"permission must be one of {', '.join(PERMISSIONS)}")
        _check_package(package)
        tokens = self._tokens
        app_id = self._ids.next_id()
        row: Row = {
            "id": app_id,
            "name": name,
            "consumer_key": tokens.token(25),
            "consumer_secret": tokens.token(50),
            "bearer_token": self.new_bearer_token(),
            "bearer_issued_at": self._clock.now_ms(),
            "client_id": tokens.token(34),
            "client_secret": tokens.token(50),
            "client_type": client_type,
            "permission": permission,
            "owner_user_id": owner_user_id,
            "project_id": self._ids.next_id(),
            "callback_urls": jsonio.dumps(callback_urls or []).decode(),
            "sign_in_with": 1,
            "created_at": self._clock.now_ms(),
            "package": package,
            "credit_micros": None,  # no credit limit until one is given (issue 20)
        }
        await app_rows.insert_app(tx, row)
        return row

    def new_bearer_token(self) -> str:
        # The platform's app-only tokens are long, start with a run of A's and contain %-escapes.
        tokens = self._tokens
        return (
            "AAAAAAAAAAAAAAAAAAAAA" + tokens.token(24) + "%2F" + tokens.token(20) + "%3D" + tokens.token(50)
        )

    async def regenerate_app_keys(self, consumer_key: str) -> Row:
        """New consumer key, secret and bearer token; the old ones are refused at once. Answers the
        app as it now is."""
        app = await self._apps.by_consumer_key(consumer_key)
        if app is None:
            raise invalid_body("consumer_key must name an existing app")
        tokens = self._tokens
        async with self._db.transaction() as tx:
            await app_rows.rekey_app(
                tx,
                app["id"],
                tokens.token(25),
                tokens.token(50),
                self.new_bearer_token(),
                self._clock.now_ms(),
            )
        self._authenticator.forget()
        fresh = await self._apps.get(app["id"])
        assert fresh is not None
        return fresh

    async def change_package(self, consumer_key: str, package: object) -> Row:
        """Move an app to another package; its next request is held to the new one. Answers the app."""
        _check_package(package)
        app = await self._apps.by_consumer_key(consumer_key)
        if app is None:
            raise invalid_body("consumer_key must name an existing app")
        async with self._db.transaction() as tx:
            await app_rows.set_package(tx, app["id"], str(package))
        self._authenticator.forget()  # cached principals carry the package
        return {**app, "package": str(package)}

    # ---- tokens ---------------------------------------------------------------------------------

    async def issue_token(
        self,
        consumer_key: str,
        user_id: object,
        *,
        kind: str = "oauth1",
        access_level: str | None = None,
        scopes: str | None = None,
    ) -> dict[str, str]:
        """The control plane's token: for an app named by its consumer key and a user by its id."""
        app = await self._apps.by_consumer_key(consumer_key)
        user = await self._users.get(int(str(user_id))) if str(user_id or "").isdigit() else None
        if app is None or user is None:
            raise invalid_body("consumer_key and user_id must name an existing app and user")
        return await self.issue(app, user["id"], kind=kind, access_level=access_level, scopes=scopes)

    async def issue(
        self,
        app: Row,
        user_id: int,
        *,
        kind: str = "oauth1",
        access_level: str | None = None,
        scopes: str | None = None,
    ) -> dict[str, str]:
        """An OAuth 2.0 access token (`kind` oauth2; space-separated `scopes`, the default set when
        none) or an OAuth 1.0a one (at `access_level`, the app's permission when none)."""
        async with self._db.transaction() as tx:
            if kind == "oauth2":
                chosen = tuple(scopes.split()) if scopes else DEFAULT_SCOPES
                return oauth2_credentials(await self.issue_oauth2_in(tx, app, user_id, chosen))
            return oauth1_credentials(await self.issue_oauth1_in(tx, app, user_id, access_level))

    async def issue_oauth1_in(
        self, tx: Executor, app: Row, user_id: int, access_level: str | None = None
    ) -> Row:
        level = access_level or app["permission"]
        if level not in PERMISSIONS:
            raise invalid_body(f"access level must be one of {', '.join(PERMISSIONS)}")
        # A token may only narrow what the app is allowed (PERMISSIONS runs from least to most).
        if PERMISSIONS.index(level) > PERMISSIONS.index(app["permission"]):
            raise invalid_body(f"access level {level} is above the app's permission ({app['permission']})")
        row: Row = {
            "token": f"{user_id}-{self._tokens.token(40)}",
            "secret": self._tokens.token(45),
            "app_id": app["id"],
            "user_id": user_id,
            "access_level": level,
            "created_at": self._clock.now_ms(),
            "revoked_at": None,
        }
        await app_rows.insert_oauth1_token(tx, row)
        return row

    async def issue_oauth2_in(
        self,
        tx: Executor,
        app: Row,
        user_id: int,
        scopes: tuple[str, ...] = DEFAULT_SCOPES,
        lifetime_ms: int | None = None,
    ) -> Row:
        unknown = [scope for scope in scopes if scope not in ALL_SCOPES]
        if unknown:
            raise invalid_body(f"unknown scope: {', '.join(unknown)}")
        if not scopes:
            raise invalid_body("at least one scope is required")
        now = self._clock.now_ms()
        row: Row = {
            "token": self._tokens.token(86),
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
