// Validates an OpenAPI (Swagger 2.0) document against the specification's
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
  const api = await SwaggerParser.validate(structuredClone(doc));
  if (doc.swagger !== "2.0") {
    console.error(`not a Swagger 2.0 document: swagger is ${JSON.stringify(doc.swagger)}`);
    process.exit(1);
  }
  console.log(`valid: swagger ${api.swagger} ${JSON.stringify(api.info.title)}`);
} catch (err) {
  console.error(err.message);
  for (const detail of err.details ?? []) {
    console.error(JSON.stringify(detail));
  }
  process.exit(1);
}
