// Package tree is the root package of a synthetic module.
package tree
