"""What the authorize pages share: who is signed in (cookie sessions), the sign-in check, the
non-interactive test mode (`X-Roost-Approve`), and page rendering."""

from __future__ import annotations

import ipaddress
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from roost.control.state import ServerState
from roost.core.records import Row
from roost.domain.accounts import check_password
from roost.storage import sessions

SESSION_COOKIE = "roost_session"
SESSION_LIFETIME_MS = 30 * 86_400_000
APPROVE_HEADER = "x-roost-approve"

_templates = Environment(
    loader=FileSystemLoader(Path(__file__).resolve().parent.parent / "templates"),
    autoescape=select_autoescape(["html"]),
)


async def current_user(state: ServerState, request: Request) -> Row | None:
    """The user signed in on this browser, if any."""
    session_id = request.cookies.get(SESSION_COOKIE)
    if not session_id:
        return None
    session = await sessions.get_session(state.services.db, session_id)
    if session is None or session["expires_at"] <= state.services.clock.now_ms():
        return None
    return await state.services.users.get(session["user_id"])


async def sign_in(state: ServerState, username: str, password: str) -> Row | None:
    """The user if the password matches (constant-time), else None."""
    user = await state.services.users.get_by_username(username.strip().lstrip("@"))
    if user is None or not check_password(password, user["password_hash"]):
        return None
    return user


async def start_session(state: ServerState, response: Response, user_id: int) -> None:
    session_id = secrets.token_urlsafe(32)
    services = state.services
    await sessions.create_session(
        services.db, session_id, user_id, services.clock.now_ms(), SESSION_LIFETIME_MS
    )
    response.set_cookie(
        SESSION_COOKIE,
        session_id,
        max_age=SESSION_LIFETIME_MS // 1000,
        httponly=True,
        samesite="lax",
        path="/",
    )


async def end_session(state: ServerState, request: Request, response: Response) -> None:
    session_id = request.cookies.get(SESSION_COOKIE)
    if session_id:
        await sessions.end_session(state.services.db, session_id)
    response.delete_cookie(SESSION_COOKIE, path="/")


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


async def test_approval(state: ServerState, request: Request) -> TestApproval | None:
    """`X-Roost-Approve: <username>` approves as that user, `deny:<username>` denies. Honoured only
    from loopback clients, or from anywhere when the server was started to allow it."""
    value = request.headers.get(APPROVE_HEADER)
    if value is None:
        return None
    if not (_from_loopback(request) or state.services.settings.extra.get("allow_test_approval") == "1"):
        return None
    approve = True
    if value.lower().startswith("deny:"):
        approve, value = False, value[5:]
    user = await state.services.users.get_by_username(value.strip().lstrip("@"))
    return TestApproval(approve, user)


def page(template: str, status: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status)
