"""The `/_roost` control plane: health, credentials, reset, import/export, clock, apps, users, tokens.

Open to anyone who can reach the server (it is a local developer tool); bind to loopback
(the default) unless the sandbox is meant to be shared.
"""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control.state import ServerState
from roost.core import errors, jsonio
from roost.core.clock import iso_ms, parse_rfc3339
from roost.core.ids import MAX_SNOWFLAKE
from roost.domain import accounts, transfer


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
    async def health(request: Request) -> Response:
        if not state.ready:
            return OrjsonResponse({"status": "starting"}, status_code=503)
        return OrjsonResponse({"status": "ok"})

    async def credentials(request: Request) -> Response:
        return OrjsonResponse(await state.credentials())

    async def reset(request: Request) -> Response:
        await state.reset()
        if not state.services.settings.demo:
            return OrjsonResponse({"reset": True})  # nothing was seeded, so there are no credentials
        return OrjsonResponse({"reset": True, "credentials": await state.credentials()})

    async def import_data(request: Request) -> Response:
        counts = await transfer.import_objects(state.services, await _json(request))
        return OrjsonResponse({"imported": counts})

    async def export_data(request: Request) -> Response:
        return OrjsonResponse(await transfer.export_objects(state.services))

    async def clock(request: Request) -> Response:
        services = state.services
        if request.method == "POST":
            body = await _json(request)
            if not isinstance(body, dict):
                raise errors.invalid_body("$: a JSON object is expected")
            if "advance_seconds" in body:
                amount = body["advance_seconds"]
                if not isinstance(amount, int | float) or isinstance(amount, bool):
                    raise errors.invalid_body("advance_seconds must be a number")
                services.clock.advance(float(amount))
            elif "set" in body:
                target = parse_rfc3339(str(body["set"]))
                if target is None:
                    raise errors.invalid_body("set must be an ISO 8601 timestamp with a time zone")
                services.clock.set(target)
            else:
                raise errors.invalid_body("expected advance_seconds or set")
            state.wake_workers()
        return OrjsonResponse({"now": iso_ms(services.clock.now_ms())})

    async def create_user(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("username"), str):
            raise errors.invalid_body("username is required")
        async with state.services.db.transaction() as tx:
            row = await accounts.create_user(state.services, tx, **_user_fields(body))
        return OrjsonResponse({"id": str(row["id"]), "username": row["username"]}, status_code=201)

    async def create_app(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict) or not isinstance(body.get("name"), str):
            raise errors.invalid_body("name is required")
        owner = body.get("owner_user_id")
        async with state.services.db.transaction() as tx:
            row = await accounts.create_app(
                state.services,
                tx,
                name=body["name"],
                owner_user_id=int(owner) if owner else None,
                permission=body.get("permission", "read-write-directmessages"),
                callback_urls=body.get("callback_urls") or [],
                client_type="public" if body.get("client_type") == "public" else "confidential",
            )
        return OrjsonResponse(_app_view(row), status_code=201)

    async def issue_token(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            raise errors.invalid_body("$: a JSON object is expected")
        services = state.services
        app = await services.apps.by_consumer_key(str(body.get("consumer_key", "")))
        user_id = body.get("user_id")
        user = await services.users.get(int(user_id)) if str(user_id or "").isdigit() else None
        if app is None or user is None:
            raise errors.invalid_body("consumer_key and user_id must name an existing app and user")
        async with services.db.transaction() as tx:
            if body.get("kind", "oauth1") == "oauth2":
                scopes = tuple(str(body.get("scopes") or " ".join(accounts.DEFAULT_SCOPES)).split())
                token = await accounts.issue_oauth2_token(services, tx, app, user["id"], scopes)
                view: dict[str, Any] = {"access_token": token["token"], "scope": token["scopes"]}
            else:
                token = await accounts.issue_oauth1_token(
                    services, tx, app, user["id"], body.get("access_level")
                )
                view = {
                    "access_token": token["token"],
                    "access_token_secret": token["secret"],
                    "access_level": token["access_level"],
                }
        return OrjsonResponse(view, status_code=201)

    async def create_follow(request: Request) -> Response:
        body = await _json(request)
        if not isinstance(body, dict):
            raise errors.invalid_body("follower_id and followee_id are required")
        ids = [numeric_id(body.get(key), key) for key in ("follower_id", "followee_id")]
        users = await state.services.users.get_many(ids)
        if len({row["id"] for row in users}) != 2:
            raise errors.invalid_body("follower_id and followee_id must name two existing users")
        created = await state.domain.social.follow_directly(ids[0], ids[1])  # appends follow.follow
        return OrjsonResponse({"following": True, "created": created}, status_code=201 if created else 200)

    async def feature_settings(request: Request) -> Response:
        """Read or change feature settings at run time (e.g. allow_test_approval, throttles)."""
        extra = state.services.settings.extra
        if request.method == "POST":
            body = await _json(request)
            if not isinstance(body, dict) or not all(isinstance(k, str) for k in body):
                raise errors.invalid_body("expected a JSON object of settings")
            for key, value in body.items():
                if value is None:
                    extra.pop(key, None)
                else:
                    extra[key] = "1" if value is True else "0" if value is False else str(value)
        return OrjsonResponse(dict(extra))

    async def openapi(request: Request) -> Response:
        return OrjsonResponse(state.openapi_document())

    async def on_api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, errors.ApiError)
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
        Route("/_roost/tokens", issue_token, methods=["POST"]),
        Route("/_roost/follows", create_follow, methods=["POST"]),
        Route("/_roost/settings", feature_settings, methods=["GET", "POST"]),
        Route("/2/openapi.json", openapi),
    ]
    return Starlette(
        routes=[*routes, *(extra_routes or [])], exception_handlers={errors.ApiError: on_api_error}
    )


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


def _app_view(row: dict[str, Any]) -> dict[str, Any]:
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
    }
