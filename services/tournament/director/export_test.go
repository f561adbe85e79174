package director

// IssueHeld reports whether Issue is held for tournament id: chips are
// being issued and put on the tables, and a late entry's seating waits.
func (d *Director) IssueHeld(id string) bool {
	d.mu.Lock()
	m, ok := d.issuing[id]
	d.mu.Unlock()
	if !ok || !m.TryLock() {
		return ok
	}
	m.Unlock()
	return false
}
