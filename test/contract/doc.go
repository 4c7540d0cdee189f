// Package contract checks the SDK against the operator's OpenAPI: every
// operation's answers generated from its schemas and decoded by the SDK,
// every request the SDK sends validated against its operation, every
// documented webhook parsed, and the sandbox's answers validated in strict
// mode. It is a module of its own so that libopenapi and its validator stay
// out of the SDK's go.mod.
//
// What it proves, and how it cannot fool itself:
//
//   - The values of generated answers are compared with what the SDK
//     decoded through an independent field map (testdata/fieldmap.txt:
//     each OpenAPI property to its Go field, written by hand, never read
//     from json tags), so a misspelled or swapped tag fails. Properties
//     the SDK deliberately does not read are listed with their reasons
//     (testdata/unread.txt); a property in neither fails, and the map is
//     checked both ways against the extract's answer schemas and the
//     models. The webhook map (EventFields) is checked both ways too.
//   - Undeclared properties are looked for in every request and answer body
//     by a walk of its own (the validator reports them only when the body
//     otherwise passes).
//   - Each difference is one allow-list row naming one exact line (one
//     property or one value), never a pattern; a row no run uses is stale,
//     under -run too. A number the OpenAPI types as a double is generated
//     whole only at a property a number-whole row names (one JSON path); a
//     sandbox row that holds for the spec's shape only (InSandboxSpec)
//     excuses nothing in the OpenAPI's (WithBareResponses).
//   - The answers of the operations the spec wraps ({"transaction":…},
//     {"user":…}) are served in that shape too, half of them, and compared
//     by value like the others.
//   - Every error answer the OpenAPI declares is generated and must come
//     out as an *APIError with its status, code and message.
//   - The List iterators, FindAuthorization and FindByMerchantReference
//     read finite lists of generated pages ending with an empty one; items
//     and page metadata are compared by value.
//   - A form notification whose value holds "&" then "=" is read as the
//     URL-decoded body the documented signature covers (a field it names
//     twice: a malformed event, 400), asserted, not excused.
//   - cmd/mutate measures it: it applies each bug of
//     testdata/mutations.tsv to a copy of the repository and runs this
//     suite alone (slow: not part of CI).
//
// The OpenAPI itself is not committed: testdata/operator-openapi.facts.yml
// is a facts-only extract of it (paths, methods, parameters, schemas, types,
// enums, required fields and defaults, no prose). Regenerate it from the
// operator's file with
//
//	go generate ./...   (or: go run ./cmd/extract)
//
// run in this directory; the source defaults to ../../../shared/reference/operator-openapi.yml
// (the shared directory beside the repository), or $BANKPAY_OPENAPI.
package contract

//go:generate go run ./cmd/extract
