// session.js signs a screen in and out: the user pastes a bearer token
// (from the cage, the floor's tools or `cardroom token`), which this tab
// keeps in sessionStorage and sends as Authorization: Bearer.

import { claims, clearToken, setToken, token } from './api.js';
import { byID, fill, h } from './dom.js';

// start shows the sign-in form until the tab holds an unexpired token,
// then the screen (#screen), and calls ready with the token's claims.
// The header's #session shows who is signed in, with a Sign out button.
export function start(ready) {
  const c = claims();
  if (!token() || !c || (c.exp && c.exp * 1000 < Date.now())) {
    showSignIn(c && c.exp * 1000 < Date.now() ? 'Your token has expired: sign in again.' : '');
    return;
  }
  fill(byID('session'),
    h('span', { class: 'who' }, c.name || c.sub, ' · ', c.roles.join(', ')),
    h('button', { type: 'button', class: 'quiet', onclick: signOut }, 'Sign out'));
  byID('signin').hidden = true;
  byID('screen').hidden = false;
  ready(c);
}

// expired sends the user back to the sign-in form after the API refused
// the token (401).
export function expired() {
  clearToken();
  location.reload();
}

function signOut() {
  clearToken();
  location.reload();
}

function showSignIn(message) {
  byID('screen').hidden = true;
  fill(byID('session'));
  const input = h('input', {
    id: 'token-input', type: 'password', name: 'token', required: true,
    autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'token-help',
  });
  const form = h('form', { class: 'card signin', onsubmit: (e) => {
    e.preventDefault();
    setToken(input.value);
    location.reload();
  } },
  h('h2', {}, 'Sign in'),
  message ? h('p', { role: 'alert', class: 'error' }, message) : null,
  h('label', { for: 'token-input' }, 'Bearer token'),
  input,
  h('p', { id: 'token-help', class: 'help' },
    'Paste the token you were given. It stays in this tab only and is forgotten when the tab closes.'),
  h('button', { type: 'submit' }, 'Sign in'));
  const section = byID('signin');
  fill(section, form);
  section.hidden = false;
  input.focus();
}
