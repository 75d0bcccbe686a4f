package toolbox_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/cuca-go/mcpconnector/internal/testserver"
)

func TestMain(m *testing.M) {
	testserver.RunIfChild()
	goleak.VerifyTestMain(m)
}
