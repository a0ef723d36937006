package lowering

import (
	"fmt"
	"sort"
	"strings"
)

// largestLive names the biggest tensors that hold HBM, for the message
// that says a module does not fit: the user sees which arrays to shrink.
func (a *hbmAllocator) largestLive(n int) string {
	type live struct {
		name string
		size int64
	}
	var all []live
	for name, s := range a.spans {
		all = append(all, live{name, s.size})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].size != all[j].size {
			return all[i].size > all[j].size
		}
		return all[i].name < all[j].name
	})
	var b strings.Builder
	plural := "s"
	if len(all) == 1 {
		plural = ""
	}
	fmt.Fprintf(&b, "%d array%s already live", len(all), plural)
	for i, l := range all {
		if i == n {
			break
		}
		sep := ", largest "
		if i > 0 {
			sep = ", "
		}
		fmt.Fprintf(&b, "%s%s %s", sep, strings.TrimPrefix(l.name, "t_"), ByteSize(l.size))
	}
	return b.String()
}

// ByteSize prints a byte count in binary units, as the lowering's
// messages and reports do.
func ByteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
