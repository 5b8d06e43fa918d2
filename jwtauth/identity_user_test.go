package jwtauth

import "testing"

// TestUserValue checks who a request's user is (the sub claim when it is
// a non-empty string, else the role), that the value made with the
// token's byte forms is handed out without an allocation, and that a
// copy whose role or claims were changed gets its own answer.
func TestUserValue(t *testing.T) {
	for _, c := range []struct {
		id   Identity
		want string
	}{
		{Identity{Role: "webuser", Claims: map[string]any{"sub": "user-42"}}, "user-42"},
		{Identity{Role: "webuser", Claims: map[string]any{"sub": ""}}, "webuser"},
		{Identity{Role: "webuser", Claims: map[string]any{"sub": 42}}, "webuser"},
		{Identity{Role: "web_anon"}, "web_anon"},
	} {
		for _, id := range []Identity{c.id, c.id.withBytes()} {
			if got := id.User(); got != c.want {
				t.Errorf("%+v: User %q, want %q", id, got, c.want)
			}
			if got, ok := id.UserValue().(string); !ok || got != c.want {
				t.Errorf("%+v: UserValue %v, want %q", id, id.UserValue(), c.want)
			}
		}
		id := c.id.withBytes()
		if n := testing.AllocsPerRun(100, func() { _ = id.UserValue() }); n != 0 {
			t.Errorf("%+v: UserValue allocates %v times, want none", id, n)
		}
		changed := id
		changed.Role = "other"
		changed.Claims = nil
		if got := changed.UserValue(); got != "other" {
			t.Errorf("a copy with another role: %v, want other", got)
		}
	}
}
