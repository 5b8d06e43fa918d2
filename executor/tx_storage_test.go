package executor

import (
	"testing"
	"unsafe"
)

// TestTxStorageFitsItsSizeClass keeps txStorage, with the 8-byte header
// the allocator adds to objects of pointers larger than 512 bytes,
// within the 640-byte size class: a field more and every request would
// allocate 704 bytes for it, more than the five allocations it replaces.
func TestTxStorageFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(txStorage{}) + 8; n > 640 {
		t.Errorf("txStorage takes %d bytes with its header, past the 640-byte size class", n)
	}
}
