"""Who is calling: app-only bearer, OAuth 1.0a user context, or OAuth 2.0 user token.

Token lookups are cached briefly in memory (a bearer lookup is on every request's path); anything
that revokes or rotates credentials calls `forget()` so the change is seen at once in this process,
and the short TTL bounds staleness for other processes sharing the database.
"""

from __future__ import annotations

import time
from typing import Any

from roost.auth import oauth1
from roost.core import errors
from roost.core.clock import Clock
from roost.core.journal import masked
from roost.core.principal import Principal, RequestAuth
from roost.storage.apps import AppStore
from roost.storage.shared_limits import NonceStore

_CACHE_TTL_S = 2.0


class Authenticator:
    def __init__(
        self,
        apps: AppStore,
        clock: Clock,
        timestamp_window_s: int = 300,
        shared_nonces: NonceStore | None = None,
    ) -> None:
        self._apps = apps
        self._clock = clock
        self.nonces = oauth1.NonceCache(window_seconds=timestamp_window_s)
        # Several processes on one PostgreSQL database (issue 16): a nonce accepted by any of them is
        # a replay to all. One process alone needs only the cache above.
        self._shared_nonces = shared_nonces
        self._cache: dict[tuple[str, str], tuple[float, Any]] = {}
        # Bearer token -> (cached until, principal, token expiry in epoch ms or None): the principal
        # itself is kept, since every request with the same token builds the same one.
        self._bearers: dict[str, tuple[float, Principal, int | None]] = {}

    def forget(self) -> None:
        self._cache.clear()
        self._bearers.clear()

    async def _cached(self, kind: str, key: str, load: Any) -> Any:
        now = time.monotonic()
        hit = self._cache.get((kind, key))
        if hit is not None and hit[0] > now:
            return hit[1]
        value = await load(key)
        if len(self._cache) > 50_000:
            self._cache.clear()
        self._cache[(kind, key)] = (now + _CACHE_TTL_S, value)
        return value

    async def authenticate(self, request: RequestAuth, v2: bool = True) -> Principal | None:
        """The caller, or None when the request carries no credentials at all."""
        header = request.authorization
        if header is not None and header[:7].lower() == "bearer ":
            return await self.bearer(header[7:].strip())
        oauth = oauth1.collect(header, request.query_pairs, request.form_pairs)
        if oauth is not None:
            return await self._oauth1(request, oauth, v2)
        if header is not None:
            raise errors.unauthorized().because(
                "the Authorization header is neither a bearer token nor OAuth 1.0a (OAuth oauth_...)"
            )
        return None

    def known_bearer(self, token: str) -> Principal | None:
        """The principal of a bearer token looked up moments ago, without touching storage."""
        hit = self._bearers.get(token)
        if (
            hit is not None
            and hit[0] > time.monotonic()
            and (hit[2] is None or hit[2] > self._clock.now_ms())
        ):
            return hit[1]
        return None

    async def bearer(self, token: str) -> Principal:
        """An app-only bearer token or an OAuth 2.0 user access token."""
        known = self.known_bearer(token)
        if known is not None:
            return known
        principal, expires_at = await self._bearer(token)
        if len(self._bearers) > 50_000:
            self._bearers.clear()
        self._bearers[token] = (time.monotonic() + _CACHE_TTL_S, principal, expires_at)
        return principal

    async def _bearer(self, token: str) -> tuple[Principal, int | None]:
        app = await self._cached("bearer", token, self._apps.by_bearer)
        if app is not None:
            principal = Principal(
                "app", app["id"], app["project_id"], None, "read", token=token, package=app["package"]
            )
            return principal, None
        row = await self._cached("oauth2", token, self._apps.oauth2_token)
        if row is None or row["kind"] != "access":
            raise errors.unauthorized().because(
                "the bearer token is neither an app-only token nor an OAuth 2.0 access token of this server"
            )
        if row["revoked_at"] is not None:
            raise errors.unauthorized().because("the OAuth 2.0 access token was revoked")
        if row["expires_at"] is not None and row["expires_at"] <= self._clock.now_ms():
            raise errors.unauthorized().because(
                "the OAuth 2.0 access token expired (roost's clock is past its expiry; refresh it)"
            )
        app = await self._cached("app", str(row["app_id"]), self._app_by_id)
        if app is None:
            raise errors.unauthorized().because("the OAuth 2.0 access token's app no longer exists")
        scopes = frozenset(row["scopes"].split())
        level = "read-write" if any(scope.endswith(".write") for scope in scopes) else "read"
        principal = Principal(
            "oauth2", app["id"], app["project_id"], row["user_id"], level, scopes, token, app["package"]
        )
        return principal, row["expires_at"]

    async def _app_by_id(self, key: str) -> Any:
        return await self._apps.get(int(key))

    async def _oauth1(self, request: RequestAuth, oauth: oauth1.OAuth1Request, v2: bool) -> Principal:
        fail = errors.unauthorized if v2 else (lambda: errors.coded(401, 32))
        consumer_key = oauth.oauth.get("oauth_consumer_key", "")
        app = await self._cached("consumer", consumer_key, self._apps.by_consumer_key)
        if app is None:
            raise fail().because(f"OAuth 1.0a: no app has the consumer key {consumer_key!r}")
        token_value = oauth.oauth.get("oauth_token")
        token = None
        if token_value:
            token = await self._cached("oauth1", token_value, self._apps.oauth1_token)
            if token is None or token["app_id"] != app["id"] or token["revoked_at"] is not None:
                raise errors.coded(401, 89).because(
                    "OAuth 1.0a: the oauth_token is unknown, revoked, or belongs to another app"
                )
        ok = self.signature_ok(
            request, oauth, app["consumer_secret"], token["secret"] if token is not None else ""
        )
        if not ok:
            raise fail().because(
                self.signature_mismatch(
                    request, oauth, app["consumer_secret"], token["secret"] if token is not None else ""
                )
            )
        await self.check_window(oauth, token_value)
        if token is None:
            # Consumer-only signatures are valid only on the token endpoints; elsewhere there is no user.
            return Principal(
                "oauth1", app["id"], app["project_id"], None, app["permission"], package=app["package"]
            )
        return Principal(
            "oauth1",
            app["id"],
            app["project_id"],
            token["user_id"],
            token["access_level"],
            token=token_value or "",
            package=app["package"],
        )

    def signature_ok(
        self, request: RequestAuth, oauth: oauth1.OAuth1Request, consumer_secret: str, token_secret: str
    ) -> bool:
        """HMAC-SHA1 check against the URIs a proxied client may have signed (the OAuth token
        endpoints reuse it with request-token secrets)."""
        host = request.host
        scheme = (request.forwarded_proto or request.scheme).split(",")[0].strip().lower()
        candidates = [oauth1.base_string_uri(scheme, host, request.path)]
        if scheme != "https":
            candidates.append(oauth1.base_string_uri("https", host, request.path))
        return oauth1.verify_signature(
            request.method,
            candidates,
            oauth.params,
            oauth.oauth.get("oauth_signature", ""),
            consumer_secret,
            token_secret,
        )

    def signature_mismatch(
        self, request: RequestAuth, oauth: oauth1.OAuth1Request, consumer_secret: str, token_secret: str
    ) -> str:
        """Why a signature did not verify, for the request journal: the base string roost computed and
        the key it signed with, secrets masked."""
        methods = [value for name, value in oauth.params if name == "oauth_signature_method"]
        if methods != [oauth1.HMAC_SHA1]:
            return f"OAuth 1.0a: oauth_signature_method must be {oauth1.HMAC_SHA1}, not {methods or 'absent'}"
        scheme = (request.forwarded_proto or request.scheme).split(",")[0].strip().lower()
        uri = oauth1.base_string_uri(scheme, request.host, request.path)
        base = oauth1.signature_base_string(request.method.upper(), uri, oauth.params)
        key = f"{masked(consumer_secret)}&{masked(token_secret) if token_secret else ''}"
        return (
            "OAuth 1.0a signature mismatch. roost computed the signature base string "
            f"{base!r} and signed it with the key consumer_secret&token_secret = {key}; the request's "
            f"oauth_signature was {oauth.oauth.get('oauth_signature', '')!r}. Check the URL (scheme, host, "
            "port, path), the method, every query and form parameter, and the secrets."
        )

    async def check_window(self, oauth: oauth1.OAuth1Request, token_value: str | None) -> None:
        """Timestamp window and nonce replay; call only after the signature verified."""
        # Clients sign with the host's wall clock, so the window is measured against it even when
        # the server's clock has been moved for a test.
        verdict = self.nonces.check(
            oauth.oauth.get("oauth_consumer_key", ""),
            token_value,
            oauth.oauth.get("oauth_nonce", ""),
            oauth.oauth.get("oauth_timestamp", ""),
            time.time(),
        )
        if verdict == "stale":
            raise errors.coded(401, 135).because(
                "OAuth 1.0a: oauth_timestamp is outside the window around this machine's clock"
            )
        if verdict == "replay":
            raise errors.coded(401, 32).because("OAuth 1.0a: this oauth_nonce was used moments ago")
        shared = self._shared_nonces
        if shared is not None:
            now = time.time()
            timestamp = int(oauth.oauth.get("oauth_timestamp", ""))  # a plain integer: the cache said so
            expires_at = timestamp + self.nonces.window_seconds + 1
            claimed = await shared.claim(
                oauth.oauth.get("oauth_consumer_key", ""),
                token_value,
                oauth.oauth.get("oauth_nonce", ""),
                timestamp,
                expires_at,
            )
            if not claimed:
                raise errors.coded(401, 32).because("OAuth 1.0a: this oauth_nonce was used moments ago")
            await shared.sweep(now)
