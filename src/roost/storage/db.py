"""Database access: SQLAlchemy Core statements compiled once per dialect, run on the raw driver.

Why not the ORM session or SQLAlchemy's async engine on the hot path: a primary-key lookup through
those costs tens of microseconds of Python per query; compiling each statement once and handing the
SQL to sqlite3 / asyncpg keeps a lookup in single-digit microseconds while SQL still comes from one
schema and one set of statements for both databases.

SQLite runs inline on the event loop (a WAL read is a few microseconds; a thread hop costs more),
with one reader connection and one writer connection guarded by a lock. The reader keeps one read
transaction open for all the reads of one turn of the event loop (a statement outside a transaction
pays system calls to take and drop its read lock, which under load is a tenth of a request): the
snapshot ends before the loop next polls for input, so a request never reads data older than its
own arrival, and every local write ends it at once. Opening one also asks `PRAGMA data_version`
whether another process committed meanwhile. PostgreSQL uses an asyncpg pool.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any, Protocol

from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement

from roost.core.records import Row
from roost.storage.checkpoints import WalCheckpointer

Params = Mapping[str, Any]
COMMIT_CHANNEL = "roost_commits"


@dataclass(frozen=True, slots=True)
class CompiledSQL:
    sql: str
    names: tuple[str, ...]
    constants: dict[str, Any]  # values bound inside the statement itself (e.g. LIMIT 1)
    # Named parameters -> the positional tuple the driver takes (built once per statement).
    bind: Callable[[Params | None], tuple[Any, ...]]


def _binder(names: tuple[str, ...], constants: dict[str, Any]) -> Callable[[Params | None], tuple[Any, ...]]:
    if not names:
        return lambda params: ()
    if constants:
        return lambda params: tuple({**constants, **(params or {})}[name] for name in names)
    if len(names) == 1:
        name = names[0]
        return lambda params: (params[name],)  # type: ignore[index]
    pick = itemgetter(*names)
    return lambda params: pick(params)  # type: ignore[arg-type]  # statements with names get params


class StatementCache:
    """Compiles each Core statement once per dialect; statements are long-lived module objects."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._cache: dict[int, tuple[ClauseElement, CompiledSQL]] = {}
        self.names: dict[str, tuple[str, ...]] = {}  # SQL -> result column names, once known

    def columns(self, sql: str, cursor: sqlite3.Cursor) -> tuple[str, ...]:
        """Result column names of a statement, read from the first cursor that ran it."""
        names = self.names.get(sql)
        if names is None:
            names = self.names[sql] = tuple(d[0] for d in cursor.description)
        return names

    def get(self, statement: ClauseElement) -> CompiledSQL:
        hit = self._cache.get(id(statement))
        if hit is not None and hit[0] is statement:
            return hit[1]
        compiled = statement.compile(dialect=self._dialect)
        constants = {name: value for name, value in compiled.params.items() if value is not None}
        names = tuple(getattr(compiled, "positiontup", None) or ())  # set by positional dialects
        result = CompiledSQL(str(compiled), names, constants, _binder(names, constants))
        # Keep a reference to the statement so its id() cannot be reused by another object.
        self._cache[id(statement)] = (statement, result)
        return result


class Executor(Protocol):
    dialect_name: str

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None: ...
    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]: ...
    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any: ...
    async def execute(self, statement: ClauseElement, params: Params | None = None) -> int: ...
    async def execute_many(self, statement: ClauseElement, rows: Sequence[Params]) -> None: ...
    def execute_at_commit(self, statement: ClauseElement, params: Params) -> None:
        """Run `statement` with `params` at the end of the transaction, just before its COMMIT (not at
        all if the unit of work is undone). The units of one SQLite group commit share one
        `executemany` per statement: SQLite's full-text index writes a segment at every savepoint,
        so its rows are far cheaper added together than one unit at a time."""
        ...


# Statements put off to the end of a transaction, in order, with their parameters.
_Deferred = list[tuple[ClauseElement, Params]]


class _SQLiteExecutor:
    """Runs compiled statements on one sqlite3 connection. The plain methods are what the database
    calls on its read path (no coroutine per layer); the async ones serve the `Executor` protocol."""

    __slots__ = ("_conn", "_statements", "deferred")
    dialect_name = "sqlite"

    def __init__(self, conn: sqlite3.Connection, statements: StatementCache) -> None:
        self._conn = conn
        self._statements = statements
        self.deferred: _Deferred = []  # the writer's: run by the database before its COMMIT

    def one(self, statement: ClauseElement, params: Params | None) -> Row | None:
        compiled = self._statements.get(statement)
        cursor = self._conn.execute(compiled.sql, compiled.bind(params))
        row = cursor.fetchone()
        if row is None:
            return None
        names = self._statements.names.get(compiled.sql) or self._statements.columns(compiled.sql, cursor)
        # The names come from the statement's own result description, so lengths always agree.
        return dict(zip(names, row, strict=False))

    def all(self, statement: ClauseElement, params: Params | None) -> list[Row]:
        compiled = self._statements.get(statement)
        cursor = self._conn.execute(compiled.sql, compiled.bind(params))
        names = self._statements.columns(compiled.sql, cursor)
        return [dict(zip(names, row, strict=False)) for row in cursor.fetchall()]

    def value(self, statement: ClauseElement, params: Params | None) -> Any:
        compiled = self._statements.get(statement)
        row = self._conn.execute(compiled.sql, compiled.bind(params)).fetchone()
        return None if row is None else row[0]

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None:
        return self.one(statement, params)

    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]:
        return self.all(statement, params)

    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any:
        return self.value(statement, params)

    async def execute(self, statement: ClauseElement, params: Params | None = None) -> int:
        compiled = self._statements.get(statement)
        return self._conn.execute(compiled.sql, compiled.bind(params)).rowcount

    async def execute_many(self, statement: ClauseElement, rows: Sequence[Params]) -> None:
        if rows:
            compiled = self._statements.get(statement)
            self._conn.executemany(compiled.sql, [compiled.bind(row) for row in rows])

    def execute_at_commit(self, statement: ClauseElement, params: Params) -> None:
        self.deferred.append((statement, params))

    def run_deferred(self) -> None:
        """The put-off statements, one `executemany` per statement, in the order first put off."""
        by_statement: dict[int, tuple[ClauseElement, list[Params]]] = {}
        for statement, params in self.deferred:
            by_statement.setdefault(id(statement), (statement, []))[1].append(params)
        self.deferred.clear()
        for statement, rows in by_statement.values():
            compiled = self._statements.get(statement)
            self._conn.executemany(compiled.sql, [compiled.bind(row) for row in rows])


class _PostgresExecutor:
    __slots__ = ("_conn", "_statements", "deferred")
    dialect_name = "postgresql"

    def __init__(self, conn: Any, statements: StatementCache) -> None:
        self._conn = conn
        self._statements = statements
        self.deferred: _Deferred = []

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None:
        compiled = self._statements.get(statement)
        record = await self._conn.fetchrow(compiled.sql, *compiled.bind(params))
        return None if record is None else dict(record.items())

    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]:
        compiled = self._statements.get(statement)
        records = await self._conn.fetch(compiled.sql, *compiled.bind(params))
        return [dict(record.items()) for record in records]

    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any:
        compiled = self._statements.get(statement)
        return await self._conn.fetchval(compiled.sql, *compiled.bind(params))

    async def execute(self, statement: ClauseElement, params: Params | None = None) -> int:
        compiled = self._statements.get(statement)
        status: str = await self._conn.execute(compiled.sql, *compiled.bind(params))
        tail = status.rsplit(" ", 1)[-1]
        return int(tail) if tail.isdigit() else 0

    async def execute_many(self, statement: ClauseElement, rows: Sequence[Params]) -> None:
        if rows:
            compiled = self._statements.get(statement)
            await self._conn.executemany(compiled.sql, [compiled.bind(row) for row in rows])

    def execute_at_commit(self, statement: ClauseElement, params: Params) -> None:
        self.deferred.append((statement, params))

    async def run_deferred(self) -> None:
        while self.deferred:
            statement, params = self.deferred.pop(0)
            await self.execute(statement, params)


class Database:
    """One handle for reads (`db.fetch_*`) and atomic units of work (`async with db.transaction()`).

    `generation` grows with every committed transaction of this process and with every commit of
    another process the database reports (PostgreSQL notifications, SQLite's data version); in-process
    read caches keyed on `current_generation()` never serve a row older than the last commit known.
    """

    dialect_name: str
    generation: int = 0
    # Called after every commit of this process (e.g. to wake the delivery worker at once).
    commit_listeners: list[Callable[[], None]]

    def current_generation(self) -> int:
        """The generation, after taking notice of other processes' commits where that is synchronous."""
        return self.generation

    def _committed(self) -> None:
        self._announce()

    def _announce(self) -> None:
        self.generation += 1
        for listener in self.commit_listeners:
            listener()

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None:
        raise NotImplementedError

    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]:
        raise NotImplementedError

    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any:
        raise NotImplementedError

    def transaction(self) -> Any:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError


class SQLiteDatabase(Database):
    dialect_name = "sqlite"

    def __init__(self, path: str) -> None:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.commit_listeners = []
        self._statements = StatementCache(sqlite_dialect.dialect(paramstyle="qmark"))
        self._writer = self._open(path)
        # A separate reader sees only committed data, as PostgreSQL readers do.
        self._reader = self._writer if path == ":memory:" else self._open(path)
        self._read = _SQLiteExecutor(self._reader, self._statements)
        self._write = _SQLiteExecutor(self._writer, self._statements)
        self._lock = asyncio.Lock()
        self._snapshots = self._reader is not self._writer
        self._snapshot_open = False
        self._data_version: int | None = None  # the reader's at its last snapshot; None: resync quietly
        self._closed = False
        self._group: asyncio.Future[None] | None = None  # this turn's shared transaction, done at its commit
        self._checkpointer: WalCheckpointer | None = None
        if path != ":memory:":
            self._writer.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's thread does it
            self._checkpointer = WalCheckpointer(path)

    @staticmethod
    def _open(path: str) -> sqlite3.Connection:
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a committed transaction survives a process kill (only power loss can
        # roll back the last transactions), which is the durability roost promises.
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=OFF")
        conn.execute("PRAGMA busy_timeout=30000")
        # A larger page cache than the default 2 MiB. No memory map: mapped pages of a large database
        # count in the process's resident memory and measured no faster than this cache.
        conn.execute("PRAGMA cache_size=-32768")
        return conn

    def current_generation(self) -> int:
        # Opening this turn's snapshot asks SQLite whether another connection committed meanwhile.
        if not self._snapshot_open and self._snapshots:
            self._open_snapshot()
        return self.generation

    def _reading(self) -> _SQLiteExecutor:
        """The reader, inside a read snapshot (opened here when none is)."""
        if not self._snapshot_open and self._snapshots:
            self._open_snapshot()
        return self._read

    def _open_snapshot(self) -> None:
        self._reader.execute("BEGIN")
        self._snapshot_open = True
        version = self._reader.execute("PRAGMA data_version").fetchone()[0]
        changed = self._data_version is not None and version != self._data_version
        self._data_version = version
        # Callbacks queued now run before the loop handles input that arrives later (asyncio and uvloop
        # alike), so no request received after this point reads from this snapshot.
        asyncio.get_running_loop().call_soon(self._end_snapshot)
        if changed:
            self._announce()  # another connection (another process) committed since the last snapshot

    def _end_snapshot(self) -> None:
        if self._snapshot_open and not self._closed:
            self._snapshot_open = False
            try:
                self._reader.execute("COMMIT")
            except sqlite3.OperationalError:
                # A statement of the reader is still being stepped; the snapshot ends on the next turn.
                self._snapshot_open = True
                asyncio.get_running_loop().call_soon(self._end_snapshot)

    def _committed(self) -> None:
        # The next read takes a snapshot that includes this commit; its data_version change is ours.
        self._end_snapshot()
        self._data_version = None
        if self._checkpointer is not None:
            self._checkpointer.committed()
        self._announce()

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None:
        return self._reading().one(statement, params)

    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]:
        return self._reading().all(statement, params)

    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any:
        return self._reading().value(statement, params)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Executor]:
        """A unit of work, durable when the block exits. Transactions begun in one turn of the event
        loop share one SQLite transaction (a group commit): each is a savepoint in it, undone alone if
        its block raises, and every block's exit waits for the one COMMIT at the end of the turn. A
        commit (the WAL append) costs more than a typical write's statements, so under load this
        divides the dominant cost of a write by the writes per turn; alone, a write waits one turn."""
        if not self._snapshots:  # one connection (":memory:"): readers would see a group's writes early
            async with self._lock, self._alone() as executor:
                yield executor
            return
        async with self._lock:
            group = self._group if self._group is not None else self._open_group()
            self._writer.execute("SAVEPOINT unit")
            deferred_before = len(self._write.deferred)
            try:
                yield self._write
            except BaseException:
                del self._write.deferred[deferred_before:]
                self._undo_unit(group)
                raise
            self._writer.execute("RELEASE unit")
        # Shielded: one caller cancelled while waiting must not cancel the others' commit.
        await asyncio.shield(group)

    @asynccontextmanager
    async def _alone(self) -> AsyncIterator[Executor]:
        self._writer.execute("BEGIN IMMEDIATE")
        try:
            yield self._write
            self._write.run_deferred()
        except BaseException:
            self._write.deferred.clear()
            self._writer.execute("ROLLBACK")
            raise
        self._writer.execute("COMMIT")
        self._committed()

    def _open_group(self) -> asyncio.Future[None]:
        # An open snapshot would keep this commit's checkpoint from completing.
        self._end_snapshot()
        self._writer.execute("BEGIN IMMEDIATE")
        loop = asyncio.get_running_loop()
        group = self._group = loop.create_future()
        loop.call_soon(self._commit_group)
        return group

    def _undo_unit(self, group: asyncio.Future[None]) -> None:
        if self._writer.in_transaction:
            self._writer.execute("ROLLBACK TO unit")
            self._writer.execute("RELEASE unit")
        else:  # SQLite rolled the whole transaction back (an I/O error, a full disk): the group failed
            self._fail_group(group, sqlite3.OperationalError("the transaction was rolled back"))

    def _commit_group(self) -> None:
        group = self._group
        if group is None:
            return
        if self._lock.locked():  # a unit is inside its block (it awaited): commit after it
            asyncio.get_running_loop().call_soon(self._commit_group)
            return
        self._group = None
        self._end_snapshot()  # a reader's snapshot would hold back the commit's checkpoint
        try:
            self._write.run_deferred()
            self._writer.execute("COMMIT")
        except Exception as error:  # sqlite3.Error, or a put-off statement's parameters refused
            self._fail_group(group, error)
            return
        group.set_result(None)
        self._committed()

    def _fail_group(self, group: asyncio.Future[None], error: Exception) -> None:
        self._group = None
        self._write.deferred.clear()
        if self._writer.in_transaction:
            self._writer.execute("ROLLBACK")
        if not group.done():
            group.set_exception(error)

    def raw_connection(self) -> sqlite3.Connection:
        return self._writer

    def checkpoints(self) -> int:
        """Checkpoints of the write-ahead log done so far (0 for an in-memory database)."""
        return 0 if self._checkpointer is None else self._checkpointer.checkpoints

    def background_threads(self) -> list[threading.Thread]:
        return [] if self._checkpointer is None else [self._checkpointer.thread]

    async def close(self) -> None:
        self._commit_group()
        self._end_snapshot()
        self._closed = True
        if self._checkpointer is not None:
            self._checkpointer.close()
        self._reader.close()
        if self._writer is not self._reader:
            self._writer.close()


class PostgresDatabase(Database):
    """Several processes may share one PostgreSQL database: every transaction ends with a NOTIFY on
    `COMMIT_CHANNEL` carrying this process's token, and a listening connection turns the other
    processes' notifications into commit events here, so their streams and delivery workers wake at
    once instead of at their next poll."""

    dialect_name = "postgresql"

    def __init__(self, pool: Any, dsn: str = "") -> None:
        self._pool = pool
        self._dsn = dsn
        self.commit_listeners = []
        self._statements = StatementCache(postgresql.dialect(paramstyle="numeric_dollar"))
        self._token = uuid.uuid4().hex
        self._listener: Any = None

    @classmethod
    async def connect(cls, url: str) -> PostgresDatabase:
        import asyncpg

        dsn = asyncpg_dsn(url)
        pool = await asyncpg.create_pool(dsn, min_size=1, max_size=16, reset=_keep_session)
        return cls(pool, dsn)

    async def listen(self) -> None:
        import asyncpg

        self._listener = await asyncpg.connect(self._dsn)
        await self._listener.add_listener(COMMIT_CHANNEL, self._on_notification)

    def _on_notification(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        if payload != self._token:  # this process's own commits were already announced
            self._committed()

    async def fetch_one(self, statement: ClauseElement, params: Params | None = None) -> Row | None:
        async with self._pool.acquire() as conn:
            return await _PostgresExecutor(conn, self._statements).fetch_one(statement, params)

    async def fetch_all(self, statement: ClauseElement, params: Params | None = None) -> list[Row]:
        async with self._pool.acquire() as conn:
            return await _PostgresExecutor(conn, self._statements).fetch_all(statement, params)

    async def fetch_value(self, statement: ClauseElement, params: Params | None = None) -> Any:
        async with self._pool.acquire() as conn:
            return await _PostgresExecutor(conn, self._statements).fetch_value(statement, params)

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Executor]:
        async with self._pool.acquire() as conn:
            async with conn.transaction():
                executor = _PostgresExecutor(conn, self._statements)
                yield executor
                await executor.run_deferred()
                # Delivered to listeners only if the transaction commits.
                await conn.execute("SELECT pg_notify($1, $2)", COMMIT_CHANNEL, self._token)
            self._committed()

    async def close(self) -> None:
        if self._listener is not None:
            await self._listener.close()
            self._listener = None
        await self._pool.close()


async def _keep_session(_connection: Any) -> None:
    """Pool connections go back as they are: roost sets no session state on them (no SET, LISTEN,
    cursors or advisory locks outside a transaction; asyncpg still rolls back an open transaction),
    so asyncpg's default reset statement would be a round trip per query for nothing."""


def asyncpg_dsn(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return "postgresql://" + rest if scheme.startswith("postgres") else url


def sqlite_path(url: str) -> str:
    """`sqlite:///relative.db`, `sqlite:////abs/path.db` or `sqlite://` (memory)."""
    rest = url.split("://", 1)[1] if "://" in url else url
    if rest in ("", "/", "/:memory:"):
        return ":memory:"
    return rest[1:] if rest.startswith("/") else rest


async def open_database(url: str) -> Database:
    if url.startswith("sqlite"):
        return SQLiteDatabase(sqlite_path(url))
    if url.startswith("postgres"):
        database = await PostgresDatabase.connect(url)
        await database.listen()
        return database
    raise ValueError(f"unsupported database URL: {url}")
