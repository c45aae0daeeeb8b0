"""One server's parts, built from its settings and database: the stores, the domain's services with
the collaborators each one uses, the event layer's services, and the shared pipeline stages.

This is the only module that knows every part. Handlers reach the domain through `Domain` (on each
`Call`), never storage; domain services are given what they touch, so their signatures say it.
"""

from __future__ import annotations

from dataclasses import dataclass

from roost.config import Settings
from roost.core.clock import Clock
from roost.core.fields import FieldsEngine
from roost.core.stages import ProblemTypes, Stages, TransactionIds
from roost.domain.activity import ActivityService
from roost.domain.dm_objects import DM_EXPANSIONS, DM_KINDS
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.lookup import Lookup
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.posts import PostService
from roost.domain.stream_links import StreamLinkService
from roost.domain.stream_rules import StreamRuleService
from roost.domain.timelines import Timelines
from roost.domain.usage import Usage
from roost.domain.webhooks import WebhookService
from roost.events.aaa import AccountActivity
from roost.events.connection_admin import ConnectionAdmin
from roost.events.connections import Registry
from roost.events.deliveries import DeliveryRecords
from roost.events.dispatch import Dispatcher
from roost.events.hub import StreamHub
from roost.events.outbound import OutboundCalls
from roost.events.replay import ReplayJobs
from roost.events.schedule import CrcScheduler
from roost.events.stream_hooks import StreamHooks
from roost.events.stream_posts import StreamObjects
from roost.events.tail import EventLog
from roost.events.xaa import ActivityEvents
from roost.search.ruleset import RuleSet
from roost.services import Services
from roost.storage.aaa import AaaStore
from roost.storage.activity import ActivityStore
from roost.storage.db import Database
from roost.storage.deliveries import DeliveryStore
from roost.storage.replays import ReplayStore
from roost.storage.stream_links import StreamLinkStore
from roost.storage.stream_rules import StreamRuleStore
from roost.storage.streams import StreamStore


@dataclass(frozen=True, slots=True)
class Domain:
    """What handlers may call: one service per aggregate or use case."""

    lookup: Lookup
    posts: PostService
    timelines: Timelines
    webhooks: WebhookService
    stream_links: StreamLinkService
    activity: ActivityService
    stream_rules: StreamRuleService
    usage: Usage
    streams: StreamHub  # every stream operation; ends the open streams when the server stops
    connections: ConnectionAdmin  # /2/connections
    deliveries: DeliveryRecords  # /_roost/deliveries


@dataclass(slots=True)
class Server:
    """Everything one server owns; `app.py` serves it, `cli.py` and the tests drive it."""

    settings: Settings
    services: Services
    stages: Stages
    engine: FieldsEngine
    domain: Domain
    dispatcher: Dispatcher  # started and stopped by the app's lifespan


def fields_engine() -> FieldsEngine:
    """Every object kind the v2 surface renders, with what each expands to."""
    return FieldsEngine((*KINDS, *DM_KINDS, *LIKE_KINDS), {**EXPANSIONS, **DM_EXPANSIONS, **LIKE_EXPANSIONS})


@dataclass(frozen=True, slots=True)
class EventLayer:
    """The event layer of one server: its streams and their connections, the webhook dispatcher and
    what the domain asks of the outside (CRC requests, the replay worker's wake-up)."""

    streams: StreamHub
    connections: ConnectionAdmin
    deliveries: DeliveryRecords
    dispatcher: Dispatcher
    outbound: OutboundCalls


def event_layer(services: Services, engine: FieldsEngine, lookup: Lookup, usage: Usage) -> EventLayer:
    db, clock, settings = services.db, services.clock, services.settings
    users, posts = services.users, services.posts
    log = EventLog(db, services.events, ActivityStore(db), clock)
    objects = StreamObjects(posts, users, engine, lookup.loader(None), clock)
    aaa = AaaStore(db)
    activity = ActivityEvents(ActivityStore(db), aaa, users, posts, services.dms)

    def rulesets(app_id: int) -> RuleSet:
        return RuleSet(services, app_id)

    connection_rows = StreamStore(db)
    registry = Registry(connection_rows, settings, clock, services.tokens)
    replays = ReplayJobs(ReplayStore(db), clock)
    deliveries = DeliveryStore(db)
    dispatcher = Dispatcher(
        log,
        deliveries,
        services.webhooks,
        services.apps,
        settings,
        fanouts=(
            AccountActivity(aaa, users, posts, services.dms),
            activity,
            StreamHooks(objects, StreamLinkStore(db), rulesets),  # links and rules held in memory
        ),
        crc_scheduler=CrcScheduler(services.webhooks, services.apps, clock, services.tokens, settings),
        replays=replays,
    )
    return EventLayer(
        streams=StreamHub(registry, log, objects, usage, activity, rulesets, settings),
        connections=ConnectionAdmin(registry, connection_rows, db, clock, services.ids),
        deliveries=DeliveryRecords(deliveries),
        dispatcher=dispatcher,
        outbound=OutboundCalls(settings, replays),
    )


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
    engine = fields_engine()
    ids, tokens, apps, users = services.ids, services.tokens, services.apps, services.users
    usage = Usage(StreamStore(db), services.clock, settings)
    events = event_layer(services, engine, lookup, usage)
    webhooks = WebhookService(
        db, services.clock, ids, tokens, settings, apps, users, services.webhooks, events.outbound
    )
    domain = Domain(
        lookup=lookup,
        posts=PostService(db, services.clock, services.ids, url_seed=settings.seed),
        timelines=Timelines(services.posts, lookup),
        webhooks=webhooks,
        stream_links=StreamLinkService(db, services.clock, ids, apps, StreamLinkStore(db), webhooks),
        activity=ActivityService(
            db, services.clock, ids, settings, ActivityStore(db), users, services.webhooks
        ),
        stream_rules=StreamRuleService(db, services.clock, ids, settings, StreamRuleStore(db)),
        usage=usage,
        streams=events.streams,
        connections=events.connections,
        deliveries=events.deliveries,
    )
    return Server(settings, services, stages, engine, domain, events.dispatcher)
