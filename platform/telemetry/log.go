package telemetry

import (
	"cmp"
	"context"
	"io"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// NewLogger returns a JSON logger writing to w at level (nil: info) whose
// records carry the trace_id and span_id of the context they are logged
// with (slog.InfoContext(ctx, ...)), so logs and traces join up.
func NewLogger(w io.Writer, level slog.Leveler) *slog.Logger {
	level = cmp.Or[slog.Leveler](level, slog.LevelInfo)
	return slog.New(NewTraceHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// TraceHandler is a slog.Handler that adds trace_id and span_id attributes
// from the record's context before passing it on.
type TraceHandler struct {
	next slog.Handler
}

// NewTraceHandler wraps next.
func NewTraceHandler(next slog.Handler) *TraceHandler { return &TraceHandler{next: next} }

// Enabled reports whether next handles records at level.
func (h *TraceHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle adds the trace attributes, when ctx holds a valid span context,
// and passes the record on.
func (h *TraceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r = r.Clone()
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a TraceHandler over next.WithAttrs(attrs).
func (h *TraceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &TraceHandler{next: h.next.WithAttrs(attrs)}
}

// WithGroup returns a TraceHandler over next.WithGroup(name). The trace
// attributes then land inside the group, which is where slog puts every
// attribute added after WithGroup.
func (h *TraceHandler) WithGroup(name string) slog.Handler {
	return &TraceHandler{next: h.next.WithGroup(name)}
}
