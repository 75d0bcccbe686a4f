package toolsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func doc(server, name, desc string) Doc {
	return Doc{Server: server, Prefix: server + "__", Words: Words(Tool{Name: name, Description: desc})}
}

// TestTwinsFollowTheToolTheyShareANameWith checks that a tool of the same
// name on another server is loaded right after the one that ranked, when
// it scores at least Knobs.Twins of it, and not without the rule.
func TestTwinsFollowTheToolTheyShareANameWith(t *testing.T) {
	docs := []Doc{
		doc("desk", "list_directory", "List the entries of a directory"),
		doc("desk", "directory_entries", "Entries of a directory, listed"),
		doc("desk", "read_entries", "Read the entries of a directory"),
		doc("fs", "list_directory", "Shows what a folder holds, in the order the disk keeps them, with their kinds"),
		doc("fs", "read_file", "Read a file"),
		doc("fs", "write_file", "Write a file"),
	}
	query := "list directory entries"
	off := Defaults
	off.Twins = 0
	assert.Equal(t, []int{2, 0, 1, 3, 4}, NewIndex(docs, off).Search(query, 6))
	assert.Equal(t, []int{2, 0, 3}, NewIndex(docs, Defaults).Search(query, 3), "fs's list_directory follows desk's")
	high := Defaults
	high.Twins = 10
	assert.Equal(t, []int{2, 0, 1}, NewIndex(docs, high).Search(query, 3), "a twin scoring under Twins of the tool stays where it ranks")
}
