package executor

import (
	"encoding/hex"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// mediaTarget is what a response renders, for negotiation: the rows of a
// relation (a table's, a view's or those a function returns) or the
// result of a function returning a scalar.
type mediaTarget struct {
	// name is the relation, or the function for a scalar; a function
	// returning rows of no exposed relation is named by its own name.
	name schemacache.QualifiedName
	// defaultSelect is true when the rows keep their relation's shape
	// (no select, or select=*): only then do the relation's own
	// handlers, whose aggregates take its row type, apply.
	defaultSelect bool
	// scalar is true for a function returning one value: its own
	// handlers and JSON render it; the relations' handlers do not.
	scalar bool
}

// negotiateMedia picks the representation for Accept as PostgREST does:
// the media ranges in order of preference, each tried against the vendor
// types (which cannot be overridden), then the target's handlers ("*/*"
// first, which answers anything), then the handlers of every relation,
// then the builtins (JSON, CSV, GeoJSON), which handlers override.
// Nothing acceptable is 406 PGRST107, found before any statement runs.
func negotiateMedia(accept string, cache *schemacache.Cache, t mediaTarget) (apirequest.Representation, *apierr.Error) {
	var room [1]apirequest.MediaRange
	ranges := apirequest.AppendAccept(room[:0], accept)
	if len(ranges) == 0 {
		ranges = []apirequest.MediaRange{{Type: "*/*", Q: 1}}
	}
	for _, mr := range ranges {
		if mr.Q <= 0 {
			continue
		}
		if rep, ok := pickMedia(mr, cache, t); ok {
			return rep, nil
		}
	}
	names := make([]string, 0, len(ranges))
	for _, mr := range ranges {
		names = append(names, mr.Type)
	}
	return apirequest.Representation{}, apierr.NotAcceptable(names)
}

// pickMedia is the representation one media range selects, if any.
func pickMedia(mr apirequest.MediaRange, cache *schemacache.Cache, t mediaTarget) (apirequest.Representation, bool) {
	strip := mr.Params["nulls"] == "stripped"
	typ := mr.Type
	switch typ {
	case "application/vnd.pgrst.object+json", "application/vnd.pgrst.object":
		return apirequest.Representation{Media: apirequest.MediaSingleObject, StripNulls: strip}, true
	case "application/vnd.pgrst.array+json", "application/vnd.pgrst.array":
		if strip {
			return apirequest.Representation{Media: apirequest.MediaJSON, StripNulls: true}, true
		}
		// Without the parameter it is plain JSON, which a handler may
		// override.
		typ = "application/json"
	}
	handler := func(h *schemacache.MediaHandler) apirequest.Representation {
		return apirequest.Representation{Media: apirequest.MediaHandler, Handler: h}
	}
	if t.defaultSelect {
		if h, ok := cache.MediaHandler(t.name, "*/*"); ok && h.Aggregate != t.scalar {
			return handler(h), true
		}
		if h, ok := cache.MediaHandler(t.name, typ); ok && h.Aggregate != t.scalar {
			return handler(h), true
		}
	}
	if !t.scalar {
		if h, ok := cache.MediaHandler(schemacache.QualifiedName{}, typ); ok {
			return handler(h), true
		}
	}
	switch typ {
	case "*/*", "application/json":
		return apirequest.Representation{Media: apirequest.MediaJSON}, true
	case "text/csv":
		return apirequest.Representation{Media: apirequest.MediaCSV}, !t.scalar
	case "application/geo+json":
		// ST_AsGeoJSON is PostGIS's: without it there is no GeoJSON.
		return apirequest.Representation{Media: apirequest.MediaGeoJSON, PostGISSchema: cache.PostGISSchema},
			!t.scalar && cache.PostGISSchema != ""
	}
	return apirequest.Representation{}, false
}

// hasDefaultSelect says whether the select keeps the relation's shape: no
// select, or select=* alone.
func hasDefaultSelect(q *apirequest.Query) bool {
	return len(q.Select) == 1 && q.Select[0].Kind == apirequest.SelectStar
}

// relationTarget is the negotiation target of rel's rows read with q.
func relationTarget(rel *schemacache.Relation, q *apirequest.Query) mediaTarget {
	return mediaTarget{name: schemacache.QualifiedName{Schema: rel.Schema, Name: rel.Name}, defaultSelect: hasDefaultSelect(q)}
}

// decodeHandlerBody turns the hex text of a binary handler's body back into
// its bytes (see sqlgen's handlerText).
func decodeHandlerBody(out *output, rep apirequest.Representation) error {
	if rep.Media != apirequest.MediaHandler || !rep.Handler.Binary || out.body == nil {
		return nil
	}
	b := make([]byte, hex.DecodedLen(len(out.body)))
	if _, err := hex.Decode(b, out.body); err != nil {
		return apierr.Internal("unreadable binary body")
	}
	out.body = b
	return nil
}
