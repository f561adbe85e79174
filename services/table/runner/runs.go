package runner

// Runs reports whether this process runs table id now. A table it is
// still claiming does not count: until the claim holds the lease, the
// lease's holder (maybe another replica) is the one to ask.
func (r *Runner) Runs(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tables[id]
	return ok
}
