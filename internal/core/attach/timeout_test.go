package attach

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/cuca-go/mcpconnector/actors"
)

// TestRelocateTimeoutIsTheConnectDefault keeps a facade's bound on its own
// work after a move at the connection attempt's default bound, which the
// listing on the actor's next home may take: the package keeps its own
// figure so that it needs nothing of package actors.
func TestRelocateTimeoutIsTheConnectDefault(t *testing.T) {
	assert.Equal(t, actors.DefaultConnectTimeout, relocateTimeout)
}
