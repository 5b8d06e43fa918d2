package executor

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/plan"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// write answers POST, PATCH, PUT and DELETE on a table or view. The
// mutation and the response rows are one statement; checks that can fail
// after it (max-affected, a singular response, a PUT's key) roll back.
func (e *Executor) write(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	run mainRun) (*output, error) {
	rel, q, aerr := relationQuery(req, cache)
	if aerr != nil {
		return nil, aerr
	}
	prefs := req.Preferences
	// Accept is negotiated whatever the return preference, as PostgREST
	// does, so an unacceptable one is refused before anything is written,
	// and a singular one (vnd.pgrst.object) holds every write to one row,
	// with or without a representation. A media type handler answers only
	// a representation.
	rep, aerr := negotiateMedia(r.Header.Get("Accept"), cache, relationTarget(rel, q))
	if aerr != nil {
		return nil, aerr
	}
	if prefs.Return != "representation" && rep.Media != apirequest.MediaSingleObject {
		rep = apirequest.Representation{Media: apirequest.MediaJSON}
	}
	if req.Action == apirequest.ActionUpsert {
		if r := q.Ranges[""]; !r.IsAll() {
			return nil, apierr.PutLimitNotAllowed()
		}
	}
	p, aerr := plan.BuildRead(cache, rel, q, plan.ReadOptions{AggregatesEnabled: e.cfg.AggregatesEnabled,
		LegacyTargetNames: !e.cfg.NoLegacyTargetNames})
	if aerr != nil {
		return nil, aerr
	}
	m, aerr := plan.Mutate(cache, p, req, q)
	if aerr != nil {
		return nil, aerr
	}
	// The mutation holds the root's filters and range; the response
	// reads every written row.
	p.Where, p.Range = nil, apirequest.Range{}
	// Preference-Applied, in PostgREST's order.
	missing := ""
	if req.Action == apirequest.ActionCreate || req.Action == apirequest.ActionUpdate {
		// missing=null is what an insert does anyway; PostgREST still
		// reports it applied.
		missing = prefix("missing=", prefs.Missing)
	}
	resolution := ""
	if req.Action == apirequest.ActionCreate && prefs.Resolution != "" && len(m.OnConflict) > 0 {
		resolution = "resolution=" + prefs.Resolution
	}

	headersOnly := prefs.Return == "headers-only" && req.Action == apirequest.ActionCreate
	if prefs.Return != "representation" {
		p.Output, p.Fields, p.Embeds, p.Order = nil, nil, nil, nil
		if headersOnly {
			for _, k := range plan.KeyColumns(rel) {
				p.Fields = append(p.Fields, plan.Field{Ref: plan.ColumnRef{Column: k}, Name: k})
			}
			for i := range p.Fields {
				p.Output = append(p.Output, plan.OutputItem{Field: &p.Fields[i]})
			}
		}
	}
	upsertCount := req.Action == apirequest.ActionUpsert || (req.Action == apirequest.ActionCreate && len(m.OnConflict) > 0)
	minimal := prefs.Return != "representation" && !headersOnly
	// Only a representation takes the negotiated media; the key columns
	// of headers-only come back as JSON, which location reads.
	bodyRep := rep
	if prefs.Return != "representation" {
		bodyRep = apirequest.Representation{Media: apirequest.MediaJSON}
	}
	// max-affected bounds PATCH and DELETE, and only with handling=strict;
	// PostgREST neither checks nor reports it on POST and PUT.
	maxAffected := prefs.Handling == "strict" && prefs.MaxAffected != nil &&
		(req.Action == apirequest.ActionUpdate || req.Action == apirequest.ActionDelete)
	// In PostgREST's order: a singular response's check comes before
	// max-affected's.
	var checks pageChecks
	if req.Action == apirequest.ActionUpsert {
		checks = append(checks, putMatchCheck())
	}
	if rep.Media == apirequest.MediaSingleObject {
		checks = append(checks, singularCheck())
	}
	if maxAffected {
		checks = append(checks, maxAffectedCheck(*prefs.MaxAffected))
	}
	st := sqlgen.Write(*m, p, sqlgen.WriteOptions{
		// The checks run in SQL too, to roll back there.
		ReadOptions:   sqlgen.ReadOptions{Representation: bodyRep, NoBody: minimal, RecordPageTotal: len(checks) > 0},
		CountInserted: upsertCount,
		Minimal:       minimal,
	})
	out, _, err := e.transactWith(r, req, cache, id, st, txOptions{checks: checks, run: run})
	if err != nil {
		// Declared here: errors.As takes its address, which would put it
		// on the heap for every write.
		var pgErr *pgconn.PgError
		if req.Action == apirequest.ActionUpsert && errors.As(err, &pgErr) && pgErr.Code == "21000" {
			// Two rows of a PUT body both match the URL's key: ON CONFLICT
			// cannot put one row twice. The body, not the server, is wrong.
			return nil, apierr.PutMatchingPK()
		}
		return nil, err
	}
	if out.explained {
		out.setLegacyNames(p.LegacyNames())
		return out, nil
	}
	if err := decodeHandlerBody(out, rep); err != nil {
		return nil, err
	}
	// out.preferenceApplied holds what the transaction honoured: tx=.
	out.preferenceApplied = appliedWritePreferences(prefs, resolution, missing, out.preferenceApplied, maxAffected)
	e.shapeWrite(out, req, rel, rep, headersOnly, prefs, m)
	out.setLegacyNames(p.LegacyNames())
	return out, nil
}

// prefix renders a preference as name=value, or "" when not given.
func prefix(name, value string) string {
	if value == "" {
		return ""
	}
	return name + value
}

// shapeWrite sets the status, headers and body PostgREST gives a write.
func (e *Executor) shapeWrite(out *output, req *apirequest.Request, rel *schemacache.Relation, rep apirequest.Representation,
	headersOnly bool, prefs apirequest.Preferences, m *plan.Mutation) {
	full := prefs.Return == "representation"
	var total *int64
	if prefs.Count == "exact" {
		n := out.pageTotal
		total = &n
	}
	out.contentType = ""
	if full {
		out.contentType = rep.ContentType()
	} else {
		out.noBody = true
	}
	switch req.Action {
	case apirequest.ActionCreate:
		out.status = http.StatusCreated
		// A merge that inserted nothing, an empty array too, is 200.
		if len(m.OnConflict) > 0 && !m.IgnoreDuplicates && out.inserted == 0 {
			out.status = http.StatusOK
		}
		out.contentRange = contentRange(1, 0, total)
		if headersOnly {
			if loc := location(rel, out.body); loc != "" {
				out.headers = http.Header{"Location": {loc}}
			}
		}
	case apirequest.ActionUpdate:
		out.status = http.StatusNoContent
		if full {
			out.status = http.StatusOK
		}
		out.contentRange = contentRange(0, out.pageTotal, total)
	case apirequest.ActionDelete:
		out.status = http.StatusNoContent
		if full {
			out.status = http.StatusOK
		}
		out.contentRange = contentRange(1, 0, total)
	case apirequest.ActionUpsert:
		out.status = http.StatusNoContent
		if full {
			out.status = http.StatusOK
			if out.inserted > 0 {
				out.status = http.StatusCreated
			}
		}
	}
	if !full {
		out.body = nil
	}
}

// location is the Location of a single inserted row of a table with a
// primary key: the path filtering on its key ("/items?id=eq.1"), the key
// columns in the relation's column order, a NULL key as is.null, as
// PostgREST writes it.
func location(rel *schemacache.Relation, body []byte) string {
	key := plan.KeyColumns(rel)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // a bigint key keeps every digit
	var rows []map[string]any
	if len(key) == 0 || dec.Decode(&rows) != nil || len(rows) != 1 {
		return ""
	}
	parts := make([]string, 0, len(key))
	for _, c := range rel.Columns {
		if !slices.Contains(key, c.Name) {
			continue
		}
		var value string
		switch v := rows[0][c.Name].(type) {
		case nil:
			parts = append(parts, url.QueryEscape(c.Name)+"=is.null")
			continue
		case string:
			value = v
		case json.Number:
			value = v.String()
		default:
			b, _ := json.Marshal(v)
			value = string(b)
		}
		parts = append(parts, url.QueryEscape(c.Name)+"=eq."+url.QueryEscape(value))
	}
	return "/" + rel.Name + "?" + strings.Join(parts, "&")
}
