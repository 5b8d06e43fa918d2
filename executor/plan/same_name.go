package plan

import (
	"fmt"
	"net/http"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/schemacache"
)

// checkSameName records an embed named like an earlier one of its level
// (users!author(*),users!editor(*) without aliases). Both would be the
// same key of the parent's objects, and JSON clients keep one of them, so
// one would be lost without a word. PostgREST names each embed's join
// after the parent, the embed's name and its depth, so PostgreSQL refuses
// the second with 42712; pgrest gives the same answer, before the
// statement runs. The first such embed is reported, once every
// relationship of the request is known to exist, as PostgREST finds them
// all first.
func (b *builder) checkSameName(parent *schemacache.Relation, earlier []*Embed, e *Embed) {
	if b.sameName != nil {
		return
	}
	for _, prev := range earlier {
		if prev.Name == e.Name {
			join := fmt.Sprintf("%s_%s_%d", parent.Name, e.Name, b.depth+1)
			b.sameName = &apierr.Error{Status: http.StatusBadRequest, Code: "42712",
				Message: `table name "` + join + `" specified more than once`}
			return
		}
	}
}
