// Package logfield adds the module's common fields to a logger, at no cost
// for a logger that writes nothing.
package logfield
