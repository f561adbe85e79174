// api.js talks to the cardroom REST API exactly as any app does: a bearer
// token in the Authorization header, JSON in and out, and the
// server-streaming routes (table watches, the seating board, the
// tournament's lobby feed) read as newline-delimited JSON through fetch()
// and a ReadableStream — EventSource cannot send the Authorization header.

const TOKEN_KEY = 'cardroom.token';

// token returns the signed-in token of this tab, or ''.
export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || '';
}

// setToken signs this tab in with t. The token stays in sessionStorage:
// it is gone when the tab closes and is never shared with other tabs.
export function setToken(t) {
  sessionStorage.setItem(TOKEN_KEY, t.trim().replace(/^Bearer\s+/i, ''));
}

// clearToken signs this tab out.
export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

// claims reads the token's payload (subject, roles, display name, expiry)
// for display only; the services verify the token, not this page.
export function claims(t = token()) {
  const part = t.split('.')[1];
  if (!part) return null;
  try {
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(json, (c) => c.charCodeAt(0));
    const c = JSON.parse(new TextDecoder().decode(bytes));
    return { sub: c.sub || '', name: c.name || '', roles: c.roles || [], exp: c.exp || 0 };
  } catch {
    return null;
  }
}

// APIError is a refusal from the API: the HTTP status and the gateway's
// error body (code, reason, rule_id, message).
export class APIError extends Error {
  constructor(status, body) {
    const b = body || {};
    super(b.message || `HTTP ${status}`);
    this.status = status;
    this.reason = b.reason || '';
    this.ruleID = b.rule_id || '';
    // A stream's error line is a google.rpc.Status: the reason and the
    // rule are in its ErrorInfo detail.
    for (const d of b.details || []) {
      if (String(d['@type'] || '').endsWith('google.rpc.ErrorInfo')) {
        this.reason = this.reason || d.reason || '';
        this.ruleID = this.ruleID || (d.metadata || {}).rule_id || '';
      }
    }
  }

  // fatal reports a refusal that asking again will not change.
  get fatal() {
    return [400, 401, 403, 404].includes(this.status);
  }

  // describe says the refusal in words for the screen, with its rule.
  describe() {
    const rule = this.ruleID ? ` (${this.ruleID})` : '';
    return `${this.message}${rule}`;
  }
}

function headers(extra) {
  const h = { Accept: 'application/json', ...extra };
  const t = token();
  if (t) h.Authorization = `Bearer ${t}`;
  return h;
}

async function decode(resp) {
  const text = await resp.text();
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) };
  }
}

// call makes one REST request and returns the decoded answer; a refusal
// throws an APIError.
export async function call(method, path, body) {
  const init = { method, headers: headers(), cache: 'no-store', credentials: 'omit' };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const resp = await fetch(path, init);
  const data = await decode(resp);
  if (!resp.ok) throw new APIError(resp.status, data);
  return data;
}

// grpcStatus maps the numeric gRPC code of a stream's error line to the
// HTTP status the gateway gives the same code on a unary call.
const grpcStatus = { 3: 400, 5: 404, 7: 403, 9: 400, 16: 401 };

function sleep(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

// lines splits a byte stream into its non-empty text lines.
async function* lines(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield line;
    }
  }
  if (buf.trim()) yield buf.trim();
}

// watch follows a streaming route: onMessage gets each message's result
// (the first is the whole state, later ones the changes), onStatus gets
// 'live', 'reconnecting' (with the error) or 'failed' (with the error,
// when asking again cannot help: no token, not allowed, not found). A feed
// that ends — a server shutting down ends its feeds so that clients watch
// again elsewhere — or drops is opened again, backing off to 10 s. The
// returned function stops watching.
export function watch(path, onMessage, onStatus = () => {}) {
  const ctrl = new AbortController();
  const { signal } = ctrl;
  (async () => {
    let backoff = 250;
    while (!signal.aborted) {
      try {
        const resp = await fetch(path, { headers: headers(), cache: 'no-store', credentials: 'omit', signal });
        if (!resp.ok) throw new APIError(resp.status, await decode(resp));
        onStatus('live');
        for await (const line of lines(resp.body)) {
          const msg = JSON.parse(line);
          if (msg.error) throw new APIError(grpcStatus[msg.error.code] || 503, msg.error);
          backoff = 250;
          onMessage(msg.result);
        }
        throw new Error('the feed ended');
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof APIError && err.fatal) {
          onStatus('failed', err);
          return;
        }
        onStatus('reconnecting', err);
      }
      await sleep(backoff, signal);
      backoff = Math.min(backoff * 2, 10000);
    }
  })();
  return () => ctrl.abort();
}

// newID returns a fresh idempotency key for one request the user made
// (crypto.getRandomValues works on plain-HTTP room networks too, where
// crypto.randomUUID does not).
export function newID(prefix) {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
