// Package benchmarks is excluded.
package benchmarks
