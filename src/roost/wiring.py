"""One server's parts, built from its settings and database: the stores, the domain's services with
the collaborators each one uses, the event layer's services, and the shared pipeline stages.

This is the only module that knows every part. Handlers reach the domain through `Domain` (on each
`Call`), never storage; domain services are given what they touch, so their signatures say it.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from roost.config import Settings
from roost.core.clock import Clock
from roost.core.fields import FieldsEngine
from roost.core.stages import ProblemTypes, Stages, TransactionIds
from roost.data.demo import AdsSeed, DemoSeed, SeedSources
from roost.data.demo_ads import seed_ads
from roost.domain.accounts import AccountService
from roost.domain.dm_objects import DM_EXPANSIONS, DM_KINDS
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.lookup import Lookup
from roost.domain.maintenance import Maintenance
from roost.domain.oauth1_flow import OAuth1Flow
from roost.domain.oauth2_flow import OAuth2Flow
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.posts import PostService
from roost.domain.sign_in import SignIn
from roost.domain.social import follow_directly
from roost.domain.timelines import Timelines
from roost.domain.transfer import Transfer
from roost.services import Services
from roost.storage.db import Database


@dataclass(frozen=True, slots=True)
class Domain:
    """What handlers may call: one service per aggregate or use case."""

    lookup: Lookup
    posts: PostService
    timelines: Timelines
    accounts: AccountService
    oauth1: OAuth1Flow
    oauth2: OAuth2Flow
    sign_in: SignIn
    transfer: Transfer
    maintenance: Maintenance


@dataclass(slots=True)
class Server:
    """Everything one server owns; `app.py` serves it, `cli.py` and the tests drive it."""

    settings: Settings
    services: Services
    stages: Stages
    engine: FieldsEngine
    domain: Domain
    demo: DemoSeed


def fields_engine() -> FieldsEngine:
    """Every object kind the v2 surface renders, with what each expands to."""
    return FieldsEngine((*KINDS, *DM_KINDS, *LIKE_KINDS), {**EXPANSIONS, **DM_EXPANSIONS, **LIKE_EXPANSIONS})


def assemble(settings: Settings, db: Database, clock: Clock | None = None) -> Server:
    services = Services.build(settings, db, clock)
    stages = Stages(
        authenticator=services.authenticator,
        limiter=services.rate_limiter,
        clock=services.clock,
        max_body=settings.max_body_bytes,
        transaction_ids=TransactionIds(settings.random_seed),
        problem_types=ProblemTypes(settings.problem_type_base),
    )
    lookup = Lookup(services.posts, services.users)
    clock = services.clock  # the one given, or a new one
    ids, tokens, authenticator = services.ids, services.tokens, services.authenticator
    apps, users = services.apps, services.users
    accounts = AccountService(
        db, apps, users, clock, ids, tokens, authenticator, functools.partial(follow_directly, services)
    )
    maintenance = Maintenance(
        db, apps, users, services.posts, clock, ids, authenticator, services.rate_limiter
    )
    domain = Domain(
        lookup=lookup,
        posts=PostService(db, services.clock, services.ids, url_seed=settings.seed),
        timelines=Timelines(services.posts, lookup),
        accounts=accounts,
        oauth1=OAuth1Flow(db, apps, users, clock, tokens, authenticator, accounts, settings),
        oauth2=OAuth2Flow(db, apps, clock, tokens, authenticator),
        sign_in=SignIn(db, users, clock),
        transfer=Transfer(db, users, services.posts, clock, maintenance),
        maintenance=maintenance,
    )
    demo = DemoSeed(
        enabled=settings.demo,
        seed=settings.seed,
        db=db,
        users=users,
        clock=clock,
        accounts=accounts,
        maintenance=maintenance,
        ads=_demo_ads(services),
    )
    return Server(settings, services, stages, fields_engine(), domain, demo)


def _demo_ads(services: Services) -> AdsSeed:
    """The demo advertiser, seeded through the ads rules with the demo accounts' sources."""

    async def seed(sources: SeedSources, owner_user_id: int, now_ms: int) -> None:
        seeding = dataclasses.replace(services, clock=sources.clock, ids=sources.ids, tokens=sources.tokens)
        await seed_ads(seeding, owner_user_id, now_ms)

    return seed
