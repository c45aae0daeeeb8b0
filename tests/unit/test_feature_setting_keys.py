"""The feature-setting catalogue against the source: every key some module reads is catalogued (else
`POST /_roost/settings` would refuse it), every catalogued key is read, and literal defaults agree."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

from roost.config import Settings
from roost.control.settings_catalogue import BY_KEY, KNOWN_KEYS, SETTINGS, describe
from roost.core.body_cap import LARGER_CAPS

SOURCE = Path(__file__).resolve().parents[2] / "src" / "roost"

# A read: a Settings accessor, or a helper that passes its first argument on to one.
READ = re.compile(
    r"(?:settings\.(?:number|whole)|\bextra\.get|\._percent|\._extra_number)\(\s*"
    r"(?P<arg>f?\"[^\"]*\"|[A-Za-z_][\w.]*)(?:\s*,\s*(?P<default>[\w.]+))?"
)
# Endpoints name their connection-limit and keep-alive settings as fields.
ENDPOINT_FIELD = re.compile(r"(?:limit_setting|keepalive_setting)\s*(?::\s*str\s*)?=\s*\"(?P<key>\w+)\"")
# Reads whose key is a variable, and where the keys it takes are declared (checked below).
INDIRECT = {
    ("config.py", "name"),  # Settings.number itself
    ("core/body_cap.py", "name"),  # LARGER_CAPS
    ("events/hub.py", "setting"),  # _percent's callers pass literals
    ("domain/oauth1_flow.py", "key"),  # _extra_number's callers pass literals
    ("events/connections.py", "endpoint.keepalive_setting"),  # ENDPOINT_FIELD
    ("events/connections.py", "endpoint.limit_setting"),
}
F_STRING_KEYS = {
    'f"search_{product}_max_query_length"': [f"search_{p}_max_query_length" for p in ("recent", "all")]
}
# Uses of `settings.extra` that are neither a read by key nor covered above: the shared-state store
# changes it in place, the delivery retries read it through `retry_schedule` (an `extra.get`), and
# the control plane lists it.
PASS_THROUGH = {"domain/shared_state.py", "events/dispatch.py", "control/settings_catalogue.py", "config.py"}


def _sources() -> list[tuple[str, str]]:
    return [(path.relative_to(SOURCE).as_posix(), path.read_text()) for path in sorted(SOURCE.rglob("*.py"))]


def _reads() -> list[tuple[str, str, str | None]]:
    """(file, key, default expression) of each read found."""
    found: list[tuple[str, str, str | None]] = []
    for name, text in _sources():
        if name.startswith("control/settings_catalogue"):
            continue
        for match in READ.finditer(text):
            arg = match["arg"]
            if arg in F_STRING_KEYS:
                found.extend((name, key, None) for key in F_STRING_KEYS[arg])
            elif arg.startswith('"'):
                found.append((name, arg.strip('"'), match["default"]))
            else:
                assert (name, arg) in INDIRECT, (
                    f"{name} reads a feature setting through {arg!r}: catalogue its keys"
                )
        found.extend((name, match["key"], None) for match in ENDPOINT_FIELD.finditer(text))
    found.extend(("core/body_cap.py", key, None) for _, key, _ in LARGER_CAPS)
    return found


def test_every_key_read_is_catalogued() -> None:
    missing = sorted({f"{key} ({name})" for name, key, _ in _reads() if key not in BY_KEY})
    assert not missing, f"feature settings read but not in control/settings_catalogue.py: {missing}"


def test_every_catalogued_key_is_read() -> None:
    read = {key for _, key, _ in _reads()}
    assert sorted(set(BY_KEY) - read) == []


def test_settings_extra_is_only_read_by_key() -> None:
    for name, text in _sources():
        for line in text.splitlines():
            # Code, not prose: a mention in backticks (docstrings) is no use.
            use = re.search(r"(?<!`)settings\.extra\b(?!\.get\(|`)", line)
            if use and name not in PASS_THROUGH and not line.lstrip().startswith("#"):
                raise AssertionError(
                    f"{name}: `{line.strip()}` uses settings.extra another way: catalogue it"
                )


def _constant(name: str, expression: str) -> Any:
    """A literal or an upper-case module constant of the reading module; None for anything else."""
    if re.fullmatch(r"\d+(\.\d+)?", expression):
        return float(expression)
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", expression):
        module = importlib.import_module("roost." + name.removesuffix(".py").replace("/", "."))
        return getattr(module, expression)
    return None


def test_literal_defaults_agree_with_the_readers() -> None:
    checked = 0
    for name, key, expression in _reads():
        value = _constant(name, expression) if expression else None
        if value is None:
            continue
        setting = BY_KEY[key]
        if isinstance(value, str):
            assert setting.value_in(Settings(db_url="sqlite://", extra={key: value})) == setting.default, key
        else:
            assert setting.default == value, f"{key}: the catalogue says {setting.default}, {name} {value}"
        checked += 1
    assert checked >= 15  # the parser found the reads (the package-decided limits have no literal)


def test_the_listing_is_sorted_by_key_and_shows_defaults_when_unset() -> None:
    assert len(SETTINGS) == len(BY_KEY)  # no key twice
    listed = describe(Settings(db_url="sqlite://"))
    assert [row["key"] for row in listed] == list(KNOWN_KEYS) == sorted(BY_KEY)
    for row in listed:
        assert row["meaning"] and row["stored"] is None and row["value"] == row["default"], row


@pytest.mark.parametrize(
    ("key", "stored", "value"),
    [
        ("crc_timeout_seconds", "90", 10.0),  # above 60: the reader's default
        ("crc_timeout_seconds", "2.5", 2.5),
        ("sample_stream_percent", "500", 100),  # clamped
        ("stream_keepalive_s", "0", 20.0),  # positive only
        ("usage_daily_cap", "0", 0),
        ("webhook_limit", "many", None),  # unreadable: the package decides
        ("allow_test_approval", "1", True),
        ("allow_test_approval", "true", False),  # only "1" is on
        ("delivery_retry_schedule", "5, 7", [5, 7]),
        ("delivery_retry_schedule", "5,x", [30, 90, 180]),
    ],
)
def test_values_read_as_the_server_reads_them(key: str, stored: str, value: Any) -> None:
    assert BY_KEY[key].value_in(Settings(db_url="sqlite://", extra={key: stored})) == value


def test_a_default_taken_from_another_setting() -> None:
    rows = {
        row["key"]: row for row in describe(Settings(db_url="sqlite://", extra={"stream_rule_limit": "7"}))
    }
    assert rows["stream_rule_limit_per_app"]["default"] == rows["stream_rule_limit_per_app"]["value"] == 7
