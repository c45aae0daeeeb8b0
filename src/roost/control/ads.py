"""Control-plane management of ads accounts, where the ads API itself has no endpoint:

POST /_roost/ads/accounts (an account for a user, production or sandbox), PUT
/_roost/ads/accounts/{id}/users/{user_id} (grant roles), PUT /_roost/ads/accounts/{id}/allowlist
(beta programmes: ACCOUNT_HISTORY, RECOMMENDATIONS, ADVERTISER_USER_ID), PUT
/_roost/ads/accounts/{id}/limits (raised caps, e.g. `active_campaigns`) and POST
/_roost/ads/accounts/{id}/promotable_users (a RETWEETS_ONLY promotable user: an author who allowed
the account to promote their posts).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from roost.ads.accounts import PERMISSIONS, PROGRAMMES
from roost.ads.domain import AdsDomain
from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.core import errors

LIMIT_NAMES = ("active_campaigns", "active_line_items")


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    return body


def ads_routes(ads: AdsDomain) -> list[BaseRoute]:
    # The account (and a user named in the path) is checked before the body is read: a request with
    # several faults is answered for the first of them in that order.
    manage = ads.management

    async def create(request: Request) -> Response:
        body = _object(await _json(request))
        user_id = numeric_id(body.get("user_id"), "user_id")
        name = body.get("name")
        created = await manage.create_account(
            user_id,
            sandbox=bool(body.get("sandbox", False)),
            name=str(name) if isinstance(name, str) and name else None,
            currency=str(body.get("currency") or "USD"),
        )
        return OrjsonResponse(created, status_code=201)

    async def grant(request: Request) -> Response:
        account = await manage.account(request.path_params["account_id"])
        user_id = numeric_id(request.path_params["user_id"], "user_id")
        await manage.require_user(user_id)
        permissions = _object(await _json(request)).get("permissions")
        if not isinstance(permissions, list) or not all(p in PERMISSIONS for p in permissions):
            raise errors.invalid_body(f"permissions: a list drawn from {', '.join(PERMISSIONS)} is expected")
        await manage.grant(account, user_id, permissions)
        return OrjsonResponse(
            {"account_id": account["id"], "user_id": str(user_id), "permissions": permissions}
        )

    async def allowlist(request: Request) -> Response:
        account = await manage.account(request.path_params["account_id"])
        programmes = _object(await _json(request)).get("programmes")
        if not isinstance(programmes, list) or not all(p in PROGRAMMES for p in programmes):
            raise errors.invalid_body(f"programmes: a list drawn from {', '.join(PROGRAMMES)} is expected")
        await manage.set_allowlist(account, programmes)
        return OrjsonResponse({"account_id": account["id"], "programmes": programmes})

    async def limits(request: Request) -> Response:
        account = await manage.account(request.path_params["account_id"])
        body = _object(await _json(request))
        wanted = {}
        for name, value in body.items():
            if name not in LIMIT_NAMES or not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise errors.invalid_body(
                    f"limits: positive integers for {', '.join(LIMIT_NAMES)} are expected"
                )
            wanted[name] = value
        merged = await manage.raise_limits(account, wanted)
        return OrjsonResponse({"account_id": account["id"], "limits": merged})

    async def add_promotable_user(request: Request) -> Response:
        account = await manage.account(request.path_params["account_id"])
        user_id = numeric_id(_object(await _json(request)).get("user_id"), "user_id")
        body, created = await manage.add_promotable_user(account, user_id)
        return OrjsonResponse(body, status_code=201 if created else 200)

    return [
        Route("/_roost/ads/accounts", create, methods=["POST"]),
        Route("/_roost/ads/accounts/{account_id}/promotable_users", add_promotable_user, methods=["POST"]),
        Route("/_roost/ads/accounts/{account_id}/users/{user_id}", grant, methods=["PUT"]),
        Route("/_roost/ads/accounts/{account_id}/allowlist", allowlist, methods=["PUT"]),
        Route("/_roost/ads/accounts/{account_id}/limits", limits, methods=["PUT"]),
    ]
