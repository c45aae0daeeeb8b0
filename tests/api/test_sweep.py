"""A sweep of every v2 and ads operation with odd parameter values and bodies: whatever is sent, the
answer is the platform's kind of refusal (or a success), never a server error."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from tests.api.ads.helpers import demo_ads_client
from tests.support.client import Api
from tests.support.server import LiveServer

from roost.ads.api.registry import all_ads_operations
from roost.ads.operations import AdsOperation
from roost.platform.operations import Operation
from roost.platform.registry import all_operations

ODD_VALUES = ["", "0", "-1", "abc", "\x00", "9" * 30, ",", "\U0001f600", "a" * 3000, "%", "[]"]
ODD_BODIES = [b"[]", b'"s"', b"null", b"{}", b'{"a":{}}', b"{", b"\xff\xfe", b'{"text":[]}']
ODD_DOCUMENTS: list[Any] = [
    [],
    "s",
    {},
    [1],
    [{"operation_type": 1}],
    [{"operation_type": "Create", "params": {}}],
]
# Streams hold their connection open once the request is valid; their refusals have tests of their own.
SWEPT = [op for op in all_operations() if not (op.method == "GET" and op.path.endswith("/stream"))]


# A server of this module's own: the sweep's few successful writes (a sandbox ads account, say) stay
# out of the other modules' data.
@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(tag="sweep", rate_limits=False).start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def credentials(server: LiveServer) -> dict[str, Any]:
    return httpx.get(server.base_url + "/_roost/credentials", timeout=30).json()


def _path(template: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: quote(values.get(m.group(1), "1"), safe=""), template)


def _requests(op: Operation | AdsOperation, names: list[str], fixed: dict[str, str]) -> list[tuple[str, Any]]:
    """(path, query) pairs: each path parameter, then each query parameter, set to each odd value."""
    out: list[tuple[str, Any]] = [(_path(op.path, fixed), None)]
    for name in re.findall(r"\{(\w+)\}", op.path):
        out.extend((_path(op.path, {**fixed, name: value}), None) for value in ODD_VALUES)
    for name in names:
        out.extend((_path(op.path, fixed), {name: value}) for value in ODD_VALUES)
    return out


def _no_server_error(status: int, text: str, where: Any) -> None:
    assert status < 500, (where, text[:300])


@pytest.mark.parametrize("op", SWEPT, ids=lambda op: f"{op.method} {op.path}")
def test_v2_operation_never_fails_the_server(api: Api, op: Operation) -> None:
    names = [param.name for param in op.params if not param.in_path]
    for auth in ("app", "oauth2", "oauth1"):
        for path, query in _requests(op, names, {}):
            response = api.request(op.method, path, auth=auth, params=query, conform=False)
            _no_server_error(response.status_code, response.text, (auth, path[:80], query))
            assert response.headers["content-type"].startswith(
                ("application/json", "application/problem+json")
            )
        if op.body:
            for body in ODD_BODIES:
                headers = {"content-type": "application/json"}
                path = _path(op.path, {})
                response = api.request(
                    op.method, path, auth=auth, content=body, headers=headers, conform=False
                )
                _no_server_error(response.status_code, response.text, (auth, body))


@pytest.mark.parametrize("op", all_ads_operations(), ids=lambda op: f"{op.method} {op.path}")
def test_ads_operation_never_fails_the_server(
    server: LiveServer, credentials: dict[str, Any], op: AdsOperation
) -> None:
    for sandbox in (False, True):
        client = demo_ads_client(server.base_url, credentials, sandbox=sandbox)
        try:
            accounts = client.get("/accounts").json().get("data") or [{"id": "18ce54d4x5t"}]
            fixed = {"account_id": accounts[0]["id"]}
            for path, query in _requests(op, [param.name for param in op.params], fixed):
                response = client.request(op.method, path, query)
                _no_server_error(response.status_code, response.text, (sandbox, path[:80], query))
            if op.body == "json":
                for document in ODD_DOCUMENTS:
                    response = client.request(op.method, _path(op.path, fixed), json=document)
                    _no_server_error(response.status_code, response.text, (sandbox, document))
        finally:
            client.close()
