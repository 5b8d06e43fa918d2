package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// mediaBody renders the rows _pgrst_t as a media type handler or the
// builtin GeoJSON handler do, as PostgREST renders them.
func mediaBody(rep apirequest.Representation) sqltext.SQL {
	if rep.Media == apirequest.MediaGeoJSON {
		// A FeatureCollection of every row, each a Feature whose geometry
		// is the row's geometry column and whose properties are the rest.
		return sqltext.Fmt("pg_catalog.json_build_object('type', 'FeatureCollection', 'features', "+
			"coalesce(pg_catalog.json_agg(%s(_pgrst_t)::json), '[]'))::text",
			sqltext.Qualified(rep.PostGISSchema, "st_asgeojson"))
	}
	h := rep.Handler
	agg := sqltext.Qualified(h.Function.Schema, h.Function.Name)
	row := sqltext.Const("_pgrst_t")
	if h.Target != (schemacache.QualifiedName{}) {
		// The aggregate takes the relation's row type; the rows have its
		// columns in its order, as only the default select reaches here.
		row = sqltext.Fmt("_pgrst_t::%s", sqltext.QualifiedType(h.Target.Schema, h.Target.Name, 0).SQL())
	}
	return handlerText(h, sqltext.Fmt("%s(%s)", agg, row))
}

// scalarHandlerBody renders a function's one result value, of a media type
// domain, as the body: the value itself, aggregated over the one row.
func scalarHandlerBody(h *schemacache.MediaHandler) sqltext.SQL {
	return handlerText(h, sqltext.Const("(pg_catalog.array_agg(_pgrst_t.pgrst_scalar))[1]"))
}

// handlerText turns a handler's value into the body column's text: the
// value's output text, or for a domain over bytea its bytes in hex, which
// the executor decodes (the body column is read as text); no value is an
// empty body. format's %s is the type's output function, as PostgREST's
// body is: a cast to text would differ for xml, whose output drops the
// newline that follows a missing XML declaration.
func handlerText(h *schemacache.MediaHandler, value sqltext.SQL) sqltext.SQL {
	if h.Binary {
		return sqltext.Fmt("coalesce(pg_catalog.encode((%s)::bytea, 'hex'), '')", value)
	}
	return sqltext.Fmt("pg_catalog.format(%s, %s)", outputFormat, value)
}

// outputFormat is format's pattern of one value's output text (a constant
// argument: Fmt's own pattern cannot hold a literal %s).
var outputFormat = sqltext.Const("'%s'")
