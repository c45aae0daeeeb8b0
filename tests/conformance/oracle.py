"""The official OpenAPI documents as a test oracle for roost's responses.

The documents live outside the project (``../shared/reference/`` next to the repository, or under
``$ROOST_SHARED_DIR``); they are read at run time and never copied in. OpenAPI 3.0 schemas are
translated once per document into JSON Schema draft 4 (the draft OpenAPI 3.0 is closest to), and
one validator is built lazily per (template, method, status key, media type).
"""

from __future__ import annotations

import copy
import json
import os
import re
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit

import pytest
from jsonschema import Draft4Validator, FormatChecker, ValidationError
from jsonschema.exceptions import best_match
from jsonschema.protocols import Validator
from jsonschema.validators import extend
from referencing import Registry
from referencing.jsonschema import DRAFT4

__all__ = ["VOCABULARIES", "Oracle", "SpecUnavailable", "assert_conforms", "reference_dirs", "spec_path"]

# Which document speaks which vocabulary ("post" naming arrived with 2.167).
VOCABULARIES: dict[str, str] = {"post": "2.167", "tweet": "2.159"}

_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# Keywords whose values are schemas (or lists/maps of schemas): only these are walked, so that a
# property *named* "example" or "x-foo" is never mistaken for an annotation.
_SCHEMA_MAP_KEYWORDS = ("properties", "patternProperties", "definitions")
_SCHEMA_LIST_KEYWORDS = ("allOf", "anyOf", "oneOf")
_SCHEMA_KEYWORDS = ("not", "additionalProperties", "items", "additionalItems")
# OpenAPI-only annotations that JSON Schema would ignore or misread.
_DROPPED_KEYWORDS = frozenset(
    {
        "nullable",
        "discriminator",
        "example",
        "examples",
        "xml",
        "externalDocs",
        "deprecated",
        "readOnly",
        "writeOnly",
    }
)
_TAG_KEYWORD = "x-roost-tags"  # sibling of a translated oneOf: the branches' `type` enums
_MAX_MESSAGE = 400


class SpecUnavailable(Exception):
    """The official document is not on disk (shared/ absent): tests must skip, not fail."""


def reference_dirs() -> list[Path]:
    """Directories searched for the documents, in order."""
    shared = os.environ.get("ROOST_SHARED_DIR", "").strip()
    if shared:
        # The variable names the shared/ directory; tolerate it naming shared/reference/ itself.
        return [Path(shared) / "reference", Path(shared)]
    repo_root = Path(__file__).resolve().parents[2]
    return [(repo_root / ".." / "shared" / "reference").resolve()]


def spec_path(version: str) -> Path:
    """Path of ``openapi-<version>.json``; raises SpecUnavailable when no candidate holds it."""
    name = f"openapi-{version}.json"
    dirs = reference_dirs()
    for directory in dirs:
        candidate = directory / name
        if candidate.is_file():
            return candidate.resolve()
    looked = ", ".join(str(d) for d in dirs)
    raise SpecUnavailable(
        f"official OpenAPI document {name} not found (looked in {looked}); "
        "set ROOST_SHARED_DIR to the shared/ directory holding reference/"
    )


# --------------------------------------------------------------------------- OpenAPI -> JSON Schema


def _unescape_pointer(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _resolve_local(document: Mapping[str, Any], ref: str) -> Any:
    """Follow a ``#/...`` reference inside the raw document (None when it points nowhere)."""
    if not ref.startswith("#/"):
        return None
    node: Any = document
    for token in ref[2:].split("/"):
        token = _unescape_pointer(token)
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _enum_of(
    document: Mapping[str, Any], schema: Any, prop: str, seen: frozenset[str] = frozenset()
) -> set[Any]:
    """Values a branch pins ``prop`` to (via enum), following $ref and allOf; empty when unpinned."""
    if not isinstance(schema, Mapping):
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str):
        if ref in seen:  # recursive schemas: stop rather than loop
            return set()
        return _enum_of(document, _resolve_local(document, ref), prop, seen | {ref})
    values: set[Any] = set()
    prop_schema = (
        schema.get("properties", {}).get(prop) if isinstance(schema.get("properties"), Mapping) else None
    )
    if isinstance(prop_schema, Mapping):
        if isinstance(prop_schema.get("$ref"), str):
            prop_schema = _resolve_local(document, prop_schema["$ref"]) or {}
        enum = prop_schema.get("enum")
        if isinstance(enum, list):
            values.update(v for v in enum if isinstance(v, str | int | float | bool))
    for part in schema.get("allOf", []) or []:
        values |= _enum_of(document, part, prop, seen)
    return values


class _Translator:
    """Rewrites OpenAPI 3.0 schema objects into draft-4 JSON Schema with absolute $refs."""

    def __init__(self, document: Mapping[str, Any], base_uri: str) -> None:
        self.document = document
        self.base_uri = base_uri

    def schema(self, node: Any) -> Any:
        if not isinstance(node, Mapping):
            return node  # booleans (additionalProperties: false) and oddities pass through
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED_KEYWORDS or key.startswith("x-"):
                continue
            if key == "$ref" and isinstance(value, str):
                # Absolute refs resolve through the registry whatever schema is the validator's root.
                out[key] = self.base_uri + value if value.startswith("#") else value
            elif key in _SCHEMA_MAP_KEYWORDS and isinstance(value, Mapping):
                out[key] = {name: self.schema(sub) for name, sub in value.items()}
            elif key in _SCHEMA_LIST_KEYWORDS and isinstance(value, list):
                out[key] = [self.schema(sub) for sub in value]
            elif key in _SCHEMA_KEYWORDS:
                out[key] = [self.schema(s) for s in value] if isinstance(value, list) else self.schema(value)
            else:
                out[key] = copy.deepcopy(value)
        self._drop_write_only_required(node, out)
        if isinstance(node.get("oneOf"), list):
            out[_TAG_KEYWORD] = self._branch_tags(node)
        if node.get("nullable") is True:
            out = self._nullable(out)
        return out

    @staticmethod
    def _drop_write_only_required(node: Mapping[str, Any], out: dict[str, Any]) -> None:
        # OpenAPI 3.0: a required writeOnly property is required in requests only.
        props = node.get("properties")
        required = out.get("required")
        if not isinstance(props, Mapping) or not isinstance(required, list):
            return
        write_only = {n for n, s in props.items() if isinstance(s, Mapping) and s.get("writeOnly") is True}
        if write_only:
            out["required"] = [n for n in required if n not in write_only]
            if not out["required"]:
                del out["required"]  # draft 4 forbids an empty required array

    def _branch_tags(self, node: Mapping[str, Any]) -> dict[str, Any]:
        discriminator = node.get("discriminator")
        prop = "type"
        if isinstance(discriminator, Mapping):
            name = discriminator.get("propertyName")
            if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                prop = name  # only the property name is borrowed; the mapping is not trusted
        values = [sorted(_enum_of(self.document, b, prop), key=repr) or None for b in node["oneOf"]]
        return {"property": prop, "values": values}

    @staticmethod
    def _nullable(out: dict[str, Any]) -> dict[str, Any]:
        kind = out.get("type")
        if "$ref" not in out and isinstance(kind, str):
            out["type"] = [kind, "null"]
            if isinstance(out.get("enum"), list) and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
            return out
        if "$ref" not in out and isinstance(kind, list):
            out["type"] = [*kind, "null"] if "null" not in kind else kind
            return out
        # No type of its own ($ref, oneOf, allOf...): null is an alternative to the whole schema.
        return {"anyOf": [{"type": "null"}, out]}


# --------------------------------------------------------------------------- custom keywords


def _one_of(
    validator: Validator, one_of: list[Any], instance: Any, schema: Mapping[str, Any]
) -> Iterator[ValidationError]:
    """oneOf as the spec means it rather than as it is written.

    Problem oneOfs overlap (several subtypes can accept one body), so strict "exactly one" would
    reject real bodies. A branch whose `type` enum names the body's type is authoritative (and
    its own errors are the useful ones); otherwise one passing branch is enough.
    """
    tags = schema.get(_TAG_KEYWORD) or {}
    prop = tags.get("property", "type")
    values: list[list[Any] | None] = tags.get("values") or [None] * len(one_of)
    candidates = list(enumerate(one_of))
    if isinstance(instance, Mapping) and prop in instance:
        tagged = [(i, b) for i, b in candidates if values[i] is not None and instance[prop] in values[i]]
        if tagged:
            candidates = tagged
    all_errors: list[ValidationError] = []
    for index, branch in candidates:
        errors = list(validator.descend(instance, branch, schema_path=index))
        if not errors:
            return
        all_errors.extend(errors)
    if len(candidates) == 1 and len(one_of) > 1:
        yield from all_errors  # the body named its subtype: report that subtype's complaints
        return
    yield ValidationError(f"{instance!r} is not valid under any of the given schemas", context=all_errors)


_FORMATS = FormatChecker(formats=())


@_FORMATS.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    # RFC 3339 needs a date, a 'T', a time and an offset; fromisoformat alone is too lenient.
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", value):
        return False
    datetime.fromisoformat(value.replace("z", "Z").replace("t", "T").replace("Z", "+00:00"))
    return True


@_FORMATS.checks("int32")
def _is_int32(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**31) <= value < 2**31


@_FORMATS.checks("int64")
def _is_int64(value: object) -> bool:
    return not isinstance(value, int) or isinstance(value, bool) or -(2**63) <= value < 2**63


# Unknown formats (uri, binary, int-as-string...) are not registered, hence ignored.
_OpenAPIValidator = extend(Draft4Validator, validators={"oneOf": _one_of})


# --------------------------------------------------------------------------- error formatting


def _json_path(error: ValidationError) -> str:
    out = "$"
    for part in error.absolute_path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}"
        else:
            out += f"[{part!r}]"
    return out


def _short(text: str) -> str:
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 3] + "..."


def _describe(error: ValidationError) -> str:
    text = f"{_json_path(error)}: {_short(error.message)}"
    if error.context:
        # anyOf/oneOf failures: say which nested complaint is the most likely real cause.
        closest = best_match(error.context)
        if closest is not None:
            text += f" (closest: {_json_path(closest)}: {_short(closest.message)})"
    return text


# --------------------------------------------------------------------------- the oracle


class _Route:
    __slots__ = ("method", "operation", "pattern", "rank", "template")

    def __init__(self, method: str, template: str, operation: dict[str, Any]) -> None:
        self.method = method
        self.template = template
        self.operation = operation
        segments = template.strip("/").split("/")
        parts: list[str] = []
        rank: list[int] = []
        for segment in segments:
            if re.fullmatch(r"\{[^{}/]+\}", segment):
                parts.append("[^/]+")
                rank.append(0)
            elif "{" in segment:  # e.g. {id}.json: partly literal
                parts.append(re.sub(r"\\\{[^{}/]+\\\}", "[^/]+", re.escape(segment)))
                rank.append(1)
            else:
                parts.append(re.escape(segment))
                rank.append(2)
        self.pattern = re.compile("/" + "/".join(parts))
        # Compared lexicographically: an earlier literal segment beats a parameter (/2/users/me).
        self.rank = tuple(rank)


class Oracle:
    """One official OpenAPI document, queried by request path and validated against lazily."""

    # Process-wide: parsing and translating ~800 KB of JSON once is plenty.
    _cache: ClassVar[dict[Path, Oracle]] = {}
    _cache_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, document: dict[str, Any], version: str) -> None:
        self.document = document
        self.version = version
        self._base_uri = f"urn:roost:openapi-{version}"
        self._translator = _Translator(document, self._base_uri)
        self._registry: Registry | None = None
        self._validators: dict[tuple[str, str, str, str], Validator | None] = {}
        self._routes: dict[str, list[_Route]] = {}
        for method, template, operation in self.operations():
            self._routes.setdefault(method, []).append(_Route(method, template, operation))

    @classmethod
    def load(cls, version: str) -> Oracle:
        """The document for `version` ("2.167", "2.159"), parsed once per process and path."""
        path = spec_path(version)
        with cls._cache_lock:
            oracle = cls._cache.get(path)
            if oracle is None:
                with path.open(encoding="utf-8") as handle:
                    oracle = cls(json.load(handle), version)
                cls._cache[path] = oracle
            return oracle

    @classmethod
    def clear_cache(cls) -> None:
        with cls._cache_lock:
            cls._cache.clear()

    def operations(self) -> list[tuple[str, str, dict[str, Any]]]:
        result: list[tuple[str, str, dict[str, Any]]] = []
        for template, item in (self.document.get("paths") or {}).items():
            if not isinstance(item, Mapping):
                continue
            for method in _HTTP_METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    result.append((method.upper(), template, operation))
        return result

    def find_operation(self, method: str, path: str) -> tuple[str, dict[str, Any]] | None:
        # Accept full URLs too, and never let a query string or fragment decide the match.
        raw = urlsplit(path).path if "://" in path else path.split("?", 1)[0].split("#", 1)[0]
        concrete = unquote(raw) if raw.startswith("/") else "/" + unquote(raw)
        best: _Route | None = None
        for route in self._routes.get(method.upper(), []):
            if route.pattern.fullmatch(concrete) and (best is None or route.rank > best.rank):
                best = route
        return None if best is None else (best.template, best.operation)

    def validate_response(
        self,
        method: str,
        path: str,
        status: int,
        body: object,
        content_type: str = "application/json",
    ) -> list[str]:
        found = self.find_operation(method, path)
        if found is None:
            return [f"no operation {method.upper()} {path} in the official document {self.version}"]
        template, operation = found
        responses = operation.get("responses") or {}
        status_key = next(
            (
                k
                for k in (str(status), f"{status // 100}XX", f"{status // 100}xx", "default")
                if k in responses
            ),
            None,
        )
        if status_key is None:
            documented = ", ".join(sorted(responses)) or "none"
            return [
                f"status {status} is not documented for {method.upper()} {template} in {self.version} "
                f"(documented: {documented})"
            ]
        response = self._deref(responses[status_key])
        content = response.get("content") if isinstance(response, Mapping) else None
        if not content:
            if body is None:
                return []
            return [f"{method.upper()} {template} {status_key} documents no body, but one was returned"]
        media = self._pick_media(content, content_type)
        validator = self._validator(template, method.upper(), status_key, media, content[media])
        if validator is None:
            return []  # media type documented without a schema: anything goes
        try:
            errors = sorted(
                validator.iter_errors(body), key=lambda e: ([str(p) for p in e.absolute_path], e.message)
            )
        except Exception as exc:  # unresolvable $ref and the like: a spec problem, reported not raised
            return [f"could not validate against {method.upper()} {template} {status_key} {media}: {exc}"]
        return [_describe(e) for e in errors]

    # ------------------------------------------------------------------ internals

    def _deref(self, node: Any) -> Any:
        """Follow response-object $refs (#/components/responses/...) in the raw document."""
        seen: set[str] = set()
        while isinstance(node, Mapping) and isinstance(node.get("$ref"), str) and node["$ref"] not in seen:
            seen.add(node["$ref"])
            node = _resolve_local(self.document, node["$ref"])
        return node

    @staticmethod
    def _pick_media(content: Mapping[str, Any], content_type: str) -> str:
        wanted = content_type.split(";", 1)[0].strip().lower()
        lowered = {k.lower(): k for k in content}
        if wanted in lowered:
            return lowered[wanted]
        for fallback in ("application/json", "application/problem+json"):
            if fallback in lowered:
                return lowered[fallback]
        return next(iter(content))

    def _registry_for(self) -> Registry:
        if self._registry is None:
            components = self.document.get("components") or {}
            schemas = {
                name: self._translator.schema(s) for name, s in (components.get("schemas") or {}).items()
            }
            resource = DRAFT4.create_resource({"components": {"schemas": schemas}})
            self._registry = Registry().with_resource(self._base_uri, resource)
        return self._registry

    def _validator(
        self, template: str, method: str, status_key: str, media: str, media_object: Mapping[str, Any]
    ) -> Validator | None:
        key = (template, method, status_key, media)
        if key not in self._validators:
            raw = media_object.get("schema") if isinstance(media_object, Mapping) else None
            if raw is None:
                self._validators[key] = None
            else:
                schema = self._translator.schema(raw)
                self._validators[key] = _OpenAPIValidator(
                    schema, registry=self._registry_for(), format_checker=_FORMATS
                )
        return self._validators[key]


def assert_conforms(
    method: str,
    path: str,
    status: int,
    body: object,
    vocabulary: str = "tweet",
    content_type: str = "application/json",
) -> None:
    """Fail the calling test unless `body` matches the official document of `vocabulary`."""
    try:
        version = VOCABULARIES[vocabulary]
    except KeyError:
        raise ValueError(
            f"unknown vocabulary {vocabulary!r}; expected one of {sorted(VOCABULARIES)}"
        ) from None
    try:
        oracle = Oracle.load(version)
    except SpecUnavailable as exc:
        pytest.skip(str(exc))
    errors = oracle.validate_response(method, path, status, body, content_type)
    if errors:
        found = oracle.find_operation(method, path)
        where = f"{method.upper()} {found[0] if found else path} -> {status} ({content_type})"
        listed = "\n".join(f"  - {e}" for e in errors)
        pytest.fail(f"response does not conform to OpenAPI {version} for {where}:\n{listed}", pytrace=False)
