// The waitlist board for the room's wall: each game with its tables, the
// seats free and who waits, live from the seating board's feed. People
// appear by the display name (or initials) the API gives other players,
// never by account id: sign the screen in with a player-role token of its
// own, and the feed itself carries no one else's id.

import { APIError, watch } from './api.js';
import { byID, fill, h } from './dom.js';
import { gameName } from './format.js';
import { expired, start } from './session.js';

const boards = new Map(); // waitlist_id → WaitlistBoard

start(() => {
  watch('/v1/seating/board', (msg) => {
    if (msg.snapshot) boards.clear();
    for (const b of msg.boards || []) boards.set(b.waitlist.waitlist_id, b);
    draw();
  }, (feed, err) => {
    const badge = byID('feed');
    badge.textContent = feed === 'live' ? 'live' : feed === 'failed' ? `stopped: ${err instanceof APIError ? err.describe() : err}` : 'reconnecting…';
    badge.className = feed === 'live' ? 'badge live' : 'badge warn';
    if (feed === 'failed' && err instanceof APIError && err.status === 401) expired();
  });
});

// name is how the board shows a person: the display name the API gives,
// never the id.
function name(x) {
  return x.display_name || '—';
}

function wait(d) {
  const s = parseFloat(String(d || '0'));
  return s >= 60 ? `about ${Math.round(s / 60)} min` : '';
}

function draw() {
  const games = [...boards.values()].sort((a, b) => (a.waitlist.name || '').localeCompare(b.waitlist.name || ''));
  if (games.length === 0) {
    fill(byID('board'), h('p', { class: 'muted' }, 'No game has a waiting list.'));
    return;
  }
  fill(byID('board'), games.map((b) => {
    const title = b.waitlist.name || gameName(b.waitlist.game);
    const tables = b.tables || [];
    const free = tables.reduce((n, t) => n + (t.seats || []).filter((s) => s.state === 'SEAT_STATE_OPEN').length, 0);
    const entries = b.entries || [];
    return h('article', { class: 'card game', 'data-waitlist': b.waitlist.waitlist_id, 'aria-label': title },
      h('h2', {}, title),
      h('p', {}, `${tables.length} ${tables.length === 1 ? 'table' : 'tables'} · `,
        h('span', { class: free ? 'free' : '' }, `${free} ${free === 1 ? 'seat' : 'seats'} free`)),
      tables.length ? h('ul', { class: 'tables' }, tables.map((t) => {
        const taken = (t.seats || []).filter((s) => s.state === 'SEAT_STATE_TAKEN');
        const offered = (t.seats || []).filter((s) => s.state === 'SEAT_STATE_OFFERED');
        return h('li', { 'data-table': t.table_id },
          h('strong', {}, t.name || 'Table'), t.must_move ? ' (must move)' : '',
          `: ${taken.length}/${(t.seats || []).length}`,
          taken.length ? h('span', { class: 'muted' }, ` — ${taken.map(name).join(', ')}`) : null,
          offered.length ? h('span', {}, ` · offered to ${offered.map(name).join(', ')}`) : null);
      })) : null,
      h('h3', {}, `Waiting: ${entries.length}`),
      entries.length ? h('ol', { class: 'waiting' }, entries.map((e) => h('li', {}, name(e),
        e.kind && e.kind !== 'ENTRY_KIND_WAITING' ? h('span', { class: 'muted' }, ` (${e.kind.replace('ENTRY_KIND_', '').replace(/_/g, ' ').toLowerCase()})`) : null,
        wait(e.estimated_wait) ? h('span', { class: 'muted' }, ` · ${wait(e.estimated_wait)}`) : null))) :
        h('p', { class: 'muted' }, 'Nobody is waiting.'));
  }));
}
