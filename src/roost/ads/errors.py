"""The ads error catalogue: every error body of the ads surface is built here.

Bodies are `{"errors": [{"code", "message", "parameter"?}], "request": {"params": {...}}}`; the
pipeline fills `request.params` with the echo of what it parsed before the error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from roost.core.errors import JSON, ApiError


def item(code: str, message: str, parameter: str | None = None, **extra: Any) -> dict[str, Any]:
    """One entry of `errors` (or of one item's `operation_errors`)."""
    entry: dict[str, Any] = {"code": code, "message": message}
    if parameter is not None:
        entry["parameter"] = parameter
    entry.update(extra)
    return entry


class AdsError(ApiError):
    """An ads error response. `request.params` shows the echo given here, or else the one the
    pipeline parsed before the error (`echo_given` tells which)."""

    def __init__(
        self,
        status: int,
        items: Iterable[dict[str, Any]],
        headers: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        self.items = list(items)
        super().__init__(status, {"errors": self.items}, JSON, headers)
        self.body["request"] = {"params": dict(params or {})}
        self.echo_given = params is not None
        self.args = (self.items[0]["message"] if self.items else str(status),)

    def with_params(self, params: Mapping[str, Any]) -> AdsError:
        self.body["request"] = {"params": dict(params)}
        self.echo_given = True
        return self


def operation_errors(problems: list[list[dict[str, Any]]], echoes: list[dict[str, Any]]) -> AdsError:
    """A failed batch: each item's problems (`[]` for good items) and each item's echo, in order."""
    failure = AdsError(400, [])
    failure.body = {"operation_errors": problems, "request": echoes}
    failure.echo_given = True
    return failure


class ParamProblem(Exception):
    """A bad parameter value; the pipeline gathers these into one 400."""

    def __init__(self, code: str, message: str, parameter: str) -> None:
        super().__init__(message)
        self.item = item(code, message, parameter)


# ---- parameters ------------------------------------------------------------------------------


def expected(type_name: str, raw: Any, name: str) -> ParamProblem:
    return ParamProblem("INVALID_PARAMETER", f'Expected {type_name}, got "{_text(raw)}" for {name}', name)


def expected_one_of(values: Iterable[str], raw: Any, name: str) -> ParamProblem:
    return ParamProblem(
        "INVALID_PARAMETER", f'Expected a value in {", ".join(values)}, got "{_text(raw)}" for {name}', name
    )


def invalid_value(name: str, message: str) -> ParamProblem:
    return ParamProblem("INVALID_PARAMETER", message, name)


def missing(name: str) -> ParamProblem:
    return ParamProblem("MISSING_PARAMETER", f'"{name}" is a required parameter', name)


def invalid_parameter(name: str | None, message: str) -> AdsError:
    return AdsError(400, [item("INVALID_PARAMETER", message, name)])


def missing_parameter(name: str) -> AdsError:
    return AdsError(400, [missing(name).item])


def exclusive(first: str, second: str) -> AdsError:
    return AdsError(
        400,
        [item("EXCLUSIVE_PARAMETERS", f"{first} and {second} are exclusive parameters", second)],
    )


def bad_request(code: str, message: str, parameter: str | None = None) -> AdsError:
    """A 400 with one of the catalogue's codes (INCOMPATIBLE_LINE_ITEM, TOO_MANY_CAMPAIGNS, ...)."""
    return AdsError(400, [item(code, message, parameter)])


def _text(raw: Any) -> str:
    """A value as the request spelled it: JSON null is no text at all, never Python's "None"."""
    if isinstance(raw, list):
        return ",".join(_text(value) for value in raw)
    if isinstance(raw, bool):
        return "true" if raw else "false"
    return "" if raw is None else str(raw)


# ---- lookups ---------------------------------------------------------------------------------

ENTITY_LABELS = {
    "account": "Account",
    "campaign": "Campaign",
    "line_item": "Line Item",
    "funding_instrument": "Funding Instrument",
    "promoted_tweet": "Promoted Tweet",
    "promoted_account": "Promoted Account",
    "scheduled_promoted_tweet": "Scheduled Promoted Tweet",
    "promotable_user": "Promotable User",
    "targeting_criterion": "Targeting Criterion",
    "account_app": "Account App",
    "tracking_tag": "Tracking Tag",
    "curated_category": "Curated Category",
    "line_item_curated_category": "Line Item Curated Category",
    "recommendation": "Recommendation",
}


def not_found(kind: str, entity_id: str, account_id: str | None, parameter: str | None = None) -> AdsError:
    """404 NOT_FOUND naming the entity as the platform does: `Line Item x was not found for Account y`."""
    label = ENTITY_LABELS.get(kind, kind.replace("_", " ").title())
    message = f"{label} {entity_id} was not found"
    if account_id is not None and kind != "account":
        message += f" for Account {account_id}"
    return AdsError(404, [item("NOT_FOUND", message, parameter or f"{kind}_id")])


def account_not_found(account_id: str) -> AdsError:
    return AdsError(404, [item("NOT_FOUND", f"Account {account_id} was not found", "account_id")])


def account_not_accessible(account_id: str) -> AdsError:
    """An existing account the caller is not associated with: 403 with NOT_FOUND, as observed live."""
    return AdsError(403, [item("NOT_FOUND", f"Account {account_id} was not found")])


# ---- authentication, permissions, routing, limits ----------------------------------------------


def unauthorized() -> AdsError:
    return AdsError(401, [item("UNAUTHORIZED_ACCESS", "This request is not properly authenticated")])


def readonly_application() -> AdsError:
    return AdsError(
        403,
        [
            item(
                "READONLY_CLIENT_APPLICATION",
                "This client application has read-only access and cannot make this request",
            )
        ],
    )


def action_not_allowed(account_id: str) -> AdsError:
    return AdsError(
        403,
        [
            item(
                "ACTION_NOT_ALLOWED",
                f"The authenticated user cannot perform this action on Account {account_id}",
            )
        ],
    )


def not_allowlisted(message: str) -> AdsError:
    return AdsError(403, [item("ACTION_NOT_ALLOWED", message)])


def route_not_found() -> AdsError:
    return AdsError(404, [item("ROUTE_NOT_FOUND", "The requested resource could not be found")])


def method_not_allowed() -> AdsError:
    return AdsError(
        405, [item("METHOD_NOT_ALLOWED", "This method is not allowed for the requested resource")]
    )


def too_many_requests(headers: Mapping[str, str]) -> AdsError:
    return AdsError(429, [item("TOO_MANY_REQUESTS", "Rate limit exceeded")], headers)


def payload_too_large() -> AdsError:
    return AdsError(413, [item("INVALID_PARAMETER", "Request body is too large")])


def internal_error() -> AdsError:
    return AdsError(500, [item("INTERNAL_ERROR", "An internal error occurred.")])


def invalid_json(message: str = "Invalid JSON in request body") -> AdsError:
    return AdsError(400, [item("INVALID_PARAMETER", message)])
