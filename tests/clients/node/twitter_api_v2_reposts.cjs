'use strict';
// twitter-api-v2 (npm 1.29.1) reposts, quotes, hidden replies and the home timeline, run as a child by
// tests/clients/test_twitter_api_v2_reposts.py under roost's redirect (see twitter_api_v2_flow.cjs).
//
// Usage: node twitter_api_v2_reposts.cjs PARAMS_JSON    Prints one JSON object.

const { TwitterApi } = require('twitter-api-v2');

function client(params, user) {
  return new TwitterApi({
    appKey: params.consumer_key,
    appSecret: params.consumer_secret,
    accessToken: user.token,
    accessSecret: user.secret,
  });
}

async function main() {
  const params = JSON.parse(process.argv[2]);
  const author = client(params, params.author).v2;
  const fan = client(params, params.fan).v2;
  const app = new TwitterApi(params.bearer_token).v2;
  const source = await author.tweet(`node source ${params.stamp}`);
  const sourceId = source.data.id;
  await fan.follow(params.fan.id, params.author.id);
  const retweeted = await fan.retweet(params.fan.id, sourceId);
  const retweeters = await app.tweetRetweetedBy(sourceId);
  const quote = await fan.tweet(`node quote ${params.stamp}`, { quote_tweet_id: sourceId });
  const quotes = await app.quotes(sourceId, { 'tweet.fields': ['referenced_tweets'] });
  const reply = await fan.reply(`node reply ${params.stamp}`, sourceId);
  const hidden = await author.hideReply(reply.data.id, true);
  const shown = await author.hideReply(reply.data.id, false);
  const home = await fan.homeTimeline({ 'tweet.fields': ['referenced_tweets'], exclude: ['replies'] });
  const unretweeted = await fan.unretweet(params.fan.id, sourceId);
  const result = {
    source: sourceId,
    retweeted: retweeted.data,
    retweeters: retweeters.data.map((user) => user.id),
    quote: quote.data.id,
    quotes: quotes.tweets.map((tweet) => ({ id: tweet.id, referenced_tweets: tweet.referenced_tweets })),
    hidden: hidden.data,
    shown: shown.data,
    home: home.tweets.map((tweet) => ({ id: tweet.id, referenced_tweets: tweet.referenced_tweets || [] })),
    home_meta: home.meta,
    unretweeted: unretweeted.data,
  };
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err) => {
  const detail = err && err.data ? JSON.stringify(err.data) : '';
  process.stderr.write(`${err && err.stack ? err.stack : err}\n${detail}\n`);
  process.exit(1);
});
