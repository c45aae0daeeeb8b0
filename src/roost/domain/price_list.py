"""The platform's published pay-per-use prices, as data: the default price of each v2 operation that
`GET /_roost/usage` multiplies its request counts by (`POST /_roost/prices` changes them at run time).

The platform prices categories, not operations: reads per resource returned, writes per request. Each
operation below is put in the category whose published name covers it; an operation no published
category covers is left unpriced (0) with the reason. Prices are in US dollars, as read from the
pages named in `SOURCES` (the platform says they may change: its developer console has the current
ones). Two prices depend on the request as well as its operation: a post with a URL costs more, and
reading one's own data (owned reads) less; `VARIANTS` holds them and the ledger (`domain/ledger.py`)
picks the variant per request.
"""

from __future__ import annotations

from typing import NamedTuple

PRICING_PAGE = "https://docs.x.com/x-api/getting-started/pricing"
OVERVIEW_PAGE = "https://docs.x.com/overview"
SOURCES = {
    "prices": PRICING_PAGE,  # the per-category table, reads and writes
    "owned_reads": OVERVIEW_PAGE,  # "Owned Reads": $0.001 per resource for one's own data
}


class Category(NamedTuple):
    label: str  # the platform's name for it
    usd: float
    per: str  # "resource" (reads: each object returned) or "request" (writes and actions)
    source: str


CATEGORIES: dict[str, Category] = {
    # Reads: charged per resource returned.
    "posts_read": Category("Posts: Read", 0.005, "resource", PRICING_PAGE),
    "user_read": Category("User: Read", 0.010, "resource", PRICING_PAGE),
    "dm_event_read": Category("DM Event: Read", 0.010, "resource", PRICING_PAGE),
    "follows_read": Category("Following/Followers: Read", 0.010, "resource", PRICING_PAGE),
    "list_read": Category("List: Read", 0.005, "resource", PRICING_PAGE),
    "space_read": Category("Space: Read", 0.005, "resource", PRICING_PAGE),
    "community_read": Category("Community: Read", 0.005, "resource", PRICING_PAGE),
    "note_read": Category("Note: Read", 0.005, "resource", PRICING_PAGE),
    "media_read": Category("Media: Read", 0.005, "resource", PRICING_PAGE),
    "analytics_read": Category("Analytics: Read", 0.005, "resource", PRICING_PAGE),
    "trend_read": Category("Trend: Read", 0.010, "resource", PRICING_PAGE),
    # Writes and actions: charged per request.
    "content_create": Category("Content: Create", 0.015, "request", PRICING_PAGE),
    "dm_create": Category("DM Interaction: Create", 0.015, "request", PRICING_PAGE),
    "interaction_create": Category("User Interaction: Create", 0.015, "request", PRICING_PAGE),
    "interaction_delete": Category("Interaction: Delete", 0.010, "request", PRICING_PAGE),
    "content_manage": Category("Content: Manage", 0.005, "request", PRICING_PAGE),
    "list_create": Category("List: Create", 0.010, "request", PRICING_PAGE),
    "list_manage": Category("List: Manage", 0.005, "request", PRICING_PAGE),
    "bookmark": Category("Bookmark", 0.005, "request", PRICING_PAGE),
    "media_metadata": Category("Media Metadata", 0.005, "request", PRICING_PAGE),
    "mute_delete": Category("Mute: Delete", 0.005, "request", PRICING_PAGE),
    "counts_recent": Category("Counts: Recent", 0.005, "request", PRICING_PAGE),
    "counts_all": Category("Counts: All", 0.010, "request", PRICING_PAGE),
}

# The prices that depend on the request: a variant's key is "operation:variant".
URL = "url"  # a post whose text holds a URL
OWNED = "owned"  # a read of the caller's own data: the path's user id is the caller's
URL_POST = Category("Content: Create (with URL)", 0.200, "request", PRICING_PAGE)
OWNED_READ = Category("Owned Reads", 0.001, "resource", OVERVIEW_PAGE)
# The operations whose path names a user ("/2/users/{id}/…") and read that user's own data.
OWNED_READS = (
    "usersIdTweets",
    "usersIdMentions",
    "getUsersLikedPosts",
    "getUsersBookmarks",
    "getUsersBookmarksByFolderId",
    "getUsersFollowers",
    "getUsersFollowing",
    "getUsersTimeline",
    "getUsersOwnedLists",
    "getUsersFollowedLists",
    "getUsersListMemberships",
    "getUsersPinnedLists",
    "getUsersBlocking",
    "getUsersMuting",
)
VARIANTS: dict[str, tuple[str, Category]] = {
    f"createTweet:{URL}": ("createTweet", URL_POST),
    **{f"{operation}:{OWNED}": (operation, OWNED_READ) for operation in OWNED_READS},
}
VARIANT_NOTES = {
    URL: "a post whose text holds a URL (the platform's URL entities)",
    OWNED: "the path's user is the caller: reading one's own data",
}

PRICED: dict[str, str] = {
    # Posts: Read
    "findTweetsById": "posts_read",
    "findTweetById": "posts_read",
    "usersIdTweets": "posts_read",
    "usersIdMentions": "posts_read",
    "getUsersLikedPosts": "posts_read",
    "tweetsRecentSearch": "posts_read",
    "tweetsFullarchiveSearch": "posts_read",
    "getListsPosts": "posts_read",
    "getPostsReposts": "posts_read",
    "getPostsQuotedPosts": "posts_read",
    "getUsersRepostsOfMe": "posts_read",
    "getUsersTimeline": "posts_read",
    "getUsersBookmarks": "posts_read",
    "getUsersBookmarksByFolderId": "posts_read",
    "getSpacesPosts": "posts_read",
    "searchEligiblePosts": "posts_read",
    # User: Read
    "findUsersById": "user_read",
    "findUserById": "user_read",
    "findUsersByUsername": "user_read",
    "findUserByUsername": "user_read",
    "findMyUser": "user_read",
    "getPostsLikingUsers": "user_read",
    "getPostsRepostedBy": "user_read",
    "searchUsers": "user_read",
    "getUsersAffiliates": "user_read",
    "getUsersBlocking": "user_read",
    "getUsersMuting": "user_read",
    "getListsMembers": "user_read",
    "getListsFollowers": "user_read",
    "getSpacesBuyers": "user_read",
    # Following/Followers: Read
    "getUsersFollowing": "follows_read",
    "getUsersFollowers": "follows_read",
    # DM Event: Read
    "getDirectMessagesEvents": "dm_event_read",
    "getDirectMessagesEventsById": "dm_event_read",
    "getDirectMessagesEventsByParticipantId": "dm_event_read",
    "getDirectMessagesEventsByConversationId": "dm_event_read",
    # List: Read
    "getListsById": "list_read",
    "getUsersOwnedLists": "list_read",
    "getUsersFollowedLists": "list_read",
    "getUsersListMemberships": "list_read",
    "getUsersPinnedLists": "list_read",
    # Space, Community, Note, Media, Analytics, Trend reads
    "getSpacesById": "space_read",
    "getSpacesByIds": "space_read",
    "getSpacesByCreatorIds": "space_read",
    "searchSpaces": "space_read",
    "getCommunitiesById": "community_read",
    "searchCommunities": "community_read",
    "searchCommunityNotesWritten": "note_read",
    "getMediaByMediaKey": "media_read",
    "getMediaByMediaKeys": "media_read",
    "getPostsAnalytics": "analytics_read",
    "getMediaAnalytics": "analytics_read",
    "getTrendsByWoeid": "trend_read",
    "getTrendsPersonalizedTrends": "trend_read",
    # Writes
    "createTweet": "content_create",
    "deleteTweetById": "content_manage",
    "hidePostsReply": "content_manage",
    "createDirectMessagesByParticipantId": "dm_create",
    "createDirectMessagesByConversationId": "dm_create",
    "createDirectMessagesConversation": "dm_create",
    "likePost": "interaction_create",
    "followUser": "interaction_create",
    "repostPost": "interaction_create",
    "unlikePost": "interaction_delete",
    "unfollowUser": "interaction_delete",
    "unrepostPost": "interaction_delete",
    "unmuteUser": "mute_delete",
    "createLists": "list_create",
    "updateLists": "list_manage",
    "deleteLists": "list_manage",
    "addListsMember": "list_manage",
    "removeListsMemberByUserId": "list_manage",
    "followList": "list_manage",
    "unfollowList": "list_manage",
    "pinList": "list_manage",
    "unpinList": "list_manage",
    "createUsersBookmark": "bookmark",
    "deleteUsersBookmark": "bookmark",
    "createMediaMetadata": "media_metadata",
    "tweetCountsRecentSearch": "counts_recent",
    "tweetCountsFullArchiveSearch": "counts_all",
}

# Why an operation has no default price.
NO_CATEGORY = "no published pay-per-use category covers this operation"
STREAMED = (
    "streams are billed per post delivered (Posts: Read); roost counts the connecting request, not the posts"
)
MANAGEMENT = "setup and management calls have no published per-request price"

UNPRICED: dict[str, str] = {
    **dict.fromkeys(
        (
            "activityStream",
            "streamPosts",
            "streamPostsSample",
            "streamPostsSample10",
            "streamPostsFirehose",
            "streamPostsFirehoseEn",
            "streamPostsFirehoseJa",
            "streamPostsFirehoseKo",
            "streamPostsFirehosePt",
            "streamPostsCompliance",
            "streamUsersCompliance",
            "streamLikesCompliance",
            "streamLabelsCompliance",
            "streamLikesFirehose",
            "streamLikesSample10",
        ),
        STREAMED,
    ),
    **dict.fromkeys(
        (
            "createWebhooks",
            "getWebhooks",
            "deleteWebhooks",
            "validateWebhooks",
            "createWebhookReplayJob",
            "createAccountActivityReplayJob",
            "createAccountActivitySubscription",
            "validateAccountActivitySubscription",
            "getAccountActivitySubscriptions",
            "deleteAccountActivitySubscription",
            "getAccountActivitySubscriptionCount",
            "createActivitySubscription",
            "getActivitySubscriptions",
            "deleteActivitySubscriptionsByIds",
            "updateActivitySubscription",
            "deleteActivitySubscription",
            "getRules",
            "getPowerstreamRules",
            "updateRules",
            "getRuleCounts",
            "getConnectionHistory",
            "deleteAllConnections",
            "deleteConnectionsByEndpoint",
            "deleteConnectionsByUuids",
            "getUsage",
            "createWebhooksStreamLink",
            "getWebhooksStreamLinks",
            "deleteWebhooksStreamLink",
            "createComplianceJobs",
            "getComplianceJobs",
            "getComplianceJobsById",
            "mediaUpload",
            "getMediaUploadStatus",
            "initializeMediaUpload",
            "appendMediaUpload",
            "finalizeMediaUpload",
            "chatMediaUploadInitialize",
            "chatMediaUploadAppend",
            "chatMediaUploadFinalize",
        ),
        MANAGEMENT,
    ),
    **dict.fromkeys(
        (
            "muteUser",
            "blockUsersDms",
            "unblockUsersDms",
            "deleteDirectMessagesEvents",
            "dmConversationsMediaDownload",
            "getUsersBookmarkFolders",
            "createUsersBookmarkFolder",
            "createMediaSubtitles",
            "deleteMediaSubtitles",
            "createCommunityNotes",
            "evaluateCommunityNotes",
            "evaluateNote",
            "deleteCommunityNotes",
            "getNews",
            "searchNews",
            "articleCreateDraft",
            "articlePublish",
            # Encrypted chat and broadcasts (issue 22): the pricing page lists neither.
            "addUserPublicKey",
            "getUsersPublicKey",
            "getUsersPublicKeys",
            "getChatConversations",
            "getChatConversation",
            "createChatConversation",
            "initializeChatGroup",
            "addChatGroupMembers",
            "addConversationKeys",
            "sendChatMessage",
            "getChatConversationEvents",
            "markChatConversationRead",
            "sendChatTypingIndicator",
            "chatMediaDownload",
            "listScheduledBroadcasts",
            "createScheduledBroadcast",
            "getScheduledBroadcast",
            "updateScheduledBroadcast",
            "deleteScheduledBroadcast",
            "goLiveScheduledBroadcast",
            "sendBroadcastChat",
        ),
        NO_CATEGORY,
    ),
}


class Price(NamedTuple):
    usd: float
    per: str
    category: str | None  # the platform's label, None when unpriced
    source: str | None
    note: str | None


def default_prices() -> dict[str, Price]:
    """Each v2 operation's default price (0 with a note where none is published), and each variant's
    under "operation:variant"."""
    prices: dict[str, Price] = {}
    for operation, key in PRICED.items():
        category = CATEGORIES[key]
        prices[operation] = Price(category.usd, category.per, category.label, category.source, None)
    for operation, note in UNPRICED.items():
        prices[operation] = Price(0.0, "request", None, None, note)
    for key, (_, category) in VARIANTS.items():
        note = VARIANT_NOTES[key.rsplit(":", 1)[1]]
        prices[key] = Price(category.usd, category.per, category.label, category.source, note)
    return prices
