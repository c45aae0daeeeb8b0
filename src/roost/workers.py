"""`roost serve --workers N`: N server processes sharing one listening socket (issue 16).

The supervisor binds the port once and hands the socket to each worker, so the kernel spreads
connections over the workers that are accepting, and a worker that dies takes only its own open
connections with it: the supervisor starts a new one in its place. Everything the workers share (the
data, the clock, settings, rate-limit windows, nonces, deliveries, the dispatch lease) is in the
database, so they need nothing from each other. SQLite allows one writing process: the command line
refuses workers for it before anything starts.

Asked to stop (SIGTERM, SIGINT), the supervisor passes the signal on and waits for the workers to
drain, as one process would.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import signal
import socket
import time
from collections.abc import Callable
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Any

log = logging.getLogger("roost.workers")

STOP_GRACE_S = 15.0  # a worker's drain (streams end, connections finish) before it is killed
RESTART_PAUSE_S = 1.0  # between a worker's death and its replacement: a crash loop stays slow

# A worker's body: (worker number, the listening socket, *args) -> None, run in a process of its own
# (a module-level function: the worker imports it by name).
Target = Callable[..., None]


def listening_socket(host: str, port: int, backlog: int = 2048) -> socket.socket:
    """The one socket every worker accepts on (bound before any worker starts)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


class Supervisor:
    """Keeps `count` workers running `target` until asked to stop."""

    def __init__(self, count: int, sock: socket.socket, target: Target, args: tuple[Any, ...] = ()) -> None:
        self._count = count
        self._sock = sock
        self._target = target
        self._args = args
        # Spawned, not forked: each worker starts a clean interpreter (no inherited event loop,
        # threads or database connections); the socket travels to it through multiprocessing.
        self._context = multiprocessing.get_context("spawn")
        self._workers: dict[int, BaseProcess] = {}
        self._stopping = False

    def run(self) -> int:
        """Start the workers and keep them up; the exit code once they are all stopped."""
        previous = {sig: signal.signal(sig, self._ask_to_stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            for number in range(self._count):
                self._start(number)
            while not self._stopping:
                self._replace_the_dead()
            return self._stop_all()
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._sock.close()

    def _start(self, number: int) -> None:
        process = self._context.Process(
            target=self._target, args=(number, self._sock, *self._args), name=f"roost-worker-{number}"
        )
        process.start()
        self._workers[number] = process

    def _replace_the_dead(self) -> None:
        sentinels = {process.sentinel: number for number, process in self._workers.items()}
        ended = multiprocessing.connection.wait(list(sentinels), timeout=0.5)
        for sentinel in ended:
            if self._stopping:
                return
            number = sentinels[sentinel]  # type: ignore[index]  # sentinels are ints
            dead = self._workers[number]
            # The sentinel can fire a moment before the process is reaped (its exit code still None).
            dead.join(timeout=5)
            log.warning("worker %d (pid %s) ended with %s: starting another", number, dead.pid, dead.exitcode)
            time.sleep(RESTART_PAUSE_S)
            self._start(number)

    def _ask_to_stop(self, sig: int, frame: FrameType | None) -> None:
        self._stopping = True

    def _stop_all(self) -> int:
        for process in self._workers.values():
            if process.is_alive():
                with contextlib.suppress(ProcessLookupError):  # it ended just now
                    process.terminate()  # SIGTERM: each drains as a lone server would
        deadline = time.monotonic() + STOP_GRACE_S
        for process in self._workers.values():
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()
                process.join()
        return 0
