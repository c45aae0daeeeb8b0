"""OAuth 1.0a three-legged flow and app-only bearer tokens: thin Starlette handlers over
`roost.domain.oauth1_flow`. Every endpoint is rate limited per client address."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control.state import ServerState
from roost.core import errors, jsonio
from roost.core.principal import RequestAuth
from roost.core.records import Row
from roost.domain import oauth1_flow as flow
from roost.domain.accounts import oauth1_credentials
from roost.oauth import web
from roost.oauth.limits import OAuthLimits

Handler = Callable[[Request], Awaitable[Response]]
FORM = "application/x-www-form-urlencoded"
FORM_REPLY = "text/html; charset=utf-8"  # what the platform labels its form-encoded token replies
JSON = "application/json; charset=utf-8"
AUTHORIZE_PATHS = ("/oauth/authorize", "/oauth/authenticate", "/i/oauth/authorize", "/i/oauth/authenticate")
LEVEL_TEXT = {
    "read": "Read",
    "read-write": "Read and write",
    "read-write-directmessages": "Read and write and Direct Messages",
}


def _json(body: Any, status: int = 200) -> Response:
    return Response(jsonio.dumps(body), status_code=status, media_type=JSON)


async def _form_pairs(request: Request) -> list[tuple[str, str]]:
    if not request.headers.get("content-type", "").lower().startswith(FORM):
        return []
    return parse_qsl((await request.body()).decode("utf-8", "replace"), keep_blank_values=True)


async def _signed(request: Request) -> RequestAuth:
    raw_path = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0]
    return RequestAuth(
        method=request.method,
        scheme=request.url.scheme,
        host=request.headers.get("host", ""),
        path=raw_path or request.url.path,
        authorization=request.headers.get("authorization"),
        forwarded_proto=request.headers.get("x-forwarded-proto"),
        query_pairs=parse_qsl(request.url.query, keep_blank_values=True),
        form_pairs=await _form_pairs(request),
    )


def routes(state: ServerState, limits: OAuthLimits) -> list[BaseRoute]:
    oauth1 = state.domain.oauth1
    accounts = state.domain.accounts
    browser = web.Browser(state.domain.sign_in, state.settings)

    def endpoint(name: str, handler: Handler) -> Handler:
        """Rate limit, then run; errors become the platform's bodies."""

        async def run(request: Request) -> Response:
            window: dict[str, str] = {}
            try:
                window = limits.count(request, name)
                response = await handler(request)
            except flow.OAuthFailure as failure:
                response = Response(failure.body, failure.status, media_type=failure.content_type)
            except errors.ApiError as error:
                response = Response(
                    jsonio.dumps(error.body), error.status, error.headers, media_type=error.content_type
                )
            response.headers.update(window)
            return response

        return run

    async def request_token(request: Request) -> Response:
        pairs = await oauth1.request_token(await _signed(request))
        return Response(urlencode(pairs), media_type=FORM_REPLY)

    async def access_token(request: Request) -> Response:
        pairs = await oauth1.access_token(await _signed(request))
        return Response(urlencode(pairs), media_type=FORM_REPLY)

    async def invalidate_token(request: Request) -> Response:
        return _json({"access_token": await oauth1.invalidate_user_token(await _signed(request))})

    async def bearer_token(request: Request) -> Response:
        form = await _form_pairs(request)
        return _json(await oauth1.bearer_token(request.headers.get("authorization"), form))

    async def invalidate_bearer(request: Request) -> Response:
        signed = await _signed(request)
        value = next((v for k, v in [*signed.query_pairs, *signed.form_pairs] if k == "access_token"), "")
        return _json(await oauth1.invalidate_bearer(signed, value))

    # ---- the authorize pages ----------------------------------------------------------------

    def error_page(message: str, status: int = 403) -> Response:
        return web.page("oauth1_error.html", status, title="Authorization failed", message=message)

    def ask(
        request: Request,
        pending: flow.Pending,
        user: Row | None,
        screen_name: str = "",
        force_login: bool = False,
        error: str = "",
        status: int = 200,
    ) -> Response:
        return web.page(
            "oauth1_authorize.html",
            status,
            title=f"Authorize {pending.app_name} to access your account?",
            app_name=pending.app_name,
            access=LEVEL_TEXT.get(pending.access_level, pending.access_level),
            can_write=pending.access_level != "read",
            can_dm=pending.access_level == "read-write-directmessages",
            token=pending.token,
            user=user,
            screen_name=screen_name,
            force_login=force_login,
            error=error,
            action=request.url.path,
        )

    def decided(decision: flow.Decision, pending: flow.Pending, approved: bool) -> Response:
        if decision.redirect is not None:
            return RedirectResponse(decision.redirect, status_code=302)
        if approved:
            return web.page("oauth1_pin.html", title="PIN", app_name=pending.app_name, pin=decision.pin)
        return web.page(
            "oauth1_error.html",
            200,
            title="Authorization declined",
            message=f"You did not grant {pending.app_name} access to your account.",
        )

    async def authorize(request: Request) -> Response:
        query = request.query_params
        pending = await oauth1.pending(query.get("oauth_token", ""))
        if pending is None:
            return error_page("This request token is invalid, expired or already used.")
        approval = await browser.test_approval(request)
        if approval is not None:
            if approval.user is None:
                return error_page("X-Roost-Approve names no existing user.", 400)
            if approval.approve:
                return decided(await oauth1.approve(pending, approval.user["id"]), pending, True)
            return decided(await oauth1.deny(pending), pending, False)
        force_login = query.get("force_login", "").lower() in ("true", "1")
        user = None if force_login else await browser.current_user(request)
        is_authenticate = request.url.path.endswith("/authenticate")
        if user is not None and is_authenticate:
            returning = await oauth1.approve_returning(pending, user["id"])
            if returning is not None:
                return decided(returning, pending, True)
        return ask(request, pending, user, query.get("screen_name", "").lstrip("@"), force_login)

    async def decide(request: Request) -> Response:
        form = dict(await _form_pairs(request))
        pending = await oauth1.pending(form.get("oauth_token", ""))
        if pending is None:
            return error_page("This request token is invalid, expired or already used.")
        if "cancel" in form:
            return decided(await oauth1.deny(pending), pending, False)
        force_login = form.get("force_login") == "true"
        fresh_sign_in = bool(form.get("username"))
        if fresh_sign_in:
            user = await browser.sign_in(form.get("username", ""), form.get("password", ""))
            if user is None:
                message = "The username and password you entered did not match our records."
                return ask(request, pending, None, form.get("username", ""), force_login, message, 401)
        else:
            user = None if force_login else await browser.current_user(request)
            if user is None:
                return ask(request, pending, None, "", force_login, "Sign in to continue.", 401)
        response = decided(await oauth1.approve(pending, user["id"]), pending, True)
        if fresh_sign_in:
            await browser.start_session(response, user["id"])
        return response

    # ---- control plane ----------------------------------------------------------------------

    async def regenerate_app(request: Request) -> Response:
        body = jsonio.loads(await request.body() or b"{}")
        fresh = await accounts.regenerate_app_keys(str(body.get("consumer_key", "")))
        return _json({key: fresh[key] for key in ("consumer_key", "consumer_secret", "bearer_token")})

    async def regenerate_token(request: Request) -> Response:
        body = jsonio.loads(await request.body() or b"{}")
        issued = await oauth1.regenerate_user_token(str(body.get("access_token", "")))
        return _json(oauth1_credentials(issued))

    return [
        Route("/oauth/request_token", endpoint("oauthRequestToken", request_token), methods=["POST"]),
        *(Route(path, endpoint("oauthAuthorize", authorize), methods=["GET"]) for path in AUTHORIZE_PATHS),
        *(Route(path, endpoint("oauthAuthorize", decide), methods=["POST"]) for path in AUTHORIZE_PATHS),
        Route("/oauth/access_token", endpoint("oauthAccessToken", access_token), methods=["POST"]),
        # The docs' own example request adds `.json`; both spellings answer.
        *(
            Route(path, endpoint("oauthInvalidateToken", invalidate_token), methods=["POST"])
            for path in ("/1.1/oauth/invalidate_token", "/1.1/oauth/invalidate_token.json")
        ),
        Route("/oauth2/token", endpoint("oauth2BearerToken", bearer_token), methods=["POST"]),
        Route(
            "/oauth2/invalidate_token",
            endpoint("oauth2InvalidateBearer", invalidate_bearer),
            methods=["POST"],
        ),
        Route("/_roost/apps/regenerate", regenerate_app, methods=["POST"]),
        Route("/_roost/tokens/regenerate", regenerate_token, methods=["POST"]),
    ]
