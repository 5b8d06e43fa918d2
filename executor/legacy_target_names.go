package executor

import (
	"net/http"
	"strings"

	"go.uber.org/zap"

	"github.com/pgrest/caddy-pgrest/executor/plan"
)

// warnAgent is the warn-agent of pgrest's Warning headers, where
// PostgREST names itself and its version (PostgRESTv16.0.0).
const warnAgent = "pgrest"

// The deprecation of legacy embed target names, in PostgREST v16's words.
const legacyNamesMessage = "Embedded resource was referenced by relation name even though it has an alias. " +
	"This is deprecated and will stop working in a future release."

// legacyNamesReplacements names each replacement of a relation name by
// its alias: "`tasks` to `the_tasks`", comma-separated.
func legacyNamesReplacements(embeds []*plan.Embed) string {
	replacements := make([]string, len(embeds))
	for i, e := range embeds {
		replacements[i] = "`" + e.Relation + "` to `" + e.Name + "`"
	}
	return strings.Join(replacements, ", ")
}

// legacyNamesWarning is the Warning header PostgREST v16 sends when a
// filter, order or limit named aliased embeds by their relation (see
// plan.Read.LegacyNames): one header naming every replacement.
func legacyNamesWarning(embeds []*plan.Embed) string {
	text := legacyNamesMessage + " Update " + legacyNamesReplacements(embeds) +
		" in query string filters, orders or limits."
	return "299 " + warnAgent + " " + quoteWarnText(text)
}

// logLegacyNames logs the deprecation at warn level, as PostgREST does,
// naming the request that needs updating.
func (e *Executor) logLegacyNames(r *http.Request, embeds []*plan.Embed) {
	if len(embeds) == 0 {
		return
	}
	e.logger.Warn(legacyNamesMessage,
		zap.String("hint", "Update filters, orders or limits that use "+legacyNamesReplacements(embeds)),
		zap.String("request", r.Method+" "+r.URL.RequestURI()))
}

// quoteWarnText writes text as an HTTP quoted-string: the names in it
// come from the request, and a quote or backslash in one would otherwise
// end the text early. Control characters, which a header value may not
// hold, become spaces.
func quoteWarnText(text string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
