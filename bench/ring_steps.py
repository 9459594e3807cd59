"""bench/ring_steps.py - the step count of a generated half-allgather on a
ring, shared by ring_table.py and synth_table.py."""
import json
import subprocess


def steps(choreo, algo, p, q):
    """Steps of `choreo gen ALGO --p P --q Q --bytes-a 1` (choreo stats)."""
    g = subprocess.run([choreo, "gen", algo, "--p", str(p), "--q", str(q),
                        "--bytes-a", "1"], check=True, capture_output=True)
    s = subprocess.run([choreo, "stats", "-", "--json"], input=g.stdout,
                       check=True, capture_output=True)
    return json.loads(s.stdout)["steps"]
