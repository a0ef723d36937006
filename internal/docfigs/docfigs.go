// Package docfigs keeps the figures quoted in the docs produced by code.
// A figure is the text between two HTML comments in a Markdown file,
//
//	<!-- figure NAME -->
//	...
//	<!-- /figure NAME -->
//
// and a test regenerates each one and compares (docs_figures_test.go at
// the repository root): a change to the timing model that moves a figure
// fails until the doc is refreshed with -update, as a golden file would.
package docfigs

import (
	"fmt"
	"strings"
)

func markers(name string) (open, close string) {
	return "<!-- figure " + name + " -->\n", "<!-- /figure " + name + " -->"
}

// Get returns figure name's text in doc.
func Get(doc, name string) (string, error) {
	open, close := markers(name)
	i := strings.Index(doc, open)
	if i < 0 {
		return "", fmt.Errorf("no figure %q (want a line %q)", name, strings.TrimSpace(open))
	}
	j := strings.Index(doc[i+len(open):], close)
	if j < 0 {
		return "", fmt.Errorf("figure %q is not closed by %q", name, close)
	}
	return doc[i+len(open) : i+len(open)+j], nil
}

// Set returns doc with figure name's text replaced by body.
func Set(doc, name, body string) (string, error) {
	old, err := Get(doc, name)
	if err != nil {
		return "", err
	}
	open, _ := markers(name)
	i := strings.Index(doc, open) + len(open)
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return doc[:i] + body + doc[i+len(old):], nil
}
