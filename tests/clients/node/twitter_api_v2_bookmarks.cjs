'use strict';
// twitter-api-v2 (npm 1.29.1) bookmarks with an OAuth 2.0 user token, run as a child by
// tests/clients/test_twitter_api_v2_bookmarks.py under roost's redirect (see twitter_api_v2_flow.cjs).
// The library asks `GET /2/users/me` for the user id before each bookmark call.
//
// Usage: node twitter_api_v2_bookmarks.cjs PARAMS_JSON (token, tweet_ids)    Prints one JSON object.

const { TwitterApi } = require('twitter-api-v2');

async function main() {
  const params = JSON.parse(process.argv[2]);
  const client = new TwitterApi(params.token);
  const [first, second] = params.tweet_ids;
  const added = [await client.v2.bookmark(first), await client.v2.bookmark(second)];
  const paginator = await client.v2.bookmarks({ max_results: 1, 'tweet.fields': ['public_metrics'] });
  await paginator.fetchLast(5);
  const listed = paginator.tweets.map((tweet) => ({ id: tweet.id, bookmarks: tweet.public_metrics.bookmark_count }));
  const removed = await client.v2.deleteBookmark(first);
  const after = await client.v2.bookmarks();
  return {
    added: added.map((reply) => reply.data),
    listed,
    removed: removed.data,
    after: after.tweets.map((tweet) => tweet.id),
    after_meta: after.meta,
  };
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.log(JSON.stringify({ error: String(error), data: error.data }));
  },
);
