"""OAuth 2.0 authorization code with PKCE: the authorize checks, code issue, the token endpoint's two
grants (authorization_code, refresh_token) and revocation. Plain values in, plain values out: the
HTTP layer lives in `roost.oauth.oauth2_routes`.

Error wording follows the platform (`{"error":…,"error_description":…}`; see docs/oauth2.md for the
messages that are recorded and those that are inferred from the platform's pattern).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlencode, urlsplit

from roost.auth.principals import Authenticator
from roost.auth.scopes import ALL_SCOPES
from roost.core.clock import Clock
from roost.core.ids import TokenSource
from roost.core.records import Row
from roost.domain.revocations import Revocations
from roost.storage import oauth2_flow as rows
from roost.storage.apps import AppStore
from roost.storage.db import Database, Executor

_KNOWN_SCOPES = frozenset(ALL_SCOPES)
CODE_LIFETIME_MS = 30_000
ACCESS_LIFETIME_S = 7200
# Not published; community reports put refresh tokens at about six months.
REFRESH_LIFETIME_MS = 182 * 86_400_000
MAX_STATE = 500
_METHODS = {"s256": "S256", "plain": "plain"}
_TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

CODE_INVALID = "Value passed for the authorization code was invalid."
VERIFIER_MISMATCH = "Value passed for the code verifier did not match the code challenge."
TOKEN_INVALID = "Value passed for the token was invalid."
MISSING_AUTH = "Missing valid authorization header"


# ---- errors ------------------------------------------------------------------------------------


class AuthorizePageError(Exception):
    """An authorize request that must not redirect (unknown client, unregistered redirect URI)."""


class AuthorizeRedirect(Exception):
    """An authorize request refused by redirecting back to the client with `error=…`."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


class OAuth2Error(Exception):
    """A token or revoke endpoint error: status and the platform's `{error, error_description}`."""

    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.body = {"error": error, "error_description": description}


def invalid_request(description: str) -> OAuth2Error:
    return OAuth2Error(400, "invalid_request", description)


def missing(name: str) -> OAuth2Error:
    return invalid_request(f"Missing required parameter [{name}].")


def unauthorized_client() -> OAuth2Error:
    return OAuth2Error(401, "unauthorized_client", MISSING_AUTH)


# ---- requests, redirects and credentials (no state) --------------------------------------------


@dataclass(frozen=True)
class AuthorizeRequest:
    app: Row
    redirect_uri: str
    scopes: tuple[str, ...]
    state: str
    code_challenge: str
    code_challenge_method: str


def with_query(url: str, params: Mapping[str, str]) -> str:
    separator = "&" if urlsplit(url).query else "?"
    return url + separator + urlencode(params)


def registered_callbacks(app: Row) -> list[str]:
    try:
        urls = json.loads(app["callback_urls"] or "[]")
    except ValueError:
        return []
    return [url for url in urls if isinstance(url, str)]


# Schemes that would run or read something in the user's browser instead of reaching the app: the
# platform's developer portal refuses them as callbacks; any other registered URI is used as given
# (https, plain http, and custom schemes such as `myapp://oauth-callback` for native apps).
FORBIDDEN_SCHEMES = frozenset({"javascript", "data", "file", "vbscript", "about", "blob"})


def is_allowed_redirect(uri: str) -> bool:
    """A callback a browser may be sent to: a URI with a scheme that is not a script or local one."""
    scheme = urlsplit(uri).scheme.lower()
    return bool(scheme) and scheme not in FORBIDDEN_SCHEMES


def parse_scopes(value: str) -> tuple[str, ...]:
    """Space-separated scopes, first occurrence order, duplicates dropped."""
    return tuple(dict.fromkeys(value.split()))


def deny(request: AuthorizeRequest) -> str:
    return with_query(request.redirect_uri, {"error": "access_denied", "state": request.state})


def parse_basic(header: str | None) -> tuple[str, str] | None:
    """(client_id, client_secret) from `Authorization: Basic …`, or None if absent or malformed.
    RFC 6749 form-encodes both parts before base64; clients that do not are read the same."""
    if not header or header[:6].lower() != "basic ":
        return None
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    client_id, colon, secret = decoded.partition(":")
    if not colon:
        return None
    return unquote(client_id), unquote(secret)


def verifier_matches(verifier: str, challenge: str, method: str) -> bool:
    if method == "S256":
        digest = hashlib.sha256(verifier.encode("ascii", "replace")).digest()
        expected = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        return hmac.compare_digest(expected, challenge)
    return hmac.compare_digest(verifier, challenge)


def family_of_code(code: str) -> str:
    # Tokens issued from one code share a family: a replayed code or refresh token revokes them all.
    return hashlib.sha256(code.encode()).hexdigest()[:32]


class OAuth2Flow:
    """The authorize checks and codes, the token endpoint's two grants and revocation."""

    def __init__(
        self,
        db: Database,
        apps: AppStore,
        clock: Clock,
        tokens: TokenSource,
        authenticator: Authenticator,
        revocations: Revocations,
    ) -> None:
        self._revocations = revocations
        self._db = db
        self._apps = apps
        self._clock = clock
        self._tokens = tokens
        self._authenticator = authenticator

    # ---- authorize ------------------------------------------------------------------------------

    async def check_authorize(self, query: Mapping[str, str]) -> AuthorizeRequest:
        """Validate an authorize request; raises AuthorizePageError or AuthorizeRedirect."""
        client_id = query.get("client_id")
        app = await self._apps.by_client_id(client_id) if client_id else None
        if app is None:
            raise AuthorizePageError("The client_id does not name a registered app.")
        redirect_uri = query.get("redirect_uri", "")
        if redirect_uri not in registered_callbacks(app) or not is_allowed_redirect(redirect_uri):
            raise AuthorizePageError("The redirect_uri is not registered for this app.")
        state = query.get("state", "")

        def refuse(error: str) -> AuthorizeRedirect:
            params = {"error": error}
            if state and len(state) <= MAX_STATE:
                params["state"] = state
            return AuthorizeRedirect(with_query(redirect_uri, params))

        if query.get("response_type") != "code":
            raise refuse("unsupported_response_type" if query.get("response_type") else "invalid_request")
        if not state or len(state) > MAX_STATE:
            raise refuse("invalid_request")
        scopes = parse_scopes(query.get("scope", ""))
        if not scopes:
            raise refuse("invalid_request")
        if any(scope not in _KNOWN_SCOPES for scope in scopes):
            raise refuse("invalid_scope")
        method = _METHODS.get(query.get("code_challenge_method", "").lower())
        challenge = query.get("code_challenge", "")
        if method is None or not challenge:
            raise refuse("invalid_request")
        return AuthorizeRequest(app, redirect_uri, scopes, state, challenge, method)

    def _mint(self, kind: str) -> str:
        """A token shaped like the platform's: base64 of `<random>:<epoch-ms>:1:1:<kind>:1` (kind
        at|rt|ac). URL-safe alphabet without padding, so it travels unescaped in redirects and form
        bodies."""
        raw = f"{self._tokens.token(45, _TOKEN_ALPHABET)}:{self._clock.now_ms()}:1:1:{kind}:1"
        return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")

    async def approve(self, request: AuthorizeRequest, user_id: int) -> str:
        """Issue a code for the approving user; returns the redirect URL carrying it."""
        now = self._clock.now_ms()
        code = self._mint("ac")
        scopes = " ".join(request.scopes)
        async with self._db.transaction() as tx:
            await rows.insert_code(
                tx,
                {
                    "code": code,
                    "app_id": request.app["id"],
                    "user_id": user_id,
                    "redirect_uri": request.redirect_uri,
                    "scopes": scopes,
                    "code_challenge": request.code_challenge,
                    "code_challenge_method": request.code_challenge_method,
                    "created_at": now,
                    "expires_at": now + CODE_LIFETIME_MS,
                    "used_at": None,
                },
            )
            await rows.record_approval(tx, user_id, request.app["id"], scopes, now)
        return with_query(request.redirect_uri, {"state": request.state, "code": code})

    # ---- client authentication ------------------------------------------------------------------

    async def authenticate_client(self, basic: tuple[str, str] | None, fields: Mapping[str, str]) -> Row:
        """The calling app. Confidential clients need Basic (a `client_id` in the body as well is fine,
        as tweepy sends both); public clients name themselves with `client_id`."""
        body_client = fields.get("client_id") or None
        if basic is not None:
            app = await self._apps.by_client_id(basic[0])
            if app is None or not hmac.compare_digest(app["client_secret"], basic[1]):
                raise unauthorized_client()
            if body_client is not None and body_client != basic[0]:
                raise unauthorized_client()
            return app
        if body_client is None:
            raise missing("client_id")
        app = await self._apps.by_client_id(body_client)
        if app is None:
            raise invalid_request("Value passed for the client_id was invalid.")
        if app["client_type"] != "public":
            raise unauthorized_client()
        return app

    # ---- token endpoint -------------------------------------------------------------------------

    async def token(self, basic: tuple[str, str] | None, fields: Mapping[str, str]) -> dict[str, Any]:
        """POST /2/oauth2/token: the reply body, or OAuth2Error."""
        grant = fields.get("grant_type", "")
        if not grant:
            raise missing("grant_type")
        if grant not in ("authorization_code", "refresh_token"):
            raise OAuth2Error(400, "unsupported_grant_type", "Value passed for the grant type was invalid.")
        app = await self.authenticate_client(basic, fields)
        if grant == "authorization_code":
            return await self._exchange_code(app, fields)
        return await self._refresh(app, fields)

    async def _exchange_code(self, app: Row, fields: Mapping[str, str]) -> dict[str, Any]:
        for name in ("code", "redirect_uri", "code_verifier"):
            if not fields.get(name):
                raise missing(name)
        # Errors are returned, not raised, inside the transaction: a revocation must commit with them.
        async with self._db.transaction() as tx:
            outcome = await self._exchange_in(tx, app, fields)
        return self._settle(outcome)

    async def _exchange_in(
        self, tx: Executor, app: Row, fields: Mapping[str, str]
    ) -> dict[str, Any] | OAuth2Error:
        code = fields["code"]
        now = self._clock.now_ms()
        row = await rows.get_code(tx, code)
        if row is None or row["app_id"] != app["id"]:
            return invalid_request(CODE_INVALID)
        if row["used_at"] is not None:
            # A replayed code: whatever it yielded is presumed stolen (RFC 6749 §4.1.2).
            await rows.revoke_family(tx, family_of_code(code), now)
            return invalid_request(CODE_INVALID)
        if row["expires_at"] <= now or row["redirect_uri"] != fields["redirect_uri"]:
            return invalid_request(CODE_INVALID)
        if not verifier_matches(fields["code_verifier"], row["code_challenge"], row["code_challenge_method"]):
            return invalid_request(VERIFIER_MISMATCH)
        if not await rows.use_code(tx, code, now):
            return invalid_request(CODE_INVALID)
        return await self._issue(tx, app, row["user_id"], row["scopes"].split(), family_of_code(code))

    async def _refresh(self, app: Row, fields: Mapping[str, str]) -> dict[str, Any]:
        if not fields.get("refresh_token"):
            raise missing("refresh_token")
        async with self._db.transaction() as tx:
            outcome = await self._refresh_in(tx, app, fields)
        return self._settle(outcome)

    async def _refresh_in(
        self, tx: Executor, app: Row, fields: Mapping[str, str]
    ) -> dict[str, Any] | OAuth2Error:
        value = fields["refresh_token"]
        now = self._clock.now_ms()
        row = await rows.get_token(tx, value)
        if row is None or row["kind"] != "refresh" or row["app_id"] != app["id"]:
            return invalid_request(TOKEN_INVALID)
        if row["expires_at"] is not None and row["expires_at"] <= now:
            return invalid_request(TOKEN_INVALID)
        granted = row["scopes"].split()
        requested = parse_scopes(fields.get("scope", ""))
        if requested and not set(requested) <= set(granted):
            return OAuth2Error(400, "invalid_scope", "Value passed for the scope was invalid.")
        if row["revoked_at"] is not None or not await rows.revoke_token(tx, value, now):
            # Reuse of a rotated refresh token: revoke the whole family (both holders are suspect).
            if row["family"]:
                await rows.revoke_family(tx, row["family"], now)
            return invalid_request(TOKEN_INVALID)
        scopes = list(requested) if requested else granted
        return await self._issue(tx, app, row["user_id"], scopes, row["family"] or value)

    def _settle(self, outcome: dict[str, Any] | OAuth2Error) -> dict[str, Any]:
        if isinstance(outcome, OAuth2Error):
            self._authenticator.forget()  # a failure may have revoked a family
            raise outcome
        return outcome

    async def _issue(
        self, tx: Executor, app: Row, user_id: int, scopes: list[str], family: str
    ) -> dict[str, Any]:
        now = self._clock.now_ms()
        scope = " ".join(scopes)
        access = self._mint("at")
        base = {
            "app_id": app["id"],
            "user_id": user_id,
            "scopes": scope,
            "created_at": now,
            "revoked_at": None,
        }
        await rows.insert_token(
            tx,
            {
                **base,
                "token": access,
                "kind": "access",
                "expires_at": now + ACCESS_LIFETIME_S * 1000,
                "family": family,
            },
        )
        reply: dict[str, Any] = {
            "token_type": "bearer",
            "expires_in": ACCESS_LIFETIME_S,
            "access_token": access,
            "scope": scope,
        }
        if "offline.access" in scopes:
            refresh = self._mint("rt")
            await rows.insert_token(
                tx,
                {
                    **base,
                    "token": refresh,
                    "kind": "refresh",
                    "expires_at": now + REFRESH_LIFETIME_MS,
                    "family": family,
                },
            )
            reply["refresh_token"] = refresh
        return reply

    # ---- revoke ---------------------------------------------------------------------------------

    async def revoke(self, basic: tuple[str, str] | None, fields: Mapping[str, str]) -> dict[str, Any]:
        """POST /2/oauth2/revoke. Revoking a refresh token also revokes the access tokens of its
        family; an unknown token (or another app's) is answered like a revoked one, as RFC 7009 asks."""
        value = fields.get("token", "")
        if not value:
            raise missing("token")
        app = await self.authenticate_client(basic, fields)
        now = self._clock.now_ms()
        async with self._db.transaction() as tx:
            row = await rows.get_token(tx, value)
            if row is not None and row["app_id"] == app["id"]:
                await rows.revoke_token(tx, value, now)
                if row["kind"] == "refresh" and row["family"]:
                    await rows.revoke_family(tx, row["family"], now)
                await self._revocations.settle_tx(tx, int(row["app_id"]), int(row["user_id"]))
        self._authenticator.forget()
        return {"revoked": True}
