package tasks

import (
	"encoding/json"
	"time"

	gridwire "github.com/cuca-go/mcpconnector/internal/core/wire"
	"github.com/cuca-go/mcpconnector/messages"
)

// Call is the tasks extension's state of a call (messages.CallTool.Ext).
// Its JSON is its wire form.
type Call struct {
	// Deadline, if not zero, replaces the call's Deadline once the server
	// has answered it with a task: a task may run far longer than a quick
	// call. It names Limit when it passes.
	Deadline time.Time `json:"deadline,omitzero"`
	Limit    string    `json:"limit,omitempty"`
	// Want asks for a messages.CallTask when the server answers the call
	// with a task (a plugin's detached hook calls, and a grid facade's
	// link, which follows its calls' tasks from member to member).
	Want bool `json:"want,omitempty"`
	// Resume, if set, is a task the server answered this call with
	// already: the connection does not send tools/call (the tool is not
	// run again) but resumes polling the task from this state. The
	// extension sets it on a call it hands back when its session was lost
	// while the task ran; a program sets it to resume a task it kept
	// (plugin.McpPlugin.ResumeTask). The call's Name is the tool the task
	// runs.
	Resume *messages.TaskState `json:"resume,omitempty"`
}

var _ messages.CallExt = (*Call)(nil)

func init() {
	gridwire.RegisterCallExt(Extension, func(state []byte) (messages.CallExt, error) {
		c := new(Call)
		if err := json.Unmarshal(state, c); err != nil {
			return nil, err
		}
		return c, nil
	})
}

// ExtName is the extension's name.
func (c *Call) ExtName() string { return Extension }

// Resumes reports whether the call resumes a task.
func (c *Call) Resumes() bool { return c.Resume != nil }

// CallOf is msg's state in the tasks extension, nil for none.
func CallOf(msg *messages.CallTool) *Call {
	c, _ := msg.Ext.(*Call)
	return c
}

// Set is msg's state in the tasks extension, made when it has none: a
// call's message is its sender's until sent, which alone sets it.
func Set(msg *messages.CallTool) *Call {
	if c := CallOf(msg); c != nil {
		return c
	}
	c := new(Call)
	msg.Ext = c
	return c
}

// With is a copy of msg whose state in the tasks extension is a copy of
// msg's (or a new one) changed by change: a message sent is shared, and
// never changed.
func With(msg *messages.CallTool, change func(*Call)) *messages.CallTool {
	m := *msg
	var c Call
	if x := CallOf(msg); x != nil {
		c = *x
	}
	change(&c)
	m.Ext = &c
	return &m
}

// Resuming is a copy of msg that resumes task st, with the rest of the
// tasks extension's state of msg.
func Resuming(msg *messages.CallTool, st *messages.TaskState) *messages.CallTool {
	return With(msg, func(c *Call) { c.Resume = st })
}

// resumed is the task msg resumes, nil for none.
func resumed(msg *messages.CallTool) *messages.TaskState {
	if c := CallOf(msg); c != nil {
		return c.Resume
	}
	return nil
}
