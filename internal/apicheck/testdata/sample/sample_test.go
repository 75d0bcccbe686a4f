package sample

// FromTest is in a test file: not listed.
func FromTest() {}
