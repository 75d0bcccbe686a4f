package intern

import "sync"

// Table keeps at most Max values by key; its zero value keeps none. It is
// safe for concurrent use.
type Table[V any] struct {
	Max int

	mu sync.Mutex
	m  map[string]V
}

// Intern returns the value kept under key, else v, kept if there is room.
// Values are never changed once kept.
func (t *Table[V]) Intern(key string, v V) V {
	t.mu.Lock()
	defer t.mu.Unlock()
	if kept, ok := t.m[key]; ok {
		return kept
	}
	if t.m == nil {
		t.m = map[string]V{}
	}
	if len(t.m) < t.Max {
		t.m[key] = v
	}
	return v
}
