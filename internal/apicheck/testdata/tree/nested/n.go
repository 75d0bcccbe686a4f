// Package nested is another module.
package nested
