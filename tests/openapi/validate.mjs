// Validates an OpenAPI document (Swagger 2.0 or OpenAPI 3.1) against the specification's
// JSON schema and the rules the schema cannot express (references resolve,
// no duplicate parameters, path parameters declared, required properties
// exist), with @apidevtools/swagger-parser.
//
//   node tests/openapi/validate.mjs [document.json]   (stdin without a path)
//
// Exits 0 and prints "valid: <swagger version> <title>" for a valid
// document; exits 1 with the validation errors otherwise.
import { readFileSync } from "node:fs";
import SwaggerParser from "@apidevtools/swagger-parser";

const path = process.argv[2];
let text;
try {
  text = readFileSync(path ?? 0, "utf8");
} catch (err) {
  console.error(`reading ${path ?? "stdin"}: ${err.message}`);
  process.exit(2);
}

let doc;
try {
  doc = JSON.parse(text);
} catch (err) {
  console.error(`not JSON: ${err.message}`);
  process.exit(1);
}

try {
  // validate() dereferences the document it is given: keep the original.
  // The version pgrest writes: Swagger 2.0 (openapi_version 2.0, the
  // default) or OpenAPI 3.1 (openapi_version 3.1). swagger-parser
  // validates either against its specification's JSON schema.
  const version = doc.swagger === "2.0" ? "swagger 2.0" : /^3\.1\.\d+$/.test(doc.openapi ?? "") ? `openapi ${doc.openapi}` : null;
  if (version === null) {
    console.error(`neither Swagger 2.0 nor OpenAPI 3.1: swagger is ${JSON.stringify(doc.swagger)}, openapi is ${JSON.stringify(doc.openapi)}`);
    process.exit(1);
  }
  const api = await SwaggerParser.validate(structuredClone(doc));
  console.log(`valid: ${version} ${JSON.stringify(api.info.title)}`);
} catch (err) {
  console.error(err.message);
  for (const detail of err.details ?? []) {
    console.error(JSON.stringify(detail));
  }
  process.exit(1);
}
