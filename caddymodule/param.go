package caddymodule

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/caddyserver/caddy/v2"

	"github.com/pgrest/caddy-pgrest/ratelimit"
)

// param is one configuration parameter: how it is spelled, read,
// defaulted, checked, shown and documented. The table is params.
type param struct {
	// name is the subdirective, PostgREST's name with `-` written `_`,
	// and the JSON key of the Handler field the value lands in.
	name string
	// aliases are the older names PostgREST still accepts for it.
	aliases []string
	// kind says how a value is read.
	kind kind
	// min is the least value of a kindInt in the Caddyfile.
	min int64
	// empty says what `""` stands for in a list.
	empty emptyRule
	// db says the in-database configuration may set it (pgrst.<name>),
	// as PostgREST's list of such settings says, or pgrest's own choice
	// for pgrest's own parameters.
	db bool
	// dbEmpty is what an empty pgrst.<name> reads as, when it is not
	// "no value".
	dbEmpty string
	// def is the default, of the field's type (the pointed-to type for
	// a pointer field), applied when the configuration leaves the field
	// zero; nil for none.
	def any
	// defElsewhere says def is applied by the executor when the field
	// is zero, not by applyDefaults: it is only documented here.
	defElsewhere bool
	// defDoc is the default as the README says it, where def does not
	// say it.
	defDoc string
	// enum are the values Validate accepts; empty for any.
	enum []string
	// check is what Validate checks beyond enum, once defaults are
	// applied; its error names the parameter.
	check func(*Handler) error
	// secret says how /pgrest/config shows the value; atFile that the
	// value may be an @path naming the file that holds it.
	secret secretKind
	atFile bool
	// pgrest says the parameter is pgrest's own, not PostgREST's.
	pgrest bool
	// caddy, when set, says the concern is Caddy's: the subdirective is
	// refused with this text, which names the Caddy directive to use.
	caddy string
	// doc is what the README's table says of it.
	doc string
}

// kind is how a parameter's value is written.
type kind int

const (
	kindNone           kind = iota // refused: Caddy's concern
	kindString                     // one value
	kindList                       // names as arguments, comma-separated, or both
	kindURIs                       // connection strings as arguments (a URI may hold commas)
	kindBool                       // true or false
	kindInt                        // an integer of at least min
	kindDuration                   // more than 0: whole seconds or a Caddy duration
	kindDurationOrZero             // kindDuration, or 0 for none
	kindSize                       // bytes or a humanized size such as 10MB
	kindAppSettings                // name=value pairs, a block, or app.settings.<name> <value>
	kindRateLimit                  // a named block, once per limit
)

// emptyRule says what `""` stands for in a list parameter.
type emptyRule int

const (
	// emptyIsDefault: `""` is refused in the Caddyfile; an empty
	// in-database value is no value, so the default applies.
	emptyIsDefault emptyRule = iota
	// emptyIsNone: `""` is the empty list, in the Caddyfile and in the
	// database, as PostgREST's "emptyable" settings read it.
	emptyIsNone
	// emptyIsNoneInCaddyfile: `""` is the empty list in the Caddyfile;
	// an empty in-database value is no value, as PostgREST reads it.
	emptyIsNoneInCaddyfile
)

// secretKind says how the admin API shows a parameter's value.
type secretKind int

const (
	secretNone       secretKind = iota
	secretKey                   // shown only as a placeholder (or @path), else REDACTED
	secretConnString            // a connection string: its passwords REDACTED
)

// appSettingPrefix starts the PostgREST form of an app setting,
// `app.settings.<name> <value>`, accepted beside app_settings.
const appSettingPrefix = "app.settings."

func isAppSettingParam(name string) bool {
	return strings.HasPrefix(name, appSettingPrefix) && len(name) > len(appSettingPrefix)
}

// paramIndex finds a parameter by name or alias.
var paramIndex = func() map[string]*param {
	m := make(map[string]*param)
	for i := range params {
		p := &params[i]
		for _, n := range append([]string{p.name}, p.aliases...) {
			if m[n] != nil {
				panic("caddymodule: parameter " + n + " is in the table twice")
			}
			m[n] = p
		}
	}
	return m
}()

// lookupParam returns the parameter a subdirective names: by its name,
// an alias, or, for app_settings, PostgREST's app.settings.<name>.
func lookupParam(sub string) (*param, bool) {
	if isAppSettingParam(sub) {
		sub = "app_settings"
	}
	p, ok := paramIndex[sub]
	return p, ok
}

// handlerFields are the Handler's fields by JSON key, embedded
// structs' fields included: where each parameter lands.
var handlerFields = func() map[string][]int {
	m := make(map[string][]int)
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Handler]()) {
		if key, _, _ := strings.Cut(f.Tag.Get("json"), ","); key != "" && key != "-" && f.IsExported() && !f.Anonymous {
			m[key] = f.Index
		}
	}
	return m
}()

// field is the Handler field p lands in.
func (p *param) field(h *Handler) reflect.Value {
	return reflect.ValueOf(h).Elem().FieldByIndex(handlerFields[p.name])
}

// set stores v, converted to the field's type, in the field p lands in;
// a pointer field gets a new value to point to.
func (p *param) set(h *Handler, v any) {
	f := p.field(h)
	rv := reflect.ValueOf(v)
	if f.Kind() == reflect.Pointer {
		ptr := reflect.New(f.Type().Elem())
		ptr.Elem().Set(rv.Convert(f.Type().Elem()))
		f.Set(ptr)
		return
	}
	if rv.Kind() == reflect.Slice {
		rv = reflect.ValueOf(slices.Clone(v.([]string)))
	}
	f.Set(rv.Convert(f.Type()))
}

// fieldTypes are the Go types each kind may land in.
var fieldTypes = map[kind][]reflect.Type{
	kindString:         {reflect.TypeFor[string]()},
	kindList:           {reflect.TypeFor[[]string]()},
	kindURIs:           {reflect.TypeFor[[]string]()},
	kindBool:           {reflect.TypeFor[bool](), reflect.TypeFor[*bool]()},
	kindInt:            {reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[*int]()},
	kindDuration:       {reflect.TypeFor[caddy.Duration]()},
	kindDurationOrZero: {reflect.TypeFor[caddy.Duration]()},
	kindSize:           {reflect.TypeFor[int64]()},
	kindAppSettings:    {reflect.TypeFor[map[string]string]()},
	kindRateLimit:      {reflect.TypeFor[[]ratelimit.Definition]()},
}

// checkParamTable says where the table and the Handler disagree: a
// parameter without a field, or in a field of another type than its
// kind reads, a default of another type, or a field without a
// parameter. The tests run it.
func checkParamTable() error {
	seen := map[string]bool{}
	for i := range params {
		p := &params[i]
		if p.caddy != "" {
			if p.kind != kindNone {
				return fmt.Errorf("%s: refused for Caddy, yet has a kind", p.name)
			}
			continue
		}
		idx, ok := handlerFields[p.name]
		if !ok {
			return fmt.Errorf("%s: no Handler field has the JSON key %q", p.name, p.name)
		}
		seen[p.name] = true
		t := reflect.TypeFor[Handler]().FieldByIndex(idx).Type
		if !slices.Contains(fieldTypes[p.kind], t) {
			return fmt.Errorf("%s: a field of type %s cannot hold its kind", p.name, t)
		}
		if p.def != nil {
			dt := t
			if t.Kind() == reflect.Pointer {
				dt = t.Elem()
			}
			if !reflect.TypeOf(p.def).ConvertibleTo(dt) {
				return fmt.Errorf("%s: default %v is not a %s", p.name, p.def, dt)
			}
		}
	}
	for key := range handlerFields {
		if !seen[key] {
			return fmt.Errorf("Handler field %q is no parameter of the table", key)
		}
	}
	return nil
}
