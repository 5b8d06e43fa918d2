package plan

import apierr "github.com/pgrest/caddy-pgrest/errors"

// Target names of embeds (url_use_legacy_target_names).
//
// A filter, order, limit or offset names the embed it applies to by its
// output name: the alias when select gives one (the_tasks.id=eq.1 for
// select=the_tasks:tasks(id)). PostgREST v16 still accepts the relation
// name of an aliased embed (tasks.id=eq.1) unless
// url-use-legacy-target-names is false, and warns that this is
// deprecated; pgrest does the same.

// embedNamed is the embed of r that a filter, order or limit naming name
// applies to, nil when none. As PostgREST's updateNode does, it takes the
// first embed in select order that answers to the name: by its output
// name, or, with legacy target names, by its relation. An aliased embed
// found by its relation is marked LegacyName, which the response turns
// into a deprecation warning.
func (b *builder) embedNamed(r *Read, name string) *Embed {
	for _, e := range r.Embeds {
		if e.Name == name {
			return e
		}
		if b.opts.LegacyTargetNames && e.Relation == name {
			e.LegacyName = true
			return e
		}
	}
	return nil
}

// notEmbedded is the PGRST108 of a name no embed of r answers to. When
// the name is the relation of an aliased embed, and only legacy target
// names would have accepted it, the error names the alias to use instead,
// as PostgREST's does.
func (b *builder) notEmbedded(r *Read, name string) *apierr.Error {
	if !b.opts.LegacyTargetNames {
		for _, e := range r.Embeds {
			if e.Relation == name && e.Name != name {
				return apierr.NotEmbeddedAlias(name, e.Name)
			}
		}
	}
	return apierr.NotEmbedded(name)
}

// LegacyNames lists the aliased embeds of the plan that a filter, order
// or limit named by their relation, the root's first, then each embed's
// in select order: the replacements a deprecation warning names.
func (r *Read) LegacyNames() []*Embed {
	var found []*Embed
	for _, e := range r.Embeds {
		if e.LegacyName {
			found = append(found, e)
		}
		found = append(found, e.Plan.LegacyNames()...)
	}
	return found
}
