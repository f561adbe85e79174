// The tournament clock for the room's TVs: the event, the level and its
// blinds and ante, the time left, the next level and the time to the next
// break, the players left of the entrants, the average stack, the prize
// pool and what each place pays, live from the tournament's clock feed
// (GET /v1/tournaments/{id}/clock:watch). The feed sends the whole
// picture whenever anything on it changes — a level or a break begins,
// the clock is paused or resumed, a player enters or is knocked out — and
// this page counts the time down between messages.

import { APIError, watch } from './api.js';
import { byID, fill, h, param, say } from './dom.js';
import { chips, clockTime, durationMillis, enumName, money, num } from './format.js';
import { expired, start } from './session.js';

let picture = null; // the last WatchClockResponse
let receivedAt = 0; // when it arrived: its time left counts down from then

start(() => {
  const id = param('tournament');
  if (!id) {
    fill(byID('face'), h('p', { class: 'error', role: 'alert' }, 'No tournament named: open the clock from the lobby or the floor console.'));
    return;
  }
  byID('fullscreen').addEventListener('click', () => document.documentElement.requestFullscreen().catch(() => {}));
  watch(`/v1/tournaments/${encodeURIComponent(id)}/clock:watch`, (msg) => {
    const before = picture;
    picture = msg;
    receivedAt = Date.now();
    draw();
    announce(before, msg);
  }, (feed, err) => {
    const badge = byID('feed');
    badge.textContent = feed === 'live' ? 'live' : feed === 'failed' ? `stopped: ${err instanceof APIError ? err.describe() : err}` : 'reconnecting…';
    badge.className = feed === 'live' ? 'badge live' : 'badge warn';
    if (feed === 'failed' && err instanceof APIError && err.status === 401) expired();
  });
  setInterval(tick, 250);
});

// levels are the rows of the structure sheet, breaks included.
function levels() {
  return (picture.tournament && picture.tournament.levels) || [];
}

// levelNumber is the number a row has on the sheet: breaks are not
// counted.
function levelNumber(index) {
  return levels().slice(0, index + 1).filter((l) => !l.break).length;
}

function blinds(l) {
  if (!l || l.break) return '';
  let out = `${chips(l.small_blind)}/${chips(l.big_blind)}`;
  if (num(l.ante) > 0) out += l.big_blind_ante ? ` · BB ante ${chips(l.ante)}` : ` · ante ${chips(l.ante)}`;
  return out;
}

// left is the time left in the level now, in milliseconds.
function left() {
  const c = picture.clock || {};
  const at = durationMillis(c.remaining);
  return c.started && !c.paused && !c.overtime ? at - (Date.now() - receivedAt) : at;
}

// toBreak is the time until the next break begins (0 during one), or -1
// when no break is left on the sheet.
function toBreak() {
  const c = picture.clock || {};
  const rows = levels();
  const index = c.level_index || 0;
  if (rows[index] && rows[index].break) return 0;
  let ms = left();
  for (let i = index + 1; i < rows.length; i++) {
    if (rows[i].break) return ms;
    ms += durationMillis(rows[i].duration);
  }
  return -1;
}

function stat(label, value, key) {
  return h('div', { class: 'stat' }, h('div', { class: 'label' }, label), h('div', { class: 'value', 'data-stat': key }, value));
}

function ordinal(n) {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : ({ 1: 'st', 2: 'nd', 3: 'rd' })[n % 10] || 'th';
  return `${n}${s}`;
}

function draw() {
  const t = picture.tournament || {};
  const c = picture.clock || {};
  const rows = levels();
  const index = c.level_index || 0;
  const level = c.level || rows[index] || {};
  const next = rows.slice(index + 1).find((l) => !l.break);
  const pay = picture.payouts || {};
  const prizes = pay.prizes || [];
  const leftPlayers = picture.players_left || 0;
  const average = leftPlayers ? Math.round(num(picture.chips_in_play) / leftPlayers) : 0;
  const state = t.state || '';
  const face = byID('face');
  face.dataset.level = String(index);
  face.dataset.paused = c.paused ? 'true' : 'false';
  face.dataset.break = level.break ? 'true' : 'false';
  face.dataset.state = enumName(state, 'TOURNAMENT_STATE_');
  let banner = null;
  if (state === 'TOURNAMENT_STATE_FINISHED') banner = 'Finished';
  else if (state === 'TOURNAMENT_STATE_CANCELLED') banner = 'Cancelled';
  else if (c.paused) banner = 'Paused';
  else if (!c.started) banner = `Starts at ${new Date(t.start_time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })}`;
  else if (c.overtime) banner = 'Last level';
  const waiting = state === 'TOURNAMENT_STATE_SCHEDULED';
  fill(face,
    h('section', { class: 'centre', 'aria-label': 'Level' },
      h('h1', { class: 'event' }, t.name || 'Tournament'),
      h('p', { class: 'level', id: 'level' }, level.break ? 'Break' : `Level ${levelNumber(index)}`),
      banner ? h('p', { class: 'banner', id: 'banner' }, banner) : null,
      waiting ? h('p', { class: 'next', id: 'starts' }, startsText()) : null,
      h('p', { class: `time${c.paused ? ' paused' : ''}`, id: 'time', 'aria-label': 'Time left in the level' }, clockTime(left())),
      level.break ?
        h('p', { class: 'blinds break' }, num(level.color_up) > 0 ? `Colour-up: the ${chips(level.color_up)} chips are raced off` : 'Back soon') :
        h('p', { class: 'blinds', id: 'blinds' }, blinds(level)),
      h('p', { class: 'next', id: 'next' }, next ? `Next level: ${blinds(next)}` : 'Last level'),
      h('p', { class: 'next', id: 'to-break' }, breakText())),
    h('section', { class: 'left', 'aria-label': 'Players and chips' },
      stat('Players', `${leftPlayers} of ${pay.entrants || picture.entrants || 0}`, 'players'),
      stat('Average stack', average ? chips(average) : '—', 'average'),
      stat('Starting stack', chips(t.starting_stack), 'starting')),
    h('section', { class: 'right', 'aria-label': 'Prize pool and payouts' },
      stat('Prize pool', `${money(pay.prize_pool)} ${t.currency || ''}`.trim(), 'pool'),
      prizes.length ? h('ol', { class: 'payouts', id: 'payouts' }, prizes.map((p, i) =>
        h('li', {}, `${ordinal(i + 1)} `, h('strong', {}, money(p))))) : h('p', { class: 'muted' }, 'Payouts follow the entries.')));
}

function breakText() {
  const ms = toBreak();
  if (ms === 0) return 'On a break';
  if (ms < 0) return 'No more breaks';
  return `Break in ${clockTime(ms)}`;
}

// startsText counts down to the published start (TR-04); the floor
// starts the tournament once it is due, and the face says it is due.
function startsText() {
  const ms = Date.parse((picture.tournament || {}).start_time) - Date.now();
  byID('face').dataset.due = ms <= 0 ? 'true' : 'false';
  return ms > 0 ? `Starts in ${clockTime(ms)}` : 'Starting: waiting for the floor';
}

// tick moves the time left, the time to the break and to the start on,
// without redrawing the rest of the face.
function tick() {
  if (!picture) return;
  const starts = document.getElementById('starts');
  if (starts) starts.textContent = startsText();
  const time = document.getElementById('time');
  if (time) time.textContent = clockTime(left());
  const brk = document.getElementById('to-break');
  if (brk) brk.textContent = breakText();
}

// announce tells screen readers what changed: a new level, a break, a
// pause; the running time itself is not announced.
function announce(before, now) {
  const c = now.clock || {};
  const b = (before && before.clock) || {};
  const level = c.level || {};
  let text = '';
  if (!before) text = '';
  else if (c.paused && !b.paused) text = 'The clock is paused.';
  else if (!c.paused && b.paused) text = 'The clock runs again.';
  else if (c.level_index !== b.level_index) text = level.break ? 'Break.' : `Level ${levelNumber(c.level_index || 0)}: ${blinds(level)}.`;
  if (text) say(byID('announce'), text);
}
