package intern

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestInternKeepsTheFirstValueOfAKeyUpToMax(t *testing.T) {
	tab := Table[*int]{Max: 1}
	a, b, c := new(int), new(int), new(int)
	assert.Same(t, a, tab.Intern("k", a))
	assert.Same(t, a, tab.Intern("k", b), "the kept value")
	assert.Same(t, c, tab.Intern("other", c), "no room: returned, not kept")
	assert.Same(t, b, tab.Intern("other", b), "still not kept")
}
