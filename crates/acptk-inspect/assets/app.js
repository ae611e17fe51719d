// The inspector page: session picker, views, navigation, live updates.

import { get } from './api.js';
import { el, fill, when } from './dom.js';
import { Timeline } from './timeline.js';
import * as views from './views.js';

const state = { captures: [], id: null, view: 'timeline', search: '' };
const $ = (id) => document.getElementById(id);

const timeline = new Timeline($('timeline'), $('timeline-spacer'), (seq) => showDetail(seq));

function report(error) {
  fill($('live-state'), `Error: ${error.message}`);
}

let asked = 0;
async function showDetail(seq) {
  if (state.id === null) return;
  // Answers can come out of order (a key held down): only the last frame asked for is shown.
  const ticket = ++asked;
  await views.detail($('detail'), state.id, seq, go, () => ticket === asked).catch(report);
}

/** Opens frame `seq` of capture `id` in the timeline. */
async function go(id, seq) {
  if (id !== state.id) await open(id);
  setView('timeline');
  const at = await get(`/api/captures/${id}/locate?seq=${seq}`);
  timeline.reveal(at.row);
  showDetail(seq);
  $('timeline').focus();
}

function pickerItem(c) {
  const peers = `${c.client.name ?? '?'} ${c.client.version ?? ''} ↔ ${c.agent.name ?? '?'} ${c.agent.version ?? ''}`;
  return el('li', {},
    el('button', {
      type: 'button', class: `capture${c.id === state.id ? ' current' : ''}`, 'data-id': c.id,
      'aria-current': c.id === state.id ? 'true' : false, onclick: () => open(c.id).catch(report),
    },
    el('span', { class: 'cap-title', title: c.origin }, `#${c.id} `, c.name ?? c.origin, c.live ? el('span', { class: 'live' }, ' live') : ''),
    el('span', { class: 'cap-peers' }, peers),
    el('span', { class: 'cap-meta' }, `v${c.protocol_version ?? '?'} · ${c.frames} frames · ${c.errors} errors · ${c.warnings} warnings · ${c.notices} notices`),
    el('span', { class: 'cap-when' }, `${when(c.started_at)} · ${c.source}`)));
}

async function loadCaptures() {
  state.captures = await get('/api/captures');
  fill($('captures'), state.captures.length ? state.captures.map(pickerItem)
    : el('li', { class: 'empty' }, 'No captures yet: run `acp proxy --capture -- AGENT` or `acp inspect import FILE`.'));
}

function head(capture) {
  fill($('capture-head'), el('h2', {}, `Capture #${capture.id}`, capture.live ? ' (live)' : ''),
    el('p', { title: capture.origin }, `${capture.frames} frames · protocol v${capture.protocol_version ?? '?'} · ${capture.origin}`));
}

async function open(id) {
  const { capture, rows } = await get(`/api/captures/${id}`);
  state.id = id;
  head(capture);
  for (const b of document.querySelectorAll('#captures .capture')) {
    const current = Number(b.dataset.id) === id;
    b.classList.toggle('current', current);
    if (current) b.setAttribute('aria-current', 'true'); else b.removeAttribute('aria-current');
  }
  timeline.open(id, rows, capture.started_at);
  fill($('detail'), el('p', { class: 'empty' }, 'Select a frame.'));
  history.replaceState(null, '', `#capture=${id}`);
  if (state.view !== 'timeline') await renderView();
}

function setView(view) {
  state.view = view;
  for (const tab of document.querySelectorAll('#tabs [role=tab]')) {
    tab.setAttribute('aria-selected', tab.dataset.view === view ? 'true' : 'false');
  }
  for (const section of document.querySelectorAll('.view')) section.hidden = section.id !== `view-${view}`;
  renderView().catch(report);
}

async function renderView() {
  const node = $(`view-${state.view}`);
  if (state.view === 'search') return state.search && views.search(node, state.search, go);
  if (state.view === 'timeline') return timeline.schedule();
  if (state.id === null) return fill(node, el('p', { class: 'empty' }, 'Pick a capture.'));
  switch (state.view) {
    case 'findings': return views.findings(node, state.id, go);
    case 'notices': return views.notices(node, state.id, go);
    case 'latency': return views.latency(node, state.id, go);
    case 'info': return views.info(node, state.id);
    case 'diff': return views.diffView(node, state.id, state.captures, go);
  }
}

for (const tab of document.querySelectorAll('#tabs [role=tab]')) {
  tab.addEventListener('click', () => setView(tab.dataset.view));
  tab.addEventListener('keydown', (e) => {
    const tabs = [...document.querySelectorAll('#tabs [role=tab]')];
    const at = tabs.indexOf(tab);
    const next = e.key === 'ArrowRight' ? tabs[(at + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(at + tabs.length - 1) % tabs.length] : null;
    if (next) { next.focus(); setView(next.dataset.view); e.preventDefault(); }
  });
}

$('search-form').addEventListener('submit', (e) => {
  e.preventDefault();
  state.search = $('search-input').value.trim();
  if (state.search) setView('search');
});

// Live updates: the server says when the database changed; the picker and the open capture
// are read again without reloading the page.
let refreshing = false;
let again = false;
async function refresh() {
  // One refresh at a time; a change during one brings another after it.
  if (refreshing) { again = true; return; }
  refreshing = true;
  try {
    do {
      again = false;
      await loadCaptures();
      if (state.id !== null) {
        const { capture, rows } = await get(`/api/captures/${state.id}`);
        if (capture.id === state.id) {
          head(capture);
          timeline.grow(rows);
        }
        if (state.view === 'notices' || state.view === 'findings') await renderView();
      }
    } while (again);
  } finally {
    refreshing = false;
  }
}

const events = new EventSource('/api/events');
events.addEventListener('change', () => refresh().catch(report));
events.addEventListener('open', () => fill($('live-state'), 'live'));
events.addEventListener('error', () => fill($('live-state'), 'reconnecting…'));

(async () => {
  await loadCaptures();
  const wanted = Number(new URLSearchParams(location.hash.slice(1)).get('capture'));
  const first = state.captures.find((c) => c.id === wanted) ?? state.captures[0];
  if (first) await open(first.id);
})().catch(report);
