// The views beside the timeline: frame detail, findings, notice lane, latency and waterfall,
// session info, diff, search. Everything captured is inserted as text.

import { get } from './api.js';
import { el, fill, duration, size, tree, when } from './dom.js';

/** Frame detail: header, findings, notice, JSON tree and raw text (unless `current()` says
 * another frame was asked for meanwhile). */
export async function detail(node, id, seq, go, current) {
  const f = await get(`/api/captures/${id}/frames/${seq}`);
  if (!current()) return;
  let parsed = null;
  try { parsed = JSON.parse(f.text); } catch { /* not JSON: raw only */ }
  const pair = f.request_seq ? ['request', f.request_seq] : f.response_seq ? ['response', f.response_seq] : null;
  fill(node,
    el('h2', {}, `Frame ${f.seq}`),
    el('dl', { class: 'facts' },
      el('dt', {}, 'sent by'), el('dd', {}, f.side),
      el('dt', {}, 'kind'), el('dd', {}, f.kind),
      el('dt', {}, 'method'), el('dd', {}, f.method ?? '—'),
      el('dt', {}, 'id'), el('dd', {}, f.rpc_id ?? '—'),
      el('dt', {}, 'session'), el('dd', {}, f.session ?? '—'),
      el('dt', {}, 'size'), el('dd', {}, size(f.size)),
      el('dt', {}, 'time'), el('dd', {}, when(f.time) || '—'),
      f.latency !== null ? [el('dt', {}, 'latency'), el('dd', {}, duration(f.latency))] : null,
      pair ? [el('dt', {}, pair[0]), el('dd', {}, el('button', { type: 'button', class: 'link', onclick: () => go(id, pair[1]) }, `frame ${pair[1]}`))] : null),
    f.findings.length ? el('section', { class: 'findings' }, el('h3', {}, 'Findings'),
      el('ul', {}, f.findings.map((x) => el('li', { class: `sev-${x.severity}` },
        el('strong', {}, x.severity), ' ', el('code', {}, x.rule), ' ', x.message)))) : null,
    f.notice ? el('section', { class: 'notice-box' }, el('h3', {}, 'Notice'), noticeBody(f.notice)) : null,
    el('h3', {}, 'Tree'),
    parsed !== null ? el('div', { class: 'tree-root' }, tree(parsed)) : el('p', { class: 'empty' }, 'Not JSON.'),
    el('h3', {}, 'Raw'),
    el('pre', { class: 'raw' }, f.text));
}

const OUTCOMES = {
  delivered: 'delivered as a notice',
  fallback: 'turned into an agent message (fallback)',
  removed_from_replay: 'removed from a history replay',
  removed: 'removed by the proxy',
  uncertain: 'uncertain (sent while a replay was open; delivered as live)',
  unsupported: 'sent to a client that cannot show it',
  replayed: 'sent inside a history replay',
  malformed: 'malformed: a client rejects it',
};

function noticeBody(n) {
  const advertised = n.advertised === null ? 'before initialize' : n.advertised ? 'yes' : 'no';
  return [
    el('p', {}, el('span', { class: `sev sev-${n.severity ?? 'none'}` }, n.severity ?? 'malformed'), ' ', el('strong', {}, n.title ?? '(no title)')),
    n.description ? el('p', {}, n.description) : null,
    el('p', {}, `Client advertised notices: ${advertised}. `, el('span', { class: 'outcome', 'data-outcome': n.outcome }, OUTCOMES[n.outcome] ?? n.outcome)),
    n.delivered_as ? el('details', {}, el('summary', {}, 'What the client got instead'), el('pre', { class: 'raw' }, n.delivered_as)) : null,
  ];
}

/** The findings panel. */
export async function findings(node, id, go) {
  const list = await get(`/api/captures/${id}/findings`);
  fill(node, el('h2', {}, `Findings (${list.length})`),
    list.length === 0 ? el('p', { class: 'empty' }, 'The checker found nothing.') :
      el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'frame'), el('th', {}, 'severity'), el('th', {}, 'rule'), el('th', {}, 'message'))),
        el('tbody', {}, list.map((f) => el('tr', { class: `sev-${f.severity}` },
          el('td', {}, f.seq ? el('button', { type: 'button', class: 'link', onclick: () => go(id, f.seq) }, f.seq) : 'input'),
          el('td', {}, f.severity), el('td', {}, el('code', {}, f.rule)), el('td', {}, f.message))))));
}

/** The notice lane. */
export async function notices(node, id, go) {
  const list = await get(`/api/captures/${id}/notices`);
  fill(node, el('h2', {}, `Notice lane (${list.length})`),
    list.length === 0 ? el('p', { class: 'empty' }, 'The agent sent no notices.') :
      el('ol', { class: 'lane' }, list.map((n) => el('li', { class: `notice outcome-${n.outcome}`, 'data-outcome': n.outcome },
        el('button', { type: 'button', class: 'link', onclick: () => go(id, n.seq) }, `frame ${n.seq}`),
        noticeBody(n)))));
}

/** Per-method latency and the waterfall of requests. */
export async function latency(node, id, go) {
  const data = await get(`/api/captures/${id}/latency`);
  const requests = data.requests.filter((r) => r.start !== null);
  const t0 = requests.length ? Math.min(...requests.map((r) => r.start)) : 0;
  const t1 = requests.length ? Math.max(...requests.map((r) => r.start + (r.latency ?? 0))) : 1;
  const span = Math.max(1, t1 - t0);
  fill(node, el('h2', {}, 'Latency per method'),
    el('table', {}, el('thead', {}, el('tr', {}, ['method', 'sender', 'count', 'errors', 'p50', 'p99', 'max'].map((h) => el('th', {}, h)))),
      el('tbody', {}, data.methods.map((m) => el('tr', {}, el('td', {}, el('code', {}, m.method)), el('td', {}, m.sender),
        el('td', { class: 'num' }, m.count), el('td', { class: 'num' }, m.errors),
        el('td', { class: 'num' }, duration(m.p50)), el('td', { class: 'num' }, duration(m.p99)), el('td', { class: 'num' }, duration(m.max)))))),
    el('h2', {}, `Waterfall (${requests.length} requests${data.truncated ? ', the first ones' : ''})`),
    el('ol', { class: 'waterfall' }, requests.slice(0, 1000).map((r) => el('li', {},
      el('button', { type: 'button', class: 'link', onclick: () => go(id, r.seq) }, `${r.seq} ${r.method}`),
      el('span', { class: 'lane-bar' }, el('span', {
        class: `bar${r.error ? ' error' : ''}${r.latency === null ? ' open' : ''}`,
        title: r.latency === null ? 'unanswered' : duration(r.latency),
        style: { left: `${((r.start - t0) / span) * 100}%`, width: `${Math.max(0.3, ((r.latency ?? span - (r.start - t0)) / span) * 100)}%` },
      }))))));
}

/** The session info drawer. */
export async function info(node, id) {
  const i = await get(`/api/captures/${id}/info`);
  const block = (title, value) => el('section', {}, el('h3', {}, title), value === null || value === undefined ? el('p', { class: 'empty' }, 'not sent') : tree(value));
  fill(node, el('h2', {}, 'Session info'),
    el('dl', { class: 'facts' }, el('dt', {}, 'protocol version'), el('dd', {}, i.protocol_version ?? '—'),
      el('dt', {}, 'client asked for'), el('dd', {}, i.proposed_version ?? '—')),
    block('Client', i.client_info), block('Client capabilities', i.client_capabilities),
    block('Agent', i.agent_info), block('Agent capabilities', i.agent_capabilities),
    block('Auth methods', i.auth_methods),
    el('h3', {}, `ACP sessions (${i.sessions.length})`),
    i.sessions.map((s) => el('section', { class: 'acp-session' }, el('h4', {}, s.id, s.opened_by ? ` (${s.opened_by})` : ''),
      el('p', {}, `current mode: ${s.current_mode ?? '—'}`),
      block('Modes', s.modes), block('Models', s.models), block('Config options', s.config_options), block('Commands', s.commands))));
}

/** The diff of capture `a` with one chosen from `captures`. */
export function diffView(node, a, captures, go) {
  const others = captures.filter((c) => c.id !== a);
  const out = el('div', { id: 'diff-out' });
  const select = el('select', { id: 'diff-with', 'aria-label': 'Compare with' },
    el('option', { value: '' }, 'Compare with…'),
    others.map((c) => el('option', { value: c.id }, `#${c.id} ${c.agent.name ?? c.origin} (${c.frames} frames)`)));
  const run = async () => {
    if (!select.value) return fill(out);
    const d = await get(`/api/diff?a=${a}&b=${select.value}`);
    const changes = (title, list) => el('section', {}, el('h3', {}, `${title} (${list.length})`),
      list.length === 0 ? el('p', { class: 'empty' }, 'the same') :
        el('table', { class: 'changes' }, el('thead', {}, el('tr', {}, el('th', {}, 'what'), el('th', {}, `#${d.a}`), el('th', {}, `#${d.b}`))),
          el('tbody', {}, list.map((c) => el('tr', { class: 'change' }, el('td', {}, el('code', {}, c.path)),
            el('td', {}, c.a === null ? 'absent' : JSON.stringify(c.a)), el('td', {}, c.b === null ? 'absent' : JSON.stringify(c.b)))))));
    const run1 = (r, id) => r ? el('button', { type: 'button', class: 'link', onclick: () => go(id, r.seq) },
      `${r.seq} ${r.side} ${r.kind} ${r.method ?? ''}${r.update ? ` · ${r.update}` : ''}${r.count > 1 ? ` ×${r.count}` : ''}`) : '—';
    fill(out, changes('Versions and peers', d.versions), changes('Capabilities', d.capabilities),
      el('h3', {}, `Frames aligned by method and order${d.truncated ? ' (the first ones)' : ''}`),
      el('table', { class: 'aligned' }, el('thead', {}, el('tr', {}, el('th', {}, `#${d.a}`), el('th', {}, `#${d.b}`))),
        el('tbody', {}, d.aligned.map((row) => el('tr', { class: row.a && row.b ? '' : 'only' },
          el('td', {}, run1(row.a, d.a)), el('td', {}, run1(row.b, d.b)))))));
  };
  select.addEventListener('change', () => run().catch((e) => fill(out, el('p', { class: 'error' }, e.message))));
  fill(node, el('h2', {}, `Diff of #${a}`), select, out);
}

/** Search hits across captures. */
export async function search(node, text, go) {
  fill(node, el('h2', {}, 'Searching…'));
  const found = await get(`/api/search?q=${encodeURIComponent(text)}`);
  const n = found.hits.length;
  fill(node, el('h2', {}, `${n}${found.truncated ? '+' : ''} ${n === 1 ? 'frame matches' : 'frames match'} “${text}”`),
    el('ol', { class: 'hits' }, found.hits.map((h) => el('li', { class: 'hit' },
      el('button', { type: 'button', class: 'link', onclick: () => go(h.capture, h.seq) },
        `capture ${h.capture}, frame ${h.seq}: ${h.kind} ${h.method ?? ''}`),
      el('pre', { class: 'snippet' }, h.snippet)))));
}
