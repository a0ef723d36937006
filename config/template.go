package config

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// A Template is a chip config's source parsed once, for building many
// chips from it with different --set overrides: a sweep builds one chip
// per point, and parsing, re-encoding and re-decoding the preset's YAML for
// each was most of a sweep's serial start-up (4 s of a 1,005-point sweep)
// and a sixth of each small point's time. Chip(sets) gives exactly what
// Parse(origin, src, sets) gives, errors included.
type Template struct {
	origin string
	src    []byte
	root   *yaml.Node // the parsed source; never modified (Chip copies it)
	// written caches asWritten's nodes by what decides them (a sweep sets
	// the same few values over and over; each costs an encoder's buffers).
	written sync.Map // writtenKey -> *yaml.Node
}

type writtenKey struct {
	kind   yaml.Kind
	style  yaml.Style
	inFlow bool
	val    string
}

// NewTemplate parses src; its errors are Parse's.
func NewTemplate(origin string, src []byte) (*Template, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(src, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", origin, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: a chip config is a YAML mapping", origin)
	}
	return &Template{origin: origin, src: src, root: &root}, nil
}

// Parse decodes a chip config, strictly: unknown keys and values of the wrong
// type are errors naming the key.
func Parse(origin string, src []byte, sets []string) (*Chip, error) {
	t, err := NewTemplate(origin, src)
	if err != nil {
		return nil, err
	}
	return t.Chip(sets)
}

// Chip builds the template's chip with sets (key=value) applied.
func (t *Template) Chip(sets []string) (*Chip, error) { return t.chip(sets, false) }

// chip is Chip; strict decodes through the text always (the tests hold
// the direct decode of the tree against it).
func (t *Template) chip(sets []string, strict bool) (*Chip, error) {
	root, ok := copyNode(t.root)
	if !ok { // anchors or aliases: parse the source again rather than copy a graph
		root = new(yaml.Node)
		if err := yaml.Unmarshal(t.src, root); err != nil {
			return nil, fmt.Errorf("%s: %v", t.origin, err)
		}
	}
	for _, s := range sets {
		key, val, ok := strings.Cut(s, "=")
		if !ok || key == "" {
			return nil, fmt.Errorf("--set %q: want key=value", s)
		}
		n, inFlow, err := setKey(root.Content[0], key, val)
		if err != nil {
			return nil, err
		}
		if !strict && !t.asWritten(n, inFlow, val) {
			strict = true // the strict path gives the error
		}
	}
	if err := checkIntegers(root.Content[0], reflect.TypeOf(Chip{}), ""); err != nil {
		return nil, fmt.Errorf("%s: %v", t.origin, err)
	}
	var c Chip
	if strict || !knownFields(root.Content[0], reflect.TypeOf(c)) || root.Content[0].Decode(&c) != nil {
		// The strict decoder, for its error: it names the key and its line.
		c = Chip{}
		if err := decodeStrict(t.origin, root, &c); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", t.origin, err)
	}
	return &c, nil
}

// decodeStrict decodes root through its text with unknown keys refused,
// the slow path that gives the decoder's own errors.
func decodeStrict(origin string, root *yaml.Node, c *Chip) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("%s: %v", origin, err)
	}
	// The decoder's errors give lines of the text written here, which
	// differ from the source's where --set added a key the file leaves out:
	// the key is looked up in that text.
	text := buf.Bytes()
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		var written yaml.Node
		if yaml.Unmarshal(text, &written) != nil || len(written.Content) != 1 {
			return fmt.Errorf("%s: %s", origin, yamlError(err, root.Content[0]))
		}
		return fmt.Errorf("%s: %s", origin, yamlError(err, written.Content[0]))
	}
	return nil
}

// asWritten makes a value --set wrote into the tree (n, from val) what
// the strict path's text gives the decoder: setKey leaves its tag for the
// encoder to choose (an empty value is written "" and read as a string,
// where the bare node would decode as null), so the node goes through the
// encoder and the parser alone, in the same context: a mapping's value, in
// flow style when the value sits inside a flow collection. False when that
// fails.
func (t *Template) asWritten(n *yaml.Node, inFlow bool, val string) bool {
	key := writtenKey{n.Kind, n.Style, inFlow, val}
	if w, ok := t.written.Load(key); ok {
		c, _ := copyNode(w.(*yaml.Node))
		*n = *c
		return true
	}
	doc := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "k"}, n}}
	if inFlow {
		doc.Style = yaml.FlowStyle
	}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return false
	}
	var back yaml.Node
	if yaml.Unmarshal(b, &back) != nil || len(back.Content) != 1 || len(back.Content[0].Content) != 2 {
		return false
	}
	w, ok := copyNode(back.Content[0].Content[1])
	if !ok {
		return false
	}
	*n = *back.Content[0].Content[1]
	t.written.Store(key, w)
	return true
}

// copyNode copies a tree of nodes; false when it holds anchors or aliases
// (a graph, which the copy would have to rewire).
func copyNode(n *yaml.Node) (*yaml.Node, bool) {
	if n.Anchor != "" || n.Alias != nil || n.Kind == yaml.AliasNode {
		return nil, false
	}
	c := *n
	if n.Content != nil {
		c.Content = make([]*yaml.Node, len(n.Content))
		for i, k := range n.Content {
			var ok bool
			if c.Content[i], ok = copyNode(k); !ok {
				return nil, false
			}
		}
	}
	return &c, true
}

// knownFields reports whether decoding n into a value of type t meets
// nothing the strict decoder would refuse as unknown: every key of a
// mapping decoded into a struct names one of its fields. Anything it is
// unsure of (merge keys, tagged keys, inline fields) counts as unknown,
// sending the chip down the strict path.
func knownFields(n *yaml.Node, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return n.Kind == yaml.ScalarNode // a type error the decoder reports
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || (k.Tag != "" && k.Tag != "!!str") || k.Value == "<<" {
				return false
			}
			f, ok := fieldByYAMLName(t, k.Value)
			if !ok || !knownFields(n.Content[i+1], f.Type) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for _, e := range n.Content {
				if !knownFields(e, t.Elem()) {
					return false
				}
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				if !knownFields(n.Content[i], t.Elem()) {
					return false
				}
			}
		}
	}
	return true
}

// fieldByYAMLName finds the field the decoder fills from key k, by its
// yaml tag's name. False also for a struct with untagged, inline or
// embedded fields, left to the strict decoder.
func fieldByYAMLName(t reflect.Type, k string) (reflect.StructField, bool) {
	fs := tagFields(t)
	if !fs.plain {
		return reflect.StructField{}, false
	}
	f, ok := fs.byName[k]
	return f, ok
}

// structFields is a struct type's fields by their yaml tag's name.
type structFields struct {
	byName map[string]reflect.StructField
	// plain: every exported field has a tag name, and none is inline or
	// embedded, so byName is the whole of what the decoder matches.
	plain bool
}

var tagFieldsOf sync.Map // reflect.Type -> *structFields

// tagFields is t's fields by yaml tag name, worked out once per type: a
// sweep checks every key of a chip at every point.
func tagFields(t reflect.Type) *structFields {
	if fs, ok := tagFieldsOf.Load(t); ok {
		return fs.(*structFields)
	}
	fs := &structFields{byName: map[string]reflect.StructField{}, plain: true}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if strings.Contains(opts, "inline") || f.Anonymous || (name == "" && f.IsExported()) {
			fs.plain = false
		}
		if name == "" || name == "-" {
			continue
		}
		if _, dup := fs.byName[name]; !dup { // the first, as a scan in order finds
			fs.byName[name] = f
		}
	}
	tagFieldsOf.Store(t, fs)
	return fs
}
