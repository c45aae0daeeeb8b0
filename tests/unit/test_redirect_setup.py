"""Tests for the transport-level redirect behind ``roost run``: the pure helpers (target parsing,
planning, ``redirect_env``) and ``run_redirected``, which launches the redirected child.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest
from tests.unit import redirect_support
from tests.unit.redirect_support import RecordingServer, _base_env, assert_redirected

from roost.redirect import NODE_HOOK, REDIRECT_DIR, redirect_env, run_redirected
from roost.redirect import sitecustomize as sc

# The recording server; bound here so that it, not the session `server` of tests/conftest.py, is used.
server = redirect_support.server


# --- pure helpers ----------------------------------------------------------------------


def test_importing_the_module_as_a_package_member_installs_nothing() -> None:
    # Only `import sitecustomize` at start-up activates it.
    assert not any(type(f).__name__ == "PostImportFinder" for f in sys.meta_path)
    assert sc._CONFIG is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("http://127.0.0.1:8080", ("http", "127.0.0.1", 8080, "", "127.0.0.1:8080")),
        ("127.0.0.1:9000", ("http", "127.0.0.1", 9000, "", "127.0.0.1:9000")),
        ("https://roost.internal/base/", ("https", "roost.internal", None, "/base", "roost.internal")),
        ("http://[::1]:8080", ("http", "::1", 8080, "", "[::1]:8080")),
    ],
)
def test_parse_target(value: str, expected: tuple[object, ...]) -> None:
    target = sc.parse_target(value)
    assert target is not None
    assert (target.scheme, target.host, target.port, target.path_prefix, target.netloc) == expected


@pytest.mark.parametrize("value", ["", "   ", None, "ftp://host", "http://"])
def test_parse_target_rejects_unusable_values(value: str | None) -> None:
    assert sc.parse_target(value) is None


def test_plan_for_keeps_host_port_path_and_query() -> None:
    config = sc.load_config({"ROOST_TARGET": "http://127.0.0.1:8080/prefix"})
    assert config is not None

    plan = sc.plan_for("https://API.Twitter.com./2/tweets?ids=1%2C2&x=a+b#frag", config)
    assert plan is not None
    assert plan.url == "http://127.0.0.1:8080/prefix/2/tweets?ids=1%2C2&x=a+b"
    assert plan.host_header == "api.twitter.com."
    assert plan.proto == "https"

    plan = sc.plan_for("https://ads-api.twitter.com:8443/12/accounts", config)
    assert plan is not None
    assert plan.host_header == "ads-api.twitter.com:8443"
    # A default port is not part of the Host header.
    plan = sc.plan_for("https://upload.x.com:443/1.1/media/upload.json", config)
    assert plan is not None and plan.host_header == "upload.x.com"
    plan = sc.plan_for("http://x.com/", config)
    assert plan is not None and (plan.proto, plan.host_header) == ("http", "x.com")

    assert sc.plan_for("https://example.com/2/tweets", config) is None
    assert sc.plan_for("https://notapi.twitter.com/2/tweets", config) is None


def test_extra_hosts_from_environment() -> None:
    hosts = sc.redirect_hosts({"ROOST_REDIRECT_HOSTS": " Media.Example.com , ,localhost"})
    assert {"media.example.com", "localhost", "api.twitter.com"} <= hosts
    assert hosts >= sc.DEFAULT_HOSTS


def test_redirect_env_prefixes_paths_and_keeps_existing_values() -> None:
    base = {"PYTHONPATH": os.pathsep.join(["/a", "/b"]), "NODE_OPTIONS": "--max-old-space-size=512"}
    env = redirect_env("http://127.0.0.1:8080", base)

    assert env["PYTHONPATH"].split(os.pathsep) == [str(REDIRECT_DIR), "/a", "/b"]
    assert env["ROOST_TARGET"] == "http://127.0.0.1:8080"
    assert env["NODE_OPTIONS"].startswith("--max-old-space-size=512 --require ")
    assert str(NODE_HOOK) in env["NODE_OPTIONS"]
    assert (REDIRECT_DIR / "sitecustomize.py").is_file() and NODE_HOOK.is_file()
    assert base == {"PYTHONPATH": os.pathsep.join(["/a", "/b"]), "NODE_OPTIONS": "--max-old-space-size=512"}

    # Applying it twice (nested `roost run`) does not duplicate anything.
    again = redirect_env("http://127.0.0.1:9090", env)
    assert again["PYTHONPATH"] == env["PYTHONPATH"]
    assert again["NODE_OPTIONS"] == env["NODE_OPTIONS"]
    assert again["ROOST_TARGET"] == "http://127.0.0.1:9090"

    bare = redirect_env("http://t", {})
    assert bare["PYTHONPATH"] == str(REDIRECT_DIR)


# --- run_redirected --------------------------------------------------------------------


def test_run_redirected_forwards_the_exit_code_and_redirects_the_child(server: RecordingServer) -> None:
    code = "import requests, sys; requests.get('https://api.x.com/2/ping'); sys.exit(7)"
    assert run_redirected(server.url, [sys.executable, "-c", code]) == 7
    [seen] = server.seen
    assert_redirected(seen, host="api.x.com", path="/2/ping")
    assert run_redirected(server.url, [sys.executable, "-c", "pass"]) == 0


def test_run_redirected_reports_a_missing_command() -> None:
    assert run_redirected("http://127.0.0.1:9", ["roost-no-such-command-xyz"]) == 127
    with pytest.raises(ValueError):
        run_redirected("http://127.0.0.1:9", [])


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals only")
def test_run_redirected_passes_sigint_to_the_child() -> None:
    child = (
        "import sys, time\n"
        "try:\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(30)\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(42)\n"
    )
    launcher = (
        "import sys\n"
        "from roost.redirect import run_redirected\n"
        f"sys.exit(run_redirected('http://127.0.0.1:9', [sys.executable, '-c', {child!r}]))\n"
    )
    # No terminal here, so roost itself must relay the SIGINT it receives.
    proc = subprocess.Popen(
        [sys.executable, "-c", launcher],
        env=_base_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 42
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_run_redirected_reports_death_by_signal() -> None:
    if not hasattr(signal, "SIGKILL"):
        pytest.skip("POSIX signals only")
    code = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    assert run_redirected("http://127.0.0.1:9", [sys.executable, "-c", code]) == 128 + signal.SIGKILL
