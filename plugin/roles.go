package plugin

import (
	"fmt"
	"strings"
)

// role is where an option may take effect: on a plugin that spawns its own
// connection ([Connect], [Start]), on a facade over an actor it did not
// spawn (grid.Connect, [Follow]), or on the supervisor another package spawns from
// [SupervisorConfigOf] (a grain's hosting member). An option given where
// it has no effect fails with [ErrValidation] naming it, instead of doing
// nothing.
type role uint8

const (
	roleLocal role = 1 << iota
	roleFacade
	roleHost

	roleAll  = roleLocal | roleFacade | roleHost
	roleCall = roleLocal | roleFacade // the options of calls
	roleConn = roleLocal | roleHost   // the options of the connection itself
)

func (r role) String() string {
	switch r {
	case roleLocal:
		return "a plugin that spawns its connection (Connect, Start)"
	case roleFacade:
		return "a facade over an actor it did not spawn (grid.Connect)"
	default:
		return "a supervisor's hosting member (SupervisorConfigOf)"
	}
}

// given is an option that was passed, by name, with where it takes effect.
type given struct {
	name  string
	roles role
}

// note records that the option name was passed.
func (o *options) note(name string, roles role) {
	o.given = append(o.given, given{name, roles})
}

// misplaced is the validation error naming every option passed that has
// no effect in r, or nil.
func (o *options) misplaced(r role, server, op string) *Error {
	var names []string
	for _, g := range o.given {
		if g.roles&r == 0 && !contains(names, g.name) {
			names = append(names, g.name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	return &Error{Kind: KindValidation, Server: server, Op: op,
		Err: fmt.Errorf("option %s has no effect on %s", strings.Join(names, ", "), r)}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}
