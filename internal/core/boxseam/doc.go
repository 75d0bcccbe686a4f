// Package boxseam is the seam through which a package of this module opens
// a toolbox whose servers' connections live in actors it does not spawn
// (package grid's grains): package toolbox fills WithRemote in, and the
// toolbox then reaches each server through Attach instead of starting it.
package boxseam
