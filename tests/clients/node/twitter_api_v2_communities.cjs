'use strict';
// twitter-api-v2 (npm 1.29.1) communities with an OAuth 2.0 user token, run as a child by
// tests/clients/test_twitter_api_v2_communities.py under roost's redirect (see twitter_api_v2_flow.cjs).
//
// Usage: node twitter_api_v2_communities.cjs PARAMS_JSON (token, community_id, query)    Prints one JSON object.

const { TwitterApi } = require('twitter-api-v2');

async function main() {
  const params = JSON.parse(process.argv[2]);
  const client = new TwitterApi(params.token);
  const one = await client.v2.community(params.community_id, { 'community.fields': ['member_count', 'description'] });
  const found = await client.v2.searchCommunities(params.query, { max_results: 10 });
  const missing = await client.v2.community('42');
  return { one: one.data, found: found.data, found_meta: found.meta, missing: missing.errors };
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.log(JSON.stringify({ error: String(error), data: error.data }));
  },
);
