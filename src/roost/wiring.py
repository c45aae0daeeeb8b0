"""One server's parts, built from its settings and database: the stores, the domain's services with
the collaborators each one uses, the event layer's services, and the shared pipeline stages.

This is the only module that knows every part. Handlers reach the domain through `Domain` (on each
`Call`), never storage; domain services are given what they touch, so their signatures say it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from roost.ads.account_settings import AccountSettings
from roost.ads.accounts import Accounts
from roost.ads.batch import Batches
from roost.ads.campaigns import Campaigns
from roost.ads.domain import AdsDomain
from roost.ads.entities import Entities
from roost.ads.line_items import LineItems
from roost.ads.management import Management
from roost.ads.promoted import Promoted
from roost.ads.recommendations import Recommendations
from roost.ads.targeting import Resolver
from roost.ads.targeting_criteria import Targeting
from roost.ads.targeting_suggestions import Suggestions
from roost.ads.tracking_tags import TrackingTags
from roost.config import Settings
from roost.core.clock import Clock
from roost.core.fields import FieldsEngine
from roost.core.stages import ProblemTypes, Stages, TransactionIds
from roost.data.demo import AdsSeed, DemoSeed, SeedSources
from roost.data.demo_ads import seed_ads
from roost.domain import usage
from roost.domain.accounts import AccountService
from roost.domain.dm_events import DmEvents
from roost.domain.dm_objects import DM_EXPANSIONS, DM_KINDS
from roost.domain.dms import DmService
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.lookup import Lookup
from roost.domain.maintenance import Maintenance
from roost.domain.oauth1_flow import OAuth1Flow
from roost.domain.oauth2_flow import OAuth2Flow
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.posts import PostService
from roost.domain.profiles import Profiles
from roost.domain.search import SearchService
from roost.domain.sign_in import SignIn
from roost.domain.social import SocialService
from roost.domain.social_lists import SocialLists
from roost.domain.spaces import Spaces
from roost.domain.timelines import Timelines
from roost.domain.transfer import Transfer
from roost.services import Services
from roost.storage.db import Database
from roost.storage.search import SearchStore
from roost.storage.social import SocialStore


@dataclass(frozen=True, slots=True)
class Domain:
    """What handlers may call: one service per aggregate or use case."""

    lookup: Lookup
    posts: PostService
    search: SearchService
    timelines: Timelines
    social: SocialService
    social_lists: SocialLists
    profiles: Profiles
    spaces: Spaces
    dms: DmService
    dm_events: DmEvents
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
    ads: AdsDomain  # what ads handlers and the ads control plane call
    demo: DemoSeed


class _ProjectPostCap:
    """The post cap as `SearchService` asks for it, over domain/usage.py's functions (which still take
    the `Services` locator)."""

    def __init__(self, services: Services) -> None:
        self._services = services

    async def ensure_under_cap(self, project_id: int) -> None:
        await usage.ensure_under_cap(self._services, project_id)

    async def record_usage(self, project_id: int, count: int, app_id: int) -> None:
        await usage.record_usage(self._services, project_id, count, app_id)


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
    clock, ids, tokens = services.clock, services.ids, services.tokens
    apps, users, posts = services.apps, services.users, services.posts
    authenticator = services.authenticator
    lookup = Lookup(posts, users)
    social = SocialService(db, clock, ids, posts, lookup)
    accounts = AccountService(db, apps, users, clock, ids, tokens, authenticator, social.follow_directly)
    maintenance = Maintenance(db, apps, users, posts, clock, ids, authenticator, services.rate_limiter)
    domain = Domain(
        lookup=lookup,
        posts=PostService(db, clock, ids, url_seed=settings.seed),
        search=SearchService(SearchStore(db), settings, _ProjectPostCap(services)),
        timelines=Timelines(posts, lookup),
        social=social,
        social_lists=SocialLists(SocialStore(db), users, posts, lookup),
        profiles=Profiles(db, clock, ids),
        spaces=Spaces(db, clock, ids, tokens),
        dms=DmService(db, clock, ids, users),
        dm_events=DmEvents(services.dms, users),
        accounts=accounts,
        oauth1=OAuth1Flow(db, apps, users, clock, tokens, authenticator, accounts, settings),
        oauth2=OAuth2Flow(db, apps, clock, tokens, authenticator),
        sign_in=SignIn(db, users, clock),
        transfer=Transfer(db, users, posts, clock, maintenance),
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
    ads = ads_domain(settings, db, services)
    return Server(settings, services, stages, fields_engine(), domain, ads, demo)


def _demo_ads(services: Services) -> AdsSeed:
    """The demo advertiser, seeded through the ads rules with the demo accounts' sources."""

    async def seed(sources: SeedSources, owner_user_id: int, now_ms: int) -> None:
        seeding = dataclasses.replace(services, clock=sources.clock, ids=sources.ids, tokens=sources.tokens)
        await seed_ads(seeding, owner_user_id, now_ms)

    return seed


def ads_domain(settings: Settings, db: Database, services: Services) -> AdsDomain:
    """The ads rule layer: one store, one entity lifecycle, and a service per resource family."""
    store, users, clock = services.ads, services.users, services.clock
    entities = Entities(store, services.ids)
    accounts = Accounts(db, store, entities)
    campaigns = Campaigns(db, store, entities)
    line_items = LineItems(db, store, entities, settings.brand)
    targeting = Targeting(db, store, entities, Resolver(store, users))
    return AdsDomain(
        entities=entities,
        accounts=accounts,
        settings=AccountSettings(db, store),
        campaigns=campaigns,
        line_items=line_items,
        promoted=Promoted(db, store, entities, users, services.posts, services.ids),
        targeting=targeting,
        suggestions=Suggestions(db, users),
        tracking_tags=TrackingTags(db, entities),
        recommendations=Recommendations(store),
        batches=Batches(db, campaigns, line_items, targeting),
        management=Management(db, store, entities, accounts, users, clock),
    )
