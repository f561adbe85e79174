// The floor's console for the common tasks: open and close tables, open a
// game's waiting list and seat its players, start a tournament and pause
// or resume its clock, and call the clock on a player in turn (TP-59).
// Everything goes through the REST API with the floor's token.

import { APIError, call, newID, watch } from './api.js';
import { byID, fill, h, say } from './dom.js';
import { enumName, gameName, money, num } from './format.js';
import { expired, start } from './session.js';

const POLL_MS = 5000;

let tables = [];
let tournaments = [];
const boards = new Map(); // waitlist_id → WaitlistBoard (as the floor sees it: with ids)
const drawn = new Map();

start(() => {
  byID('open-table').addEventListener('submit', openTable);
  byID('open-list').addEventListener('click', openList);
  watch('/v1/seating/board', (msg) => {
    if (msg.snapshot) boards.clear();
    for (const b of msg.boards || []) boards.set(b.waitlist.waitlist_id, b);
    drawWaitlists();
  }, (feed, err) => { if (feed === 'failed') failed(err); });
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
    const data = await call('GET', `${path}?page_size=100${page ? `&page_token=${encodeURIComponent(page)}` : ''}`);
    out.push(...(data[key] || []));
    page = data.next_page_token;
    if (!page) break;
  }
  return out;
}

async function refresh() {
  try {
    [tables, tournaments] = await Promise.all([all('/v1/tables', 'tables'), all('/v1/tournaments', 'tournaments')]);
    drawTables();
    drawWaitlists();
    drawTournaments();
  } catch (err) {
    failed(err);
  }
}

// act runs one floor request, says what it did, and refreshes.
async function act(done, fn) {
  try {
    await fn();
    say(byID('status'), done, 'ok');
  } catch (err) {
    failed(err);
  }
  await refresh();
}

function once(id, model, render) {
  const key = JSON.stringify(model);
  if (drawn.get(id) === key) return;
  drawn.set(id, key);
  fill(byID(id), render());
}

// formGame reads the game of the "Open a table" form.
function formGame(f) {
  const variant = f.variant.value;
  const stud = ['VARIANT_STUD', 'VARIANT_STUD_HI_LO', 'VARIANT_RAZZ'].includes(variant);
  const limit = f.structure.value === 'STRUCTURE_FIXED_LIMIT' || stud;
  const small = Number(f.small.value);
  const big = Number(f.big.value);
  const stakes = limit ? { small_bet: small, big_bet: big } : { small_blind: small, big_blind: big };
  if (stud) stakes.bring_in = Number(f.bringin.value);
  if (limit && !stud) Object.assign(stakes, { small_blind: Math.max(1, Math.floor(small / 2)), big_blind: small });
  return { variant, structure: f.structure.value, stakes };
}

function openTable(e) {
  e.preventDefault();
  const f = e.target;
  const body = {
    name: f.name.value, seats: Number(f.seats.value), kind: 'TABLE_KIND_CASH', mode: f.mode.value,
    game: formGame(f), action_seconds: Number(f.clock.value),
  };
  act(`Table ${body.name} is open.`, () => call('POST', '/v1/tables', body));
}

function openList() {
  const game = formGame(byID('open-table'));
  act(`The waiting list for ${gameName(game)} is open.`, () => call('POST', '/v1/waitlists', { game }));
}

async function callClock(t) {
  await act(`The clock is called at ${t.name} (TP-59).`, async () => {
    const { state } = await call('GET', `/v1/tables/${t.table_id}/state`);
    if (!state.hand || state.hand.done || state.hand.to_act < 0) throw new Error('Nobody is in turn at this table.');
    await call('POST', `/v1/tables/${t.table_id}/dealer-actions`, {
      kind: 'DEALER_ACTION_KIND_CALL_CLOCK', seat: state.hand.to_act, action_id: newID('clock'), expected_sequence: state.sequence,
    });
  });
}

function drawTables() {
  const open = tables.filter((t) => !t.closed && t.kind === 'TABLE_KIND_CASH');
  const rows = open.map((t) => ({ id: t.table_id, name: t.name, game: gameName(t.game), seats: t.seats, mode: t.mode,
    taken: (t.seat_map || []).filter((s) => s.player_id).length }));
  once('tables', rows, () => (rows.length === 0 ? h('p', { class: 'muted' }, 'No cash table is open.') :
    h('table', { class: 'list' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Table'), h('th', { scope: 'col' }, 'Game'),
        h('th', { scope: 'col', class: 'num' }, 'Players'), h('th', { scope: 'col' }, 'Dealt by'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, open.map((t, i) => h('tr', { 'data-table': t.table_id },
        h('th', { scope: 'row' }, t.name), h('td', {}, rows[i].game),
        h('td', { class: 'num' }, `${rows[i].taken}/${t.seats}`),
        h('td', {}, t.mode === 'TABLE_MODE_LIVE' ? 'a dealer' : 'software'),
        h('td', { class: 'row' },
          h('a', { class: 'button quiet', href: `table.html?table=${encodeURIComponent(t.table_id)}` }, 'Watch'),
          h('button', { type: 'button', class: 'quiet', 'aria-label': `Call the clock at ${t.name}`, onclick: () => callClock(t) }, 'Call the clock'),
          h('button', { type: 'button', class: 'danger', 'aria-label': `Close ${t.name}`, onclick: () => {
            if (confirm(`Close ${t.name}? Players are cashed out after the hand.`)) act(`${t.name} closes after the hand in progress.`, () => call('POST', `/v1/tables/${t.table_id}:close`, {}));
          } }, 'Close'))))))));
}

// seatForm seats a waiting player at one of the game's tables with a
// buy-in; the table reports the player seated and seating takes them off
// the list.
function seatForm(b, entry) {
  const gameTables = tables.filter((t) => !t.closed && t.kind === 'TABLE_KIND_CASH' && (b.tables || []).some((x) => x.table_id === t.table_id));
  const id = `${b.waitlist.waitlist_id}-${entry.player_id}`.replace(/[^A-Za-z0-9_-]/g, '_');
  const select = h('select', { id: `seat-table-${id}`, required: true },
    gameTables.map((t) => h('option', { value: t.table_id }, t.name)));
  const amount = h('input', { id: `seat-amount-${id}`, type: 'number', min: 0.01, step: 0.01, required: true });
  return h('form', { class: 'row', 'aria-label': `Seat ${entry.player_id}`, onsubmit: (e) => {
    e.preventDefault();
    const table = tables.find((t) => t.table_id === select.value);
    act(`${entry.player_id} is seated at ${table ? table.name : 'the table'}.`, () => call('POST', `/v1/tables/${select.value}/seats`, {
      seat: -1, player_id: entry.player_id, amount: Math.round(parseFloat(amount.value) * 100), idempotency_key: newID('floor-seat'),
    }));
  } },
  h('label', { for: select.id, class: 'inline' }, 'at', select),
  h('label', { for: amount.id, class: 'inline' }, 'buy-in', amount),
  h('button', { type: 'submit', disabled: gameTables.length === 0 }, 'Seat'));
}

function drawWaitlists() {
  const lists = [...boards.values()];
  once('waitlists', { lists, tables: tables.map((t) => [t.table_id, t.closed]) }, () => (lists.length === 0 ? h('p', { class: 'muted' }, 'No waiting list is open.') :
    lists.map((b) => h('article', { class: 'card', 'data-waitlist': b.waitlist.waitlist_id },
      h('h3', {}, b.waitlist.name || gameName(b.waitlist.game)),
      h('p', {}, `${(b.tables || []).length} tables · ${b.waitlist.waiting} waiting`),
      (b.entries || []).length ? h('ol', {}, b.entries.map((e) => h('li', {},
        h('strong', {}, e.display_name || e.player_id), e.display_name ? h('span', { class: 'muted' }, ` (${e.player_id})`) : null,
        seatForm(b, e)))) : h('p', { class: 'muted' }, 'Nobody is waiting.')))));
}

function drawTournaments() {
  const rows = tournaments.filter((t) => t.state === 'TOURNAMENT_STATE_SCHEDULED' || t.state === 'TOURNAMENT_STATE_RUNNING');
  once('tournaments', rows.map((t) => [t.tournament_id, t.state]), () => (rows.length === 0 ? h('p', { class: 'muted' }, 'No tournament is scheduled or running.') :
    h('table', { class: 'list' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'Entry'), h('th', { scope: 'col' }, 'State'), h('th', { scope: 'col' }, ''))),
      h('tbody', {}, rows.map((t) => {
        const base = `/v1/tournaments/${t.tournament_id}`;
        return h('tr', { 'data-tournament': t.tournament_id },
          h('th', { scope: 'row' }, t.name), h('td', {}, `${money(num(t.buy_in) + num(t.fee))} ${t.currency}`),
          h('td', {}, enumName(t.state, 'TOURNAMENT_STATE_')),
          h('td', { class: 'row' },
            h('a', { class: 'button quiet', href: `clock.html?tournament=${encodeURIComponent(t.tournament_id)}` }, 'Clock'),
            t.state === 'TOURNAMENT_STATE_SCHEDULED' ?
              h('button', { type: 'button', 'aria-label': `Start ${t.name}`, onclick: () => act(`${t.name} has started.`, () => call('POST', `${base}:start`, {})) }, 'Start') :
              [h('button', { type: 'button', class: 'quiet', 'aria-label': `Pause the clock of ${t.name}`, onclick: () => act(`The clock of ${t.name} is paused.`, () => call('POST', `${base}/clock:pause`, {})) }, 'Pause clock'),
                h('button', { type: 'button', class: 'quiet', 'aria-label': `Resume the clock of ${t.name}`, onclick: () => act(`The clock of ${t.name} runs again.`, () => call('POST', `${base}/clock:resume`, {})) }, 'Resume clock')]));
      })))));
}
