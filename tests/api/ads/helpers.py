"""An OAuth 1.0a-signing client for the ads API, as the ads SDKs call it: parameters in the query
string (or a form body), JSON bodies only for batch and audience estimate."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import httpx

from roost.auth.oauth1 import sign_request

Params = Mapping[str, Any] | Sequence[tuple[str, Any]]


def _pairs(params: Params | None) -> list[tuple[str, str]]:
    if not params:
        return []
    items = params.items() if isinstance(params, Mapping) else params
    pairs = []
    for name, value in items:
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, list | tuple):
            value = ",".join(str(v) for v in value)
        pairs.append((name, str(value)))
    return pairs


class AdsClient:
    def __init__(
        self,
        base_url: str,
        consumer_key: str,
        consumer_secret: str,
        token: str,
        token_secret: str,
        *,
        sandbox: bool = False,
        version: str = "12",
    ) -> None:
        self.root = base_url + ("/sandbox" if sandbox else "")
        self.version = version
        self.keys = (consumer_key, consumer_secret, token, token_secret)
        self.http = httpx.Client(timeout=30)

    def close(self) -> None:
        self.http.close()

    def url(self, path: str) -> str:
        return f"{self.root}/{self.version}{path}"

    def request(
        self,
        method: str,
        path: str,
        params: Params | None = None,
        *,
        form: Params | None = None,
        json: Any = None,
        headers: dict[str, str] | None = None,
        raw_path: bool = False,
    ) -> httpx.Response:
        url = path if raw_path else self.url(path)
        query = _pairs(params)
        if query:
            url = url + "?" + urlencode(query)
        form_pairs = _pairs(form)
        consumer_key, consumer_secret, token, token_secret = self.keys
        authorization = sign_request(
            method,
            url,
            consumer_key,
            consumer_secret,
            token=token,
            token_secret=token_secret,
            extra_params=form_pairs or None,
        )
        sent = {"Authorization": authorization, **(headers or {})}
        if form_pairs:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            return self.http.request(method, url, content=urlencode(form_pairs), headers=sent)
        if json is not None:
            return self.http.request(method, url, json=json, headers=sent)
        return self.http.request(method, url, headers=sent)

    def get(self, path: str, params: Params | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, params, **kwargs)

    def post(self, path: str, params: Params | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, params, **kwargs)

    def put(self, path: str, params: Params | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", path, params, **kwargs)

    def delete(self, path: str, params: Params | None = None, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, params, **kwargs)


def demo_ads_client(base_url: str, credentials: Mapping[str, Any], **kwargs: Any) -> AdsClient:
    """A client signing as the demo app's user with the credentials of `/_roost/credentials`."""
    return AdsClient(
        base_url,
        credentials["consumer_key"],
        credentials["consumer_secret"],
        credentials["access_token"],
        credentials["access_token_secret"],
        **kwargs,
    )


def error_codes(response: httpx.Response) -> list[str]:
    return [item["code"] for item in response.json().get("errors", [])]
