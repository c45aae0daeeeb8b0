"""roost's OpenAPI documents for other origins, and Swagger UI at `/_roost/docs`.

- `GET /12/openapi.json`: the Ads API's document (built by the caller from the ads operation table);
- `GET /_roost/openapi.json`: the control plane's, generated from the pages' own `/_roost` routes;
- `DocumentCors`: every document (with `/2/openapi.json`) answers `Access-Control-Allow-Origin: *`
  and an OPTIONS preflight, so a Swagger UI or editor served elsewhere can read them;
- `GET /_roost/docs`: Swagger UI from the `swagger-ui-bundle` package's files (no CDN), pointed at
  the three documents.
"""

from __future__ import annotations

import html
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control.admin import CONTROL_PREFIX
from roost.core import jsonio
from roost.core.wire import ASGIApp, Receive, Scope, Send

V2_DOCUMENT = "/2/openapi.json"
ADS_DOCUMENT = "/12/openapi.json"
CONTROL_DOCUMENT = "/_roost/openapi.json"
DOCUMENTS = frozenset({V2_DOCUMENT, ADS_DOCUMENT, CONTROL_DOCUMENT})
DOCS_PAGE = "/_roost/docs"
ASSETS = "/_roost/docs/assets"
# The `swagger-ui-bundle` package (a dependency) ships Swagger UI's built files; it has no type hints.
_ASSET_DIR = Path(importlib.import_module("swagger_ui_bundle").swagger_ui_path)
# The bundle's files, named once: a request names one of them or gets a 404 (no path is joined).
_ASSET_FILES = frozenset(path.name for path in _ASSET_DIR.iterdir() if path.is_file())
_CORS_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-allow-methods", b"GET, HEAD, OPTIONS"),
    (b"access-control-max-age", b"86400"),
]
_HTML_PREFIXES = ("/_roost/console", DOCS_PAGE)
_TEXT_PATHS = ("/_roost/metrics",)


class JsonDocument(JSONResponse):
    def render(self, content: Any) -> bytes:
        return jsonio.dumps(content)


def docs_routes(ads_document: Callable[[], dict[str, Any]]) -> list[BaseRoute]:
    """The documents' and Swagger UI's routes; `ads_document` builds the Ads API's document (once)."""
    built: dict[str, dict[str, Any]] = {}

    async def ads_openapi(request: Request) -> Response:
        if ADS_DOCUMENT not in built:
            built[ADS_DOCUMENT] = ads_document()
        return JsonDocument(built[ADS_DOCUMENT])

    async def control_openapi(request: Request) -> Response:
        # The pages' routes are fixed once the server is assembled: generated on first use.
        if CONTROL_DOCUMENT not in built:
            built[CONTROL_DOCUMENT] = control_document(request.app.routes)
        return JsonDocument(built[CONTROL_DOCUMENT])

    async def docs_page(request: Request) -> Response:
        return HTMLResponse(_page())

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _ASSET_FILES:
            return JSONResponse({"title": "Not Found", "detail": f"no asset {name!r}"}, status_code=404)
        return FileResponse(_ASSET_DIR / name, headers={"cache-control": "public, max-age=86400"})

    return [
        Route(ADS_DOCUMENT, ads_openapi, methods=["GET"]),
        Route(CONTROL_DOCUMENT, control_openapi, methods=["GET"]),
        Route(DOCS_PAGE, docs_page, methods=["GET"]),
        Route(ASSETS + "/{name}", asset, methods=["GET"]),
    ]


class DocumentCors:
    """CORS for the OpenAPI documents only: `*` on their answers, and the preflight answered here
    (the routes behind take GET alone). Every other path passes through untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in DOCUMENTS:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            asked = dict(scope["headers"]).get(b"access-control-request-headers")
            headers = [*_CORS_HEADERS, (b"content-length", b"0")]
            if asked:
                headers.append((b"access-control-allow-headers", asked))
            await send({"type": "http.response.start", "status": 204, "headers": headers})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *_CORS_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_cors)


def control_document(routes: list[BaseRoute]) -> dict[str, Any]:
    """The control plane's OpenAPI document, from the `/_roost` routes the pages serve: each route's
    methods and path parameters, its handler's docstring as the summary."""
    paths: dict[str, dict[str, Any]] = {}
    taken: set[str] = set()
    for route in routes:
        if not isinstance(route, Route) or not route.path_format.startswith(CONTROL_PREFIX):
            continue
        path = route.path_format
        for method in sorted((route.methods or {"GET"}) - {"HEAD"}):
            operation_id = _operation_id(method, path)
            while operation_id in taken:  # `/_roost` and `/_roost/` name the same words
                operation_id += "_"
            taken.add(operation_id)
            entry: dict[str, Any] = {
                "operationId": operation_id,
                "summary": _summary(route.endpoint) or f"{method} {path}",
                "tags": [_tag(path)],
                "parameters": [
                    {"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                    for name in route.param_convertors
                ],
                "responses": {"200": _answer(path), "default": {"description": "The request has failed."}},
            }
            if method in ("POST", "PUT", "PATCH"):
                entry["requestBody"] = {
                    "required": False,
                    "content": {"application/json": {"schema": {"type": "object"}}},
                }
            paths.setdefault(path, {})[method.lower()] = entry
    return {
        "openapi": "3.0.0",
        "info": {
            "title": "roost: control plane (/_roost)",
            "version": "1",
            "description": "roost's own routes: state, data, clock, faults, observability. With "
            "`roost serve --admin-token`, each needs the header X-Roost-Admin-Token.",
        },
        "servers": [{"url": "/"}],
        "paths": dict(sorted(paths.items())),
        "components": {
            "securitySchemes": {
                "AdminToken": {"type": "apiKey", "in": "header", "name": "X-Roost-Admin-Token"}
            }
        },
        "security": [{}, {"AdminToken": []}],
    }


def _operation_id(method: str, path: str) -> str:
    words = [part.strip("{}") for part in path[len(CONTROL_PREFIX) :].split("/") if part]
    return "roost_" + method.lower() + "_" + "_".join(words or ["root"]).replace(".", "_").replace("-", "_")


def _tag(path: str) -> str:
    rest = path[len(CONTROL_PREFIX) :].strip("/")
    return rest.split("/", 1)[0] or "roost"


def _summary(endpoint: Any) -> str:
    doc = inspect.getdoc(endpoint) or ""
    return " ".join(doc.split("\n\n", 1)[0].split())


def _answer(path: str) -> dict[str, Any]:
    if path.startswith(_HTML_PREFIXES):
        return {"description": "A page.", "content": {"text/html": {"schema": {"type": "string"}}}}
    if path in _TEXT_PATHS:
        return {"description": "Plain text.", "content": {"text/plain": {"schema": {"type": "string"}}}}
    return {"description": "The answer.", "content": {"application/json": {"schema": {"type": "object"}}}}


def _page() -> str:
    documents = [
        {"url": V2_DOCUMENT, "name": "Platform API v2"},
        {"url": ADS_DOCUMENT, "name": "Ads API v12"},
        {"url": CONTROL_DOCUMENT, "name": "Control plane (/_roost)"},
    ]
    config = jsonio.dumps(
        {
            "urls": documents,
            "dom_id": "#swagger-ui",
            "deepLinking": True,
            "layout": "StandaloneLayout",
            "validatorUrl": None,  # its default is an outside service: nothing leaves this server
        }
    ).decode()
    return _PAGE.format(assets=html.escape(ASSETS), config=config)


_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>roost API documents</title>
  <link rel="stylesheet" href="{assets}/swagger-ui.css">
  <link rel="icon" type="image/png" href="{assets}/favicon-32x32.png">
  <style>body {{ margin: 0; }}</style>
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="{assets}/swagger-ui-bundle.js"></script>
  <script src="{assets}/swagger-ui-standalone-preset.js"></script>
  <script>
    const config = {config};
    config.presets = [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset];
    config.plugins = [SwaggerUIBundle.plugins.DownloadUrl];
    window.ui = SwaggerUIBundle(config);
  </script>
</body>
</html>
"""
