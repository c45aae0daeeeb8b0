"""What every console page shares: the templates (autoescaped), the navigation, the 400 page for a bad
parameter or form field, and the parsers of query parameters and form bodies."""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from roost.core.clock import iso_ms
from roost.core.errors import ApiError
from roost.core.ids import MAX_SNOWFLAKE
from roost.core.journal import reason_of

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "console"
PREFIX = "/_roost/console"
MAX_FORM_BYTES = 64 * 1024

# (path under the console, label): the navigation bar, in order.
NAV = (
    ("", "Start"),
    ("/apps", "Apps, users, tokens"),
    ("/data", "Data"),
    ("/requests", "Requests"),
    ("/webhooks", "Webhooks"),
    ("/streams", "Streams"),
    ("/limits", "Limits and cost"),
    ("/clock", "Clock and faults"),
)


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _masked(secret: Any) -> str:
    text = "" if secret is None else str(secret)
    return text[:4] + "…" if len(text) > 8 else "…"


_environment = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
_environment.filters["pretty"] = _pretty
_environment.filters["masked"] = _masked
_environment.filters["iso"] = lambda ms: "" if ms is None else iso_ms(int(ms))
_environment.globals.update(nav=NAV, prefix=PREFIX)


class BadParam(Exception):
    """A query parameter or form field the page cannot use: answered with the 400 page."""


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    html = _environment.get_template(template).render(path=request.url.path, **context)
    return HTMLResponse(html, status_code=status, headers={"cache-control": "no-store"})


Handler = Callable[[Request], Awaitable[Response]]


def console_page(handler: Handler) -> Handler:
    """A console handler whose refusals are pages: a bad parameter or a domain's refusal is shown with
    its status and message instead of the control plane's JSON."""

    @functools.wraps(handler)
    async def page(request: Request) -> Response:
        try:
            return await handler(request)
        except BadParam as exc:
            return render(request, "error.html", 400, title="Bad request", message=str(exc))
        except ApiError as exc:
            message = exc.reason or reason_of(exc.status, exc.body) or "refused"
            return render(request, "error.html", exc.status, title="Refused", message=message)

    return page


# ---- parameters ---------------------------------------------------------------------------------


def optional_id(raw: str | None, name: str) -> int | None:
    """A numeric id within 64 bits, or None when absent or empty."""
    if raw is None or raw == "":
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 19 or int(raw) > MAX_SNOWFLAKE:
        raise BadParam(f"{name} must be a numeric id")
    return int(raw)


def required_id(raw: str | None, name: str) -> int:
    value = optional_id(raw, name)
    if value is None:
        raise BadParam(f"{name} is required")
    return value


def bounded(raw: str | None, name: str, default: int, low: int, high: int) -> int:
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise BadParam(f"{name} must be a number from {low} to {high}")
    return int(raw)


def choice(raw: str | None, name: str, allowed: tuple[str, ...], default: str) -> str:
    if raw is None or raw == "":
        return default
    if raw not in allowed:
        raise BadParam(f"{name} must be one of {', '.join(allowed)}")
    return raw


def text(raw: str | None, name: str, limit: int = 200) -> str | None:
    if raw is None or raw.strip() == "":
        return None
    if len(raw) > limit:
        raise BadParam(f"{name} must be at most {limit} characters")
    return raw.strip()


def allowed_keys(query: Mapping[str, str], known: tuple[str, ...]) -> None:
    """Unknown parameters are refused: a misspelt filter would otherwise be silently ignored."""
    unknown = sorted(set(query) - set(known))
    if unknown:
        raise BadParam(f"unknown parameter(s): {', '.join(unknown)}")


async def form(request: Request) -> dict[str, str]:
    """An `application/x-www-form-urlencoded` body (what the console's forms send), one value a key."""
    body = await request.body()
    if len(body) > MAX_FORM_BYTES:
        raise BadParam("form too large")
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise BadParam("form body is not valid") from None
    return dict(pairs)


def link(page: str, /, **params: Any) -> str:
    """A console URL with its query, empty values left out (a query may name `path` or `page` too)."""
    kept = {key: value for key, value in params.items() if value not in (None, "")}
    return PREFIX + page + ("?" + urlencode(kept) if kept else "")


_environment.globals["link"] = link
# The secret's masked view with reveal and copy buttons, callable from every template.
_environment.globals["secret_row"] = _environment.get_template("macros.html").module.secret_row  # type: ignore[attr-defined]
