package store

// ErrKeyTaken is the error Post returns for an idempotency key row that
// lost the race for its key.
var ErrKeyTaken = errKeyTaken
