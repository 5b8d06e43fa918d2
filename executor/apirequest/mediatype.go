package apirequest

import (
	"mime"
	"sort"
	"strconv"
	"strings"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// MediaType is a response representation pgrest can produce.
type MediaType int

// Response media types, as PostgREST names them.
const (
	MediaJSON         MediaType = iota // application/json: an array of objects
	MediaSingleObject                  // application/vnd.pgrst.object+json: exactly one object
	MediaCSV                           // text/csv
	MediaOpenAPI                       // application/openapi+json (the root)
	MediaGeoJSON                       // application/geo+json: a FeatureCollection (PostGIS)
	MediaHandler                       // a media type handler's output (Representation.Handler)
)

// Representation is the negotiated response format.
type Representation struct {
	Media MediaType
	// StripNulls drops null-valued keys (the nulls=stripped parameter).
	StripNulls bool
	// Handler renders MediaHandler.
	Handler *schemacache.MediaHandler
	// PostGISSchema is where ST_AsGeoJSON lives, for MediaGeoJSON.
	PostGISSchema string
}

// ContentType is the Content-Type header of the representation.
func (r Representation) ContentType() string {
	switch r.Media {
	case MediaSingleObject:
		// PostgREST writes the parameter without a space before it.
		if r.StripNulls {
			return "application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"
		}
		return "application/vnd.pgrst.object+json; charset=utf-8"
	case MediaCSV:
		return "text/csv; charset=utf-8"
	case MediaOpenAPI:
		return "application/openapi+json; charset=utf-8"
	case MediaGeoJSON:
		return "application/geo+json; charset=utf-8"
	case MediaHandler:
		return r.Handler.ContentType()
	}
	if r.StripNulls {
		return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
	}
	return "application/json; charset=utf-8"
}

// acceptItem is one media range of an Accept header.
type acceptItem struct {
	typ    string
	params map[string]string
	q      float64
	// specificity orders ranges of equal q as PostgREST's parser does:
	// the number of parameters less the number of wildcards, higher first.
	specificity int
}

// MediaRange is one media range of an Accept header: the type in lower
// case, its parameters (q removed) and its quality.
type MediaRange struct {
	Type   string
	Params map[string]string
	Q      float64
}

// ParseAccept reads an Accept header's media ranges in the order they are
// to be tried: by quality, then the more specific first, then as written.
func ParseAccept(accept string) []MediaRange {
	if out := AppendAccept(nil, accept); out != nil {
		return out
	}
	return []MediaRange{} // empty, not nil, as it always was
}

// AppendAccept appends ParseAccept(accept) to dst: a caller with room of
// its own (an array on its stack) reads the usual one-range header
// without an allocation.
func AppendAccept(dst []MediaRange, accept string) []MediaRange {
	if one := strings.TrimSpace(accept); !strings.Contains(one, ",") && simpleMediaType(one) {
		// One bare range, as most clients send: what parseAccept gives
		// for it, without its list.
		return append(dst, MediaRange{Type: one, Q: 1})
	}
	for _, it := range parseAccept(accept) {
		dst = append(dst, MediaRange{Type: it.typ, Params: it.params, Q: it.q})
	}
	return dst
}

// Negotiate picks the representation for an Accept header among offered,
// in the client's order of preference (q values, then position). An
// empty header or */* takes the first offered. Nothing acceptable is 406
// PGRST107 naming what the client asked for.
func Negotiate(accept string, offered []MediaType) (Representation, *apierr.Error) {
	items := parseAccept(accept)
	if len(items) == 0 {
		return Representation{Media: offered[0]}, nil
	}
	for _, it := range items {
		if it.q <= 0 {
			continue
		}
		for _, m := range offered {
			if rep, ok := matches(it, m); ok {
				return rep, nil
			}
		}
	}
	names := make([]string, 0, len(items))
	for _, it := range items {
		name, isPlan := planAcceptName(it)
		if !isPlan {
			name = it.typ
		}
		names = append(names, name)
	}
	return Representation{}, apierr.NotAcceptable(names)
}

// matches says whether the media range it accepts m.
func matches(it acceptItem, m MediaType) (Representation, bool) {
	strip := it.params["nulls"] == "stripped"
	switch it.typ {
	case "*/*":
		return Representation{Media: m}, true
	case "application/*":
		return Representation{Media: m}, m == MediaJSON || m == MediaOpenAPI
	case "text/*":
		return Representation{Media: m}, m == MediaCSV
	case "application/json":
		return Representation{Media: MediaJSON}, m == MediaJSON
	case "application/vnd.pgrst.array+json", "application/vnd.pgrst.array":
		return Representation{Media: MediaJSON, StripNulls: strip}, m == MediaJSON
	case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
		return Representation{Media: MediaSingleObject, StripNulls: strip}, m == MediaSingleObject
	case "text/csv":
		return Representation{Media: MediaCSV}, m == MediaCSV
	case "application/openapi+json":
		return Representation{Media: MediaOpenAPI}, m == MediaOpenAPI
	}
	return Representation{}, false
}

// parseAccept reads media ranges, sorted by q (stable on position).
func parseAccept(accept string) []acceptItem {
	var items []acceptItem
	for part := range strings.SplitSeq(accept, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if simpleMediaType(part) {
			// What ParseMediaType would return, without its map: no
			// parameters, so quality 1 and nothing to strip.
			items = append(items, acceptItem{typ: part, q: 1, specificity: -strings.Count(part, "*")})
			continue
		}
		typ, params, err := mime.ParseMediaType(part)
		if err != nil {
			// Read what PostgREST reads of it; else keep the bare type so
			// the 406 names what was asked.
			var ok bool
			if typ, params, ok = tokenizeMediaType(part); !ok {
				typ, params = strings.ToLower(strings.TrimSpace(strings.Split(part, ";")[0])), map[string]string{}
			}
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		delete(params, "q")
		items = append(items, acceptItem{typ: typ, params: params, q: q,
			specificity: strings.Count(part, ";") - qParams(part) - strings.Count(typ, "*")})
	}
	if len(items) < 2 {
		return items
	}
	sort.SliceStable(items, func(a, b int) bool {
		x, y := items[a], items[b]
		if x.q != y.q {
			return x.q > y.q
		}
		return x.specificity > y.specificity
	})
	return items
}

// simpleMediaType says whether part is a bare media range, type/subtype
// in lower case without parameters, as most clients send it: a range
// mime.ParseMediaType would return unchanged, with no parameters.
func simpleMediaType(part string) bool {
	slash := strings.IndexByte(part, '/')
	if slash <= 0 || slash == len(part)-1 {
		return false
	}
	for i := 0; i < len(part); i++ {
		c := part[i]
		switch {
		case i == slash:
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// qParams counts the q parameters of a media range, which say its quality,
// not how specific it is.
func qParams(part string) int {
	n := 0
	for p := range strings.SplitSeq(part, ";") {
		if k, _, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			n++
		}
	}
	return n
}
