"""Media lookup by media key."""

from __future__ import annotations

from roost.core.params import CsvOf, MediaKey, Param
from roost.platform.operations import ANY_AUTH, Operation, RateLimit
from roost.platform.pipeline import Call, Objects

SCOPES = ("tweet.read",)


async def get_media(call: Call) -> Objects:
    row, problems = await call.domain.lookup.media(call.params["media_key"])
    return Objects([] if row is None else [row], single=True, errors=problems)


async def get_media_many(call: Call) -> Objects:
    found, problems = await call.domain.lookup.media_many(call.params["media_keys"])
    return Objects(found, errors=problems)


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
