package store

// OnQueued makes a grouped store call f each time a request is queued,
// with the number then waiting for its committer (tests that need
// requests in one batch wait for them with it).
func OnQueued(s *Store, f func(waiting int)) { s.group.queued = f }

// ErrKeyTaken is the error Post returns for an idempotency key row that
// lost the race for its key.
var ErrKeyTaken = errKeyTaken
