"""`roost snapshot save FILE` and `roost snapshot load FILE`: a running server's whole state to a file
and back (`GET` / `POST /_roost/snapshot`, `docs/snapshots.md`), streamed both ways with a progress
bar on stderr."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # imported when a command runs: `roost serve` starts without them
    import httpx
    from rich.progress import Progress

CHUNK = 1 << 20

_target = click.option(
    "--target", default="http://127.0.0.1:8080", show_default=True, help="The roost server."
)
_admin_token = click.option(
    "--admin-token",
    envvar="ROOST_ADMIN_TOKEN",
    default=None,
    help="The server's --admin-token, when it has one (also ROOST_ADMIN_TOKEN).",
)


def _progress() -> Progress:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        DownloadColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TransferSpeedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
    )


def _headers(admin_token: str | None) -> dict[str, str]:
    return {"X-Roost-Admin-Token": admin_token} if admin_token else {}


def _refusal(response: httpx.Response) -> click.ClickException:
    try:
        body: Any = response.json()
        detail = body.get("detail") or body.get("title") or body
    except ValueError:
        detail = response.text[:500]
    return click.ClickException(f"the server answered {response.status_code}: {detail}")


def _unreachable(target: str, exc: Exception) -> click.ClickException:
    return click.ClickException(f"could not reach roost at {target}: {exc}")


def _timeout() -> httpx.Timeout:
    import httpx

    # A restore of a large state runs for a while before the server answers: wait for it.
    return httpx.Timeout(30.0, read=3600.0, write=3600.0)


@click.group()
def snapshot() -> None:
    """Save a running server's whole state to a file, or put one back (ids kept)."""


@snapshot.command("save", epilog="Example: roost snapshot save state.json --target http://127.0.0.1:8080")
@click.argument("file", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@_target
@_admin_token
def save(file: Path, target: str, admin_token: str | None) -> None:
    """Write the server's state (GET /_roost/snapshot) to FILE."""
    import httpx

    url = target.rstrip("/") + "/_roost/snapshot"
    started = time.monotonic()
    partial = file.with_name(file.name + ".partial")  # FILE is whole or untouched
    try:
        with (
            httpx.stream("GET", url, headers=_headers(admin_token), timeout=_timeout()) as response,
            _progress() as progress,
        ):
            if response.status_code != 200:
                response.read()
                raise _refusal(response)
            task = progress.add_task("saving", total=None)
            with partial.open("wb") as out:
                for chunk in response.iter_raw(CHUNK):
                    out.write(chunk)
                    progress.advance(task, len(chunk))
    except httpx.HTTPError as exc:
        partial.unlink(missing_ok=True)
        raise _unreachable(target, exc) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    partial.replace(file)
    size = file.stat().st_size
    click.echo(f"saved {size:,} bytes to {file} in {time.monotonic() - started:.1f} s")


@snapshot.command("load", epilog="Example: roost snapshot load state.json --target http://127.0.0.1:8080")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@_target
@_admin_token
def load(file: Path, target: str, admin_token: str | None) -> None:
    """Replace the server's state with FILE's (POST /_roost/snapshot)."""
    import httpx

    url = target.rstrip("/") + "/_roost/snapshot"
    size = file.stat().st_size
    started = time.monotonic()
    headers = {**_headers(admin_token), "Content-Type": "application/json", "Content-Length": str(size)}
    with _progress() as progress:
        task = progress.add_task("loading", total=size)

        def pieces() -> Iterator[bytes]:
            with file.open("rb") as source:
                while chunk := source.read(CHUNK):
                    yield chunk
                    progress.advance(task, len(chunk))

        try:
            response = httpx.post(url, content=pieces(), headers=headers, timeout=_timeout())
        except httpx.HTTPError as exc:
            raise _unreachable(target, exc) from None
    if response.status_code != 200:
        raise _refusal(response)
    rows: dict[str, int] = response.json().get("rows", {})
    click.echo(
        f"restored {sum(rows.values()):,} rows in {len(rows)} tables from {file} "
        f"in {time.monotonic() - started:.1f} s"
    )
