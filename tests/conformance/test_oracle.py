"""The oracle must be able to fail as well as pass, or conformance tests prove nothing."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .oracle import VOCABULARIES, Oracle, SpecUnavailable, assert_conforms, spec_path

REPO_ROOT = Path(__file__).resolve().parents[2]
_IN_SUBPROCESS = "ROOST_ORACLE_SELFTEST_CHILD"  # stops the skip self-test from recursing

X_PROBLEMS = "https://api.x.com/2/problems"
TWITTER_PROBLEMS = "https://api.twitter.com/2/problems"
METRICS_167 = {
    "repost_count": 1,
    "reply_count": 2,
    "like_count": 3,
    "quote_count": 4,
    "bookmark_count": 5,
    "impression_count": 6,
}


def _oracle(version: str) -> Oracle:
    try:
        return Oracle.load(version)
    except SpecUnavailable as exc:
        pytest.skip(str(exc))


@pytest.fixture
def o167() -> Oracle:
    return _oracle("2.167")


@pytest.fixture
def o159() -> Oracle:
    return _oracle("2.159")


def _post(vocabulary: str, **extra: Any) -> dict[str, Any]:
    history = "edit_history_post_ids" if vocabulary == "post" else "edit_history_tweet_ids"
    return {"id": "1", "text": "hi", history: ["1"], **extra}


# --------------------------------------------------------------------------- real documents


@pytest.mark.parametrize("vocabulary", ["post", "tweet"])
def test_valid_post_lookup_validates(vocabulary: str) -> None:
    oracle = _oracle(VOCABULARIES[vocabulary])
    body = {"data": _post(vocabulary, created_at="2021-10-07T07:41:18.000Z", author_id="12")}
    assert oracle.validate_response("GET", "/2/tweets/1", 200, body) == []
    assert_conforms("GET", "/2/tweets/1", 200, body, vocabulary=vocabulary)


@pytest.mark.parametrize("vocabulary", ["post", "tweet"])
def test_integer_id_fails(vocabulary: str) -> None:
    oracle = _oracle(VOCABULARIES[vocabulary])
    errors = oracle.validate_response("GET", "/2/tweets/1", 200, {"data": {"id": 1, "text": "hi"}})
    assert errors, "an integer id must not validate"
    assert any(e.startswith("$.data.id:") and "string" in e for e in errors), errors
    with pytest.raises(pytest.fail.Exception, match=r"\$\.data\.id"):
        assert_conforms("GET", "/2/tweets/1", 200, {"data": {"id": 1, "text": "hi"}}, vocabulary=vocabulary)


def test_public_metrics_missing_keys_fail_in_2167(o167: Oracle) -> None:
    good = {"data": _post("post", public_metrics=METRICS_167)}
    assert o167.validate_response("GET", "/2/tweets/1", 200, good) == []
    bad = {"data": _post("post", public_metrics={"like_count": 3})}
    errors = o167.validate_response("GET", "/2/tweets/1", 200, bad)
    assert any("'repost_count' is a required property" in e for e in errors), errors
    assert all(e.startswith("$.data.public_metrics") for e in errors), errors


def test_metrics_vocabularies_differ(o159: Oracle, o167: Oracle) -> None:
    # The tweet vocabulary counts retweets; a post-vocabulary body must not pass there.
    tweet_metrics = {"retweet_count": 1, "reply_count": 2, "like_count": 3, "quote_count": 4,
                     "impression_count": 5, "bookmark_count": 6}  # fmt: skip
    assert (
        o159.validate_response(
            "GET", "/2/tweets/1", 200, {"data": _post("tweet", public_metrics=tweet_metrics)}
        )
        == []
    )
    errors = o159.validate_response(
        "GET", "/2/tweets/1", 200, {"data": _post("tweet", public_metrics=METRICS_167)}
    )
    assert any("'retweet_count' is a required property" in e for e in errors), errors
    errors = o167.validate_response(
        "GET", "/2/tweets/1", 200, {"data": _post("post", public_metrics=tweet_metrics)}
    )
    assert any("'repost_count' is a required property" in e for e in errors), errors


def test_wrong_metric_type_fails(o167: Oracle) -> None:
    body = {"data": _post("post", public_metrics={**METRICS_167, "like_count": "3"})}
    errors = o167.validate_response("GET", "/2/tweets/1", 200, body)
    assert errors == ["$.data.public_metrics.like_count: '3' is not of type 'integer'"]


def test_invalid_request_problem_validates_for_400_in_2167(o167: Oracle) -> None:
    # No 400 entry exists: every operation documents errors under `default`, and only the
    # application/problem+json media type carries the Problem schema (type, title, detail required).
    problem = {
        "type": f"{X_PROBLEMS}/invalid-request",
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "errors": [
            {"parameters": {"id": ["abc"]}, "message": "The `id` query parameter value [abc] is not valid"}
        ],
    }
    assert o167.validate_response("GET", "/2/tweets/abc", 400, problem, "application/problem+json") == []
    assert_conforms("GET", "/2/tweets/abc", 400, problem, "post", "application/problem+json; charset=utf-8")

    missing_detail = {k: v for k, v in problem.items() if k != "detail"}
    errors = o167.validate_response("GET", "/2/tweets/abc", 400, missing_detail, "application/problem+json")
    # The subtype named by `type` decides, so the complaint is specific rather than "no branch matched".
    assert errors == ["$: 'detail' is a required property"]


def test_problem_sent_as_plain_json_is_checked_against_error(o167: Oracle) -> None:
    # `default` + application/json is the legacy {code, message} Error: a problem document served
    # with that content type does not conform.
    problem = {"type": f"{X_PROBLEMS}/invalid-request", "title": "Invalid Request", "detail": "x"}
    errors = o167.validate_response("GET", "/2/tweets/abc", 400, problem, "application/json")
    assert "$: 'code' is a required property" in errors
    assert o167.validate_response("GET", "/2/tweets/abc", 400, {"code": 88, "message": "Rate limit"}) == []


def test_invalid_request_problem_validates_for_400_in_2159(o159: Oracle) -> None:
    problem = {
        "errors": [
            {"parameters": {"tweet.fields": ["foo"]}, "message": "The `tweet.fields` query parameter..."}
        ],
        "title": "Invalid Request",
        "detail": "One or more parameters to your request was invalid.",
        "type": f"{TWITTER_PROBLEMS}/invalid-request",
    }
    assert o159.validate_response("GET", "/2/tweets/1", 400, problem, "application/problem+json") == []
    errors = o159.validate_response("GET", "/2/tweets/1", 400, {"detail": "x"}, "application/problem+json")
    assert sorted(errors) == ["$: 'title' is a required property", "$: 'type' is a required property"]


def test_problems_inside_errors_array(o167: Oracle) -> None:
    not_found = {
        "value": "1",
        "detail": "Could not find tweet with id: [1].",
        "title": "Not Found Error",
        "resource_type": "tweet",
        "parameter": "id",
        "resource_id": "1",
        "type": f"{X_PROBLEMS}/resource-not-found",
    }
    assert o167.validate_response("GET", "/2/tweets/1", 200, {"errors": [not_found]}) == []
    no_resource_type = {k: v for k, v in not_found.items() if k != "resource_type"}
    errors = o167.validate_response("GET", "/2/tweets/1", 200, {"errors": [no_resource_type]})
    assert errors == ["$.errors[0]: 'resource_type' is a required property"]
    # 2.167 lists no problem with this type, so nothing can accept it.
    unknown = {**not_found, "type": "about:blank"}
    errors = o167.validate_response("GET", "/2/tweets/1", 200, {"errors": [unknown]})
    assert len(errors) == 1 and "not valid under any of the given schemas" in errors[0]


@pytest.mark.parametrize(
    ("method", "path", "template"),
    [
        ("GET", "/2/users/me", "/2/users/me"),
        ("GET", "/2/users/2244994945", "/2/users/{id}"),
        ("GET", "/2/users/by/username/jack", "/2/users/by/username/{username}"),
        ("GET", "/2/users/by?usernames=jack,x", "/2/users/by"),
        ("GET", "/2/tweets/123?tweet.fields=public_metrics", "/2/tweets/{id}"),
        ("get", "/2/tweets/search/recent", "/2/tweets/search/recent"),
        ("DELETE", "/2/users/1/likes/2", "/2/users/{id}/likes/{tweet_id}"),
        ("GET", "https://api.x.com/2/tweets/9", "/2/tweets/{id}"),
    ],
)
def test_find_operation(o167: Oracle, method: str, path: str, template: str) -> None:
    found = o167.find_operation(method, path)
    assert found is not None and found[0] == template


def test_find_operation_misses(o167: Oracle) -> None:
    assert o167.find_operation("GET", "/2/nothing/here") is None
    assert o167.find_operation("PATCH", "/2/tweets/1") is None  # path exists, method does not
    assert o167.find_operation("GET", "/2/tweets/1/extra/segments/x") is None


def test_unknown_path_is_one_error(o167: Oracle) -> None:
    errors = o167.validate_response("GET", "/2/nothing/here", 200, {})
    assert len(errors) == 1 and "no operation GET /2/nothing/here" in errors[0]
    with pytest.raises(pytest.fail.Exception, match="no operation"):
        assert_conforms("GET", "/2/nothing/here", 200, {}, vocabulary="post")


def test_operations_lists_every_operation(o167: Oracle) -> None:
    operations = o167.operations()
    expected = sum(
        1
        for item in o167.document["paths"].values()
        for key in item
        if key in {"get", "post", "put", "delete", "patch"}
    )
    assert len(operations) == expected
    assert any(m == "GET" and t == "/2/tweets/{id}" and op.get("operationId") for m, t, op in operations)
    assert all(m.isupper() for m, _, _ in operations)


def test_load_is_cached(o167: Oracle) -> None:
    assert Oracle.load("2.167") is o167


def test_unknown_vocabulary_is_an_error() -> None:
    with pytest.raises(ValueError, match="vocabulary"):
        assert_conforms("GET", "/2/tweets/1", 200, {}, vocabulary="toot")


# --------------------------------------------------------------------------- absent documents


@pytest.fixture
def empty_shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("ROOST_SHARED_DIR", str(tmp_path))
    Oracle.clear_cache()
    yield tmp_path
    Oracle.clear_cache()


def test_missing_documents_raise_spec_unavailable(empty_shared: Path) -> None:
    with pytest.raises(SpecUnavailable, match=r"openapi-2\.167\.json"):
        Oracle.load("2.167")


@pytest.mark.parametrize("vocabulary", ["post", "tweet"])
def test_assert_conforms_skips_without_documents(empty_shared: Path, vocabulary: str) -> None:
    with pytest.raises(pytest.skip.Exception, match=rf"openapi-{VOCABULARIES[vocabulary]}\.json not found"):
        assert_conforms("GET", "/2/tweets/1", 200, {"data": {"id": 1}}, vocabulary=vocabulary)


def test_shared_dir_variable_accepts_shared_or_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    try:
        real = spec_path("2.167")
    except SpecUnavailable as exc:
        pytest.skip(str(exc))
    reference = real.parent
    for value in (reference.parent, reference):
        monkeypatch.setenv("ROOST_SHARED_DIR", str(value))
        assert spec_path("2.167") == real


@pytest.mark.skipif(bool(os.environ.get(_IN_SUBPROCESS)), reason="already the child run")
def test_this_module_skips_cleanly_without_documents(tmp_path: Path) -> None:
    # Run this very file against an empty shared dir: nothing may fail, the spec tests must skip
    # with their reason visible.
    env = {**os.environ, "ROOST_SHARED_DIR": str(tmp_path), _IN_SUBPROCESS: "1"}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(Path(__file__)), "-rs", "-p", "no:cacheprovider"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    summary = output.strip().splitlines()[-1]
    assert re.search(r"\d+ passed, \d+ skipped", summary) and "failed" not in summary, output
    assert "SKIPPED" in output and "openapi-2.167.json not found" in output, output


# --------------------------------------------------------------------------- synthetic documents


def _synthetic(schema: dict[str, Any], responses: dict[str, Any] | None = None, **schemas: Any) -> Oracle:
    """A one-operation document, so that OpenAPI features are tested independently of the real ones."""
    if responses is None:
        responses = {"200": {"description": "ok", "content": {"application/json": {"schema": schema}}}}
    document = {
        "openapi": "3.0.0",
        "info": {"title": "t", "version": "0"},
        "paths": {"/2/things/{id}": {"get": {"operationId": "getThing", "responses": responses}}},
        "components": {"schemas": schemas},
    }
    return Oracle(document, "synthetic")


def _check(
    oracle: Oracle, body: object, status: int = 200, content_type: str = "application/json"
) -> list[str]:
    return oracle.validate_response("GET", "/2/things/1", status, body, content_type)


def test_nullable() -> None:
    oracle = _synthetic(
        {
            "type": "object",
            "properties": {
                "plain": {"type": "string"},
                "maybe": {"type": "string", "nullable": True},
                "choice": {"type": "string", "enum": ["a", "b"], "nullable": True},
                "ref": {"$ref": "#/components/schemas/Thing", "nullable": True},
                "union": {"oneOf": [{"type": "integer"}, {"type": "string"}], "nullable": True},
            },
        },
        Thing={"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}},
    )
    assert _check(oracle, {"maybe": None, "choice": None, "ref": None, "union": None}) == []
    assert _check(oracle, {"choice": "a", "ref": {"id": "1"}, "union": 3}) == []
    assert _check(oracle, {"plain": None}) == ["$.plain: None is not of type 'string'"]
    assert _check(oracle, {"choice": "c"}) != []
    assert _check(oracle, {"ref": {}}) != []


def test_one_of_prefers_the_branch_named_by_type() -> None:
    # Branch B accepts any object, so strict oneOf would reject bodies that A also accepts.
    oracle = _synthetic(
        {"$ref": "#/components/schemas/Problem"},
        Problem={"oneOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]},
        A={
            "type": "object",
            "required": ["type", "x"],
            "properties": {"type": {"type": "string", "enum": ["urn:a"]}, "x": {"type": "string"}},
        },
        B={"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}},
    )
    assert _check(oracle, {"type": "urn:a", "x": "1"}) == []  # matches A and B: still valid
    assert _check(oracle, {"type": "urn:a"}) == ["$: 'x' is a required property"]  # A decides, B can't rescue
    assert _check(oracle, {"type": "urn:other"}) == []  # no branch named: any branch will do
    errors = _check(oracle, {"title": "no type"})
    assert len(errors) == 1 and "not valid under any" in errors[0]


def test_one_of_tags_through_all_of() -> None:
    # 2.159-style subtypes: allOf [base, extension] with the enum in the extension.
    oracle = _synthetic(
        {"oneOf": [{"$ref": "#/components/schemas/Sub"}, {"type": "object"}]},
        Base={"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}},
        Sub={
            "allOf": [
                {"$ref": "#/components/schemas/Base"},
                {
                    "type": "object",
                    "required": ["n"],
                    "properties": {"type": {"enum": ["s"]}, "n": {"type": "integer"}},
                },
            ]
        },
    )
    assert _check(oracle, {"type": "s", "n": 1}) == []
    assert _check(oracle, {"type": "s"}) == ["$: 'n' is a required property"]


def test_formats_and_annotations() -> None:
    oracle = _synthetic(
        {
            "type": "object",
            "example": {"when": 12},
            "x-internal": {"type": "integer"},
            "properties": {
                "when": {"type": "string", "format": "date-time", "example": "not a date"},
                "count": {"type": "integer", "format": "int32"},
                "blob": {"type": "string", "format": "binary-ish-unknown"},
                "example": {"type": "string"},  # a property *named* like an annotation keyword
                "secret": {"type": "string", "writeOnly": True},
                "ro": {"type": "string", "readOnly": True},
            },
            "required": ["secret", "example"],
            "discriminator": {"propertyName": "kind"},
        }
    )
    assert (
        _check(
            oracle, {"when": "2021-10-07T07:41:18.000Z", "count": 5, "blob": "?", "example": "e", "ro": "r"}
        )
        == []
    )
    assert _check(oracle, {"when": "2021-10-07 07:41", "example": "e"}) == [
        "$.when: '2021-10-07 07:41' is not a 'date-time'"
    ]
    assert _check(oracle, {"count": 2**40, "example": "e"}) == [f"$.count: {2**40} is not a 'int32'"]
    assert _check(oracle, {}) == ["$: 'example' is a required property"]  # writeOnly not required here


def test_status_and_media_selection() -> None:
    json_only = {"application/json": {"schema": {"type": "object", "required": ["ok"]}}}
    responses = {
        "200": {"description": "ok", "content": json_only},
        "4XX": {
            "description": "ranged",
            "content": {"application/json": {"schema": {"required": ["ranged"]}}},
        },
        "default": {
            "description": "failed",
            "content": {
                "application/json": {"schema": {"required": ["code"]}},
                "application/problem+json": {"schema": {"required": ["type"]}},
            },
        },
        "204": {"description": "no content"},
        "201": {"$ref": "#/components/responses/Created"},
    }
    oracle = _synthetic({}, responses)
    oracle.document["components"]["responses"] = {"Created": {"description": "c", "content": json_only}}
    assert _check(oracle, {"ok": 1}) == []
    assert _check(oracle, {"ok": 1}, content_type="application/problem+json") == []  # falls back to JSON
    assert _check(oracle, {}, 201) == ["$: 'ok' is a required property"]  # through the response $ref
    assert _check(oracle, {"ranged": 1}, 404) == []
    assert _check(oracle, {"code": 1}, 500) == []
    assert _check(oracle, {"type": "t"}, 500, "application/problem+json") == []
    assert _check(oracle, {"type": "t"}, 500) == ["$: 'code' is a required property"]
    assert _check(oracle, None, 204) == []
    assert len(_check(oracle, {"unexpected": 1}, 204)) == 1

    no_default = _synthetic({}, {"200": {"description": "ok"}})
    errors = _check(no_default, {}, 418)
    assert len(errors) == 1 and "status 418 is not documented" in errors[0]


def test_validators_are_cached() -> None:
    oracle = _synthetic({"type": "object"})
    for _ in range(3):
        assert _check(oracle, {}) == []
    assert len(oracle._validators) == 1


def test_unresolvable_reference_is_reported_not_raised() -> None:
    oracle = _synthetic({"$ref": "#/components/schemas/Missing"})
    errors = _check(oracle, {})
    assert len(errors) == 1 and "could not validate" in errors[0]


# --------------------------------------------------------------------------- scripts/coverage.py


@pytest.fixture(scope="module")
def coverage_script() -> ModuleType:
    path = REPO_ROOT / "scripts" / "coverage.py"
    spec = importlib.util.spec_from_file_location("roost_scripts_coverage", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


OFFICIAL = [
    ("GET", "/2/tweets/{id}", "Posts", "getPostsById"),
    ("DELETE", "/2/tweets/{id}", "Posts", "deletePosts"),
    ("GET", "/2/tweets", "Posts", "getPostsByIds"),
    ("GET", "/2/users/{id}", "Users", "getUsersById"),
    ("GET", "/2/users/me", "Users", "getUsersMe"),
    ("POST", "/2/dm_conversations", "Direct Messages", "createDirectMessagesConversation"),
]
IMPLEMENTED = {
    ("GET", "/2/tweets/{tweet_id}"),  # different parameter name: still the same operation
    ("GET", "/2/tweets"),
    ("POST", "/2/users/me"),  # right path, wrong method: not a match
    ("GET", "/2/users/me"),
    ("GET", "/2/extra/{x}"),
    ("POST", "/_roost/reset"),  # control plane: never listed
}


def test_render_coverage_counts(coverage_script: ModuleType) -> None:
    text = coverage_script.render_coverage(OFFICIAL, IMPLEMENTED)
    assert "**3 of 6** official API v2 operations implemented (50%)" in text
    assert "| [Posts](#posts) | 2 | 3 | 67% |" in text
    assert "| [Users](#users) | 1 | 2 | 50% |" in text
    assert "| [Direct Messages](#direct-messages) | 0 | 1 | 0% |" in text
    assert "| **All** | **3** | **6** | **50%** |" in text
    assert "| GET | `/2/tweets/{id}` | getPostsById | yes |" in text
    assert "| DELETE | `/2/tweets/{id}` | deletePosts | no |" in text
    assert "| GET | `/2/users/{id}` | getUsersById | no |" in text
    assert "| GET | `/2/users/me` | getUsersMe | yes |" in text


def test_render_coverage_groups_and_extras(coverage_script: ModuleType) -> None:
    text = coverage_script.render_coverage(OFFICIAL, IMPLEMENTED)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == [
        "## Direct Messages",
        "## Posts",
        "## Users",
        "## Roost operations not in the official document",
    ]
    extras = text.split("## Roost operations not in the official document", 1)[1]
    assert "| GET | `/2/extra/{x}` |" in extras
    assert "| POST | `/2/users/me` |" in extras
    assert "_roost" not in text
    # Within a tag: by path, then GET before DELETE.
    posts = text.split("## Posts", 1)[1].split("## Users", 1)[0]
    assert posts.index("`/2/tweets` ") < posts.index("| GET | `/2/tweets/{id}`") < posts.index("| DELETE |")
    assert text.endswith("\n") and text == coverage_script.render_coverage(
        list(reversed(OFFICIAL)), IMPLEMENTED
    )


def test_render_coverage_edge_cases(coverage_script: ModuleType) -> None:
    empty = coverage_script.render_coverage([], set())
    assert "**0 of 0**" in empty and "None." in empty
    nothing_done = coverage_script.render_coverage(OFFICIAL, {("POST", "/_roost/time")})
    assert "**0 of 6**" in nothing_done and nothing_done.rstrip().endswith("None.")


def test_coverage_main_write_and_check(
    coverage_script: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(coverage_script, "spec_file", lambda version="2.167": tmp_path / "unused.json")
    monkeypatch.setattr(coverage_script, "load_official", lambda path: OFFICIAL)
    monkeypatch.setattr(coverage_script, "load_implemented", lambda: IMPLEMENTED)
    out = tmp_path / "docs" / "coverage.md"
    assert coverage_script.main(["--check", "--output", str(out)]) == 1  # missing file is out of date
    assert coverage_script.main(["--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == coverage_script.render_coverage(OFFICIAL, IMPLEMENTED)
    assert coverage_script.main(["--check", "--output", str(out)]) == 0
    out.write_text("stale\n", encoding="utf-8")
    assert coverage_script.main(["--check", "--output", str(out)]) == 1
    assert "out of date" in capsys.readouterr().err


def test_coverage_main_explains_missing_registry(
    coverage_script: ModuleType,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(coverage_script, "spec_file", lambda version="2.167": tmp_path / "unused.json")
    monkeypatch.setattr(coverage_script, "load_official", lambda path: OFFICIAL)
    monkeypatch.setitem(sys.modules, "roost.platform.registry", None)  # makes the import fail
    assert coverage_script.main(["--output", str(tmp_path / "c.md")]) == 2
    assert "cannot import roost.platform.registry" in capsys.readouterr().err
    assert not (tmp_path / "c.md").exists()


def test_coverage_load_official_reads_the_real_document(coverage_script: ModuleType) -> None:
    try:
        path = spec_path("2.167")
    except SpecUnavailable as exc:
        pytest.skip(str(exc))
    official = coverage_script.load_official(path)
    assert ("GET", "/2/tweets/{id}", "Posts", "getPostsById") in official
    assert len(official) == len(Oracle.load("2.167").operations())


def test_coverage_counts_the_openapi_document_served_as_a_page(coverage_script: ModuleType) -> None:
    # getOpenApiSpec is answered by app.py's pages, not the v2 operation table.
    implemented = coverage_script.load_implemented()
    assert ("GET", "/2/openapi.json") in implemented
    text = coverage_script.render_coverage(
        [("GET", "/2/openapi.json", "General", "getOpenApiSpec")], implemented
    )
    assert "| GET | `/2/openapi.json` | getOpenApiSpec | yes |" in text
