'use strict';
// twitter-api-v2 (npm 1.29.1) Spaces and compliance jobs, run as a child by
// tests/clients/test_twitter_api_v2_spaces.py under roost's redirect (see twitter_api_v2_flow.cjs):
// v2.space, v2.spaces, v2.spacesByCreators, v2.searchSpaces, v2.spaceTweets with the app's bearer
// token, v2.spaceBuyers with the creator's OAuth 2.0 token, and v2.sendComplianceJob,
// v2.complianceJobs, v2.complianceJob, v2.complianceJobResult with a fresh app's bearer token (the
// job is processed on roost's clock, which the script moves through `control`).
//
// Usage: node twitter_api_v2_spaces.cjs PARAMS_JSON    Prints one JSON object.

const http = require('http');
const { TwitterApi } = require('twitter-api-v2');

function advanceClock(control, seconds) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ advance_seconds: seconds });
    const request = http.request(
      `${control}/_roost/clock`,
      { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
      (response) => {
        response.resume();
        response.on('end', resolve);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function main() {
  const params = JSON.parse(process.argv[2]);
  const app = new TwitterApi(params.bearer_token).v2;
  const creator = new TwitterApi(params.creator_token).v2;
  const one = await app.space(params.space_id, {
    'space.fields': ['title', 'speaker_ids', 'topic_ids'],
    expansions: ['speaker_ids', 'topic_ids'],
  });
  const many = await app.spaces([params.space_id]);
  const byCreators = await app.spacesByCreators([params.creator_id]);
  const found = await app.searchSpaces({ query: params.word, state: 'live' });
  const tweets = await app.spaceTweets(params.space_id);
  const buyers = await creator.spaceBuyers(params.space_id);

  const compliance = new TwitterApi(params.compliance_bearer).v2;
  const job = await compliance.sendComplianceJob({ type: 'tweets', name: 'node job', ids: params.ids });
  const listed = await compliance.complianceJobs({ type: 'tweets' });
  const fetched = await compliance.complianceJob(job.data.id);
  await advanceClock(params.control, 60);
  const lines = await compliance.complianceJobResult(job.data);
  return {
    space: one.data,
    includes: one.includes,
    many: many.data.map((space) => space.id),
    many_meta: many.meta === undefined ? null : many.meta,
    by_creators: byCreators.data.map((space) => space.id),
    found: found.data.map((space) => space.id),
    found_meta: found.meta,
    tweets: tweets.data.map((tweet) => tweet.id),
    buyers: buyers.data.map((user) => user.username),
    job: job.data,
    listed: listed.data.map((item) => item.id),
    fetched: fetched.data.status,
    lines,
  };
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.log(JSON.stringify({ error: String(error), data: error.data }));
  },
);
