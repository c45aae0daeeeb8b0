"""App lists (lists of mobile apps an account excludes with `APP_LIST` targeting) and line item apps
(the apps a line item promotes).

- An account holds at most `MAX_LISTS` app lists (not deleted), each of 1 to `MAX_APPS` apps.
- An app store identifier is an App Store id (digits: `os_type` iOS) or a Google Play package name
  (`com.example.app`: Android); anything else is INVALID_PARAMETER. Repeated identifiers count once.
- A line item app must match its `os_type` (IOS: digits; ANDROID: a package name), and a line item
  takes each app once.
"""

from __future__ import annotations

import re
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database

APP_LIST = "app_list"
LINE_ITEM_APP = "line_item_app"
MAX_LISTS = 100
MAX_APPS = 500
LINE_ITEM_OS_TYPES = ("ANDROID", "IOS")
_IOS_ID = re.compile(r"(?:id)?([0-9]{1,12})")
_PACKAGE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+")


def app_of(identifier: str, parameter: str) -> dict[str, str]:
    """`{app_store_identifier, os_type}` of one identifier; raises INVALID_PARAMETER."""
    text = identifier.strip()
    ios = _IOS_ID.fullmatch(text)
    if ios is not None:
        return {"app_store_identifier": ios.group(1), "os_type": "iOS"}
    if _PACKAGE.fullmatch(text) is not None and len(text) <= 255:
        return {"app_store_identifier": text, "os_type": "Android"}
    raise errors.invalid_parameter(
        parameter,
        f'Expected an App Store id or a Google Play package name, got "{identifier}" for {parameter}',
    )


def listed(body: dict[str, Any]) -> dict[str, Any]:
    """An app list as the list request shows it: its id and name only."""
    return {"id": body["id"], "name": body["name"]}


class AppLists:
    def __init__(self, db: Database, store: AdsStore, entities: Entities) -> None:
        self._db = db
        self._store = store
        self._entities = entities

    # ---- app lists ----------------------------------------------------------------------------

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        query = EntityQuery(APP_LIST, account_id, ids=params.get("app_list_ids"), name_prefix=params.get("q"))
        result = await self._entities.list_page(query, params)
        result.data = [listed(body) for body in result.data]
        return result

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        apps: dict[str, dict[str, str]] = {}
        for identifier in params["app_store_identifiers"]:
            app = app_of(identifier, "app_store_identifiers")
            apps.setdefault(app["app_store_identifier"], app)
        if len(apps) > MAX_APPS:
            raise errors.invalid_parameter(
                "app_store_identifiers",
                f"A maximum of {MAX_APPS} items can be provided for app_store_identifiers",
            )
        async with self._db.transaction() as tx:
            rows, _ = await self._store.entities(EntityQuery(APP_LIST, actor.account_id), tx)
            if len(rows) >= MAX_LISTS:
                raise errors.invalid_parameter(
                    None, f"Account {actor.account_id} already has the maximum of {MAX_LISTS} app lists"
                )
            return await self._entities.create(
                tx,
                APP_LIST,
                actor.account_id,
                {"name": params["name"], "apps": list(apps.values())},
                now_ms=actor.now_ms,
                user_id=actor.user_id,
            )

    async def delete(self, actor: Actor, app_list_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(
                APP_LIST, actor.account_id, app_list_id, parameter="app_list_id", reader=tx
            )
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- line item apps -----------------------------------------------------------------------

    async def add_to_line_item(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        os_type = params["os_type"]
        app = app_of(params["app_store_identifier"], "app_store_identifier")
        if app["os_type"].upper() != os_type:
            raise errors.invalid_parameter(
                "app_store_identifier",
                f'"{params["app_store_identifier"]}" is not an app store identifier of os_type {os_type}',
            )
        async with self._db.transaction() as tx:
            line_item = await self._entities.load(
                "line_item", actor.account_id, params["line_item_id"], parameter="line_item_id", reader=tx
            )
            line_item_id = line_item["body"]["id"]
            query = EntityQuery(LINE_ITEM_APP, actor.account_id, parent_ids=[line_item_id])
            current, _ = await self._store.entities(query, tx)
            if any(row["body"]["app_store_identifier"] == app["app_store_identifier"] for row in current):
                raise errors.invalid_parameter(
                    "app_store_identifier",
                    f"Line item {line_item_id} already has the app {app['app_store_identifier']}",
                )
            return await self._entities.create(
                tx,
                LINE_ITEM_APP,
                actor.account_id,
                {
                    "line_item_id": line_item_id,
                    "app_store_identifier": app["app_store_identifier"],
                    "os_type": os_type,
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=line_item_id,
            )

    async def remove_from_line_item(self, actor: Actor, line_item_app_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._entities.load(
                LINE_ITEM_APP, actor.account_id, line_item_app_id, parameter="line_item_app_id", reader=tx
            )
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)
