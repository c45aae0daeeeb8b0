"""The ads rule layer as handlers see it: one service per resource family, each constructed once
per server (in `roost.wiring`) with the collaborators it uses."""

from __future__ import annotations

from dataclasses import dataclass

from roost.ads.account_settings import AccountSettings
from roost.ads.accounts import Accounts
from roost.ads.batch import Batches
from roost.ads.campaigns import Campaigns
from roost.ads.entities import Entities
from roost.ads.line_items import LineItems
from roost.ads.management import Management
from roost.ads.promoted import Promoted
from roost.ads.recommendations import Recommendations
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
