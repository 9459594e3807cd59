# lit configuration for choreo's command-line tests.
import os

import lit.formats

config.name = "choreo"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.choreo_obj_root, "tests", "lit")

# Longest first: lit substitutes in order.
config.substitutions.append(("%choreo-bench-rank-build", os.path.join(config.choreo_bin_dir, "choreo-bench-rank-build")))
config.substitutions.append(("%choreo-run", os.path.join(config.choreo_bin_dir, "choreo-run")))
config.substitutions.append(("%choreo", os.path.join(config.choreo_bin_dir, "choreo")))
config.substitutions.append(("%mpiexec", config.mpiexec))
config.substitutions.append(("%python", config.python))
config.substitutions.append(
    ("%expect-exit", "sh " + os.path.join(config.test_source_root, "Inputs", "expect-exit.sh")))
config.substitutions.append(
    ("%goal-sim", config.python + " " + os.path.join(config.test_source_root, "Inputs", "goal_sim.py")))
config.substitutions.append(
    ("%reductions", config.python + " " + os.path.join(config.test_source_root, "..", "mpi", "reduction_schedules.py")))
config.substitutions.append(
    ("%mutate", config.python + " " + os.path.join(config.test_source_root, "Inputs", "mutate.py")))
# Sanitizer builds (-DCHOREO_SANITIZE=address,...): tests that cannot run
# instrumented say `UNSUPPORTED: asan`.
if "address" in getattr(config, "choreo_sanitize", ""):
    config.available_features.add("asan")
# Sanitizer builds: lit starts tests with a clean environment, so the
# variables the instrumented binaries and MPICH need are passed on.
for var in ["UCX_MEM_MMAP_HOOK_MODE", "ASAN_OPTIONS", "UBSAN_OPTIONS",
            "LSAN_OPTIONS"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "/usr/bin:/bin")])
