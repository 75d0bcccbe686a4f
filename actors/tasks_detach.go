package actors

import (
	"github.com/cuca-go/mcpconnector/internal/core/tasks"
	"github.com/cuca-go/mcpconnector/messages"
)

// taskStarted tells the sender of cl, when it asked (messages.CallTool's
// WantTask), that the server answered with task t: a plugin's hook call
// may then return while the task runs on (plugin.TaskOptions.DetachAfter).
func (c *mcpConnection) taskStarted(cl *call, t *tasks.Task) {
	if cl.msg.WantTask && cl.sender != nil {
		c.cfg.Deliver(c.system, cl.sender, &messages.CallTask{ID: cl.msg.ID, TaskID: t.ID})
	}
}
