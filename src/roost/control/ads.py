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

from roost.ads import entities
from roost.ads.accounts import COMPOSER_ROLES, PERMISSIONS, create_account
from roost.ads.catalog import CURRENCIES
from roost.ads.operations import ACCOUNT_HISTORY, ADVERTISER_USER_ID, RECOMMENDATIONS
from roost.control.routes import OrjsonResponse, _json, numeric_id
from roost.control.state import ServerState
from roost.core import errors
from roost.storage.ads import EntityQuery

PROGRAMMES = (ACCOUNT_HISTORY, RECOMMENDATIONS, ADVERTISER_USER_ID)
LIMIT_NAMES = ("active_campaigns", "active_line_items")


def _object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise errors.invalid_body("$: a JSON object is expected")
    return body


def ads_routes(state: ServerState) -> list[BaseRoute]:
    services = state.services

    async def account_of(request: Request) -> dict[str, Any]:
        account = await services.ads.account(request.path_params["account_id"])
        if account is None:
            raise errors.not_found_problem("No such ads account.")
        return account

    async def create(request: Request) -> Response:
        body = _object(await _json(request))
        user_id = numeric_id(body.get("user_id"), "user_id")
        if await services.users.get(user_id) is None:
            raise errors.not_found_problem("No such user.")
        currency = str(body.get("currency") or "USD")
        if currency not in CURRENCIES:  # the codes the ads API itself accepts (funding instruments)
            raise errors.invalid_body(f"currency: one of {', '.join(CURRENCIES)} is expected")
        name = body.get("name")
        async with services.db.transaction() as tx:
            created = await create_account(
                services,
                tx,
                owner_user_id=user_id,
                sandbox=bool(body.get("sandbox", False)),
                now_ms=services.clock.now_ms(),
                name=str(name) if isinstance(name, str) and name else None,
                currency=currency,
            )
        return OrjsonResponse(created, status_code=201)

    async def grant(request: Request) -> Response:
        account = await account_of(request)
        user_id = numeric_id(request.path_params["user_id"], "user_id")
        if await services.users.get(user_id) is None:
            raise errors.not_found_problem("No such user.")
        permissions = _object(await _json(request)).get("permissions")
        if not isinstance(permissions, list) or not all(p in PERMISSIONS for p in permissions):
            raise errors.invalid_body(f"permissions: a list drawn from {', '.join(PERMISSIONS)} is expected")
        if "TWEET_COMPOSER" in permissions and not any(role in permissions for role in COMPOSER_ROLES):
            raise errors.invalid_body("TWEET_COMPOSER needs ACCOUNT_ADMIN, AD_MANAGER or CREATIVE_MANAGER")
        async with services.db.transaction() as tx:
            await services.ads.grant(tx, account["id"], user_id, permissions)
        return OrjsonResponse(
            {"account_id": account["id"], "user_id": str(user_id), "permissions": permissions}
        )

    async def allowlist(request: Request) -> Response:
        account = await account_of(request)
        programmes = _object(await _json(request)).get("programmes")
        if not isinstance(programmes, list) or not all(p in PROGRAMMES for p in programmes):
            raise errors.invalid_body(f"programmes: a list drawn from {', '.join(PROGRAMMES)} is expected")
        async with services.db.transaction() as tx:
            await services.ads.set_account_json(tx, account["id"], "allowlist", programmes)
        return OrjsonResponse({"account_id": account["id"], "programmes": programmes})

    async def limits(request: Request) -> Response:
        account = await account_of(request)
        body = _object(await _json(request))
        wanted = {}
        for name, value in body.items():
            if name not in LIMIT_NAMES or not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise errors.invalid_body(
                    f"limits: positive integers for {', '.join(LIMIT_NAMES)} are expected"
                )
            wanted[name] = value
        merged = {**account["limits"], **wanted}
        async with services.db.transaction() as tx:
            await services.ads.set_account_json(tx, account["id"], "limits", merged)
        return OrjsonResponse({"account_id": account["id"], "limits": merged})

    async def add_promotable_user(request: Request) -> Response:
        account = await account_of(request)
        user_id = numeric_id(_object(await _json(request)).get("user_id"), "user_id")
        if await services.users.get(user_id) is None:
            raise errors.not_found_problem("No such user.")
        rows, _ = await services.ads.entities(EntityQuery("promotable_user", account["id"]))
        for row in rows:
            if int(row["body"]["user_id"]) == user_id:
                return OrjsonResponse(row["body"])
        now_ms = services.clock.now_ms()
        async with services.db.transaction() as tx:
            body = await entities.create(
                services,
                tx,
                "promotable_user",
                account["id"],
                {"user_id": str(user_id), "promotable_user_type": "RETWEETS_ONLY"},
                now_ms=now_ms,
                user_id=None,
            )
        return OrjsonResponse(body, status_code=201)

    return [
        Route("/_roost/ads/accounts", create, methods=["POST"]),
        Route("/_roost/ads/accounts/{account_id}/promotable_users", add_promotable_user, methods=["POST"]),
        Route("/_roost/ads/accounts/{account_id}/users/{user_id}", grant, methods=["PUT"]),
        Route("/_roost/ads/accounts/{account_id}/allowlist", allowlist, methods=["PUT"]),
        Route("/_roost/ads/accounts/{account_id}/limits", limits, methods=["PUT"]),
    ]
