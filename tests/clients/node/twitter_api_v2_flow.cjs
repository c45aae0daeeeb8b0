'use strict';
// twitter-api-v2 (npm 1.29.1) sign-in flows, run as a child by tests/clients/test_twitter_api_v2.py.
//
// The library hard-codes the public hosts; the test runs this program with
// NODE_OPTIONS=--require <roost redirect.cjs> and ROOST_TARGET (roost.redirect.redirect_env), so every
// request below reaches roost with its public Host header. Approving the app, the one browser step,
// is a GET of the authorization URL with the `X-Roost-Approve: <username>` test header.
//
// Usage: node twitter_api_v2_flow.cjs PARAMS_JSON    Prints one JSON object.

const https = require('https');
const { TwitterApi } = require('twitter-api-v2');

// The Location of the approval's 302 (through the redirect, like any request to the public hosts).
function approve(url, username) {
  return new Promise((resolve, reject) => {
    const req = https.get(url, { headers: { 'X-Roost-Approve': username } }, (res) => {
      res.resume();
      if (res.statusCode !== 302) {
        reject(new Error(`approval answered ${res.statusCode} for ${url}`));
        return;
      }
      resolve(res.headers.location);
    });
    req.on('error', reject);
  });
}

function queryOf(location) {
  return Object.fromEntries(new URL(location).searchParams);
}

async function oauth1(params) {
  const consumer = { appKey: params.consumer_key, appSecret: params.consumer_secret };
  const link = await new TwitterApi(consumer).generateAuthLink(params.callback, { linkMode: 'authorize' });
  const location = await approve(link.url, params.username);
  const callback = queryOf(location);
  const pending = new TwitterApi({ ...consumer, accessToken: link.oauth_token, accessSecret: link.oauth_token_secret });
  const login = await pending.login(callback.oauth_verifier);
  const me = await login.client.v2.me({ 'user.fields': ['created_at'] });
  return {
    url: link.url,
    callback_confirmed: link.oauth_callback_confirmed,
    location,
    callback_token: callback.oauth_token,
    request_token: link.oauth_token,
    access_token: login.accessToken,
    user_id: login.userId,
    screen_name: login.screenName,
    me: me.data,
  };
}

async function appOnly(params) {
  const consumer = { appKey: params.consumer_key, appSecret: params.consumer_secret };
  const app = await new TwitterApi(consumer).appLogin();
  const user = await app.v2.userByUsername(params.username, { 'user.fields': ['created_at'] });
  return { bearer: app.getActiveTokens().bearerToken, user: user.data };
}

async function oauth2(params) {
  const requester = new TwitterApi({ clientId: params.client_id, clientSecret: params.client_secret });
  const link = requester.generateOAuth2AuthLink(params.callback, { scope: params.scopes });
  const location = await approve(link.url, params.username);
  const callback = queryOf(location);
  const login = await requester.loginWithOAuth2({
    code: callback.code,
    codeVerifier: link.codeVerifier,
    redirectUri: params.callback,
  });
  const me = await login.client.v2.me({ 'user.fields': ['confirmed_email', 'created_at'] });
  const refreshed = await requester.refreshOAuth2Token(login.refreshToken);
  const meAgain = await refreshed.client.v2.me();
  let oldRefresh;
  try {
    await requester.refreshOAuth2Token(login.refreshToken); // rotated: the old one is spent
    oldRefresh = { status: 200 };
  } catch (err) {
    oldRefresh = { status: err.code, data: err.data };
  }
  return {
    url: link.url,
    state_matches: callback.state === link.state,
    scope: login.scope,
    expires_in: login.expiresIn,
    has_refresh_token: Boolean(login.refreshToken),
    me: me.data,
    refreshed: {
      scope: refreshed.scope,
      expires_in: refreshed.expiresIn,
      new_access_token: refreshed.accessToken !== login.accessToken,
      new_refresh_token: Boolean(refreshed.refreshToken) && refreshed.refreshToken !== login.refreshToken,
      me: meAgain.data,
    },
    old_refresh: oldRefresh,
  };
}

async function main() {
  const params = JSON.parse(process.argv[2]);
  const scenarios = { oauth1, app: appOnly, oauth2 };
  const result = await scenarios[params.scenario](params);
  process.stdout.write(JSON.stringify(result) + '\n');
}

main().catch((err) => {
  const detail = err && err.data ? JSON.stringify(err.data) : '';
  process.stderr.write(`${err && err.stack ? err.stack : err}\n${detail}\n`);
  process.exit(1);
});
