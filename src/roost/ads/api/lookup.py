"""The one way a GET of a single plain entity finds it: the id from the path, `with_deleted`
honoured, the platform's 404 otherwise."""

from __future__ import annotations

from typing import Any

from roost.ads.call import AdsCall


async def requested(call: AdsCall, kind: str, id_param: str) -> dict[str, Any]:
    return await call.ads.entities.get(
        kind, call.account_id, call.params[id_param], with_deleted=bool(call.params.get("with_deleted"))
    )
