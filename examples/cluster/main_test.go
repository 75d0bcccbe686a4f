//go:build !race

// Built without -race, as the grid tests are (see grid/main_test.go):
// protoactor-go's cluster has data races of its own.

package main

import (
	"bytes"
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/examples/demoserver"
)

// TestMain doubles as the members and the demo server: run() re-executes
// this test binary for both.
func TestMain(m *testing.M) {
	demoserver.RunIfAsked()
	runMemberIfAsked()
	os.Exit(m.Run())
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	t.Log("\n" + out.String())
	s := out.String()
	first := regexp.MustCompile(`The "calculator" connection lives on member ([BC]);`).FindStringSubmatch(s)
	require.Len(t, first, 2, s)
	host := first[1]
	assert.Contains(t, s, "  add: Add two numbers and return their sum\n")
	assert.Contains(t, s, "  add(21, 21) = 42, served by member "+host+"\n")
	assert.Contains(t, s, "Member "+host+" is killed (SIGKILL).\nA notices at once (reconnecting).\n")
	other := map[string]string{"B": "C", "C": "B"}[host]
	assert.Contains(t, s, "  add(40, 2) = 42, served by member "+other+"\n")
}
