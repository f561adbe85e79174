// Package screens holds the room's reference front end — the tournament
// clock, the waitlist board, the lobby, a player's table and the floor's
// console — as static HTML, CSS and JavaScript modules embedded in the
// binary, and serves them under Prefix.
//
// The pages hold no data: each one signs in with a bearer token kept in the
// tab's sessionStorage and talks to the public REST API and its NDJSON
// feeds like any other app, so what a screen can show is exactly what the
// API lets its token see. Every answer carries a strict
// Content-Security-Policy (scripts, styles and requests to this origin
// only, no inline code, no framing).
package screens

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is the path the screens are served under; it cannot collide with
// the REST API, whose routes all start with /v1/.
const Prefix = "/room/"

// ContentSecurityPolicy is sent with every screen: only this origin's
// scripts, styles, images and requests, nothing inline, no plugins, no
// framing, no form posts elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

//go:embed static
var static embed.FS

// contentTypes are the types of the files the screens are made of, fixed
// here rather than read from the host's MIME tables, which differ.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

// asset is one embedded file, ready to serve.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the screens: GET and HEAD of the files under Prefix
// (Prefix itself is the index), with an ETag so a browser revalidates
// instead of downloading again.
type Handler struct {
	assets map[string]asset // by path below Prefix ("index.html", "js/api.js")
}

// New returns the screens' handler.
func New() (*Handler, error) {
	root, err := fs.Sub(static, "static")
	if err != nil {
		return nil, fmt.Errorf("screens: %w", err)
	}
	h := &Handler{assets: map[string]asset{}}
	err = fs.WalkDir(root, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(root, name)
		if err != nil {
			return err
		}
		ctype := contentTypes[path.Ext(name)]
		if ctype == "" {
			return fmt.Errorf("%s: no content type for its extension", name)
		}
		sum := sha256.Sum256(body)
		h.assets[name] = asset{body: body, contentType: ctype,
			etag: `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("screens: %w", err)
	}
	if _, ok := h.assets["index.html"]; !ok {
		return nil, fmt.Errorf("screens: no index.html")
	}
	return h, nil
}

// ServeHTTP serves one file under Prefix, 404 for anything else and 405
// for methods other than GET and HEAD.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("Content-Security-Policy", ContentSecurityPolicy)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hdr.Set("Allow", "GET, HEAD")
		http.Error(w, http.StatusText(http.StatusMethodNotAllowed), http.StatusMethodNotAllowed)
		return
	}
	if r.URL.Path+"/" == Prefix {
		http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	name = cmp.Or(name, "index.html")
	a, ok := h.assets[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	hdr.Set("Content-Type", a.contentType)
	hdr.Set("ETag", a.etag)
	// Revalidated on every load: a new binary's screens are picked up at
	// once, and an unchanged file costs a 304.
	hdr.Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(a.body))
}
