package caddymodule

import (
	"fmt"
	"slices"
	"strings"
)

// applyDefaults fills in what the config leaves out, from the table's
// defaults: a field still zero gets its parameter's default.
func (h *Handler) applyDefaults() {
	for i := range params {
		p := &params[i]
		if p.def == nil || p.defElsewhere || !p.field(h).IsZero() {
			continue
		}
		p.set(h, p.def)
	}
}

// Validate checks the configuration once defaults are applied, as the
// table says: each parameter's values (enum) and its own check, in the
// table's order, then the checks that span parameters. It only looks at
// the fields; placeholders are resolved later, in Provision.
func (h Handler) Validate() error {
	for i := range params {
		p := &params[i]
		if err := p.validate(&h); err != nil {
			return err
		}
	}
	return h.checkTogether()
}

// validate checks one parameter of h. A value out of enum is refused,
// empty included when the parameter has a default to fill it.
func (p *param) validate(h *Handler) error {
	if len(p.enum) > 0 {
		v := p.field(h).String()
		if (v != "" || p.def != nil && !p.defElsewhere) && !slices.Contains(p.enum, v) {
			return fmt.Errorf("%s: must be %s, got %q", p.name, oneOf(p.enum), v)
		}
	}
	if p.check != nil {
		return p.check(h)
	}
	return nil
}

// oneOf writes the values of an enum as the error messages say them:
// "a or b", or "one of a, b, c".
func oneOf(values []string) string {
	if len(values) == 2 {
		return values[0] + " or " + values[1]
	}
	return "one of " + strings.Join(values, ", ")
}
