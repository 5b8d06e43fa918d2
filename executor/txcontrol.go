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
	name   string // "" when sent unnamed
	parsed bool   // a Parse was sent with it, whose answer comes first
}

// sendTxControl sends sql, preparing it first when the connection lacks
// it. prepared is nil without prepared statements.
func sendTxControl(p *pgconn.Pipeline, prepared *statementSet, sql string) txControl {
	if prepared == nil {
		p.SendQueryParams(sql, nil, nil, nil, nil)
		return txControl{}
	}
	c := txControl{name: cachedStatementName("", sql)}
	if !prepared.has(c.name) {
		p.SendPrepare(c.name, sql, nil)
		c.parsed = true
	}
	p.SendQueryPrepared(c.name, nil, nil, nil)
	return c
}

// read reads what sendTxControl sent: the Parse's answer, if any, then
// the statement's.
func (c txControl) read(p *pgconn.Pipeline, prepared *statementSet) error {
	if c.parsed {
		if _, err := p.GetResults(); err != nil {
			return err
		}
		prepared.add(c.name)
	}
	return readResult(p, nil)
}
