'use strict';
// twitter-api-v2 (npm 1.29.1) media upload, run as a child by tests/clients/test_twitter_api_v2_media.py
// under roost's redirect: `v1.verifyCredentials`, `v1.uploadMedia` (chunked, everything as
// multipart to upload.x.com, up to three APPENDs at once), `v1.createMediaMetadata`, and
// `v2.uploadMedia` (initialize / append / finalize / STATUS on api.x.com).
//
// Usage: node twitter_api_v2_media.cjs PARAMS_JSON (app_key, app_secret, access_token, access_secret,
// oauth2_token, png, gif: file paths)    Prints one JSON object.

const fs = require('fs');
const { TwitterApi } = require('twitter-api-v2');

async function attempt(results, name, call) {
  try {
    results[name] = await call();
  } catch (error) {
    results[name] = { error: String(error), data: error.data };
  }
}

async function main() {
  const params = JSON.parse(process.argv[2]);
  const oauth1 = new TwitterApi({
    appKey: params.app_key,
    appSecret: params.app_secret,
    accessToken: params.access_token,
    accessSecret: params.access_secret,
  });
  const oauth2 = new TwitterApi(params.oauth2_token);
  const png = fs.readFileSync(params.png);
  const gif = fs.readFileSync(params.gif);
  const results = {};
  await attempt(results, 'verify', async () => {
    const user = await oauth1.v1.verifyCredentials();
    return { id: user.id_str, screen_name: user.screen_name };
  });
  await attempt(results, 'v1_png', () => oauth1.v1.uploadMedia(png, { mimeType: 'image/png' }));
  await attempt(results, 'v1_gif', () => oauth1.v1.uploadMedia(gif, { mimeType: 'image/gif' }));
  await attempt(results, 'v1_metadata', async () => {
    await oauth1.v1.createMediaMetadata(results.v1_png, { alt_text: { text: 'alt from node' } });
    return true;
  });
  await attempt(results, 'v2_png', () => oauth2.v2.uploadMedia(png, { media_type: 'image/png' }, 300000));
  await attempt(results, 'v2_gif', () => oauth2.v2.uploadMedia(gif, { media_type: 'image/gif' }));
  await attempt(results, 'post', async () => {
    const made = await oauth2.v2.tweet('node media', { media: { media_ids: [results.v2_png] } });
    return made.data.id;
  });
  return results;
}

main().then(
  (result) => console.log(JSON.stringify(result)),
  (error) => {
    console.log(JSON.stringify({ error: String(error), data: error.data }));
  },
);
