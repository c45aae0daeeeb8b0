"""`roost proxy`: the HTTPS forward proxy for programs in any language (docs/proxy.md)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from roost.config import default_data_dir

if TYPE_CHECKING:  # imported when the command runs: `roost --help` need not load cryptography
    from roost.proxy import ProxyServer

DEFAULT_TARGET = "http://127.0.0.1:8080"


@click.command(
    epilog="""\b
Examples:
  roost proxy                                   # on 127.0.0.1:8899, to roost on 127.0.0.1:8080
  curl --proxy http://127.0.0.1:8899 --cacert "$(roost proxy --print-ca)" \\
       -H "Authorization: Bearer $TOKEN" https://api.x.com/2/users/me
  HTTPS_PROXY=http://127.0.0.1:8899 NODE_EXTRA_CA_CERTS="$(roost proxy --print-ca)" \\
       NODE_USE_ENV_PROXY=1 node app.js
  roost proxy --port 3128 --target http://127.0.0.1:9000 --pass-through"""
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Interface to listen on. Example: --host 0.0.0.0 (other machines must trust the CA too).",
)
@click.option(
    "--port",
    default=8899,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on. Example: --port 3128, then HTTPS_PROXY=http://127.0.0.1:3128.",
)
@click.option(
    "--target",
    default=DEFAULT_TARGET,
    show_default=True,
    help="The roost server that answers the platform's hosts. Example: --target http://127.0.0.1:9000.",
)
@click.option(
    "--pass-through",
    is_flag=True,
    help="Tunnel other hosts untouched instead of refusing them with 403. "
    "Example: --pass-through when the program also downloads from pypi.org.",
)
@click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the CA is kept, under proxy-ca/ (default: $ROOST_DATA_DIR, else ~/.local/share/roost). "
    "Example: --data-dir /tmp/roost-ci.",
)
@click.option(
    "--print-ca",
    is_flag=True,
    help="Print the path of the CA certificate (PEM), creating it if needed, and exit. "
    'Example: curl --cacert "$(roost proxy --print-ca)" ...',
)
def proxy(
    host: str, port: int, target: str, pass_through: bool, data_dir: Path | None, print_ca: bool
) -> None:
    """An HTTPS proxy that sends the platform's hosts (api.x.com, upload.x.com, ads-api.x.com, … and
    their twitter.com names) to roost, for programs in any language; other hosts are refused (403).
    Clients trust roost's local CA (--print-ca); see docs/proxy.md."""
    from roost.proxy import CertificateAuthority, ProxyServer

    authority = CertificateAuthority.in_data_dir(data_dir or default_data_dir())
    if print_ca:
        click.echo(str(authority.ensure()))
        return
    try:
        server = ProxyServer(authority, target, pass_through=pass_through)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--target") from None
    _log_to_stderr()
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(server, host, port, target))


async def _serve(server: ProxyServer, host: str, port: int, target: str) -> None:
    try:
        listening = await server.start(host, port)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = listening.sockets[0].getsockname()[1]
    ca = server.authority.cert_path
    proxy_url = f"http://{host}:{bound}"
    others = "tunnelled untouched" if server.pass_through else "refused (403)"
    click.echo(f"roost proxy on {proxy_url}: the platform's hosts go to {target}; other hosts {others}")
    click.echo(f"CA certificate (trust it in the client): {ca}")
    click.echo(f"  curl --proxy {proxy_url} --cacert {ca} https://api.x.com/2/users/me -H 'Authorization: …'")
    click.echo(f"  HTTPS_PROXY={proxy_url} NODE_EXTRA_CA_CERTS={ca} node app.js   (docs/proxy.md)")
    sys.stdout.flush()
    async with listening:
        await listening.serve_forever()


def _log_to_stderr() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("roost proxy: %(message)s"))
    logger = logging.getLogger("roost.proxy")
    logger.handlers = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False
