"""roost's operation table against the official document: every operation takes exactly the
credentials (and OAuth 2.0 scopes) listed for it, so a generated SDK picks credentials roost accepts,
and the same parameters, required alike, with the same integer bounds."""

from __future__ import annotations

import re
from typing import Any

import pytest

from roost.platform.operations import APP, OAUTH1, OAUTH2, Operation
from roost.platform.registry import all_operations

from .oracle import Oracle, SpecUnavailable

SCHEMES = {"BearerToken": APP, "UserToken": OAUTH1, "OAuth2UserToken": OAUTH2}
# Operations the 2.167 document does not have (the deprecated replay, and the powerstream and the
# note evaluation path of 2.159, which the seed names too).
NOT_IN_2167 = {
    ("POST", "/2/account_activity/replay/webhooks/{webhook_id}/subscriptions/all"),
    ("GET", "/2/powerstream/rules"),
    ("POST", "/2/evaluate_note"),
}
# Credentials roost accepts beyond the document's, each for a reason given in docs/decisions.md: DM
# media download also takes OAuth 1.0a user context, which the platform's DM media description asks for.
EXTRA_CREDENTIALS = {
    ("GET", "/2/dm_conversations/media/{dm_id}/{media_id}/{resource_id}"): {OAUTH1},
}


def _deref(document: dict, node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        target: Any = document
        for part in node["$ref"].split("/")[1:]:
            target = target[part]
        node = target
    return node


def _selection(name: str) -> bool:
    return name.endswith(".fields") or name == "expansions"


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


@pytest.fixture(scope="module")
def oracle() -> Oracle:
    try:
        return Oracle.load("2.167")
    except SpecUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="module")
def official(oracle: Oracle) -> dict[tuple[str, str], dict]:
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
    assert set(op.auth) == kinds | EXTRA_CREDENTIALS.get((op.method, op.path), set())
    assert set(op.scopes) == scopes


@pytest.mark.parametrize("op", all_operations(), ids=lambda op: f"{op.method} {op.path}")
def test_parameters_match_the_official_document(
    op: Operation, oracle: Oracle, official: dict[tuple[str, str], dict]
) -> None:
    spec = official.get((op.method, _shape(op.path)))
    if spec is None:
        return
    # Field and expansion parameters are the fields engine's, checked by the API tests.
    listed = {}
    for raw in spec.get("parameters", []):
        parameter = _deref(oracle.document, raw)
        if not _selection(parameter["name"]):
            listed[parameter["name"]] = parameter
    ours = {param.name: param for param in op.params if not _selection(param.name)}
    assert set(ours) == set(listed)
    for name, param in ours.items():
        theirs = listed[name]
        required = bool(theirs.get("required") or theirs["in"] == "path")
        assert (param.required or param.in_path) == required, name
        schema = _deref(oracle.document, theirs.get("schema", {}))
        if schema.get("type") == "integer":
            bounds = (param.kind.openapi.get("minimum"), param.kind.openapi.get("maximum"))
            assert bounds == (schema.get("minimum"), schema.get("maximum")), name
