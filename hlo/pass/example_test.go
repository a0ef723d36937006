package pass_test

import (
	"fmt"
	"regexp"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/pass"
)

// A pipeline of two passes, verified after each, dumping after the one
// the pattern names.
func ExamplePipeline_Run() {
	m, _ := hlo.Parse("m.hlo", "ENTRY e {\n  a = f32[2] parameter(0)\n  ROOT n = f32[2] negate(a)\n}\n")
	p := &pass.Pipeline{Name: "demo", Passes: []pass.Pass{
		{Name: "rename-root", Run: func(m *hlo.Module) error { m.Entry.Root.Name = "r"; return nil }},
		{Name: "nothing", Run: func(*hlo.Module) error { return nil }},
	}}
	err := p.Run("m.hlo", m, pass.Options{
		Verify:    true,
		DumpAfter: regexp.MustCompile("rename-.*"),
		Dump: func(i int, name string, m *hlo.Module) error {
			fmt.Printf("after pass %d (%s): root %s\n", i, name, m.Entry.Root.Name)
			return nil
		},
	})
	fmt.Println(err, p.Names())
	// Output:
	// after pass 1 (rename-root): root r
	// <nil> [rename-root nothing]
}
