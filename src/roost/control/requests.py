"""`/_roost/requests`: the request journal as JSON (newest first), one entry whole, and clearing it.

GET /_roost/requests?status=4xx&path=/2/tweets&app=ID&method=GET&limit=50&before=ENTRY_ID
GET /_roost/requests/{id}
DELETE /_roost/requests
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.routes import OrjsonResponse, numeric_id
from roost.core import errors
from roost.core.journal import RequestJournal

MAX_LISTED = 1000


def _bounded(raw: str | None, default: int, name: str) -> int:
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= MAX_LISTED:
        raise errors.invalid_body(f"{name} must be a number from 1 to {MAX_LISTED}")
    return int(raw)


def request_routes(journal: RequestJournal) -> list[BaseRoute]:
    async def listing(request: Request) -> Response:
        if request.method == "DELETE":
            journal.clear()
            return Response(status_code=204)
        query = request.query_params
        status = query.get("status")
        if status and not _status_filter_ok(status):
            raise errors.invalid_body("status must be a code such as 401 or a class such as 4xx")
        app = query.get("app") or query.get("app_id")
        before = query.get("before")
        entries = journal.entries(
            status=status,
            path=query.get("path"),
            app=numeric_id(app, "app") if app else None,
            method=query.get("method"),
            limit=_bounded(query.get("limit"), 100, "limit"),
            before=numeric_id(before, "before") if before else None,
        )
        meta: dict[str, object] = {"result_count": len(entries), "kept": journal.size}
        if entries:
            meta["next_before"] = str(entries[-1]["id"])
        return OrjsonResponse({"data": entries, "meta": meta})

    async def one(request: Request) -> Response:
        found = journal.entry(numeric_id(request.path_params["entry_id"], "id"))
        if found is None:
            return OrjsonResponse({"error": "no such request in the journal"}, status_code=404)
        return OrjsonResponse({"data": found})

    return [
        Route("/_roost/requests", listing, methods=["GET", "DELETE"]),
        Route("/_roost/requests/{entry_id}", one),
    ]


def _status_filter_ok(text: str) -> bool:
    text = text.strip().lower()
    if len(text) != 3 or not text.isascii():
        return False
    return text.isdigit() or (text[0].isdigit() and text[1:] == "xx")
