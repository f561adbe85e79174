package main

// Helpers for the browser tests of the room's screens (screens_test.go):
// a headless Chromium driven over the DevTools protocol (chromedp), tabs
// that each live in their own browser context (their own sessionStorage,
// like separate devices), and a record of what each tab received over the
// network, what its DOM ever showed, and anything that went wrong in it
// (an uncaught exception, a console error, a request the
// Content-Security-Policy blocked).

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// chromiumEnv names the browser the screen tests drive. scripts/testenv.sh
// sets it when it finds or installs Debian's chromium package; set, a
// browser that does not start fails the tests instead of skipping them.
const chromiumEnv = "CARDROOM_CHROMIUM"

// chromium returns the browser to drive, or skips the test saying how to
// get one.
func chromium(t *testing.T) string {
	t.Helper()
	if path := os.Getenv(chromiumEnv); path != "" {
		return path
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Skipf("the screen tests need Chromium: apt-get install chromium (make test installs it when run as root), or set %s", chromiumEnv)
	return ""
}

// browser is one headless Chromium for a test; it stops with the test.
type browser struct {
	ctx context.Context // the browser's first tab, kept open: new tabs are its children
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("hide-scrollbars", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("start %s: %v", chromium(t), err)
	}
	return &browser{ctx: ctx}
}

// tab is one page of the test, in a browser context of its own.
type tab struct {
	t    *testing.T
	name string
	ctx  context.Context
	base string // the suite's http://host:port

	mu       sync.Mutex
	problems []string
	urls     map[network.RequestID]string
	buffered map[network.RequestID][]byte   // what arrived before streaming was switched on
	streamed map[network.RequestID][][]byte // what arrived after, in order
	jobs     chan func()
	closed   bool // jobs is closed: the tab's test has ended
}

// domRecorder runs in every document a tab loads, before the page's own
// scripts: after each change of the DOM it keeps a copy of the screen
// (#screen), so a test can check everything the page ever showed, not
// just what it shows at the end. It is injected over the DevTools
// protocol, which the page's Content-Security-Policy does not govern.
const domRecorder = `
window.__screens = [];
new MutationObserver(() => {
  const s = document.getElementById('screen');
  if (!s) return;
  const html = s.outerHTML;
  if (window.__screens[window.__screens.length - 1] !== html) window.__screens.push(html);
}).observe(document, { childList: true, subtree: true, characterData: true, attributes: true });
`

// newTab opens a tab of w×h CSS pixels in a fresh browser context and
// starts recording it.
func (b *browser) newTab(t *testing.T, name, base string, w, h int64) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tb := &tab{t: t, name: name, ctx: ctx, base: base, urls: map[network.RequestID]string{},
		buffered: map[network.RequestID][]byte{}, streamed: map[network.RequestID][][]byte{}, jobs: make(chan func(), 1024)}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(w, h)); err != nil {
		t.Fatalf("%s: open tab: %v", name, err)
	}
	if err := chromedp.Listen(ctx, tb.listen); err != nil {
		t.Fatal(err)
	}
	go func() {
		for job := range tb.jobs {
			job()
		}
	}()
	// The tab's message loop may still deliver events after the test ends
	// (the context is cancelled after this cleanup): closing under the lock
	// that listen holds keeps it from sending on a closed queue.
	t.Cleanup(func() {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		tb.closed = true
		close(tb.jobs)
	})
	for _, step := range []func() error{
		func() error { _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); return err },
		func() error { _, err := chromedp.Call(ctx, log.Enable, cdp.Empty{}); return err },
		func() error {
			_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: domRecorder})
			return err
		},
	} {
		if err := step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return tb
}

// listen runs in the tab's message loop: it notes problems and the API's
// responses, and leaves the commands that fetch bodies to the job queue.
func (tb *tab) listen(ev any) {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if tb.closed {
		return
	}
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg = d.Exception.Description
		}
		tb.problems = append(tb.problems, fmt.Sprintf("uncaught exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			tb.problems = append(tb.problems, fmt.Sprintf("console.error: %s", consoleArgs(ev.Args)))
		}
	case *log.EventEntryAdded:
		// The browser's own reports: a Content-Security-Policy violation
		// is a security error; a refused API request (4xx) is the page's
		// business and not a problem of the page.
		if e := ev.Entry; e.Level == log.EntryLevelError && e.Source != log.EntrySourceNetwork {
			tb.problems = append(tb.problems, fmt.Sprintf("%s error: %s", e.Source, e.Text))
		}
	case *network.EventResponseReceived:
		if !strings.Contains(ev.Response.URL, "/v1/") {
			return
		}
		id := ev.RequestID
		tb.urls[id] = ev.Response.URL
		tb.jobs <- func() {
			res, err := chromedp.Call(tb.ctx, network.StreamResourceContent, network.StreamResourceContentParams{RequestID: id})
			tb.mu.Lock()
			defer tb.mu.Unlock()
			if err != nil {
				// Already finished: the whole body is there to read.
				tb.buffered[id] = nil
				return
			}
			tb.buffered[id] = res.BufferedData
		}
	case *network.EventDataReceived:
		if _, ok := tb.urls[ev.RequestID]; ok && len(ev.Data) > 0 {
			tb.streamed[ev.RequestID] = append(tb.streamed[ev.RequestID], ev.Data)
		}
	case *network.EventLoadingFinished:
		id := ev.RequestID
		if _, ok := tb.urls[id]; !ok {
			return
		}
		tb.jobs <- func() {
			tb.mu.Lock()
			streaming := tb.buffered[id] != nil || len(tb.streamed[id]) > 0
			tb.mu.Unlock()
			if streaming {
				return
			}
			res, err := chromedp.Call(tb.ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
			if err != nil {
				return // a response with no body (a redirect, 204)
			}
			tb.mu.Lock()
			tb.buffered[id] = res.Body
			tb.mu.Unlock()
		}
	}
}

func consoleArgs(args []*runtime.RemoteObject) string {
	var parts []string
	for _, a := range args {
		if a.Description != "" {
			parts = append(parts, a.Description)
		} else {
			parts = append(parts, string(a.Value))
		}
	}
	return strings.Join(parts, " ")
}

// received returns every body the tab received from the API so far, by
// URL, in the order the requests were made (a feed's body grows as it
// streams).
func (tb *tab) received() map[string][]string {
	// Let the job queue catch up with what the loop has seen.
	done := make(chan struct{})
	tb.jobs <- func() { close(done) }
	<-done
	tb.mu.Lock()
	defer tb.mu.Unlock()
	out := map[string][]string{}
	for id, url := range tb.urls {
		body := append([]byte(nil), tb.buffered[id]...)
		for _, chunk := range tb.streamed[id] {
			body = append(body, chunk...)
		}
		out[url] = append(out[url], string(body))
	}
	return out
}

// checkClean fails the test when the page threw, logged an error, or had
// something blocked by its Content-Security-Policy.
func (tb *tab) checkClean() {
	tb.t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.problems) > 0 {
		tb.t.Errorf("%s: the page had problems:\n  %s", tb.name, strings.Join(tb.problems, "\n  "))
	}
}

// do runs browser steps in the tab, failing the test on an error.
func (tb *tab) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatalf("%s: %s: %v", tb.name, what, err)
	}
}

// evaluate evaluates a JavaScript expression in the page.
func evaluate[T any](tb *tab, expr string) T {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.t.Fatalf("%s: evaluate %s: %v", tb.name, expr, err)
	}
	return v
}

// text returns the text of the first element matching the CSS selector.
func (tb *tab) text(sel string) string {
	tb.t.Helper()
	return evaluate[string](tb, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ''`, sel))
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// poll waits until the JavaScript expression is true in the page: the
// browser checks it at once and again after every change of the DOM, so
// the wait ends with the change it waits for. On a timeout the test fails
// with what the element matching show holds then.
func (tb *tab) poll(what, expr string, within time.Duration, show string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, within+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingMutation(), chromedp.WithPollingTimeout(within))); err != nil {
		tb.t.Fatalf("%s: %s: not within %s (%v); %s shows %q", tb.name, what, within, err, show, tb.text(show))
	}
}

// waitText waits until the element matching sel holds want in its text.
func (tb *tab) waitText(sel, want string, within time.Duration) {
	tb.t.Helper()
	tb.poll(fmt.Sprintf("%s shows %q", sel, want),
		fmt.Sprintf(`((document.querySelector(%s) || {}).textContent || '').includes(%s)`, jsString(sel), jsString(want)), within, sel)
}

// open loads one of the screens and signs in with token through the
// page's own form.
func (tb *tab) open(path, token string) {
	tb.t.Helper()
	tb.do("open "+path, chromedp.Navigate(tb.base+path),
		chromedp.WaitVisible(chromedp.ID("token-input")),
		chromedp.SetValue(chromedp.ID("token-input"), token),
		chromedp.Click(chromedp.CSS(`form.signin button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.ID("screen")))
}

// openByKeyboard loads one of the screens and signs in with the keyboard
// alone: the form has the focus when the page opens, the token is pasted
// into it (as the user does: the sign-in asks for a paste) and Enter
// sends it.
func (tb *tab) openByKeyboard(path, token string) {
	tb.t.Helper()
	tb.do("open "+path, chromedp.Navigate(tb.base+path), chromedp.WaitVisible(chromedp.ID("token-input")))
	tb.poll("the token field has the focus", `document.activeElement && document.activeElement.id === 'token-input'`, 5*time.Second, "#signin")
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: token}); err != nil {
		tb.t.Fatalf("%s: paste the token: %v", tb.name, err)
	}
	tb.do("sign in by keyboard", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.ID("screen")))
}

// screens returns every state of the screen the page ever showed.
func (tb *tab) screens() []string {
	tb.t.Helper()
	return evaluate[[]string](tb, `window.__screens || []`)
}

// screenshot saves a PNG of the tab as docs/screens/NAME.png when
// CARDROOM_SCREENSHOTS names the docs/screens directory (the
// README links them); otherwise it does nothing.
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	dir := os.Getenv("CARDROOM_SCREENSHOTS")
	if dir == "" {
		return
	}
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.t.Fatalf("%s: screenshot: %v", tb.name, err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		tb.t.Fatal(err)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, paletted(img)); err != nil {
		tb.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), out.Bytes(), 0o644); err != nil {
		tb.t.Fatal(err)
	}
}

// paletted keeps a screenshot small for the repository: the screens are
// flat colours, so the 256 commonest colours of the image (each pixel
// mapped to the nearest) look the same at a third of the size.
func paletted(img image.Image) *image.Paletted {
	counts := map[color.RGBA]int{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := slices.Collect(maps.Keys(counts))
	slices.SortFunc(colors, func(a, b color.RGBA) int { return cmp.Compare(counts[b], counts[a]) })
	pal := make(color.Palette, 0, 256)
	for _, c := range colors[:min(256, len(colors))] {
		pal = append(pal, c)
	}
	p := image.NewPaletted(b, pal)
	draw.Draw(p, b, img, b.Min, draw.Src)
	return p
}
