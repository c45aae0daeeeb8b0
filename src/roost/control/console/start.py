"""The console's start page (base URLs, the demo credentials, ready-to-paste snippets), its sign-in
page for servers run with `--admin-token`, its two static files, and `/_roost` → the console."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from roost.control.admin import SESSION_COOKIE, session_value, token_matches
from roost.control.console.base import PREFIX, TEMPLATES, BadParam, console_page, form, render
from roost.control.state import ServerState

STATIC = {"console.css": "text/css; charset=utf-8", "console.js": "text/javascript; charset=utf-8"}


def snippets(creds: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(id, title, text) of each snippet, filled with the server's real values."""
    base = creds["base_url"]
    bearer = creds["bearer_token"]
    return [
        (
            "curl",
            "curl",
            f'curl -s -H "Authorization: Bearer {bearer}" \\\n'
            f'  "{base}/2/users/by/username/{creds["username"]}?user.fields=created_at,public_metrics"',
        ),
        (
            "tweepy",
            "tweepy (Python) — run it under roost run: tweepy calls the public host",
            "import tweepy\n\n"
            "client = tweepy.Client(\n"
            f'    bearer_token="{bearer}",\n'
            f'    consumer_key="{creds["consumer_key"]}",\n'
            f'    consumer_secret="{creds["consumer_secret"]}",\n'
            f'    access_token="{creds["access_token"]}",\n'
            f'    access_token_secret="{creds["access_token_secret"]}",\n'
            ")\n"
            "print(client.get_me().data)\n",
        ),
        (
            "xdk",
            "xdk (Python) — takes the base URL directly",
            "from xdk import Client\n\n"
            f'client = Client(base_url="{base}", bearer_token="{bearer}")\n'
            f'print(client.users.get_by_username("{creds["username"]}"))\n',
        ),
        (
            "node",
            "twitter-api-v2 (Node) — run it under roost run: the library calls the public host",
            "const { TwitterApi } = require('twitter-api-v2');\n\n"
            "const client = new TwitterApi({\n"
            f"  appKey: '{creds['consumer_key']}',\n"
            f"  appSecret: '{creds['consumer_secret']}',\n"
            f"  accessToken: '{creds['access_token']}',\n"
            f"  accessSecret: '{creds['access_token_secret']}',\n"
            "});\n"
            "client.v2.me().then((me) => console.log(me.data));\n",
        ),
        (
            "run",
            "roost run — api.twitter.com, api.x.com, ads-api.twitter.com … reach this server",
            f"roost run --target {base} -- python my_bot.py\nroost run --target {base} -- node bot.js\n",
        ),
    ]


def start_routes(state: ServerState) -> list[BaseRoute]:
    @console_page
    async def start(request: Request) -> Response:
        if request.query_params:
            raise BadParam("the start page takes no parameters")
        creds = await state.credentials() if state.settings.demo else None
        return render(
            request,
            "start.html",
            title="Start",
            creds=creds,
            snippets=snippets(creds) if creds else [],
            base_url=state.settings.base_url,
        )

    async def to_console(request: Request) -> Response:
        return RedirectResponse(PREFIX, status_code=302)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found", status_code=404, media_type="text/plain")
        body = (TEMPLATES / name).read_bytes()
        return Response(body, media_type=STATIC[name], headers={"cache-control": "no-cache"})

    @console_page
    async def login(request: Request) -> Response:
        expected = state.settings.admin_token
        if request.method == "GET":
            return render(request, "login.html", title="Sign in", needed=bool(expected), failed=False)
        given = (await form(request)).get("token", "")
        if not expected:
            return RedirectResponse(PREFIX, status_code=303)
        if not token_matches(expected, given):
            return render(request, "login.html", 401, title="Sign in", needed=True, failed=True)
        answer = RedirectResponse(PREFIX, status_code=303)
        secure = request.url.scheme == "https"
        answer.set_cookie(
            SESSION_COOKIE, session_value(expected), httponly=True, samesite="strict", path="/", secure=secure
        )
        return answer

    async def logout(request: Request) -> Response:
        answer = RedirectResponse(PREFIX + "/login", status_code=303)
        answer.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")
        return answer

    return [
        Route("/_roost", to_console),
        Route("/_roost/", to_console),
        Route(PREFIX, start),
        Route(PREFIX + "/", to_console),
        Route(PREFIX + "/static/{name}", static),
        Route(PREFIX + "/login", login, methods=["GET", "POST"]),
        Route(PREFIX + "/logout", logout, methods=["POST"]),
    ]
