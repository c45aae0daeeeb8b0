'use strict';
// Node counterpart of sitecustomize.py, loaded with `NODE_OPTIONS=--require .../redirect.cjs`
// by `roost run`. When ROOST_TARGET is set, requests to the platform's public hosts made
// through http/https.request/get (and the global fetch) connect to the roost target over
// its own scheme, keeping the original Host header, path and query and adding
// x-forwarded-proto / x-forwarded-host, so signatures made for the public URL stay valid.
// Requests for any other host are passed through untouched.

(function installRoostRedirect() {
  const INSTALLED = Symbol.for('roost.redirect.installed');
  const spec = (process.env.ROOST_TARGET || '').trim();
  // Nothing to do without a target; a second copy of this file must not wrap twice.
  if (!spec || globalThis[INSTALLED]) return;

  let target;
  try {
    target = new URL(spec.includes('://') ? spec : `http://${spec}`);
  } catch (err) {
    return;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return;
  globalThis[INSTALLED] = true;

  const http = require('http');
  const https = require('https');
  const { urlToHttpOptions } = require('url');

  const DEFAULT_HOSTS = [
    'api.twitter.com', 'api.x.com', 'upload.twitter.com', 'upload.x.com',
    'twitter.com', 'x.com', 'www.twitter.com', 'www.x.com',
    'ads-api.twitter.com', 'ads-api.x.com',
    'ads-api-sandbox.twitter.com', 'ads-api-sandbox.x.com',
  ];
  const DEFAULT_PORTS = { 'http:': 80, 'https:': 443 };
  const REPLACED = new Set(['host', 'x-forwarded-proto', 'x-forwarded-host']);

  const normHost = (h) => String(h).trim().replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  const hosts = new Set(DEFAULT_HOSTS);
  for (const h of (process.env.ROOST_REDIRECT_HOSTS || '').split(',')) {
    if (normHost(h)) hosts.add(normHost(h));
  }
  const debug = !['', '0', 'false', 'no'].includes((process.env.ROOST_REDIRECT_DEBUG || '').trim().toLowerCase());

  const targetHostname = normHost(target.hostname); // http.request wants IPv6 without brackets
  const targetPort = target.port ? Number(target.port) : DEFAULT_PORTS[target.protocol];
  const prefix = target.pathname.replace(/\/+$/, '');
  const originals = {
    http: { request: http.request, get: http.get },
    https: { request: https.request, get: https.get },
  };
  const targetOriginal = target.protocol === 'https:' ? originals.https : originals.http;

  // The Host value the client used, with a non-default port kept (it is part of the signed URL).
  function hostHeader(hostname, port, protocol) {
    // Case kept as the client wrote it; only IPv6 brackets are normalised.
    const bare = String(hostname).trim().replace(/^\[|\]$/g, '');
    const shown = bare.includes(':') ? `[${bare}]` : bare;
    const p = port === undefined || port === null || port === '' ? DEFAULT_PORTS[protocol] : Number(port);
    return p === DEFAULT_PORTS[protocol] ? shown : `${shown}:${p}`;
  }

  function forwardedHeaders(host, protocol) {
    return { host, 'x-forwarded-proto': protocol.replace(/:$/, ''), 'x-forwarded-host': host };
  }

  // Headers may be a plain object or a flat [name, value, ...] array (Node >= 18.x).
  function withHeaders(headers, extra) {
    if (Array.isArray(headers)) {
      const out = [];
      for (let i = 0; i + 1 < headers.length; i += 2) {
        if (!REPLACED.has(String(headers[i]).toLowerCase())) out.push(headers[i], headers[i + 1]);
      }
      for (const [k, v] of Object.entries(extra)) out.push(k, v);
      return out;
    }
    const out = {};
    for (const [k, v] of Object.entries(headers || {})) {
      if (!REPLACED.has(k.toLowerCase())) out[k] = v;
    }
    return Object.assign(out, extra);
  }

  // Normalise the (url[, options][, callback]) | (options[, callback]) call forms.
  function splitArgs(args) {
    let [input, options, callback] = args;
    if (typeof input === 'string' || input instanceof URL) {
      input = urlToHttpOptions(typeof input === 'string' ? new URL(input) : input);
    } else {
      callback = options;
      options = input;
      input = {};
    }
    if (typeof options === 'function') {
      callback = options;
      options = undefined;
    }
    return { options: Object.assign({}, input, options || {}), callback };
  }

  // Rerouted options for a request to a listed host, or null to leave it alone.
  function reroute(options, defaultProtocol) {
    if (options.socketPath) return null;
    const hostname = options.hostname || options.host;
    if (!hostname || !hosts.has(normHost(hostname))) return null;
    const protocol = options.protocol || defaultProtocol;
    const host = hostHeader(hostname, options.port || options.defaultPort, protocol);
    const routed = Object.assign({}, options, {
      protocol: target.protocol,
      hostname: targetHostname,
      host: targetHostname,
      port: targetPort,
      path: prefix + (options.path || '/'),
      headers: withHeaders(options.headers, forwardedHeaders(host, protocol)),
    });
    // An agent (https, proxy, ...) or custom connection is for the public host: go direct.
    if (routed.agent !== false) delete routed.agent;
    for (const key of ['createConnection', 'defaultPort', 'servername', 'href', 'origin', 'pathname', 'search', 'hash']) {
      delete routed[key];
    }
    if (debug) {
      process.stderr.write(`roost redirect: ${protocol}//${host}${options.path || '/'} -> ${target.origin}${routed.path}\n`);
    }
    return routed;
  }

  function wrap(name, defaultProtocol) {
    const original = originals[name];
    function request(...args) {
      let routed = null;
      let callback;
      try {
        const split = splitArgs(args);
        callback = split.callback;
        routed = reroute(split.options, defaultProtocol);
      } catch (err) {
        routed = null; // unusual arguments: let Node report on them as usual
      }
      if (routed === null) return original.request.apply(this, args);
      return callback === undefined ? targetOriginal.request(routed) : targetOriginal.request(routed, callback);
    }
    function get(...args) {
      const req = request.apply(this, args);
      req.end();
      return req;
    }
    return { request, get };
  }

  for (const [name, mod, protocol] of [['http', http, 'http:'], ['https', https, 'https:']]) {
    const wrapped = wrap(name, protocol);
    mod.request = wrapped.request;
    mod.get = wrapped.get;
  }

  // fetch (undici) ignores a Host header set by the caller, so instead wrap the global
  // dispatcher, below the fetch layer, where the origin and Host header can be changed.
  const DISPATCHER = Symbol.for('undici.globalDispatcher.1');
  const wrappedDispatchers = new WeakSet();

  function dispatchHeaders(headers, extra) {
    if (Array.isArray(headers) && headers.length && Array.isArray(headers[0])) {
      const pairs = headers.filter(([k]) => !REPLACED.has(String(k).toLowerCase()));
      return pairs.concat(Object.entries(extra));
    }
    return withHeaders(headers, extra);
  }

  function wrapDispatcher() {
    const current = globalThis[DISPATCHER];
    if (!current || typeof current.dispatch !== 'function' || wrappedDispatchers.has(current)) return;
    const proxy = new Proxy(current, {
      get(t, prop) {
        if (prop === 'dispatch') {
          return function dispatch(opts, handler) {
            let routed = opts;
            try {
              const origin = new URL(String(opts.origin));
              if (hosts.has(normHost(origin.hostname))) {
                const host = hostHeader(origin.hostname, origin.port, origin.protocol);
                routed = Object.assign({}, opts, {
                  origin: target.origin,
                  path: prefix + (opts.path || '/'),
                  headers: dispatchHeaders(opts.headers, forwardedHeaders(host, origin.protocol)),
                });
              }
            } catch (err) {
              routed = opts;
            }
            return t.dispatch(routed, handler);
          };
        }
        const value = Reflect.get(t, prop, t);
        return typeof value === 'function' ? value.bind(t) : value;
      },
    });
    wrappedDispatchers.add(proxy);
    try {
      globalThis[DISPATCHER] = proxy;
    } catch (err) {
      // read-only dispatcher slot: fetch stays unredirected
    }
  }

  if (typeof globalThis.fetch === 'function') {
    const originalFetch = globalThis.fetch;
    globalThis.fetch = function fetch(...args) {
      try {
        void globalThis.Headers; // loads Node's bundled undici, which creates the dispatcher
        wrapDispatcher(); // also re-wraps one the program installed itself
      } catch (err) {
        // never break fetch
      }
      return Reflect.apply(originalFetch, this, args);
    };
  }
})();
