"""`roost seed`: a deterministic, realistic dataset (users, follows, posts with mentions, replies and
quotes) loaded straight into a database, the benchmark's bulk loader (`data/bulk.py`) made a command.

The rows are laid out before a fixed instant, so one `--seed` gives the same rows (ids included) on
any machine, any day, on SQLite and PostgreSQL. The demo data, when present, stays: the seeded users
and posts are added to it, before its window of recent posts.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import click

from roost.commands.database import prepare_database
from roost.config import Settings

# The instant the data ends a month before: fixed, so that the rows do not depend on the day.
ANCHOR_MS = 1_735_689_600_000  # 2025-01-01T00:00:00Z
STAGES = (("users", "users"), ("follows", "follows"), ("posts", "posts"))


class _OneLineErrors(click.Command):
    """Bad arguments as one `Error: …` line (click's usage block would bury it in a script's log)."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as exc:
            raise click.ClickException(f"{exc.format_message()} (see `roost seed --help`)") from None


@click.command(cls=_OneLineErrors)
@click.option(
    "--users",
    type=click.IntRange(min=1),
    default=1_000,
    show_default=True,
    metavar="N",
    help="Users to add, e.g. --users 10000.",
)
@click.option(
    "--posts",
    type=click.IntRange(min=0),
    default=10_000,
    show_default=True,
    metavar="M",
    help="Posts to add (about 15% replies, 6% quotes, a quarter with mentions), e.g. --posts 100000.",
)
@click.option(
    "--follows",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    metavar="K",
    help="About K follows per user, e.g. --follows 50: popular accounts are followed most and the "
    "follower counts are the rows' counts (0: no follow rows, drawn counts).",
)
@click.option(
    "--seed",
    "seed",
    type=int,
    default=1,
    show_default=True,
    metavar="S",
    help="The dataset: the same S gives the same rows, e.g. --seed 42.",
)
@click.option(
    "--db",
    "db_url",
    default="",
    metavar="URL",
    help="sqlite:///PATH or postgresql://USER@HOST/NAME (default: the database `roost serve` uses), "
    "e.g. --db sqlite:///tmp/big.db.",
)
def seed(users: int, posts: int, follows: int, seed: int, db_url: str) -> None:
    """Add a deterministic, realistic dataset to a database (created and migrated if new; the demo
    data, if there, is kept).

    \b
    Example:
      roost seed --users 10000 --posts 100000 --follows 50 --seed 7 --db sqlite:///tmp/big.db
      roost serve --db sqlite:///tmp/big.db
    """
    # Imported here: every `roost` command loads this module, few of them seed.
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    settings = Settings(db_url=db_url, demo=False)
    url = settings.db_url
    prepare_database(url)
    description = json.dumps({"seed": seed, "users": users, "posts": posts, "follows": follows})
    console = Console(stderr=True)
    with Progress(
        TextColumn("{task.description:>8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,  # a log gets the summary line, not bar frames
    ) as bars:
        expected = {"users": users, "follows": users * follows, "posts": posts}
        tasks = {
            stage: bars.add_task(label, total=expected[stage]) for stage, label in STAGES if expected[stage]
        }

        def advance(stage: str, rows: int) -> None:
            bars.advance(tasks[stage], rows)

        result = asyncio.run(_load(url, settings.seed, users, posts, follows, seed, description, advance))
        for stage, task in tasks.items():  # the follows' count is drawn: end each bar at its real count
            done = result[stage]
            bars.update(task, total=done, completed=done)
    click.echo(
        f"seeded {users:,} users, {result['follows']:,} follows, {posts:,} posts "
        f"({result['post_mentions']:,} mentions, {result['replies']:,} replies, {result['quotes']:,} quotes) "
        f"with seed {seed} in {result['seconds']:.1f} s"
    )


async def _load(
    url: str,
    url_seed: int,
    users: int,
    posts: int,
    follows: int,
    seed: int,
    description: str,
    advance: Any,
) -> dict[str, Any]:
    from roost.core.clock import Clock
    from roost.core.ids import SnowflakeGenerator
    from roost.data.bulk import load_bulk, mark_seeded, seeded_before
    from roost.storage.db import open_database

    db = await open_database(url)
    try:
        earlier = await seeded_before(db)
        if earlier is not None:
            raise click.ClickException(
                f"this database was seeded already ({earlier}); its usernames and ids would collide: "
                "seed a new database (--db), or reset this one first (POST /_roost/reset)"
            )
        # Marked first: a load cut short leaves rows that a second attempt would collide with too.
        await mark_seeded(db, description)
        clock = Clock(frozen_ms=ANCHOR_MS)
        try:
            result = await load_bulk(
                db,
                clock,
                SnowflakeGenerator(clock),
                url_seed=url_seed,
                users=users,
                posts=posts,
                seed=seed,
                follows=follows,
                progress=advance,
            )
        except Exception as exc:
            if "unique" not in str(exc).lower():
                raise
            raise click.ClickException(
                f"the seeded rows collide with rows already in the database ({str(exc).splitlines()[0]})"
            ) from None
        return result
    finally:
        await db.close()
