"""Rules of the OAuth 1.0a three-legged flow and of app-only bearer tokens (no web toolkit here).

The token steps answer v1.1-style coded errors (`errors.coded`), except where the platform sends
something else: the unapproved callback (403 XML, code 415) and the verifier failures (401 plain
text), raised as `OAuthFailure` with the raw body.
"""

from __future__ import annotations

import base64
import hmac
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode

from roost.auth import oauth1
from roost.auth.principals import Authenticator
from roost.config import Settings
from roost.core import errors, jsonio
from roost.core.clock import Clock
from roost.core.ids import TokenSource
from roost.core.principal import WRITE_LEVELS, RequestAuth
from roost.core.records import Row
from roost.domain.accounts import AccountService
from roost.domain.oauth2_flow import is_allowed_redirect
from roost.domain.revocations import Revocations
from roost.storage import oauth1_flow as rows
from roost.storage.apps import AppStore
from roost.storage.db import Database
from roost.storage.shared_limits import WindowStore
from roost.storage.users import UserStore

XML = "application/xml;charset=utf-8"
TEXT = "text/plain; charset=utf-8"
CALLBACK_NOT_APPROVED = (
    '<?xml version="1.0" encoding="UTF-8"?><errors><error code="415">Callback URL not approved for this '
    "client application. Approved callback URLs can be adjusted in your application settings</error></errors>"
)
INVALID_VERIFIER = "Error processing your OAuth request: Invalid oauth_verifier parameter"
MISSING_VERIFIER = "Error processing your OAuth request: Required oauth_verifier parameter not provided"
ACCESS_TYPE_PARAMS = ("x_auth_access_type", "service_auth_access_type")
# Defaults of the code-99 throttle on POST /oauth2/token (settings.extra overrides them).
BEARER_MAX_REQUESTS = 5
BEARER_WINDOW_S = 10


class OAuthFailure(Exception):
    """An error answered with a raw (non-JSON) body."""

    def __init__(self, status: int, body: str, content_type: str) -> None:
        super().__init__(body)
        self.status = status
        self.body = body
        self.content_type = content_type


def _credentials_error() -> errors.ApiError:
    return errors.coded(403, 99, label="authenticity_token_error")


def callback_allowed(app: Mapping[str, Any], callback: str) -> bool:
    """`oob`, or a registered URL (its query may differ) whose scheme a browser may be sent to."""
    if callback == "oob":
        return True
    if not is_allowed_redirect(callback):
        return False
    registered = jsonio.loads(app["callback_urls"] or "[]")
    bare = callback.split("?", 1)[0]
    return any(callback == url or bare == url.split("?", 1)[0] for url in registered if url != "oob")


def granted_level(app_permission: str, requested: str | None) -> str:
    """`read` or `write` can only lower what the app's permission grants."""
    if requested == "read":
        return "read"
    if requested == "write" and app_permission in WRITE_LEVELS:
        return "read-write"
    return app_permission


@dataclass(frozen=True)
class Pending:
    """A request token waiting for a user's decision, with what the page shows."""

    token: str
    app_id: int
    app_name: str
    callback: str
    access_level: str
    sign_in_with: bool


@dataclass(frozen=True)
class Decision:
    redirect: str | None  # where the browser goes; None for oob
    pin: str | None = None


def _with_query(url: str, pairs: list[tuple[str, str]]) -> str:
    fragment = ""
    if "#" in url:
        url, fragment = url.split("#", 1)
        fragment = "#" + fragment
    joiner = "&" if "?" in url else "?"
    if url.endswith(("?", "&")):
        joiner = ""
    return url + joiner + urlencode(pairs) + fragment


class BearerThrottle:
    """Counts POST /oauth2/token per app in fixed windows (in memory, one per server)."""

    def __init__(self) -> None:
        self._windows: dict[int, tuple[float, int]] = {}

    def allow(self, app_id: int, limit: int, window_s: float, now: float) -> bool:
        start, count = self._windows.get(app_id, (now, 0))
        if now - start >= window_s:
            start, count = now, 0
        self._windows[app_id] = (start, count + 1)
        if len(self._windows) > 10_000:
            self._windows = {k: v for k, v in self._windows.items() if now - v[0] < window_s}
        return count + 1 <= limit


class OAuth1Flow:
    """The three legs (request token, the user's decision, access token), token invalidation, and
    app-only bearer tokens."""

    def __init__(
        self,
        db: Database,
        apps: AppStore,
        users: UserStore,
        clock: Clock,
        tokens: TokenSource,
        authenticator: Authenticator,
        accounts: AccountService,
        settings: Settings,  # feature settings read live: the bearer-token throttle
        revocations: Revocations,
        shared_throttle: WindowStore | None = None,  # issue 16: several processes on PostgreSQL
    ) -> None:
        self._revocations = revocations
        self._db = db
        self._apps = apps
        self._users = users
        self._clock = clock
        self._tokens = tokens
        self._authenticator = authenticator
        self._accounts = accounts
        self._settings = settings
        self._throttle = BearerThrottle()
        self._shared_throttle = shared_throttle

    # ---- step 1: request token ------------------------------------------------------------------

    async def _signed(self, request: RequestAuth) -> tuple[oauth1.OAuth1Request, Row]:
        oauth = oauth1.collect(request.authorization, request.query_pairs, request.form_pairs)
        if oauth is None:
            raise errors.coded(400, 215)
        app = await self._apps.by_consumer_key(oauth.oauth["oauth_consumer_key"])
        if app is None:
            raise errors.coded(401, 32)
        return oauth, app

    async def request_token(self, request: RequestAuth) -> list[tuple[str, str]]:
        oauth, app = await self._signed(request)
        if not self._authenticator.signature_ok(request, oauth, app["consumer_secret"], ""):
            raise errors.coded(401, 32)
        await self._authenticator.check_window(oauth, None)
        callback = oauth.oauth.get("oauth_callback", "")
        if not callback:
            raise errors.coded(400, 215)
        if not callback_allowed(app, callback):
            raise OAuthFailure(403, CALLBACK_NOT_APPROVED, XML)
        requested = next((v for k, v in oauth.params if k in ACCESS_TYPE_PARAMS), None)
        row = {
            "token": self._tokens.token(27),
            "secret": self._tokens.token(32),
            "app_id": app["id"],
            "callback": callback,
            "access_type": granted_level(app["permission"], requested),
            "verifier": None,
            "user_id": None,
            "denied": 0,
            "created_at": self._clock.now_ms(),
            "used_at": None,
        }
        async with self._db.transaction() as tx:
            await rows.insert_request_token(tx, row)
        return [
            ("oauth_token", row["token"]),
            ("oauth_token_secret", row["secret"]),
            ("oauth_callback_confirmed", "true"),
        ]

    # ---- step 2: authorize / authenticate -------------------------------------------------------

    async def pending(self, token: str) -> Pending | None:
        row = await rows.request_token(self._db, token) if token else None
        if row is None or row["used_at"] is not None or row["verifier"] is not None or row["denied"]:
            return None
        app = await self._apps.get(row["app_id"])
        if app is None:
            return None
        return Pending(
            token, app["id"], app["name"], row["callback"], row["access_type"], bool(app["sign_in_with"])
        )

    async def approve_returning(self, request: Pending, user_id: int) -> Decision | None:
        """authenticate skips the question for a returning user when the app enables "Sign in with":
        the approval, or None when the question is to be asked."""
        if not request.sign_in_with or await rows.authorization(self._db, user_id, request.app_id) is None:
            return None
        return await self.approve(request, user_id)

    async def approve(self, request: Pending, user_id: int) -> Decision:
        oob = request.callback == "oob"
        # The PIN is typed by a person, so it is short and numeric; web verifiers are long.
        verifier = f"{self._tokens.randint(0, 9_999_999):07d}" if oob else self._tokens.token(32)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            if not await rows.approve(tx, request.token, user_id, verifier):
                raise OAuthFailure(403, "This request token was already used.", TEXT)
            await rows.remember_authorization(tx, user_id, request.app_id, request.access_level, now)
        if oob:
            return Decision(None, verifier)
        return Decision(
            _with_query(request.callback, [("oauth_token", request.token), ("oauth_verifier", verifier)])
        )

    async def deny(self, request: Pending) -> Decision:
        async with self._db.transaction() as tx:
            await rows.deny(tx, request.token, self._clock.now_ms())
        if request.callback == "oob":
            return Decision(None)
        return Decision(_with_query(request.callback, [("denied", request.token)]))

    # ---- step 3: access token -------------------------------------------------------------------

    async def access_token(self, request: RequestAuth) -> list[tuple[str, str]]:
        oauth, app = await self._signed(request)
        token = oauth.oauth.get("oauth_token", "")
        row = await rows.request_token(self._db, token) if token else None
        if row is None or row["app_id"] != app["id"]:
            raise errors.coded(401, 89)
        if not self._authenticator.signature_ok(request, oauth, app["consumer_secret"], row["secret"]):
            raise errors.coded(401, 32)
        await self._authenticator.check_window(oauth, token)
        if row["used_at"] is not None:
            raise errors.coded(401, 89)
        verifier = oauth.oauth.get("oauth_verifier", "")
        if not verifier:
            raise OAuthFailure(401, MISSING_VERIFIER, TEXT)
        if row["verifier"] is None or not hmac.compare_digest(verifier.encode(), row["verifier"].encode()):
            raise OAuthFailure(401, INVALID_VERIFIER, TEXT)
        user = await self._users.get(row["user_id"])
        if user is None:
            raise errors.coded(401, 89)
        async with self._db.transaction() as tx:
            if not await rows.use_request_token(tx, token, self._clock.now_ms()):
                raise errors.coded(401, 89)  # a concurrent exchange won
            issued = await self._accounts.issue_oauth1_in(tx, app, user["id"], row["access_type"])
        return [
            ("oauth_token", issued["token"]),
            ("oauth_token_secret", issued["secret"]),
            ("user_id", str(user["id"])),
            ("screen_name", user["username"]),
        ]

    async def invalidate_user_token(self, request: RequestAuth) -> str:
        """POST /1.1/oauth/invalidate_token: the signing token is the one revoked."""
        principal = await self._authenticator.authenticate(request, v2=False)
        if principal is None:
            raise errors.coded(400, 215)
        if principal.kind != "oauth1" or not principal.token:
            raise errors.coded(401, 89)
        async with self._db.transaction() as tx:
            await rows.revoke_token(tx, principal.token, self._clock.now_ms())
            if principal.user_id is not None:
                await self._revocations.settle_tx(tx, principal.app_id, principal.user_id)
        self._authenticator.forget()
        return principal.token

    async def regenerate_user_token(self, token: str) -> Row:
        """Control plane: revoke an access token and issue a new pair for the same app, user and level."""
        current = await self._apps.oauth1_token(token)
        app = await self._apps.get(current["app_id"]) if current is not None else None
        if current is None or current["revoked_at"] is not None or app is None:
            raise errors.invalid_body("access_token must name a live OAuth 1.0a access token")
        async with self._db.transaction() as tx:
            await rows.revoke_token(tx, token, self._clock.now_ms())
            issued = await self._accounts.issue_oauth1_in(
                tx, app, current["user_id"], current["access_level"]
            )
        self._authenticator.forget()
        return issued

    # ---- app-only bearer tokens -----------------------------------------------------------------

    async def _throttle_allows(self, app_id: int, limit: int, window_s: float) -> bool:
        shared = self._shared_throttle
        if shared is None:
            return self._throttle.allow(app_id, limit, window_s, time.monotonic())
        # Every process counts into one row (whole seconds of the wall clock, which they share); the
        # endpoint is not a hot path, so one statement per request is cheap enough.
        used = await shared.count_one(f"bearer-token:{app_id}", max(1, math.ceil(window_s)), int(time.time()))
        return used <= limit

    def _extra_number(self, key: str, default: float) -> float:
        try:
            return float(self._settings.extra.get(key, default))
        except ValueError:
            return default

    async def basic_app(self, authorization: str | None) -> Row | None:
        """The app named by `Basic base64(urlenc(key):urlenc(secret))`, if the secret matches."""
        if not authorization or authorization[:6].lower() != "basic ":
            return None
        try:
            decoded = base64.b64decode(authorization[6:].strip(), validate=True).decode("utf-8")
        except ValueError:  # not base64 (binascii.Error), not ASCII at all, or not UTF-8 inside
            return None
        key, sep, secret = decoded.partition(":")
        if not sep:
            return None
        app = await self._apps.by_consumer_key(unquote(key))
        if app is None or not hmac.compare_digest(unquote(secret).encode(), app["consumer_secret"].encode()):
            return None
        return app

    async def bearer_token(
        self, authorization: str | None, form_pairs: list[tuple[str, str]]
    ) -> dict[str, str]:
        app = await self.basic_app(authorization)
        if app is None:
            raise _credentials_error()
        limit = int(self._extra_number("bearer_token_max_requests", BEARER_MAX_REQUESTS))
        window = self._extra_number("bearer_token_window_s", BEARER_WINDOW_S)
        if not await self._throttle_allows(app["id"], limit, window):
            raise _credentials_error()
        grants = [value for name, value in form_pairs if name == "grant_type"]
        if grants != ["client_credentials"]:
            raise _credentials_error()
        token = app["bearer_token"]
        if token is None:
            # One outstanding token per app: mint only when none is set, and reread if another request won.
            async with self._db.transaction() as tx:
                await rows.set_bearer_if_none(
                    tx, app["id"], self._accounts.new_bearer_token(), self._clock.now_ms()
                )
            fresh = await self._apps.get(app["id"])
            token = fresh["bearer_token"] if fresh is not None else None
            if token is None:
                raise _credentials_error()
        return {"token_type": "bearer", "access_token": token}

    async def invalidate_bearer(self, request: RequestAuth, access_token: str) -> dict[str, str]:
        """Signed with the app's keys and its owner's access token (Basic is also accepted, as one
        platform page shows it)."""
        app = await self.basic_app(request.authorization)
        if app is None:
            principal = await self._authenticator.authenticate(request, v2=False)
            if principal is None:
                raise errors.coded(400, 215)
            app = await self._apps.get(principal.app_id)
            if principal.kind != "oauth1" or app is None or principal.user_id != app["owner_user_id"]:
                raise _credentials_error()
        if not access_token or app["bearer_token"] != access_token:
            raise errors.coded(401, 89)
        async with self._db.transaction() as tx:
            if not await rows.clear_bearer(tx, app["id"], access_token):
                raise errors.coded(401, 89)
        self._authenticator.forget()
        return {"access_token": access_token}
