// dom.js builds the screens' DOM. Text always goes in as text nodes,
// never as HTML, so nothing the API returns can become markup.

// h creates an element: props are attributes ("class", "aria-label",
// "data-seat", ...), properties when the name starts with "." (".value"),
// and listeners when it starts with "on" ("onclick"). Children are
// nodes, strings and numbers (as text), arrays of them, or null/false
// (skipped).
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k.startsWith('.')) el[k.slice(1)] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.append(c);
    else el.append(document.createTextNode(String(c)));
  }
}

// fill replaces el's children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// byID returns the element with the id, which the page must have.
export function byID(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`no #${id} on this page`);
  return el;
}

// say puts a message in a status region (role="status" or "alert" in the
// page, so screen readers announce it); kind "error" styles it as one.
export function say(el, text, kind = 'info') {
  el.textContent = text;
  el.dataset.kind = kind;
}

// param reads a query parameter of the page's URL.
export function param(name) {
  return new URLSearchParams(location.search).get(name) || '';
}

// countdown returns an element that counts down to until (a time in
// milliseconds) once a second, as "prefix m:ss", without redrawing what
// is around it (a form being filled in).
export function countdown(until, prefix = '', format = (ms) => String(Math.ceil(ms / 1000))) {
  const el = h('span', { class: 'timer' });
  const tick = () => {
    if (!el.isConnected && el.dataset.started) {
      clearInterval(timer);
      return;
    }
    el.dataset.started = '1';
    const left = until - Date.now();
    el.textContent = `${prefix}${format(Math.max(0, left))}`;
    el.classList.toggle('low', left < 10000);
  };
  const timer = setInterval(tick, 1000);
  tick();
  return el;
}
