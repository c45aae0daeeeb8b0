'use strict';
// twitter-api-v2 (npm 1.29.1) list methods, run as a child by tests/clients/test_twitter_api_v2_lists.py
// under roost's redirect (NODE_OPTIONS=--require <redirect.cjs>, ROOST_TARGET), like the sign-in flows.
//
// Usage: node twitter_api_v2_lists.cjs PARAMS_JSON    Prints one JSON object.

const { TwitterApi } = require('twitter-api-v2');

async function main() {
  const params = JSON.parse(process.argv[2]);
  const consumer = { appKey: params.consumer_key, appSecret: params.consumer_secret };
  const owner = new TwitterApi({ ...consumer, accessToken: params.owner_token, accessSecret: params.owner_secret }).v2;
  const fan = new TwitterApi({ ...consumer, accessToken: params.fan_token, accessSecret: params.fan_secret }).v2;
  const app = new TwitterApi(params.bearer_token).v2;
  const out = {};
  out.create = await owner.createList({ name: 'tav2 list', description: 'made by twitter-api-v2', private: false });
  const id = out.create.data.id;
  out.update = await owner.updateList(id, { description: 'changed' });
  out.add = await owner.addListMember(id, params.member_id);
  out.list = await app.list(id, { 'list.fields': ['description', 'member_count', 'owner_id'], expansions: ['owner_id'] });
  out.members = (await app.listMembers(id)).data;
  out.tweets = (await app.listTweets(id, { max_results: 5 })).data;
  out.owned = (await app.listsOwned(params.owner_id)).data;
  out.memberships = (await app.listMemberships(params.member_id)).data;
  out.follow = await fan.subscribeToList(params.fan_id, id);
  out.followers = (await app.listFollowers(id)).data;
  out.followed = (await app.listFollowed(params.fan_id)).data;
  out.pin = await fan.pinList(params.fan_id, id);
  out.unpin = await fan.unpinList(params.fan_id, id);
  out.unfollow = await fan.unsubscribeOfList(params.fan_id, id);
  out.remove = await owner.removeListMember(id, params.member_id);
  try {
    await fan.removeList(id);
    out.fan_delete = { status: 200 };
  } catch (err) {
    out.fan_delete = { status: err.code, data: err.data };
  }
  out.delete = await owner.removeList(id);
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  const detail = err && err.data ? JSON.stringify(err.data) : '';
  process.stderr.write(`${err && err.stack ? err.stack : err}\n${detail}\n`);
  process.exit(1);
});
