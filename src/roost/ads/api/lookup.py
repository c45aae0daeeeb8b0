"""The one way a GET of a single entity finds it: the id from the path, `with_deleted` honoured, the
platform's 404 otherwise."""

from __future__ import annotations

from roost.ads import entities
from roost.ads.call import AdsCall
from roost.core.records import Row


async def requested(call: AdsCall, kind: str, id_param: str) -> Row:
    return await entities.load(
        call.services,
        kind,
        call.account_id,
        call.params[id_param],
        with_deleted=bool(call.params.get("with_deleted")),
    )
