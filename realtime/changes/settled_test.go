package changes

import "testing"

func TestSettled(t *testing.T) {
	const epoch = int64(3) << 32
	for _, c := range []struct {
		name string
		xid  uint32
		xmax int64
		xip  []int64
		want bool
	}{
		{"below xmax, not running", 100, epoch | 101, nil, true},
		{"at xmax: not completed", 101, epoch | 101, nil, false},
		{"above xmax", 150, epoch | 101, nil, false},
		{"below xmax but running", 100, epoch | 110, []int64{epoch | 99, epoch | 100}, false},
		{"running others only", 100, epoch | 110, []int64{epoch | 105}, true},
		// xmax has wrapped into the next epoch; the xid is from the last.
		{"across the wrap, completed", 0xFFFFFFF0, (epoch + 1<<32) | 5, nil, true},
		{"across the wrap, running", 0xFFFFFFF0, (epoch + 1<<32) | 5, []int64{epoch | 0xFFFFFFF0}, false},
		{"after the wrap, not completed", 7, (epoch + 1<<32) | 5, nil, false},
	} {
		if got := settled(c.xid, c.xmax, c.xip); got != c.want {
			t.Errorf("%s: settled(%d, %#x, %v) = %v, want %v", c.name, c.xid, c.xmax, c.xip, got, c.want)
		}
	}
}
