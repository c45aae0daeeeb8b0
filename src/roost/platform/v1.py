"""The v1.1 calls clients still make, as their own small dialect of the pipeline: media upload on
the upload hosts (`/1.1/media/upload.json`: the simple upload and INIT / APPEND / FINALIZE /
STATUS, `metadata/create.json`, `subtitles/create|delete.json`), `account/verify_credentials.json`
and `users/show.json`. v1.1 shapes: coded `{"errors":[{code,message}]}` bodies for credentials,
`{"request","error"}` for upload faults, JSON with escaped slashes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from roost.core import errors, jsonio
from roost.core.multipart import RawBody
from roost.core.principal import Principal
from roost.core.stages import Outcome, Skeleton, Stages
from roost.core.wire import (
    RawHeaders,
    Receive,
    Scope,
    encode_headers,
    parse_query,
    read_body_into,
    window_headers,
    window_raw_headers,
)
from roost.domain import media_uploads as uploads
from roost.platform import media_upload as v2_media
from roost.platform.v1_objects import v1_account

if TYPE_CHECKING:
    from roost.wiring import Domain

V1_JSON = "application/json;charset=utf-8"
HTML = "text/html;charset=utf-8"
UPLOAD = "/1.1/media/upload.json"
READ_WRITE = ("read-write", "read-write-directmessages")


@dataclass(slots=True)
class V1Call:
    principal: Principal
    query: dict[str, str]
    body: RawBody
    domain: Domain
    path: str


@dataclass(frozen=True, slots=True)
class V1Route:
    handler: Callable[[V1Call], Awaitable[Outcome]]
    user_only: bool  # user context (OAuth 1.0a user, OAuth 2.0 user)
    write: bool
    limit: int
    max_body: int | None = None


class UploadFault(Exception):
    """An upload refused in the upload service's own shape: `{"request": path, "error": message}`."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _json(value: Any) -> bytes:
    # The platform escapes slashes in v1.1 JSON (`"video\/mp4"`); a slash only occurs inside strings.
    return jsonio.dumps(value).replace(b"/", b"\\/")


def _ok(status: int, body: Any, headers: Mapping[str, str] | None = None) -> Outcome:
    return status, _json(body), V1_JSON, headers or {}


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() in ("true", "t", "1")


def _user(call: V1Call) -> int:
    assert call.principal.user_id is not None
    return call.principal.user_id


def _v1_info(info: dict[str, Any], with_key: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"media_id": info["id"], "media_id_string": str(info["id"])}
    if with_key:
        out["media_key"] = info["media_key"]
    for name in ("size", "expires_after_secs", "image", "video", "processing_info"):
        if name in info:
            out[name] = info[name]
    return out


# ---- media --------------------------------------------------------------------------------------


async def upload(call: V1Call) -> Outcome:
    if call.body.is_json or not call.body.data:
        fields: dict[str, Any] = {}
    else:
        fields = v2_media.fields_of(call.body)
    fields = {**{name: value for name, value in call.query.items()}, **fields}
    command = v2_media.text(fields, "command")
    service = call.domain.media_uploads
    user = _user(call)
    category = v2_media.text(fields, "media_category")
    if command == "INIT":
        request = uploads.init_request(
            v2_media.text(fields, "media_type"),
            v2_media.text(fields, "total_bytes"),
            category,
            v2_media.text(fields, "additional_owners"),
            v2_media.text(fields, "shared") or False,
        )
        created = await service.initialize(user, request)
        body = _v1_info(created, bool(category))
        return _ok(202, body, {"x-mediaid": str(created["id"])})
    if command == "APPEND":
        media_id = v2_media.media_id_of(v2_media.text(fields, "media_id"))
        await service.append(user, media_id, v2_media.segment_index(fields), v2_media.media_bytes(fields))
        return 204, b"", HTML, {"x-mediaid": str(media_id)}
    if command == "FINALIZE":
        media_id = v2_media.media_id_of(v2_media.text(fields, "media_id"))
        info = await service.finalize(user, media_id)
        return _ok(201, _v1_info(info, await _categorised(call, media_id)), {"x-mediaid": str(media_id)})
    if command == "STATUS":
        return await status(call)
    if command is not None:
        raise UploadFault(400, "Invalid command.")
    data = v2_media.media_bytes(fields)
    request = uploads.init_request(
        v2_media.text(fields, "media_type"), len(data), category, v2_media.text(fields, "additional_owners")
    )
    return _ok(200, _v1_info(await service.upload(user, request, data), bool(category)))


async def _categorised(call: V1Call, media_id: int) -> bool:
    """Whether the upload named its category at INIT (only then has it a media_key to show)."""
    return await call.domain.media_uploads.named_category(media_id)


async def status(call: V1Call) -> Outcome:
    if call.query.get("command") != "STATUS":
        raise UploadFault(400, "Invalid command.")
    media_id = v2_media.media_id_of(call.query.get("media_id"))
    info = await call.domain.media_uploads.status(_user(call), media_id)
    return _ok(200, _v1_info(info, await _categorised(call, media_id)), {"x-mediaid": str(media_id)})


def _json_body(call: V1Call) -> dict[str, Any]:
    try:
        value = jsonio.loads(call.body.data) if call.body.data else None
    except jsonio.JSONDecodeError:
        value = None
    if not isinstance(value, dict):
        raise errors.coded(400, 38, "media_id parameter is missing.")
    return value


async def metadata(call: V1Call) -> Outcome:
    body = _json_body(call)
    media_id = v2_media.media_id_of(body.get("media_id"))
    alt = body.get("alt_text")
    text = alt.get("text") if isinstance(alt, dict) else None
    await call.domain.media_uploads.set_alt_text(
        _user(call), media_id, text if isinstance(text, str) else None
    )
    return 200, b"", HTML, {}


async def subtitles_create(call: V1Call) -> Outcome:
    body = _json_body(call)
    media_id = v2_media.media_id_of(body.get("media_id"))
    info = body.get("subtitle_info")
    items = info.get("subtitles") if isinstance(info, dict) else None
    if not isinstance(items, list):
        raise UploadFault(400, "subtitle_info parameter is invalid.")
    tracks = [
        {
            "id": str(v2_media.media_id_of(item.get("media_id"))),
            "language_code": str(item.get("language_code")),
            "display_name": str(item.get("display_name") or item.get("language_code")),
        }
        for item in items
        if isinstance(item, dict)
    ]
    await call.domain.media_uploads.set_subtitles(_user(call), media_id, tracks)
    return 200, b"", HTML, {}


async def subtitles_delete(call: V1Call) -> Outcome:
    body = _json_body(call)
    media_id = v2_media.media_id_of(body.get("media_id"))
    info = body.get("subtitle_info")
    items = info.get("subtitles") if isinstance(info, dict) else None
    codes = [str(item.get("language_code")) for item in items or [] if isinstance(item, dict)]
    await call.domain.media_uploads.remove_subtitles(_user(call), media_id, codes)
    return 200, b"", HTML, {}


# ---- accounts -----------------------------------------------------------------------------------


async def verify_credentials(call: V1Call) -> Outcome:
    account = await call.domain.v1_accounts.verify(_user(call))
    email = _truthy(call.query.get("include_email")) or None
    body = v1_account(account, show=False, email=email, skip_status=_truthy(call.query.get("skip_status")))
    return _ok(200, body)


async def users_show(call: V1Call) -> Outcome:
    raw_id = call.query.get("user_id")
    user_id = int(raw_id) if raw_id and raw_id.isdigit() and len(raw_id) <= 19 else None
    if raw_id and user_id is None:
        raise errors.coded(404, 50, "User not found.")
    account = await call.domain.v1_accounts.show(
        call.principal.user_id, user_id, call.query.get("screen_name")
    )
    return _ok(200, v1_account(account, show=True))


ROUTES: dict[tuple[str, str], V1Route] = {
    ("POST", UPLOAD): V1Route(upload, True, True, 415, v2_media.ONE_SHOT_BODY),
    ("GET", UPLOAD): V1Route(status, True, False, 1000),
    ("POST", "/1.1/media/metadata/create.json"): V1Route(metadata, True, True, 500),
    ("POST", "/1.1/media/subtitles/create.json"): V1Route(subtitles_create, True, True, 100),
    ("POST", "/1.1/media/subtitles/delete.json"): V1Route(subtitles_delete, True, True, 100),
    ("GET", "/1.1/account/verify_credentials.json"): V1Route(verify_credentials, True, False, 75),
    ("GET", "/1.1/users/show.json"): V1Route(users_show, False, False, 900),
}
# Per-command windows of upload.json (the live headers differ by command).
UPLOAD_LIMITS = {"INIT": 200, "APPEND": 20_000, "FINALIZE": 615, "STATUS": 1000}


class V1Pipeline(Skeleton[tuple[str, V1Route]]):
    def __init__(self, stages: Stages, domain: Domain) -> None:
        super().__init__(stages, [])
        self.domain = domain
        self._clock = stages.clock
        self.limiter = stages.limiter

    def route(self, scope: Scope, headers: dict[str, str]) -> tuple[str, V1Route]:
        path = scope["path"]
        found = ROUTES.get((scope["method"], path))
        if found is None:
            raise errors.coded(404, 34, "Sorry, that page does not exist")
        return path, found

    async def read_body(self, route: tuple[str, V1Route], receive: Receive, headers: dict[str, str]) -> bytes:
        return await read_body_into(receive, headers, route[1].max_body or self._max_body)

    async def identify(
        self, route: tuple[str, V1Route], scope: Scope, headers: dict[str, str], body: bytes
    ) -> Principal:
        if "authorization" not in headers and "oauth_signature" not in scope.get("query_string", b"").decode(
            "latin-1"
        ):
            raise errors.coded(400, 215)
        principal = await self.authenticate(scope, headers, body, v2=False)
        if principal is None:
            raise errors.coded(400, 215)
        return principal

    async def serve(
        self,
        route: tuple[str, V1Route],
        scope: Scope,
        headers: dict[str, str],
        body: bytes,
        principal: Principal,
    ) -> Outcome:
        path, target = route
        if target.user_only and principal.user_id is None:
            raise errors.coded(403, 220, "Your credentials do not allow access to this resource.")
        if target.write and principal.kind == "oauth1" and principal.access_level not in READ_WRITE:
            raise errors.coded(403, 261, "Application cannot perform write actions.")
        query = dict(parse_query(scope.get("query_string", b"")))
        raw = RawBody(headers.get("content-type", ""), body)
        call = V1Call(principal, query, raw, self.domain, path)
        scope["roost.v1_window"] = self._rate_limit(path, target, principal, raw, query)
        try:
            return await target.handler(call)
        except UploadFault as fault:
            return fault.status, _json({"request": path, "error": fault.message}), V1_JSON, {}
        except errors.ApiError as error:
            if path.startswith("/1.1/media/") and error.body.get("title") == "Invalid Request":
                message = errors.media_message(error)
                return error.status, _json({"request": path, "error": message}), V1_JSON, {}
            raise

    def _rate_limit(
        self, path: str, target: V1Route, principal: Principal, raw: RawBody, query: dict[str, str]
    ) -> RawHeaders:
        limit = target.limit
        name = path
        if path == UPLOAD:
            command = query.get("command")
            if command is None and (raw.is_form or raw.is_multipart):
                try:
                    part = raw.fields().get("command")
                except ValueError:
                    part = None
                command = part.text() if part is not None else None
            limit = UPLOAD_LIMITS.get(command or "", limit)
            name = f"{path}:{command or 'simple'}"
        key = ("v1.1", name, principal.app_id, principal.user_id)
        window, allowed = self.limiter.hit(key, limit, 900, self._clock.now())
        if not allowed:
            raise errors.coded(429, 88, headers=window_headers("x-rate-limit", window))
        return window_raw_headers("x-rate-limit", window)

    def operation(self, route: tuple[str, V1Route]) -> str:
        return route[0]  # v1.1 calls have no operation id: the path names them

    def refused(self, route: tuple[str, V1Route] | None, scope: Scope, error: errors.ApiError) -> Outcome:
        if error.content_type != errors.JSON and "errors" not in error.body:
            # A v2-shaped refusal (too large a body): the upload service's shape.
            path = route[0] if route else scope["path"]
            message = errors.media_message(error)
            return error.status, _json({"request": path, "error": message}), V1_JSON, error.headers
        return error.status, _json(error.body), V1_JSON, error.headers

    def head(
        self,
        route: tuple[str, V1Route] | None,
        scope: Scope,
        principal: Principal | None,
        outcome: Outcome,
    ) -> RawHeaders:
        out: RawHeaders = list(scope.get("roost.v1_window") or [])
        if principal is not None:
            out.append((b"x-access-level", principal.access_level.encode("latin-1")))
        if outcome[3]:
            out.extend(encode_headers(outcome[3]))
        return out
