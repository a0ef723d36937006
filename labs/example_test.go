package labs_test

import (
	"fmt"

	"github.com/pulse-sim/pulse/labs"
)

// The labs in course order.
func ExampleAll() {
	all, err := labs.All()
	if err != nil {
		panic(err)
	}
	for _, l := range all {
		fmt.Println(l.Order, l.Name, l.Chip)
	}
	// Output:
	// 1 vadd teach16
	// 2 overlap teach16
	// 3 gemm teach16
	// 4 dataflows teach16
	// 5 memory teach16
	// 6 numerics teach16
	// 7 hlo teach16
}
