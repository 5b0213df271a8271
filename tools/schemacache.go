package tools

import (
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compiledSchema is a tool's schema as [NewRegistry] compiled it, with what its messages say
// of the arguments. It is read-only once made, so registries share it.
type compiledSchema struct {
	schema   *jsonschema.Schema
	allowed  string
	expected string
}

// schemaCache keeps the schemas compiled, by tool name and schema text: a run's registry is
// built as each message is sent, from the same few definitions, and compiling them is most of
// what building it costs (about a millisecond for the workspace tools). maxCachedSchemas
// bounds it (tools of MCP servers come and go); past it, a schema is compiled each time.
var schemaCache struct {
	sync.Mutex
	byKey map[string]*compiledSchema
}

const maxCachedSchemas = 1024

func cachedSchema(name string, schema []byte) *compiledSchema {
	schemaCache.Lock()
	defer schemaCache.Unlock()
	return schemaCache.byKey[schemaKey(name, schema)]
}

func keepSchema(name string, schema []byte, c *compiledSchema) {
	schemaCache.Lock()
	defer schemaCache.Unlock()
	if schemaCache.byKey == nil {
		schemaCache.byKey = map[string]*compiledSchema{}
	}
	if len(schemaCache.byKey) < maxCachedSchemas {
		schemaCache.byKey[schemaKey(name, schema)] = c
	}
}

func schemaKey(name string, schema []byte) string { return name + "\x00" + string(schema) }
