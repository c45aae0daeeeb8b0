"""The ads rule layer as handlers see it: one service per resource family, each constructed once
per server (in `roost.wiring`) with the collaborators it uses."""

from __future__ import annotations

from dataclasses import dataclass

from roost.ads.account_settings import AccountSettings
from roost.ads.accounts import Accounts
from roost.ads.ads_posts import AdsPosts
from roost.ads.app_lists import AppLists
from roost.ads.batch import Batches
from roost.ads.campaigns import Campaigns
from roost.ads.cards import Cards
from roost.ads.custom_audiences import CustomAudiences
from roost.ads.entities import Entities
from roost.ads.line_items import LineItems
from roost.ads.management import Management
from roost.ads.media_library import MediaLibrary
from roost.ads.planned_posts import PlannedPosts, ScheduledPublisher
from roost.ads.promoted import Promoted
from roost.ads.recommendations import Recommendations
from roost.ads.stats import Stats
from roost.ads.stats_jobs import StatsJobs
from roost.ads.targeting_criteria import Targeting
from roost.ads.targeting_suggestions import Suggestions
from roost.ads.tracking_tags import TrackingTags


@dataclass(frozen=True, slots=True)
class AdsDomain:
    entities: Entities  # plain reads of any kind (funding instruments, promotable users, apps, tags)
    accounts: Accounts  # access, accounts, features, funding instruments
    settings: AccountSettings  # tax and user settings, account history
    campaigns: Campaigns
    line_items: LineItems
    promoted: Promoted  # promoted tweets and accounts, scheduled promoted tweets
    targeting: Targeting  # targeting criteria and the audience estimate
    suggestions: Suggestions  # targeting suggestions
    tracking_tags: TrackingTags
    recommendations: Recommendations
    batches: Batches
    management: Management  # the control plane's account management
    # Issue 23, creatives: cards, the media library (with account media and media creatives), draft
    # and scheduled posts (published by the publisher, a server worker), the account's posts.
    cards: Cards
    media_library: MediaLibrary
    planned_posts: PlannedPosts
    ads_posts: AdsPosts
    publisher: ScheduledPublisher
    audiences: CustomAudiences  # custom audiences, their users, permissions and targeting lines
    app_lists: AppLists  # app lists and line item apps
    stats: Stats  # analytics: synchronous stats and active entities (issue 23)
    stats_jobs: StatsJobs  # analytics: asynchronous stats jobs and their result files (issue 23)
