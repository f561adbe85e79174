package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// MigrationSet is a named migration tree that a platform package (events)
// ships for every service that uses it. Its goose version table is
// goose_<Name>_version.
type MigrationSet struct {
	Name string
	FS   fs.FS
}

// Embedded returns the tree under dir of an embedded file system (a
// store's //go:embed migrations), for Options.Migrations or a
// MigrationSet. It panics on a dir fs.Sub refuses: the tree is fixed at
// build time.
func Embedded(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// Migrate applies every pending migration: first each Options.Shared set in
// order, then the service's own. Running it again is a no-op, and replicas
// running it at once take turns (a PostgreSQL advisory lock per schema and
// set; SQLite's write lock).
func (d *DB) Migrate(ctx context.Context) error {
	for _, set := range d.opts.Shared {
		if !identifier.MatchString(set.Name) {
			return fmt.Errorf("migrate %s: set name %q must be a plain identifier", d.opts.Service, set.Name)
		}
		if err := d.migrate(ctx, set.FS, "goose_"+set.Name+"_version"); err != nil {
			return fmt.Errorf("migrate %s (%s): %w", d.opts.Service, set.Name, err)
		}
	}
	if d.opts.Migrations != nil {
		if err := d.migrate(ctx, d.opts.Migrations, "goose_db_version"); err != nil {
			return fmt.Errorf("migrate %s: %w", d.opts.Service, err)
		}
	}
	return nil
}

func (d *DB) migrate(ctx context.Context, fsys fs.FS, table string) error {
	fsys, err := dialectDir(fsys, d.dialect)
	if err != nil {
		return err
	}
	dialect := goose.DialectSQLite3
	opts := []goose.ProviderOption{goose.WithTableName(table), goose.WithDisableGlobalRegistry(true)}
	if d.dialect == Postgres {
		dialect = goose.DialectPostgres
		// The lock ID is per schema and set, so unrelated services and
		// parallel tests in their own schemas never queue behind each other.
		h := fnv.New64a()
		h.Write([]byte(d.schema + "/" + table))
		locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(int64(h.Sum64()>>1)), lock.WithLockTimeout(1, 300))
		if err != nil {
			return err
		}
		opts = append(opts, goose.WithSessionLocker(locker))
	}
	p, err := goose.NewProvider(dialect, d.db, fsys, opts...)
	if errors.Is(err, goose.ErrNoMigrations) {
		return nil
	}
	if err != nil {
		return err
	}
	// No p.Close(): it would close d.db, which the provider only borrows.
	_, err = p.Up(ctx)
	return err
}

// dialectDir picks the dialect's own subdirectory when the tree has one.
// A tree without one is shared by both dialects, apart from a file whose
// name ends in .<dialect>.sql (00010_rows.postgres.sql), which is the
// named dialect's alone: the other dialect never sees it, so a statement
// that only one engine knows (a PostgreSQL storage parameter) needs no
// tree of its own per dialect.
func dialectDir(fsys fs.FS, dialect Dialect) (fs.FS, error) {
	info, err := fs.Stat(fsys, string(dialect))
	switch {
	case err == nil && info.IsDir():
		return fs.Sub(fsys, string(dialect))
	case err == nil, errors.Is(err, fs.ErrNotExist):
		return dialectFiles{fsys: fsys, dialect: dialect}, nil
	default:
		return nil, err
	}
}

// dialectFiles is a shared migration tree as one dialect sees it: every
// file but those named for another dialect.
type dialectFiles struct {
	fsys    fs.FS
	dialect Dialect
}

// Open opens a file of the tree; one named for another dialect does not
// exist.
func (d dialectFiles) Open(name string) (fs.File, error) {
	if d.otherDialect(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return d.fsys.Open(name)
}

// Glob lists the tree's files matching pattern, those named for another
// dialect left out (goose finds migrations by globbing).
func (d dialectFiles) Glob(pattern string) ([]string, error) {
	names, err := fs.Glob(d.fsys, pattern)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(names, d.otherDialect), nil
}

func (d dialectFiles) otherDialect(name string) bool {
	for _, other := range []Dialect{Postgres, SQLite} {
		if other != d.dialect && strings.HasSuffix(path.Base(name), "."+string(other)+".sql") {
			return true
		}
	}
	return false
}
