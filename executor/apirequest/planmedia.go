package apirequest

import (
	"slices"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// PlanFormat is the format of an execution plan.
type PlanFormat int

// Plan formats, as the media type's suffix names them.
const (
	PlanText PlanFormat = iota // application/vnd.pgrst.plan and +text
	PlanJSON                   // application/vnd.pgrst.plan+json
)

// PlanOption is an EXPLAIN option a client may ask for.
type PlanOption int

// Plan options, in the order PostgREST lists them.
const (
	PlanAnalyze PlanOption = iota
	PlanVerbose
	PlanSettings
	PlanBuffers
	PlanWAL
)

// planOptionNames are the option words of the options parameter, indexed
// by PlanOption.
var planOptionNames = [...]string{"analyze", "verbose", "settings", "buffers", "wal"}

// Plan is a request for the execution plan of the statement that would
// answer For, instead of its result (Accept: application/vnd.pgrst.plan).
type Plan struct {
	Format PlanFormat
	// For is the media type whose statement is explained, in PostgREST's
	// spelling of it ("application/json" when the client named none).
	For string
	// Options are the options asked for, each once, in PlanOption order.
	Options []PlanOption
}

// ContentType is the Content-Type of the plan response, as PostgREST
// writes it: the format, the media type it is for and the options.
func (p Plan) ContentType() string {
	return p.mime() + "; charset=utf-8"
}

// mime is the plan media type without charset.
func (p Plan) mime() string {
	var b strings.Builder
	b.WriteString("application/vnd.pgrst.plan+")
	if p.Format == PlanJSON {
		b.WriteString("json")
	} else {
		b.WriteString("text")
	}
	b.WriteString(`; for="` + p.For + `"`)
	for i, o := range p.Options {
		if i == 0 {
			b.WriteString("; options=")
		} else {
			b.WriteByte('|')
		}
		b.WriteString(planOptionNames[o])
	}
	return b.String()
}

// NegotiatePlan says whether the client's first acceptable choice is the
// plan of a statement producing one of offered. The Accept header is read
// the way PostgREST reads it: blanks are dropped, a media range's q value
// ends it, and ranges are ordered by q and then by specificity (more
// parameters first, wildcards last). A plan range whose For is not
// offered is passed over, as is any plan range when plans are disabled; a
// range of another type that offered holds ends the search with no plan.
// A header naming a plan with nothing acceptable in it is 406 PGRST107,
// whatever the request: PostgREST refuses it before doing anything.
// handled, when set, says whether a media type handler renders a For that
// offered lacks (the action then negotiates it for its own target).
func NegotiatePlan(accept string, offered []MediaType, enabled bool, handled func(string) bool) (Plan, bool, *apierr.Error) {
	if !strings.Contains(accept, "vnd.pgrst.plan") {
		return Plan{}, false, nil
	}
	for _, r := range planAcceptRanges(accept) {
		if p, isPlan := decodePlan(r); isPlan {
			if enabled && (plannable(p.For, offered) || handled != nil && handled(p.For)) {
				return p, true, nil
			}
			continue
		}
		if plannable(r, offered) {
			return Plan{}, false, nil
		}
	}
	if _, aerr := Negotiate(accept, offered); aerr != nil {
		return Plan{}, false, aerr
	}
	return Plan{}, false, nil
}

// plannable says whether the media range r names something in offered.
func plannable(r string, offered []MediaType) bool {
	items := parseAccept(r)
	if len(items) != 1 {
		return false
	}
	for _, m := range offered {
		if _, ok := matches(items[0], m); ok {
			return true
		}
	}
	return false
}

// planAcceptRanges splits an Accept header as PostgREST's HTTP library
// does, and orders the ranges by (q, parameters minus wildcards), highest
// first, stably.
func planAcceptRanges(accept string) []string {
	type ranked struct {
		r           string
		q           float64
		specificity int
	}
	var rs []ranked
	for part := range strings.SplitSeq(strings.ReplaceAll(accept, " ", ""), ",") {
		r, qs, hasQ := strings.Cut(part, ";q=")
		q := 1.0
		if hasQ {
			qs, _, _ = strings.Cut(qs, ";")
			if f, err := strconv.ParseFloat(qs, 64); err == nil {
				q = f
			}
		}
		if q <= 0 || r == "" {
			continue
		}
		rs = append(rs, ranked{r, q, strings.Count(r, ";") - strings.Count(r, "*")})
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		switch {
		case a.q != b.q:
			if a.q > b.q {
				return -1
			}
			return 1
		default:
			return b.specificity - a.specificity
		}
	})
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.r
	}
	return out
}

// decodePlan reads a plan media range (blanks already dropped) as
// PostgREST's decodeMediaType does: the first for and options parameters
// count, for may be quoted, and unknown options are ignored.
func decodePlan(r string) (Plan, bool) {
	parts := strings.Split(r, ";")
	var forValue, options string
	hasFor, hasOptions := false, false
	for _, param := range parts[1:] {
		if v, ok := strings.CutPrefix(param, "for="); ok && !hasFor {
			forValue, hasFor = strings.Trim(v, `"`), true
		}
		if v, ok := strings.CutPrefix(param, "options="); ok && !hasOptions {
			options, hasOptions = v, true
		}
	}
	return planOf(parts[0], forValue, hasFor, options)
}

// planAcceptName names a plan media range in a PGRST107 message as
// PostgREST does; ok is false for other ranges.
func planAcceptName(it acceptItem) (string, bool) {
	forValue, hasFor := it.params["for"]
	p, ok := planOf(it.typ, forValue, hasFor, it.params["options"])
	return p.mime(), ok
}

// planOf is the plan of media type typ with the given parameters; ok is
// false when typ is not a plan type.
func planOf(typ, forValue string, hasFor bool, options string) (p Plan, ok bool) {
	switch typ {
	case "application/vnd.pgrst.plan", "application/vnd.pgrst.plan+text":
		p.Format = PlanText
	case "application/vnd.pgrst.plan+json":
		p.Format = PlanJSON
	default:
		return Plan{}, false
	}
	p.For = "application/json"
	if hasFor {
		p.For = planForName(forValue)
	}
	words := strings.Split(options, "|")
	for o, name := range planOptionNames {
		if slices.Contains(words, name) {
			p.Options = append(p.Options, PlanOption(o))
		}
	}
	return p, true
}

// planForName is PostgREST's name for the media type a plan is for: the
// vendored array and object types are spelled out in full, and an empty
// one is any.
func planForName(t string) string {
	switch t {
	case "application/vnd.pgrst.object", "application/vnd.pgrst.object+json":
		return "application/vnd.pgrst.object+json"
	case "application/vnd.pgrst.array", "application/vnd.pgrst.array+json":
		return "application/json"
	case "":
		return "*/*"
	}
	return t
}
