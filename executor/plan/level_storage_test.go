package plan

import (
	"testing"
	"unsafe"
)

// TestFilteredLevelFitsItsSizeClass keeps a filtered one-field root, with
// the 8-byte header the allocator adds to objects of pointers larger than
// 512 bytes, within the 576-byte size class: past it the one allocation
// would take 640 bytes, more than the two it replaces (352 and 256).
func TestFilteredLevelFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(filteredOneFieldLevel{}) + 8; n > 576 {
		t.Errorf("filteredOneFieldLevel takes %d bytes with its header, past the 576-byte size class", n)
	}
}
