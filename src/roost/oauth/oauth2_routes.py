"""OAuth 2.0 authorization code with PKCE: the authorize page (and its form), token and revoke endpoints.

Thin handlers: the rules live in `roost.domain.oauth2_flow`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control.state import ServerState
from roost.core import jsonio
from roost.domain import oauth2_flow as flow
from roost.oauth.limits import OAuthLimits
from roost.oauth.web import Browser, page

TEMPLATE = "oauth2_authorize.html"
AUTHORIZE_PARAMS = (
    "response_type",
    "client_id",
    "redirect_uri",
    "scope",
    "state",
    "code_challenge",
    "code_challenge_method",
)
_NO_STORE = {"cache-control": "no-store", "pragma": "no-cache"}


def routes(state: ServerState, limits: OAuthLimits) -> list[BaseRoute]:
    oauth2 = state.domain.oauth2
    browser = Browser(state.domain.sign_in, state.settings)

    def rate_limit(request: Request, name: str) -> dict[str, str]:
        return limits.count(request, name)

    async def authorize(request: Request) -> Response:
        rate_limit(request, "oauth2Authorize")
        if request.method == "POST":
            fields = await _fields(request)  # form parsing without python-multipart
        else:
            fields = dict(request.query_params)
        try:
            checked = await oauth2.check_authorize(fields)
        except flow.AuthorizePageError as exc:
            return page(TEMPLATE, 400, title="Authorization error", failure=str(exc))
        except flow.AuthorizeRedirect as exc:
            return RedirectResponse(exc.url, status_code=302)
        params = {name: fields[name] for name in AUTHORIZE_PARAMS if name in fields}
        if request.method == "GET":
            approval = await browser.test_approval(request)
            if approval is not None:
                if approval.user is None:
                    return page(TEMPLATE, 400, title="Authorization error", failure="No such user.")
                if not approval.approve:
                    return RedirectResponse(flow.deny(checked), status_code=302)
                return RedirectResponse(await oauth2.approve(checked, approval.user["id"]), 302)
            return await show(request, checked, params)
        action = fields.get("action", "")
        if action == "cancel":
            return RedirectResponse(flow.deny(checked), status_code=302)
        if action == "sign_in":
            user = await browser.sign_in(fields.get("username", ""), fields.get("password", ""))
            if user is None:
                error = "The username and password you entered did not match our records."
                return await show(request, checked, params, error=error, username=fields.get("username"))
            # Post/redirect/get: the page is shown again, signed in, for the approval itself.
            response = RedirectResponse(f"{request.url.path}?{urlencode(params)}", status_code=303)
            await browser.start_session(response, user["id"])
            return response
        user = await browser.current_user(request)
        if action != "authorize" or user is None:
            return await show(request, checked, params)
        return RedirectResponse(await oauth2.approve(checked, user["id"]), status_code=302)

    async def show(
        request: Request, checked: flow.AuthorizeRequest, params: dict[str, str], **extra: Any
    ) -> Response:
        return page(
            TEMPLATE,
            title=f"Authorize {checked.app['name']}",
            app_name=checked.app["name"],
            scopes=checked.scopes,
            user=await browser.current_user(request),
            params=params,
            action=request.url.path,
            **extra,
        )

    async def token(request: Request) -> Response:
        headers = rate_limit(request, "oauth2Token")
        fields = await _fields(request)
        basic = flow.parse_basic(request.headers.get("authorization"))
        try:
            return _json(await oauth2.token(basic, fields), 200, headers)
        except flow.OAuth2Error as exc:
            return _json(exc.body, exc.status, headers)

    async def revoke(request: Request) -> Response:
        headers = rate_limit(request, "oauth2Revoke")
        fields = await _fields(request)
        basic = flow.parse_basic(request.headers.get("authorization"))
        try:
            return _json(await oauth2.revoke(basic, fields), 200, headers)
        except flow.OAuth2Error as exc:
            return _json(exc.body, exc.status, headers)

    return [
        Route("/i/oauth2/authorize", authorize, methods=["GET", "POST"]),
        Route("/2/oauth2/authorize", authorize, methods=["GET", "POST"]),
        Route("/2/oauth2/token", token, methods=["POST"]),
        Route("/2/oauth2/revoke", revoke, methods=["POST"]),
    ]


async def _fields(request: Request) -> dict[str, str]:
    """Form body, or the JSON object twitter-api-v2 sends (it posts JSON to /2/oauth2/*)."""
    body = await request.body()
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type.endswith("json"):
        try:
            data = jsonio.loads(body) if body else {}
        except jsonio.JSONDecodeError:
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(key): str(value) for key, value in data.items() if value is not None}
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def _json(body: dict[str, Any], status: int, headers: dict[str, str]) -> Response:
    return Response(
        jsonio.dumps(body),
        status_code=status,
        media_type="application/json",
        headers={**headers, **_NO_STORE},
    )
