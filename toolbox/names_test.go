package toolbox

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// openAIName is the pattern OpenAI-compatible APIs hold tool names to.
var openAIName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func TestExposedName(t *testing.T) {
	a55 := strings.Repeat("a", 55)
	cases := []struct {
		name, prefix, tool, want string
	}{
		{"plain", "github__", "search_issues", "github__search_issues"},
		{"hyphen kept", "", "list-files", "list-files"},
		{"raw prefix", "", "read", "read"},
		{"dots slashes spaces", "my.server__", "fs/read file", "my_server__fs_read_file"},
		{"one _ per rune", "srv__", "héllo", "srv__h_llo"},
		{"wide runes", "", "日本", "__"},
		{"emoji", "", "a😀b", "a_b"},
		{"one _ per invalid byte", "", "a\xff\xfeb", "a__b"},
		{"empty tool", "p__", "", "p__"},
		{"empty", "", "", "_"},
		{"exactly 64", "", strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{"64 runes sanitised", "", strings.Repeat("é", 64), strings.Repeat("_", 64)},
		// The suffix hashes the unsanitised name (FNV-1a 32): pinned so that
		// a name a model has seen stays the same across releases.
		{"65 is cut", "", strings.Repeat("a", 65), a55 + "_2dd603ec"},
		{"long pinned", "github__", strings.Repeat("very_long_tool_name_", 5),
			"github__very_long_tool_name_very_long_tool_name_very_lo_84492439"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := exposedName(c.prefix, c.tool)
			assert.Equal(t, c.want, got)
			assert.Regexp(t, openAIName, got)
		})
	}
}

func TestExposedNameLongNamesStayDistinct(t *testing.T) {
	long := strings.Repeat("x", 190)
	pairs := map[string][2]string{
		"differ at the end":         {long + "_a", long + "_b"},
		"differ only in sanitising": {long + ".a", long + "/a"},
		"differ in prefix":          {"p1__" + long, "p2__" + long},
	}
	for name, pair := range pairs {
		t.Run(name, func(t *testing.T) {
			a, b := exposedName("", pair[0]), exposedName("", pair[1])
			assert.NotEqual(t, a, b)
			for _, n := range []string{a, b} {
				assert.Len(t, n, maxNameLength)
				assert.Regexp(t, openAIName, n)
			}
		})
	}
	t.Run("200 characters", func(t *testing.T) {
		got := exposedName("srv__", strings.Repeat("t", 195))
		assert.Len(t, got, maxNameLength)
		assert.Equal(t, "srv__"+strings.Repeat("t", 50)+"_", got[:56])
		assert.Equal(t, got, exposedName("srv__", strings.Repeat("t", 195)), "stable")
	})
	t.Run("prefix and tool split anywhere give the same name", func(t *testing.T) {
		assert.Equal(t, exposedName("ab", long), exposedName("a", "b"+long))
	})
}
