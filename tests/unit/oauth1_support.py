"""Shared credentials for the unit tests of roost.auth.oauth1 (RFC 5849 OAuth 1.0a, HMAC-SHA1)."""

from __future__ import annotations

CK, CS = "ck-roost", "cs-roost-secret"
TK, TS = "123-token", "ts-roost-secret"
