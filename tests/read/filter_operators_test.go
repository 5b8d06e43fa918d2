package read

import "testing"

// TestFilterOperators runs every operator of PostgREST's filter language on
// plain, array, jsonb, range and tsvector columns of the fixture, alone and
// negated with not.
func TestFilterOperators(t *testing.T) {
	s := startServer(t)

	t.Run("on plain columns", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"eq matches an integer", "/tasks?select=id&project_id=eq.2", []int{7, 8, 9, 10, 11, 12}},
			{"eq matches text exactly, case and all", "/tasks?select=id&title=eq.cleanup", []int{60}},
			{"eq matches an enum label", "/tasks?select=id&status=eq.review", []int{2, 7, 12, 17, 22, 27, 32, 37, 42, 47, 52, 57}},
			{"eq matches a date", "/tasks?select=id&due_on=eq.2024-03-01", []int{55}},
			{"eq matches a numeric whatever its scale", "/projects?select=id&budget=eq.120000", []int{1, 9}},
			{"eq matches a boolean", "/clients?select=id&active=eq.false", []int{3}},
			{"eq matches a uuid", "/users?select=id&external_id=eq.00000000-0000-4000-8000-000000000007", []int{7}},
			{"eq matches a char(n) column", "/clients?select=id&country=eq.GB", []int{4}},
			{"eq matches a timestamptz with microseconds and an encoded plus", "/clients?select=id&created_at=eq.2023-09-09%2009:09:09.123456%2B00", []int{9}},
			{"neq leaves out the value and NULLs", "/tasks?select=id&priority=neq.4", []int{1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 16, 17, 18, 20, 22, 24, 25, 26, 29, 30, 32, 33, 34, 36, 37, 38, 40, 41, 44, 45, 46, 48, 50, 52, 53, 54, 55, 57, 58}},
			{"gt on an enum follows the declaration order", "/tasks?select=id&status=gt.review", []int{3, 4, 8, 9, 13, 14, 18, 19, 23, 24, 28, 29, 33, 34, 38, 39, 43, 44, 48, 49, 53, 54, 58, 59}},
			{"lt on an enum follows the declaration order", "/tasks?select=id&status=lt.in_progress", []int{5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 56, 60}},
			{"gt on an integer", "/films?select=id&released_year=gt.2001", []int{6, 7, 8}},
			{"gte on an integer", "/films?select=id&released_year=gte.2001", []int{1, 4, 6, 7, 8}},
			{"lt on an integer", "/films?select=id&released_year=lt.1995", []int{2, 3}},
			{"lte on an integer", "/films?select=id&released_year=lte.1995", []int{2, 3, 5}},
			{"gte on a numeric with a fraction", "/tasks?select=id&estimate_hours=gte.9.5", []int{14, 17, 34, 37}},
			{"lt on a date", "/tasks?select=id&due_on=lt.2024-02-15", []int{1, 2, 3, 4}},
			{"lte on a timestamptz", "/clients?select=id&created_at=lte.2023-03-01T08:15:00Z", []int{1, 2, 3}},
			{"like takes * as a wildcard", "/tasks?select=id&title=like.Design*", []int{1, 7, 13, 19, 25, 31, 37, 43, 49}},
			{"like takes an encoded % as a wildcard", "/tasks?select=id&title=like.%25login", []int{1, 2, 3, 4, 5, 6}},
			{"like is case-sensitive", "/tasks?select=id&title=like.C*", []int{59}},
			{"ilike is case-insensitive", "/tasks?select=id&title=ilike.*SEARCH*", []int{7, 8, 9, 10, 11, 12}},
			{"ilike matches non-ASCII letters", "/clients?select=id&name=ilike.*g%C3%A9n%C3%A9rale", []int{7}},
			{"match takes a POSIX regular expression", "/tasks?select=id&title=match.^(Test|Deploy)%20s", []int{9, 11, 45, 47}},
			{"match is case-sensitive", "/tasks?select=id&title=match.^cleanup$", []int{60}},
			{"imatch is case-insensitive", "/tasks?select=id&title=imatch.^CLEANUP$", []int{59, 60}},
			{"in matches a list of integers", "/tasks?select=id&id=in.(1,3,5,99)", []int{1, 3, 5}},
			{"in matches unquoted text", "/clients?select=id&name=in.(Globex,Initech)", []int{2, 3}},
			{"in of nothing matches nothing", "/clients?select=id&name=in.()", []int{}},
			{"in matches an enum", "/tasks?select=id&status=in.(todo,cancelled)&project_id=eq.11", []int{56, 59, 60}},
			{"is null matches NULLs", "/tasks?select=id&priority=is.null", []int{7, 14, 21, 28, 35, 42, 49, 56}},
			{"is not_null matches the rest", "/films?select=id&genre=is.not_null", []int{1, 2, 3, 4, 5, 6, 7, 8}},
			{"is true matches true booleans", "/clients?select=id&active=is.true", []int{1, 2, 4, 5, 6, 7, 8, 9}},
			{"is false matches false booleans", "/clients?select=id&active=is.false", []int{3}},
			{"is unknown matches no non-null boolean", "/clients?select=id&active=is.unknown", []int{}},
			{"is takes its values in any case", "/tasks?select=id&priority=is.NULL", []int{7, 14, 21, 28, 35, 42, 49, 56}},
			{"isdistinct keeps NULLs", "/films?select=id&genre=isdistinct.crime", []int{1, 2, 4, 6, 7, 8, 9}},
			{"isdistinct on a nullable integer", "/tasks?select=id&priority=isdistinct.4&project_id=eq.1", []int{1, 2, 4, 5, 6}},
			{"several filters are and-ed", "/tasks?select=id&project_id=eq.3&priority=lte.2", []int{13, 16, 17}},
			{"two filters on one column are and-ed", "/tasks?select=id&id=gt.10&id=lt.14", []int{11, 12, 13}},
		})
	})

	t.Run("on arrays, jsonb and ranges", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"cs on a text array needs every element", "/tasks?select=id&tags=cs.{backend,api}", []int{3, 9, 15, 21, 27, 33, 39, 45, 51}},
			{"cs matches an element with a space in quotes", "/tasks?select=id&tags=cs.{%22needs%20review%22}", []int{55}},
			{"cs matches an element with a comma in quotes", "/tasks?select=id&tags=cs.{%22csv,%20tsv%22}", []int{58}},
			{"cs matches an element with encoded plus signs", "/tasks?select=id&tags=cs.{c%2B%2B}", []int{56}},
			{"cd on a text array includes empty arrays", "/tasks?select=id&tags=cd.{backend,ops}", []int{1, 4, 5, 7, 10, 11, 13, 16, 17, 19, 22, 23, 25, 28, 29, 31, 34, 35, 37, 40, 41, 43, 46, 47, 49, 52, 53, 59}},
			{"ov on a text array needs one shared element", "/tasks?select=id&tags=ov.{ux,i18n}", []int{2, 8, 14, 20, 26, 32, 38, 44, 50, 57}},
			{"cs on an integer array", "/films?select=id&ratings=cs.{3}", []int{4}},
			{"cd on an integer array ignores duplicates", "/films?select=id&ratings=cd.{4,5}", []int{1, 2, 3, 5, 6, 7, 8}},
			{"ov on an integer array", "/films?select=id&ratings=ov.{1,3}", []int{4}},
			{"cs of the empty array matches every non-null array", "/films?select=id&ratings=cs.{}", []int{1, 2, 3, 4, 5, 6, 7, 8}},
			{"eq compares whole arrays", "/films?select=id&ratings=eq.{5,5,5}", []int{6}},
			{"cs on jsonb matches a contained object", "/projects?select=id&settings=cs.%7B%22color%22:%22blue%22%7D", []int{2, 9}},
			{"cs on jsonb matches nested arrays", "/projects?select=id&settings=cs.{%22labels%22:[%22api%22]}", []int{2}},
			{"cd on jsonb matches contained objects", "/projects?select=id&settings=cd.{%22color%22:%22green%22,%22labels%22:[%22biohazard%22,%22cold%20chain%22],%22public%22:false}", []int{5, 6, 12}},
			{"ov on a tstzrange", "/reservations?select=id&during=ov.[2024-05-01%2009:30:00%2B00,2024-05-01%2010:30:00%2B00)", []int{1, 2, 3, 8}},
			{"sl is strictly left of", "/reservations?select=id&during=sl.[2024-05-01%2010:00:00Z,2024-05-01%2011:00:00Z)", []int{1, 9, 10}},
			{"sr is strictly right of", "/reservations?select=id&during=sr.[2024-05-01%2010:00:00Z,2024-05-01%2011:00:00Z)", []int{4, 5, 6}},
			{"nxr does not extend to the right of", "/reservations?select=id&during=nxr.[2024-05-01%2000:00:00Z,2024-05-01%2012:00:00Z]", []int{1, 2, 3, 9, 10}},
			{"nxl does not extend to the left of", "/reservations?select=id&during=nxl.[2024-05-01%2009:00:00Z,)", []int{1, 2, 3, 4, 5, 6}},
			{"adj is adjacent to", "/reservations?select=id&during=adj.[2024-05-01%2010:00:00Z,2024-05-01%2012:00:00Z)", []int{1}},
			{"adj on an int4range compares canonical forms", "/reservations?select=id&seats=adj.(4,8]", []int{1}},
			{"cs on an int4range contains a range", "/reservations?select=id&seats=cs.[2,3]", []int{1, 2, 6, 8}},
			{"cd on an int4range is contained by a range", "/reservations?select=id&seats=cd.[0,10)", []int{1, 2, 3, 7, 8, 9}},
			{"ov on an int4range with an unbounded range", "/reservations?select=id&seats=ov.[15,)", []int{5, 6}},
			{"eq on a range compares canonical forms", "/reservations?select=id&seats=eq.[1,4]", []int{1}},
		})
	})

	t.Run("full-text search", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"fts on a tsvector stems the query word", "/articles?select=id&search=fts.running", []int{3, 4}},
			{"fts takes tsquery syntax", "/articles?select=id&search=fts.cats%20%7C%20api", []int{2, 5, 7}},
			{"fts with a language", "/articles?select=id&search=fts(english).dogs%26cats", []int{5}},
			{"plfts and-s plain words", "/articles?select=id&search=plfts.cats%20dogs", []int{5}},
			{"plfts with a language", "/articles?select=id&search=plfts(english).full%20text", []int{4}},
			{"phfts needs the words in order", "/articles?select=id&search=phfts.reverse%20proxy", []int{3}},
			{"phfts refuses the words out of order", "/articles?select=id&search=phfts.proxy%20reverse", []int{}},
			{"phfts with a language", "/articles?select=id&search=phfts(english).open%20source", []int{1}},
			{"wfts takes web search syntax", "/articles?select=id&search=wfts.cats%20or%20security", []int{5, 7}},
			{"wfts with quotes and a minus", "/articles?select=id&search=wfts(english).%22full%20text%22%20-stemming", []int{}},
			{"wfts with a plus decoded as a space", "/articles?select=id&search=wfts.keyset+pagination", []int{9}},
			{"fts with the simple language does not stem the query", "/articles?select=id&search=fts(simple).runs", []int{}},
			{"fts without a language stems with the default configuration", "/articles?select=id&search=fts.runs", []int{3, 4}},
		})
	})

	t.Run("in with quoted values and eq with reserved characters", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"in takes double-quoted values with commas, quotes and parentheses", "/clients?select=id&name=in.(%22Umbrella,%20Inc.%22,%22Stark%20Industries%20(Holdings)%22,%22The%20%5C%22Best%5C%22%20Co%22,%22O'Reilly%20Media%22)", []int{4, 5, 6, 9}},
			{"in takes quoted task titles", "/tasks?select=id&title=in.(%22Fix%20%5C%22Save%5C%22%20button%20(again)%22,%22Migrate%20CI,%20then%20deploy%22,%22O'Brien's%20request:%20export%20(CSV)%22)", []int{55, 56, 58}},
			{"in mixes quoted and unquoted values", "/clients?select=id&name=in.(Globex,%22Umbrella,%20Inc.%22)", []int{2, 4}},
			{"in takes a backslash-escaped backslash", "/clients?select=id&name=in.(%22a%5C%5Cb%22,Initech)", []int{3}},
			{"in takes non-ASCII values", "/clients?select=id&name=in.(%E6%9D%B1%E4%BA%AC%E3%82%B7%E3%82%B9%E3%83%86%E3%83%A0,Soci%C3%A9t%C3%A9%20G%C3%A9n%C3%A9rale)", []int{7, 8}},
			{"eq takes commas, dots and parentheses as they are", "/clients?select=id&name=eq.Stark%20Industries%20(Holdings)", []int{6}},
			{"eq takes a comma and a dot", "/clients?select=id&name=eq.Umbrella,%20Inc.", []int{4}},
			{"eq takes double quotes as they are", "/clients?select=id&name=eq.The%20%22Best%22%20Co", []int{9}},
			{"eq takes a single quote", "/tasks?select=id&title=eq.O'Brien's%20request:%20export%20(CSV)", []int{58}},
		})
	})

	t.Run("negated with not", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"not.eq negates a comparison and leaves out NULLs", "/tasks?select=id&project_id=eq.1&priority=not.eq.2", []int{2, 3, 4, 6}},
			{"not.gt negates an order comparison", "/films?select=id&released_year=not.gt.2001", []int{1, 2, 3, 4, 5}},
			{"not.like negates a pattern", "/tasks?select=id&project_id=eq.11&title=not.like.*up", []int{55, 56, 57, 58}},
			{"not.ilike negates a case-insensitive pattern", "/tasks?select=id&project_id=eq.11&title=not.ilike.C*", []int{55, 56, 57, 58}},
			{"not.match negates a regular expression", "/tasks?select=id&project_id=eq.11&title=not.match.[()]", []int{56, 57, 59, 60}},
			{"not.in negates a list", "/clients?select=id&name=not.in.(Globex,%22Umbrella,%20Inc.%22)", []int{1, 3, 5, 6, 7, 8, 9}},
			{"not.is.null matches the non-null", "/films?select=id&ratings=not.is.null", []int{1, 2, 3, 4, 5, 6, 7, 8}},
			{"not.is.true matches false", "/clients?select=id&active=not.is.true", []int{3}},
			{"not.isdistinct is not distinct from", "/films?select=id&genre=not.isdistinct.crime", []int{3, 5}},
			{"not.cs negates array containment", "/tasks?select=id&project_id=eq.11&tags=not.cs.{ops}", []int{55, 57, 58, 59}},
			{"not.ov negates array overlap", "/films?select=id&ratings=not.ov.{5}", []int{7}},
			{"not.fts negates a text search", "/articles?select=id&search=not.fts.run", []int{1, 2, 5, 6, 7, 8, 9, 10, 11, 12}},
			{"not.wfts negates a web search with a language", "/articles?select=id&search=not.wfts(english).cats%20or%20api", []int{1, 3, 4, 6, 8, 9, 10, 11, 12}},
			{"not.sl negates a range comparison", "/reservations?select=id&seats=not.sl.[5,10)", []int{2, 5, 6, 7}},
			{"not.adj negates adjacency", "/reservations?select=id&during=not.adj.[2024-05-01%2010:00:00Z,2024-05-01%2012:00:00Z)", []int{2, 3, 4, 5, 6, 7, 8, 9, 10}},
		})
	})

	t.Run("quantified with any and all", func(t *testing.T) {
		runIDsCases(t, s, []idsCase{
			{"eq(any) matches one of the values", "/tasks?select=id&project_id=eq.2&priority=eq(any).{1,4}", []int{8, 11, 12}},
			{"eq(all) of one value", "/tasks?select=id&project_id=eq.2&priority=eq(all).{4}", []int{11}},
			{"gt(all) is above every value", "/tasks?select=id&project_id=eq.1&priority=gt(all).{1,2}", []int{2, 3, 6}},
			{"gt(any) is above some value", "/films?select=id&released_year=gt(any).{2004,2010}", []int{6, 7}},
			{"lte(any) on dates", "/tasks?select=id&due_on=lte(any).{2024-02-07,2024-02-04}", []int{1, 2}},
			{"like(any) matches one of the patterns", "/tasks?select=id&title=like(any).{Design*,*backup}", []int{1, 7, 13, 19, 25, 31, 37, 43, 49, 50, 51, 52, 53, 54}},
			{"like(all) matches every pattern", "/tasks?select=id&title=like(all).{*e*,*sync}", []int{43, 44, 45, 46, 47, 48}},
			{"ilike(any) with a quoted pattern holding a comma", "/tasks?select=id&title=ilike(any).{%22*ci,%20then*%22,cleanup}", []int{56, 59, 60}},
			{"ilike(all) is case-insensitive", "/tasks?select=id&title=ilike(all).{d*,*SYNC}", []int{43, 47, 48}},
			{"match(any) takes regular expressions", "/tasks?select=id&title=match(any).{^Fix,%5Eclean}", []int{55, 60}},
			{"imatch(all) takes regular expressions", "/tasks?select=id&title=imatch(all).{^t,BILLING$}", []int{15}},
			{"not.eq(any) negates the quantified comparison", "/tasks?select=id&project_id=eq.2&priority=not.eq(any).{1,4}", []int{9, 10}},
			{"not.like(all) negates every pattern together", "/tasks?select=id&project_id=eq.11&title=not.like(all).{*e*,*a*}", []int{58}},
		})
	})
}
