"""The database step every command that touches one takes first."""

from __future__ import annotations

import click


def prepare_database(db_url: str) -> None:
    """Bring the database to the newest schema; one that cannot be reached is a one-line error."""
    from roost.storage.migrate import upgrade
    from roost.storage.problems import explain

    try:
        upgrade(db_url)
    except Exception as exc:
        message = explain(exc, db_url)
        if message is None:
            raise
        raise click.ClickException(message) from None
