package plan

import (
	"errors"

	apierr "github.com/pgrest/caddy-pgrest/errors"
	"github.com/pgrest/caddy-pgrest/executor/sqltext"
)

// castType checks a select item's ::cast against the type-name grammar
// and turns it into the only form SQL accepts a type in. The parser lets
// only type-name characters through; what is left to refuse here (a
// pseudo-type, a name starting with a digit, a name too long) is still the
// select parameter's fault, so it is the same 400 as a parse error.
func castType(cast string) (sqltext.TypeName, *apierr.Error) {
	if cast == "" {
		return sqltext.TypeName{}, nil
	}
	t, err := sqltext.ParseTypeName(cast)
	switch {
	case err == nil:
		return t, nil
	case errors.Is(err, sqltext.ErrPseudoType):
		return sqltext.TypeName{}, apierr.QueryParam("failed to parse select parameter (::"+cast+")",
			"cannot cast to "+cast+": it is a pseudo-type, which has no values of its own")
	default:
		return sqltext.TypeName{}, apierr.QueryParam("failed to parse select parameter (::"+cast+")",
			cast+" is not a type name: a cast names a type as letters, digits and _ (not first, at most "+
				"63 of them), optionally after a schema and a dot, then [] per array dimension, as in "+
				"int, text[] or public.mytype")
	}
}
