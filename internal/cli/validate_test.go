package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// pulse validate on a table of one's own: rows simulated on the named
// chip, groups printed, JSON written; a bad table is a positioned error.
func TestValidateUserTable(t *testing.T) {
	dir := t.TempDir()
	table := write(t, dir, "mine.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,256,256,256,bf16,2.5,tpuv4core\nmatmul,64,64,64,f32,1,tpuv4core\n")
	out := filepath.Join(dir, "v.json")
	png := filepath.Join(dir, "v.png")
	code, stdout, stderr := runCLI("validate", table, "--json", out, "--rows", "--plot", png)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "256x256x256")
	require.Contains(t, stdout, "overall")
	var rep struct {
		Rows []struct {
			PredictedUs float64 `json:"predicted_us"`
		}
		Overall struct{ Rows int }
	}
	require.NoError(t, json.Unmarshal(mustRead(t, out), &rep))
	require.Len(t, rep.Rows, 2)
	require.Equal(t, 2, rep.Overall.Rows)
	require.Positive(t, rep.Rows[0].PredictedUs)
	require.FileExists(t, png)

	code, _, stderr = runCLI("validate", table, "--plot", filepath.Join(dir, "v.txt"))
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "unknown chart format")

	bad := write(t, dir, "bad.csv", "op,m,n,k,dtype,measured_us,chip\nmatmul,8,x,8,f32,1,tpuv4core\n")
	code, _, stderr = runCLI("validate", bad)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `bad.csv:2: n: "x" is not a positive integer`)
}
