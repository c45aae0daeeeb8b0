"""The `roost` command: serve, run a program against roost, manage apps, users and tokens."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from roost.commands.accounts import apps, tokens, users
from roost.commands.database import prepare_database
from roost.commands.proxy import proxy
from roost.commands.seed import seed
from roost.commands.snapshot import snapshot
from roost.config import Settings
from roost.core.access_log import configure_logging
from roost.serving import REQUEST_TIMEOUT_S, Server

if TYPE_CHECKING:
    pass


@click.group()
@click.version_option(package_name="roost")
def main() -> None:
    """roost: a faithful local platform API v2 and Ads API v12."""


@main.command(
    epilog="""\b
Examples:
  roost serve                                   # SQLite under the data directory, demo data
  roost serve --port 9000 --no-demo --db sqlite:///./my.db
  roost serve --db postgresql://postgres@127.0.0.1:5432/roost --workers 4 --admin-token s3cret
  roost serve --option webhook_limit=5 --access-log --log-format json"""
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8080, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--db", "db_url", default="", help="sqlite:///PATH (default under the data directory) or postgresql://..."
)
@click.option("--no-demo", is_flag=True, help="Start without the demo dataset.")
@click.option(
    "--brand",
    type=click.Choice(["x", "service"]),
    default="x",
    show_default=True,
    help="Names to emit: the real platform's (x) or the seeds' literal ones (service).",
)
@click.option("--no-rate-limits", is_flag=True, help="Never answer 429 (headers are still sent).")
@click.option(
    "--problem-type-base",
    default="https://api.x.com/2/problems/",
    show_default=True,
    help="Base URI of problem `type` values in v2 error bodies.",
)
@click.option(
    "--limits",
    "limits_file",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="JSON file of per-operation limit overrides (see docs/decisions.md).",
)
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="Feature setting (repeatable), e.g. allow_test_approval=1 (see docs/auth.md).",
)
@click.option(
    "--strict-webhook-urls",
    is_flag=True,
    help="Hold loopback webhook URLs to the platform's rule too (https, no port); same as "
    "--option strict_webhook_urls=1 (see docs/webhooks.md).",
)
@click.option(
    "--oauth-timestamp-window",
    "timestamp_window_s",
    type=click.IntRange(min=0),
    default=300,
    show_default=True,
    metavar="SECONDS",
    help="How far an OAuth 1.0a oauth_timestamp may stray from this machine's clock (error 135 beyond).",
)
@click.option(
    "--admin-token",
    envvar="ROOST_ADMIN_TOKEN",
    default=None,
    metavar="TOKEN",
    help="Require X-Roost-Admin-Token: TOKEN on /_roost and for X-Roost-Approve (a shared sandbox; "
    "also ROOST_ADMIN_TOKEN).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Server processes sharing the port (PostgreSQL only; see docs/deployment.md).",
)
@click.option(
    "--request-log",
    type=click.IntRange(min=0),
    default=2000,
    show_default=True,
    metavar="N",
    help="Keep the newest N requests for the console and GET /_roost/requests (0: keep none).",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    help="Least severe log level printed: debug, info, warning, error.",
)
@click.option("--access-log", is_flag=True, help="Log one line per request (logger roost.access, stderr).")
@click.option(
    "--log-format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="How log lines are written: text, or one JSON object per line.",
)
def serve(
    host: str,
    port: int,
    db_url: str,
    no_demo: bool,
    brand: str,
    no_rate_limits: bool,
    problem_type_base: str,
    limits_file: str | None,
    options: tuple[str, ...],
    strict_webhook_urls: bool,
    timestamp_window_s: int,
    admin_token: str | None,
    workers: int,
    request_log: int,
    log_level: str,
    access_log: bool,
    log_format: str,
) -> None:
    """Start the server (SQLite and the demo dataset by default)."""
    settings = Settings(
        host=host,
        port=port,
        db_url=db_url,
        demo=not no_demo,
        brand=brand,
        rate_limits=not no_rate_limits,
        problem_type_base=problem_type_base,
        timestamp_window_s=timestamp_window_s,
        limits=_limits(limits_file) if limits_file else {},
        extra=_key_values(options) | ({"strict_webhook_urls": "1"} if strict_webhook_urls else {}),
        admin_token=admin_token or None,
        request_log=request_log,
        access_log=access_log,
        log_format=log_format,
    )

    if workers > 1 and settings.db_url.startswith("sqlite"):
        raise click.ClickException(
            "--workers needs a PostgreSQL database (--db postgresql://...): SQLite allows one "
            "writing process, so run one process on it"
        )
    configure_logging(log_format, log_level, access_log)  # the supervisor's lines too (`--workers`)
    prepare_database(settings.db_url)  # before uvicorn, whose start-up failures are tracebacks
    if workers == 1:
        _serve_process(settings, log_level)
        return
    from roost.workers import Supervisor, listening_socket

    try:
        sock = listening_socket(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sys.exit(Supervisor(workers, sock, _worker, (settings, log_level, workers)).run())


def _worker(number: int, sock: socket.socket, settings: Settings, log_level: str, workers: int) -> None:
    """One of `--workers N` processes (spawned by `roost.workers.Supervisor`); the first announces."""
    _serve_process(settings, log_level, sock=sock, announce=number == 0, workers=workers)


def _serve_process(
    settings: Settings,
    log_level: str,
    sock: socket.socket | None = None,
    announce: bool = True,
    workers: int = 1,
) -> None:
    """Serve in this process until SIGINT or SIGTERM: on `sock` when given, else on the settings' port."""
    from roost.app import RoostApp
    from roost.control.state import ServerState

    announcing: list[asyncio.Task[None]] = []

    async def ready(state: ServerState) -> None:
        # Called at the end of the app's start-up, before the server listens: announce once it does,
        # so whoever waits for this output can connect at once.
        if announce:
            announcing.append(asyncio.ensure_future(say_ready(state)))

    async def say_ready(state: ServerState) -> None:
        while not server.listening.is_set():
            await asyncio.sleep(0.01)
        database = _redact(settings.db_url) + (f", {workers} processes" if workers > 1 else "")
        click.echo(f"roost is ready at {settings.base_url}  (database: {database})")
        click.echo(f"  platform API v2 : {settings.base_url}/2/...   OAuth: {settings.base_url}/oauth/...")
        click.echo(
            f"  ads API v12     : {settings.base_url}/12/...   sandbox: {settings.base_url}/sandbox/12/..."
        )
        click.echo(f"  control plane   : {settings.base_url}/_roost/health, /_roost/credentials")
        if settings.admin_token:
            click.echo("                    (send X-Roost-Admin-Token: the token given to --admin-token)")
        click.echo(f"  run a program   : roost run --target {settings.base_url} -- python your_script.py")
        if settings.demo:
            creds = await state.credentials()
            click.echo("  demo credentials:")
            for key, value in creds.items():
                if not isinstance(value, dict):
                    click.echo(f"    {key:<20} {value}")
            for key, value in creds.items():
                if isinstance(value, dict):  # a second app's credentials (the pay-per-use demo app)
                    click.echo(f"  {key.replace('_', '-')} app credentials (the same user):")
                    for inner, inner_value in value.items():
                        click.echo(f"    {inner:<20} {inner_value}")
        sys.stdout.flush()

    app = RoostApp(settings, on_ready=ready)
    server = Server(
        app,
        settings.host,
        settings.port,
        log_level=log_level,
        on_stop=app.end_streams,
        request_timeout_s=settings.number("request_timeout_s", REQUEST_TIMEOUT_S, positive=True),
        sock=sock,
    )
    # After uvicorn's configuration, which installs its own handlers; in each `--workers` process.
    configure_logging(settings.log_format, log_level, settings.access_log)
    server.run()


@main.command(
    epilog="""\b
Examples:
  roost receiver --consumer-secret "$SECRET"                 # on 127.0.0.1:8090
  roost receiver --port 9000 --consumer-secret "$SECRET" --fail-status 503
  curl -X POST localhost:8090/_receiver/mode -d '{"fail_status": null}'   # back to normal"""
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=8090, show_default=True, type=int, help="Port to listen on.")
@click.option(
    "--consumer-secret",
    envvar="ROOST_CONSUMER_SECRET",
    required=True,
    help="The app's consumer secret (or ROOST_CONSUMER_SECRET): signs CRC answers, checks signatures.",
)
@click.option(
    "--brand",
    type=click.Choice(["twitter", "x", "service"]),
    default="twitter",
    show_default=True,
    help="Signature header to check: x-twitter-webhooks-signature (twitter, x) or "
    "x-service-webhooks-signature (service).",
)
@click.option(
    "--fail-status", type=click.IntRange(100, 599), default=None, help="Answer every request with N."
)
@click.option(
    "--delay", type=click.FloatRange(0, 120), default=0.0, help="Seconds to wait before each answer."
)
@click.option("--wrong-token", is_flag=True, help="Answer CRC checks with a wrong response_token.")
def receiver(
    host: str,
    port: int,
    consumer_secret: str,
    brand: str,
    fail_status: int | None,
    delay: float,
    wrong_token: bool,
) -> None:
    """Run a local webhook receiver: answers CRC checks, verifies signatures and prints each event as
    one JSON line; failure modes switchable at runtime with POST /_receiver/mode."""
    from roost.receiver import Mode, ReceiverState, run

    mode = Mode(
        status=None if fail_status in (None, 200) else fail_status, delay=delay, wrong_token=wrong_token
    )
    state = ReceiverState(
        consumer_secret=consumer_secret, brand="service" if brand == "service" else "twitter"
    )
    state.mode = mode
    run(host, port, state)


def _key_values(options: tuple[str, ...]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected KEY=VALUE, got {option!r}", param_hint="--option")
        pairs[key.strip()] = value.strip()
    from roost.control.settings_catalogue import BY_KEY, unknown_keys

    unknown = unknown_keys(list(pairs))
    if unknown:  # a misspelt setting would otherwise do nothing, silently
        raise click.BadParameter(
            f"unknown feature setting(s) {', '.join(unknown)}; known: {', '.join(sorted(BY_KEY))}",
            param_hint="--option",
        )
    return pairs


def _limits(path: str) -> dict[str, Any]:
    """The --limits file: a JSON object of operation name → {app, user, window_s, …} objects."""
    try:
        limits = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise click.BadParameter(f"{path} is not readable JSON ({exc})", param_hint="--limits") from None
    if not isinstance(limits, dict) or not all(isinstance(value, dict) for value in limits.values()):
        raise click.BadParameter(
            f"{path} must hold a JSON object of operation names to objects", param_hint="--limits"
        )
    return limits


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        credentials, host = rest.rsplit("@", 1)
        return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}" if ":" in credentials else url
    return url


@main.command(
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    epilog="""\b
Examples:
  roost run -- python my_bot.py                 # its requests for api.x.com, … go to roost
  roost run --target http://127.0.0.1:9000 --credentials -- node bot.js   # ROOST_BEARER_TOKEN, …""",
)
@click.option("--target", default="http://127.0.0.1:8080", show_default=True, help="The roost server.")
@click.option(
    "--credentials",
    is_flag=True,
    help="Give COMMAND the demo credentials: ROOST_BEARER_TOKEN, ROOST_CONSUMER_KEY, ROOST_ACCESS_TOKEN, "
    "… and twarc's BEARER_TOKEN, CONSUMER_KEY, … (docs/proxy.md).",
)
@click.argument("command", nargs=-1, type=click.UNPROCESSED, required=True)
def run(target: str, credentials: bool, command: tuple[str, ...]) -> None:
    """Run COMMAND with the platform's public hosts sent to roost (Python and Node programs)."""
    from roost.commands.run_checks import prepare_run
    from roost.redirect import run_redirected

    os.environ.update(prepare_run(target, credentials))  # first: nothing starts unless roost answers
    sys.exit(run_redirected(target, list(command)))


main.add_command(apps)
main.add_command(users)
main.add_command(tokens)
main.add_command(seed)
main.add_command(snapshot)
main.add_command(proxy)


if __name__ == "__main__":
    main()
