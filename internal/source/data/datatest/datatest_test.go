package datatest

import "testing"

// TestCacheLoadsOnce: the value is built once from Root and shared.
func TestCacheLoadsOnce(t *testing.T) {
	t.Parallel()
	var c Cache[string]
	calls := 0
	load := func(root string) (string, error) {
		calls++
		return root, nil
	}
	a, b := c.Get(t, load), c.Get(t, load)
	if a != Root(t) || b != a || calls != 1 {
		t.Errorf("Get = %q, %q after %d loads; want Root (%q) from one load", a, b, calls, Root(t))
	}
}
