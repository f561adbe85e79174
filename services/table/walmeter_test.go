package table_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// walMeter measures the WAL a PostgreSQL server writes over part of a
// benchmark: bytes, records and full-page images (FPIs, the whole 8 kB
// pages logged at a page's first change after a checkpoint starts). Unlike
// a rate or a latency, WAL per action does not depend on how loaded the
// machine is, so it compares runs taken at different times. It reads the
// server's WAL position, so it counts every writer of the server: the
// benchmark's own throwaway server has no other.
type walMeter struct {
	db      *sqlstore.DB
	start   string // LSN
	inspect bool   // pg_walinspect is there to count records and FPIs
	// syncs and syncMS are the server's WAL flushes so far and the time
	// they took (pg_stat_wal; the time only with track_wal_io_timing).
	syncs  int64
	syncMS float64
}

// startWAL starts a walMeter, or returns nil on SQLite. The FPI counts
// need the pg_walinspect extension (PostgreSQL 15's contrib), created in
// the benchmark's own schema, which goes with it; without it (not
// installed, or no superuser) only bytes are reported.
//
// With checkpoint (TABLE_BENCH_CHECKPOINT=1), a CHECKPOINT is taken first,
// so that every page's first change in the measurement is logged whole:
// the WAL of the moments after a checkpoint starts, the worst case, the
// same in every run. Without, a short run on a fresh server sees no
// checkpoint and so (almost) no FPIs: the steady state between them.
func startWAL(b *testing.B, db *sqlstore.DB, checkpoint bool) *walMeter {
	b.Helper()
	if db.Dialect() != sqlstore.Postgres {
		return nil
	}
	ctx := context.Background()
	m := &walMeter{db: db}
	if _, err := db.SQL().ExecContext(ctx, `CREATE EXTENSION IF NOT EXISTS pg_walinspect`); err == nil {
		m.inspect = true
	} else {
		b.Logf("WAL records and full-page images not counted (pg_walinspect: %v)", err)
	}
	if checkpoint {
		if _, err := db.SQL().ExecContext(ctx, `CHECKPOINT`); err != nil {
			b.Fatalf("checkpoint: %v", err)
		}
	}
	// The flush position: pg_walinspect reads only flushed WAL.
	if err := db.SQL().QueryRowContext(ctx, `SELECT pg_current_wal_flush_lsn()::text, wal_sync, wal_sync_time FROM pg_stat_wal`).Scan(&m.start, &m.syncs, &m.syncMS); err != nil {
		b.Fatalf("read the WAL position: %v", err)
	}
	return m
}

// report ends the measurement and reports the WAL per action: bytes
// (wal-B/action), records (wal-records/action), the bytes of FPIs
// (wal-fpi-B/action) and their share of the records' bytes
// (wal-fpi-share; pg_walinspect's sizes leave out the page headers and
// the padding that wal-B/action, the distance between two positions,
// includes).
func (m *walMeter) report(b *testing.B, actions int) {
	b.Helper()
	if m == nil || actions == 0 {
		return
	}
	ctx := context.Background()
	q := m.db.SQL()
	// The checkpoints the server starts by itself during the run (timed,
	// or for max_wal_size) land where they fall, as in production.
	var end string
	var bytes int64
	if err := q.QueryRowContext(ctx, `SELECT pg_current_wal_flush_lsn()::text, pg_current_wal_flush_lsn() - $1::pg_lsn`, m.start).Scan(&end, &bytes); err != nil {
		b.Fatalf("read the WAL position: %v", err)
	}
	// The range, for pg_waldump --start/--end on the server's pg_wal.
	b.Logf("WAL %s to %s: %d bytes for %d actions", m.start, end, bytes, actions)
	b.ReportMetric(float64(bytes)/float64(actions), "wal-B/action")
	m.reportSyncs(b)
	if !m.inspect {
		return
	}
	var records, fpiBytes, all int64
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(sum(count), 0), COALESCE(sum(fpi_size), 0), COALESCE(sum(combined_size), 0)
		FROM pg_get_wal_stats($1::pg_lsn, $2::pg_lsn, false)`, m.start, end).Scan(&records, &fpiBytes, &all); err != nil {
		b.Logf("WAL records and full-page images not counted: %v", err)
		return
	}
	m.byRelation(b, end, actions)
	b.ReportMetric(float64(records)/float64(actions), "wal-records/action")
	b.ReportMetric(float64(fpiBytes)/float64(actions), "wal-fpi-B/action")
	if all > 0 {
		b.ReportMetric(float64(fpiBytes)/float64(all), "wal-fpi-share")
	}
}

// reportSyncs reports how long the server's WAL flushes took on average
// during the run (wal-sync-ms): every durable commit waits for one, so it
// is the floor under an action's latency, and on a shared disk it is
// what changes most between two runs of the same code. A backend adds its
// counts to pg_stat_wal only every second or so, and an idle one later,
// so the last moments' flushes may not be counted yet: the mean of those
// counted is reported, not their number. It needs track_wal_io_timing
// (make bench's durable server sets it); without, nothing is reported.
func (m *walMeter) reportSyncs(b *testing.B) {
	b.Helper()
	var syncs int64
	var ms float64
	if err := m.db.SQL().QueryRowContext(context.Background(), `SELECT wal_sync, wal_sync_time FROM pg_stat_wal`).Scan(&syncs, &ms); err != nil {
		b.Logf("WAL flushes not read: %v", err)
		return
	}
	if n := syncs - m.syncs; n > 0 && ms > m.syncMS {
		b.ReportMetric((ms-m.syncMS)/float64(n), "wal-sync-ms")
	}
}

// byRelation logs where the WAL went: per relation (the first block a
// record changes; records of no relation, such as commits, apart), its
// records and bytes per action, FPI bytes included, and its record types.
func (m *walMeter) byRelation(b *testing.B, end string, actions int) {
	b.Helper()
	err := sqlstore.Each(context.Background(), m.db.SQL(), "WAL by relation", `WITH r AS (
			SELECT resource_manager || '/' || record_type AS kind, record_length, fpi_length,
				substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS node
			FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn))
		SELECT CASE WHEN r.node IS NULL THEN '(none)' ELSE COALESCE(c.relname, 'relfilenode ' || r.node) END,
			count(*), sum(record_length), sum(fpi_length), string_agg(DISTINCT kind, ' ')
		FROM r LEFT JOIN pg_class c ON c.relfilenode = r.node
		GROUP BY 1 ORDER BY 3 DESC LIMIT 8`, []any{m.start, end}, func(r sqlstore.Scanner) error {
		var rel, kinds string
		var n, size, fpi int64
		if err := r.Scan(&rel, &n, &size, &fpi, &kinds); err != nil {
			return err
		}
		a := float64(actions)
		b.Logf("WAL %-24s %6.2f records %7.0f B (FPI %6.0f B) per action: %s", rel, float64(n)/a, float64(size)/a, float64(fpi)/a, kinds)
		return nil
	})
	if err != nil {
		b.Logf("WAL by relation not read: %v", err)
	}
}

// analyzeTables gives PostgreSQL the statistics of the tables the
// benchmark has just made, which a running room's have from autovacuum's
// ANALYZE. Without them the plan the service's connections cached for
// the state write while the room was being set up — a few hundred rows
// then, a hash join over a sequential scan — stays in use for the whole
// run, and every action reads every table's row: at 1,000 tables about
// 0.7 of a sequential scan of the 1,000 rows per action (docs/CAPACITY.md,
// 2026-12-04). ANALYZE invalidates the cached plans, so the next write
// is planned with the room's real size and uses the primary key.
func analyzeTables(b *testing.B, db *sqlstore.DB) {
	b.Helper()
	if db.Dialect() != sqlstore.Postgres {
		return
	}
	// Only the benchmark's own schema: the server may hold others'.
	ctx := context.Background()
	rows, err := db.SQL().QueryContext(ctx, `SELECT quote_ident(tablename) FROM pg_tables WHERE schemaname = current_schema()`)
	if err != nil {
		b.Fatalf("list the tables to analyze: %v", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			b.Fatalf("list the tables to analyze: %v", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		b.Fatalf("list the tables to analyze: %v", err)
	}
	if _, err := db.SQL().ExecContext(ctx, `ANALYZE `+strings.Join(names, ", ")); err != nil {
		b.Fatalf("analyze: %v", err)
	}
}
