"""Transport-level redirect of the platform's public hosts to a roost server.

Python imports a top-level ``sitecustomize`` module automatically at start-up, so putting
this file's directory first on ``PYTHONPATH`` (what ``roost run`` does) lets us reroute an
unmodified program. When ``ROOST_TARGET`` is set, requests to the public API hosts open
their TCP connection to the target instead, keeping the original ``Host`` header, path and
query and adding ``X-Forwarded-Proto``/``X-Forwarded-Host``. The client has already built
and signed the request for the public URL, so OAuth 1.0a signatures stay valid: the server
rebuilds the signed URL from ``Host`` + ``X-Forwarded-Proto``.

The HTTP libraries are patched lazily through a ``sys.meta_path`` hook, when the program
first imports them, so start-up cost is nil for programs that never use them.

Imported as ``roost.redirect.sitecustomize`` it installs nothing; ``redirecting(config)``
redirects inside the running process for the length of a ``with`` block, urllib included,
and undoes its patches after it (the pytest plugin's ``roost_redirect``, ``roost.testing``).

Environment: ``ROOST_TARGET`` (e.g. ``http://127.0.0.1:8080``; unset or empty = do nothing),
``ROOST_REDIRECT_HOSTS`` (comma-separated extra hosts), ``ROOST_REDIRECT_DEBUG=1`` (log each
rerouted request and any patch failure to stderr).

This file must stay self-contained and standard-library only: it runs under whatever
Python the user's program uses, without roost installed. It also must never break the
program, so every patch step is defensive and falls back to the unpatched behaviour.
"""

from __future__ import annotations

import contextlib
import os
import sys
import weakref
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

# The import hook and the chaining to a shadowed sitecustomize live beside this file. Imported as
# `roost.redirect.sitecustomize` they come from the package; as the top-level `sitecustomize` (this
# directory on PYTHONPATH, roost not necessarily installed) from that same directory.
if __package__:
    from . import roost_redirect_hooks as _hooks
else:
    import roost_redirect_hooks as _hooks  # type: ignore[no-redef, import-not-found]

DEFAULT_HOSTS = frozenset(
    {
        "api.twitter.com",
        "api.x.com",
        "upload.twitter.com",
        "upload.x.com",
        "twitter.com",
        "x.com",
        "www.twitter.com",
        "www.x.com",
        "ads-api.twitter.com",
        "ads-api.x.com",
        "ads-api-sandbox.twitter.com",
        "ads-api-sandbox.x.com",
    }
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_REDIRECT_STATUSES = (301, 302, 303, 307, 308)
# Attribute set on our wrappers so that a second copy of this module (nested `roost run`)
# never wraps an already wrapped function.
_MARK = "__roost_redirect__"


class Target:
    """Where redirected requests go: scheme, host, port and an optional path prefix."""

    __slots__ = ("host", "netloc", "path_prefix", "port", "scheme")

    def __init__(self, scheme: str, host: str, port: int | None, path_prefix: str) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path_prefix = path_prefix
        bracketed = "[" + host + "]" if ":" in host else host
        self.netloc = bracketed if port is None else f"{bracketed}:{port}"


class Config:
    """Redirect settings read once from the environment."""

    __slots__ = ("debug", "hosts", "target")

    def __init__(self, target: Target, hosts: frozenset[str], debug: bool) -> None:
        self.target = target
        self.hosts = hosts
        self.debug = debug


class Plan:
    """How one request is rerouted."""

    __slots__ = ("host_header", "proto", "url")

    def __init__(self, url: str, host_header: str, proto: str) -> None:
        self.url = url
        self.host_header = host_header
        self.proto = proto

    def headers(self) -> dict[str, str]:
        return {
            "Host": self.host_header,
            "X-Forwarded-Proto": self.proto,
            "X-Forwarded-Host": self.host_header,
        }


def parse_target(value: str | None) -> Target | None:
    """Parse ``ROOST_TARGET``; a bare ``host:port`` means plain http."""
    value = (value or "").strip()
    if not value:
        return None
    if "://" not in value:
        value = "http://" + value
    parts = urlsplit(value)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return Target(scheme, parts.hostname, parts.port, parts.path.rstrip("/"))


def _normalize_host(host: str) -> str:
    return host.strip().rstrip(".").lower()


def redirect_hosts(env: Mapping[str, str]) -> frozenset[str]:
    """The default public hosts plus any listed in ``ROOST_REDIRECT_HOSTS``."""
    extra = {_normalize_host(h) for h in env.get("ROOST_REDIRECT_HOSTS", "").split(",")}
    extra.discard("")
    return DEFAULT_HOSTS | frozenset(extra)


def load_config(env: Mapping[str, str]) -> Config | None:
    target = parse_target(env.get("ROOST_TARGET"))
    if target is None:
        return None
    debug = env.get("ROOST_REDIRECT_DEBUG", "").strip().lower() not in ("", "0", "false", "no")
    return Config(target, redirect_hosts(env), debug)


def plan_for(url: str, config: Config) -> Plan | None:
    """Return how to reroute ``url``, or None when it is not for a redirected host."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    host = parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or _normalize_host(host) not in config.hosts:
        return None
    port = parts.port
    # Keep a non-default port in Host: the client signed the URL with it.
    host_header = host if ":" not in host else "[" + host + "]"
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host_header = f"{host_header}:{port}"
    # Path and query are reused verbatim (already encoded) so a signature over them holds.
    path = parts.path or "/"
    query = "?" + parts.query if parts.query else ""
    target = config.target
    routed = f"{target.scheme}://{target.netloc}{target.path_prefix}{path}{query}"
    return Plan(routed, host_header, scheme)


# The active configuration; None means the redirect is not installed.
_CONFIG: Config | None = None


def _plan(url: object) -> Plan | None:
    """Plan for the active configuration, never raising (a bad URL is the library's problem)."""
    config = _CONFIG
    if config is None:
        return None
    try:
        plan = plan_for(str(url), config)
    except Exception:
        return None
    if plan is not None and config.debug:
        sys.stderr.write(f"roost redirect: {url} -> {plan.url} (Host: {plan.host_header})\n")
    return plan


def _mark(wrapper: Any, original: Any) -> Any:
    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        with contextlib.suppress(Exception):
            setattr(wrapper, attr, getattr(original, attr))
    wrapper.__wrapped__ = original
    setattr(wrapper, _MARK, True)
    return wrapper


# Every library function this copy replaced, in order: (owner, attribute, original, wrapper), so that
# `redirecting` can put back what it wrapped.
_REPLACED: list[tuple[Any, str, Any, Any]] = []


def _replace(owner: Any, name: str, wrapper: Any, original: Any) -> None:
    marked = _mark(wrapper, original)
    setattr(owner, name, marked)
    _REPLACED.append((owner, name, original, marked))


# --- requests ---------------------------------------------------------------------------


def patch_requests(module: ModuleType) -> None:
    """Wrap ``HTTPAdapter.send``: the one place every requests-based SDK goes through."""
    adapter_cls = module.adapters.HTTPAdapter
    original = adapter_cls.send
    if getattr(original, _MARK, False):
        return

    def send(self: Any, request: Any, *args: Any, **kwargs: Any) -> Any:
        plan = _plan(request.url)
        if plan is None:
            return original(self, request, *args, **kwargs)
        routed = request.copy()
        routed.url = plan.url
        for name, value in plan.headers().items():
            routed.headers[name] = value
        # Proxies were chosen for the public URL; the roost target is reached directly.
        if len(args) >= 5:
            args = (*args[:4], {}, *args[5:])
        else:
            kwargs["proxies"] = {}
        response = original(self, routed, *args, **kwargs)
        # Show the public URL to the caller: requests resolves relative redirects against
        # response.url and keys cookies on the request, and redirects re-enter send().
        try:
            response.url = request.url
            response.request = request
        except Exception:
            pass
        return response

    _replace(adapter_cls, "send", send, original)


# --- httpx ------------------------------------------------------------------------------

# Direct (proxy-less) transports used when the chosen transport goes through a proxy.
_DIRECT_SYNC: dict[str, Any] = {}
_DIRECT_ASYNC: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _goes_through_proxy(transport: Any) -> bool:
    return "Proxy" in type(getattr(transport, "_pool", None)).__name__


def _direct_async_transport(module: ModuleType) -> Any:
    try:
        import asyncio

        loop = asyncio.get_running_loop()
    except Exception:
        return None  # not asyncio (e.g. trio): keep the caller's transport
    # Connection pools belong to one event loop, so keep one transport per loop.
    transport = _DIRECT_ASYNC.get(loop)
    if transport is None:
        transport = module.AsyncHTTPTransport()
        _DIRECT_ASYNC[loop] = transport
    return transport


def _httpx_routed(module: ModuleType, request: Any, plan: Plan) -> Any:
    headers = request.headers.copy()
    for name, value in plan.headers().items():
        headers[name] = value
    # A new Request (not a mutated one) so the client keeps the public URL for redirects,
    # cookies and response.url.
    return module.Request(
        request.method,
        module.URL(plan.url),
        headers=headers,
        stream=request.stream,
        extensions=request.extensions,
    )


def patch_httpx(module: ModuleType) -> None:
    """Wrap the sync and async default transports (clients follow redirects above them)."""
    sync_cls = getattr(module, "HTTPTransport", None)
    sync_original = getattr(sync_cls, "handle_request", None)
    if sync_cls is not None and sync_original is not None and not getattr(sync_original, _MARK, False):

        def handle_request(self: Any, request: Any) -> Any:
            plan = _plan(request.url)
            if plan is None:
                return sync_original(self, request)
            routed = _httpx_routed(module, request, plan)
            transport = self
            if _goes_through_proxy(self):
                transport = _DIRECT_SYNC.get("direct")
                if transport is None:
                    transport = _DIRECT_SYNC["direct"] = module.HTTPTransport()
            return sync_original(transport, routed)

        _replace(sync_cls, "handle_request", handle_request, sync_original)

    async_cls = getattr(module, "AsyncHTTPTransport", None)
    async_original = getattr(async_cls, "handle_async_request", None)
    if async_cls is not None and async_original is not None and not getattr(async_original, _MARK, False):

        async def handle_async_request(self: Any, request: Any) -> Any:
            plan = _plan(request.url)
            if plan is None:
                return await async_original(self, request)
            routed = _httpx_routed(module, request, plan)
            transport = self
            if _goes_through_proxy(self):
                transport = _direct_async_transport(module) or self
            return await async_original(transport, routed)

        _replace(async_cls, "handle_async_request", handle_async_request, async_original)


# --- aiohttp ----------------------------------------------------------------------------


def _aiohttp_headers(headers: Any, plan: Plan) -> Any:
    from multidict import CIMultiDict

    merged: Any = CIMultiDict(headers or {})
    for name, value in plan.headers().items():
        merged[name] = value
    return merged


def _restore_url(response: Any, url: Any) -> None:
    """Let the caller (and aiohttp's history) see the public URL it asked for."""
    try:
        query = response.url.raw_query_string  # includes any `params=` aiohttp merged in
        shown = url.with_query(None).with_fragment(None)
        if query:
            shown = type(url)(f"{shown}?{query}", encoded=True)
        _set_reified(response, url=shown, real_url=shown)
        response._cache.pop("host", None)  # derived from the URL
    except Exception:
        pass


def _set_reified(response: Any, **values: Any) -> None:
    # ClientResponse exposes these through cached (`reify`) properties backed by `_name`.
    cache = getattr(response, "_cache", None)
    for name, value in values.items():
        setattr(response, "_" + name, value)
        if isinstance(cache, dict):
            cache.pop(name, None)


def patch_aiohttp(module: ModuleType) -> None:
    """Wrap ``ClientSession._request`` (tweepy's AsyncClient and most asyncio SDKs).

    aiohttp follows redirects inside ``_request`` against the URL it connected to, so for a
    redirected host we follow redirects here, hop by hop, to keep rewriting public URLs.
    """
    session_cls = module.ClientSession
    original = session_cls._request
    if getattr(original, _MARK, False):
        return
    from yarl import URL

    async def _request(self: Any, method: str, str_or_url: Any, **kwargs: Any) -> Any:
        try:
            url = self._build_url(str_or_url) if hasattr(self, "_build_url") else URL(str_or_url)
        except Exception:
            return await original(self, method, str_or_url, **kwargs)
        plan = _plan(url)
        if plan is None:
            return await original(self, method, str_or_url, **kwargs)

        allow_redirects = kwargs.pop("allow_redirects", True)
        max_redirects = kwargs.pop("max_redirects", 10)
        headers = kwargs.pop("headers", None)
        history: list[Any] = []
        while True:
            if plan is None:
                # The chain left the redirected hosts: let aiohttp handle the rest.
                response = await original(
                    self,
                    method,
                    url,
                    headers=headers,
                    allow_redirects=allow_redirects,
                    max_redirects=max(1, max_redirects - len(history)),
                    **kwargs,
                )
                break
            response = await original(
                self,
                method,
                URL(plan.url, encoded=True),
                headers=_aiohttp_headers(headers, plan),
                allow_redirects=False,
                **kwargs,
            )
            _restore_url(response, url)
            location = response.headers.get("Location") or response.headers.get("URI")
            if not allow_redirects or response.status not in _REDIRECT_STATUSES or not location:
                break
            history.append(response)
            if max_redirects and len(history) >= max_redirects:
                response.close()
                raise module.TooManyRedirects(history[0].request_info, tuple(history))
            response.release()
            # Same method rules as aiohttp: 303, and 301/302 after POST, become a GET.
            status = response.status
            if (status == 303 and method.upper() != "HEAD") or (
                status in (301, 302) and method.upper() == "POST"
            ):
                method = "GET"
                kwargs.pop("data", None)
                kwargs.pop("json", None)
            next_url = url.join(URL(location))
            if next_url.origin() != url.origin() and headers:
                # Never send credentials to another origin.
                headers = {k: v for k, v in dict(headers).items() if k.lower() != "authorization"}
                kwargs.pop("auth", None)
            kwargs.pop("params", None)  # already part of the URL the server redirected from
            url = next_url
            plan = _plan(url)
        if history:
            with contextlib.suppress(Exception):
                _set_reified(response, history=(*history, *getattr(response, "_history", ())))
        return response

    _replace(session_cls, "_request", _request, original)


# --- urllib -----------------------------------------------------------------------------


def patch_urllib(module: ModuleType) -> None:
    """Wrap ``urllib.request.AbstractHTTPHandler.do_open``, where the http and https handlers connect.

    The public request (its Host header already set) is sent as a new request to the target, so that
    redirects and errors are still handled against the public URL the caller opened.
    """
    handler_cls = module.AbstractHTTPHandler
    original = handler_cls.do_open
    if getattr(original, _MARK, False):
        return
    import http.client

    def do_open(self: Any, http_class: Any, request: Any, **connection_args: Any) -> Any:
        plan = _plan(request.full_url)
        if plan is None:
            return original(self, http_class, request, **connection_args)
        # As `do_open` merges them: headers for this hop only (Host, Content-Length) win.
        headers = dict(request.unredirected_hdrs)
        for name, value in request.headers.items():
            headers.setdefault(name, value)
        for name, value in plan.headers().items():
            headers[name.capitalize()] = value  # urllib's own spelling of header names
        routed = module.Request(plan.url, data=request.data, headers=headers, method=request.get_method())
        routed.timeout = request.timeout
        connection_class: type[http.client.HTTPConnection]
        if plan.url.startswith("https:"):
            connection_class = http.client.HTTPSConnection
        else:
            connection_class, connection_args = http.client.HTTPConnection, {}
        response = original(self, connection_class, routed, **connection_args)
        with contextlib.suppress(Exception):
            response.url = request.full_url
        return response

    _replace(handler_cls, "do_open", do_open, original)


# --- import hook ------------------------------------------------------------------------

_PATCHERS: dict[str, Callable[[ModuleType], None]] = {
    "requests": patch_requests,
    "httpx": patch_httpx,
    "aiohttp": patch_aiohttp,
}
# Inside a process (the pytest plugin's `roost_redirect`) urllib is redirected as well; `roost run`
# children keep the three libraries above.
IN_PROCESS_PATCHERS: dict[str, Callable[[ModuleType], None]] = {
    **_PATCHERS,
    "urllib.request": patch_urllib,
}


def _apply(patcher: Callable[[ModuleType], None], module: ModuleType) -> None:
    try:
        patcher(module)
    except Exception as exc:  # a changed library must not break the program
        config = _CONFIG
        if config is not None and config.debug:
            sys.stderr.write(f"roost redirect: could not patch {module.__name__}: {exc!r}\n")


def install(config: Config) -> None:
    """Activate the redirect: hook future imports and patch libraries already imported."""
    global _CONFIG
    _CONFIG = config
    if not any(isinstance(f, _hooks.PostImportFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _hooks.PostImportFinder(_PATCHERS, _apply))
    for name, patcher in _PATCHERS.items():
        module = sys.modules.get(name)
        if module is not None:
            _apply(patcher, module)


@contextlib.contextmanager
def redirecting(
    config: Config, patchers: Mapping[str, Callable[[ModuleType], None]] = IN_PROCESS_PATCHERS
) -> Iterator[None]:
    """Redirect in this process while the block runs, then put back what was there before: the
    configuration, every library function wrapped meanwhile and the import hook (blocks may nest)."""
    global _CONFIG
    previous = _CONFIG
    replaced_before = len(_REPLACED)
    finder = _hooks.PostImportFinder(patchers, _apply)
    sys.meta_path.insert(0, finder)
    _CONFIG = config
    try:
        for name, patcher in patchers.items():
            module = sys.modules.get(name)
            if module is not None:
                _apply(patcher, module)
        yield
    finally:
        _CONFIG = previous
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(finder)
        while len(_REPLACED) > replaced_before:
            owner, name, original, wrapper = _REPLACED.pop()
            # Only when still ours: a wrapper someone put over it meanwhile stays (ours then passes through).
            if owner.__dict__.get(name) is wrapper:
                setattr(owner, name, original)


def _bootstrap() -> None:
    try:
        config = load_config(os.environ)
        if config is not None:
            install(config)
    except Exception:
        pass
    # Hooks go in first so that a chained sitecustomize importing requests is patched too.
    _hooks.chain_next_sitecustomize(__file__)


if __name__ == "sitecustomize":
    _bootstrap()
