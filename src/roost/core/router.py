"""Path routing by segments: literal segments win over `{param}` segments, as the platform routes."""

from __future__ import annotations

from typing import Any


class _Node:
    __slots__ = ("children", "param", "targets")

    def __init__(self) -> None:
        self.children: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.targets: dict[str, tuple[Any, tuple[str, ...]]] = {}


class Router:
    def __init__(self) -> None:
        self._root = _Node()
        self._static: dict[str, dict[str, Any]] = {}  # path without parameters -> method -> target
        # Literal prefix -> the node of routes whose only parameter is their last segment
        # (/2/tweets/{id}, /2/users/{id}): most requests, matched without walking the tree.
        self._trailing: dict[str, _Node] = {}

    def add(self, method: str, path: str, target: Any) -> None:
        node = self._root
        names: list[str] = []
        for segment in path.strip("/").split("/"):
            if segment.startswith("{") and segment.endswith("}"):
                # Sibling routes may name the same position differently (the platform's
                # /2/dm_conversations/{dm_conversation_id}/messages and /{id}/dm_events).
                if node.param is None:
                    node.param = _Node()
                names.append(segment[1:-1])
                node = node.param
            else:
                node = node.children.setdefault(segment, _Node())
        if method in node.targets:
            raise ValueError(f"duplicate route {method} {path}")
        node.targets[method] = (target, tuple(names))
        if "{" not in path:
            self._static.setdefault(path.rstrip("/"), {})[method] = target
        else:
            prefix, _, last = path.rstrip("/").rpartition("/")
            if "{" not in prefix and last.startswith("{"):
                self._trailing[prefix] = node

    def match(self, method: str, path: str) -> tuple[Any, dict[str, str]] | None:
        if path[-1:] == "/" and len(path) > 1:
            path = path.rstrip("/")
        if path[:2] == "//":
            path = "/" + path.lstrip("/")  # surrounding slashes never count
        static = self._static.get(path)
        if static is not None:
            if method in static:
                return static[method], {}
        else:
            # A literal path (no route of that exact path for any method) ending in a parameter: the
            # walk below would prefer the same node, so take it straight (anything else walks).
            prefix, _, last = path.rpartition("/")
            trailing = self._trailing.get(prefix)
            if trailing is not None and last:
                found = trailing.targets.get(method)
                if found is not None:
                    return found[0], {found[1][-1]: last}
        return self.walk(method, path)

    def walk(self, method: str, path: str) -> tuple[Any, dict[str, str]] | None:
        """The match by walking the tree segment by segment (a normalised path)."""
        segments = path.split("/")  # "/2/tweets/1" -> ["", "2", "tweets", "1"]
        del segments[0]
        values: list[str] = []
        node: _Node | None = self._root
        # The walk that prefers literal segments finds the route almost always; only a dead end
        # needs the backtracking search.
        for segment in segments:
            child = node.children.get(segment)  # type: ignore[union-attr]
            if child is None:
                if not segment:
                    node = None
                    break
                child = node.param  # type: ignore[union-attr]
                values.append(segment)
            node = child
            if node is None:
                break
        if node is None or not node.targets:
            values = []
            node = self._search(self._root, segments, 0, values)
            if node is None:
                return None
            values.reverse()
        hit = node.targets.get(method)
        if hit is None:
            return None
        names = hit[1]
        if len(names) == 1:
            return hit[0], {names[0]: values[0]}
        return hit[0], dict(zip(names, values, strict=True))

    def _search(self, node: _Node, segments: list[str], index: int, values: list[str]) -> _Node | None:
        """The matching leaf; `values` receives the parameter segments, last one first."""
        if index == len(segments):
            return node if node.targets else None
        segment = segments[index]
        child = node.children.get(segment)
        if child is not None:
            found = self._search(child, segments, index + 1, values)
            if found is not None:
                return found
        if node.param is not None and segment:
            found = self._search(node.param, segments, index + 1, values)
            if found is not None:
                values.append(segment)
                return found
        return None
