"""What the authorize pages share: who is signed in (the session cookie), the non-interactive test
mode (`X-Roost-Approve`), and page rendering. The sessions and the password check are the domain's
(`roost.domain.sign_in`)."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from roost.config import Settings
from roost.control.admin import ADMIN_HEADER, token_matches
from roost.core.records import Row
from roost.domain.sign_in import SESSION_LIFETIME_MS, SignIn

SESSION_COOKIE = "roost_session"
APPROVE_HEADER = "x-roost-approve"

_templates = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent.parent / "templates"),
    autoescape=select_autoescape(["html"]),
)


@dataclass(frozen=True)
class TestApproval:
    """A decision taken by the test-mode header instead of a person."""

    approve: bool
    user: Row | None  # None when the named user does not exist


def _from_loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


class Browser:
    """The browser side of signing in: the session cookie in and out, and the test-mode header."""

    def __init__(self, sign_in: SignIn, settings: Settings) -> None:
        self._sign_in = sign_in
        self._settings = settings  # `allow_test_approval` is read live (POST /_roost/settings)

    async def current_user(self, request: Request) -> Row | None:
        """The user signed in on this browser, if any."""
        return await self._sign_in.current_user(request.cookies.get(SESSION_COOKIE))

    async def sign_in(self, username: str, password: str) -> Row | None:
        """The user if the password matches, else None."""
        return await self._sign_in.check(username, password)

    async def start_session(self, response: Response, user_id: int) -> None:
        session_id = await self._sign_in.start_session(user_id)
        response.set_cookie(
            SESSION_COOKIE,
            session_id,
            max_age=SESSION_LIFETIME_MS // 1000,
            httponly=True,
            samesite="lax",
            path="/",
        )

    async def end_session(self, request: Request, response: Response) -> None:
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id:
            await self._sign_in.end_session(session_id)
        response.delete_cookie(SESSION_COOKIE, path="/")

    async def test_approval(self, request: Request) -> TestApproval | None:
        """`X-Roost-Approve: <username>` approves as that user, `deny:<username>` denies. Honoured
        only from loopback clients, or from anywhere when the server was started to allow it; with an
        admin token, only with that token in `X-Roost-Admin-Token` (from any client)."""
        value = request.headers.get(APPROVE_HEADER)
        if value is None:
            return None
        token = self._settings.admin_token
        if token:
            if not token_matches(token, request.headers.get(ADMIN_HEADER.decode())):
                return None
        elif not (_from_loopback(request) or self._settings.extra.get("allow_test_approval") == "1"):
            return None
        approve = True
        if value.lower().startswith("deny:"):
            approve, value = False, value[5:]
        return TestApproval(approve, await self._sign_in.user_named(value))


def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status)
