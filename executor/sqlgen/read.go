package sqlgen

import (
	"fmt"
	"strconv"
)

// ReadAll selects every visible row of schema.relation as a JSON array,
// at most maxRows of them when maxRows > 0.
func ReadAll(schema, relation string, maxRows int64) Statement {
	source := "select * from " + QualifiedName(schema, relation)
	var args [][]byte
	if maxRows > 0 {
		source += " limit $1"
		args = append(args, []byte(strconv.FormatInt(maxRows, 10)))
	}
	cols := fmt.Sprintf(resultColumns, "null::bigint", "coalesce(pg_catalog.json_agg(_pgrst_t), '[]')::text")
	return Statement{
		SQL:  "select " + cols + " from (" + source + ") _pgrst_t",
		Args: args,
	}
}
