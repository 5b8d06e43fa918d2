package write

import (
	"net/http"
	"testing"
)

// A write with a Prefer: timezone PostgreSQL refuses is its 400 (22023),
// as in PostgREST v16's TimezoneSpec, whatever handling says, and writes
// nothing: the zone is set before the write runs.
func TestPreferTimezoneOnAWrite(t *testing.T) {
	s := startServer(t)
	for _, prefer := range []string{"timezone=Invalid/Timezone", "handling=lenient, timezone=Invalid/Timezone",
		"handling=strict, timezone=Invalid/Timezone", "timezone=05:30:15"} {
		t.Run(prefer+" is 400 22023 and writes nothing", func(t *testing.T) {
			reset(t)
			untouched(t, allTables, func() {
				s.do(t, http.MethodPost, "/items", `{"name":"saw"}`, "Prefer", prefer).expectError(t, http.StatusBadRequest, "22023")
			})
		})
	}
}
