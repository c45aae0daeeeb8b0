"""Every operation roost serves takes exactly the credentials (and OAuth 2.0 scopes) the official
document lists for it, so a generated SDK picks credentials roost accepts."""

from __future__ import annotations

import re

import pytest

from roost.core.operations import APP, OAUTH1, OAUTH2, Operation
from roost.platform.registry import all_operations

from .oracle import Oracle, SpecUnavailable

SCHEMES = {"BearerToken": APP, "UserToken": OAUTH1, "OAuth2UserToken": OAUTH2}
# Operations the 2.167 document does not have (the deprecated replay and the powerstream of 2.159).
NOT_IN_2167 = {
    ("POST", "/2/account_activity/replay/webhooks/{webhook_id}/subscriptions/all"),
    ("GET", "/2/powerstream/rules"),
}


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@pytest.fixture(scope="module")
def official() -> dict[tuple[str, str], dict]:
    try:
        oracle = Oracle.load("2.167")
    except SpecUnavailable as exc:
        pytest.skip(str(exc))
    return {(method, _shape(template)): operation for method, template, operation in oracle.operations()}


@pytest.mark.parametrize("op", all_operations(), ids=lambda op: f"{op.method} {op.path}")
def test_credentials_match_the_official_document(
    op: Operation, official: dict[tuple[str, str], dict]
) -> None:
    spec = official.get((op.method, _shape(op.path)))
    if spec is None:
        assert (op.method, op.path) in NOT_IN_2167
        return
    kinds: set[str] = set()
    scopes: set[str] = set()
    for requirement in spec.get("security", []):
        for scheme, needed in requirement.items():
            kinds.add(SCHEMES[scheme])
            if scheme == "OAuth2UserToken":
                scopes.update(needed)
    assert set(op.auth) == kinds
    assert set(op.scopes) == scopes
