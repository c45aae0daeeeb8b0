"""roost's own OpenAPI documents (`/2/openapi.json`, `/12/openapi.json`, `/_roost/openapi.json`): valid
OpenAPI, typed from the fields engine, true to roost's real answers, readable from other origins, and
shown by Swagger UI at `/_roost/docs` from local files."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import httpx
import jsonschema
import pytest
from openapi_spec_validator import validate
from tests.support.client import Api

from roost.platform.openapi_schemas import answers_one
from roost.platform.registry import all_operations
from roost.wiring import fields_engine

DOCUMENTS = ("/2/openapi.json", "/12/openapi.json", "/_roost/openapi.json")


@cache
def _document(base_url: str, path: str) -> dict[str, Any]:
    answer = httpx.get(base_url + path, timeout=30)
    assert answer.status_code == 200, answer.text
    document: dict[str, Any] = answer.json()
    return document


def _v2(api: Api) -> dict[str, Any]:
    return _document(api.base_url, "/2/openapi.json")


@pytest.mark.parametrize("path", DOCUMENTS)
def test_each_document_is_valid_openapi(api: Api, path: str) -> None:
    validate(_document(api.base_url, path))


@pytest.mark.parametrize("path", DOCUMENTS)
def test_path_parameters_have_the_simple_style(api: Api, path: str) -> None:
    document = _document(api.base_url, path)
    styles = {
        (route, method, parameter["name"]): parameter.get("style", "simple")
        for route, item in document["paths"].items()
        for method, operation in item.items()
        for parameter in operation.get("parameters", ())
        if parameter["in"] == "path"
    }
    assert styles and set(styles.values()) == {"simple"}, styles


def test_every_v2_operation_is_listed_with_a_typed_success_schema(api: Api) -> None:
    document = _v2(api)
    schemas = document["components"]["schemas"]
    for op in all_operations():
        entry = document["paths"][op.path][op.method.lower()]
        schema = entry["responses"][str(op.status)]["content"]["application/json"]["schema"]
        assert schema["type"] == "object" and {"data", "errors", "meta"} <= set(schema["properties"]), op
        if op.returns and op.operation_id != "createWebhooksStreamLink":
            data = schema["properties"]["data"]
            target = data if answers_one(op) else data["items"]
            name = target["$ref"].rsplit("/", 1)[1]
            assert schemas[name]["properties"], (op.operation_id, name)
            for key in schema["properties"].get("includes", {}).get("properties", {}).values():
                assert key["items"]["$ref"].rsplit("/", 1)[1] in schemas
    lookup = document["paths"]["/2/tweets/{id}"]["get"]["responses"]["200"]["content"]["application/json"]
    assert lookup["schema"]["properties"]["data"] == {"$ref": "#/components/schemas/Tweet"}
    listing = document["paths"]["/2/users/{id}/followers"]["get"]["responses"]["200"]
    assert listing["content"]["application/json"]["schema"]["properties"]["data"]["items"] == {
        "$ref": "#/components/schemas/User"
    }


def test_every_field_of_every_kind_has_a_type(api: Api) -> None:
    schemas = _v2(api)["components"]["schemas"]
    engine = fields_engine()
    untyped = []
    for kind in engine.kinds.values():
        component = next(
            schema
            for schema in schemas.values()
            if set(kind.fields) <= set(schema.get("properties", {}))
            and set(schema.get("properties", {})) <= set(kind.fields) | set(kind.aliases)
        )
        for field in kind.fields:
            if "type" not in component["properties"][field]:
                untyped.append(f"{kind.name}.{field}")
    assert not untyped


def _all_fields_query(document: dict[str, Any], route: str) -> dict[str, str]:
    """Every expansion and every field the operation's parameters accept, from the document itself."""
    query: dict[str, str] = {}
    for parameter in document["paths"][route]["get"]["parameters"]:
        name = parameter["name"]
        if name == "expansions" or (name.endswith(".fields") and not name.startswith("post.")):
            query[name] = ",".join(parameter["schema"]["items"]["enum"])
    return query


def _success_validator(document: dict[str, Any], route: str, method: str = "get") -> jsonschema.Validator:
    responses = document["paths"][route][method]["responses"]
    status = next(code for code in responses if code.startswith("2"))
    schema = responses[status]["content"]["application/json"]["schema"]
    # The document is the root, so `#/components/schemas/…` references resolve within it.
    return jsonschema.Draft7Validator({**schema, "components": document["components"]})


def _assert_valid(document: dict[str, Any], route: str, body: dict[str, Any]) -> None:
    problems = [
        f"{'/'.join(map(str, error.absolute_path))}: {error.message}"
        for error in _success_validator(document, route).iter_errors(body)
    ]
    assert not problems, problems[:10]


def test_a_post_with_every_field_and_expansion_validates(api: Api) -> None:
    document = _v2(api)
    me = api.get("/2/users/me", auth="oauth1").json()["data"]["id"]
    timeline = api.get(f"/2/users/{me}/tweets", params={"max_results": 100}, conform=False).json()["data"]
    found = api.get(
        "/2/tweets/search/recent",
        params={"query": "has:media OR has:mentions OR is:reply OR is:quote", "max_results": 100},
        conform=False,
    ).json()
    ids = [post["id"] for post in timeline] + [post["id"] for post in found.get("data", ())]
    query = _all_fields_query(document, "/2/tweets")
    lookup = api.get("/2/tweets", params={"ids": ",".join(ids[:100]), **query}, auth="oauth1", conform=False)
    assert lookup.status_code == 200, lookup.text
    assert lookup.json().get("includes"), "the sample should reach included objects"
    _assert_valid(document, "/2/tweets", lookup.json())
    one = api.get(f"/2/tweets/{ids[0]}", params=_all_fields_query(document, "/2/tweets/{id}"), conform=False)
    assert one.status_code == 200
    _assert_valid(document, "/2/tweets/{id}", one.json())
    # The post vocabulary's names validate too.
    post_names = {**query, "post.fields": query["tweet.fields"]}
    del post_names["tweet.fields"]
    posts = api.get(f"/2/tweets/{ids[0]}", params=post_names, conform=False)
    assert "edit_history_post_ids" in posts.json()["data"]
    _assert_valid(document, "/2/tweets/{id}", posts.json())


def test_me_with_every_field_validates(api: Api) -> None:
    document = _v2(api)
    me = api.get(
        "/2/users/me", params=_all_fields_query(document, "/2/users/me"), auth="oauth2", conform=False
    )
    assert me.status_code == 200, me.text
    _assert_valid(document, "/2/users/me", me.json())


SAMPLES = [
    # (route in the document, path to call, extra query, credentials)
    ("/2/users/{id}/followers", "/2/users/{me}/followers", {"max_results": 100}, "oauth1"),
    ("/2/users/{id}/owned_lists", "/2/users/{me}/owned_lists", {}, "oauth1"),
    ("/2/users/by", "/2/users/by", {"usernames": "roost_dev,nosuchuserzz9"}, "oauth1"),
    ("/2/dm_events", "/2/dm_events", {}, "oauth1"),
    ("/2/compliance/jobs", "/2/compliance/jobs", {"type": "tweets"}, "app"),
    ("/2/trends/by/woeid/{woeid}", "/2/trends/by/woeid/1", {}, "app"),
    ("/2/users/personalized_trends", "/2/users/personalized_trends", {}, "oauth2"),
    ("/2/spaces/search", "/2/spaces/search", {"query": "a"}, "app"),
]


@pytest.mark.parametrize(("route", "path", "extra", "auth"), SAMPLES, ids=[sample[0] for sample in SAMPLES])
def test_a_sample_of_real_answers_validates(
    api: Api, route: str, path: str, extra: dict[str, Any], auth: str
) -> None:
    document = _v2(api)
    me = api.get("/2/users/me", auth="oauth1").json()["data"]["id"]
    answer = api.get(
        path.format(me=me),
        params={**_all_fields_query(document, route), **extra},
        auth=auth,
        conform=False,
    )
    assert answer.status_code == 200, answer.text
    _assert_valid(document, route, answer.json())


@pytest.mark.parametrize("path", DOCUMENTS)
def test_documents_are_readable_from_other_origins(api: Api, path: str) -> None:
    got = api.http.get(path, headers={"Origin": "https://editor.example"})
    assert got.status_code == 200 and got.headers["access-control-allow-origin"] == "*"
    preflight = api.http.options(
        path,
        headers={
            "Origin": "https://editor.example",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "accept",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "*"
    assert "GET" in preflight.headers["access-control-allow-methods"]
    assert preflight.headers["access-control-allow-headers"] == "accept"


def test_other_pages_get_no_cors_headers(api: Api) -> None:
    assert "access-control-allow-origin" not in api.http.get("/_roost/health").headers


def test_the_ads_and_control_documents_list_their_routes(api: Api) -> None:
    ads = _document(api.base_url, "/12/openapi.json")
    assert (
        "get" in ads["paths"]["/12/accounts"]
        and "post" in ads["paths"]["/12/accounts/{account_id}/campaigns"]
    )
    assert {server["url"] for server in ads["servers"]} == {"/", "/sandbox"}
    control = _document(api.base_url, "/_roost/openapi.json")
    assert "get" in control["paths"]["/_roost/health"] and "post" in control["paths"]["/_roost/reset"]
    assert "/_roost/docs" in control["paths"]


def test_swagger_ui_is_served_from_local_files(api: Api) -> None:
    page = api.http.get("/_roost/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    references = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert references and all(ref.startswith("/_roost/docs/assets/") for ref in references), references
    assert "://" not in page.text.replace("http://www.w3.org", "")  # no CDN, no outside validator
    for name in ("/2/openapi.json", "/12/openapi.json", "/_roost/openapi.json"):
        assert name in page.text
    kinds = {}
    for reference in references:
        asset = api.http.get(reference)
        assert asset.status_code == 200, reference
        kinds[reference.rsplit(".", 1)[1]] = asset.headers["content-type"]
    assert kinds["js"].startswith(("application/javascript", "text/javascript"))
    assert kinds["css"].startswith("text/css")


@pytest.mark.parametrize("name", ["nope.js", "..%2F..%2F__init__.py", "index.j2x"])
def test_unknown_assets_are_not_found(api: Api, name: str) -> None:
    assert api.http.get(f"/_roost/docs/assets/{name}").status_code == 404
