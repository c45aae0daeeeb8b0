"""The snapshot document: how it is written (a piece at a time, one row a line) and read back.

    {"roost_snapshot":1,"schema":"0019","tables":{
    "apps":{"columns":["id","name",…],"rows":[
    [1,"demo",…],
    [2,"other",…]
    ]},
    …
    }}

Values are as stored: integers as JSON integers (64-bit), text as strings (JSON columns keep their
text), bytes as base64 strings, NULL as null. A document laid out as roost writes it is read line by
line, so memory holds one batch of rows at a time; the same JSON laid out otherwise (re-indented, on one
line) is accepted too, parsed whole.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from roost.core import errors, jsonio
from roost.storage.snapshot import BY_NAME, ColumnSpec, TableSpec

FORMAT_VERSION = 1
INSERT_BATCH = 1_000
_HEADER_MAX = 4096  # a first line longer than this is no header of roost's layout

_INT_RANGES = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}


# ---- writing --------------------------------------------------------------------------------------


def header(schema: str) -> bytes:
    return b'{"roost_snapshot":%d,"schema":%s,"tables":{\n' % (FORMAT_VERSION, jsonio.dumps(schema))


def table_start(spec: TableSpec, first: bool) -> bytes:
    columns = jsonio.dumps([c.name for c in spec.columns])
    return (b"" if first else b",\n") + b'"%s":{"columns":%s,"rows":[' % (spec.name.encode(), columns)


def rows_lines(spec: TableSpec, rows: Sequence[dict[str, Any]], first: bool) -> bytes:
    """Rows of one page, each on its own line (a comma ends the line before it)."""
    binary = [c.name for c in spec.columns if c.kind == "bytes"]
    names = [c.name for c in spec.columns]
    lines = []
    for row in rows:
        values = [row[name] for name in names]
        if binary:
            values = [
                base64.b64encode(row[name]).decode() if name in binary and row[name] is not None else value
                for name, value in zip(names, values, strict=True)
            ]
        lines.append(jsonio.dumps(values))
    return (b"\n" if first else b",\n") + b",\n".join(lines)


TABLE_END = b"\n]}"
DOCUMENT_END = b"\n}}\n"


# ---- reading --------------------------------------------------------------------------------------


@dataclass(slots=True)
class Batch:
    """Rows of one table, ready to insert (dicts by column name, bytes decoded)."""

    spec: TableSpec
    rows: list[dict[str, Any]]


def _refuse(message: str) -> errors.ApiError:
    return errors.invalid_body(f"snapshot: {message}")


def check_header(head: Any, schema: str) -> None:
    if not isinstance(head, dict):
        raise _refuse("a JSON object is expected")
    version = head.get("roost_snapshot")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise _refuse(f"roost_snapshot must be {FORMAT_VERSION} (this server reads version {FORMAT_VERSION})")
    if head.get("schema") != schema:
        raise _refuse(
            f"the document is of schema {head.get('schema')!r}; this server's schema is {schema!r} "
            "(restore it on a server of the same version)"
        )
    unknown = sorted(set(head) - {"roost_snapshot", "schema", "tables"})
    if unknown:
        raise _refuse(f"unknown member(s): {', '.join(unknown)}")


class Reader:
    """Batches of a document's tables in document order; refuses (400) anything malformed."""

    def __init__(self, body: bytes, schema: str) -> None:
        self._body = body
        self._schema = schema
        newline = body.find(b"\n", 0, _HEADER_MAX)
        first = body[:newline].strip() if newline >= 0 else b""
        self._by_line = first.startswith(b'{"') and first.endswith(b'"tables":{')
        if self._by_line:
            self._start = newline + 1
            check_header(self._loads(first + b"}}", "the first line"), schema)
            self._whole: dict[str, Any] | None = None
        else:
            whole = self._loads(body, "the document")
            check_header(whole, schema)
            if "tables" not in whole:
                raise _refuse("tables is required")
            if not isinstance(whole["tables"], dict):
                raise _refuse("tables must be an object")
            self._whole = whole
        self.seen: dict[str, int] = {}  # table -> rows read

    @staticmethod
    def _loads(data: bytes, where: str) -> Any:
        try:
            return jsonio.loads(data)
        except jsonio.JSONDecodeError as exc:
            raise _refuse(f"{where} is not valid JSON ({exc})") from None

    def batches(self) -> Iterator[Batch]:
        yield from self._lines() if self._by_line else self._parsed()
        missing = [name for name in BY_NAME if name not in self.seen]
        if missing:
            raise _refuse(f"missing table(s): {', '.join(missing)}")

    # The layout roost writes: each line a header, a table's start, a row, a table's end or the end.
    def _lines(self) -> Iterator[Batch]:
        body, position, size = self._body, self._start, len(self._body)
        table: _Table | None = None
        ended = False
        expect_more = False  # the previous row or table ended with a comma
        line_number = 1
        while position < size:
            end = body.find(b"\n", position)
            end = size if end < 0 else end
            line = body[position:end].strip()
            position, line_number = end + 1, line_number + 1
            if not line:
                continue
            where = f"line {line_number}"
            if ended:
                raise _refuse(f"{where}: nothing may follow the document's end")
            if table is None:
                if line == b"}}":
                    if expect_more:
                        raise _refuse(f"{where}: a table was expected after the comma")
                    ended = True
                    continue
                if not line.endswith(b'"rows":['):
                    raise _refuse(f"{where}: a table's start was expected")
                if self.seen and not expect_more:
                    raise _refuse(f"{where}: a comma was expected after the previous table")
                opened = self._loads(b"{" + line + b"]}}", where)
                if not isinstance(opened, dict) or len(opened) != 1:
                    raise _refuse(f"{where}: one table per line")
                ((name, value),) = opened.items()
                table = self._open(name, value, where)
                expect_more = False
                continue
            if line.startswith(b"["):
                comma = line.endswith(b",")
                if table.rows_read and not expect_more:
                    raise _refuse(f"{where}: a comma was expected after the previous row")
                table.add(self._loads(line[:-1] if comma else line, where), where)
                expect_more = comma
                if len(table.pending) >= INSERT_BATCH:
                    yield table.flush()
                continue
            if line in (b"]}", b"]},"):
                if expect_more:
                    raise _refuse(f"{where}: a row was expected after the comma")
                yield table.flush()
                self.seen[table.spec.name] = table.rows_read
                table, expect_more = None, line.endswith(b",")
                continue
            raise _refuse(f"{where}: a row or the table's end was expected")
        if not ended:
            raise _refuse("the document ends early (truncated?)")

    def _parsed(self) -> Iterator[Batch]:
        assert self._whole is not None
        tables: dict[str, Any] = self._whole.pop("tables")
        for name in list(tables):
            value = tables.pop(name)  # handed on batch by batch, let go of as it goes
            table = self._open(name, value, f"tables.{name}")
            for index, row in enumerate(value["rows"]):
                table.add(row, f"tables.{name}.rows[{index}]")
                if len(table.pending) >= INSERT_BATCH:
                    yield table.flush()
            yield table.flush()
            self.seen[name] = table.rows_read

    def _open(self, name: str, value: Any, where: str) -> _Table:
        spec = BY_NAME.get(name)
        if spec is None:
            raise _refuse(f"{where}: {name!r} is not a table a snapshot holds")
        if name in self.seen:
            raise _refuse(f"{where}: table {name!r} appears twice")
        if (
            not isinstance(value, dict)
            or set(value) != {"columns", "rows"}
            or not isinstance(value["rows"], list)
        ):
            raise _refuse(f'{where}: a table is {{"columns":[…],"rows":[…]}}')
        columns = value["columns"]
        expected = {c.name for c in spec.columns}
        if (
            not isinstance(columns, list)
            or not all(isinstance(c, str) for c in columns)
            or len(columns) != len(expected)
            or set(columns) != expected
        ):
            raise _refuse(f"{where}: the columns of {name} are {sorted(expected)}")
        self.seen.setdefault(name, 0)  # a duplicate is refused even while its rows are being read
        return _Table(spec, [spec_of(spec, c) for c in columns])


def spec_of(spec: TableSpec, name: str) -> ColumnSpec:
    return next(c for c in spec.columns if c.name == name)


class _Table:
    __slots__ = ("columns", "pending", "rows_read", "spec")

    def __init__(self, spec: TableSpec, columns: list[ColumnSpec]) -> None:
        self.spec = spec
        self.columns = columns  # in the document's order
        self.pending: list[dict[str, Any]] = []
        self.rows_read = 0

    def add(self, row: Any, where: str) -> None:
        if not isinstance(row, list) or len(row) != len(self.columns):
            raise _refuse(f"{where}: a row is an array of {len(self.columns)} values")
        self.pending.append({c.name: _value(c, v, where) for c, v in zip(self.columns, row, strict=True)})
        self.rows_read += 1

    def flush(self) -> Batch:
        batch, self.pending = Batch(self.spec, self.pending), []
        return batch


def _value(column: ColumnSpec, value: Any, where: str) -> Any:
    if value is None:
        if not column.nullable:
            raise _refuse(f"{where}: {column.name} may not be null")
        return None
    if column.kind == "text":
        if not isinstance(value, str):
            raise _refuse(f"{where}: {column.name} must be a string")
        return value
    if column.kind == "bytes":
        if not isinstance(value, str):
            raise _refuse(f"{where}: {column.name} must be base64 text")
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise _refuse(f"{where}: {column.name} is not valid base64") from None
    low, high = _INT_RANGES[column.kind]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _refuse(f"{where}: {column.name} must be an integer from {low} to {high}")
    return value
