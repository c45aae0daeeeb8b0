"""Settings for one roost server, from CLI options and ROOST_* environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


def default_data_dir() -> Path:
    return Path(os.environ.get("ROOST_DATA_DIR", Path.home() / ".local" / "share" / "roost"))


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8080
    db_url: str = ""
    demo: bool = True
    brand: str = "x"  # x: the real names (x-twitter-...); service: the seeds' literal names
    problem_type_base: str = "https://api.x.com/2/problems/"
    api_version: str = "2.167"
    rate_limits: bool = True
    timestamp_window_s: int = 300
    max_body_bytes: int = 1_048_576
    seed: int = 20061121  # the demo dataset's seed
    # Seed for tokens issued at run time; unset means a CSPRNG (tests may set ROOST_RANDOM_SEED).
    random_seed: int | None = None
    # Per-operation overrides of the platform's default limits, by operationId:
    # {"createTweet": {"user": 100, "app": null, "window_s": 900, "daily_app": 10000, "daily_user": 2400}}
    limits: dict[str, dict[str, int | None]] = field(default_factory=dict)
    extra: dict[str, str] = field(default_factory=dict)  # flags of later features (e.g. allow_test_approval)
    # `--admin-token`: when set, /_roost and the test-approval header need `X-Roost-Admin-Token` (never
    # shown in a repr, so never in a log line or traceback).
    admin_token: str | None = field(default=None, repr=False)
    # `--request-log N`: the newest N requests kept for the console and `GET /_roost/requests` (0: none).
    request_log: int = 2000
    # `--access-log`: one line per request on the `roost.access` logger; `--log-format`: how every
    # log line is written (text or json).
    access_log: bool = False
    log_format: str = "text"

    def __post_init__(self) -> None:
        if self.random_seed is None and os.environ.get("ROOST_RANDOM_SEED", "").isdigit():
            self.random_seed = int(os.environ["ROOST_RANDOM_SEED"])
        if not self.db_url:
            self.db_url = os.environ.get("ROOST_DB") or f"sqlite:///{default_data_dir() / 'roost.db'}"

    def number(self, name: str, default: float, *, positive: bool = False) -> float:
        """A numeric feature setting (`--option NAME=N`, `POST /_roost/settings`): `default` when
        unset, not a number, negative, or zero where `positive` is asked for."""
        try:
            value = float(self.extra.get(name, "").strip())
        except ValueError:
            return default
        if not value >= 0 or (positive and value == 0):  # `not >=` also refuses NaN
            return default
        return value

    def whole(self, name: str, default: int, *, positive: bool = False) -> int:
        """A whole-number feature setting, with the rules of `number`."""
        value = self.number(name, default, positive=positive)
        return int(value) if float(value).is_integer() else default

    @property
    def base_url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "::") else self.host
        return f"http://{host}:{self.port}"
