package sqlstore_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/cardroom/cardroom/platform/sqlstore"
	"github.com/cardroom/cardroom/platform/testkit"
)

// TestPipeline checks DB.Pipeline on PostgreSQL: the fns' statements run
// in rounds (every fn's second statement sees every fn's first, and a
// round runs in the order given), everything commits together, and a
// failure anywhere — a fn's error, a statement that cannot be pipelined,
// a failing statement — keeps nothing. On SQLite it refuses to run.
func TestPipeline(t *testing.T) {
	t.Parallel()
	testkit.EachStore(t, sqlstore.Options{Service: "pipeline", Migrations: migrations}, func(t *testing.T, db *sqlstore.DB) {
		ctx := t.Context()
		// work inserts note id in its first statement, then counts the
		// notes of its run (prefix) in its second; fail, when set, ends it
		// after the first.
		work := func(prefix, id string, seen *int, fail func(tx *sqlstore.Tx) error) func(tx *sqlstore.Tx) error {
			return func(tx *sqlstore.Tx) error {
				if err := tx.Query(ctx, `INSERT INTO notes (id, body) VALUES ($1, (SELECT COUNT(*)::text FROM notes WHERE id LIKE $2)) RETURNING id`,
					[]any{prefix + id, prefix + "%"}, func(sqlstore.Rows) error { return nil }); err != nil {
					return err
				}
				if fail != nil {
					return fail(tx)
				}
				return tx.Query(ctx, `SELECT COUNT(*) FROM notes WHERE id LIKE $1`, []any{prefix + "%"}, func(rows sqlstore.Rows) error {
					for rows.Next() {
						if err := rows.Scan(seen); err != nil {
							return err
						}
					}
					return nil
				})
			}
		}
		// bodies lists the run's notes by id with, as body, how many of
		// the run's notes were there when each was inserted.
		bodies := func(prefix string) []string {
			rows, err := db.SQL().QueryContext(ctx, `SELECT id || '=' || body FROM notes WHERE id LIKE $1 ORDER BY id`, prefix+"%")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var out []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				out = append(out, s)
			}
			return out
		}

		if db.Dialect() != sqlstore.Postgres {
			err := db.Pipeline(ctx, []string{"a"}, []func(*sqlstore.Tx) error{work("sqlite-", "a", new(int), nil)})
			if !errors.Is(err, sqlstore.ErrNotPipelined) {
				t.Errorf("Pipeline on SQLite = %v, want ErrNotPipelined", err)
			}
			return
		}

		t.Run("rounds in the order given, committed together", func(t *testing.T) {
			seen := make([]int, 3)
			var committed []string
			fns := make([]func(*sqlstore.Tx) error, 3)
			for i := range fns {
				fn := work("ok-", fmt.Sprint(i), &seen[i], nil)
				fns[i] = func(tx *sqlstore.Tx) error {
					if !tx.Pipelined() {
						return errors.New("not pipelined")
					}
					tx.AfterCommit(func() { committed = append(committed, fmt.Sprint(i)) })
					return fn(tx)
				}
			}
			// Reversed: the round runs fn 2, then 1, then 0.
			if err := db.Pipeline(ctx, []string{"c", "b", "a"}, fns); err != nil {
				t.Fatal(err)
			}
			if want := []int{3, 3, 3}; !slices.Equal(seen, want) {
				t.Errorf("second statements counted %v notes, want %v: each after every first statement", seen, want)
			}
			if got, want := bodies("ok-"), []string{"ok-0=2", "ok-1=1", "ok-2=0"}; !slices.Equal(got, want) {
				t.Errorf("notes %v, want %v: inserted in the order given", got, want)
			}
			slices.Sort(committed)
			if want := []string{"0", "1", "2"}; !slices.Equal(committed, want) {
				t.Errorf("after-commit functions run: %v, want %v", committed, want)
			}
		})

		refused := errors.New("refused")
		for _, tc := range []struct {
			name string
			fail func(tx *sqlstore.Tx) error
			want error
		}{
			{"a fn's error", func(*sqlstore.Tx) error { return refused }, refused},
			{"a statement that cannot be pipelined", func(tx *sqlstore.Tx) error {
				_, err := tx.ExecContext(ctx, `DELETE FROM notes`)
				return err
			}, sqlstore.ErrNotPipelined},
			{"a failing statement", func(tx *sqlstore.Tx) error {
				return tx.Query(ctx, `INSERT INTO notes (id, body) VALUES ('fail-0', 'again')`, nil, func(sqlstore.Rows) error { return nil })
			}, nil},
		} {
			t.Run(tc.name+" keeps nothing", func(t *testing.T) {
				var ran bool
				fns := []func(*sqlstore.Tx) error{
					work("fail-", "0", new(int), nil),
					work("fail-", "1", new(int), tc.fail),
					work("fail-", "2", new(int), nil),
				}
				fns = append(fns, func(tx *sqlstore.Tx) error { tx.AfterCommit(func() { ran = true }); return nil })
				err := db.Pipeline(ctx, []string{"0", "1", "2", "3"}, fns)
				if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
					t.Errorf("Pipeline = %v, want %v", err, tc.want)
				}
				if tc.want == nil && !sqlstore.IsUniqueViolation(err) {
					t.Errorf("Pipeline = %v, want the failing statement's unique violation", err)
				}
				if got := bodies("fail-"); len(got) != 0 {
					t.Errorf("notes kept after a failed pipeline: %v", got)
				}
				if ran {
					t.Error("after-commit function ran")
				}
				// The connection went back to the pool clean: the pool
				// still works.
				if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return nil }); err != nil {
					t.Errorf("a transaction after the failed pipeline: %v", err)
				}
			})
		}
	})
}

// TestPipelineMerges checks Tx.QueryMerged: a round's statements of one
// Merge shape go as the one statement Merge.Statement builds, each part
// reading only its own rows (every column scanned as its own statement's
// would be); a part with no rows reads none; a shape that one round has
// once, or whose Statement declines, runs each statement as it is; and
// outside a pipeline QueryMerged is Query.
func TestPipelineMerges(t *testing.T) {
	t.Parallel()
	db := testkit.Postgres(t, sqlstore.Options{Service: "pipemerge", Migrations: migrations})
	ctx := t.Context()
	const single = `INSERT INTO notes (id, body) VALUES ($1, 'alone') RETURNING id, length(id)`
	merges := 0
	merge := &sqlstore.Merge{Key: "notes", Statement: func(parts [][]any) (string, []any, bool) {
		ids := make([]string, len(parts))
		for i, p := range parts {
			ids[i] = p[0].(string)
		}
		if slices.Contains(ids, "decline") {
			return "", nil, false
		}
		merges++
		// A part whose id starts with "none-" gets no row back.
		return `WITH n AS (INSERT INTO notes (id, body) SELECT id, 'merged' FROM unnest($1::text[]) AS id RETURNING id)
			SELECT i - 1, n.id, length(n.id) FROM n JOIN unnest($1::text[]) WITH ORDINALITY AS u (id, i) USING (id)
			WHERE n.id NOT LIKE 'none-%' ORDER BY n.id DESC`, []any{ids}, true
	}}
	type got struct {
		ids  []string
		lens []int64
	}
	insert := func(tx *sqlstore.Tx, id string, out *got) error {
		return tx.QueryMerged(ctx, single, []any{id}, merge, func(rows sqlstore.Rows) error {
			for rows.Next() {
				var s string
				var n int64
				if err := rows.Scan(&s, &n); err != nil {
					return err
				}
				out.ids, out.lens = append(out.ids, s), append(out.lens, n)
			}
			return rows.Err()
		})
	}
	bodies := func(prefix string) map[string]string {
		rows, err := db.SQL().QueryContext(ctx, `SELECT id, body FROM notes WHERE id LIKE $1`, prefix+"%")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var id, body string
			if err := rows.Scan(&id, &body); err != nil {
				t.Fatal(err)
			}
			out[id] = body
		}
		return out
	}
	run := func(ids ...string) []got {
		t.Helper()
		outs := make([]got, len(ids))
		fns := make([]func(*sqlstore.Tx) error, len(ids))
		for i, id := range ids {
			fns[i] = func(tx *sqlstore.Tx) error { return insert(tx, id, &outs[i]) }
		}
		if err := db.Pipeline(ctx, ids, fns); err != nil {
			t.Fatal(err)
		}
		return outs
	}

	outs := run("m-a", "m-bb", "none-c", "m-ddd")
	if merges != 1 {
		t.Errorf("%d merged statements, want 1", merges)
	}
	for i, want := range []got{{[]string{"m-a"}, []int64{3}}, {[]string{"m-bb"}, []int64{4}}, {}, {[]string{"m-ddd"}, []int64{5}}} {
		if !slices.Equal(outs[i].ids, want.ids) || !slices.Equal(outs[i].lens, want.lens) {
			t.Errorf("part %d read %+v, want %+v", i, outs[i], want)
		}
	}
	if got, want := bodies("m-"), map[string]string{"m-a": "merged", "m-bb": "merged", "m-ddd": "merged"}; !maps.Equal(got, want) {
		t.Errorf("notes %v, want %v", got, want)
	}

	merges = 0
	outs = run("decline", "d-b")
	outs = append(outs, run("o-alone")...)
	if merges != 0 {
		t.Errorf("%d merged statements, want none", merges)
	}
	for i, want := range []string{"decline", "d-b", "o-alone"} {
		if !slices.Equal(outs[i].ids, []string{want}) {
			t.Errorf("statement %d read %v, want [%s]", i, outs[i].ids, want)
		}
	}
	if got, want := bodies("d"), map[string]string{"decline": "alone", "d-b": "alone"}; !maps.Equal(got, want) {
		t.Errorf("declined notes %v, want %v", got, want)
	}

	var out got
	if err := db.Tx(ctx, func(tx *sqlstore.Tx) error { return insert(tx, "x-plain", &out) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.ids, []string{"x-plain"}) || bodies("x-")["x-plain"] != "alone" {
		t.Errorf("outside a pipeline: read %v, notes %v; want the statement itself", out.ids, bodies("x-"))
	}
}

// TestPipelineExecDoesNotWait: in a pipeline, Exec returns at once and its
// statement goes with the fn's next waiting statement (a Query that reads
// it sees it) or, when the fns end, with the COMMIT; a fn's statements
// keep their order; a failing Exec, answered nil, fails the pipeline and
// nothing of any fn is committed.
func TestPipelineExecDoesNotWait(t *testing.T) {
	t.Parallel()
	db := testkit.Postgres(t, sqlstore.Options{Service: "pipeexec", Migrations: migrations})
	ctx := t.Context()
	body := func(id string) string {
		var b string
		if err := db.SQL().QueryRowContext(ctx, `SELECT body FROM notes WHERE id = $1`, id).Scan(&b); err != nil {
			return err.Error()
		}
		return b
	}
	var seen int
	err := db.Pipeline(ctx, []string{"a", "b"}, []func(*sqlstore.Tx) error{
		func(tx *sqlstore.Tx) error {
			// Two statements the fn does not wait for, in order: the
			// update finds the row the insert wrote.
			if err := tx.Exec(ctx, `INSERT INTO notes (id, body) VALUES ('x-1', 'first')`); err != nil {
				return err
			}
			return tx.Exec(ctx, `UPDATE notes SET body = 'second' WHERE id = 'x-1'`)
		},
		func(tx *sqlstore.Tx) error {
			if err := tx.Exec(ctx, `INSERT INTO notes (id, body) VALUES ('x-2', 'read')`); err != nil {
				return err
			}
			return tx.Query(ctx, `SELECT COUNT(*) FROM notes WHERE id = 'x-2'`, nil, func(rows sqlstore.Rows) error {
				for rows.Next() {
					if err := rows.Scan(&seen); err != nil {
						return err
					}
				}
				return rows.Err()
			})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if b1, b2 := body("x-1"), body("x-2"); b1 != "second" || b2 != "read" || seen != 1 {
		t.Fatalf("committed x-1 = %q, x-2 = %q, the Query saw %d of x-2: want second, read, 1", b1, b2, seen)
	}

	var answered error = errors.New("not called")
	err = db.Pipeline(ctx, []string{"a", "b"}, []func(*sqlstore.Tx) error{
		func(tx *sqlstore.Tx) error {
			answered = tx.Exec(ctx, `INSERT INTO notes (id, body) VALUES ('x-1', 'again')`) // the key is taken
			return answered
		},
		func(tx *sqlstore.Tx) error {
			return tx.Exec(ctx, `INSERT INTO notes (id, body) VALUES ('x-3', 'lost')`)
		},
	})
	if err == nil || answered != nil {
		t.Fatalf("Pipeline = %v, the failing Exec answered %v: want the pipeline failed, the Exec answered nil", err, answered)
	}
	if b := body("x-3"); b == "lost" {
		t.Fatal("the other fn's statement was committed with the failed pipeline")
	}
}
