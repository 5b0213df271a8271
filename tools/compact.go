package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The compact form of the workspace tools' definitions is what a model with a small context
// reads (the agent loop decides when): the same names and schemas, each with a one-line
// description and without the parameters' descriptions, but for the few a name alone does
// not explain. A schema keeps every keyword that constrains a value (type, enum, minimum,
// default, required…), so a call valid in one form is valid in the other.

// compactTool is the compact form of one workspace tool.
type compactTool struct {
	description string
	params      map[string]string // the parameter descriptions kept, shortened
}

// compactTools are the compact forms, by tool name. Every workspace tool has one (a test
// holds it).
var compactTools = map[string]compactTool{
	"read_file":    {description: "Read a text file; offset and limit are line numbers."},
	"list_dir":     {description: "List a folder; \".\" is the workspace. Folders end with /."},
	"search_files": {description: "Search files for a regular expression; answers path:line: text.", params: map[string]string{"glob": "File name pattern, e.g. *.go"}},
	"write_file":   {description: "Create a file or replace its whole content."},
	"edit_file":    {description: "Replace old_string, matched exactly (whitespace too) once or expected_replacements times, with new_string. Read the file first."},
	"make_dir":     {description: "Create a folder."},
	"delete_path":  {description: "Delete a file, or a folder (recursive: with its content)."},
	"run_command":  {description: "Run a shell command in the workspace, sandboxed, without network; answers its exit status and output.", params: map[string]string{"timeout": "Seconds; default 120"}},
	"start_server": {description: "Start a development server that keeps running; it must listen on 127.0.0.1. Answers its port."},
	"stop_server":  {description: "Stop a server start_server started; without id, all of them."},
}

// CompactDefinitions returns defs with each workspace tool's definition in its compact form;
// the other tools' (an MCP server's) are returned as they are. defs is not changed.
func CompactDefinitions(defs []Definition) []Definition {
	out := make([]Definition, len(defs))
	for i, d := range defs {
		out[i] = d
		c, ok := compactTools[d.Name]
		if !ok {
			continue
		}
		if schema, err := compactSchema(d.Schema, c.params); err == nil {
			out[i].Description, out[i].Schema = c.description, schema
		}
	}
	return out
}

// compactSchema is schema with its properties' descriptions left out, but those of keep,
// which replace the ones there. The order of keys is kept, so the same schema always gives
// the same bytes.
func compactSchema(schema json.RawMessage, keep map[string]string) (json.RawMessage, error) {
	top, err := decodeOrdered(schema)
	if err != nil {
		return nil, err
	}
	for i, kv := range top {
		if kv.key != "properties" {
			continue
		}
		props, err := decodeOrdered(kv.value.(json.RawMessage))
		if err != nil {
			return nil, err
		}
		for j, p := range props {
			prop, err := decodeOrdered(p.value.(json.RawMessage))
			if err != nil {
				return nil, err
			}
			kept := prop[:0]
			for _, k := range prop {
				if k.key != "description" {
					kept = append(kept, k)
				} else if d, ok := keep[p.key]; ok {
					kept = append(kept, keyValue{k.key, d})
				}
			}
			props[j].value = kept
		}
		top[i].value = props
	}
	return json.Marshal(top)
}

// decodeOrdered reads a JSON object into its keys, in order, each with its raw value.
func decodeOrdered(raw json.RawMessage) (orderedObject, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object: %.40s", raw)
	}
	var out orderedObject
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, keyValue{tok.(string), v})
	}
	return out, nil
}
