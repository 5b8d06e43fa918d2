package sqlgen

import "github.com/pgrest/caddy-pgrest/executor/plan"

// StatementSize is the room read gives the builder of p's statement.
func StatementSize(p *plan.Read, opts ReadOptions) int {
	g := &gen{}
	return g.statementSize(p, opts, bodyExpr(opts))
}
