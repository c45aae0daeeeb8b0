"""Audience estimate and targeting suggestions: targeting tools that write nothing."""

from __future__ import annotations

from typing import Any

from roost.ads import errors
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ACCOUNT_READ, AdsOperation
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Int, TextList
from roost.ads.params import Enum as EnumKind
from roost.ads.targeting_suggestions import SUGGESTION_TYPES


async def audience_estimate(call: AdsCall) -> AdsResult:
    echo = {"account_id": call.account_id, "targeting_criteria": None}  # as the platform echoes it
    try:
        size = await call.ads.targeting.audience_estimate(call.account_id, call.body)
    except errors.AdsError as error:
        raise error.with_params(echo) from None
    return AdsResult({"audience_size": size}, request={"params": echo})


async def targeting_suggestions(call: AdsCall) -> list[dict[str, Any]]:
    params = call.params
    return await call.ads.suggestions.suggest(
        params["suggestion_type"], params["targeting_values"], int(params["count"])
    )


OPERATIONS = [
    AdsOperation(
        "audienceEstimate",
        "POST",
        "/accounts/{account_id}/audience_estimate",
        audience_estimate,
        params=(ACCOUNT_ID,),
        category=ACCOUNT_READ,
        body="json",
    ),
    AdsOperation(
        "targetingSuggestions",
        "GET",
        "/accounts/{account_id}/targeting_suggestions",
        targeting_suggestions,
        params=(
            ACCOUNT_ID,
            AdsParam("suggestion_type", EnumKind(SUGGESTION_TYPES), required=True),
            AdsParam("targeting_values", TextList(max_items=50), required=True),
            AdsParam("count", Int(1, 50), default=30),
        ),
        category=ACCOUNT_READ,
    ),
]
