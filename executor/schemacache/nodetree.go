package schemacache

import (
	"fmt"
	"strconv"
)

// targetEntry is one output column of a view's query as the catalog keeps
// it: resorigtbl/resorigcol name the table (or view) column it shows
// unchanged, when it is a plain column reference.
type targetEntry struct {
	resno      int
	origTable  uint32
	origColumn int
	junk       bool
}

// viewTargets reads the target list of a view's query from its _RETURN
// rule (pg_rewrite.ev_action), which PostgreSQL stores as a pg_node_tree:
// the parser's own record of where each output column comes from. This is
// the catalog's serialization, read token by token the way PostgreSQL's
// read.c does, not SQL: only TARGETENTRY's resno, resorigtbl, resorigcol
// and resjunk are kept, everything else is skipped by bracket depth.
func viewTargets(action string) ([]targetEntry, error) {
	s := &nodeScanner{src: action}
	if err := s.expect("("); err != nil {
		return nil, err
	}
	if err := s.expect("{"); err != nil {
		return nil, err
	}
	if typ := s.next(); typ != "QUERY" {
		return nil, fmt.Errorf("rule action: expected QUERY, found %q", typ)
	}
	for {
		tok := s.next()
		switch {
		case tok == "}" || tok == "":
			return nil, nil // a query without a target list
		case tok == ":targetList":
			return s.targetList()
		case isField(tok):
			s.skipValue()
		default:
			return nil, fmt.Errorf("rule action: unexpected %q at offset %d", tok, s.pos)
		}
	}
}

func (s *nodeScanner) targetList() ([]targetEntry, error) {
	switch tok := s.next(); tok {
	case "<>":
		return nil, nil
	case "(":
	default:
		return nil, fmt.Errorf("targetList: expected a list, found %q", tok)
	}
	var entries []targetEntry
	for {
		switch tok := s.next(); tok {
		case ")":
			return entries, nil
		case "{":
			e, err := s.targetEntry()
			if err != nil {
				return nil, err
			}
			entries = append(entries, e)
		default:
			return nil, fmt.Errorf("targetList: unexpected %q at offset %d", tok, s.pos)
		}
	}
}

func (s *nodeScanner) targetEntry() (targetEntry, error) {
	var e targetEntry
	if typ := s.next(); typ != "TARGETENTRY" {
		return e, fmt.Errorf("targetList: expected TARGETENTRY, found %q", typ)
	}
	for {
		tok := s.next()
		if tok == "}" {
			return e, nil
		}
		if !isField(tok) {
			return e, fmt.Errorf("TARGETENTRY: unexpected %q at offset %d", tok, s.pos)
		}
		// A value that does not read as a number leaves the field as it
		// was: the column then traces nowhere, which costs a relationship
		// at most, never the load. An empty value (an alias that looks
		// like a field name) leaves it as it was too.
		if tok == ":resno" || tok == ":resorigtbl" || tok == ":resorigcol" || tok == ":resjunk" {
			v := s.atom()
			if v == "" {
				continue
			}
			switch tok {
			case ":resno":
				if n, err := strconv.Atoi(v); err == nil {
					e.resno = n
				}
			case ":resorigtbl":
				if n, err := strconv.ParseUint(v, 10, 32); err == nil {
					e.origTable = uint32(n)
				}
			case ":resorigcol":
				if n, err := strconv.Atoi(v); err == nil {
					e.origColumn = n
				}
			case ":resjunk":
				e.junk = v == "true"
			}
			continue
		}
		s.skipValue()
	}
}

// nodeScanner splits a pg_node_tree into tokens as pg_strtok does:
// brackets are tokens of their own, anything else runs to whitespace or
// a bracket, and a backslash keeps the next character in the token.
type nodeScanner struct {
	src  string
	pos  int
	peek string
	have bool
}

func (s *nodeScanner) next() string {
	if s.have {
		s.have = false
		return s.peek
	}
	for s.pos < len(s.src) && isSpace(s.src[s.pos]) {
		s.pos++
	}
	if s.pos >= len(s.src) {
		return ""
	}
	start := s.pos
	if isBracket(s.src[s.pos]) {
		s.pos++
		return s.src[start:s.pos]
	}
	for s.pos < len(s.src) && !isSpace(s.src[s.pos]) && !isBracket(s.src[s.pos]) {
		if s.src[s.pos] == '\\' && s.pos+1 < len(s.src) {
			s.pos++
		}
		s.pos++
	}
	return s.src[start:s.pos]
}

func (s *nodeScanner) peekToken() string {
	if !s.have {
		s.peek = s.next()
		s.have = true
	}
	return s.peek
}

// atom reads a field's single-token value. A field followed at once by
// another field (or the node's end) reads as empty, which is how a column
// aliased ":resorigtbl" (":resname :resorigtbl :ressortgroupref 0 ...")
// stays harmless.
func (s *nodeScanner) atom() string {
	if tok := s.peekToken(); tok == "" || isField(tok) || isBracket(tok[0]) {
		return ""
	}
	return s.next()
}

func (s *nodeScanner) expect(want string) error {
	if got := s.next(); got != want {
		return fmt.Errorf("rule action: expected %q, found %q", want, got)
	}
	return nil
}

// skipValue skips a field's value: one or more tokens (a constant's value
// is a length and a bracketed byte list) and whole nested nodes and lists,
// up to the next field of the same node or the node's end.
func (s *nodeScanner) skipValue() {
	depth := 0
	for {
		tok := s.peekToken()
		switch {
		case tok == "":
			return
		case depth == 0 && (tok == "}" || tok == ")" || isField(tok)):
			return
		case tok == "{" || tok == "(":
			depth++
		case tok == "}" || tok == ")":
			depth--
		}
		s.next()
	}
}

// isField says whether a token is a field name (":resno"). A string value
// starting with a colon (a column alias ":x") reads as one too; skipValue
// and atom then stop early and the alias is taken for a field of its own,
// so the fields read here still come out right.
func isField(tok string) bool { return len(tok) > 1 && tok[0] == ':' }

// isSpace is pg_strtok's whitespace; other characters belong to tokens.
func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' }

func isBracket(b byte) bool { return b == '(' || b == ')' || b == '{' || b == '}' }
