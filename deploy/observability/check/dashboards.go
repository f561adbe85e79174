package check

import (
	"encoding/json"
	"fmt"
	"strings"
)

// panel is one time series (or stat) panel of a dashboard.
type panel struct {
	title string
	// unit is Grafana's unit id: s, short, percentunit, ops, ...
	unit string
	// stat shows the last value as a number instead of a graph.
	stat bool
	// queries are PromQL expressions, each with its legend.
	queries []query
}

type query struct{ expr, legend string }

// variable is a dashboard variable filled from a label's values.
type variable struct {
	name, label, metric string
}

// dashboard is one Grafana dashboard as the definitions below write it.
type dashboard struct {
	file, uid, title, description string
	variables                     []variable
	panels                        []panel
}

func q(expr, legend string) query { return query{expr, legend} }

// rate5 is the rate window every panel uses: Grafana's $__rate_interval
// (at least four scrape intervals).
const rate5 = "[$__rate_interval]"

// The SLO routes, as the gateway labels them (http.route).
const (
	actionsRoute = `http_route="/v1/tables/{table_id}/actions"`
	buyInRoutes  = `http_route=~"/v1/tables/{table_id}/seats|/v1/tables/{table_id}/top-ups"`
)

// dashboards are the room's Grafana dashboards.
var dashboards = []dashboard{
	{
		file: "room.json", uid: "cardroom-room", title: "Cardroom: room overview",
		description: "The floor at a glance: play, seating, money, the player-facing SLOs and anything that pages.",
		panels: []panel{
			{title: "Hands dealt per minute, by game", unit: "short", queries: []query{
				q(`sum by (cardroom_game_variant, cardroom_game_structure, cardroom_table_kind) (rate(cardroom_table_hands_total`+rate5+`)) * 60`,
					"{{cardroom_table_kind}} {{cardroom_game_variant}} {{cardroom_game_structure}}")}},
			{title: "Tables dealing", unit: "short", stat: true, queries: []query{
				q(`count(sum by (cardroom_table_id) (increase(cardroom_table_hands_total[15m])) > 0)`, "tables")}},
			{title: "Player actions: p99 latency (SLO 250 ms)", unit: "s", queries: []query{
				q(`histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{http_request_method="POST",`+actionsRoute+`}`+rate5+`)))`, "REST p99"),
				q(`histogram_quantile(0.99, sum by (le) (rate(cardroom_table_action_duration_seconds_bucket`+rate5+`)))`, "table service p99")}},
			{title: "Player actions and buy-ins: availability (SLO 99.9%)", unit: "percentunit", queries: []query{
				q(availability(actionsRoute), "actions"),
				q(availability(buyInRoutes), "buy-ins")}},
			{title: "Waiting lists, by game", unit: "short", queries: []query{
				q(`max by (cardroom_game_variant, cardroom_game_structure, cardroom_game_stakes) (cardroom_seating_waitlist_length)`,
					"{{cardroom_game_variant}} {{cardroom_game_structure}} {{cardroom_game_stakes}}")}},
			{title: "Seat offers per hour", unit: "short", queries: []query{
				q(`sum by (cardroom_offer_event) (increase(cardroom_seating_offers_total[1h]))`, "{{cardroom_offer_event}}")}},
			{title: "Buy-ins and cash-outs per hour (amount, minor units)", unit: "short", queries: []query{
				q(`sum by (cardroom_currency) (increase(cardroom_wallet_buy_ins_sum[1h]))`, "buy-ins {{cardroom_currency}}"),
				q(`sum by (cardroom_currency) (increase(cardroom_wallet_cash_outs_sum[1h]))`, "cash-outs {{cardroom_currency}}")}},
			{title: "Chip-conservation mismatches (pages at one)", unit: "short", stat: true, queries: []query{
				q(`sum(increase(cardroom_chips_mismatches_total[24h]))`, "last 24 h")}},
		},
	},
	{
		file: "table.json", uid: "cardroom-table", title: "Cardroom: one table",
		description: "One table as the replica dealing it sees it. Its traces: search Jaeger for cardroom.table.id.",
		variables:   []variable{{name: "table", label: "cardroom_table_id", metric: "cardroom_table_hands_total"}},
		panels: []panel{
			{title: "Hands per minute", unit: "short", queries: []query{
				q(`sum by (cardroom_game_variant, cardroom_game_structure) (rate(cardroom_table_hands_total{cardroom_table_id="$table"}`+rate5+`)) * 60`,
					"{{cardroom_game_variant}} {{cardroom_game_structure}}")}},
			{title: "Hands dealt", unit: "short", stat: true, queries: []query{
				q(`sum(cardroom_table_hands_total{cardroom_table_id="$table"})`, "hands")}},
			{title: "Players seated", unit: "short", queries: []query{
				q(`max(cardroom_table_players{cardroom_table_id="$table"})`, "seated")}},
			{title: "Action latency of its game (p50, p99)", unit: "s", queries: []query{
				q(`histogram_quantile(0.5, sum by (le) (rate(cardroom_table_action_duration_seconds_bucket`+rate5+`) * on (cardroom_game_variant, cardroom_game_structure) group_left() (max by (cardroom_game_variant, cardroom_game_structure) (cardroom_table_hands_total{cardroom_table_id="$table"}) * 0 + 1)))`, "p50"),
				q(`histogram_quantile(0.99, sum by (le) (rate(cardroom_table_action_duration_seconds_bucket`+rate5+`) * on (cardroom_game_variant, cardroom_game_structure) group_left() (max by (cardroom_game_variant, cardroom_game_structure) (cardroom_table_hands_total{cardroom_table_id="$table"}) * 0 + 1)))`, "p99")}},
			{title: "Actions refused or failed per minute (whole room)", unit: "short", queries: []query{
				q(`sum by (cardroom_outcome) (rate(cardroom_table_action_duration_seconds_count{cardroom_outcome!="accepted"}`+rate5+`)) * 60`, "{{cardroom_outcome}}")}},
			{title: "Table takeovers per hour (whole room)", unit: "short", queries: []query{
				q(`sum(increase(cardroom_lock_takeovers_total{cardroom_lock_entity="tables"}[1h]))`, "takeovers")}},
		},
	},
	{
		file: "wallet.json", uid: "cardroom-wallet", title: "Cardroom: wallet and cage",
		description: "Money in and out of the tables, the buy-in holds and the wallet steps the tables still wait for.",
		panels: []panel{
			{title: "Buy-ins per minute", unit: "short", queries: []query{
				q(`sum by (cardroom_currency) (rate(cardroom_wallet_buy_ins_count`+rate5+`)) * 60`, "{{cardroom_currency}}")}},
			{title: "Cash-outs per minute", unit: "short", queries: []query{
				q(`sum by (cardroom_currency) (rate(cardroom_wallet_cash_outs_count`+rate5+`)) * 60`, "{{cardroom_currency}}")}},
			{title: "Money moved per hour (minor units)", unit: "short", queries: []query{
				q(`sum by (cardroom_currency) (increase(cardroom_wallet_buy_ins_sum[1h]))`, "bought in {{cardroom_currency}}"),
				q(`sum by (cardroom_currency) (increase(cardroom_wallet_cash_outs_sum[1h]))`, "cashed out {{cardroom_currency}}")}},
			{title: "Buy-in holds settled per hour", unit: "short", queries: []query{
				q(`sum by (cardroom_hold_state) (increase(cardroom_wallet_holds_total[1h]))`, "{{cardroom_hold_state}}")}},
			{title: "Wallet steps the tables wait for", unit: "short", queries: []query{
				q(`max by (cardroom_wallet_step_kind) (cardroom_table_wallet_steps_pending)`, "{{cardroom_wallet_step_kind}}")}},
			{title: "Oldest unconfirmed wallet step (stuck past 5 min)", unit: "s", queries: []query{
				q(`max by (cardroom_wallet_step_kind) (cardroom_table_wallet_steps_oldest_age_seconds)`, "{{cardroom_wallet_step_kind}}")}},
			{title: "Buy-ins: availability and p99 (SLO 99.9%, 1 s)", unit: "percentunit", queries: []query{
				q(availability(buyInRoutes), "availability")}},
			{title: "Buy-in latency p99", unit: "s", queries: []query{
				q(`histogram_quantile(0.99, sum by (le) (rate(http_server_request_duration_seconds_bucket{http_request_method="POST",`+buyInRoutes+`}`+rate5+`)))`, "REST p99")}},
			{title: "Wallet RPCs: rate by method and status", unit: "ops", queries: []query{
				q(`sum by (rpc_method, rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_method=~"cardroom.wallet.v1.WalletService/.*"}`+rate5+`))`,
					"{{rpc_method}} {{rpc_response_status_code}}")}},
			{title: "Wallet RPCs: p99 by method", unit: "s", queries: []query{
				q(`histogram_quantile(0.99, sum by (le, rpc_method) (rate(rpc_server_call_duration_seconds_bucket{rpc_method=~"cardroom.wallet.v1.WalletService/.*"}`+rate5+`)))`, "{{rpc_method}}")}},
		},
	},
	{
		file: "tournament.json", uid: "cardroom-tournament", title: "Cardroom: tournament",
		description: "One tournament's field and clock, and the tournament tables' play.",
		variables:   []variable{{name: "tournament", label: "cardroom_tournament_id", metric: "cardroom_tournament_entrants"}},
		panels: []panel{
			{title: "Entrants", unit: "short", stat: true, queries: []query{
				q(`max(cardroom_tournament_entrants{cardroom_tournament_id="$tournament"})`, "entrants")}},
			{title: "Players remaining", unit: "short", queries: []query{
				q(`max(cardroom_tournament_players_remaining{cardroom_tournament_id="$tournament"})`, "remaining")}},
			{title: "Level", unit: "short", queries: []query{
				q(`max(cardroom_tournament_level{cardroom_tournament_id="$tournament"})`, "level")}},
			{title: "Hands per minute at tournament tables", unit: "short", queries: []query{
				q(`sum(rate(cardroom_table_hands_total{cardroom_table_kind="tournament"}`+rate5+`)) * 60`, "hands")}},
			{title: "table.hand_ended published per minute", unit: "short", queries: []query{
				q(`sum(rate(cardroom_outbox_published_total{messaging_destination_name="table.hand_ended"}`+rate5+`)) * 60`, "hand_ended")}},
			{title: "Tournament RPCs: rate by method and status", unit: "ops", queries: []query{
				q(`sum by (rpc_method, rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{rpc_method=~"cardroom.tournament.v1.TournamentService/.*"}`+rate5+`))`,
					"{{rpc_method}} {{rpc_response_status_code}}")}},
			{title: "Chip-conservation mismatches", unit: "short", stat: true, queries: []query{
				q(`sum(increase(cardroom_chips_mismatches_total[24h]))`, "last 24 h")}},
		},
	},
	{
		file: "platform.json", uid: "cardroom-platform", title: "Cardroom: platform",
		description: "Locks and fencing, the outbox, SQL, Redis, RPCs and the processes.",
		panels: []panel{
			{title: "Lock acquisitions per second, by entity and outcome", unit: "ops", queries: []query{
				q(`sum by (cardroom_lock_entity, cardroom_lock_outcome) (rate(cardroom_lock_acquisitions_total`+rate5+`))`,
					"{{cardroom_lock_entity}} {{cardroom_lock_outcome}}")}},
			{title: "Takeovers, lost leases and FENCED_OUT refusals per hour", unit: "short", queries: []query{
				q(`sum by (cardroom_lock_entity) (increase(cardroom_lock_takeovers_total[1h]))`, "takeovers {{cardroom_lock_entity}}"),
				q(`sum by (cardroom_lock_entity) (increase(cardroom_lock_lost_total[1h]))`, "lost {{cardroom_lock_entity}}"),
				q(`sum by (cardroom_lock_entity) (increase(cardroom_fence_refusals_total[1h]))`, "FENCED_OUT {{cardroom_lock_entity}}")}},
			{title: "Outbox lag (oldest unpublished event)", unit: "s", queries: []query{
				q(`max by (cardroom_outbox) (cardroom_outbox_lag_seconds)`, "{{cardroom_outbox}}")}},
			{title: "Events published per second, by topic", unit: "ops", queries: []query{
				q(`sum by (messaging_destination_name) (rate(cardroom_outbox_published_total`+rate5+`))`, "{{messaging_destination_name}}")}},
			{title: "SQL p99 by database and operation", unit: "s", queries: []query{
				q(`histogram_quantile(0.99, sum by (le, db_namespace, db_operation_name) (rate(db_client_operation_duration_seconds_bucket{otel_scope_name="github.com/XSAM/otelsql"}`+rate5+`)))`,
					"{{db_namespace}} {{db_operation_name}}")}},
			{title: "SQL connection pools", unit: "short", queries: []query{
				q(`sum by (db_namespace) (db_sql_connection_open)`, "open {{db_namespace}}"),
				q(`max by (db_namespace) (db_sql_connection_max_open)`, "max {{db_namespace}}"),
				q(`sum by (db_namespace) (rate(db_sql_connection_wait_total`+rate5+`))`, "waits/s {{db_namespace}}")}},
			{title: "Redis: p99 time a command holds a connection (ms)", unit: "ms", queries: []query{
				q(`histogram_quantile(0.99, sum by (le) (rate(db_client_connections_use_time_milliseconds_bucket`+rate5+`)))`, "p99")}},
			{title: "Redis: connections by state", unit: "short", queries: []query{
				q(`sum by (state) (db_client_connections_usage)`, "{{state}}")}},
			{title: "gRPC server: errors per second by method", unit: "ops", queries: []query{
				q(`sum by (rpc_method, rpc_response_status_code) (rate(rpc_server_call_duration_seconds_count{`+serverFaults+`}`+rate5+`))`,
					"{{rpc_method}} {{rpc_response_status_code}}")}},
			{title: "gRPC server: p99 by method", unit: "s", queries: []query{
				q(`histogram_quantile(0.99, sum by (le, rpc_method) (rate(rpc_server_call_duration_seconds_bucket`+rate5+`)))`, "{{rpc_method}}")}},
			{title: "REST: requests per second by route and status", unit: "ops", queries: []query{
				q(`sum by (http_route, http_response_status_code) (rate(http_server_request_duration_seconds_count`+rate5+`))`,
					"{{http_route}} {{http_response_status_code}}")}},
			{title: "Goroutines and resident memory", unit: "short", queries: []query{
				q(`sum by (service_name) (go_goroutines * on (job, instance) group_left (service_name) target_info)`, "goroutines {{service_name}}"),
				q(`sum by (job) (process_resident_memory_bytes)`, "RSS bytes {{job}}")}},
			{title: "CPU seconds per second, by job", unit: "short", queries: []query{
				q(`sum by (job) (rate(process_cpu_seconds_total`+rate5+`))`, "{{job}}")}},
		},
	},
}

// serverFaults selects the gRPC codes that are the server's fault (the
// others are answers: NOT_FOUND, FAILED_PRECONDITION, ...).
const serverFaults = `rpc_response_status_code=~"UNKNOWN|INTERNAL|UNAVAILABLE|DEADLINE_EXCEEDED|DATA_LOSS|UNIMPLEMENTED"`

// availability is the share of a route's REST requests that did not fail
// on the server (5xx) over the panel's window.
func availability(route string) string {
	return `1 - (sum(rate(http_server_request_duration_seconds_count{http_request_method="POST",` + route + `,http_response_status_code=~"5.."}` + rate5 + `)) or vector(0))` +
		` / sum(rate(http_server_request_duration_seconds_count{http_request_method="POST",` + route + `}` + rate5 + `))`
}

// JSON renders d as a Grafana dashboard (schema 39), with a Prometheus
// data source variable so it imports into any Grafana.
func (d dashboard) JSON() ([]byte, error) {
	vars := []map[string]any{{
		"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus",
	}}
	for _, v := range d.variables {
		vars = append(vars, map[string]any{
			"name": v.name, "label": v.name, "type": "query",
			"datasource": map[string]any{"type": "prometheus", "uid": "${datasource}"},
			"query":      map[string]any{"query": fmt.Sprintf("label_values(%s, %s)", v.metric, v.label), "refId": "vars"},
			"refresh":    2, "sort": 1,
		})
	}
	var panels []map[string]any
	for i, p := range d.panels {
		var targets []map[string]any
		for j, t := range p.queries {
			targets = append(targets, map[string]any{
				"datasource": map[string]any{"type": "prometheus", "uid": "${datasource}"},
				"expr":       t.expr, "legendFormat": t.legend, "refId": string(rune('A' + j)),
			})
		}
		kind := "timeseries"
		if p.stat {
			kind = "stat"
		}
		panels = append(panels, map[string]any{
			"id": i + 1, "type": kind, "title": p.title,
			"datasource":  map[string]any{"type": "prometheus", "uid": "${datasource}"},
			"gridPos":     map[string]any{"h": 8, "w": 12, "x": (i % 2) * 12, "y": (i / 2) * 8},
			"fieldConfig": map[string]any{"defaults": map[string]any{"unit": p.unit}, "overrides": []any{}},
			"targets":     targets,
		})
	}
	b, err := json.MarshalIndent(map[string]any{
		"uid": d.uid, "title": d.title, "description": d.description, "tags": []string{"cardroom"},
		"schemaVersion": 39, "editable": true, "refresh": "30s",
		"time":       map[string]any{"from": "now-6h", "to": "now"},
		"templating": map[string]any{"list": vars},
		"panels":     panels,
	}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("dashboard %s: %w", d.file, err)
	}
	return append(b, '\n'), nil
}

// expressions lists every PromQL expression of d, with where it is.
func (d dashboard) expressions() map[string]string {
	out := map[string]string{}
	for _, p := range d.panels {
		for _, t := range p.queries {
			out[d.file+": "+p.title+": "+strings.TrimSpace(t.legend)] = t.expr
		}
	}
	return out
}
