// A player's table: the table as the signed-in player may see it (their
// own hole cards only, until cards are shown), live from the table's
// feed; their options with the amounts the server allows; the decision
// clock; the hand's result; sitting out, coming back and leaving.

import { APIError, call, newID, watch } from './api.js';
import { byID, countdown, fill, h, param, say } from './dom.js';
import { card, chips, clockTime, gameName, kindName, money, num } from './format.js';
import { expired, start } from './session.js';

const tableID = param('table');
let table = null; // the table's description (GET /v1/tables/{id})
let state = null; // the latest TableState, as this viewer sees it
let unit = money; // how amounts are said: money at cash tables, chips at tournament tables
let scale = 100; // minor units per unit typed in an amount box
let sending = false;
const log = [];
// The last hand's result, kept on screen until the next one ends: the
// pots awarded and the hands shown, from the feed's events.
let handNo = 0;
let pending = { awards: [], shown: {} };
let result = null;

start(async () => {
  if (!tableID) {
    say(byID('status'), 'No table named: open a table from the lobby.', 'error');
    return;
  }
  try {
    table = (await call('GET', `/v1/tables/${encodeURIComponent(tableID)}`)).table;
  } catch (err) {
    failed(err);
    return;
  }
  if (table.kind === 'TABLE_KIND_TOURNAMENT') {
    unit = chips;
    scale = 1;
  }
  fill(byID('title'), table.name, ' · ', gameName(table.game, unit));
  document.title = `${table.name} · cardroom`;
  watch(`/v1/tables/${encodeURIComponent(tableID)}:watch`, (msg) => {
    if (msg.state.hand) handNo = msg.state.hand.hand_no;
    for (const e of msg.events || []) {
      note(e);
      collect(e);
    }
    state = msg.state;
    draw();
  }, (feed, err) => {
    const badge = byID('feed');
    badge.textContent = feed === 'live' ? 'live' : feed === 'failed' ? 'stopped' : 'reconnecting…';
    badge.className = feed === 'live' ? 'badge live' : 'badge warn';
    if (feed === 'failed') failed(err);
  });
});

function failed(err) {
  if (err instanceof APIError && err.status === 401) expired();
  say(byID('status'), err instanceof APIError ? err.describe() : String(err), 'error');
}

function seatName(seat) {
  if (state && seat === state.viewer_seat) return 'You';
  return `Seat ${seat + 1}`;
}

// cardsOf renders cards; data-card carries the code for tests and tools.
function cardsOf(codes, big = false) {
  return h('span', { class: 'cards' }, (codes || []).map((code) => {
    const c = card(code);
    const cls = `pcard${big ? ' big' : ''}${c.face ? ` ${c.suit}` : ' down'}`;
    return h('span', { class: cls, role: 'img', 'aria-label': c.name, 'data-card': c.face ? code : '' }, c.text);
  }));
}

// note adds one table event to the log in words.
function note(e) {
  const who = e.seat >= 0 ? seatName(e.seat) : '';
  const amount = num(e.amount) ? unit(e.amount) : '';
  let text;
  switch (e.kind) {
    case 'deal_hole':
      if (!(e.cards || []).some((c) => c !== '??')) return;
      text = `${who} dealt ${(e.cards || []).map((c) => card(c).text).join(' ')}`;
      break;
    case 'deal_board':
      text = `Board: ${(e.cards || []).map((c) => card(c).text).join(' ')}`;
      break;
    case 'burn': case 'round_end':
      return;
    case 'post': text = `${who} posts ${amount}`; break;
    case 'call': text = `${who} calls ${amount}`; break;
    case 'bet': text = `${who} bets ${amount}`; break;
    case 'raise': text = `${who} raises to ${amount}`; break;
    case 'award': text = `${who} wins ${amount}${e.pot > 0 ? ` (side pot ${e.pot})` : ''}`; break;
    case 'show': text = `${who} shows ${(e.cards || []).map((c) => card(c).text).join(' ')}`; break;
    case 'return': text = `${amount} returned to ${who}`; break;
    default:
      text = [who, e.kind.replace(/_/g, ' '), amount, e.detail].filter(Boolean).join(' ');
  }
  if (e.all_in) text += ' (all in)';
  if (e.rule) text += ` [${e.rule}]`;
  log.push(text);
  if (log.length > 60) log.shift();
}

// collect keeps what the hand's result is made of.
function collect(e) {
  switch (e.kind) {
    case 'award':
      pending.awards.push({ seat: e.seat, amount: e.amount, pot: e.pot });
      break;
    case 'show':
      pending.shown[e.seat] = e.cards;
      break;
    case 'hand_end':
      result = { hand: handNo, ...pending };
      pending = { awards: [], shown: {} };
      break;
    default:
  }
}

function draw() {
  const hand = state.hand;
  // What the screen shows, for tools and tests: the state's sequence and
  // the hand's number.
  const screen = byID('screen');
  screen.dataset.sequence = state.sequence;
  screen.dataset.hand = hand ? hand.hand_no : '';
  drawFelt(hand);
  drawSeats(hand);
  drawResult();
  drawMine();
  drawActions(hand);
  fill(byID('log'), log.map((line) => h('li', {}, line)));
  if (state.closed) say(byID('status'), 'This table is closed.');
}

function drawFelt(hand) {
  const felt = byID('felt');
  if (!hand) {
    fill(felt, h('p', {}, state.closed ? 'Closed' : 'Waiting for the next hand'));
    return;
  }
  const turn = !hand.done && hand.to_act >= 0;
  fill(felt,
    h('p', {}, `Hand ${hand.hand_no} · ${hand.done ? 'finished' : hand.street}`),
    h('div', { 'aria-label': 'Board' }, hand.board && hand.board.length ? cardsOf(hand.board, true) : h('span', { class: 'muted' }, 'No board cards yet')),
    h('p', { class: 'pot' }, num(hand.pot) ? `Pot ${unit(hand.pot)}` : ''),
    turn ? h('p', {}, `${seatName(hand.to_act)} to act`,
      hand.deadline ? [' · ', countdown(Date.parse(hand.deadline), '', clockTime)] : null,
      hand.clock_called ? ' · the clock is called (TP-59)' : null) : null);
}

function drawSeats(hand) {
  fill(byID('seats'), state.seats.map((s) => {
    const you = s.seat === state.viewer_seat;
    const cls = ['seat'];
    if (!s.player_id) cls.push('empty');
    if (you) cls.push('you');
    if (hand && !hand.done && hand.to_act === s.seat) cls.push('turn');
    if (s.folded) cls.push('folded');
    const tags = [];
    if (hand && hand.button === s.seat) tags.push('dealer button');
    if (s.sitting_out) tags.push('sitting out');
    if (s.folded) tags.push('folded');
    if (s.all_in) tags.push('all in');
    if (s.leaving) tags.push('leaving');
    if (s.new_player) tags.push('new');
    if (s.owes_big_blind || s.owes_small_blind) tags.push('owes blinds');
    return h('article', { class: cls.join(' '), 'data-seat': s.seat, 'data-shown': s.shown, 'aria-label': `${seatName(s.seat)}${hand && hand.to_act === s.seat && !hand.done ? ', to act' : ''}` },
      h('div', { class: 'name' }, you ? `You · seat ${s.seat + 1}` : `Seat ${s.seat + 1}`),
      s.player_id ? [
        h('div', { class: 'stack' }, unit(s.stack), num(s.pending_chips) ? ` (+${unit(s.pending_chips)} next hand)` : ''),
        num(s.bet) ? h('div', {}, `Bet ${unit(s.bet)}`) : null,
        s.cards && s.cards.length ? cardsOf(s.cards) : null,
        num(s.won) ? h('div', { class: 'won' }, `Won ${unit(s.won)}`) : null,
        tags.length ? h('div', { class: 'muted' }, tags.join(' · ')) : null,
      ] : h('div', { class: 'muted' }, 'Empty'));
  }));
}

function drawResult() {
  const el = byID('result');
  el.hidden = !result;
  if (!result) return;
  fill(el, h('h2', {}, `Hand ${result.hand}`),
    h('ul', {}, result.awards.map((a) => h('li', {}, `${seatName(a.seat)} won ${unit(a.amount)}`,
      a.pot > 0 ? ` (side pot ${a.pot})` : '',
      result.shown[a.seat] ? [' with ', cardsOf(result.shown[a.seat])] : null))),
    Object.keys(result.shown).length ? h('p', {}, 'Shown: ', Object.entries(result.shown).map(([seat, cards]) =>
      h('span', { class: 'row' }, `${seatName(Number(seat))} `, cardsOf(cards), ' '))) : null);
}

// post sends one of the player's requests; the feed shows its effect.
async function post(path, body, done) {
  if (sending) return;
  sending = true;
  try {
    await call('POST', path, body);
    if (done) say(byID('status'), done, 'ok');
  } catch (err) {
    failed(err);
  } finally {
    sending = false;
  }
}

function drawMine() {
  const el = byID('mine');
  const seat = state.viewer_seat >= 0 ? state.seats[state.viewer_seat] : null;
  el.hidden = !seat;
  if (!seat) return;
  const base = `/v1/tables/${encodeURIComponent(tableID)}/seats/${seat.seat}`;
  const options = seat.blind_options || [];
  fill(el,
    h('h2', {}, 'Your seat'),
    options.length ? h('div', {}, options.map((o) => h('p', {}, o.explanation, o.rule_id ? ` (${o.rule_id})` : ''))) : null,
    h('div', { class: 'row' },
      seat.sitting_out ?
        h('button', { type: 'button', onclick: () => post(`${base}:return`, {}, 'You are back.') }, 'Come back') :
        h('button', { type: 'button', class: 'quiet', onclick: () => post(`${base}:sit-out`, {}, 'You sit out from the next hand.') }, 'Sit out'),
      h('button', { type: 'button', class: 'danger', onclick: () => {
        if (confirm('Leave the table and cash out your chips?')) post(`${base}:leave`, {}, 'You left the table.');
      } }, 'Leave table')));
}

// drawActions offers the player's legal actions when it is their turn:
// one button per action, and for a bet or raise an amount between the
// server's minimum and maximum (a slider and a box kept in step).
function drawActions(hand) {
  const el = byID('actions');
  const mine = hand && !hand.done && hand.to_act === state.viewer_seat && state.viewer_seat >= 0 ? hand.legal || [] : [];
  const key = `${state.sequence}`;
  if (el.dataset.key === key && !el.hidden) return;
  el.dataset.key = key;
  el.hidden = mine.length === 0;
  if (mine.length === 0) {
    fill(el);
    return;
  }
  const sized = mine.find((l) => num(l.max) > 0 && num(l.max) > num(l.min) &&
    ['ACTION_KIND_BET', 'ACTION_KIND_RAISE', 'ACTION_KIND_COMPLETE'].includes(l.kind));
  let amountBox = null;
  let slider = null;
  if (sized) {
    const min = num(sized.min) / scale;
    const max = num(sized.max) / scale;
    const step = 1 / scale;
    slider = h('input', { id: 'amount-range', type: 'range', min, max, step, '.value': String(min), 'aria-label': `${kindName(sized.kind)} amount` });
    amountBox = h('input', { id: 'amount', type: 'number', min, max, step, '.value': String(min), 'aria-describedby': 'amount-help' });
    slider.addEventListener('input', () => { amountBox.value = slider.value; });
    amountBox.addEventListener('input', () => { slider.value = amountBox.value; });
  }
  const send = (l) => {
    let amount = 0;
    if (l === sized) {
      amount = Math.round(parseFloat(amountBox.value) * scale);
      if (!(amount >= num(l.min) && amount <= num(l.max))) {
        say(byID('status'), `Choose an amount between ${unit(l.min)} and ${unit(l.max)}.`, 'error');
        amountBox.focus();
        return;
      }
    } else if (num(l.min) > 0 && num(l.min) === num(l.max)) {
      amount = num(l.min);
    }
    post(`/v1/tables/${encodeURIComponent(tableID)}/actions`, {
      kind: l.kind, amount, action_id: newID('act'), expected_sequence: String(state.sequence),
    });
  };
  fill(el,
    h('h2', {}, 'Your turn', hand.deadline ? [' · ', countdown(Date.parse(hand.deadline), '', clockTime)] : null),
    h('div', { class: 'row' }, mine.map((l) => {
      let label = kindName(l.kind);
      if (l === sized) label = l.kind === 'ACTION_KIND_RAISE' ? 'Raise to' : label;
      else if (num(l.min) > 0 && num(l.min) === num(l.max)) label += ` ${unit(l.min)}`;
      return h('button', { type: 'button', 'data-action': l.kind, class: l.kind === 'ACTION_KIND_FOLD' ? 'quiet' : '', onclick: () => send(l) }, label);
    })),
    sized ? h('div', { class: 'amount' },
      slider,
      h('div', {}, h('label', { for: 'amount', class: 'inline' }, 'Amount', amountBox)),
      h('p', { id: 'amount-help', class: 'help' }, `From ${unit(sized.min)} to ${unit(sized.max)} (the round total, TP-32).`),
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'quiet', onclick: () => { amountBox.value = slider.value = String(num(sized.min) / scale); } }, 'Minimum'),
        h('button', { type: 'button', class: 'quiet', onclick: () => { amountBox.value = slider.value = String(num(sized.max) / scale); } }, 'Maximum'))) : null);
  say(byID('status'), 'Your turn.');
}
