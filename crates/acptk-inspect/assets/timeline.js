// The virtualised timeline: only the rows in view are in the DOM; rows are fetched by range.
// A row is a cluster (streamed chunks folded, with a count) or, inside an expanded cluster,
// one of its frames.

import { get } from './api.js';
import { el, fill, duration, size } from './dom.js';

const ROW = 26;
const PAGE = 200;
const OVERSCAN = 10;
/** Short names of the kinds (the full name is the cell's tooltip). */
const KINDS = { request: 'req', response: 'resp', notification: 'notif', error: 'error', invalid: 'invalid', too_long: 'too long' };

export class Timeline {
  constructor(scroller, spacer, onSelect) {
    this.scroller = scroller;
    this.spacer = spacer;
    this.onSelect = onSelect;
    this.id = null;
    this.scroller.addEventListener('scroll', () => this.schedule());
    this.scroller.addEventListener('keydown', (e) => this.key(e));
    new ResizeObserver(() => this.schedule()).observe(this.scroller);
  }

  /** Shows capture `id` with `total` rows. */
  open(id, total, start) {
    this.id = id;
    this.total = total;
    this.start = start;
    this.rows = new Map();
    this.members = new Map();
    this.loading = new Set();
    this.expanded = [];
    this.selected = 0;
    this.painted = false;
    this.scroller.scrollTop = 0;
    this.resize();
    this.schedule();
  }

  /** The capture grew to `total` rows (live): the last row may have grown too. */
  grow(total) {
    if (this.id === null) return;
    for (let i = Math.max(0, this.total - 1); i < total; i++) this.rows.delete(i);
    this.total = total;
    this.resize();
    this.schedule();
  }

  lines() {
    return this.total + this.expanded.reduce((n, e) => n + e.count, 0);
  }

  resize() {
    this.spacer.style.height = `${this.lines() * ROW}px`;
  }

  /** What line `line` shows: a row (cluster) or a member frame of an expanded one. */
  at(line) {
    let offset = 0;
    for (const e of this.expanded) {
      const rowLine = e.row + offset;
      if (line <= rowLine) break;
      if (line <= rowLine + e.count) return { member: e.seq + (line - rowLine - 1), parent: e.row };
      offset += e.count;
    }
    return { row: line - offset };
  }

  /** The line of row `row`. */
  lineOf(row) {
    let offset = 0;
    for (const e of this.expanded) if (e.row < row) offset += e.count;
    return row + offset;
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => { this.frame = null; this.render(); });
  }

  fetchRows(index) {
    const from = Math.floor(index / PAGE) * PAGE;
    const key = `r${from}`;
    if (this.loading.has(key)) return;
    this.loading.add(key);
    const id = this.id;
    get(`/api/captures/${id}/rows?from=${from}&limit=${PAGE}`).then((page) => {
      if (this.id !== id) return;
      page.rows.forEach((r, i) => this.rows.set(from + i, r));
      if (page.total !== this.total) { this.total = page.total; this.resize(); }
      this.loading.delete(key);
      this.schedule();
    }).catch(() => this.loading.delete(key));
  }

  fetchMembers(seq) {
    const from = Math.floor((seq - 1) / PAGE) * PAGE + 1;
    const key = `m${from}`;
    if (this.loading.has(key)) return;
    this.loading.add(key);
    const id = this.id;
    get(`/api/captures/${id}/frames?from=${from}&limit=${PAGE}`).then((frames) => {
      if (this.id !== id) return;
      for (const f of frames) this.members.set(f.seq, f);
      this.loading.delete(key);
      this.schedule();
    }).catch(() => this.loading.delete(key));
  }

  render() {
    if (this.id === null) return;
    const lines = this.lines();
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW) - OVERSCAN);
    const last = Math.min(lines, Math.ceil((this.scroller.scrollTop + this.scroller.clientHeight) / ROW) + OVERSCAN);
    const nodes = [];
    let shown = 0;
    for (let line = first; line < last; line++) {
      const place = this.at(line);
      let frame;
      if (place.member !== undefined) {
        frame = this.members.get(place.member);
        if (!frame) this.fetchMembers(place.member);
      } else {
        frame = this.rows.get(place.row);
        if (!frame) this.fetchRows(place.row);
      }
      nodes.push(this.line(line, place, frame));
      if (frame) shown++;
    }
    fill(this.spacer, nodes);
    if (shown > 0 && !this.painted) {
      this.painted = true;
      requestAnimationFrame(() => performance.mark(`timeline-painted-${this.id}`));
    }
  }

  line(line, place, frame) {
    const selected = line === this.selected;
    const attrs = {
      class: `row${place.member !== undefined ? ' member' : ''}${selected ? ' selected' : ''}`,
      role: 'option',
      'aria-selected': selected ? 'true' : 'false',
      style: { top: `${line * ROW}px` },
      onclick: () => this.select(line),
    };
    if (!frame) return el('div', attrs, el('span', { class: 'c-seq' }, '…'));
    attrs['data-seq'] = frame.seq;
    attrs['data-count'] = frame.count;
    const findings = frame.findings || [];
    const worst = ['error', 'warning', 'info', 'note'].find((s) => findings.some((f) => f.severity === s));
    const arrow = frame.side === 'client' ? 'client → agent' : 'agent → client';
    // A session update is named by its tag, the interesting part.
    const method = frame.update ? el('span', { class: 'upd' }, frame.update) : (frame.method || '');
    const time = frame.time !== null && this.start ? `+${duration(frame.time - this.start)}` : '';
    return el('div', attrs,
      el('span', { class: 'c-seq' }, frame.seq),
      el('span', { class: 'c-time' }, time),
      el('span', { class: `c-dir side-${frame.side}`, title: arrow }, frame.side === 'client' ? 'C→A' : 'A→C'),
      el('span', { class: `c-kind kind-${frame.kind}`, title: frame.kind }, KINDS[frame.kind] ?? frame.kind),
      el('span', { class: 'c-method', title: frame.update ? `${frame.method}: ${frame.update}` : (frame.method || '') },
        frame.count > 1 ? el('button', {
          class: 'cluster', type: 'button', tabindex: '-1',
          'aria-expanded': this.expanded.some((e) => e.row === place.row) ? 'true' : 'false',
          'aria-label': `${frame.count} frames; expand or collapse`,
          onclick: (e) => { e.stopPropagation(); this.toggle(place.row, frame); },
        }, `×${frame.count}`) : null,
        method),
      el('span', { class: 'c-id' }, frame.rpc_id ?? ''),
      el('span', { class: 'c-size' }, size(frame.size)),
      el('span', { class: 'c-lat' }, duration(frame.latency)),
      el('span', { class: 'c-flags' }, findings.length
        ? el('span', { class: `badge sev-${worst}`, title: findings.map((f) => `${f.rule}: ${f.message}`).join('\n') },
          findings.length > 1 ? `${findings.length}: ${findings[0].rule}` : findings[0].rule)
        : ''));
  }

  /** Expands or collapses the cluster at row `row`. */
  toggle(row, frame) {
    const at = this.expanded.findIndex((e) => e.row === row);
    if (at >= 0) this.expanded.splice(at, 1);
    else if (frame.count > 1) {
      this.expanded.push({ row, seq: frame.seq, count: frame.count });
      this.expanded.sort((a, b) => a.row - b.row);
    }
    this.resize();
    this.schedule();
  }

  select(line) {
    const lines = this.lines();
    if (lines === 0) return;
    this.selected = Math.max(0, Math.min(lines - 1, line));
    const top = this.selected * ROW;
    if (top < this.scroller.scrollTop) this.scroller.scrollTop = top;
    else if (top + ROW > this.scroller.scrollTop + this.scroller.clientHeight) this.scroller.scrollTop = top + ROW - this.scroller.clientHeight;
    const place = this.at(this.selected);
    const frame = place.member !== undefined ? this.members.get(place.member) : this.rows.get(place.row);
    if (frame) this.onSelect(frame.seq);
    this.schedule();
  }

  /** Selects row `row` (a search hit, a finding) and brings it into view. */
  reveal(row) {
    const line = this.lineOf(row);
    this.scroller.scrollTop = Math.max(0, line * ROW - this.scroller.clientHeight / 3);
    this.selected = line;
    this.schedule();
  }

  key(e) {
    const pageRows = Math.max(1, Math.floor(this.scroller.clientHeight / ROW) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: pageRows, PageUp: -pageRows };
    if (e.key in moves) this.select(this.selected + moves[e.key]);
    else if (e.key === 'Home') this.select(0);
    else if (e.key === 'End') this.select(this.lines() - 1);
    else if (e.key === 'Enter' || e.key === ' ') {
      const place = this.at(this.selected);
      const frame = place.row !== undefined ? this.rows.get(place.row) : null;
      if (frame && frame.count > 1) this.toggle(place.row, frame);
      else this.select(this.selected);
    } else return;
    e.preventDefault();
  }
}
