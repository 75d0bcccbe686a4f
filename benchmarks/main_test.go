package benchmarks_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunBenchIfChild()
	goleak.VerifyTestMain(m)
}
