"""The console's request log: the request journal (`GET /_roost/requests` as a page) with filters by
status, path, method and app, an "older" link, and one entry with its bodies and its reason."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.control.console.base import (
    PREFIX,
    BadParam,
    allowed_keys,
    bounded,
    console_page,
    optional_id,
    render,
    required_id,
    text,
)
from roost.core.journal import RequestJournal

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


def status_filter(raw: str | None) -> str | None:
    """A code such as 401 or a class such as 4xx."""
    value = (raw or "").strip().lower()
    if not value:
        return None
    ok = (
        len(value) == 3
        and value.isascii()
        and (value.isdigit() or (value[0].isdigit() and value[1:] == "xx"))
    )
    if not ok:
        raise BadParam("status must be a code such as 401 or a class such as 4xx")
    return value


def journal_routes(journal: RequestJournal) -> list[BaseRoute]:
    @console_page
    async def listing(request: Request) -> Response:
        query = request.query_params
        allowed_keys(query, ("status", "path", "app", "method", "limit", "before"))
        method = (query.get("method") or "").upper() or None
        if method is not None and method not in METHODS:
            raise BadParam(f"method must be one of {', '.join(METHODS)}")
        status = status_filter(query.get("status"))
        path = text(query.get("path"), "path", 500)
        app = optional_id(query.get("app"), "app")
        limit = bounded(query.get("limit"), "limit", 100, 1, 1000)
        before = optional_id(query.get("before"), "before")
        entries = journal.entries(status, path, app, method, limit, before)
        filters = {"status": status, "path": path, "app": app, "method": method}
        shown = {key: ("" if value is None else str(value)) for key, value in filters.items()}
        return render(
            request,
            "requests.html",
            title="Requests",
            entries=entries,
            filters=shown,
            methods=METHODS,
            older=str(entries[-1]["id"]) if len(entries) == limit else None,
            keeping=journal.keeping,
            kept=journal.size,
        )

    @console_page
    async def one(request: Request) -> Response:
        if request.query_params:
            raise BadParam("this page takes no parameters")
        ident = required_id(request.path_params["entry_id"], "id")
        entry = journal.entry(ident)
        if entry is None:
            return render(
                request,
                "error.html",
                404,
                title="Not found",
                message=f"request {ident} is not in the journal",
            )
        return render(request, "request_entry.html", title=f"Request {ident}", entry=entry)

    return [
        Route(PREFIX + "/requests", listing),
        Route(PREFIX + "/requests/{entry_id}", one),
    ]
