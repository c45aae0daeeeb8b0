"""HTTP client for API tests: every response from an implemented operation is checked against the
official OpenAPI documents (post vocabulary → 2.167, tweet vocabulary → 2.159)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlsplit

import httpx
from tests.conformance.oracle import Oracle, SpecUnavailable

from roost.auth.oauth1 import sign_request

POST_VOCAB_MARKERS = (
    "post.fields",
    "referenced_posts",
    "edit_history_post_ids",
    "pinned_post_id",
    "most_recent_post_id",
    "post_count",  # search_count.fields
)


class ConformanceFailure(AssertionError):
    pass


def _is_coded(body: Any) -> bool:
    return (
        isinstance(body, dict)
        and set(body) == {"errors"}
        and isinstance(body["errors"], list)
        and all(isinstance(item, dict) and "code" in item for item in body["errors"])
    )


def vocabulary_of(url: str) -> str:
    query = urlsplit(url).query
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name == "post.fields" or any(marker in value for marker in POST_VOCAB_MARKERS):
            return "post"
    return "tweet"


class Api:
    """A thin httpx wrapper with credential helpers; `checked` records conformance results."""

    def __init__(self, base_url: str, credentials: dict[str, Any], check: bool = True) -> None:
        self.base_url = base_url
        self.creds = credentials
        self.http = httpx.Client(base_url=base_url, timeout=30)
        self.check = check
        self.checked = 0

    def close(self) -> None:
        self.http.close()

    # ---- credentials ----------------------------------------------------------------------------

    def bearer(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.creds['bearer_token']}"}

    def oauth2(self, token: str | None = None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token or self.creds['oauth2_user_token']}"}

    def oauth1(
        self,
        method: str,
        path: str,
        token: str | None = None,
        secret: str | None = None,
        form: list[tuple[str, str]] | None = None,
        consumer_secret: str | None = None,
        **kwargs: Any,
    ) -> dict[str, str]:
        header = sign_request(
            method,
            self.base_url + path,
            self.creds["consumer_key"],
            consumer_secret or self.creds["consumer_secret"],
            token=token or self.creds["access_token"],
            token_secret=secret or self.creds["access_token_secret"],
            extra_params=form,
            **kwargs,
        )
        return {"Authorization": header}

    # ---- requests -------------------------------------------------------------------------------

    def request(
        self, method: str, path: str, *, auth: str = "app", conform: bool = True, **kwargs: Any
    ) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if auth == "app":
            headers.update(self.bearer())
        elif auth == "oauth2":
            headers.update(self.oauth2())
        elif auth == "oauth1":
            full = path
            params = kwargs.get("params")
            if params:
                full = str(httpx.URL(path, params=params))
            headers.update(self.oauth1(method, full))
        response = self.http.request(method, path, headers=headers, **kwargs)
        if conform and self.check:
            self.conforms(response)
        return response

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)

    def conforms(self, response: httpx.Response) -> None:
        """Validate a v2 response against the official document of the request's vocabulary."""
        request = response.request
        path = request.url.path
        if not path.startswith("/2/") or path == "/2/openapi.json":
            return
        vocabulary = vocabulary_of(str(request.url)) if response.status_code < 400 else "tweet"
        version = {"post": "2.167", "tweet": "2.159"}[vocabulary]
        try:
            oracle = Oracle.load(version)
        except SpecUnavailable:
            return
        found = oracle.find_operation(request.method, path)
        if version != "2.167" and (path.startswith("/2/chat/") or path.endswith("/public_keys")):
            # Encrypted chat is held to 2.167: 2.159 had an earlier draft of it with other shapes, and
            # `/2/users/public_keys` would fit its `/2/users/{id}` (docs/decisions.md, issue 22).
            oracle, version = Oracle.load("2.167"), "2.167"
            found = oracle.find_operation(request.method, path)
        if found is None:
            return
        content_type = response.headers.get("content-type", "application/json")
        body = response.json()
        if _is_coded(body):
            # The platform sends v1.1-style `{"errors":[{code,message}]}`; each item is the spec's Error.
            problems = [
                problem
                for item in body["errors"]
                for problem in oracle.validate_response(request.method, path, response.status_code, item)
            ]
        else:
            problems = oracle.validate_response(
                request.method, path, response.status_code, body, content_type
            )
        self.checked += 1
        if problems:
            raise ConformanceFailure(
                f"{request.method} {request.url} → {response.status_code} does not conform to {version}:\n"
                + "\n".join(problems)
                + f"\nbody: {response.text[:2000]}"
            )
