package mcpconfig

import (
	"fmt"
	"time"
)

// Tasks is a server's "tasks" setting: the server's long-running tools
// (SEP-2663 tasks) are driven (toolbox maps it to plugin.WithTasks).
// "tasks": true gives the zero value, every setting at its default; an
// object sets some of them, each a duration such as "30s":
//
//	"tasks": {"pollInterval": "1s", "minPollInterval": "50ms",
//	          "maxPollInterval": "30s", "timeout": "24h", "detachAfter": "2m"}
type Tasks struct {
	// PollInterval ("pollInterval") is the wait between polls when the
	// server suggests none (plugin.TaskOptions.DefaultPollInterval).
	PollInterval time.Duration
	// MinPollInterval and MaxPollInterval ("minPollInterval",
	// "maxPollInterval") bound the server's suggestion.
	MinPollInterval, MaxPollInterval time.Duration
	// Timeout ("timeout") bounds a task's call in all.
	Timeout time.Duration
	// DetachAfter ("detachAfter") lets a hook call whose task has run this
	// long return while the task goes on.
	DetachAfter time.Duration
}

// taskFields are the fields of a "tasks" object, and where each goes.
var taskFields = map[string]func(*Tasks) *time.Duration{
	"pollInterval":    func(t *Tasks) *time.Duration { return &t.PollInterval },
	"minPollInterval": func(t *Tasks) *time.Duration { return &t.MinPollInterval },
	"maxPollInterval": func(t *Tasks) *time.Duration { return &t.MaxPollInterval },
	"timeout":         func(t *Tasks) *time.Duration { return &t.Timeout },
	"detachAfter":     func(t *Tasks) *time.Duration { return &t.DetachAfter },
}

// decodeTasks stores "tasks": true, false (none), or an object of
// durations.
func (r *rawServer) decodeTasks(f member) (off int, field, msg string) {
	switch string(f.val) {
	case "true":
		r.tasks = &Tasks{}
		return 0, "", ""
	case "false":
		r.tasks = nil
		return 0, "", ""
	}
	ms, ok := members(f.val, f.valOff)
	if !ok {
		return f.valOff, f.key, "must be true, false or an object of durations"
	}
	t := &Tasks{}
	seen := map[string]bool{}
	for _, m := range ms {
		field := "tasks." + m.key
		at, known := taskFields[m.key]
		switch {
		case !known:
			return m.keyOff, field, "unknown setting (pollInterval, minPollInterval, maxPollInterval, timeout, detachAfter)"
		case seen[m.key]:
			return m.keyOff, field, "duplicate setting"
		}
		seen[m.key] = true
		text, ok := jsonString(m.val)
		if !ok {
			return m.valOff, field, `must be a duration such as "30s"`
		}
		d, err := time.ParseDuration(text)
		switch {
		case err != nil:
			return m.valOff, field, fmt.Sprintf(`must be a duration such as "30s" or "2m", not %q`, text)
		case d <= 0:
			return m.valOff, field, "must be positive"
		}
		*at(t) = d
	}
	if t.MinPollInterval > 0 && t.MaxPollInterval > 0 && t.MinPollInterval > t.MaxPollInterval {
		return f.valOff, f.key, "minPollInterval is above maxPollInterval"
	}
	r.tasks = t
	return 0, "", ""
}
