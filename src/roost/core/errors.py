"""The error catalogue: every error body roost emits on the v2 surface is built here.

Handlers raise `ApiError` (or return partial-result items made here); the pipeline renders them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

PROBLEM_JSON = "application/problem+json"
JSON = "application/json; charset=utf-8"

# Problem `type` URIs default to api.x.com (the official SDK rejects other prefixes); a server set to
# another base rewrites them as its responses leave (`roost.core.stages.ProblemTypes`).
DEFAULT_PROBLEM_BASE = "https://api.x.com/2/problems/"


def problem_type(slug: str) -> str:
    return DEFAULT_PROBLEM_BASE + slug


class ParamError(Exception):
    """A parameter value the platform refuses; `message` is its exact wording (the pipeline gathers
    these into one invalid-request body)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ApiError(Exception):
    """An error response: status, JSON body, content type and extra headers."""

    def __init__(
        self,
        status: int,
        body: dict[str, Any],
        content_type: str = PROBLEM_JSON,
        headers: Mapping[str, str] | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(body.get("detail") or body.get("title") or str(status))
        self.status = status
        self.body = body
        self.content_type = content_type
        self.headers = dict(headers or {})
        # Why, for the developer reading the request journal (never sent): the rule that refused, or
        # what roost computed (a signature base string) when the body says only "Unauthorized".
        self.reason = reason

    def because(self, reason: str) -> ApiError:
        self.reason = reason
        return self


# ---- invalid request -------------------------------------------------------------------------


def param_error(name: str, raw: str | list[str] | None, message: str) -> dict[str, Any]:
    """One item of an invalid-request body: the parameter echoed with its whole raw value."""
    values = [] if raw is None else ([raw] if isinstance(raw, str) else list(raw))
    return {"parameters": {name: values}, "message": message}


def invalid_request(items: Iterable[dict[str, Any]]) -> ApiError:
    return ApiError(
        400,
        {
            "errors": list(items),
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": problem_type("invalid-request"),
        },
    )


def invalid_body(message: str) -> ApiError:
    # Body problems name no query parameter: the platform sends an empty `parameters` object.
    return invalid_request([{"parameters": {}, "message": message}])


# ---- authentication and authorisation -------------------------------------------------------


def unauthorized() -> ApiError:
    return ApiError(
        401, {"title": "Unauthorized", "type": "about:blank", "status": 401, "detail": "Unauthorized"}
    )


AUTH_LABELS = {
    "app": "OAuth 2.0 Application-Only",
    "oauth1": "OAuth 1.0a User Context",
    "oauth2": "OAuth 2.0 User Context",
}


def unsupported_authentication(used: str, supported: Iterable[str]) -> ApiError:
    names = ", ".join(AUTH_LABELS[kind] for kind in supported)
    # The platform's detail has two spaces after the first sentence.
    detail = (
        f"Authenticating with {AUTH_LABELS[used]} is forbidden for this endpoint.  "
        f"Supported authentication types are [{names}]."
    )
    return ApiError(
        403,
        {
            "title": "Unsupported Authentication",
            "detail": detail,
            "type": problem_type("unsupported-authentication"),
            "status": 403,
        },
    )


def oauth1_permissions() -> ApiError:
    return ApiError(
        403,
        {
            "title": "Forbidden",
            "status": 403,
            "detail": (
                "Your client app is not configured with the appropriate oauth1 app permissions "
                "for this endpoint."
            ),
            "type": problem_type("oauth1-permissions"),
        },
    )


def missing_scopes(required: Iterable[str]) -> ApiError:
    """An OAuth 2.0 token without a scope the operation needs. Live traffic shows the bare
    `about:blank` Forbidden problem, naming nothing (so clients cannot tell which scope is missing)."""
    del required  # kept for the call site's clarity and for logging, never sent
    return ApiError(403, {"title": "Forbidden", "type": "about:blank", "status": 403, "detail": "Forbidden"})


def forbidden(detail: str) -> ApiError:
    return ApiError(403, {"detail": detail, "type": "about:blank", "title": "Forbidden", "status": 403})


def client_forbidden(client_id: str) -> ApiError:
    return ApiError(
        403,
        {
            "client_id": client_id,
            "detail": (
                "When authenticating requests to the Twitter API v2 endpoints, you must use keys and tokens "
                "from a Twitter developer App that is attached to a Project. You can create a project "
                "via the developer portal."
            ),
            "registration_url": "https://developer.twitter.com/en/docs/projects/overview",
            "title": "Client Forbidden",
            "required_enrollment": "Appropriate Level of API Access",
            "reason": "client-not-enrolled",
            "type": problem_type("client-forbidden"),
        },
    )


def reply_or_quote_not_summoned() -> ApiError:
    """A self-serve app's reply to, or quote of, a post whose author did not summon the caller (the
    platform's answer since 2026-02-23, as developers have recorded it)."""
    return ApiError(
        403,
        {
            "detail": "You can only reply to or quote posts where you are mentioned or are the author.",
            "status": 403,
            "title": "Authorization Error",
            "type": problem_type("not-authorized-for-resource"),
        },
    )


# ---- generic statuses --------------------------------------------------------------------------


def too_many_requests(headers: Mapping[str, str]) -> ApiError:
    return ApiError(
        429,
        {"title": "Too Many Requests", "detail": "Too Many Requests", "type": "about:blank", "status": 429},
        headers=headers,
    )


def usage_capped(period: str, scope: str, account_id: int, product: str) -> ApiError:
    return ApiError(
        429,
        {
            "account_id": account_id,
            "product_name": product,
            "title": "UsageCapExceeded",
            "period": period,
            "scope": scope,
            "detail": f"Usage cap exceeded: {period} {scope.lower()} cap",
            "type": problem_type("usage-capped"),
        },
    )


def credits_depleted(account_id: int) -> ApiError:
    """A pay-per-use account out of credit: 402, its body as developers have recorded it (with the
    api.twitter.com type and a 19-digit id, the 185 bytes of the recorded Content-Length)."""
    return ApiError(
        402,
        {
            "title": "CreditsDepleted",
            "detail": (
                f"Your enrolled account [{account_id}] does not have any credits to fulfill this request."
            ),
            "type": problem_type("credits"),
        },
    )


def route_not_found() -> ApiError:
    return ApiError(
        404,
        {"errors": [{"message": "Sorry, that page does not exist", "code": 34}]},
        content_type=JSON,
    )


def not_found_problem(detail: str) -> ApiError:
    return ApiError(404, {"title": "Not Found Error", "detail": detail, "type": "about:blank", "status": 404})


def conflict(detail: str) -> ApiError:
    return ApiError(
        409, {"title": "Conflict", "detail": detail, "type": problem_type("conflict"), "status": 409}
    )


def payload_too_large() -> ApiError:
    return ApiError(
        413,
        {"title": "Payload Too Large", "detail": "Payload Too Large", "type": "about:blank", "status": 413},
    )


def internal_error() -> ApiError:
    return ApiError(
        500,
        {
            "title": "Internal Server Error",
            "detail": "Internal Server Error",
            "type": "about:blank",
            "status": 500,
        },
    )


# ---- v1.1-style coded errors (OAuth endpoints, legacy paths) -----------------------------------


CODED_MESSAGES = {
    32: "Could not authenticate you.",
    88: "Rate limit exceeded",
    89: "Invalid or expired token.",
    93: "This application is not allowed to access or delete your direct messages.",
    99: "Unable to verify your credentials",
    135: "Timestamp out of bounds.",
    215: "Bad Authentication data.",
}


def coded(
    status: int, code: int, message: str | None = None, headers: Mapping[str, str] | None = None, **extra: Any
) -> ApiError:
    item: dict[str, Any] = {"code": code, "message": message or CODED_MESSAGES[code]}
    item.update(extra)
    return ApiError(status, {"errors": [item]}, content_type=JSON, headers=headers)


# ---- partial-result items (HTTP 200, beside or instead of data) --------------------------------


def resource_not_found_item(resource_type: str, parameter: str, value: str) -> dict[str, Any]:
    return {
        "value": value,
        "detail": f"Could not find {resource_type} with {parameter}: [{value}].",
        "title": "Not Found Error",
        "resource_type": resource_type,
        "parameter": parameter,
        "resource_id": value,
        "type": problem_type("resource-not-found"),
    }


def not_authorized_for_resource_item(
    resource_type: str, parameter: str, value: str, section: str
) -> dict[str, Any]:
    return {
        "value": value,
        "detail": f"Sorry, you are not authorized to see the {resource_type} with {parameter}: [{value}].",
        "title": "Authorization Error",
        "resource_type": resource_type,
        "parameter": parameter,
        "resource_id": value,
        "section": section,
        "type": problem_type("not-authorized-for-resource"),
    }


# ---- the remaining problem subtypes of the platform (used by streams, rules, compliance, ...) ----


def problem(slug: str, title: str, detail: str, status: int, **extra: Any) -> ApiError:
    """A problem body of subtype `slug` with its extra fields."""
    body: dict[str, Any] = {"title": title, "detail": detail, "type": problem_type(slug), "status": status}
    body.update(extra)
    return ApiError(status, body)


def client_disconnected() -> ApiError:
    return problem("client-disconnected", "Client Disconnected", "The client has disconnected.", 400)


def disallowed_resource(resource_id: str, resource_type: str, section: str) -> ApiError:
    return problem(
        "disallowed-resource",
        "Disallowed Resource",
        f"The {resource_type} with id [{resource_id}] is not allowed by the API rules.",
        403,
        resource_id=resource_id,
        resource_type=resource_type,
        section=section,
    )


def not_authorized_for_resource(resource_type: str, parameter: str, value: str) -> ApiError:
    """A whole request refused because it names a resource the caller may not see (a 403 in the
    body of the partial error, `section` data)."""
    item = not_authorized_for_resource_item(resource_type, parameter, value, "data")
    return ApiError(403, {**item, "status": 403})


def duplicate_rule_item(rule_id: str, value: str) -> dict[str, Any]:
    return {"value": value, "id": rule_id, "title": "DuplicateRule", "type": problem_type("duplicate-rules")}


def invalid_rule_item(value: str, details: list[str]) -> dict[str, Any]:
    return {
        "value": value,
        "details": details,
        "title": "UnprocessableEntity",
        "type": problem_type("invalid-rules"),
    }


def noncompliant_rules(detail: str) -> ApiError:
    return problem("noncompliant-rules", "Noncompliant Rules", detail, 400)


def rule_cap(detail: str) -> ApiError:
    return problem("rule-cap", "Rule Cap", detail, 403)


def not_authorized_for_field_item(
    resource_type: str, field: str, parameter: str, value: str, section: str
) -> dict[str, Any]:
    return {
        "resource_type": resource_type,
        "field": field,
        "parameter": parameter,
        "resource_id": value,
        "title": "Field Authorization Error",
        "section": section,
        "detail": (
            f"Sorry, you are not authorized to access '{field}' on the {resource_type.capitalize()} "
            f"with {parameter} : [{value}]."
        ),
        "value": value,
        "type": problem_type("not-authorized-for-field"),
    }


def resource_unavailable_item(resource_type: str, parameter: str, value: str) -> dict[str, Any]:
    return {
        "parameter": parameter,
        "resource_id": value,
        "resource_type": resource_type,
        "title": "Forbidden",
        "detail": f"Sorry, you are not allowed to see the {resource_type} with {parameter}: [{value}].",
        "type": problem_type("resource-unavailable"),
    }


def operational_disconnect(disconnect_type: str) -> dict[str, Any]:
    """In-band stream message (not an HTTP response)."""
    return {
        "title": "operational-disconnect",
        "disconnect_type": disconnect_type,
        "detail": "This stream has been disconnected upstream for operational reasons.",
        "type": problem_type("operational-disconnect"),
    }


def streaming_connection(connection_issue: str) -> ApiError:
    body = {
        "title": "ConnectionException",
        "detail": "This stream is currently at the maximum allowed connection limit.",
        "connection_issue": connection_issue,
        "type": problem_type("streaming-connection"),
    }
    return ApiError(429, body)


def webhook_failure(reason: str, detail: str) -> ApiError:
    """Webhook and account-activity refusals: 400 invalid-request, `"<Reason>: <details>"` as message."""
    return invalid_request([{"message": f"{reason}: {detail}"}])


def replay_conflict(webhook_id: int) -> ApiError:
    """A second replay job for a webhook while one runs: the `conflict` problem (SPEC159's
    ConflictProblem, "a new job cannot be created while one is in progress"), 409, with the legacy
    reason `ReplayConflictError` leading the detail."""
    return conflict(f"ReplayConflictError: A replay job is already running for webhook {webhook_id}")


def replay_param_invalid(detail: str) -> ApiError:
    """Replay date refusals: 400 invalid-request, `"QueryParamInvalid: <details>"` as message."""
    return webhook_failure("QueryParamInvalid", detail)


def rules_not_found(count: int) -> dict[str, Any]:
    """The item a stream-rules delete reports for ids or values that name no rule of the app: the
    invalid-request problem with one nested `Rule does not exist` error per missing rule."""
    return {
        "errors": [{"parameters": {}, "message": "Rule does not exist"} for _ in range(count)],
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": problem_type("invalid-request"),
    }


# ---- media upload (issue 15) ---------------------------------------------------------------------


def media_refused(message: str, status: int = 400) -> ApiError:
    """A media upload refused: the v2 invalid-request body with the upload service's message (the
    v1.1 upload dialect shows the same message as `{"request", "error"}`)."""
    error = invalid_request([{"message": message}])
    error.status = status
    return error


def media_message(error: ApiError) -> str:
    """The message of an invalid-request error, for the v1.1 upload dialect."""
    items = error.body.get("errors")
    if isinstance(items, list) and items and isinstance(items[0], dict) and "message" in items[0]:
        return str(items[0]["message"])
    return str(error.body.get("detail") or error.body.get("title") or "Internal error")
