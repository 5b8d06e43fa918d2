package plan

import (
	"slices"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/apirequest"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// MutationKind is the statement a write runs.
type MutationKind int

// Mutations.
const (
	Insert MutationKind = iota
	Update
	Delete
)

// Mutation is a planned write on one relation.
type Mutation struct {
	Kind     MutationKind
	Relation *schemacache.Relation
	// Columns are the payload's columns, in order (Insert, Update).
	Columns []string
	// ColumnsListed says Columns come from columns=: the payload's other
	// keys are then ignored, their values never read.
	ColumnsListed bool
	// Payload is a JSON array of row objects (Insert) or one object
	// (Update); it travels as one argument.
	Payload []byte
	// MissingDefault fills absent keys with the column default
	// (Prefer: missing=default) instead of NULL.
	MissingDefault bool
	// OnConflict makes an Insert an upsert on these columns; IgnoreDuplicates
	// skips conflicting rows instead of merging them.
	OnConflict       []string
	IgnoreDuplicates bool
	// Where restricts Update and Delete; it is the filters of the plan's
	// root, rendered against the relation.
	Where *Read
	// Limit and Offset bound Update and Delete to a slice of the rows in
	// Where's order, as PostgREST's limited update and delete do.
	Limit  *int64
	Offset int64
	// KeyMatch (PUT) keeps only payload rows whose key equals the URL's:
	// column name to the filter's value.
	KeyMatch [][2]string
	// Parsers are the data representations that parse the payload's
	// values of some columns from JSON, by column name.
	Parsers map[string]*schemacache.Representation
}

// Mutate plans the write req asks of root's relation: the body parsed by
// its media type, the columns it sets, and, for the actions that filter,
// the rows root's filters, order, limit and offset choose (root is the
// request's read plan, left as it is). Its errors come in PostgREST's
// order: the body, its columns, then a PUT's key.
func Mutate(cache *schemacache.Cache, root *Read, req *apirequest.Request, q *apirequest.Query) (*Mutation, *apierr.Error) {
	rel := root.Relation
	prefs := req.Preferences
	m := &Mutation{Relation: rel}
	// The rows to write, in the order the response then reads them.
	// Made only for the actions that filter (an insert does not): it
	// would be an allocation of every write.
	where := func() *Read {
		return &Read{Relation: rel, Alias: root.Alias, Where: root.Where, Order: root.Order}
	}
	var body *apirequest.Payload
	if req.Action != apirequest.ActionDelete {
		var aerr *apierr.Error
		if body, aerr = apirequest.ParsePayload(req.ContentType, req.Body, len(q.Columns) > 0); aerr != nil {
			return nil, aerr
		}
		if m.Columns, aerr = payloadColumns(rel, q.Columns, body); aerr != nil {
			return nil, aerr
		}
		m.Parsers = JSONParsers(cache, rel, m.Columns)
		m.ColumnsListed = len(q.Columns) > 0
	}
	switch req.Action {
	case apirequest.ActionCreate:
		m.Kind, m.Payload = Insert, body.Rows
		m.MissingDefault = prefs.Missing == "default"
		if prefs.Resolution != "" {
			m.OnConflict = q.OnConflict
			if len(m.OnConflict) == 0 {
				m.OnConflict = KeyColumns(rel)
			}
			m.IgnoreDuplicates = len(m.OnConflict) > 0 && prefs.Resolution == "ignore-duplicates"
		}
	case apirequest.ActionUpdate:
		m.Kind, m.Where, m.Limit, m.Offset = Update, where(), root.Range.Limit, root.Range.Offset
		m.MissingDefault = prefs.Missing == "default"
		// An array sets the columns from its first row, as PostgREST's
		// update does; an empty one has no row and so changes nothing.
		m.Payload = body.First
		if body.First == nil {
			m.Columns = nil
		}
	case apirequest.ActionDelete:
		m.Kind, m.Where, m.Limit, m.Offset = Delete, where(), root.Range.Limit, root.Range.Offset
	case apirequest.ActionUpsert:
		keyMatch, aerr := putKey(rel, where())
		if aerr != nil {
			return nil, aerr
		}
		// Rows whose key is not the URL's are left out (KeyMatch): an
		// array puts the one that matches, and none is PGRST115. A body
		// without the key columns cannot match at all.
		for _, k := range keyMatch {
			if !slices.Contains(m.Columns, k[0]) {
				return nil, apierr.PutMatchingPK()
			}
		}
		m.Kind, m.Payload, m.KeyMatch, m.OnConflict = Insert, body.Rows, keyMatch, KeyColumns(rel)
	}
	return m, nil
}

// KeyColumns is the primary key a write goes by: the table's, or for a
// view the one PostgREST infers from a base table whose primary key the
// view shows. PUT, the Location of headers-only and an upsert without
// on_conflict use it.
func KeyColumns(rel *schemacache.Relation) []string {
	if rel.IsView() {
		return rel.ViewPrimaryKey
	}
	return rel.PrimaryKey
}

// payloadColumns are the columns a write takes from its body: columns=
// when given, else the body's keys; each must be a column (PGRST204).
func payloadColumns(rel *schemacache.Relation, columns []string, body *apirequest.Payload) ([]string, *apierr.Error) {
	keys := body.Keys
	if len(columns) > 0 {
		keys = columns
	}
	for _, k := range keys {
		if _, ok := rel.Column(k); !ok {
			return nil, apierr.ColumnNotFound(rel.Name, k)
		}
	}
	return keys, nil
}

// putKey checks a PUT's filters: exactly one eq filter on each primary
// key column and nothing else (PGRST105). It returns the key values,
// which the body's must equal.
func putKey(rel *schemacache.Relation, where *Read) ([][2]string, *apierr.Error) {
	pk := KeyColumns(rel)
	if len(pk) == 0 || len(where.Where) != len(pk) {
		return nil, apierr.InvalidFilters()
	}
	values := map[string]string{}
	for _, c := range where.Where {
		f := c.Filter
		if f == nil || c.Negated || f.Op != "eq" || f.Quantifier != "" || len(f.Ref.JSONPath) > 0 || f.Ref.Computed != nil {
			return nil, apierr.InvalidFilters()
		}
		if _, dup := values[f.Ref.Column]; dup {
			return nil, apierr.InvalidFilters()
		}
		values[f.Ref.Column] = f.Value
	}
	key := make([][2]string, 0, len(pk))
	for _, k := range pk {
		v, ok := values[k]
		if !ok {
			return nil, apierr.InvalidFilters()
		}
		key = append(key, [2]string{k, v})
	}
	return key, nil
}
