package executor

import "github.com/jackc/pgx/v5/pgconn"

// txControl is a BEGIN, COMMIT or ROLLBACK as sent in a request's
// pipeline.
//
// With prepared statements they are named statements too, prepared on a
// connection the first time it needs them: sent unnamed, PostgreSQL
// parses and analyses their text again on every request, which cost about
// as much as a third of the settings statement. Without (a transaction
// pooler), they go unnamed, as every other statement does there.
type txControl struct {
	sd     *pgconn.StatementDescription // nil when sent unnamed
	parsed bool                         // a Parse was sent with it, whose answer comes first
}

// txControlFields stand for the result columns of BEGIN, COMMIT and
// ROLLBACK, which have none. pgx sends a Describe of the portal with every
// statement described without fields (a FETCH's are unknown when it is
// prepared), and these answer with a command tag alone, whatever the
// server: no Describe is needed, and this field is never read (their
// results are read through). It also keeps every description pgrest
// binds with fields; see sendKnown.
var txControlFields = []pgconn.FieldDescription{{Name: "?column?"}}

// sendTxControl sends sql, preparing it first when the connection lacks
// it. prepared is nil without prepared statements. Its description is
// known without asking the server, so even its first use goes without a
// Describe of the portal.
func sendTxControl(p *pgconn.Pipeline, prepared *statementSet, sql string) txControl {
	if prepared == nil {
		p.SendQueryParams(sql, nil, nil, nil, nil)
		return txControl{}
	}
	name := cachedStatementName("", sql)
	c := txControl{sd: prepared.description(name)}
	if c.sd == nil {
		c.sd = &pgconn.StatementDescription{Name: name, SQL: sql, Fields: txControlFields}
		p.SendPrepare(name, sql, nil)
		c.parsed = true
	}
	p.SendQueryStatement(c.sd, nil, nil, nil)
	return c
}

// read reads what sendTxControl sent: the Parse's answer, if any, then
// the statement's.
func (c txControl) read(p *pgconn.Pipeline, prepared *statementSet) error {
	if c.parsed {
		if _, err := p.GetResults(); err != nil {
			return err
		}
		prepared.add(c.sd)
	}
	return readResult(p, nil)
}
