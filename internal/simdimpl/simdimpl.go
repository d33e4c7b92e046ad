// Package simdimpl runs package simd with another implementation, for this module only.
//
// The module's tests and benchmarks, and bogdbench kernels, run package simd's
// kernels with an implementation other than the one chosen at start, without a
// switch reachable from other modules.
//
// Package simd registers, at start, the bool that selects each of its
// vector implementations (its dispatch calls the implementation whose bool
// is true, the generic code when none is) and whether the CPU and the build
// can run it; Select flips those bools and returns a function that flips
// them back (the model is Go's crypto/internal/impl). Selecting is a write
// that every kernel call reads: nothing may run kernels on other goroutines
// between a Select and its restore.
package simdimpl

import (
	"fmt"
	"strings"
)

// implementation is one registered implementation.
type implementation struct {
	name      string
	toggle    *bool // nil for the base implementation: every toggle false
	available bool
}

// registry holds the implementations of one dispatch.
type registry []implementation

// registered is package simd's registry.
var registered registry

// Register records the implementation name, which the dispatch calls while
// *toggle is true, and whether it can run here. A nil toggle registers the
// base implementation, which the dispatch calls when every toggle is false.
// Package simd calls Register from its initialisation only.
func Register(name string, toggle *bool, available bool) {
	registered = append(registered, implementation{name: name, toggle: toggle, available: available})
}

// Select makes the implementation name the one the dispatch calls: its
// toggle true and every other one false. It returns a function restoring
// every toggle to its value before the call, or an error, changing
// nothing, when name is not registered or cannot run here.
func Select(name string) (restore func(), err error) {
	return registered.selectImpl(name)
}

func (r registry) selectImpl(name string) (restore func(), err error) {
	var chosen *implementation
	names := make([]string, len(r))
	for i := range r {
		names[i] = r[i].name
		if r[i].name == name {
			chosen = &r[i]
		}
	}
	switch {
	case chosen == nil:
		return nil, fmt.Errorf("simd implementation %q is not built in (built in: %s)", name, strings.Join(names, ", "))
	case !chosen.available:
		return nil, fmt.Errorf("simd implementation %q cannot run on this CPU", name)
	}
	saved := make([]bool, len(r))
	for i, impl := range r {
		if impl.toggle != nil {
			saved[i] = *impl.toggle
			*impl.toggle = impl.toggle == chosen.toggle
		}
	}
	return func() {
		for i, impl := range r {
			if impl.toggle != nil {
				*impl.toggle = saved[i]
			}
		}
	}, nil
}
