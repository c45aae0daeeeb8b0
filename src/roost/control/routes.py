"""The `/_roost` control plane: health, credentials, reset, import/export, clock, apps, users, tokens.

Open to anyone who can reach the server (it is a local developer tool); bind to loopback
(the default) unless the sandbox is meant to be shared, and then start it with `--admin-token`
(`control/admin.py`, checked in `app.py` before any /_roost route is reached).
"""

from __future__ import annotations

import os
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control import settings_catalogue
from roost.control.state import ServerState
from roost.core import errors, jsonio
from roost.core.clock import iso_ms, parse_rfc3339
from roost.core.ids import MAX_SNOWFLAKE
from roost.core.journal import REASON_KEY, reason_of
from roost.core.records import Row
from roost.domain.packages import DEFAULT_PACKAGE
from roost.domain.packages import catalogue as package_catalogue


class OrjsonResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return jsonio.dumps(content)


def _error(error: errors.ApiError) -> Response:
    return Response(jsonio.dumps(error.body), status_code=error.status, media_type=error.content_type)


async def _json(request: Request) -> Any:
    body = await request.body()
    if not body:
        return {}
    try:
        return jsonio.loads(body)
    except jsonio.JSONDecodeError:
        raise errors.invalid_body("Request body is not valid JSON.") from None


def numeric_id(value: Any, name: str) -> int:
    """An id from a control-plane body or path: decimal digits (or an integer) within 64 bits."""
    text = str(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
    if not (text.isascii() and text.isdigit()) or int(text) > MAX_SNOWFLAKE:
        raise errors.invalid_body(f"{name} must be a numeric id")
    return int(text)


def build_control_app(state: ServerState, extra_routes: list[BaseRoute] | None = None) -> Starlette:
    domain = state.domain

    async def health(request: Request) -> Response:
        if not state.ready:
            return OrjsonResponse({"status": "starting"}, status_code=503)
        # The process: with `--workers N`, which of them answered (a deployment's health checks).
        return OrjsonResponse({"status": "ok", "process": os.getpid()})

    async def credentials(request: Request) -> Response:
        return OrjsonResponse(await state.credentials())

    async def reset(request: Request) -> Response:
        await state.reset()
        if not state.settings.demo:
            return OrjsonResponse({"reset": True})  # nothing was seeded, so there are no credentials
        return OrjsonResponse({"reset": True, "credentials": await state.credentials()})

    async def import_data(request: Request) -> Response:
        counts = await domain.transfer.import_objects(await _json(request))
        return OrjsonResponse({"imported": counts})

    async def export_data(request: Request) -> Response:
        return OrjsonResponse(await domain.transfer.export_objects())

    async def clock(request: Request) -> Response:
        if request.method == "POST":
            body = await _json(request)
            if not isinstance(body, dict):
                raise errors.invalid_body("$: a JSON object is expected")
            if "advance_seconds" in body:
                amount = body["advance_seconds"]
                if not isinstance(amount, int | float) or isinstance(amount, bool):
                    raise errors.invalid_body("advance_seconds must be a number")
                await domain.shared.advance_clock(float(amount))  # every process sees it (issue 16)
            elif "set" in body:
                target = parse_rfc3339(str(body["set"]))
                if target is None:
                    raise errors.invalid_body("set must be an ISO 8601 timestamp with a time zone")
                await domain.shared.set_clock(target)
            elif "freeze" in body:
                if not isinstance(body["freeze"], bool):
                    raise errors.invalid_body("freeze must be true or false")
                await domain.shared.freeze_clock(body["freeze"])
            else:
                raise errors.invalid_body("expected advance_seconds, set or freeze")
            state.wake_workers()
        return OrjsonResponse(
            {"now": iso_ms(domain.maintenance.now_ms()), "frozen": domain.maintenance.clock_frozen()}
        )

    async def create_user(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("username"), str):
            raise errors.invalid_body("username is required")
        row = await domain.accounts.create_user(**_user_fields(body))
        return OrjsonResponse({"id": str(row["id"]), "username": row["username"]}, status_code=201)

    async def create_app(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise errors.invalid_body("name is required")
        owner: Any = body.get("owner_user_id")
        row = await domain.accounts.create_app(
            name=body["name"],
            owner_user_id=int(owner) if owner else None,
            permission=body.get("permission", "read-write-directmessages"),
            callback_urls=body.get("callback_urls") or [],
            client_type="public" if body.get("client_type") == "public" else "confidential",
            package=body.get("package", DEFAULT_PACKAGE),
        )
        return OrjsonResponse(app_view(row), status_code=201)

    async def change_package(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("consumer_key"), str):
            raise errors.invalid_body("consumer_key is required")
        row = await domain.accounts.change_package(body["consumer_key"], body.get("package"))
        return OrjsonResponse(app_view(row))

    async def packages(request: Request) -> Response:
        return OrjsonResponse(package_catalogue())

    async def issue_token(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        scopes = body.get("scopes")
        issued = await domain.accounts.issue_token(
            str(body.get("consumer_key", "")),
            body.get("user_id"),
            kind="oauth2" if body.get("kind", "oauth1") == "oauth2" else "oauth1",
            access_level=body.get("access_level"),
            scopes=str(scopes) if scopes else None,
        )
        return OrjsonResponse(issued, status_code=201)

    async def create_follow(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            raise errors.invalid_body("follower_id and followee_id are required")
        ids = [numeric_id(body.get(key), key) for key in ("follower_id", "followee_id")]
        created = await domain.accounts.follow(ids[0], ids[1])
        return OrjsonResponse({"following": True, "created": created}, status_code=201 if created else 200)

    async def feature_settings(request: Request) -> Response:
        """Read or change feature settings at run time (e.g. allow_test_approval, throttles). GET lists
        every setting roost knows; POST answers the settings now set, as text."""
        if request.method == "POST":
            body = await _json(request)
            if not isinstance(body, dict) or not all(isinstance(k, str) for k in body):
                raise errors.invalid_body("expected a JSON object of settings")
            _refuse_unknown_settings(list(body))  # before any change: all or nothing
            changes = {key: _setting_text(value) for key, value in body.items()}
            # Every process on the database takes the change (issue 16).
            return OrjsonResponse(await domain.shared.change_features(changes))
        return OrjsonResponse({"settings": settings_catalogue.describe(state.settings)})

    async def openapi(request: Request) -> Response:
        return OrjsonResponse(state.openapi_document())

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, errors.ApiError)
        request.scope[REASON_KEY] = exc.reason or reason_of(exc.status, exc.body)  # for the journal
        return _error(exc)

    routes = [
        Route("/_roost/health", health),
        Route("/_roost/credentials", credentials),
        Route("/_roost/reset", reset, methods=["POST"]),
        Route("/_roost/import", import_data, methods=["POST"]),
        Route("/_roost/export", export_data),
        Route("/_roost/clock", clock, methods=["GET", "POST"]),
        Route("/_roost/users", create_user, methods=["POST"]),
        Route("/_roost/apps", create_app, methods=["POST"]),
        Route("/_roost/apps/package", change_package, methods=["POST"]),
        Route("/_roost/packages", packages),
        Route("/_roost/tokens", issue_token, methods=["POST"]),
        Route("/_roost/follows", create_follow, methods=["POST"]),
        Route("/_roost/settings", feature_settings, methods=["GET", "POST"]),
        Route("/2/openapi.json", openapi),
    ]
    return Starlette(
        routes=[*routes, *(extra_routes or [])], exception_handlers={errors.ApiError: on_api_error}
    )


def _refuse_unknown_settings(keys: list[str]) -> None:
    # A misspelt key would otherwise be stored and read by nobody.
    unknown = settings_catalogue.unknown_keys(keys)
    if unknown:
        raise errors.invalid_body(
            f"unknown feature setting(s): {', '.join(unknown)}; "
            f"known settings: {', '.join(settings_catalogue.KNOWN_KEYS)}"
        )


def _setting_text(value: Any) -> str | None:
    """A feature setting as stored: text, with JSON true/false as 1/0 and null for "remove"."""
    return None if value is None else "1" if value is True else "0" if value is False else str(value)


def _user_fields(body: dict[str, Any]) -> dict[str, Any]:
    allowed = {
        "username",
        "name",
        "description",
        "location",
        "url",
        "protected",
        "verified",
        "verified_type",
        "subscription_type",
        "parody",
        "email",
        "password",
    }
    return {key: value for key, value in body.items() if key in allowed}


def app_view(row: Row) -> dict[str, Any]:
    """An app's keys and client credentials, as the control plane and the CLI show them."""
    return {
        "id": str(row["id"]),
        "name": row["name"],
        "consumer_key": row["consumer_key"],
        "consumer_secret": row["consumer_secret"],
        "bearer_token": row["bearer_token"],
        "client_id": row["client_id"],
        "client_secret": row["client_secret"],
        "permission": row["permission"],
        "client_type": row["client_type"],
        "package": row["package"],
    }
