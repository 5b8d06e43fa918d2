package sqlgen

import (
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// explainOptions are the EXPLAIN option keywords, indexed by
// apirequest.PlanOption: the only words a plan request adds to SQL.
var explainOptions = [...]sqltext.SQL{
	apirequest.PlanAnalyze:  sqltext.Const("ANALYZE"),
	apirequest.PlanVerbose:  sqltext.Const("VERBOSE"),
	apirequest.PlanSettings: sqltext.Const("SETTINGS"),
	apirequest.PlanBuffers:  sqltext.Const("BUFFERS"),
	apirequest.PlanWAL:      sqltext.Const("WAL"),
}

// Explain wraps main in EXPLAIN with the format and options p asks for,
// written as PostgREST writes them: EXPLAIN (FORMAT JSON, ANALYZE, ...).
// main's arguments stay its arguments.
func Explain(main Statement, p apirequest.Plan) Statement {
	parts := make([]sqltext.SQL, 0, 1+len(p.Options))
	if p.Format == apirequest.PlanJSON {
		parts = append(parts, sqltext.Const("FORMAT JSON"))
	} else {
		parts = append(parts, sqltext.Const("FORMAT TEXT"))
	}
	for _, o := range p.Options {
		if int(o) >= 0 && int(o) < len(explainOptions) {
			parts = append(parts, explainOptions[o])
		}
	}
	return Statement{SQL: sqltext.Fmt("EXPLAIN (%s) %s", sqltext.Join(parts, ", "), main.SQL), Args: main.Args}
}
