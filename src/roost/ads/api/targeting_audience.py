"""Audience estimate and targeting suggestions: targeting tools that write nothing."""

from __future__ import annotations

import re
from typing import Any

from roost.ads import errors
from roost.ads import targeting as rules
from roost.ads.call import AdsCall
from roost.ads.operations import ACCOUNT_ID, ACCOUNT_READ, AdsOperation
from roost.ads.paging import AdsResult
from roost.ads.params import AdsParam, Int, Text, TextList, parse_all
from roost.ads.params import Enum as EnumKind
from roost.ads.targeting_estimate import estimate, has_primary
from roost.ads.targeting_suggestions import keyword_suggestions, user_suggestions

ESTIMATE_MAX = 1_000  # criteria per estimate
CRITERION_PARAMS = (
    ACCOUNT_ID,
    AdsParam("targeting_type", EnumKind(rules.TARGETING_TYPES), required=True),
    AdsParam("targeting_value", Text(max_length=1024), required=True),
    AdsParam("operator_type", EnumKind(rules.OPERATORS), default="EQ"),
)
SUGGESTION_TYPES = ("KEYWORD", "USER_ID")
_LOOKS_LIKE_USER_ID = re.compile(r"[0-9]{6,19}")


def _criteria_of(body: Any) -> list[Any]:
    """`{"targeting_criteria": [...]}`, or the bare array some clients send."""
    criteria = body.get("targeting_criteria") if isinstance(body, dict) else body
    if criteria is None:
        raise errors.missing_parameter("targeting_criteria")
    if not isinstance(criteria, list):
        raise errors.invalid_parameter("targeting_criteria", "Expected an array of targeting criteria")
    if not criteria:
        raise errors.invalid_parameter(
            "targeting_criteria", "A minimum of 1 items must be provided for targeting_criteria"
        )
    if len(criteria) > ESTIMATE_MAX:
        raise errors.invalid_parameter(
            "targeting_criteria", f"A maximum of {ESTIMATE_MAX} items can be provided for targeting_criteria"
        )
    return criteria


async def audience_estimate(call: AdsCall) -> AdsResult:
    echo = {"account_id": call.account_id, "targeting_criteria": None}  # as the platform echoes it
    try:
        resolved: list[rules.Resolved] = []
        for item in _criteria_of(call.body):
            if not isinstance(item, dict):
                raise errors.invalid_parameter(
                    "targeting_criteria", "Each targeting criterion must be an object"
                )
            values, _, problems = parse_all(CRITERION_PARAMS, item, {"account_id": call.account_id})
            if problems:
                raise errors.AdsError(400, problems)
            resolved.append(
                await rules.resolve(
                    call.services,
                    call.account_id,
                    values["targeting_type"],
                    values["targeting_value"],
                    values["operator_type"],
                )
            )
        if not has_primary(resolved):
            raise errors.invalid_parameter(
                "targeting_criteria",
                "At least one primary targeting criterion is required (followers, custom audiences, "
                "interests, keywords, TV shows, conversations, events or engagement)",
            )
    except errors.AdsError as error:
        raise error.with_params(echo) from None
    return AdsResult({"audience_size": estimate(resolved)}, request={"params": echo})


async def targeting_suggestions(call: AdsCall) -> list[dict[str, Any]]:
    kind = call.params["suggestion_type"]
    values: list[str] = call.params["targeting_values"]
    count = int(call.params["count"])
    if kind == "USER_ID":
        for value in values:
            if not rules.is_user_id(value):
                raise errors.invalid_parameter(
                    "targeting_values", f'Expected Long, got "{value}" for targeting_values'
                )
        suggested = await user_suggestions(call.services, [int(v) for v in values], count)
    else:
        if not all(rules.printable(v) for v in values):
            raise errors.invalid_parameter(
                "targeting_values", "targeting_values must not hold control characters"
            )
        if any(_LOOKS_LIKE_USER_ID.fullmatch(v) for v in values):
            raise errors.invalid_parameter(
                "targeting_values", "targeting_values must be all keywords or all user ids, not mixed"
            )
        suggested = await keyword_suggestions(call.services, values, count)
    return [{"suggestion_type": kind, "suggestion_value": value} for value in suggested]


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
