"""The import hook and the start-up chaining of the redirect (`sitecustomize.py` beside this file).

Standard library only, like `sitecustomize.py`: it runs under whatever Python the user's program uses,
imported as the top-level `roost_redirect_hooks` when this directory is on PYTHONPATH (`roost run`),
or as `roost.redirect.roost_redirect_hooks` in a process that has roost installed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

Patcher = Callable[[ModuleType], None]
# Runs a patcher on a freshly imported module, never raising (the caller's policy on failures).
Apply = Callable[[Patcher, ModuleType], None]


class HookedLoader:
    """Delegating loader that runs a patcher right after the module body executed."""

    def __init__(self, loader: Any, patcher: Patcher, apply: Apply) -> None:
        self._loader = loader
        self._patcher = patcher
        self._apply = apply

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # Put the real loader back first so the module (and importlib.resources) sees it.
        try:
            module.__loader__ = self._loader
            if module.__spec__ is not None:
                module.__spec__.loader = self._loader
        except Exception:
            pass
        self._loader.exec_module(module)
        self._apply(self._patcher, module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class PostImportFinder:
    """``sys.meta_path`` finder that wraps the loader of the libraries we patch."""

    def __init__(self, patchers: Mapping[str, Patcher], apply: Apply) -> None:
        self._patchers = dict(patchers)
        self._apply = apply
        self._busy: set[str] = set()

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        patcher = self._patchers.get(fullname)
        if patcher is None or fullname in self._busy:
            return None
        # The import lock for `fullname` is held, so this guard only stops our own recursion.
        self._busy.add(fullname)
        try:
            spec = None
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is not None:
                    break
        finally:
            self._busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = HookedLoader(spec.loader, patcher, self._apply)
        return spec

    def invalidate_caches(self) -> None:
        pass


def _same_dir(a: str, b: str) -> bool:
    try:
        return os.path.normcase(os.path.realpath(a or os.curdir)) == os.path.normcase(
            os.path.realpath(b or os.curdir)
        )
    except Exception:
        return False


def chain_next_sitecustomize(own_file: str) -> None:
    """Run the ``sitecustomize`` we shadow (the next one on sys.path after our directory)."""
    here = os.path.dirname(os.path.abspath(own_file))
    entries = list(sys.path)
    start = next((i + 1 for i, entry in enumerate(entries) if _same_dir(entry, here)), 0)
    search = [entry for entry in entries[start:] if not _same_dir(entry, here)]
    try:
        spec = importlib.machinery.PathFinder.find_spec("sitecustomize", search)
    except Exception:
        return
    if spec is None or spec.loader is None or not spec.origin:
        return
    if os.path.realpath(spec.origin) == os.path.realpath(own_file):
        return
    try:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except Exception as exc:
        # Same report `site` gives for a failing sitecustomize; start-up goes on.
        sys.stderr.write(
            f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(exc).__name__}: {exc}\n"
        )
