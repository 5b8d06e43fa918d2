package errors

import "net/http"

// NoFunctionForBody (PGRST202): a POST of a raw text/plain, text/xml or
// application/octet-stream body found no function of that name with a
// single unnamed parameter of paramType (text, xml or bytea). PostgREST
// names no parameters and gives no hint then.
func NoFunctionForBody(schema, name, paramType string) *Error {
	fn := schema + "." + name
	return &Error{Status: http.StatusNotFound, Code: "PGRST202",
		Message: "Could not find the function " + fn + " in the schema cache",
		Details: "Searched for the function " + fn + " with a single unnamed " + paramType +
			" parameter, but no matches were found in the schema cache."}
}
