"""Media lookup by media key."""

from __future__ import annotations

from roost.core.errors import resource_not_found_item
from roost.core.params import CsvOf, MediaKey, Param
from roost.platform.operations import ANY_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

SCOPES = ("tweet.read",)


async def get_media(call: Call) -> Objects:
    key: str = call.params["media_key"]
    row = await call.services.users.media(key)
    if row is None:
        return Objects([], single=True, errors=[resource_not_found_item("media", "media_key", key)])
    return Objects([row], single=True)


async def get_media_many(call: Call) -> Objects:
    keys: list[str] = call.params["media_keys"]
    rows = {row["media_key"]: row for row in await call.services.users.media_many(keys)}
    unique = list(dict.fromkeys(keys))
    return Objects(
        [rows[k] for k in unique if k in rows],
        errors=[resource_not_found_item("media", "media_keys", k) for k in unique if k not in rows],
    )


OPERATIONS = (
    Operation(
        "getMediaByMediaKey",
        "GET",
        "/2/media/{media_key}",
        get_media,
        ANY_AUTH,
        SCOPES,
        params=(Param("media_key", MediaKey(), required=True, in_path=True),),
        returns="media",
        rate_limit=RateLimit(app=300, user=300),
        tag="Media",
        summary="Media lookup by media key",
    ),
    Operation(
        "getMediaByMediaKeys",
        "GET",
        "/2/media",
        get_media_many,
        ANY_AUTH,
        SCOPES,
        params=(Param("media_keys", CsvOf(MediaKey(), 100), required=True),),
        returns="media",
        rate_limit=RateLimit(app=300, user=300),
        tag="Media",
        summary="Media lookup by media keys",
    ),
)
