package schemacache

import "testing"

func TestSetSettingReplacesBySameName(t *testing.T) {
	var s []Setting
	s = setSetting(s, Setting{"statement_timeout", "3s"})
	s = setSetting(s, Setting{"work_mem", "8MB"})
	// The role's setting in this database, read after its general one.
	s = setSetting(s, Setting{"statement_timeout", "200ms"})
	if len(s) != 2 || s[0] != (Setting{"statement_timeout", "200ms"}) || s[1] != (Setting{"work_mem", "8MB"}) {
		t.Errorf("got %v", s)
	}
}
