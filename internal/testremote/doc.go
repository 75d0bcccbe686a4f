// Package testremote starts protoactor-go remotes on loopback for the
// tests of packages whose messages cross members, and shuts them down
// around a race of protoactor's own.
package testremote
