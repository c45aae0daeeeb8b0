"""Run unmodified programs against roost by redirecting the platform's public hosts.

``run_redirected`` backs ``roost run --target URL -- CMD``: it starts ``CMD`` with an
environment in which Python (through ``sitecustomize.py``) and Node (through
``redirect.cjs``) send every request for the public API hosts to the roost target.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from types import FrameType

__all__ = ["NODE_HOOK", "REDIRECT_DIR", "redirect_env", "run_redirected"]

# The directory that goes on PYTHONPATH: it holds our `sitecustomize` module.
REDIRECT_DIR = Path(__file__).resolve().parent
NODE_HOOK = REDIRECT_DIR / "redirect.cjs"


def _node_quote(path: str) -> str:
    # NODE_OPTIONS is split on spaces; inside double quotes a backslash escapes the next char.
    if not any(c.isspace() or c in '"\\' for c in path):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def redirect_env(target: str, base_env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Return ``base_env`` (default: ``os.environ``) set up to redirect to ``target``."""
    env = dict(os.environ if base_env is None else base_env)
    here = str(REDIRECT_DIR)

    # Our directory first (so our sitecustomize wins and chains to the one it shadows);
    # drop earlier copies so nested `roost run` does not grow the path.
    existing = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != here]
    env["PYTHONPATH"] = os.pathsep.join([here, *existing])
    env["ROOST_TARGET"] = target

    require = f"--require {_node_quote(str(NODE_HOOK))}"
    node_options = env.get("NODE_OPTIONS", "").strip()
    if require not in node_options:
        node_options = f"{node_options} {require}".strip()
    env["NODE_OPTIONS"] = node_options
    return env


def _in_terminal_foreground() -> bool:
    # A terminal's Ctrl-C already reaches every process of the foreground group, child
    # included; forwarding it as well would interrupt the child twice.
    try:
        return os.tcgetpgrp(sys.stdin.fileno()) == os.getpgrp()
    except (AttributeError, OSError, ValueError):
        return False


def run_redirected(target: str, argv: list[str]) -> int:
    """Run ``argv`` redirected to ``target``; return its exit code (128+N if killed by signal N)."""
    if not argv:
        raise ValueError("run_redirected needs a command to run")
    started: list[subprocess.Popen[bytes]] = []
    pending: list[int] = []

    def forward(signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGINT and _in_terminal_foreground():
            return  # the child got this Ctrl-C from the terminal already
        if not started:
            pending.append(signum)  # arrived while the child was being started: relay it then
            return
        with contextlib.suppress(OSError):
            started[0].send_signal(signum)

    # Handlers go in before the child starts, so a signal sent as soon as the child is up is relayed
    # rather than ending roost. While the child runs, roost only relays; the child decides how to stop.
    previous: dict[int, object] = {}
    for relayed in (signal.SIGINT, signal.SIGTERM):
        # Outside the main thread handlers cannot be set: leave them alone.
        with contextlib.suppress(ValueError, OSError):
            previous[relayed] = signal.signal(relayed, forward)
    try:
        try:
            child = subprocess.Popen(argv, env=redirect_env(target))
        except FileNotFoundError:
            sys.stderr.write(f"roost run: command not found: {argv[0]}\n")
            return 127
        except PermissionError:
            sys.stderr.write(f"roost run: permission denied: {argv[0]}\n")
            return 126
        started.append(child)
        for signum in pending:
            with contextlib.suppress(OSError):
                child.send_signal(signum)
        while True:
            try:
                returncode = child.wait()
                break
            except KeyboardInterrupt:
                continue  # only possible if a handler could not be installed
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
    return 128 - returncode if returncode < 0 else returncode
