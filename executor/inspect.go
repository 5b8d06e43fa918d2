package executor

import (
	"encoding/json"
	"net/http"
	"runtime/debug"
	"sync"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/openapi"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// inspectMedia are the representations of the API root: the OpenAPI
// document, also served to clients asking for plain JSON.
var inspectMedia = []apirequest.MediaType{apirequest.MediaOpenAPI, apirequest.MediaJSON}

// The statements of the API root return the standard result columns
// with, as body, a JSON object: the schema's comment ("description") and,
// under follow-privileges, what the request's role may use of the schema
// ("relations" by name, "functions" as OIDs). Like PostgREST, the root
// reads the comment in the request's transaction in both modes; pre-request
// runs before it as before any other statement.
const (
	inspectResultHead = `select null::bigint as total_result_set, 1::bigint as page_total, `
	inspectResultTail = `::text as body, ` +
		`nullif(pg_catalog.current_setting('response.headers', true), '') as response_headers, ` +
		`nullif(pg_catalog.current_setting('response.status', true), '') as response_status`

	inspectDescriptionSQL = inspectResultHead + `pg_catalog.json_build_object('description',
  (select pg_catalog.obj_description(n.oid, 'pg_namespace') from pg_catalog.pg_namespace n where n.nspname = $1))` +
		inspectResultTail

	// A relation's privileges count at the table or at any column; a
	// column is shown when the role may select, insert or update it.
	inspectPrivilegesSQL = `with s as (
  select n.oid, pg_catalog.has_schema_privilege(n.oid, 'USAGE') as usage
  from pg_catalog.pg_namespace n where n.nspname = $1
) ` + inspectResultHead + `pg_catalog.json_build_object(
  'description', (select pg_catalog.obj_description(s.oid, 'pg_namespace') from s),
  'relations', (
    select coalesce(pg_catalog.json_object_agg(c.relname, pg_catalog.json_build_object(
      'select', pg_catalog.has_table_privilege(c.oid, 'SELECT') or pg_catalog.has_any_column_privilege(c.oid, 'SELECT'),
      'insert', pg_catalog.has_table_privilege(c.oid, 'INSERT') or pg_catalog.has_any_column_privilege(c.oid, 'INSERT'),
      'update', pg_catalog.has_table_privilege(c.oid, 'UPDATE') or pg_catalog.has_any_column_privilege(c.oid, 'UPDATE'),
      'delete', pg_catalog.has_table_privilege(c.oid, 'DELETE'),
      'columns', (
        select coalesce(pg_catalog.json_agg(a.attname order by a.attnum), '[]')
        from pg_catalog.pg_attribute a
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
          and pg_catalog.has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE')))), '{}')
    from s join pg_catalog.pg_class c on c.relnamespace = s.oid
    where s.usage and c.relkind in ('r', 'v', 'm', 'f', 'p') and not c.relispartition
      and (pg_catalog.has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE')
           or pg_catalog.has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE'))),
  'functions', (
    select coalesce(pg_catalog.json_agg(p.oid::bigint), '[]')
    from s join pg_catalog.pg_proc p on p.pronamespace = s.oid
    where s.usage and pg_catalog.has_function_privilege(p.oid, 'EXECUTE')))` + inspectResultTail
)

// inspection is the body of the statements above.
type inspection struct {
	Description *string `json:"description"`
	Relations   map[string]struct {
		Select  bool     `json:"select"`
		Insert  bool     `json:"insert"`
		Update  bool     `json:"update"`
		Delete  bool     `json:"delete"`
		Columns []string `json:"columns"`
	} `json:"relations"`
	Functions []uint32 `json:"functions"`
}

// inspect answers GET and HEAD on the root with the OpenAPI description
// of the request's schema.
func (e *Executor) inspect(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity) (*output, error) {
	if _, aerr := apirequest.Negotiate(r.Header.Get("Accept"), inspectMedia); aerr != nil {
		return nil, aerr
	}
	server, err := e.openAPIServer(r)
	if err != nil {
		return nil, err
	}
	follow := e.cfg.OpenAPIMode != OpenAPIIgnorePrivileges
	stmt := sqlgen.Statement{SQL: sqltext.Const(inspectDescriptionSQL), Args: [][]byte{[]byte(req.Schema)}}
	if follow {
		stmt.SQL = sqltext.Const(inspectPrivilegesSQL)
	}
	out, _, err := e.transact(r, req, cache, id, stmt, true)
	if err != nil {
		return nil, err
	}
	var in inspection
	if err := json.Unmarshal(out.body, &in); err != nil {
		return nil, apierr.Internal("unreadable result of the API root statement: " + err.Error())
	}
	opts := openapi.Options{Schema: req.Schema, SchemaComment: in.Description, Version: pgrestVersion(), Server: server,
		SecurityActive: e.cfg.OpenAPISecurityActive, SearchPath: append([]string{req.Schema}, e.cfg.ExtraSearchPath...)}
	if follow {
		access := &openapi.Access{
			Relations: make(map[string]openapi.RelationAccess, len(in.Relations)),
			Functions: make(map[uint32]bool, len(in.Functions)),
		}
		for name, a := range in.Relations {
			access.Relations[name] = openapi.RelationAccess{
				Select: a.Select, Insert: a.Insert, Update: a.Update, Delete: a.Delete, Columns: a.Columns}
		}
		for _, oid := range in.Functions {
			access.Functions[oid] = true
		}
		opts.Access = access
	}
	out.pageTotal = 0
	out.contentType = apirequest.Representation{Media: apirequest.MediaOpenAPI}.ContentType()
	if r.Method == http.MethodHead {
		// HEAD gets GET's Content-Type but, as from PostgREST, no
		// Content-Length: the document is not built.
		out.body, out.noBody = nil, true
		return out, nil
	}
	doc, err := openapi.Build(cache, opts)
	if err == nil && e.cfg.OpenAPIVersion == openapi.Version31 {
		doc, err = openapi.ToV31(doc)
	}
	if err != nil {
		return nil, err
	}
	out.body = doc
	return out, nil
}

// openAPIServer is the address the document names: openapi_server_proxy_uri
// when set, else the host the request came to, at "/".
func (e *Executor) openAPIServer(r *http.Request) (openapi.Server, error) {
	if e.cfg.OpenAPIServerProxyURI != "" {
		s, err := openapi.ServerFromProxyURI(e.cfg.OpenAPIServerProxyURI)
		if err != nil {
			return s, apierr.Internal("openapi_server_proxy_uri: " + err.Error())
		}
		return s, nil
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return openapi.Server{Scheme: scheme, Host: r.Host, BasePath: "/"}, nil
}

// pgrestVersion is the version of the pgrest module in this build, for
// info.version: the module's version as a dependency of Caddy, or "dev"
// when built from a checkout.
var pgrestVersion = sync.OnceValue(func() string {
	const module = "github.com/pgrest/caddy-pgrest"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	version := ""
	if bi.Main.Path == module {
		version = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			version = d.Version
			if d.Replace != nil && d.Replace.Version != "" {
				version = d.Replace.Version
			}
		}
	}
	if version == "" || version == "(devel)" {
		return "dev"
	}
	return version
})
