"""The console's apps, users and tokens page: what `POST /_roost/apps`, `/_roost/users`,
`/_roost/tokens` and `roost apps|users|tokens` do, as forms; each form's handler makes one domain
call and shows the page again with what it made (the new keys or token in full)."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.auth.scopes import ALL_SCOPES, DEFAULT_SCOPES
from roost.control.console.base import (
    PREFIX,
    BadParam,
    allowed_keys,
    bounded,
    choice,
    console_page,
    form,
    optional_id,
    render,
    required_id,
    text,
)
from roost.control.state import ServerState
from roost.core.clock import iso_ms
from roost.core.records import Row
from roost.domain.accounts import PERMISSIONS
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES

USERS_PER_PAGE = 25
CLIENT_TYPES = ("confidential", "public")


def app_item(row: Row) -> dict[str, Any]:
    callbacks = row.get("callback_urls") or "[]"
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "permission": row["permission"],
        "client_type": row["client_type"],
        "package": row["package"],
        "callback_urls": json.loads(callbacks) if isinstance(callbacks, str) else list(callbacks),
        "created_at": iso_ms(int(row["created_at"])),
        "secrets": [
            ("consumer_key", row["consumer_key"]),
            ("consumer_secret", row["consumer_secret"]),
            ("bearer_token", row["bearer_token"]),
            ("client_id", row["client_id"]),
            ("client_secret", row["client_secret"]),
        ],
    }


def token_item(row: Row, kind: str, apps: dict[int, str]) -> dict[str, Any]:
    return {
        "kind": kind,
        "token": row["token"],
        "app": apps.get(int(row["app_id"]), str(row["app_id"])),
        "user_id": str(row["user_id"]),
        "grants": row["access_level"] if kind == "OAuth 1.0a" else row["scopes"],
        "created_at": iso_ms(int(row["created_at"])),
    }


def _callbacks(raw: str) -> list[str]:
    urls = [line.strip() for line in raw.replace(",", "\n").splitlines() if line.strip()]
    for url in urls:
        if not url.startswith(("http://", "https://")) and "://" not in url:
            raise BadParam(f"callback URL {url!r} must be an absolute URL")
    return urls


def account_routes(state: ServerState) -> list[BaseRoute]:
    domain = state.domain

    async def show(request: Request, status: int = 200, **made: Any) -> Response:
        query = request.query_params
        allowed_keys(query, ("q", "before", "limit"))
        search = text(query.get("q"), "q", 50)
        before = optional_id(query.get("before"), "before")
        limit = bounded(query.get("limit"), "limit", USERS_PER_PAGE, 1, 200)
        apps = await domain.console.apps()
        users = await domain.console_data.page("users", search, before, limit)
        oauth1, oauth2 = await domain.console.live_tokens()
        names = {int(row["id"]): str(row["name"]) for row in apps}
        tokens = [token_item(row, "OAuth 1.0a", names) for row in oauth1]
        tokens += [token_item(row, "OAuth 2.0", names) for row in oauth2]
        return render(
            request,
            "apps.html",
            status,
            title="Apps, users, tokens",
            apps=[app_item(row) for row in apps],
            users=users,
            older=str(users[-1]["id"]) if len(users) == limit else None,
            search=search or "",
            tokens=tokens,
            permissions=PERMISSIONS,
            packages=list(PACKAGES),
            default_package=DEFAULT_PACKAGE,
            client_types=CLIENT_TYPES,
            scopes=ALL_SCOPES,
            default_scopes=DEFAULT_SCOPES,
            made=made,
        )

    @console_page
    async def page(request: Request) -> Response:
        return await show(request)

    @console_page
    async def create_app(request: Request) -> Response:
        fields = await form(request)
        name = text(fields.get("name"), "name", 100)
        if name is None:
            raise BadParam("name is required")
        row = await domain.accounts.create_app(
            name=name,
            owner_user_id=None,
            permission=choice(fields.get("permission"), "permission", PERMISSIONS, PERMISSIONS[-1]),
            callback_urls=_callbacks(fields.get("callback_urls", "")),
            client_type=choice(fields.get("client_type"), "client_type", CLIENT_TYPES, "confidential"),
            package=choice(fields.get("package"), "package", tuple(PACKAGES), DEFAULT_PACKAGE),
        )
        return await show(request, 201, app=app_item(row))

    @console_page
    async def change_package(request: Request) -> Response:
        fields = await form(request)
        key = text(fields.get("consumer_key"), "consumer_key")
        if key is None:
            raise BadParam("consumer_key is required")
        package = choice(fields.get("package"), "package", tuple(PACKAGES), DEFAULT_PACKAGE)
        await domain.accounts.change_package(key, package)
        return await show(request)

    @console_page
    async def regenerate(request: Request) -> Response:
        key = text((await form(request)).get("consumer_key"), "consumer_key")
        if key is None:
            raise BadParam("consumer_key is required")
        row = await domain.accounts.regenerate_app_keys(key)
        return await show(request, app=app_item(row))

    @console_page
    async def create_user(request: Request) -> Response:
        fields = await form(request)
        username = text(fields.get("username"), "username", 50)
        if username is None:
            raise BadParam("username is required")
        row = await domain.accounts.create_user(
            username=username,
            name=text(fields.get("name"), "name", 50),
            password=fields.get("password") or None,
        )
        return await show(request, 201, user={"id": str(row["id"]), "username": row["username"]})

    @console_page
    async def issue(request: Request) -> Response:
        fields = await form(request)
        kind = choice(fields.get("kind"), "kind", ("oauth1", "oauth2"), "oauth1")
        level = fields.get("access_level") or None
        if level is not None:
            choice(level, "access_level", PERMISSIONS, PERMISSIONS[-1])
        issued = await domain.accounts.issue_token(
            text(fields.get("consumer_key"), "consumer_key") or "",
            str(required_id(fields.get("user_id"), "user_id")),
            kind=kind,
            access_level=level,
            scopes=text(fields.get("scopes"), "scopes", 1000),
        )
        return await show(request, 201, token=issued)

    @console_page
    async def revoke(request: Request) -> Response:
        token = text((await form(request)).get("token"), "token", 500)
        if token is None:
            raise BadParam("token is required")
        revoked = await domain.console.revoke_token(token)
        return await show(request, revoked={"token": token, "revoked": revoked})

    return [
        Route(PREFIX + "/apps", page),
        Route(PREFIX + "/apps/create", create_app, methods=["POST"]),
        Route(PREFIX + "/apps/regenerate", regenerate, methods=["POST"]),
        Route(PREFIX + "/apps/package", change_package, methods=["POST"]),
        Route(PREFIX + "/users/create", create_user, methods=["POST"]),
        Route(PREFIX + "/tokens/issue", issue, methods=["POST"]),
        Route(PREFIX + "/tokens/revoke", revoke, methods=["POST"]),
    ]
