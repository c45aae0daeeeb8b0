"""Who is signed in on a browser (cookie sessions) and the password check of the authorize pages."""

from __future__ import annotations

import secrets

from roost.core.clock import Clock
from roost.core.records import Row
from roost.domain.accounts import check_password
from roost.storage import sessions
from roost.storage.db import Database
from roost.storage.users import UserStore

SESSION_LIFETIME_MS = 30 * 86_400_000


class SignIn:
    def __init__(self, db: Database, users: UserStore, clock: Clock) -> None:
        self._db = db
        self._users = users
        self._clock = clock

    async def user_named(self, username: str) -> Row | None:
        """A user by the name typed or sent (a leading @ and spaces are ignored)."""
        return await self._users.get_by_username(username.strip().lstrip("@"))

    async def check(self, username: str, password: str) -> Row | None:
        """The user if the password matches (constant-time), else None."""
        user = await self.user_named(username)
        if user is None or not check_password(password, user["password_hash"]):
            return None
        return user

    async def current_user(self, session_id: str | None) -> Row | None:
        """The user a live session belongs to, if any."""
        if not session_id:
            return None
        session = await sessions.get_session(self._db, session_id)
        if session is None or session["expires_at"] <= self._clock.now_ms():
            return None
        return await self._users.get(session["user_id"])

    async def start_session(self, user_id: int) -> str:
        """A new session for the user; answers its id (the cookie's value)."""
        session_id = secrets.token_urlsafe(32)
        async with self._db.transaction() as tx:
            await sessions.create_session(tx, session_id, user_id, self._clock.now_ms(), SESSION_LIFETIME_MS)
        return session_id

    async def end_session(self, session_id: str) -> None:
        async with self._db.transaction() as tx:
            await sessions.end_session(tx, session_id)
