"""Write-ahead log checkpoints on a thread of their own.

SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold: that commit copies
the log into the database file and waits for the file's fsync, on the event loop, while every request
waits behind it (5 to 15 ms, about one commit in thirty under a write load). Here the writer
connection never checkpoints; after commits, a thread copies the log with a connection of its own.
The sqlite3 module lets other Python code run while SQLite works, so the event loop goes on meanwhile.
Durability is unchanged: a commit is durable once it is in the log, checkpointed or not.
"""

from __future__ import annotations

import logging
import sqlite3
import threading

log = logging.getLogger(__name__)

# At most one checkpoint per this many seconds while commits keep coming: each fsyncs the database
# file, and a pause lets a burst of commits share one.
CHECKPOINT_EVERY_S = 0.2


class WalCheckpointer:
    def __init__(self, path: str, every_s: float = CHECKPOINT_EVERY_S) -> None:
        self._conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._every_s = every_s
        self._committed = threading.Event()
        self._stopping = threading.Event()
        self.checkpoints = 0
        self.thread = threading.Thread(target=self._run, name="roost-sqlite-checkpoint", daemon=True)
        self.thread.start()

    def committed(self) -> None:
        """A commit added to the log (called on the event loop: only sets a flag)."""
        self._committed.set()

    def _run(self) -> None:
        while True:
            self._committed.wait()
            if self._stopping.wait(self._every_s):
                return
            self._committed.clear()
            if self._stopping.is_set():  # close() may have set both flags just before the clear
                return
            try:
                # PASSIVE: copies what no reader still needs and never waits on a reader or the writer.
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.checkpoints += 1
            except sqlite3.Error:
                log.exception("checkpoint of the write-ahead log failed; the next commit retries it")

    def close(self) -> None:
        self._stopping.set()
        self._committed.set()
        self.thread.join()
        self._conn.close()
