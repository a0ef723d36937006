package sweep_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSlurmArraySweep runs a real single-node Slurm cluster (Debian's
// slurm-wlm and munge, started here with their own key, state, spool and
// ports), submits scripts/sweep-slurm.sh as a 2-task array job, waits for
// it, merges the shards and checks the merged results equal a local run.
// .ci/run installs the packages; elsewhere the test skips, saying why.
func TestSlurmArraySweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the Slurm cluster takes a few seconds to start")
	}
	if os.Geteuid() != 0 {
		t.Skip("the local Slurm cluster runs its daemons as root (SlurmUser=root); run as root")
	}
	for _, bin := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s not found: apt-get install slurm-wlm munge (as .ci/run does)", bin)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	// Short paths: a Unix socket's path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "pulse-slurm")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, d := range []string{"munge", "state", "spool", "log", "results"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o700))
	}
	logs := func() string {
		var b strings.Builder
		for _, f := range []string{"munged.log", "slurmctld.log", "slurmd.log"} {
			data, _ := os.ReadFile(filepath.Join(dir, "log", f))
			fmt.Fprintf(&b, "--- %s\n%s\n", f, data)
		}
		return b.String()
	}

	pulse := filepath.Join(dir, "pulse")
	build := exec.CommandContext(ctx, "go", "build", "-o", pulse, "./cmd/pulse")
	build.Dir = root
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	// munge: a fresh key and a private socket.
	key, sock := filepath.Join(dir, "munge", "munge.key"), filepath.Join(dir, "munge", "sock")
	out, err = exec.CommandContext(ctx, "mungekey", "-c", "-k", key, "-b", "1024").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, os.Chmod(key, 0o400))
	out, err = exec.CommandContext(ctx, "munged", "-f", "--key-file="+key, "-S", sock, "--pid-file="+filepath.Join(dir, "munge", "pid"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"), "--seed-file="+filepath.Join(dir, "munge", "seed")).CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { exec.Command("munged", "-s", "-S", sock).Run() })

	host, err := os.Hostname()
	require.NoError(t, err)
	conf := filepath.Join(dir, "slurm.conf")
	require.NoError(t, os.WriteFile(conf, []byte(fmt.Sprintf(`ClusterName=pulsetest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=%[1]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), sock, dir, 2)), 0o644))
	env := append(os.Environ(), "SLURM_CONF="+conf)
	daemon := func(name string, args ...string) {
		cmd := exec.Command(name, args...)
		cmd.Env = env
		require.NoError(t, cmd.Start(), name)
		t.Cleanup(func() {
			cmd.Process.Kill()
			cmd.Wait()
		})
	}
	daemon("slurmctld", "-D", "-c", "-i")
	daemon("slurmd", "-D")
	run := func(name string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Env, cmd.Dir = env, root
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		s, _ := run("sinfo", "-h", "-o", "%T")
		if strings.TrimSpace(s) == "idle" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Slurm node did not come up (sinfo: %q)\n%s", s, logs())
		}
		time.Sleep(500 * time.Millisecond)
	}

	spec := filepath.Join(dir, "spec.yaml")
	require.NoError(t, os.WriteFile(spec, []byte(`workloads: [sweep/testdata/mlp.hlo, examples/kernels/gemm256.s]
chip: tpuv4core
axes:
  mxu.rows: [32, 64, 128]
  dma.engines: [1, 2]
`), 0o644))
	results := filepath.Join(dir, "results")
	s, err := run("sbatch", "--wait", "--array=0-1", "--cpus-per-task=1", "--chdir="+root,
		"--output="+filepath.Join(dir, "log", "sweep-%A_%a.log"),
		"--export=ALL,SPEC="+spec+",OUT="+results+",PULSE="+pulse,
		filepath.Join(root, "scripts", "sweep-slurm.sh"))
	if err != nil {
		tasks, _ := filepath.Glob(filepath.Join(dir, "log", "sweep-*.log"))
		var b strings.Builder
		for _, f := range tasks {
			data, _ := os.ReadFile(f)
			fmt.Fprintf(&b, "--- %s\n%s\n", f, data)
		}
		t.Fatalf("sbatch: %v: %s\n%s%s", err, s, b.String(), logs())
	}
	merged := filepath.Join(dir, "merged")
	s, err = run(pulse, "sweep", "merge", "-o", merged, filepath.Join(results, "shard-0"), filepath.Join(results, "shard-1"))
	require.NoError(t, err, s)
	require.Contains(t, s, "complete")
	require.NotContains(t, s, "INCOMPLETE")

	local := filepath.Join(dir, "local")
	s, err = run(pulse, "sweep", spec, "-o", local)
	require.NoError(t, err, s)
	want, err := os.ReadFile(filepath.Join(local, "results.csv"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(merged, "results.csv"))
	require.NoError(t, err)
	require.Equal(t, string(want), string(got))
	require.Equal(t, 13, strings.Count(string(got), "\n"), "a header and 12 points")
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
