"""Write docs/ads-coverage.md: every (method, path) the official Python ads SDK (twitter-ads) calls,
and whether roost serves it.

Usage: python scripts/ads_coverage.py [--check] [--output PATH]

The SDK's side is read from its installed source: each resource class's path attributes
(`RESOURCE`, `RESOURCE_COLLECTION`, `RESOURCE_ASYNC`, `FEATURES`, …) and, in each function that
names one, the HTTP method written nearest to it (`save` writes `put` beside `RESOURCE` and `post`
beside `RESOURCE_COLLECTION`); a class inherits the functions of its mixins. roost's side comes from
its ads operation table (and the v1.1 routes, for the SDK's `users/show.json`).
--check exits 1 when the file on disk differs from what would be generated (for CI).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import pkgutil
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUTPUT = REPO_ROOT / "docs" / "ads-coverage.md"
METHODS = ("get", "post", "put", "delete")
_VERSION_PREFIX = re.compile(r"^/(?:11|12)(?=/)")


@dataclass(frozen=True, order=True)
class SdkCall:
    path: str  # as the SDK writes it, without the version segment: /accounts/{account_id}/cards
    method: str
    classes: tuple[str, ...]


def normalize(path: str) -> str:
    """Parameter names differ between the SDK and roost; only their positions matter."""
    return re.sub(r"\{[^{}]*\}", "{}", path)


def _path_attributes(cls: type) -> dict[str, str]:
    """The class's upper-case attributes holding an API path (versioned, or the v1.1 one)."""
    out = {}
    for name in dir(cls):
        value = getattr(cls, name, None) if name.isupper() else None
        if isinstance(value, str) and value.startswith(("/11/", "/12/", "/1.1/")):
            out[name] = value
    return out


def _function_pairs(module: ModuleType) -> dict[tuple[str, str], set[tuple[str, str]]]:
    """(class, function) -> {(path attribute, method)}: each attribute named in the function with
    the HTTP method string written nearest to it."""
    tree = ast.parse(inspect.getsource(module))
    found: dict[tuple[str, str], set[tuple[str, str]]] = defaultdict(set)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in node.body:
            if not isinstance(item, ast.FunctionDef):
                continue
            # `RESOURCE_OPTIONS + 'behaviors'`: the attribute with the suffix written after it.
            suffixes = {
                id(sub.left): sub.right.value
                for sub in ast.walk(item)
                if isinstance(sub, ast.BinOp)
                and isinstance(sub.left, ast.Attribute)
                and isinstance(sub.right, ast.Constant)
                and isinstance(sub.right.value, str)
            }
            attrs = [
                (sub.lineno, sub.attr + "+" + suffixes.get(id(sub), ""))
                for sub in ast.walk(item)
                if isinstance(sub, ast.Attribute) and sub.attr.isupper()
            ]
            methods = [
                (sub.lineno, sub.value)
                for sub in ast.walk(item)
                if isinstance(sub, ast.Constant) and sub.value in METHODS
            ]
            if not attrs or not methods:
                continue
            for line, attr in attrs:
                nearest = min(methods, key=lambda pair: abs(pair[0] - line))[1]
                found[(node.name, item.name)].add((attr, str(nearest)))
    return found


def sdk_calls() -> list[SdkCall]:
    import twitter_ads

    modules = [
        __import__(f"twitter_ads.{info.name}", fromlist=["_"])
        for info in pkgutil.iter_modules(twitter_ads.__path__)
        if info.name not in ("client", "http", "cursor", "error", "enum", "utils")
    ]
    pairs: dict[tuple[str, str], set[tuple[str, str]]] = {}
    for module in modules:
        pairs.update(_function_pairs(module))
    calls: dict[tuple[str, str], set[str]] = defaultdict(set)
    for module in modules:
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            attributes = _path_attributes(cls)
            lineage = [base.__name__ for base in cls.__mro__]
            for (owner, _function), used in pairs.items():
                if owner not in lineage:
                    continue
                for named, method in used:
                    attr, _, suffix = named.partition("+")
                    if attr in attributes:
                        path = _VERSION_PREFIX.sub("", attributes[attr]) + suffix
                        calls[(path, method.upper())].add(cls.__name__)
    return sorted(SdkCall(path, method, tuple(sorted(names))) for (path, method), names in calls.items())


def roost_served() -> dict[str, set[str]]:
    """Normalized path -> the methods roost serves on it."""
    sys.path.insert(0, str(REPO_ROOT / "src"))
    from roost.ads.api.registry import all_ads_operations
    from roost.platform.v1 import ROUTES

    served: dict[str, set[str]] = defaultdict(set)
    for op in all_ads_operations():
        served[normalize(op.path)].add(op.method.upper())
    for method, path in ROUTES:
        served[normalize(path)].add(method)
    return served


def render(calls: list[SdkCall], served: dict[str, set[str]]) -> str:
    by_path: dict[str, list[SdkCall]] = defaultdict(list)
    for call in calls:
        by_path[call.path].append(call)
    order = {method.upper(): i for i, method in enumerate(METHODS)}
    rows = []
    complete = 0
    for path in sorted(by_path):
        wanted = sorted({call.method for call in by_path[path]}, key=order.__getitem__)
        have = served.get(normalize(path), set())
        classes = sorted({name for call in by_path[path] for name in call.classes})
        missing = [method for method in wanted if method not in have]
        if not have:
            mark = "**no**"
        elif missing:
            mark = "yes; not " + ", ".join(missing)
        else:
            mark = "yes"
            complete += 1
        rows.append(f"| `{path}` | {', '.join(wanted)} | {', '.join(classes)} | {mark} |")
    reached = sum(1 for path in by_path if served.get(normalize(path)))
    lines = [
        "# Ads API coverage: what the official Python SDK calls",
        "",
        "Generated by `scripts/ads_coverage.py` from the installed `twitter-ads` SDK's resource",
        "classes and roost's ads operation table; `scripts/test` checks it is current. Every path is",
        "served under `/12` and `/11`, production and `/sandbox`.",
        "",
        f"**{reached} of {len(by_path)}** paths the SDK calls are served ({complete} with every method",
        "the SDK can send). The SDK's shared `save`/`delete` give every resource class PUT and DELETE",
        "whether the platform has them or not (a funding instrument cannot be edited, an audience",
        "estimate is only posted): where the platform has no such route, roost answers as it does,",
        "with the route-missing 404, and the row says `not …`.",
        "",
        "| Path (after the version) | SDK methods | SDK classes | roost |",
        "|---|---|---|---|",
        *rows,
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="fail when the file is not current")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args(argv)
    text = render(sdk_calls(), roost_served())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is not current: run python scripts/ads_coverage.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
