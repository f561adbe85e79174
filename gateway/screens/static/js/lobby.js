// The lobby: a player's view of the room — cash tables, waiting lists
// (join and leave them), their seat offers (accept, decline, buy in and
// sit down) and the tournaments.

import { APIError, call, watch } from './api.js';
import { byID, countdown, fill, h, say } from './dom.js';
import { clockTime, enumName, gameName, money, num } from './format.js';
import { expired, start } from './session.js';

const POLL_MS = 5000;

let me = '';
let tables = [];
let offers = [];
let tournaments = [];
const boards = new Map(); // waitlist_id → WaitlistBoard
const drawn = new Map(); // section → what it last showed, so a refresh that changes nothing leaves the DOM (and any typing) alone

start((claims) => {
  me = claims.sub;
  watch('/v1/seating/board', (msg) => {
    if (msg.snapshot) boards.clear();
    for (const b of msg.boards || []) boards.set(b.waitlist.waitlist_id, b);
    draw();
    // A change of a list may be a seat offered to this player: ask at
    // once rather than at the next poll.
    if (!msg.snapshot) refresh();
  }, (state, err) => {
    if (state === 'failed') failed(err);
  });
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
});

function failed(err) {
  if (err instanceof APIError && err.status === 401) expired();
  say(byID('status'), err instanceof APIError ? err.describe() : String(err), 'error');
}

async function all(path, key) {
  const out = [];
  let page = '';
  for (let i = 0; i < 10; i++) {
    const sep = path.includes('?') ? '&' : '?';
    const data = await call('GET', `${path}${sep}page_size=100${page ? `&page_token=${encodeURIComponent(page)}` : ''}`);
    out.push(...(data[key] || []));
    page = data.next_page_token;
    if (!page) break;
  }
  return out;
}

async function refresh() {
  try {
    [tables, offers, tournaments] = await Promise.all([
      all('/v1/tables', 'tables'),
      call('GET', '/v1/seat-offers').then((d) => d.offers || []),
      all('/v1/tournaments', 'tournaments'),
    ]);
    say(byID('status'), '');
    draw();
  } catch (err) {
    failed(err);
  }
}

// act runs one of the player's requests and refreshes what it changed.
async function act(what, fn) {
  try {
    await fn();
    say(byID('status'), what, 'ok');
  } catch (err) {
    failed(err);
  }
  await refresh();
}

// once draws a section only when what it shows changed.
function once(id, model, render) {
  const key = JSON.stringify(model);
  if (drawn.get(id) === key) return;
  drawn.set(id, key);
  fill(byID(id), render());
}

function draw() {
  drawTables();
  drawWaitlists();
  drawOffers();
  drawTournaments();
}

function tableName(id) {
  const t = tables.find((x) => x.table_id === id);
  return t ? t.name : 'a table';
}

function drawTables() {
  const cash = tables.filter((t) => t.kind === 'TABLE_KIND_CASH' && !t.closed);
  const rows = cash.map((t) => ({
    id: t.table_id, name: t.name, game: gameName(t.game), seats: t.seats,
    taken: (t.seat_map || []).filter((s) => s.player_id).length,
    mine: (t.seat_map || []).some((s) => s.player_id === me),
    live: t.mode === 'TABLE_MODE_LIVE',
  }));
  once('tables', rows, () => (rows.length === 0 ? h('p', { class: 'muted' }, 'No cash table is open.') :
    h('table', { class: 'list' },
      h('caption', { class: 'muted' }, `${rows.length} open`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Table'), h('th', { scope: 'col' }, 'Game'),
        h('th', { scope: 'col', class: 'num' }, 'Players'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, rows.map((r) => h('tr', {},
        h('th', { scope: 'row' }, r.name, r.live ? h('span', { class: 'badge' }, ' live') : null),
        h('td', {}, r.game),
        h('td', { class: 'num' }, `${r.taken}/${r.seats}`),
        h('td', {}, h('a', { class: r.mine ? 'button' : 'button quiet', href: `table.html?table=${encodeURIComponent(r.id)}` },
          r.mine ? 'Your seat' : 'Watch'))))))));
}

function drawWaitlists() {
  const rows = [...boards.values()].map((b) => {
    const mine = (b.entries || []).find((e) => e.player_id === me);
    return { id: b.waitlist.waitlist_id, name: b.waitlist.name || gameName(b.waitlist.game), waiting: b.waitlist.waiting,
      place: mine ? mine.position : 0 };
  });
  once('waitlists', rows, () => (rows.length === 0 ? h('p', { class: 'muted' }, 'No waiting list is open.') :
    h('table', { class: 'list' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Game'), h('th', { scope: 'col', class: 'num' }, 'Waiting'),
        h('th', { scope: 'col' }, 'You'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, rows.map((r) => h('tr', {},
        h('th', { scope: 'row' }, r.name),
        h('td', { class: 'num' }, r.waiting),
        h('td', {}, r.place ? `number ${r.place}` : '—'),
        h('td', {}, r.place ?
          h('button', { type: 'button', class: 'quiet', 'aria-label': `Leave the list for ${r.name}`,
            onclick: () => act('You left the list.', () => call('DELETE', `/v1/waitlists/${r.id}/entries/${encodeURIComponent(me)}`)) }, 'Leave') :
          h('button', { type: 'button', 'aria-label': `Join the list for ${r.name}`,
            onclick: () => act('You are on the list.', () => call('POST', `/v1/waitlists/${r.id}/entries`, {})) }, 'Join'))))))));
}

function drawOffers() {
  const shown = offers.filter((o) => o.state === 'OFFER_STATE_PENDING' || o.state === 'OFFER_STATE_ACCEPTED');
  byID('offers-section').hidden = shown.length === 0;
  const model = shown.map((o) => ({ id: o.offer_id, state: o.state, table: tableName(o.table_id),
    until: o.state === 'OFFER_STATE_PENDING' ? o.expire_time : o.hold_until }));
  once('offers', model, () => shown.map(offerCard));
}

function offerCard(o) {
  const where = `Seat ${o.seat + 1} at ${tableName(o.table_id)}`;
  if (o.state === 'OFFER_STATE_PENDING') {
    return h('article', { class: 'card', 'aria-label': `Offer: ${where}` },
      h('h3', {}, where), h('p', {}, gameName(o.game)),
      h('p', {}, countdown(Date.parse(o.expire_time), 'Answer within ', clockTime)),
      h('div', { class: 'row' },
        h('button', { type: 'button', onclick: () => act('Seat accepted: buy in to sit down.', () => call('POST', `/v1/seat-offers/${o.offer_id}:accept`, {})) }, 'Accept'),
        h('button', { type: 'button', class: 'quiet', onclick: () => act('Offer declined.', () => call('POST', `/v1/seat-offers/${o.offer_id}:decline`, {})) }, 'Decline')));
  }
  return buyInCard(o, where);
}

// buyInCard is an accepted offer: the seat is held while the player buys
// in (the wallet says the range, CS-02…CS-11) and sits down.
function buyInCard(o, where) {
  const amount = h('input', { id: `buyin-${o.offer_id}`, type: 'number', required: true, min: 0.01, step: 0.01 });
  const range = h('p', { class: 'help', id: `range-${o.offer_id}` }, 'Asking the cage what you may buy in for…');
  const postNow = h('input', { id: `post-${o.offer_id}`, type: 'checkbox' });
  const table = tables.find((t) => t.table_id === o.table_id);
  if (table) {
    call('POST', `/v1/players/${encodeURIComponent(me)}/buy-in-checks`, { table_id: o.table_id, currency: table.currency, game: table.game })
      .then((d) => {
        const r = d.range || {};
        amount.min = num(r.min) / 100;
        if (!r.unbounded) amount.max = num(r.max) / 100;
        if (!amount.value) amount.value = num(r.min) / 100;
        fill(range, r.unbounded ? `At least ${money(r.min)}` : `Between ${money(r.min)} and ${money(r.max)}`, r.rule_id ? ` (${r.rule_id})` : '');
      })
      .catch((err) => fill(range, err instanceof APIError ? err.describe() : String(err)));
  }
  return h('form', { class: 'card', 'aria-label': `Buy in: ${where}`, onsubmit: (e) => {
    e.preventDefault();
    const cents = Math.round(parseFloat(amount.value) * 100);
    act('Seated.', async () => {
      await call('POST', `/v1/tables/${o.table_id}/seats`, { seat: o.seat, amount: cents, post_now: postNow.checked, offer_id: o.offer_id });
      location.href = `table.html?table=${encodeURIComponent(o.table_id)}`;
    });
  } },
  h('h3', {}, where), h('p', {}, gameName(o.game)),
  h('p', {}, countdown(Date.parse(o.hold_until), 'Held for you for ', clockTime)),
  h('label', { for: amount.id }, `Buy-in (${table ? table.currency : ''})`), amount, range,
  h('label', { class: 'inline', for: postNow.id }, postNow, 'Post the big blind now instead of waiting for it (TP-13)'),
  h('div', { class: 'row' }, h('button', { type: 'submit' }, 'Sit down')));
}

function drawTournaments() {
  const rows = tournaments.filter((t) => t.state !== 'TOURNAMENT_STATE_CANCELLED').map((t) => ({
    id: t.tournament_id, name: t.name, state: enumName(t.state, 'TOURNAMENT_STATE_'),
    start: t.start_time ? new Date(t.start_time).toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' }) : '',
    entry: `${money(num(t.buy_in) + num(t.fee))} ${t.currency}`,
  }));
  once('tournaments', rows, () => (rows.length === 0 ? h('p', { class: 'muted' }, 'No tournament is scheduled.') :
    h('table', { class: 'list' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'Starts'),
        h('th', { scope: 'col' }, 'Entry'), h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, rows.map((r) => h('tr', {},
        h('th', { scope: 'row' }, r.name), h('td', {}, r.start), h('td', {}, r.entry), h('td', {}, r.state),
        h('td', {}, h('a', { class: 'button quiet', href: `clock.html?tournament=${encodeURIComponent(r.id)}` }, 'Clock'))))))));
}
