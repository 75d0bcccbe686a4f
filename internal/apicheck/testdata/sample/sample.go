// Package sample is a synthetic package for the lister's tests: its
// listing is written out by hand in ../sample.txt.
package sample

import (
	"context"
	"errors"
	"io"
	"time"
)

// Kind is a defined type with an iota group.
type Kind int

// The kinds: typed by the first spec, repeated by the others.
const (
	KindUnknown Kind = iota
	KindInternal
	kindHidden
	KindIO
)

// An untyped iota group.
const (
	A = iota * 10
	B
)

// DefaultTimeout is an untyped const with an expression.
const DefaultTimeout = 5 * time.Minute

// Limit is a typed const.
const Limit int64 = 1 << 20

// A group that repeats a value without iota.
const (
	First = "x"
	Second
)

// ErrX is a var with an expression.
var ErrX = errors.New("sample: x")

// Hook is a var with a type.
var Hook func(ctx context.Context, name string) error

var hidden = 1

// Base is an alias.
type Base = io.Reader

// Error is a struct with exported, unexported and embedded fields.
type Error struct {
	Kind     Kind
	Op, Path string
	err      error
	io.Writer
	*Inner
	inner
}

// Error is a method of an exported type.
func (e *Error) Error() string { return e.Op }

func (e *Error) unexported() {}

// Inner is embedded in Error.
type Inner struct {
	Depth int
}

type inner struct{}

// Exported is a method of an unexported type: not listed.
func (inner) Exported() int { return hidden }

// Link is an interface with an embedded interface and an unexported
// method.
type Link interface {
	io.Closer
	Call(ctx context.Context, name string, args ...any) (result []byte, err error)
	Wait(done <-chan struct{}, out chan<- int) bool
	private()
}

// Number is a constraint.
type Number interface {
	~int | ~float64
}

// Empty is an empty interface.
type Empty interface{}

// Set is a generic type.
type Set[T comparable] struct {
	Items map[T]struct{}
}

// Add is a method of a generic type.
func (s *Set[T]) Add(v T) bool { return false }

// Map is a generic func with grouped type parameters.
func Map[T, U any](in []T, f func(T) U) []U { return nil }

// Sum has a variadic parameter and a named result.
func Sum[N Number](xs ...N) (total N) { return total }

// Connect returns two results.
func Connect(ctx context.Context, opts ...Option) (*Error, error) { return nil, nil }

// Option is a func type of an unexported type.
type Option func(*options)

type options struct{}

func helper() {}

// Callback drops its parameter and result names.
type Callback func(a, b int, name string) (ok bool, err error)

// Matrix is an array type.
type Matrix [2][3]float64

// Inline has fields of types written inline.
type Inline struct {
	Meta struct {
		N int
		s string
	}
	Iface interface {
		M(x int) error
	}
}
