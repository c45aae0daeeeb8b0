"""Custom audiences: the CRM lists an account uploads hashed users to, their sharing permissions and
the line items targeting them.

- An audience is `targetable` once it has at least `TARGETABLE_MIN` matched users (how roost matches
  uploaded users: audience_users.py); until then `reasons_not_targetable` is `["TOO_SMALL"]`
  (`["PROCESSING", "TOO_SMALL"]` before its first upload) and `audience_size` is null, as the
  platform hides the size of audiences too small to target.
- Names are unique per account among audiences not deleted (case-insensitive).
- Members are kept in a hidden entity beside the audience (kind `custom_audience_members`), never
  served; sharing an audience also leaves a marker in the granted account (kind
  `custom_audience_share`) so that account can list and target it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from roost.ads import errors
from roost.ads.actor import Actor
from roost.ads.audience_users import (
    apply_operations,
    check_upload,
    identity_hashes,
    needs_roost_users,
    upload_echo,
)
from roost.ads.entities import Entities
from roost.ads.paging import AdsResult, page_of
from roost.storage import ads_audiences
from roost.storage.ads import AdsStore, EntityQuery
from roost.storage.db import Database, Executor, Row

KIND = "custom_audience"
MEMBERS = "custom_audience_members"
PERMISSION = "custom_audience_permission"
SHARE = "custom_audience_share"
TARGETABLE_MIN = 100
AUDIENCE_TYPES = ("CUSTOM_AUDIENCE", "CUSTOM_AUDIENCE_EXPANDED")
_IDENTITY_PAGE = 5_000


def _targetability(size: int, processed: bool) -> dict[str, Any]:
    if size >= TARGETABLE_MIN:
        return {"targetable": True, "reasons_not_targetable": [], "audience_size": size}
    reasons = ["TOO_SMALL"] if processed else ["PROCESSING", "TOO_SMALL"]
    return {"targetable": False, "reasons_not_targetable": reasons, "audience_size": None}


def _sorted(bodies: list[dict[str, Any]], sort: tuple[str, bool] | None) -> list[dict[str, Any]]:
    if sort is None:
        return bodies
    attribute, descending = sort
    return sorted(bodies, key=lambda body: str(body.get(attribute) or "").lower(), reverse=descending)


class CustomAudiences:
    def __init__(self, db: Database, store: AdsStore, entities: Entities) -> None:
        self._db = db
        self._store = store
        self._entities = entities

    # ---- audiences ----------------------------------------------------------------------------

    async def page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        if params.get("permission_scope") == "SHARED":
            return await self._shared_page(account_id, params)
        query = EntityQuery(
            KIND, account_id, ids=params.get("custom_audience_ids"), name_prefix=params.get("q")
        )
        return await self._entities.list_page(query, params)

    async def _shared_page(self, account_id: str, params: dict[str, Any]) -> AdsResult:
        """Audiences other accounts shared with this one, shown with the level granted."""
        shares, _ = await self._store.entities(EntityQuery(SHARE, account_id))
        wanted = set(params.get("custom_audience_ids") or ())
        prefix = (params.get("q") or "").lower()
        bodies = []
        for share in shares:
            row = await self._store.entity(share["parent_id"])
            if row is None or (row["deleted"] and not params.get("with_deleted")):
                continue
            body = {**row["body"], "permission_level": share["body"]["permission_level"]}
            if (wanted and body["id"] not in wanted) or not body["name"].lower().startswith(prefix):
                continue
            bodies.append(body)
        return page_of(_sorted(bodies, params.get("sort_by")), params)

    async def get(self, account_id: str, audience_id: str, *, with_deleted: bool) -> dict[str, Any]:
        row = await self._readable(account_id, audience_id, with_deleted=with_deleted)
        return row["body"]

    async def create(self, actor: Actor, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            await self._check_unique(tx, actor.account_id, params["name"], None)
            return await self._entities.create(
                tx,
                KIND,
                actor.account_id,
                {
                    "name": params["name"],
                    "description": params.get("description"),
                    "audience_type": "CRM",
                    "targetable_types": ["CRM", "EXCLUDED_CRM"],
                    "permission_level": "READ_WRITE",
                    "owner_account_id": actor.account_id,
                    "partner_source": "OTHER",
                    **_targetability(0, processed=False),
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
            )

    async def update(self, actor: Actor, audience_id: str, params: dict[str, Any]) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._owned(tx, actor.account_id, audience_id)
            changes: dict[str, Any] = {k: params[k] for k in ("name", "description") if k in params}
            if changes.get("name") is not None:
                await self._check_unique(tx, actor.account_id, changes["name"], row["body"]["id"])
            elif "name" in changes:
                raise errors.missing_parameter("name")  # an audience keeps a name
            body = await self._entities.update(tx, row, changes, now_ms=actor.now_ms, user_id=actor.user_id)
            return {**body, "is_owner": True}

    async def delete(self, actor: Actor, audience_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._owned(tx, actor.account_id, audience_id)
            for share in await self._live(tx, SHARE, None, row["body"]["id"]):
                await self._entities.delete(tx, share, now_ms=actor.now_ms, user_id=actor.user_id)
            return await self._entities.delete(tx, row, now_ms=actor.now_ms, user_id=actor.user_id)

    async def _check_unique(self, tx: Executor, account_id: str, name: str, own_id: str | None) -> None:
        rows, _ = await self._store.entities(EntityQuery(KIND, account_id, name_prefix=name), tx)
        if any(row["body"]["name"].lower() == name.lower() and row["body"]["id"] != own_id for row in rows):
            raise errors.invalid_parameter("name", f'A custom audience named "{name}" already exists')

    async def _owned(self, tx: Executor, account_id: str, audience_id: str) -> Row:
        return await self._entities.load(
            KIND, account_id, audience_id.lower(), parameter="custom_audience_id", reader=tx
        )

    async def _readable(
        self, account_id: str, audience_id: str, *, with_deleted: bool = False, reader: Executor | None = None
    ) -> Row:
        """The account's own audience, or one shared with it; else the platform's 404."""
        row = await self._store.entity(audience_id.lower(), reader)
        if row is not None and row["kind"] == KIND and (with_deleted or not row["deleted"]):
            if row["account_id"] == account_id:
                return row
            if await self._live(reader, SHARE, account_id, row["body"]["id"]):
                return row
        raise errors.not_found(KIND, audience_id, account_id, "custom_audience_id")

    async def _live(
        self, reader: Executor | None, kind: str, account_id: str | None, parent_id: str
    ) -> list[Row]:
        """Live entities of `kind` under an audience (in one account, or in any when None)."""
        if account_id is not None:
            rows, _ = await self._store.entities(
                EntityQuery(kind, account_id, parent_ids=[parent_id]), reader
            )
            return rows
        audience = await self._store.entity(parent_id, reader)
        if audience is None:
            return []
        permissions, _ = await self._store.entities(
            EntityQuery(PERMISSION, audience["account_id"], parent_ids=[parent_id]), reader
        )
        found = []
        for permission in permissions:
            granted = permission["body"]["granted_account_id"]
            found += await self._live(reader, kind, granted, parent_id)
        return found

    # ---- users --------------------------------------------------------------------------------

    async def upload_users(self, actor: Actor, audience_id: str, body: Any) -> dict[str, int]:
        """Apply a users upload all or nothing: `{success_count, total_count}` (users processed)."""
        operations, problems = check_upload(body, actor.now_ms)
        account_id = actor.account_id
        async with self._db.transaction() as tx:
            row = await self._owned(tx, account_id, audience_id)
            audience = row["body"]
            if any(problems):
                echoes = [upload_echo(op, audience["id"], account_id) for op in operations]
                raise errors.operation_errors(problems, echoes)
            known = await self._known_hashes(tx) if needs_roost_users(operations) else {}
            holder = await self._members_row(tx, account_id, audience["id"])
            before = holder["body"]["members"] if holder is not None else {}
            members = apply_operations(before, operations, known, actor.now_ms)
            if holder is None:
                await self._entities.create(
                    tx,
                    MEMBERS,
                    account_id,
                    {"members": members},
                    now_ms=actor.now_ms,
                    user_id=actor.user_id,
                    parent_id=audience["id"],
                )
            else:
                await self._entities.update(
                    tx, holder, {"members": members}, now_ms=actor.now_ms, user_id=actor.user_id
                )
            state = _targetability(len(members), processed=True)
            if any(audience.get(k) != v for k, v in state.items()):
                await self._entities.update(tx, row, state, now_ms=actor.now_ms, user_id=actor.user_id)
        processed = sum(len(op.users) for op in operations)
        return {"success_count": processed, "total_count": processed}

    async def _members_row(self, tx: Executor, account_id: str, audience_id: str) -> Row | None:
        rows, _ = await self._store.entities(EntityQuery(MEMBERS, account_id, parent_ids=[audience_id]), tx)
        return rows[0] if rows else None

    async def _known_hashes(self, tx: Executor) -> dict[str, int]:
        """Every roost user's identity hashes (read in pages: an upload is rare, users many)."""
        known: dict[str, int] = {}
        after = 0
        while True:
            rows = await ads_audiences.user_identities(tx, after, _IDENTITY_PAGE)
            for user in rows:
                for value in identity_hashes(int(user["id"]), str(user["username"]), user["email"]):
                    known.setdefault(value, int(user["id"]))
            if len(rows) < _IDENTITY_PAGE:
                return known
            after = int(rows[-1]["id"])

    # ---- permissions --------------------------------------------------------------------------

    async def permissions(self, account_id: str, audience_id: str, params: dict[str, Any]) -> AdsResult:
        row = await self._readable(account_id, audience_id)
        query = EntityQuery(PERMISSION, row["account_id"], parent_ids=[row["body"]["id"]], with_deleted=False)
        rows, _ = await self._store.entities(query)
        granted = set(params.get("granted_account_ids") or ())
        ids = set(params.get("custom_audience_permission_ids") or ())
        bodies = [
            r["body"]
            for r in rows
            if (not granted or r["body"]["granted_account_id"] in granted)
            and (not ids or r["body"]["id"] in ids)
        ]
        return page_of(_sorted(bodies, params.get("sort_by")), params)

    async def grant(self, actor: Actor, audience_id: str, params: dict[str, Any]) -> dict[str, Any]:
        granted_id = params["granted_account_id"]
        async with self._db.transaction() as tx:
            row = await self._owned(tx, actor.account_id, audience_id)
            audience_id = row["body"]["id"]
            await self._check_grantee(tx, actor, granted_id)
            existing = await self._live(tx, PERMISSION, actor.account_id, audience_id)
            if any(p["body"]["granted_account_id"] == granted_id for p in existing):
                raise errors.invalid_parameter(
                    "granted_account_id", f"Custom audience {audience_id} is already shared with {granted_id}"
                )
            level = params["permission_level"]
            body = await self._entities.create(
                tx,
                PERMISSION,
                actor.account_id,
                {
                    "custom_audience_id": audience_id,
                    "permission_level": level,
                    "granted_account_id": granted_id,
                },
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=audience_id,
            )
            await self._entities.create(
                tx,
                SHARE,
                granted_id,
                {"permission_id": body["id"], "permission_level": level},
                now_ms=actor.now_ms,
                user_id=actor.user_id,
                parent_id=audience_id,
            )
            return body

    async def _check_grantee(self, tx: Executor, actor: Actor, granted_id: str) -> None:
        account = await self._store.account(granted_id, tx)
        if (
            account is None
            or account["deleted"]
            or bool(account["sandbox"]) != bool(actor.account["sandbox"])
        ):
            raise errors.invalid_parameter("granted_account_id", f"Account {granted_id} was not found")
        if granted_id == actor.account_id:
            raise errors.invalid_parameter(
                "granted_account_id", "A custom audience cannot be shared with the account that owns it"
            )

    async def revoke(self, actor: Actor, audience_id: str, permission_id: str) -> dict[str, Any]:
        async with self._db.transaction() as tx:
            row = await self._owned(tx, actor.account_id, audience_id)
            permission = await self._entities.load(
                PERMISSION,
                actor.account_id,
                permission_id,
                parameter="custom_audience_permission_id",
                reader=tx,
            )
            if permission["parent_id"] != row["body"]["id"]:
                raise errors.not_found(
                    PERMISSION, permission_id, actor.account_id, "custom_audience_permission_id"
                )
            granted = permission["body"]["granted_account_id"]
            for share in await self._live(tx, SHARE, granted, row["body"]["id"]):
                await self._entities.delete(tx, share, now_ms=actor.now_ms, user_id=actor.user_id)
            return await self._entities.delete(tx, permission, now_ms=actor.now_ms, user_id=actor.user_id)

    # ---- targeted -----------------------------------------------------------------------------

    async def targeted(self, account_id: str, audience_id: str, params: dict[str, Any]) -> AdsResult:
        """Campaigns with the account's line items that target the audience (included or
        excluded); with `with_active` (the default) only line items that could serve."""
        row = await self._readable(account_id, audience_id)
        criteria, _ = await self._store.entities(EntityQuery("targeting_criterion", account_id))
        line_item_ids = sorted(
            {
                c["parent_id"]
                for c in criteria
                if c["body"]["targeting_type"] in AUDIENCE_TYPES
                and c["body"]["targeting_value"] == row["body"]["id"]
            }
        )
        campaigns: dict[str, dict[str, Any]] = {}
        for line_item in await self._bodies("line_item", account_id, line_item_ids):
            campaign = await self._store.entity(line_item["campaign_id"])
            if campaign is None or campaign["deleted"]:
                continue
            servable = (
                line_item.get("entity_status") == "ACTIVE"
                and campaign["body"].get("entity_status") == "ACTIVE"
            )
            if params.get("with_active", True) and not servable:
                continue
            entry = campaigns.setdefault(
                campaign["body"]["id"],
                {
                    "campaign_id": campaign["body"]["id"],
                    "campaign_name": campaign["body"].get("name"),
                    "line_items": [],
                },
            )
            entry["line_items"].append(
                {"id": line_item["id"], "name": line_item.get("name"), "servable": servable}
            )
        return page_of(list(campaigns.values()), params)

    async def _bodies(self, kind: str, account_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        if not ids:
            return []
        rows, _ = await self._store.entities(EntityQuery(kind, account_id, ids=ids))
        return [row["body"] for row in rows]
