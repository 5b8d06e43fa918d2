package caddymodule

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// dbConfigNames are the parameters the in-database configuration may
// set, as pgrst.<name>: those of the table marked db.
func dbConfigNames() []string {
	var names []string
	for _, p := range params {
		if p.db {
			names = append(names, p.name)
		}
	}
	return names
}

// withDBSettings returns a copy of h with the in-database settings
// (by name, without the pgrst. prefix) laid over it, defaults applied.
// Values are read as PostgREST reads them: lists comma-separated, booleans
// true or false in any case (or a number, non-zero for true), durations
// whole seconds. An empty value stands for no value: the default applies,
// except where the table says otherwise (db_extra_search_path's is the
// empty list, db_schemas' is public). Caddy placeholders are not resolved
// in them. A name the table does not mark db is ignored.
func (h Handler) withDBSettings(settings map[string]string) (*Handler, error) {
	eff := h
	names := make([]string, 0, len(settings))
	for n := range settings {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, name := range names {
		p, ok := paramIndex[name]
		if !ok || !p.db || p.name != name {
			continue
		}
		if err := p.setFromDB(&eff, settings[name]); err != nil {
			return nil, fmt.Errorf("pgrst.%s: %w", name, err)
		}
	}
	eff.applyDefaults()
	return &eff, nil
}

// setFromDB sets p in h from its in-database value v.
func (p *param) setFromDB(h *Handler, v string) error {
	if v == "" && p.dbEmpty != "" {
		v = p.dbEmpty
	}
	if v == "" && p.empty != emptyIsNone {
		p.field(h).SetZero()
		return nil
	}
	var val any
	var err error
	switch p.kind {
	case kindString:
		val = v
	case kindList:
		val = dbList(v)
	case kindBool:
		val, err = dbBool(v, false)
	case kindInt:
		val, err = dbInt(v)
	case kindDuration, kindDurationOrZero:
		var n int64
		n, err = dbInt(v)
		val = caddy.Duration(time.Duration(n) * time.Second)
	default:
		return fmt.Errorf("cannot be set in the database")
	}
	if err != nil {
		return err
	}
	p.set(h, val)
	return nil
}

// dbList reads a comma-separated list; an empty value is the empty list.
func dbList(v string) []string {
	out := []string{}
	if strings.TrimSpace(v) == "" {
		return out
	}
	for part := range strings.SplitSeq(v, ",") {
		out = append(out, strings.TrimSpace(part))
	}
	return out
}

// dbBool reads a boolean the way PostgREST does: true or false in any
// case, or a number, non-zero for true. Empty is def.
func dbBool(v string, def bool) (bool, error) {
	if v == "" {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		return n > 0, nil
	}
	return false, fmt.Errorf("expected true or false, got %q", v)
}

// dbInt reads an integer; empty is 0, which means the default.
func dbInt(v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", v)
	}
	return n, nil
}
