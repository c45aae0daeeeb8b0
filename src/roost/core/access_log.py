"""`roost serve --access-log` and `--log-format json|text`: one line per request on the `roost.access`
logger (a request journal listener), and the handlers that format every roost and uvicorn log line.

An access line holds what the journal entry holds minus anything secret: method, path (never the
query string, which may carry tokens), status, latency, operation, app, user, the refusal's reason
in brief (`brief`) and the transaction id; no header values, no bodies.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from typing import Any

from roost.core.journal import Entry

ACCESS_LOGGER = "roost.access"
ACCESS_FIELDS = "roost_access"  # the log record's attribute holding an access line's fields
FORMATS = ("text", "json")
# The message of an access line in the text format (arguments filled in only when a text handler
# formats the record: the JSON handler reads the fields instead).
_ACCESS_TEXT = "%s %s %d %.3fms app=%s user=%s reason=%s"
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")
REASON_MAX = 300


def brief(reason: str) -> str:
    """A refusal's reason as the access log writes it: its first sentence, with quoted values blanked
    out. Some reasons quote what the caller sent (an OAuth 1.0a signature base string holds the
    query, the form body and the Authorization header's values); the journal keeps them whole."""
    first = reason.split(". ", 1)[0]
    return _QUOTED.sub("'…'", first)[:REASON_MAX]


def _iso(seconds: float) -> str:
    whole = int(seconds)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{int((seconds - whole) * 1000):03d}Z"


class AccessLog:
    """A journal listener writing each finished request to the `roost.access` logger at INFO."""

    def __init__(self, logger: logging.Logger | None = None) -> None:
        self._log = logger or logging.getLogger(ACCESS_LOGGER)

    def __call__(self, entry: Entry) -> None:
        log = self._log
        if not log.isEnabledFor(logging.INFO):
            return
        method, path, status, latency_ms = entry[2], entry[3], entry[5], round(entry[6], 3)
        app, user = entry[9], entry[10]
        reason = brief(entry[11]) if entry[11] else None
        fields = {
            "time": _iso(entry[1] / 1000),
            "method": method,
            "path": path,
            "status": status,
            "latency_ms": latency_ms,
            "operation": entry[7] or None,
            "app": str(app) if app is not None else None,
            "user": str(user) if user is not None else None,
            "reason": reason,
            "transaction_id": entry[14] or None,
        }
        log.info(
            _ACCESS_TEXT,
            method,
            path,
            status,
            latency_ms,
            app if app is not None else "-",
            user if user is not None else "-",
            json.dumps(reason, ensure_ascii=False) if reason else "-",  # quoted: one line, one field
            extra={ACCESS_FIELDS: fields},
        )


class TextFormatter(logging.Formatter):
    """`2026-11-26T10:00:00.123Z INFO roost.access GET /2/tweets/1 200 1.234ms app=… user=… reason=-`"""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{_iso(record.created)} {record.levelname} {record.name} {record.getMessage()}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: `time`, `level`, `logger`, `pid`, then an access line's fields or
    the `message` (and `exception`, with its traceback)."""

    def format(self, record: logging.LogRecord) -> str:
        base: dict[str, Any] = {
            "time": _iso(record.created),
            "level": record.levelname,
            "logger": record.name,
            "pid": record.process,  # which of `--workers N` wrote it
        }
        fields = getattr(record, ACCESS_FIELDS, None)
        if isinstance(fields, dict):
            base.update(fields)
        else:
            base["message"] = record.getMessage()
            if record.exc_info:
                base["exception"] = self.formatException(record.exc_info)
        return json.dumps(base, ensure_ascii=False, default=str)


def _level(name: str) -> int:
    level = logging.getLevelName(name.upper())
    return level if isinstance(level, int) else logging.WARNING


def configure_logging(log_format: str, log_level: str, access_log: bool) -> None:
    """Send roost's and uvicorn's log lines to stderr in `log_format`: roost's loggers at `log_level`,
    the access log at INFO when asked for (else off). Call it after uvicorn's `Config` is built, which
    installs uvicorn's own handlers; uvicorn's access log stays off (roost writes its own)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    roost = logging.getLogger("roost")
    roost.handlers = [handler]
    roost.setLevel(_level(log_level))
    roost.propagate = False
    # A child's records reach the parent's handlers whatever the parent's level: the access lines
    # are written at INFO even when the rest of roost logs warnings only.
    logging.getLogger(ACCESS_LOGGER).setLevel(logging.INFO if access_log else logging.CRITICAL + 1)
    uvicorn = logging.getLogger("uvicorn")
    uvicorn.handlers = [handler]
    uvicorn.propagate = False
