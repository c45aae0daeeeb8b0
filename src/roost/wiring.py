"""One server's parts, built from its settings and database: the stores, the domain's services with
the collaborators each one uses, the event layer's services, and the shared pipeline stages.

This is the only module that knows every part. Handlers reach the domain through `Domain` (on each
`Call`), never storage; domain services are given what they touch, so their signatures say it.
"""

from __future__ import annotations

from dataclasses import dataclass

from roost.ads.account_settings import AccountSettings
from roost.ads.accounts import Accounts
from roost.ads.ads_posts import AdsPosts  # issue 23: creatives
from roost.ads.app_lists import AppLists
from roost.ads.batch import Batches
from roost.ads.campaigns import Campaigns
from roost.ads.cards import Cards
from roost.ads.custom_audiences import CustomAudiences
from roost.ads.domain import AdsDomain
from roost.ads.entities import Entities
from roost.ads.line_items import LineItems
from roost.ads.management import Management
from roost.ads.media_library import MediaLibrary
from roost.ads.planned_posts import PlannedPosts, ScheduledPublisher
from roost.ads.promoted import Promoted
from roost.ads.recommendations import Recommendations
from roost.ads.stats import Stats
from roost.ads.stats_jobs import StatsJobs
from roost.ads.targeting import Resolver
from roost.ads.targeting_criteria import Targeting
from roost.ads.targeting_suggestions import Suggestions
from roost.ads.tracking_tags import TrackingTags
from roost.auth.principals import Authenticator
from roost.config import Settings
from roost.core.clock import Clock
from roost.core.faults import Faults
from roost.core.fields import FieldsEngine
from roost.core.ids import SnowflakeGenerator, TokenSource
from roost.core.journal import RequestJournal
from roost.core.ratelimit import CountingRateLimiter, RateLimiter
from roost.core.stages import ProblemTypes, Stages, TransactionIds
from roost.data.demo import AdsSeed, DemoSeed, SeedSources
from roost.data.demo_ads import seed_ads
from roost.domain.accounts import AccountService
from roost.domain.activity import ActivityService
from roost.domain.analytics import Analytics
from roost.domain.articles import Articles
from roost.domain.bookmarks import Bookmarks
from roost.domain.broadcasts import BroadcastClock, Broadcasts  # issue 22
from roost.domain.chat import ChatService  # issue 22, encrypted chat
from roost.domain.chat_keys import ChatKeys
from roost.domain.chat_media import ChatMedia
from roost.domain.chat_objects import CHAT_EXPANSIONS, CHAT_KINDS
from roost.domain.communities import Communities
from roost.domain.community_objects import COMMUNITY_EXPANSIONS, COMMUNITY_KINDS
from roost.domain.compliance import ComplianceJobs
from roost.domain.compliance_objects import COMPLIANCE_KINDS
from roost.domain.console_admin import ConsoleAdmin  # the console (/_roost/console)
from roost.domain.console_data import ConsoleData
from roost.domain.dm_events import DmEvents
from roost.domain.dm_extras import DmExtras
from roost.domain.dm_objects import DM_EXPANSIONS, DM_KINDS
from roost.domain.dms import DmService
from roost.domain.id_slots import IdSlot
from roost.domain.ledger import Ledger
from roost.domain.like_objects import LIKE_EXPANSIONS, LIKE_KINDS
from roost.domain.list_objects import LIST_EXPANSIONS, LIST_KINDS  # lists (issue 14)
from roost.domain.lists import ListService  # lists (issue 14)
from roost.domain.lookup import Lookup
from roost.domain.maintenance import Maintenance
from roost.domain.media_objects import MEDIA_OBJECT_EXPANSIONS, MEDIA_OBJECT_KINDS
from roost.domain.media_uploads import MediaUploads
from roost.domain.news import News
from roost.domain.notes import Notes
from roost.domain.oauth1_flow import OAuth1Flow
from roost.domain.oauth2_flow import OAuth2Flow
from roost.domain.objects import EXPANSIONS, KINDS
from roost.domain.posts import PostService
from roost.domain.profiles import Profiles
from roost.domain.reposts import Reposts
from roost.domain.revocations import Revocations
from roost.domain.search import SearchService
from roost.domain.shared_limits import SharedWindows  # issue 16
from roost.domain.shared_state import SharedSettings  # issue 16
from roost.domain.sign_in import SignIn
from roost.domain.snapshots import Snapshots  # whole-state snapshots
from roost.domain.social import SocialService
from roost.domain.social_lists import SocialLists
from roost.domain.space_objects import SPACE_EXPANSIONS, SPACE_KINDS
from roost.domain.space_reads import SpaceReads
from roost.domain.spaces import Spaces
from roost.domain.stream_links import StreamLinkService
from roost.domain.stream_rules import StreamRuleService
from roost.domain.stream_ruleset import RuleSet
from roost.domain.timelines import Timelines
from roost.domain.transfer import Transfer
from roost.domain.trends import Trends
from roost.domain.usage import Usage
from roost.domain.user_search import UserSearch
from roost.domain.v1_accounts import V1Accounts
from roost.domain.webhooks import WebhookService
from roost.events.aaa import AccountActivity
from roost.events.connection_admin import ConnectionAdmin
from roost.events.connections import Registry
from roost.events.console_tap import EventTap
from roost.events.deliveries import DeliveryRecords
from roost.events.dispatch import Dispatcher
from roost.events.hub import StreamHub
from roost.events.lease import WorkLease  # issue 16: shared work
from roost.events.outbound import OutboundCalls
from roost.events.replay import ReplayJobs
from roost.events.schedule import CrcScheduler
from roost.events.stream_hooks import StreamHooks
from roost.events.stream_posts import StreamObjects
from roost.events.tail import EventLog
from roost.events.xaa import ActivityEvents
from roost.storage.aaa import AaaStore
from roost.storage.activity import ActivityStore
from roost.storage.ads import AdsStore
from roost.storage.ads_stats import AdsStatsStore
from roost.storage.analytics import AnalyticsStore
from roost.storage.apps import AppStore
from roost.storage.bookmarks import BookmarkStore
from roost.storage.communities import CommunityStore
from roost.storage.console_reads import ConsoleStore
from roost.storage.db import Database
from roost.storage.deliveries import DeliveryStore
from roost.storage.dms import DmStore
from roost.storage.events import EventStore
from roost.storage.leases import LeaseStore  # issue 16: shared work
from roost.storage.ledger import LedgerStore
from roost.storage.lists import ListStore  # lists (issue 14)
from roost.storage.media_uploads import MediaUploadStore
from roost.storage.news import NewsStore
from roost.storage.notes import NoteStore
from roost.storage.posts import PostStore
from roost.storage.replays import ReplayStore
from roost.storage.reposts import RepostStore
from roost.storage.search import SearchStore
from roost.storage.shared_limits import NonceStore, WindowStore  # issue 16
from roost.storage.social import SocialStore
from roost.storage.spaces import SpaceStore
from roost.storage.stream_links import StreamLinkStore
from roost.storage.stream_rules import StreamRuleStore
from roost.storage.streams import StreamStore
from roost.storage.trends import TrendStore
from roost.storage.user_search import UserSearchStore
from roost.storage.users import UserStore
from roost.storage.webhooks import WebhookStore


@dataclass(frozen=True, slots=True)
class Stores:
    """One server's database, the stores over it, and its sources of time, ids and randomness: what
    `assemble` hands out to the services it builds (and what tests may read directly)."""

    db: Database
    clock: Clock
    ids: SnowflakeGenerator
    tokens: TokenSource
    apps: AppStore
    users: UserStore
    posts: PostStore
    events: EventStore
    dms: DmStore
    webhooks: WebhookStore
    ads: AdsStore

    @classmethod
    def over(cls, db: Database, clock: Clock, random_seed: int | None) -> Stores:
        return cls(
            db=db,
            clock=clock,
            ids=SnowflakeGenerator(clock),
            tokens=TokenSource(random_seed),
            apps=AppStore(db),
            users=UserStore(db),
            posts=PostStore(db),
            events=EventStore(db),
            dms=DmStore(db),
            webhooks=WebhookStore(db),
            ads=AdsStore(db),
        )


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
    snapshots: Snapshots  # /_roost/snapshot
    maintenance: Maintenance
    webhooks: WebhookService
    stream_links: StreamLinkService
    activity: ActivityService
    stream_rules: StreamRuleService
    usage: Usage
    ledger: Ledger  # what each app's traffic cost, and its credit (issue 20)
    streams: StreamHub  # every stream operation; ends the open streams when the server stops
    connections: ConnectionAdmin  # /2/connections
    deliveries: DeliveryRecords  # /_roost/deliveries
    # Issue 14, bookmarks, users search and affiliates, DM extras:
    bookmarks: Bookmarks
    dm_extras: DmExtras
    user_search: UserSearch
    lists: ListService  # lists, their members, followers and pins (issue 14)
    reposts: Reposts  # reposts, quotes, hidden replies (issue 14)
    # Issue 15, the Spaces reads and batch compliance jobs:
    space_reads: SpaceReads
    compliance: ComplianceJobs
    # Issue 15, media upload and the v1.1 account reads:
    media_uploads: MediaUploads
    v1_accounts: V1Accounts
    # Issue 15, notes, news, communities, trends, articles, post analytics:
    notes: Notes
    news: News
    communities: Communities
    trends: Trends
    articles: Articles
    analytics: Analytics
    # Issue 16, the clock and feature settings shared by every process on the database:
    shared: SharedSettings
    shared_windows: SharedWindows | None  # on PostgreSQL: windows counted with the other processes
    # The console (/_roost/console): its data pages, its views and actions, its live view of the log.
    console_data: ConsoleData
    console: ConsoleAdmin
    console_tap: EventTap
    # Issue 22, scheduled broadcasts and their chat, and the worker that starts and ends them:
    broadcasts: Broadcasts
    broadcast_clock: BroadcastClock
    # Issue 22, encrypted chat: public keys, conversations and messages, encrypted media:
    chat_keys: ChatKeys
    chat: ChatService
    chat_media: ChatMedia


@dataclass(slots=True)
class Server:
    """Everything one server owns; `app.py` serves it, `cli.py` and the tests drive it."""

    settings: Settings
    stores: Stores
    stages: Stages
    engine: FieldsEngine
    domain: Domain
    ads: AdsDomain  # what ads handlers and the ads control plane call
    demo: DemoSeed
    dispatcher: Dispatcher  # started and stopped by the app's lifespan
    id_slot: IdSlot  # issue 16: claimed at start-up, renewed while the server runs


def fields_engine() -> FieldsEngine:
    """Every object kind the v2 surface renders, with what each expands to."""
    return FieldsEngine(
        (
            *KINDS,
            *DM_KINDS,
            *LIKE_KINDS,
            *LIST_KINDS,
            *SPACE_KINDS,
            *COMPLIANCE_KINDS,
            *MEDIA_OBJECT_KINDS,
            *COMMUNITY_KINDS,
            *CHAT_KINDS,
        ),
        {
            **EXPANSIONS,
            **DM_EXPANSIONS,
            **LIKE_EXPANSIONS,
            **LIST_EXPANSIONS,
            **SPACE_EXPANSIONS,
            **MEDIA_OBJECT_EXPANSIONS,
            **COMMUNITY_EXPANSIONS,
            **CHAT_EXPANSIONS,
        },
    )


@dataclass(frozen=True, slots=True)
class EventLayer:
    """The event layer of one server: its streams and their connections, the webhook dispatcher and
    what the domain asks of the outside (CRC requests, the replay worker's wake-up)."""

    streams: StreamHub
    connections: ConnectionAdmin
    deliveries: DeliveryRecords
    dispatcher: Dispatcher
    outbound: OutboundCalls


def event_layer(
    settings: Settings, stores: Stores, engine: FieldsEngine, lookup: Lookup, usage: Usage
) -> EventLayer:
    db, clock = stores.db, stores.clock
    users, posts = stores.users, stores.posts
    log = EventLog(db, stores.events, ActivityStore(db), clock)
    objects = StreamObjects(posts, users, engine, lookup.loader(None), clock, RepostStore(db))
    aaa = AaaStore(db)
    activity = ActivityEvents(ActivityStore(db), aaa, users, posts, stores.dms, NewsStore(db))

    def rulesets(app_id: int) -> RuleSet:
        return RuleSet(db, settings, app_id)

    connection_rows = StreamStore(db)
    registry = Registry(connection_rows, settings, clock, stores.tokens)
    replays = ReplayJobs(ReplayStore(db), clock)
    deliveries = DeliveryStore(db)
    dispatcher = Dispatcher(
        log,
        deliveries,
        stores.webhooks,
        stores.apps,
        settings,
        fanouts=(
            AccountActivity(aaa, users, posts, stores.dms, url_seed=settings.seed),
            activity,
            StreamHooks(objects, StreamLinkStore(db), rulesets),  # links and rules held in memory
        ),
        crc_scheduler=CrcScheduler(stores.webhooks, stores.apps, clock, stores.tokens, settings),
        replays=replays,
        lease=WorkLease(LeaseStore(db), "dispatch", settings),  # issue 16: shared work
    )
    return EventLayer(
        streams=StreamHub(registry, log, objects, usage, activity, rulesets, settings),
        connections=ConnectionAdmin(registry, connection_rows, db, clock, stores.ids),
        deliveries=DeliveryRecords(deliveries),
        dispatcher=dispatcher,
        outbound=OutboundCalls(settings, replays),
    )


def assemble(settings: Settings, db: Database, clock: Clock | None = None) -> Server:
    stores = Stores.over(db, clock or Clock(), settings.random_seed)
    # Issue 16: on PostgreSQL, several processes may serve one database: nonces are claimed in it (a
    # replay to another process is refused) and rate-limit windows are counted together.
    shared_nonces = NonceStore(db) if db.dialect_name == "postgresql" else None
    authenticator = Authenticator(stores.apps, stores.clock, settings.timestamp_window_s, shared_nonces)
    shared = db.dialect_name == "postgresql"
    limiter = CountingRateLimiter(settings.rate_limits) if shared else RateLimiter(settings.rate_limits)
    stages = Stages(
        authenticator=authenticator,
        limiter=limiter,
        clock=stores.clock,
        max_body=settings.max_body_bytes,
        transaction_ids=TransactionIds(settings.random_seed),
        problem_types=ProblemTypes(settings.problem_type_base),
        journal=RequestJournal(settings.request_log),
        faults=Faults(settings.random_seed),
    )
    clock, ids, tokens = stores.clock, stores.ids, stores.tokens
    apps, users, posts = stores.apps, stores.users, stores.posts
    engine = fields_engine()
    lookup = Lookup(posts, users)
    social = SocialService(db, clock, ids, posts, lookup)
    accounts = AccountService(db, apps, users, clock, ids, tokens, authenticator, social.follow_directly)
    maintenance = Maintenance(db, apps, users, posts, clock, ids, authenticator, limiter)
    usage = Usage(StreamStore(db), clock, settings)
    events = event_layer(settings, stores, engine, lookup, usage)
    webhooks = WebhookService(db, clock, ids, tokens, settings, apps, users, stores.webhooks, events.outbound)
    media_uploads = MediaUploads(  # issue 15
        db, clock, ids, MediaUploadStore(db), settings.base_url, settings.number("media_processing_secs", 3.0)
    )
    post_service = PostService(db, clock, ids, url_seed=settings.seed, media=media_uploads)
    shared_settings = SharedSettings(db, clock, settings)  # issue 16; snapshots refresh it too
    revocations = Revocations(clock, ids)  # a user's last token of an app revoked (issue 21)
    broadcasts = Broadcasts(db, clock, ids, tokens)  # issue 22
    domain = Domain(
        lookup=lookup,
        posts=post_service,
        search=SearchService(SearchStore(db), settings, usage),
        timelines=Timelines(posts, lookup),
        social=social,
        social_lists=SocialLists(SocialStore(db), users, posts, lookup),
        profiles=Profiles(db, clock, ids),
        spaces=Spaces(db, clock, ids, tokens),
        dms=DmService(db, clock, ids, users, media=media_uploads),
        dm_events=DmEvents(stores.dms, users),
        accounts=accounts,
        oauth1=OAuth1Flow(
            db,
            apps,
            users,
            clock,
            tokens,
            authenticator,
            accounts,
            settings,
            revocations,
            WindowStore(db) if shared else None,
        ),
        oauth2=OAuth2Flow(db, apps, clock, tokens, authenticator, revocations),
        sign_in=SignIn(db, users, clock),
        transfer=Transfer(db, users, posts, clock, maintenance),
        snapshots=Snapshots(db, users, maintenance, shared_settings, authenticator, limiter),
        maintenance=maintenance,
        webhooks=webhooks,
        stream_links=StreamLinkService(db, clock, ids, apps, StreamLinkStore(db), webhooks),
        activity=ActivityService(db, clock, ids, settings, ActivityStore(db), users, stores.webhooks),
        stream_rules=StreamRuleService(db, clock, ids, settings, StreamRuleStore(db)),
        usage=usage,
        ledger=Ledger(LedgerStore(db)),
        streams=events.streams,
        connections=events.connections,
        deliveries=events.deliveries,
        # Issue 14, bookmarks, users search and affiliates, DM extras:
        bookmarks=Bookmarks(db, clock, ids, BookmarkStore(db), posts, lookup),
        dm_extras=DmExtras(db, clock, users, stores.dms, media_uploads),
        user_search=UserSearch(UserSearchStore(db), users),
        lists=ListService(db, clock, ids, ListStore(db), users, posts, lookup),  # lists (issue 14)
        reposts=Reposts(db, clock, ids, post_service, posts, RepostStore(db), lookup),
        # Issue 15, the Spaces reads and batch compliance jobs:
        space_reads=SpaceReads(SpaceStore(db), lookup),
        compliance=ComplianceJobs(db, clock, ids, tokens, settings, posts, users),
        # Issue 15, media upload and the v1.1 account reads:
        media_uploads=media_uploads,
        v1_accounts=V1Accounts(users, posts, lookup),
        # Issue 15, notes, news, communities, trends, articles, post analytics:
        notes=Notes(db, clock, ids, NoteStore(db), posts, users, lookup),
        news=News(db, clock, ids, NewsStore(db), posts),
        communities=Communities(db, clock, ids, CommunityStore(db), users),
        trends=Trends(clock, TrendStore(db)),
        articles=Articles(db, clock, ids, post_service),
        analytics=Analytics(db, clock, ids, AnalyticsStore(db), posts),
        # Issue 16, the clock and feature settings shared by every process on the database:
        shared=shared_settings,
        shared_windows=(
            SharedWindows(limiter, WindowStore(db), clock)
            if isinstance(limiter, CountingRateLimiter)
            else None
        ),
        console_data=ConsoleData(ConsoleStore(db), posts, users),
        console=ConsoleAdmin(db, clock, apps, ConsoleStore(db), authenticator, webhooks, revocations),
        console_tap=EventTap(EventLog(db, stores.events, ActivityStore(db), clock)),
        broadcasts=broadcasts,  # issue 22
        broadcast_clock=BroadcastClock(broadcasts),
        chat_keys=ChatKeys(db, clock),  # issue 22, encrypted chat
        chat=ChatService(db, clock, ids),
        chat_media=ChatMedia(db, clock, media_uploads),
    )
    demo = DemoSeed(
        enabled=settings.demo,
        seed=settings.seed,
        db=db,
        users=users,
        clock=clock,
        accounts=accounts,
        maintenance=maintenance,
        ads=_demo_ads(stores),
    )
    ads = ads_domain(settings, db, stores, post_service)
    id_slot = IdSlot(LeaseStore(db), stores.ids)
    return Server(settings, stores, stages, engine, domain, ads, demo, events.dispatcher, id_slot)


def _demo_ads(stores: Stores) -> AdsSeed:
    """The demo advertiser, seeded through the ads rules with the demo accounts' id source."""

    async def seed(sources: SeedSources, owner_user_id: int, now_ms: int) -> None:
        await seed_ads(stores.db, stores.ads, sources.ids, owner_user_id, now_ms)

    return seed


def ads_domain(settings: Settings, db: Database, stores: Stores, posts: PostService) -> AdsDomain:
    """The ads rule layer: one store, one entity lifecycle, and a service per resource family."""
    store, users, clock = stores.ads, stores.users, stores.clock
    entities = Entities(store, stores.ids)
    # Issue 23, creatives: ads posts are made by the platform's post service (`posts`).
    media_library = MediaLibrary(db, store, entities)
    cards = Cards(db, store, entities, media_library, stores.ids)
    ads_posts = AdsPosts(db, store, entities, cards, media_library, posts, stores.posts, users)
    planned_posts = PlannedPosts(db, store, entities, ads_posts, stores.ids)
    accounts = Accounts(db, store, entities)
    campaigns = Campaigns(db, store, entities)
    line_items = LineItems(db, store, entities, settings.brand)
    targeting = Targeting(db, store, entities, Resolver(store, users))
    stats = Stats(store, AdsStatsStore(db), Resolver(store, users))  # issue 23: analytics
    return AdsDomain(
        entities=entities,
        accounts=accounts,
        settings=AccountSettings(db, store),
        campaigns=campaigns,
        line_items=line_items,
        promoted=Promoted(db, store, entities, users, stores.posts, stores.ids),
        targeting=targeting,
        suggestions=Suggestions(db, users),
        tracking_tags=TrackingTags(db, entities),
        recommendations=Recommendations(store),
        batches=Batches(db, campaigns, line_items, targeting),
        management=Management(db, store, entities, accounts, users, clock),
        audiences=CustomAudiences(db, store, entities),
        app_lists=AppLists(db, store, entities),
        stats=stats,
        stats_jobs=StatsJobs(db, store, stats, stores.ids, clock, settings.base_url),
        cards=cards,
        media_library=media_library,
        planned_posts=planned_posts,
        ads_posts=ads_posts,
        publisher=ScheduledPublisher(planned_posts, clock),
    )
