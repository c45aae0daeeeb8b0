// The console's few behaviours: reveal and copy secrets, confirm forms, refresh a page, call the
// control plane's JSON endpoints and show what they answer. No library: fetch and the DOM.
'use strict';

const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') node.className = value; else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ''));
  return node;
}

// The control plane answers JSON; a refusal's body says why. Resolves to {status, body}.
async function call(method, path, body) {
  const init = { method, headers: {}, credentials: 'same-origin' };
  if (body !== undefined) {
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const raw = await response.text();
  let parsed = raw;
  try { parsed = raw ? JSON.parse(raw) : null; } catch (_) { /* not JSON: keep the text */ }
  return { status: response.status, body: parsed };
}

function show(target, result) {
  if (!target) return;
  target.textContent = typeof result === 'string' ? result : JSON.stringify(result, null, 2);
  target.hidden = false;
}

function table(headings, rows) {
  const head = el('tr', {}, ...headings.map((h) => el('th', {}, h)));
  const body = rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c))));
  return el('table', { class: 'grid' }, el('thead', {}, head), el('tbody', {}, ...body));
}

// ---- secrets, confirmations ----------------------------------------------------------------------

document.addEventListener('click', async (event) => {
  const button = event.target.closest('button');
  if (!button) return;
  if (button.classList.contains('reveal')) {
    const code = $('.value', button.parentElement);
    const masked = code.classList.toggle('masked');
    if (!masked) { code.dataset.short = code.textContent; code.textContent = code.dataset.value; }
    else code.textContent = code.dataset.short;
    button.textContent = masked ? 'Reveal' : 'Hide';
  } else if (button.classList.contains('copy')) {
    try { await navigator.clipboard.writeText(button.dataset.copy); } catch (_) { /* http: no clipboard */ }
    const label = button.textContent;
    button.textContent = 'Copied';
    setTimeout(() => { button.textContent = label; }, 1200);
  } else if (button.dataset.post) {
    // A JSON action: POST (or data-method) its data-body, show the answer, reload on success if asked.
    const method = button.dataset.method || 'POST';
    const body = button.dataset.body ? JSON.parse(button.dataset.body) : method === 'DELETE' ? undefined : {};
    const result = await call(method, button.dataset.post, body);
    show($(button.dataset.result || '#result'), `${result.status} ${JSON.stringify(result.body, null, 2)}`);
    if (result.status < 300 && button.dataset.reload) setTimeout(() => location.reload(), 300);
  }
});

document.addEventListener('submit', (event) => {
  const form = event.target;
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

// ---- auto-refresh (the requests and webhooks pages) ------------------------------------------------

function autoRefresh() {
  const box = $('#auto-refresh');
  if (!box) return;
  const key = 'roost-auto:' + location.pathname;
  box.checked = sessionStorage.getItem(key) === '1';
  let timer = null;
  const arm = () => {
    clearInterval(timer);
    if (box.checked) timer = setInterval(() => location.reload(), 3000);
  };
  box.addEventListener('change', () => { sessionStorage.setItem(key, box.checked ? '1' : '0'); arm(); });
  arm();
}

// ---- forms sent as JSON (replay, clock, faults, prices) ---------------------------------------------

function jsonForms() {
  for (const form of $$('form[data-json]')) {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const body = window[form.dataset.json](new FormData(form));
      if (body === null) return;
      const result = await call(form.dataset.method || 'POST', form.action, body);
      show($(form.dataset.result || '#result'), `${result.status} ${JSON.stringify(result.body, null, 2)}`);
      if (result.status < 300 && form.dataset.after) window[form.dataset.after]();
    });
  }
}

// Builders of each form's JSON body (named by the form's data-json).
window.replayBody = (data) => ({ from: data.get('from'), to: data.get('to') });
window.advanceBody = (data) => ({ advance_seconds: Number(data.get('seconds')) });
window.setBody = (data) => ({ set: new Date(data.get('at')).toISOString() });
window.freezeBody = (data) => ({ freeze: data.get('freeze') === '1' });
window.faultBody = (data) => {
  const body = { method: data.get('method'), path: data.get('path'), status: Number(data.get('status')) };
  for (const name of ['latency_ms', 'times', 'probability']) {
    if (data.get(name) !== '') body[name] = Number(data.get(name));
  }
  return body;
};
window.creditBody = (data) => {
  const usd = data.get('credit_usd');
  return { consumer_key: data.get('consumer_key'), credit_usd: usd === '' ? null : Number(usd) };
};
window.priceBody = (data) => {
  const usd = data.get('usd');
  return { [data.get('operation')]: usd === '' ? null : Number(usd) };
};

// ---- clock and faults --------------------------------------------------------------------------------

// A window's reset (epoch seconds, as the x-rate-limit-reset header has it), readable, with the raw value.
const resetText = (seconds) => `${new Date(seconds * 1000).toISOString().replace('.000Z', 'Z')} (${seconds})`;

window.loadClock = async () => {
  const target = $('#clock-now');
  if (!target) return;
  const result = await call('GET', '/_roost/clock');
  target.textContent = result.status === 200 ? result.body.now : `unavailable (${result.status})`;
  const frozen = result.status === 200 && result.body.frozen === true;
  const value = $('#freeze-value');
  if (value) {
    value.value = frozen ? '0' : '1';
    $('#freeze-submit').textContent = frozen ? 'Let it run' : 'Freeze';
    $('#clock-state').textContent = frozen ? 'frozen' : 'running';
  }
};

window.loadFaults = async () => {
  const target = $('#faults');
  if (!target) return;
  const result = await call('GET', '/_roost/faults');
  if (result.status !== 200) {
    target.replaceChildren(el('p', { class: 'note' }, `No fault rules here: GET /_roost/faults answered ${result.status}.`));
    return;
  }
  const rules = result.body.data || [];
  if (!rules.length) { target.replaceChildren(el('p', { class: 'note' }, 'No fault rules.')); return; }
  target.replaceChildren(table(
    ['id', 'method', 'path', 'status', 'latency ms', 'remaining', 'probability', 'hits', ''],
    rules.map((r) => [r.id, r.method, r.path, r.status, r.latency_ms, r.remaining ?? '∞', r.probability, r.hits,
      el('button', { type: 'button', 'data-post': `/_roost/faults/${encodeURIComponent(r.id)}`, 'data-method': 'DELETE', 'data-reload': '1', class: 'delete-fault' }, 'Delete')]),
  ));
};

// ---- limits, usage and cost ---------------------------------------------------------------------------

window.loadLimits = async () => {
  const limits = $('#limits');
  if (!limits) return;
  const windows = await call('GET', '/_roost/limits');
  if (windows.status !== 200 || !windows.body || !Array.isArray(windows.body.data)) {
    limits.replaceChildren(el('p', { class: 'note' }, `Rate-limit windows unavailable: GET /_roost/limits answered ${windows.status}.`));
  } else if (!windows.body.data.length) {
    limits.replaceChildren(el('p', { class: 'note' }, 'No rate-limit window is open.'));
  } else {
    limits.replaceChildren(table(['operation', 'app', 'user', 'limit', 'remaining', 'reset'],
      windows.body.data.map((w) => [w.operation, w.app_id, w.user_id ?? '', w.limit, w.remaining, resetText(w.reset)])));
  }
  const usage = $('#usage');
  const used = await call('GET', '/_roost/usage');
  const data = used.body && used.body.data;
  if (used.status !== 200 || !data) {
    usage.replaceChildren(el('p', { class: 'note' }, `Usage unavailable: GET /_roost/usage answered ${used.status}.`));
    return;
  }
  const priceKey = (p) => (p.variant ? `${p.operation}:${p.variant}` : p.operation);
  const credit = (a) => (a.credit_usd === null ? 'no limit' : `${a.credit_usd}${a.out_of_credit ? ' (spent: 402)' : ''}`);
  const apps = (data.apps || []).map((a) => [a.app_id, a.name, a.consumer_key, a.package, a.requests, a.billed, a.cost_usd, credit(a)]);
  const operationText = ([op, v]) => {
    const variants = Object.entries(v.variants || {}).map(([name, w]) => `${name}: ${w.requests}, $${w.cost_usd}`);
    return `${op}: ${v.requests} (${v.resources} returned, $${v.cost_usd}${variants.length ? `; ${variants.join('; ')}` : ''})`;
  };
  const days = (data.days || []).map((d) => [d.day, d.app_id, d.requests, d.cost_usd,
    Object.entries(d.by_operation || {}).map(operationText).join(', ')]);
  usage.replaceChildren(
    el('p', {}, `Total: ${data.total_usd} ${data.currency || 'USD'}`),
    table(['app', 'name', 'consumer key', 'package', 'requests', 'billed', 'cost USD', 'credit left USD'], apps),
    table(['day', 'app', 'requests', 'cost USD', 'by operation'], days),
  );
  const prices = $('#prices');
  prices.replaceChildren(table(['operation', 'USD', 'per', 'category'],
    (data.prices || []).map((p) => [priceKey(p), p.usd, p.per, p.category ?? p.note ?? ''])));
  const options = $('#price-operations');
  options.replaceChildren(...(data.prices || []).map((p) => el('option', { value: priceKey(p) })));
};

// ---- the live view of the event log --------------------------------------------------------------------

function liveView() {
  const out = $('#live');
  const toggle = $('#live-toggle');
  if (!out || !toggle) return;
  let source = null;
  const stop = () => { if (source) source.close(); source = null; toggle.textContent = 'Follow'; };
  toggle.addEventListener('click', () => {
    if (source) { stop(); return; }
    source = new EventSource(toggle.dataset.src);
    toggle.textContent = 'Stop';
    source.addEventListener('event', (message) => {
      const line = el('div', { class: 'line' }, message.data);
      out.prepend(line);
      while (out.childElementCount > 200) out.lastElementChild.remove();
    });
    source.addEventListener('end', stop);
  });
}

document.addEventListener('DOMContentLoaded', () => {
  autoRefresh();
  jsonForms();
  liveView();
  window.loadClock();
  window.loadFaults();
  window.loadLimits();
});

window.reloadSoon = () => setTimeout(() => location.reload(), 500);
