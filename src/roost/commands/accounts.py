"""`roost apps`, `roost users`, `roost tokens`: developer apps, users and their tokens, managed
straight in the database (no server needed), each printing what it made as JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from roost.commands.database import prepare_database
from roost.config import Settings
from roost.domain.packages import DEFAULT_PACKAGE, PACKAGES

if TYPE_CHECKING:
    from roost.core.errors import ApiError
    from roost.wiring import Domain


def _offline(db_url: str, work: Callable[[Domain], Awaitable[Any]]) -> Any:
    """Run `work(domain)` against the database without a server; refusals are one-line errors."""
    from roost.core.errors import ApiError
    from roost.storage.db import open_database
    from roost.wiring import assemble

    settings = Settings(db_url=db_url, demo=False)

    async def go() -> Any:
        db = await open_database(settings.db_url)
        try:
            domain = assemble(settings, db).domain
            await domain.maintenance.observe_ids()
            return await work(domain)
        finally:
            await db.close()

    prepare_database(settings.db_url)
    try:
        return asyncio.run(go())
    except ApiError as exc:
        raise click.ClickException(_refusal(exc)) from None


def _refusal(error: ApiError) -> str:
    """The messages of an error body (the control plane's wording), else its detail."""
    items = error.body.get("errors")
    messages = [item["message"] for item in items or () if isinstance(item, dict) and item.get("message")]
    return "; ".join(messages) or str(error)


db_option = click.option("--db", "db_url", default="", help="Database URL (default: the serve default).")


@click.group()
def apps() -> None:
    """Developer apps and their keys."""


@apps.command(
    "create",
    epilog="""\b
Example:
  roost apps create --name my-bot --permission read-write --callback http://127.0.0.1:3000/cb""",
)
@click.option("--name", required=True, help="The app's name.")
@click.option(
    "--permission",
    type=click.Choice(["read", "read-write", "read-write-directmessages"]),
    default="read-write-directmessages",
    show_default=True,
    help="What the app's OAuth 1.0a user tokens may do.",
)
@click.option("--owner", "owner", default=None, help="Username of the app owner.")
@click.option("--callback", "callbacks", multiple=True, help="Registered callback URL (repeatable).")
@click.option(
    "--package",
    type=click.Choice(list(PACKAGES)),
    default=DEFAULT_PACKAGE,
    show_default=True,
    help="The app's access package: which limits and self-serve rules hold (docs/access-levels.md).",
)
@db_option
def apps_create(
    name: str, permission: str, owner: str | None, callbacks: tuple[str, ...], package: str, db_url: str
) -> None:
    """Create an app; prints its keys, bearer token and OAuth 2.0 client."""
    from roost.control.routes import app_view

    async def work(domain: Domain) -> dict[str, Any]:
        owner_id = None
        if owner:
            row = await domain.accounts.user_by_username(owner)
            if row is None:
                raise click.ClickException(f"no user named {owner}")
            owner_id = row["id"]
        app = await domain.accounts.create_app(
            name=name,
            owner_user_id=owner_id,
            permission=permission,
            callback_urls=list(callbacks),
            package=package,
        )
        return app_view(app)

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@apps.command(
    "package",
    epilog="""\b
Example:
  roost apps package --consumer-key "$CONSUMER_KEY" --package pay-per-use""",
)
@click.option("--consumer-key", required=True, help="The app's consumer key.")
@click.option("--package", type=click.Choice(list(PACKAGES)), required=True, help="The new package.")
@db_option
def apps_package(consumer_key: str, package: str, db_url: str) -> None:
    """Move an app to another access package (a running server sees it within 2 seconds)."""
    from roost.control.routes import app_view

    async def work(domain: Domain) -> dict[str, Any]:
        return app_view(await domain.accounts.change_package(consumer_key, package))

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@apps.command(
    "credit",
    epilog="""\b
Examples:
  roost apps credit --consumer-key "$CONSUMER_KEY" --usd 5
  roost apps credit --consumer-key "$CONSUMER_KEY" --no-limit""",
)
@click.option("--consumer-key", required=True, help="The app's consumer key.")
@click.option("--usd", type=click.FloatRange(min=0), default=None, help="Dollars of credit left.")
@click.option("--no-limit", is_flag=True, help="Take the credit limit away.")
@db_option
def apps_credit(consumer_key: str, usd: float | None, no_limit: bool, db_url: str) -> None:
    """Give an app credit to spend at the pay-per-use prices; once spent, its requests answer 402
    (a running server sees the change within a second)."""
    if (usd is None) == (not no_limit):
        raise click.UsageError("give either --usd or --no-limit")
    from roost.domain.ledger import UnknownApp

    async def work(domain: Domain) -> dict[str, Any]:
        try:
            return await domain.ledger.set_credit(consumer_key, usd)
        except UnknownApp:
            raise click.ClickException(f"no app has the consumer key {consumer_key}") from None

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@apps.command(
    "regenerate",
    epilog="""\b
Example:
  roost apps regenerate --consumer-key "$CONSUMER_KEY\"""",
)
@click.option("--consumer-key", required=True, help="The app's current consumer key.")
@db_option
def apps_regenerate(consumer_key: str, db_url: str) -> None:
    """New consumer key, secret and bearer token; the old ones stop working."""
    from roost.control.routes import app_view

    async def work(domain: Domain) -> dict[str, Any]:
        if await domain.accounts.app_by_consumer_key(consumer_key) is None:
            raise click.ClickException("no app with that consumer key")
        return app_view(await domain.accounts.regenerate_app_keys(consumer_key))

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@click.group()
def users() -> None:
    """Users."""


@users.command(
    "create",
    epilog="""\b
Example:
  roost users create --username alice --name "Alice" --premium --password hunter2""",
)
@click.option("--username", required=True, help="The handle, without @.")
@click.option("--name", default=None, help="Display name (default: the username).")
@click.option("--description", default="", help="Profile description (bio).")
@click.option("--premium", is_flag=True, help="Give the user the premium subscription (long posts, edits).")
@click.option("--protected", is_flag=True, help="Protected posts: only approved followers see them.")
@click.option("--password", default=None, help="Password for the sign-in page of the authorize flows.")
@db_option
def users_create(
    username: str,
    name: str | None,
    description: str,
    premium: bool,
    protected: bool,
    password: str | None,
    db_url: str,
) -> None:
    """Create a user; prints its id and username."""

    async def work(domain: Domain) -> dict[str, Any]:
        row = await domain.accounts.create_user(
            username=username,
            name=name,
            description=description,
            subscription_type="Premium" if premium else "None",
            protected=protected,
            password=password,
        )
        return {"id": str(row["id"]), "username": row["username"]}

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@click.group()
def tokens() -> None:
    """User access tokens."""


@tokens.command(
    "regenerate",
    epilog="""\b
Example:
  roost tokens regenerate --access-token "$ACCESS_TOKEN\"""",
)
@click.option("--access-token", required=True, help="The OAuth 1.0a access token to replace.")
@db_option
def tokens_regenerate(access_token: str, db_url: str) -> None:
    """Revoke an OAuth 1.0a access token and issue a new pair (the old one gets 401 code 89)."""
    from roost.core.errors import ApiError
    from roost.domain.accounts import oauth1_credentials

    async def work(domain: Domain) -> dict[str, str]:
        try:
            token = await domain.oauth1.regenerate_user_token(access_token)
        except ApiError as exc:
            raise click.ClickException("no live OAuth 1.0a access token with that value") from exc
        return oauth1_credentials(token)

    click.echo(json.dumps(_offline(db_url, work), indent=2))


@tokens.command(
    "issue",
    epilog="""\b
Examples:
  roost tokens issue --consumer-key "$CONSUMER_KEY" --username alice
  roost tokens issue --consumer-key "$CONSUMER_KEY" --username alice --kind oauth2 \\
      --scopes "tweet.read tweet.write users.read offline.access\"""",
)
@click.option("--consumer-key", required=True, help="The app the token is for.")
@click.option("--username", required=True, help="The user the token acts for.")
@click.option(
    "--kind",
    type=click.Choice(["oauth1", "oauth2"]),
    default="oauth1",
    show_default=True,
    help="OAuth 1.0a access token and secret, or an OAuth 2.0 access token.",
)
@click.option(
    "--access-level",
    type=click.Choice(["read", "read-write", "read-write-directmessages"]),
    default=None,
    help="OAuth 1.0a access level (default: the app's permission).",
)
@click.option("--scopes", default=None, help="OAuth 2.0 scopes, space separated.")
@db_option
def tokens_issue(
    consumer_key: str, username: str, kind: str, access_level: str | None, scopes: str | None, db_url: str
) -> None:
    """Issue a user access token for an app without the authorize flow; prints it."""

    async def work(domain: Domain) -> dict[str, str]:
        app = await domain.accounts.app_by_consumer_key(consumer_key)
        user = await domain.accounts.user_by_username(username)
        if app is None or user is None:
            raise click.ClickException("unknown consumer key or username")
        return await domain.accounts.issue(
            app, user["id"], kind=kind, access_level=access_level, scopes=scopes
        )

    click.echo(json.dumps(_offline(db_url, work), indent=2))
