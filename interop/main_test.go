package interop

import (
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	runIfChild()
	goleak.VerifyTestMain(m)
}
