// Package sub is a package of the adapter module.
package sub
