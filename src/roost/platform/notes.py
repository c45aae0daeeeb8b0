"""Community notes: the v2 operations (user context; the caller must be an enrolled note writer).

`POST /2/evaluate_note` is the seed's path (and the 2.159 document's) for what the 2.167 document
serves at `POST /2/notes/evaluate`; both are served.
"""

from __future__ import annotations

from typing import Any

from roost.core.errors import ParamError
from roost.core.params import Boolean, IntRange, Kind, Param, Snowflake, Token
from roost.platform.operations import USER_AUTH, DailyCap, Operation, RateLimit
from roost.platform.pipeline import Call, Objects
from roost.platform.timelines import page_objects


class PostSelection(Kind):
    """`feed_size: small|large|xl, feed_lang: en|es|…|all` (either part may be left out; the default
    is `feed_size: small, feed_lang: en`): parsed into (size, language or None for all)."""

    SIZES = ("small", "large", "xl")

    def parse(self, name: str, raw: str) -> tuple[str, str | None]:
        parts: dict[str, str] = {"feed_size": "small", "feed_lang": "en"}
        for item in raw.split(","):
            key, colon, value = (piece.strip() for piece in item.partition(":"))
            if not colon or key not in parts or not value:
                raise ParamError(f"The `{name}` query parameter value [{raw}] is not valid")
            parts[key] = value.lower()
        size, lang = parts["feed_size"], parts["feed_lang"]
        if size not in self.SIZES or not (lang == "all" or (len(lang) == 2 and lang.isalpha())):
            raise ParamError(f"The `{name}` query parameter value [{raw}] is not valid")
        return size, None if lang == "all" else lang


DEFAULT_SELECTION = ("small", "en")


async def create_note(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.notes.create(call.principal.user_id, call.body)}


async def evaluate_note(call: Call) -> dict[str, Any]:
    return {"data": await call.domain.notes.evaluate(call.principal.user_id, call.body)}


async def delete_note(call: Call) -> dict[str, Any]:
    return {"data": {"deleted": await call.domain.notes.delete(call.principal.user_id, call.params["id"])}}


def _listing(call: Call) -> tuple[int | None, bool, int, Any]:
    params = call.params
    return call.principal.user_id, params["test_mode"], params["max_results"], params.get("pagination_token")


async def notes_written(call: Call) -> Objects:
    return page_objects(await call.domain.notes.written(*_listing(call)))


async def posts_eligible(call: Call) -> Objects:
    selection = call.params.get("post_selection") or DEFAULT_SELECTION
    return page_objects(await call.domain.notes.eligible(*_listing(call), selection))


# The documentation: 90 requests per 15 minutes on every notes operation, 250 notes a day.
NOTES_LIMIT = RateLimit(user=90)
LISTING = (
    Param("test_mode", Boolean(), required=True),
    Param("max_results", IntRange(1, 100), default=10),
    Param("pagination_token", Token()),
)
WRITE_SCOPES = ("tweet.write",)
READ_SCOPES = ("tweet.read",)


def _evaluate(operation_id: str, path: str) -> Operation:
    return Operation(
        operation_id,
        "POST",
        path,
        evaluate_note,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        body=True,
        rate_limit=NOTES_LIMIT,
        tag="Community Notes",
        summary="Evaluate a Community Note",
    )


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "createCommunityNotes",
        "POST",
        "/2/notes",
        create_note,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        body=True,
        rate_limit=NOTES_LIMIT,
        daily_cap=DailyCap(app=250, user=250),
        status=201,
        tag="Community Notes",
        summary="Create a Community Note",
    ),
    _evaluate("evaluateCommunityNotes", "/2/notes/evaluate"),
    # The seed's (and 2.159's) path: its own operation id, so the generated document stays valid.
    _evaluate("evaluateNote", "/2/evaluate_note"),
    Operation(
        "searchCommunityNotesWritten",
        "GET",
        "/2/notes/search/notes_written",
        notes_written,
        USER_AUTH,
        READ_SCOPES,
        params=LISTING,
        returns="note",
        rate_limit=NOTES_LIMIT,
        tag="Community Notes",
        summary="Search for Community Notes Written",
    ),
    Operation(
        "searchEligiblePosts",
        "GET",
        "/2/notes/search/posts_eligible_for_notes",
        posts_eligible,
        USER_AUTH,
        READ_SCOPES,
        params=(*LISTING, Param("post_selection", PostSelection())),
        returns="tweet",
        rate_limit=NOTES_LIMIT,
        tag="Community Notes",
        summary="Search for Posts Eligible for Community Notes",
    ),
    Operation(
        "deleteCommunityNotes",
        "DELETE",
        "/2/notes/{id}",
        delete_note,
        USER_AUTH,
        WRITE_SCOPES,
        write=True,
        params=(Param("id", Snowflake(), required=True, in_path=True),),
        rate_limit=NOTES_LIMIT,
        tag="Community Notes",
        summary="Delete a Community Note",
    ),
)
