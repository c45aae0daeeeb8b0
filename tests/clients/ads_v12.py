"""The official ads SDK on API version 12, in a fresh interpreter.

The SDK builds its resource paths from `twitter_ads.API_VERSION` when its modules are imported, so a
/12 run needs a process that sets `twitter_ads.API_VERSION = "12"` before importing anything else of
the SDK. `run_v12` starts one: the script it is given sees `client(sandbox=True)` (an SDK client
signed as the demo user, its domains pointed at roost) and `dump(value)`, which hands a JSON value
back to the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout: scripts may import `tests.…`

_PREAMBLE = """
import json, os
import twitter_ads
twitter_ads.API_VERSION = "12"
from twitter_ads.client import Client
from twitter_ads.http import Request

_base = os.environ["ROOST_ADS_BASE"]
Request._DEFAULT_DOMAIN = _base
Request._SANDBOX_DOMAIN = _base + "/sandbox"
_creds = json.loads(os.environ["ROOST_ADS_CREDENTIALS"])


def client(sandbox=True):
    return Client(
        _creds["consumer_key"],
        _creds["consumer_secret"],
        _creds["access_token"],
        _creds["access_token_secret"],
        options={"sandbox": sandbox},
    )


def dump(value):
    print("ROOST-RESULT " + json.dumps(value))
"""


def run_v12(base_url: str, credentials: dict[str, Any], script: str, timeout: float = 120) -> Any:
    """Run `script` against roost with the SDK on version 12; returns what it passed to `dump`."""
    source = _PREAMBLE + "\n" + textwrap.dedent(script)
    env = {
        **os.environ,
        "ROOST_ADS_BASE": base_url,
        "ROOST_ADS_CREDENTIALS": json.dumps(credentials),
    }
    done = subprocess.run(
        [sys.executable, "-c", source],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    results = [line for line in done.stdout.splitlines() if line.startswith("ROOST-RESULT ")]
    assert results, done.stdout
    return json.loads(results[-1][len("ROOST-RESULT ") :])
