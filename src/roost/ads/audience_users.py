"""The users upload of a custom audience (`POST accounts/:id/custom_audiences/:id/users`): checking
the JSON batch item by item, and turning its users into the audience's members.

How roost counts matched users (the platform matches hashed identifiers against its accounts and
counts those active lately; docs/decisions.md, issue 23):
- a user object whose hashed `twitter_id`, `handle` or `email` equals the hash of a roost user's id,
  lower-case username or lower-case email is that roost user (one member however many of its values
  match);
- otherwise a user object with a `device_id`, `phone_number` or `partner_user_id` is one member keyed
  by its first such value, counted as matched (roost holds no devices, phones or partner ids);
- a user object with only unmatched `twitter_id`, `handle` or `email` values matches nobody.
Members are counted from the moment they are uploaded (the platform takes hours to process an
upload); a member whose `expires_at` has passed is no longer counted.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from roost.ads import errors
from roost.ads.params import AdsParam, Enum, format_time, parse_all, parse_time

MAX_OPERATIONS = 2_500
MAX_BODY_BYTES = 5_000_000
OPERATION_TYPES = ("Update", "Delete")
MATCHED_KEYS = ("twitter_id", "handle", "email")  # matched against roost's users
COUNTED_KEYS = ("device_id", "phone_number", "partner_user_id")  # counted as matched
USER_KEYS = (*MATCHED_KEYS, *COUNTED_KEYS)
THIRTEEN_MONTHS_MS = 395 * 24 * 3600 * 1000
_SHA256_HEX = re.compile(r"[0-9a-f]{64}")
_OPERATION = (AdsParam("operation_type", Enum(OPERATION_TYPES), required=True),)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def identity_hashes(user_id: int, username: str, email: str | None) -> list[str]:
    """The hashes a roost user is known by, after the platform's normalisation (ids as plain
    integers, handles without `@` in lower case, emails trimmed in lower case)."""
    hashes = [sha256_hex(str(user_id)), sha256_hex(username.lstrip("@").lower())]
    if email:
        hashes.append(sha256_hex(email.strip().lower()))
    return hashes


@dataclass
class Operation:
    """One checked item of the upload."""

    operation_type: str
    users: list[dict[str, list[str]]]
    effective_ms: int
    expires_ms: int
    echo: dict[str, Any] = field(default_factory=dict)


def check_upload(body: Any, now_ms: int) -> tuple[list[Operation], list[list[dict[str, Any]]]]:
    """The operations of a well-formed upload and each item's problems (`[]` when it is good).
    Request-level faults (not an array, none or too many items) raise at once."""
    if not isinstance(body, list):
        raise errors.invalid_parameter(None, "Expected a JSON array of operations")
    if not body:
        raise errors.invalid_parameter(None, "A minimum of 1 items must be provided for the batch")
    if len(body) > MAX_OPERATIONS:
        raise errors.invalid_parameter(
            None, f"A maximum of {MAX_OPERATIONS} items can be provided for the batch"
        )
    operations: list[Operation] = []
    problems: list[list[dict[str, Any]]] = []
    for raw in body:
        operation, item_problems = _check_item(raw, now_ms)
        operations.append(operation)
        problems.append(item_problems)
    return operations, problems


def _check_item(raw: Any, now_ms: int) -> tuple[Operation, list[dict[str, Any]]]:
    operation = Operation("Update", [], now_ms, now_ms + THIRTEEN_MONTHS_MS)
    if not isinstance(raw, dict):
        return operation, [errors.item("INVALID_PARAMETER", "Each operation must be a JSON object")]
    problems: list[dict[str, Any]] = []
    values, _, operation_problems = parse_all(_OPERATION, {"operation_type": raw.get("operation_type")}, {})
    problems += operation_problems
    if not operation_problems:
        operation.operation_type = values["operation_type"]
        operation.echo["operation_type"] = operation.operation_type
    params = raw.get("params")
    if params is None:
        problems.append(errors.item("MISSING_PARAMETER", '"params" is a required parameter', "params"))
        return operation, problems
    if not isinstance(params, dict):
        problems.append(errors.item("INVALID_PARAMETER", "Expected a JSON object for params", "params"))
        return operation, problems
    echoed: dict[str, Any] = {}
    for name in ("effective_at", "expires_at"):
        sent = params.get(name)
        if sent is None:
            continue
        moment = parse_time(sent) if isinstance(sent, str) else None
        if moment is None:
            problems.append(errors.item("INVALID_PARAMETER", f'Expected time, got "{sent}" for {name}', name))
            continue
        echoed[name] = format_time(moment)
        if name == "effective_at":
            operation.effective_ms = moment
        else:
            operation.expires_ms = moment
    if operation.expires_ms <= operation.effective_ms and not any(
        p.get("parameter") in ("effective_at", "expires_at") for p in problems
    ):
        problems.append(
            errors.item("INVALID_TIME_WINDOW", "expires_at must be after effective_at", "expires_at")
        )
    operation.echo["params"] = echoed
    problems += _check_users(params.get("users"), operation)
    return operation, problems


def _check_users(users: Any, operation: Operation) -> list[dict[str, Any]]:
    if users is None:
        return [errors.item("MISSING_PARAMETER", '"users" is a required parameter', "users")]
    if not isinstance(users, list):
        return [errors.item("INVALID_PARAMETER", "Expected a JSON array for users", "users")]
    if not users:
        return [errors.item("INVALID_PARAMETER", "A minimum of 1 items must be provided for users", "users")]
    problems: list[dict[str, Any]] = []
    for user in users:
        checked, user_problems = _check_user(user)
        problems += user_problems
        if checked:
            operation.users.append(checked)
    return problems


def _check_user(user: Any) -> tuple[dict[str, list[str]], list[dict[str, Any]]]:
    if not isinstance(user, dict) or not user:
        return {}, [
            errors.item(
                "INVALID_PARAMETER",
                f"Each user must be a JSON object with at least one of {', '.join(USER_KEYS)}",
                "users",
            )
        ]
    checked: dict[str, list[str]] = {}
    problems: list[dict[str, Any]] = []
    for key, values in user.items():
        if key not in USER_KEYS:
            problems.append(
                errors.item(
                    "INVALID_PARAMETER", f'Expected a value in {", ".join(USER_KEYS)}, got "{key}"', "users"
                )
            )
            continue
        if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
            problems.append(
                errors.item("INVALID_PARAMETER", f"Expected a non-empty array of strings for {key}", key)
            )
            continue
        if key != "partner_user_id":
            bad = next((v for v in values if _SHA256_HEX.fullmatch(v) is None), None)
            if bad is not None:
                problems.append(
                    errors.item(
                        "INVALID_PARAMETER",
                        f'Expected a SHA-256 hash in lower-case hex, got "{bad}" for {key}',
                        key,
                    )
                )
                continue
        checked[key] = list(values)
    return checked, problems


def upload_echo(operation: Operation, audience_id: str, account_id: str) -> dict[str, Any]:
    """One item's part of a failed upload's `request` (users are not repeated back)."""
    params = {**operation.echo.get("params", {}), "custom_audience_id": audience_id, "account_id": account_id}
    echo: dict[str, Any] = {"params": params}
    if "operation_type" in operation.echo:
        echo["operation_type"] = operation.echo["operation_type"]
    return echo


def needs_roost_users(operations: list[Operation]) -> bool:
    return any(key in user for op in operations for user in op.users for key in MATCHED_KEYS)


def member_key(user: dict[str, list[str]], known: dict[str, int]) -> str | None:
    """The member a user object stands for (see the module docstring), or None when it matches
    nobody."""
    for key in MATCHED_KEYS:
        for value in user.get(key, ()):
            user_id = known.get(value)
            if user_id is not None:
                return f"user:{user_id}"
    for key in COUNTED_KEYS:
        values = user.get(key)
        if values:
            return f"{key}:{values[0]}"
    return None


def apply_operations(
    members: dict[str, int], operations: list[Operation], known: dict[str, int], now_ms: int
) -> dict[str, int]:
    """The audience's members (key → expiry in ms) after the upload, expired ones dropped."""
    result = {key: expiry for key, expiry in members.items() if expiry > now_ms}
    for operation in operations:
        for user in operation.users:
            key = member_key(user, known)
            if key is None:
                continue
            if operation.operation_type == "Delete":
                result.pop(key, None)
            elif operation.expires_ms > now_ms:
                result[key] = max(result.get(key, 0), operation.expires_ms)
    return result
