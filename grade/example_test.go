package grade_test

import (
	"fmt"
	"os"

	"github.com/pulse-sim/pulse/grade"
	"github.com/pulse-sim/pulse/labs"
)

// Grade a folder: here one holding lab vadd's reference solution.
func ExampleGrade() {
	l, err := labs.Get("vadd")
	if err != nil {
		panic(err)
	}
	dir, _ := os.MkdirTemp("", "lab")
	defer os.RemoveAll(dir)
	if _, err := l.WriteSolution(dir); err != nil {
		panic(err)
	}
	res, err := grade.Grade(l, dir, grade.Options{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %.0f / %.0f in %d tests, %d cycles (reference %d)\n",
		res.Lab, res.Score, res.MaxScore, len(res.Tests), res.Cycles[""], res.ReferenceCycles[""])
	// Output: vadd: 100 / 100 in 10 tests, 5345 cycles (reference 5345)
}
