// format.js says the API's values the way a poker room writes them.

const variants = {
  VARIANT_HOLDEM: "Hold'em",
  VARIANT_OMAHA: 'Omaha',
  VARIANT_OMAHA_HI_LO: 'Omaha Hi/Lo',
  VARIANT_STUD: 'Stud',
  VARIANT_STUD_HI_LO: 'Stud Hi/Lo',
  VARIANT_RAZZ: 'Razz',
};

const structures = {
  STRUCTURE_NO_LIMIT: 'NL',
  STRUCTURE_POT_LIMIT: 'PL',
  STRUCTURE_FIXED_LIMIT: 'FL',
};

// num reads an int64, which JSON carries as a string.
export function num(v) {
  return Number(v || 0);
}

const grouping = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

// money says an amount in minor units (cents) as the room does: 250 is
// "2.50", 10000 is "100".
export function money(minor) {
  const n = num(minor);
  return n % 100 === 0 ? grouping.format(n / 100) : (n / 100).toFixed(2);
}

// chips says a tournament chip count: whole chips, grouped.
export function chips(n) {
  return grouping.format(num(n));
}

// stakes says a game's stakes: "1/2" for flop games (with the ante),
// "2/4, bring-in 1" for stud. unit formats each amount (money for cash
// games, chips for tournaments).
export function stakes(game, unit = money) {
  const s = (game && game.stakes) || {};
  const stud = ['VARIANT_STUD', 'VARIANT_STUD_HI_LO', 'VARIANT_RAZZ'].includes(game && game.variant);
  let out;
  if (stud || game.structure === 'STRUCTURE_FIXED_LIMIT') {
    out = `${unit(s.small_bet)}/${unit(s.big_bet)}`;
    if (stud) out += `, bring-in ${unit(s.bring_in)}`;
  } else {
    out = `${unit(s.small_blind)}/${unit(s.big_blind)}`;
  }
  if (num(s.ante) > 0) out += `, ante ${unit(s.ante)}`;
  return out;
}

// gameName says a game: "NL Hold'em 1/2".
export function gameName(game, unit = money) {
  if (!game) return '';
  return `${structures[game.structure] || ''} ${variants[game.variant] || ''} ${stakes(game, unit)}`.trim();
}

// clockTime says a duration in milliseconds as a clock does: "4:05",
// "1:02:03"; never negative.
export function clockTime(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// seconds reads a protobuf Duration as JSON ("125s", "1.5s") in
// milliseconds.
export function durationMillis(d) {
  if (!d) return 0;
  return Math.round(parseFloat(String(d)) * 1000);
}

const rankNames = { A: 'Ace', K: 'King', Q: 'Queen', J: 'Jack', T: 'Ten', 9: 'Nine', 8: 'Eight', 7: 'Seven', 6: 'Six', 5: 'Five', 4: 'Four', 3: 'Three', 2: 'Two' };
const suitNames = { s: 'spades', h: 'hearts', d: 'diamonds', c: 'clubs' };
const suitSymbols = { s: '♠', h: '♥', d: '♦', c: '♣' };

// card describes a card code ("As", "Td", "??" face down) for display:
// its rank and suit symbols, its colour class and its spoken name.
export function card(code) {
  if (!code || code === '??') return { face: false, text: '', suit: '', name: 'face-down card' };
  const rank = code[0].toUpperCase();
  const suit = code[1].toLowerCase();
  return {
    face: true,
    text: `${rank === 'T' ? '10' : rank}${suitSymbols[suit] || '?'}`,
    suit: suitNames[suit] || '',
    name: `${rankNames[rank] || rank} of ${suitNames[suit] || suit}`,
  };
}

// kindName says an action kind: ACTION_KIND_RAISE is "Raise".
export function kindName(kind) {
  const k = String(kind || '').replace(/^[A-Z]+_KIND_/, '').replace(/_/g, ' ').toLowerCase();
  return k.charAt(0).toUpperCase() + k.slice(1);
}

// enumName says any enum value: TOURNAMENT_STATE_LATE_REGISTRATION is
// "late registration".
export function enumName(value, prefix) {
  return String(value || '').replace(prefix, '').replace(/_/g, ' ').toLowerCase();
}
