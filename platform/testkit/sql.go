package testkit

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver for schema setup

	"github.com/cardroom/cardroom/platform/sqlstore"
)

// PostgresURL creates a fresh schema in the DATABASE_URL database and drops
// it (CASCADE) when the test ends. Pass both results to sqlstore.Open as
// Options.URL and Options.Schema.
func PostgresURL(t testing.TB) (dbURL, schema string) {
	t.Helper()
	dbURL = DatabaseURL(t)
	schema = UniqueName(t)
	admin, err := sql.Open("pgx", dbURL)
	if err != nil {
		t.Fatalf("open %s: %v", dbURL, err)
	}
	defer admin.Close()
	if _, err := admin.ExecContext(t.Context(), `CREATE SCHEMA "`+schema+`"`); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := cleanupContext()
		defer cancel()
		admin, err := sql.Open("pgx", dbURL)
		if err != nil {
			t.Errorf("open %s: %v", dbURL, err)
			return
		}
		defer admin.Close()
		if _, err := admin.ExecContext(ctx, `DROP SCHEMA IF EXISTS "`+schema+`" CASCADE`); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return dbURL, schema
}

// Postgres opens a service database in a fresh PostgreSQL schema, migrates
// it, and closes it (then drops the schema) when the test ends. opts.URL,
// opts.Schema and, when empty, opts.Service are filled in.
func Postgres(t testing.TB, opts sqlstore.Options) *sqlstore.DB {
	t.Helper()
	opts.URL, opts.Schema = PostgresURL(t)
	return open(t, opts)
}

// SQLite opens a service database in a SQLite file under t.TempDir(),
// migrates it, and closes it when the test ends.
func SQLite(t testing.TB, opts sqlstore.Options) *sqlstore.DB {
	t.Helper()
	opts.URL, opts.Schema = "", ""
	opts.DataDir = t.TempDir()
	return open(t, opts)
}

func open(t testing.TB, opts sqlstore.Options) *sqlstore.DB {
	t.Helper()
	if opts.Service == "" {
		opts.Service = "test"
	}
	db, err := sqlstore.Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("open database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return db
}

// EachStore runs test once per SQL dialect, as parallel subtests "sqlite"
// and "postgres", each on a freshly migrated database: the way to write one
// contract suite for a store and prove it on both engines.
func EachStore(t *testing.T, opts sqlstore.Options, test func(t *testing.T, db *sqlstore.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		test(t, SQLite(t, opts))
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		test(t, Postgres(t, opts))
	})
}
