package benchmarks_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cuca-go/mcpconnector/benchmarks"
)

// RepoRoot passes over this module's own go.mod to the main module's, the
// repository's root, where interop/setup.sh and docs/ are.
func TestRepoRootIsTheMainModulesDirectory(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	root, err := benchmarks.RepoRoot()
	require.NoError(t, err)
	assert.Equal(t, filepath.Dir(wd), root, "the benchmarks module is nested one level below the main module")
	assert.FileExists(t, filepath.Join(root, "interop", "setup.sh"))
	assert.FileExists(t, filepath.Join(root, "docs", "benchmarks-table.md"))

	t.Chdir(t.TempDir())
	_, err = benchmarks.RepoRoot()
	assert.Error(t, err, "no main module above a temporary directory")
}
