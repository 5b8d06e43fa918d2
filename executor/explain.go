package executor

import (
	"bytes"
	"errors"
	"net/http"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
	"github.com/pgrest/caddy-pgrest/executor/sqlgen"
	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// Execution plans (db_plan_enabled, Accept: application/vnd.pgrst.plan).
//
// A plan request runs the action it names as usual, negotiated for the
// media type the plan is for, up to its transaction: there the main
// statement is wrapped in EXPLAIN, the transaction always rolls back (even
// with analyze, which runs the statement), and the plan is the response.
// The plan is a field of what the dispatch hands the action (mainRun),
// which the action passes to transactWith in its txOptions; the output
// transactWith returns is then the plan, marked explained, which the
// action passes on unshaped. Analyze is for the roles of
// db_plan_analyze_roles only, refused before anything reaches the database
// (apirequest.CheckPlanAnalyze says why).

// planForMedia are the representations a plan's for= may name: the
// builtin ones of a statement's result.
var planForMedia = []apirequest.MediaType{apirequest.MediaJSON, apirequest.MediaSingleObject, apirequest.MediaCSV}

// handleOrExplain answers req, or its execution plan when the client asks
// for one and plans are enabled.
func (e *Executor) handleOrExplain(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity) (*output, error) {
	switch req.Action {
	case apirequest.ActionInfo, apirequest.ActionInspect:
		return e.handle(r, req, cache, id, mainRun{})
	}
	accept := r.Header.Get("Accept")
	p, ok, aerr := apirequest.NegotiatePlan(accept, planForMedia, e.cfg.PlanEnabled, cache.HasMediaHandler)
	if aerr != nil {
		return nil, aerr
	}
	if !ok {
		return e.handle(r, req, cache, id, mainRun{})
	}
	if aerr := apirequest.CheckPlanAnalyze(p, id.Role, e.cfg.PlanAnalyzeRoles); aerr != nil {
		return nil, aerr
	}
	pr := r.Clone(r.Context())
	pr.Header.Set("Accept", p.For)
	out, err := e.handle(pr, req, cache, id, mainRun{explain: &p, sentAccept: accept, acceptReplaced: true})
	var refused *apierr.Error
	if errors.As(err, &refused) && refused.Code == "PGRST107" {
		// The handler of For serves other relations: the 406 names what
		// the client asked for, as when no handler renders it.
		_, aerr := apirequest.Negotiate(accept, nil)
		return nil, aerr
	}
	if err != nil {
		return nil, err
	}
	if !out.explained {
		// Every action ends in transactWith; one that answered without
		// it has no statement to explain.
		return nil, apierr.Internal("no statement to explain")
	}
	return out, nil
}

// explainTransaction runs main's EXPLAIN in the request's transaction, as
// transactWith would run main, and rolls back. The output is the plan,
// marked explained. SQL sees the request's headers as the client sent
// them (request.headers).
func (e *Executor) explainTransaction(r *http.Request, req *apirequest.Request, cache *schemacache.Cache, id jwtauth.Identity,
	main sqlgen.Statement, opts txOptions) (*output, error) {
	p := *opts.run.explain
	statements := []sqlgen.Statement{e.settingsStatement(opts.run.asSent(r), id, req.Schema, e.legacyClaims(cache),
		cache.RoleSettings[id.Role], opts.settings)}
	if !e.preRequest.SQL.IsEmpty() {
		statements = append(statements, e.preRequest)
	}
	statements = append(statements, sqlgen.Explain(main, p))
	spec := &txSpec{readOnly: opts.readOnly, statements: statements, role: id.Role, decided: true, commit: false}
	results, err := e.runRouted(r.Context(), e.mayReadFromReplica(r, req, opts), spec, nil)
	if err != nil {
		return nil, err
	}
	out := &output{status: http.StatusOK, contentType: p.ContentType(), body: planBody(results[len(results)-1]), explained: true}
	if r.Method == http.MethodHead {
		out.noBody = true
	}
	return out, nil
}

// planBody is EXPLAIN's output: the one JSON value, or the lines of text.
func planBody(res *txResult) []byte {
	lines := make([][]byte, 0, len(res.rows))
	for _, row := range res.rows {
		if len(row) > 0 {
			lines = append(lines, row[0])
		}
	}
	return bytes.Join(lines, []byte("\n"))
}
