package messages_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// module is this module's path: no package of it may be imported here.
const module = "github.com/cuca-go/mcpconnector/"

// The protocol is plain data: package messages imports no package of this
// module (not transport, auth or the fast path), so that it is the bottom
// of the graph and everything above maps its causes to errors.
func TestMessagesImportsNothingOfThisModule(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	read := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		require.NoError(t, err)
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
		require.NoError(t, err)
		read++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			assert.False(t, strings.HasPrefix(path, module), "%s imports %s", name, path)
		}
	}
	require.NotZero(t, read, "the package's files were read")
}
